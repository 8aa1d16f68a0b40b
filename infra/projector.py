"""Read models built from the log: ``games`` and ``player_stats``.

``player_stats`` counts people only: computer players' seats and practice games are left
out of it (:mod:`infra.history` counts the computer players apart).

A projector follows :meth:`EventStore.read_all` and records how far it got in
``projector_positions``, in the same transaction as the read-model rows it wrote, so a
crash never applies an event twice or skips one. Projections work on stored event types
and payload dicts, not on the rules engine, and take every time from the event
(``recorded_at``, deadlines), so rebuilding from the log gives the same rows.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol, TypeVar

from sqlalchemy import (
    Connection,
    Engine,
    Table,
    bindparam,
    delete,
    func,
    insert,
    select,
    update,
)
from sqlalchemy.dialects.postgresql import insert as pg_insert

from infra.db import reader, writer
from infra.event_store import EventStore, StoredEvent
from infra.imported import imported_streams, is_imported
from infra.schema import READ_MODEL_TABLES, games, player_stats, projector_positions

READ_MODELS_PROJECTOR = "read_models"
DEFAULT_BATCH = 500

Row = dict[str, Any]
P = TypeVar("P")
G = TypeVar("G")


def ms_to_datetime(ms: int) -> datetime:
    return datetime.fromtimestamp(ms / 1000, tz=UTC)


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

        The reads share one connection: the positions, the next events of the projections'
        types after the lowest position (a position reached is the last such event read:
        appends are committed in position order, so none can appear before it later),
        and the streams of the games that ended with their first events, which say
        whether they were imported (another statement for the other streams, if any).
        """
        with reader(self.engine) as conn:
            positions = self.positions(conn)
            start = min(positions.values())
            new = self.store.read_all(
                after_position=start, limit=batch, types=self.types, conn=conn
            )
            if not new:
                return 0, True, False
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
            fresh = [e for e in new if e.stream_id not in imported]
        reached = new[-1].position
        mine = {
            p.name: [e for e in fresh if e.position > positions[p.name] and e.type in p.types]
            for p in self.projections
        }
        prepared = {p.name: p.prepare(mine[p.name], streams) for p in self.projections}
        moved = False
        with writer(self.engine) as conn:
            locked = lock_positions(conn, self.names, self.wait)
            done: list[str] = []
            for projection in self.projections:
                name = projection.name
                if name not in locked or locked[name] != positions[name]:
                    moved = True  # another projector moved it, or is at work on it
                    continue
                if reached <= positions[name]:
                    continue
                projection.apply(conn, mine[name], prepared[name])
                done.append(name)
            if done:  # every one applied reached the same position: one statement
                conn.execute(_SET_POSITIONS, {"names": done, "position": reached})
        return len(new), len(new) < batch and not moved, moved

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


# -- projections ----------------------------------------------------------------------


def apply(conn: Connection, event: StoredEvent) -> None:
    """Apply one stored event to the read models."""
    handler = _HANDLERS.get(event.type)
    game = _game(conn, event.stream_id)
    if game is None and event.type != "game_created":
        return  # not a game stream, or a game this projection cannot know
    if handler is not None:
        game = handler(conn, game or {}, event.payload, event)
    if game is not None:
        game["version"] = event.version
        game["updated_at"] = event.recorded_at
        _save_game(conn, event.stream_id, game)


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


# The ``games`` and ``player_stats`` read models.
READ_MODELS: Projection[None] = EachEvent(READ_MODELS_PROJECTOR, READ_MODEL_TABLES, apply)


Handler = Callable[[Connection, Row, dict[str, Any], StoredEvent], Row]


def _game(conn: Connection, stream_id: str) -> Row | None:
    row = conn.execute(select(games).where(games.c.stream_id == stream_id)).mappings().first()
    return None if row is None else dict(row)


def _save_game(conn: Connection, stream_id: str, game: Row) -> None:
    values = {k: v for k, v in game.items() if k != "stream_id"}
    done = conn.execute(update(games).where(games.c.stream_id == stream_id).values(**values))
    if done.rowcount == 0:
        conn.execute(insert(games).values(stream_id=stream_id, **values))


def _edition(value: Any) -> str | None:
    return None if value is None else str(getattr(value, "value", value))


def _created(conn: Connection, game: Row, p: dict[str, Any], e: StoredEvent) -> Row:
    return {
        "chat_id": p.get("chat_id"),
        "topic": p.get("topic"),
        "practice": bool(p.get("practice", False)),
        "status": "lobby",
        "edition": _edition(p.get("edition")),
        "players": [{"id": p["creator"], "name": p.get("creator_name", "")}],
        "round": 0,
        "current_player": None,
        "decision_id": None,
        "decision_kind": None,
        "deadline": None,
        "created_at": e.recorded_at,
    }


def _joined(conn: Connection, game: Row, p: dict[str, Any], e: StoredEvent) -> Row:
    players = [q for q in game["players"] if q["id"] != p["player"]]
    return {**game, "players": [*players, {"id": p["player"], "name": p.get("name", "")}]}


def _computer_joined(conn: Connection, game: Row, p: dict[str, Any], e: StoredEvent) -> Row:
    seat = {"id": p["player"], "name": p.get("name", ""), "computer": True}
    return {**game, "players": [*game["players"], seat]}


def _left(conn: Connection, game: Row, p: dict[str, Any], e: StoredEvent) -> Row:
    return {**game, "players": [q for q in game["players"] if q["id"] != p["player"]]}


def _settings(conn: Connection, game: Row, p: dict[str, Any], e: StoredEvent) -> Row:
    return {**game, "edition": _edition(p.get("edition", game["edition"]))}


def _started(conn: Connection, game: Row, p: dict[str, Any], e: StoredEvent) -> Row:
    by_id = {q["id"]: q for q in game["players"]}
    seating = [by_id.get(pid, {"id": pid, "name": ""}) for pid in p.get("seating", [])]
    return {**game, "status": "playing", "players": seating or game["players"]}


def _round_started(conn: Connection, game: Row, p: dict[str, Any], e: StoredEvent) -> Row:
    return {**game, "round": p.get("round", game["round"] + 1)}


def _decision(conn: Connection, game: Row, p: dict[str, Any], e: StoredEvent) -> Row:
    return {
        **game,
        "current_player": p.get("player"),
        "decision_id": p.get("decision"),
        "decision_kind": p.get("kind"),
        "deadline": ms_to_datetime(p["deadline"]) if p.get("deadline") else None,
    }


def _no_decision(game: Row) -> Row:
    return {
        **game,
        "current_player": None,
        "decision_id": None,
        "decision_kind": None,
        "deadline": None,
    }


def _counted(game: Row) -> list[dict[str, Any]]:
    """The players whose figures a game counts: people, and none in a practice game."""
    if game.get("practice"):
        return []
    return [q for q in game["players"] if not q.get("computer")]


def _round_ended(conn: Connection, game: Row, p: dict[str, Any], e: StoredEvent) -> Row:
    counted = {q["id"] for q in _counted(game)}
    for player in p.get("winners", []):
        if player in counted:
            _bump(conn, player, _name(game, player), rounds_won=1)
    return _no_decision(game)


def _ended(conn: Connection, game: Row, p: dict[str, Any], e: StoredEvent) -> Row:
    gold = {int(pid): int(amount) for pid, amount in p.get("gold", [])}
    winners = set(p.get("winners", []))
    for player in _counted(game):
        pid = player["id"]
        _bump(conn, pid, player["name"], games=1, wins=int(pid in winners), gold=gold.get(pid, 0))
    return {**_no_decision(game), "status": "ended"}


def _cancelled(conn: Connection, game: Row, p: dict[str, Any], e: StoredEvent) -> Row:
    return {**_no_decision(game), "status": "cancelled"}


def _name(game: Row, player: int) -> str:
    return next((q["name"] for q in game["players"] if q["id"] == player), "")


def _bump(conn: Connection, player: int, name: str, **deltas: int) -> None:
    row = (
        conn.execute(select(player_stats).where(player_stats.c.player_id == player))
        .mappings()
        .first()
    )
    if row is None:
        base = {"games": 0, "wins": 0, "rounds_won": 0, "gold": 0}
        base.update(deltas)
        conn.execute(insert(player_stats).values(player_id=player, name=name, **base))
        return
    values: dict[str, Any] = {k: row[k] + v for k, v in deltas.items()}
    if name:
        values["name"] = name
    conn.execute(update(player_stats).where(player_stats.c.player_id == player).values(**values))


_HANDLERS: dict[str, Handler] = {
    "game_created": _created,
    "player_joined": _joined,
    "player_left": _left,
    "computer_player_added": _computer_joined,
    "computer_player_removed": _left,
    "settings_changed": _settings,
    "game_started": _started,
    "round_started": _round_started,
    "decision_opened": _decision,
    "round_ended": _round_ended,
    "game_ended": _ended,
    "game_cancelled": _cancelled,
}
