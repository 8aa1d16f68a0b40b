"""What the event store deals in: the events to append (:class:`NewEvent`) and the stored
ones (:class:`StoredEvent`), snapshots, the store's errors, :func:`upcast` (the one path
that lifts an older payload to the current schema) and :func:`dump_state` (a snapshot's
pickle). :mod:`infra.event_store` reads and writes them.
"""

from __future__ import annotations

import copyreg
import io
import pickle
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from types import MappingProxyType
from typing import Any

from infra.chain import Break

Payload = dict[str, Any]
Upcaster = Callable[[Payload], Payload]
Upcasters = Mapping[tuple[str, int], Upcaster]
Clock = Callable[[], datetime]


def utc_now() -> datetime:
    return datetime.now(UTC)


class EventStoreError(ValueError):
    """Base class of the event store's errors."""


class ConcurrencyError(EventStoreError):
    """The stream moved on since the caller read it: ``expected_version`` is stale."""

    def __init__(self, stream_id: str, expected: int, actual: int | None = None) -> None:
        self.stream_id = stream_id
        self.expected = expected
        self.actual = actual
        seen = "" if actual is None else f", it is at {actual}"
        super().__init__(f"stream {stream_id!r} expected at version {expected}{seen}")


class BrokenChain(EventStoreError):
    """A stream's hash chain does not hold: one of its events was changed, removed or
    inserted outside the event store."""

    def __init__(self, found: Break) -> None:
        self.found = found
        self.stream_id = found.stream_id
        self.version = found.version
        super().__init__(str(found))


@dataclass(frozen=True, slots=True)
class Verification:
    """What :meth:`EventStore.verify_all` checked, and every break it found."""

    streams: int
    events: int
    breaks: list[Break]


class DuplicateCommand(EventStoreError):
    """The idempotency key was already used on this stream."""

    def __init__(self, stream_id: str, key: str, events: Sequence[StoredEvent]) -> None:
        self.stream_id = stream_id
        self.key = key
        self.events = list(events)
        super().__init__(f"command {key!r} was already processed on stream {stream_id!r}")


@dataclass(frozen=True, slots=True)
class NewEvent:
    """An event to append, already encoded by a codec."""

    type: str
    payload: Mapping[str, Any]
    schema_version: int = 1


@dataclass(frozen=True, slots=True)
class StoredEvent:
    position: int
    stream_id: str
    version: int
    type: str
    schema_version: int
    payload: Payload
    metadata: Payload = field(default_factory=dict)
    recorded_at: datetime = field(default_factory=utc_now)


@dataclass(frozen=True, slots=True)
class Snapshot:
    stream_id: str
    version: int
    kind: str
    state: Any


def upcast(event: StoredEvent, upcasters: Upcasters, current: int = 0) -> StoredEvent:
    """``event`` as the current schema writes it: the one upcasting path of the project.

    Every version from the event's own up to the current one is walked in turn, and the
    upcaster registered for ``(type, version)`` applied where there is one; a version
    with none is a gap (the payload did not change shape then) and is passed over. The
    current version is ``current`` (the codec's ``SCHEMA_VERSION``) or, if higher, one
    past the type's last upcaster, so a store given only the upcasters still lifts every
    payload all the way.

    >>> old = StoredEvent(1, "g", 1, "ticked", 1, {"value": 5})
    >>> steps = {
    ...     ("ticked", 1): lambda p: {"n": p["value"]},
    ...     ("ticked", 3): lambda p: {**p, "u": 1},
    ... }
    >>> new = upcast(old, steps)
    >>> new.schema_version, new.payload
    (4, {'n': 5, 'u': 1})
    """
    last = max((v for t, v in upcasters if t == event.type), default=0)
    target = max(current, last + 1)
    if event.schema_version >= target:
        return event
    payload = event.payload
    for version in range(event.schema_version, target):
        step = upcasters.get((event.type, version))
        if step is not None:
            payload = step(dict(payload))
    return StoredEvent(
        event.position,
        event.stream_id,
        event.version,
        event.type,
        target,
        payload,
        event.metadata,
        event.recorded_at,
    )


def _mapping_proxy(items: dict[Any, Any]) -> MappingProxyType[Any, Any]:
    return MappingProxyType(items)


def _reduce_mapping_proxy(proxy: MappingProxyType[Any, Any]) -> tuple[Any, ...]:
    return _mapping_proxy, (dict(proxy),)


def dump_state(state: Any) -> bytes:
    """Pickle a state; read-only mappings (``MappingProxyType``) included."""
    buffer = io.BytesIO()
    pickler = pickle.Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.dispatch_table = {
        **copyreg.dispatch_table,
        MappingProxyType: _reduce_mapping_proxy,
    }
    pickler.dump(state)
    return buffer.getvalue()
