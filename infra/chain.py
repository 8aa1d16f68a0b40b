"""The hash chain of a stream: each event records its predecessor's hash and its own.

An event's hash is the SHA-256 of its predecessor's hash (``GENESIS`` for a stream's
first event) and of its content as stored: stream, version, type, schema version,
payload, metadata and time recorded, in one canonical JSON form (keys sorted, no
spaces, UTF-8, the time in UTC to the microsecond). The position is left out: the
database draws it after the content is sealed, and the version orders a stream.

Changing, removing or inserting an event of a stream (with the immutability triggers
bypassed by the tables' owner) breaks the chain there: :func:`check` names the first
version where it breaks and why. Removing a stream's last events cannot show in the
chain itself; the versions' count does, against anything that saw them (a reply sent,
an export, a replay). Nor can an edit whose author seals every later hash anew: the
hash is unkeyed, so the chain catches mistakes and partial restores, not an owner who
means it (backups or exports kept elsewhere do).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

GENESIS = "0" * 64
# Built once: json.dumps with options other than the defaults builds an encoder per call.
_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def canonical(value: Any) -> Any:
    """``value`` as JSON gives it back: tuples become lists, keys become strings."""
    return json.loads(json.dumps(value))


def moment(at: datetime) -> str:
    """A recorded time as the chain writes it: UTC, ISO 8601, microseconds.

    >>> from datetime import timedelta, timezone
    >>> moment(datetime(2025, 1, 2, 4, 5, 6, 7, tzinfo=timezone(timedelta(hours=1))))
    '2025-01-02T03:05:06.000007+00:00'
    """
    if at.tzinfo is None:  # SQLite hands datetimes back naive; they are stored in UTC
        at = at.replace(tzinfo=UTC)
    return at.astimezone(UTC).isoformat(timespec="microseconds")


def event_hash(
    previous: str,
    stream_id: str,
    version: int,
    type_: str,
    schema_version: int,
    payload: Mapping[str, Any],
    metadata: Mapping[str, Any],
    recorded_at: datetime | str,
) -> str:
    """The hash sealing one event onto ``previous`` (``recorded_at``: a time, or the
    :func:`moment` of one, which a batch computes once).

    >>> at = datetime(2025, 1, 1, tzinfo=UTC)
    >>> first = event_hash(GENESIS, "g", 1, "created", 1, {"b": 1, "a": (2,)}, {}, at)
    >>> first == event_hash(GENESIS, "g", 1, "created", 1, {"a": [2], "b": 1}, {}, at)
    True
    >>> first == event_hash(GENESIS, "g", 1, "created", 1, {"a": [3], "b": 1}, {}, at)
    False
    """
    content = [
        previous,
        stream_id,
        version,
        type_,
        schema_version,
        payload,
        metadata,
        recorded_at if isinstance(recorded_at, str) else moment(recorded_at),
    ]
    return hashlib.sha256(_CANONICAL.encode(content).encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class Break:
    """Where a stream's chain breaks: the first event that does not hold."""

    stream_id: str
    version: int
    position: int
    reason: str

    def __str__(self) -> str:
        return (
            f"stream {self.stream_id!r} is broken at version {self.version} "
            f"(position {self.position}): {self.reason}"
        )


@dataclass(frozen=True, slots=True)
class Sealed:
    """One stored row with its chain columns, as read (not upcast)."""

    position: int
    stream_id: str
    version: int
    type: str
    schema_version: int
    payload: Any
    metadata: Any
    recorded_at: datetime
    prev_hash: str
    hash: str


def check(rows: Iterable[Sealed]) -> Break | None:
    """The first break in one stream's rows (oldest first), or None when it holds."""
    previous, expected = GENESIS, 1
    for row in rows:
        if row.version != expected:
            missing = "missing" if row.version > expected else "repeated"
            return Break(row.stream_id, expected, row.position, f"version {expected} is {missing}")
        if row.prev_hash != previous:
            return Break(
                row.stream_id, row.version, row.position, "its predecessor's hash does not match"
            )
        sealed = event_hash(
            previous,
            row.stream_id,
            row.version,
            row.type,
            row.schema_version,
            row.payload,  # read back from JSON: already in canonical form
            row.metadata,
            row.recorded_at,
        )
        if row.hash != sealed:
            reason = "its content does not match its hash"
            return Break(row.stream_id, row.version, row.position, reason)
        previous, expected = row.hash, expected + 1
    return None
