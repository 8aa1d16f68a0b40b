"""Projectors: they bring read models up to the log.

A projector follows :meth:`EventStore.read_all` and records how far it got in
``projector_positions``, in the same transaction as the read-model rows it wrote, so a
crash never applies an event twice or skips one. Projections work on stored event types
and payload dicts, not on the rules engine, and take every time from the event
(``recorded_at``, deadlines), so rebuilding from the log gives the same rows.

:class:`Projector` applies one projection (by default the ``games`` and ``player_stats``
read models, :mod:`infra.read_models`); :class:`infra.projectors.Projectors` brings several
read models of finished games up together, as a game's end needs them. What a projection
is: :mod:`infra.projection`.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from sqlalchemy import Connection, Engine, delete, insert, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert

from infra.db import reader, writer
from infra.event_store import EventStore, StoredEvent
from infra.imported import imported_streams

# The read models' contract and the projectors of finished games, named here too.
from infra.projection import DEFAULT_BATCH as DEFAULT_BATCH
from infra.projection import EachEvent as EachEvent
from infra.projection import GameProjection as GameProjection
from infra.projection import Projection as Projection
from infra.projection import Streams as Streams
from infra.projection import ended_games as ended_games
from infra.projectors import Projectors as Projectors
from infra.read_models import _HANDLERS as _HANDLERS
from infra.read_models import READ_MODELS
from infra.schema import projector_positions


def lock_position(conn: Connection, name: str, wait: bool = True) -> int | None:
    """Lock the position row of projection ``name`` (creating it) and return it; None
    when ``wait`` is false and another transaction holds it (PostgreSQL; on SQLite the
    writer's lock already serialises projectors)."""
    table = projector_positions
    query = select(table.c.position).where(table.c.name == name)
    if conn.dialect.name == "postgresql":
        conn.execute(pg_insert(table).values(name=name, position=0).on_conflict_do_nothing())
        query = query.with_for_update(skip_locked=not wait)
        return conn.execute(query).scalar()
    position = conn.execute(query).scalar()
    if position is None:
        conn.execute(insert(table).values(name=name, position=0))
        return 0
    return int(position)


class Projector:
    """Applies the log to one projection, batch by batch, recording its position in the
    same transaction as the rows it writes, so an event is applied exactly once.

    Imported games (:func:`infra.imported.imported_streams`) never reach a projection:
    they were played elsewhere and are only there to be replayed. With ``wait`` false,
    a projector finding another one at work returns at once instead of queueing.
    """

    def __init__(
        self,
        engine: Engine,
        store: EventStore,
        projection: Projection[Any] | None = None,
        wait: bool = True,
    ):
        self.engine = engine
        self.store = store
        self.projection: Projection[Any] = projection or READ_MODELS
        self.wait = wait
        self._reached_end = False  # the last read of a few types reached the log's end

    @property
    def name(self) -> str:
        return self.projection.name

    def position(self) -> int:
        with reader(self.engine) as conn:
            value = conn.execute(
                select(projector_positions.c.position).where(
                    projector_positions.c.name == self.name
                )
            ).scalar()
        return int(value or 0)

    @property
    def types(self) -> Collection[str] | None:
        """The stored event types the projection reads (None: every one). A projection
        naming them (its ``types``) never reads the others."""
        types: Collection[str] | None = getattr(self.projection, "types", None)
        return types

    def _read(self, start: int, batch: int) -> tuple[list[StoredEvent], int]:
        """The next batch after ``start`` and the position it reaches. A projection reading
        a few types reaches the log's end when it read them all up to there: appends are
        committed in position order, so every event up to the last position is there."""
        types = self.types
        if types is None:
            new = self.store.read_all(after_position=start, limit=batch)
            return new, new[-1].position if new else start
        end = self.store.last_position()
        new = self.store.read_all(after_position=start, limit=batch, types=types, up_to=end)
        self._reached_end = len(new) < batch
        return new, new[-1].position if len(new) == batch else end

    def run_once(self, batch: int = DEFAULT_BATCH) -> int | None:
        """Apply the next batch of events; return how many were applied (0 when another
        projector moved first: read again), or None when another one is at work and this
        one does not wait."""
        start = self.position()
        new, reached = self._read(start, batch)
        if reached == start:
            return 0
        with reader(self.engine) as conn:
            fresh = self._played_here(conn, new)
        prepared = self.projection.prepare(fresh)
        with writer(self.engine) as conn:
            position = lock_position(conn, self.name, self.wait)
            if position is None:
                return None
            if position != start:
                return 0
            self.projection.apply(conn, fresh, prepared)
            self._record(conn, reached)
        return len(new)

    def catch_up(self, batch: int = DEFAULT_BATCH) -> int:
        """Apply every event recorded so far (or until another projector is found at
        work, when this one does not wait); return how many."""
        total = 0
        while True:
            self._reached_end = False
            done = self.run_once(batch)
            if done is None:
                return total
            if self._reached_end and done > 0:
                return total + done  # it read up to the log's last position: no need to ask
            if done == 0 and self.position() >= self.store.last_position():
                return total
            total += done

    def rebuild(self, batch: int = DEFAULT_BATCH) -> int:
        """Empty the projection's tables (never the events) and replay the whole log into
        them; return how many events were replayed.

        It is one transaction: until it commits, readers see the old tables, never empty
        or half-built ones, and the projector following the log waits for it. Events
        appended meanwhile are left to that projector (the position is the last one
        replayed).
        """
        replayed = 0
        with writer(self.engine) as conn:
            lock_position(conn, self.name)
            for table in self.projection.tables:
                conn.execute(delete(table))
            position = 0
            while True:
                new, reached = self._read(position, batch)
                if reached == position:
                    break
                fresh = self._played_here(conn, new)
                self.projection.apply(conn, fresh, self.projection.prepare(fresh))
                position = reached
                replayed += len(new)
            self._record(conn, position)
        return replayed

    @staticmethod
    def _played_here(conn: Connection, new: Sequence[StoredEvent]) -> list[StoredEvent]:
        """``new`` without the events of imported games."""
        imported = imported_streams(conn, {e.stream_id for e in new})
        return [e for e in new if e.stream_id not in imported]

    def _record(self, conn: Connection, position: int) -> None:
        conn.execute(
            update(projector_positions)
            .where(projector_positions.c.name == self.name)
            .values(position=position)
        )
