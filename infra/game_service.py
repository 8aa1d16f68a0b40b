"""The game service: load → fold → decide → append, retried on a concurrent write.

It knows nothing of the rules: a :class:`Decider` (``initial_state``, ``decide``,
``evolve``) and a :class:`Codec` (``encode``, ``decode``) are handed to it, the real
domain modules in production (see :mod:`infra.bootstrap`) and small fakes in tests. It
hands the decider each command in an :class:`~domain.commands.Envelope` with the clock
and chance it is decided with.

The last state it saw of each recent game is kept in memory (states are immutable): a
load reads only the events after it, so a game moved on by another process or instance
is still seen whole, and a press costs one small query instead of a snapshot to unpickle
and dozens of events to decode and fold.
"""

from __future__ import annotations

import dataclasses
import hashlib
import logging
import secrets
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from sqlalchemy.exc import DBAPIError

from domain.commands import Envelope
from infra.event_store import (
    ConcurrencyError,
    DuplicateCommand,
    EventStore,
    NewEvent,
    StoredEvent,
)
from infra.lru import LRU

log = logging.getLogger(__name__)

S = TypeVar("S")
E = TypeVar("E")

DEFAULT_SNAPSHOT_EVERY = 50
DEFAULT_KNOWN_GAMES = 1024  # games whose last state is kept in memory
DEFAULT_ATTEMPTS = 5
# After a connection dropped during an append, the idempotency key is looked up on a new
# connection, waiting this long (seconds) before each try while the database is away.
LOOKUP_WAITS = (0.0, 0.2, 0.5, 1.0)


class Decider(Protocol):
    """The rules: pure functions over a state, commands (in their envelopes) and events."""

    def initial_state(self) -> Any: ...
    def decide(self, state: Any, envelope: Envelope, /) -> Sequence[Any]: ...
    def evolve(self, state: Any, event: Any, /) -> Any: ...


class Codec(Protocol):
    """Events to and from stored ``(type, payload)`` pairs."""

    def encode(self, event: Any, /) -> tuple[str, dict[str, Any]]: ...
    def decode(self, type_: str, payload: dict[str, Any], schema_version: int, /) -> Any: ...


def now_ms() -> int:
    return time.time_ns() // 1_000_000


def random_seed() -> int:
    # Never 0: 0 means "not stamped yet".
    return secrets.randbits(63) or 1


@dataclass(frozen=True, slots=True)
class Loaded(Generic[S]):
    state: S
    version: int


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one command did: its events (those recorded the first time, for a repeated
    idempotency key), the state after them and the stream's version."""

    events: list[Any]
    state: Any
    version: int
    duplicate: bool = False


def state_kind(decider: Decider) -> str:
    """A name for the decider's state shape: snapshots of another shape are ignored."""
    state = decider.initial_state()
    kind = type(state)
    shape = (
        ",".join(f.name for f in dataclasses.fields(state))
        if dataclasses.is_dataclass(state)
        else ""
    )
    version = getattr(decider, "STATE_VERSION", 1)
    digest = hashlib.sha1(f"{shape}|{version}".encode()).hexdigest()[:12]
    return f"{kind.__module__}.{kind.__qualname__}:{digest}"


class GameService:
    """Runs commands against games stored as event streams (one stream per game)."""

    def __init__(
        self,
        store: EventStore,
        decider: Decider,
        codec: Codec,
        *,
        snapshot_every: int = DEFAULT_SNAPSHOT_EVERY,
        clock_ms: Callable[[], int] = now_ms,
        seeds: Callable[[], int] = random_seed,
        attempts: int = DEFAULT_ATTEMPTS,
        known_games: int = DEFAULT_KNOWN_GAMES,
    ) -> None:
        self.store = store
        self.decider = decider
        self.codec = codec
        self.snapshot_every = snapshot_every
        self.clock_ms = clock_ms
        self.seeds = seeds
        self.attempts = attempts
        self.schema_version: int = int(getattr(codec, "SCHEMA_VERSION", 1))
        self.kind = state_kind(decider)
        self.known_games = known_games
        # game id -> the newest state this service saw and its version; handlers call
        # in from several threads.
        self._known: LRU[str, Loaded[Any]] = LRU(max(1, known_games))
        self._known_lock = threading.Lock()

    # -- reading -------------------------------------------------------------------

    def load(self, game_id: str) -> Loaded[Any]:
        """The game's current state and version: the last state seen of it (else its
        snapshot, else the start), then the events after it."""
        known = self._recall(game_id)
        if known is not None:
            state, version = known.state, known.version
        else:
            snapshot = self.store.load_snapshot(game_id, self.kind)
            state, version = (
                (snapshot.state, snapshot.version)
                if snapshot is not None
                else (self.decider.initial_state(), 0)
            )
        base = version
        for stored in self.store.load(game_id, after_version=version, with_metadata=False):
            state = self.decider.evolve(state, self.decode(stored))
            version = stored.version
        if version - base >= self.snapshot_every:
            self._snapshot(game_id, version, state)
        loaded = Loaded(state, version)
        self._remember(game_id, loaded)
        return loaded

    def _recall(self, game_id: str) -> Loaded[Any] | None:
        with self._known_lock:
            return self._known.get(game_id)

    def _remember(self, game_id: str, loaded: Loaded[Any]) -> None:
        """Keep ``loaded`` as the game's last state seen, unless a newer one is kept."""
        if self.known_games <= 0:
            return
        with self._known_lock:
            kept = self._known.get(game_id)  # the most recent now, kept or not
            if kept is None or kept.version <= loaded.version:
                self._known[game_id] = loaded

    def forget(self, game_id: str) -> None:
        """Drop the game's state from memory (it ended: it is read again if ever asked)."""
        with self._known_lock:
            self._known.pop(game_id, None)

    def decode(self, stored: StoredEvent) -> Any:
        return self.codec.decode(stored.type, stored.payload, stored.schema_version)

    def events(self, game_id: str, after_version: int = 0) -> list[Any]:
        """The game's decoded events after ``after_version``."""
        return [self.decode(e) for e in self.store.load(game_id, after_version=after_version)]

    # -- writing -------------------------------------------------------------------

    def handle(
        self,
        game_id: str,
        command: Any,
        idempotency_key: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        *,
        at: int = 0,
        seed: int = 0,
    ) -> list[Any]:
        """Run ``command`` on the game and return the events it appended.

        It is decided at ``at`` with chance ``seed``, those of the service's clock and
        chance when 0 (:meth:`stamp`). The same ``idempotency_key`` twice appends once; the
        second call returns the events of the first. Raises the decider's errors (nothing
        appended) and :class:`~infra.event_store.ConcurrencyError` when every attempt lost
        a race.
        """
        return self.execute(game_id, command, idempotency_key, metadata, at=at, seed=seed).events

    def open(self, game_id: str, idempotency_key: str) -> Loaded[Any] | Outcome:
        """What a command under ``idempotency_key`` is decided on: the game as it is
        (:meth:`load`), or, when the key was seen, what that command did (a duplicate
        :class:`Outcome`). Hand the game to :meth:`execute` (``loaded=``) to decide on it
        without reading it again."""
        seen = self.store.processed(game_id, idempotency_key)
        if seen is not None:
            return self._repeat(game_id, seen)
        return self.load(game_id)

    def execute(
        self,
        game_id: str,
        command: Any,
        idempotency_key: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        *,
        at: int = 0,
        seed: int = 0,
        loaded: Loaded[Any] | None = None,
    ) -> Outcome:
        """Like :meth:`handle`, returning the state and version after the command too.

        ``loaded``: the game from :meth:`open` (its key already looked up), decided on
        without reading it again; after a lost race the key is looked up and the game
        loaded again, as without it."""
        envelope = self.stamp(command, at, seed)
        meta = self._metadata(command, idempotency_key, metadata)
        for attempt in range(1, self.attempts + 1):
            if loaded is None:
                if idempotency_key is not None:
                    seen = self.store.processed(game_id, idempotency_key)
                    if seen is not None:
                        return self._repeat(game_id, seen)
                loaded = self.load(game_id)
            new_events = list(self.decider.decide(loaded.state, envelope))
            encoded = [self._encode(e) for e in new_events]
            try:
                self.store.append(
                    game_id,
                    loaded.version,
                    encoded,
                    meta,
                    idempotency_key=idempotency_key,
                )
            except DuplicateCommand as duplicate:
                return self._repeat(game_id, duplicate.events)
            except DBAPIError as error:
                if idempotency_key is None or not error.connection_invalidated:
                    raise
                # The connection dropped mid-append, perhaps right after COMMIT: whether
                # the command counted is in the database, under its key.
                seen = self._look_up(game_id, idempotency_key, error)
                if seen is not None:
                    log.warning(
                        "game %s: %s counted despite the lost connection", game_id, idempotency_key
                    )
                    return self._repeat(game_id, seen)
                if attempt == self.attempts:
                    raise
                log.warning("game %s: %s did not count; deciding again", game_id, idempotency_key)
                loaded = None
                continue
            except ConcurrencyError:
                if attempt == self.attempts:
                    raise
                log.debug("game %s moved on; deciding again (attempt %d)", game_id, attempt)
                loaded = None
                continue
            state = loaded.state
            for event in new_events:
                state = self.decider.evolve(state, event)
            version = loaded.version + len(new_events)
            if (
                new_events
                and version // self.snapshot_every > loaded.version // self.snapshot_every
            ):
                self._snapshot(game_id, version, state)
            self._remember(game_id, Loaded(state, version))
            return Outcome(new_events, state, version)
        raise AssertionError("unreachable")  # pragma: no cover

    def _look_up(self, game_id: str, key: str, error: DBAPIError) -> list[StoredEvent] | None:
        """The events recorded under ``key``, read on a new connection; the append's
        ``error`` again when the database stays out of reach."""
        for wait in LOOKUP_WAITS:
            time.sleep(wait)
            try:
                return self.store.processed(game_id, key)
            except DBAPIError:
                log.info("game %s: looking %s up failed", game_id, key, exc_info=True)
        raise error

    def stamp(self, command: Any, at: int = 0, seed: int = 0) -> Envelope:
        """``command`` in its envelope: ``at`` and ``seed``, or (when 0) the clock's and
        chance's."""
        return Envelope(command, at or self.clock_ms(), seed or self.seeds())

    def _encode(self, event: Any) -> NewEvent:
        type_, payload = self.codec.encode(event)
        return NewEvent(type_, payload, self.schema_version)

    def _repeat(self, game_id: str, seen: Sequence[StoredEvent]) -> Outcome:
        loaded = self.load(game_id)
        return Outcome([self.decode(e) for e in seen], loaded.state, loaded.version, True)

    def _metadata(
        self, command: Any, key: str | None, extra: Mapping[str, Any] | None
    ) -> dict[str, Any]:
        meta: dict[str, Any] = {"command": type(command).__name__}
        actor = getattr(command, "actor", None)
        if actor is not None:
            meta["actor"] = actor
        if key is not None:
            meta["idempotency_key"] = key
            meta.setdefault("causation_id", key)
        meta.update(extra or {})
        meta.setdefault("correlation_id", meta.get("causation_id") or secrets.token_hex(8))
        return meta

    def _snapshot(self, game_id: str, version: int, state: Any) -> None:
        try:
            self.store.save_snapshot(game_id, version, self.kind, state)
        except Exception:  # a snapshot is only a cache
            log.warning("could not snapshot game %s at %d", game_id, version, exc_info=True)
