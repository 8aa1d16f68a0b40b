"""What a read model fed by the log is (:class:`Projection`), and how the read models of
whole games read each finished game back from its stream (:func:`ended_games`), once for
several of them (:class:`Streams`). Projectors apply them: :mod:`infra.projector`, and
:mod:`infra.projectors` for several read models of finished games together.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

from sqlalchemy import Connection, Table

from infra.event_store import EventStore, StoredEvent

DEFAULT_BATCH = 500

P = TypeVar("P")
G = TypeVar("G")


class Streams:
    """The streams of the games that ended in a batch, read from the store once for every
    projection that reads them back (:class:`Projectors`): in one statement, with the union
    of the projections' stored types (every one, when one of them needs all) and with the
    metadata when one of them needs it; each projection then sees its own types only."""

    def __init__(
        self,
        store: EventStore,
        types: Collection[str] | None,
        with_metadata: bool,
        conn: Connection | None = None,
        stream_ids: Collection[str] = (),
    ) -> None:
        self.store = store
        self.types = None if types is None else frozenset(types)
        self.with_metadata = with_metadata
        self._loaded: dict[str, list[StoredEvent]] = {}
        if conn is not None and stream_ids:
            found = store.load_streams(
                conn, stream_ids, with_metadata=with_metadata, types=self.types
            )
            self.have(found, stream_ids)

    def have(self, found: dict[str, list[StoredEvent]], stream_ids: Collection[str]) -> None:
        """Take the streams ``stream_ids`` as read already (``found``: those with events)."""
        self._loaded.update({stream: found.get(stream, []) for stream in stream_ids})

    def load(self, stream_id: str, types: Collection[str] | None) -> list[StoredEvent]:
        events = self._loaded.get(stream_id)
        if events is None:
            events = self.store.load(stream_id, with_metadata=self.with_metadata, types=self.types)
            self._loaded[stream_id] = events
        if types is None or (self.types is not None and self.types <= set(types)):
            return events
        return [e for e in events if e.type in types]


def ended_games(
    store: EventStore,
    events: Sequence[StoredEvent],
    read: Callable[[list[StoredEvent]], G | None],
    *,
    with_metadata: bool = True,
    types: Collection[str] | None = None,
    streams: Streams | None = None,
) -> list[G]:
    """The games that ended among ``events``, each read back from its stream by ``read``
    (only its ``types``, when given; from ``streams`` when several projections share the
    read); a game ``read`` makes nothing of is left out. What the read models of whole
    games (history, ratings, achievements) prepare before their write lock."""
    ended = [e.stream_id for e in events if e.type == "game_ended"]
    if streams is not None:
        shared = (read(streams.load(g, types)) for g in ended)
        return [game for game in shared if game is not None]
    loaded = (read(store.load(g, with_metadata=with_metadata, types=types)) for g in ended)
    return [game for game in loaded if game is not None]


class Projection(Protocol[P]):
    """A read model fed by the log: its name (its row in ``projector_positions``), the
    tables it owns (emptied by a rebuild) and what a batch of events does to them.

    ``prepare`` runs before the write transaction (reading other streams, say), so the
    lock is held only while ``apply`` writes what it prepared.
    """

    @property
    def name(self) -> str: ...

    @property
    def tables(self) -> Sequence[Table]: ...

    def prepare(self, events: Sequence[StoredEvent], streams: Streams | None = None) -> P: ...

    def apply(self, conn: Connection, events: Sequence[StoredEvent], prepared: P) -> None: ...


class GameProjection(Projection[P], Protocol[P]):
    """A projection of finished games: it follows ``types`` of the log (``game_ended``)
    and reads each game's stream back (``reads``: those stored types; ``with_metadata``),
    so :class:`Projectors` can read a stream once for several of them."""

    @property
    def types(self) -> Collection[str]: ...

    @property
    def reads(self) -> Collection[str] | None: ...

    @property
    def with_metadata(self) -> bool: ...


@dataclass(frozen=True)
class EachEvent:
    """A projection that applies the events one at a time (``handle``), with nothing to
    prepare ahead of the write transaction."""

    name: str
    tables: Sequence[Table]
    handle: Callable[[Connection, StoredEvent], None]

    def prepare(self, events: Sequence[StoredEvent], streams: Streams | None = None) -> None:
        return None

    def apply(self, conn: Connection, events: Sequence[StoredEvent], prepared: None) -> None:
        for event in events:
            self.handle(conn, event)
