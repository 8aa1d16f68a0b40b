"""Several read models of finished games brought up to the log together, as a game's end
needs them (:class:`Projectors`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, Engine, bindparam, func, insert, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert

from infra.db import is_postgres, reader, writer
from infra.event_store import EventStore, StoredEvent
from infra.imported import imported_streams, is_imported
from infra.projection import DEFAULT_BATCH, GameProjection, Streams
from infra.schema import projector_positions

# A game's end runs these: they are built once.
_POSITIONS = select(projector_positions.c.name, projector_positions.c.position).where(
    projector_positions.c.name.in_(bindparam("names", expanding=True))
)
# PostgreSQL: the rows locked, and the transaction's commit not waiting for its WAL to
# reach the disk (the read models and their positions are lost together in a crash,
# never apart, and are then brought up from the log again: only the log must be durable).
_LOCK = {
    wait: select(
        projector_positions.c.name,
        projector_positions.c.position,
        func.set_config("synchronous_commit", "off", True),
    )
    .where(projector_positions.c.name.in_(bindparam("names", expanding=True)))
    .order_by(projector_positions.c.name)
    .with_for_update(skip_locked=not wait)
    for wait in (True, False)
}
_NEW_POSITION = pg_insert(projector_positions).on_conflict_do_nothing()
_SET_POSITIONS = (
    update(projector_positions)
    .where(projector_positions.c.name.in_(bindparam("names", expanding=True)))
    .values(position=bindparam("position"))
)


def lock_positions(conn: Connection, names: Sequence[str], wait: bool = True) -> dict[str, int]:
    """:func:`lock_position` of several projections in one statement (more when a row is
    new): the positions of those locked; one another transaction holds is left out when
    ``wait`` is false."""
    table = projector_positions
    wanted = {"names": list(names)}
    if conn.dialect.name == "postgresql":
        found = {str(r.name): int(r.position) for r in conn.execute(_LOCK[wait], wanted)}
        if len(found) < len(names):  # a row to create (or, not waiting, one held)
            missing = [name for name in names if name not in found]
            conn.execute(_NEW_POSITION, [{"name": name, "position": 0} for name in missing])
            again = {"names": missing}
            found.update({str(r.name): int(r.position) for r in conn.execute(_LOCK[wait], again)})
        return found
    found = {str(r.name): int(r.position) for r in conn.execute(_POSITIONS, wanted)}
    missing = [name for name in names if name not in found]
    if missing:
        conn.execute(insert(table), [{"name": name, "position": 0} for name in missing])
        found.update(dict.fromkeys(missing, 0))
    return found


class Projectors:
    """Several projections of finished games brought up to the log together, as a game's
    end needs them (ratings and achievements, and history when asked): one read of the
    log, one check for imported games, each finished game's stream read once for them
    all (:class:`Streams`), and one write transaction that applies each projection and
    records its position, so an event is still applied exactly once to each.

    A projection another projector moved meanwhile is left for the next turn; with
    ``wait`` false, one another projector is at work on is skipped.
    """

    def __init__(
        self,
        engine: Engine,
        store: EventStore,
        projections: Sequence[GameProjection[Any]],
        wait: bool = True,
    ):
        self.engine = engine
        self.store = store
        self.projections = list(projections)
        self.wait = wait
        self.names = [p.name for p in self.projections]
        self.types = frozenset(t for p in self.projections for t in p.types)
        reads = [p.reads for p in self.projections]
        self.reads: frozenset[str] | None = (
            None if any(r is None for r in reads) else frozenset(t for r in reads for t in r or ())
        )
        self.with_metadata = any(p.with_metadata for p in self.projections)

    def positions(self, conn: Connection) -> dict[str, int]:
        found = conn.execute(_POSITIONS, {"names": self.names})
        known = {str(r.name): int(r.position) for r in found}
        return {name: known.get(name, 0) for name in self.names}

    def run_once(self, batch: int = DEFAULT_BATCH) -> tuple[int, bool, bool]:
        """Apply the next batch to every projection behind: how many events were read,
        whether every projection has reached the log's end, and whether another projector
        moved one of them (or is at work on it).

        On PostgreSQL it is one transaction: the projections' positions are locked first,
        then the log and the games' streams are read and the projections applied, so no
        other projector can move them meanwhile (it waits, or skips one locked when
        ``wait`` is false) and nothing is read twice. On SQLite, whose write lock is the
        whole database's, the reads and what they prepare come before the write
        transaction, which applies each projection no other projector moved meanwhile.
        """
        if not is_postgres(self.engine):
            return self._read_then_write(batch)
        with writer(self.engine) as conn:
            positions = lock_positions(conn, self.names, self.wait)
            moved = len(positions) < len(self.names)  # not waiting: held by another
            if not positions:
                return 0, False, moved
            read = self._read(conn, positions, batch)
            if read is None:
                return 0, not moved, moved
            new, fresh, streams = read
            prepared = self._prepare(positions, fresh, streams)
            self._apply(conn, positions, prepared, new[-1].position)
        return len(new), len(new) < batch and not moved, moved

    def _read_then_write(self, batch: int) -> tuple[int, bool, bool]:
        with reader(self.engine) as conn:
            positions = self.positions(conn)
            read = self._read(conn, positions, batch)
        if read is None:
            return 0, True, False
        new, fresh, streams = read
        prepared = self._prepare(positions, fresh, streams)
        with writer(self.engine) as conn:
            locked = lock_positions(conn, self.names, self.wait)
            # Those another projector moved meanwhile, or is at work on, wait for a turn.
            kept = {n: p for n, p in positions.items() if locked.get(n) == p}
            moved = len(kept) < len(positions)
            self._apply(conn, kept, prepared, new[-1].position)
        return len(new), len(new) < batch and not moved, moved

    def _read(
        self, conn: Connection, positions: dict[str, int], batch: int
    ) -> tuple[list[StoredEvent], list[StoredEvent], Streams] | None:
        """The next events of the projections' types after the lowest of ``positions`` (a
        position reached is the last such event read: appends are committed in position
        order, so none can appear before it later), those of games not imported, and the
        streams of the games that ended, read with their first events, which say whether
        they were imported (another statement for the other streams, if any). None when
        there is no event to read."""
        new = self.store.read_all(
            after_position=min(positions.values()), limit=batch, types=self.types, conn=conn
        )
        if not new:
            return None
        ended = {e.stream_id for e in new if e.type == "game_ended"}
        streams = Streams(self.store, self.reads, self.with_metadata)
        found, firsts = self.store.load_games(
            conn, ended, with_metadata=self.with_metadata, types=streams.types
        )
        imported = {stream for stream in ended if is_imported(firsts.get(stream))}
        others = {e.stream_id for e in new} - ended
        if others:
            imported |= imported_streams(conn, others)
        streams.have(found, ended - imported)
        return new, [e for e in new if e.stream_id not in imported], streams

    def _prepare(
        self, positions: dict[str, int], fresh: list[StoredEvent], streams: Streams
    ) -> dict[str, tuple[list[StoredEvent], Any]]:
        """Each projection's events among ``fresh`` (those after its position) and what it
        prepares of them."""
        prepared: dict[str, tuple[list[StoredEvent], Any]] = {}
        for projection in self.projections:
            name = projection.name
            if name in positions:
                after = positions[name]
                mine = [e for e in fresh if e.position > after and e.type in projection.types]
                prepared[name] = mine, projection.prepare(mine, streams)
        return prepared

    def _apply(
        self,
        conn: Connection,
        positions: dict[str, int],
        prepared: dict[str, tuple[list[StoredEvent], Any]],
        reached: int,
    ) -> None:
        """Apply each projection of ``positions`` behind ``reached`` (what it ``prepared``)
        and record that it reached ``reached``."""
        done: list[str] = []
        for projection in self.projections:
            name = projection.name
            if name not in positions or reached <= positions[name]:
                continue
            mine, ready = prepared[name]
            projection.apply(conn, mine, ready)
            done.append(name)
        if done:  # every one applied reached the same position: one statement
            conn.execute(_SET_POSITIONS, {"names": done, "position": reached})

    def catch_up(self, batch: int = DEFAULT_BATCH) -> int:
        """Bring every projection up to the events recorded so far; return how many events
        were read. With ``wait`` false it gives up on a projection another projector is at
        work on (that one brings it up)."""
        total = 0
        while True:
            read, at_end, moved = self.run_once(batch)
            total += read
            if at_end or (moved and not self.wait):
                return total
