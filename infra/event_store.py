"""The event store: one append-only ``events`` table, read by stream or in commit order.

Stored types are stable strings chosen by the codec, never Python import paths. A row
carries the ``schema_version`` its payload was written with; upcasters registered as
``{(type, schema_version): function}`` turn an older payload into the next version's,
step by step up to the current version (skipping versions with none), whenever rows are
read: every reader (game service, projectors, replays) sees current payloads only.

On PostgreSQL every append takes one transaction-level advisory lock before it draws a
position, so positions become visible in increasing order and a reader following
:meth:`EventStore.read_all` never passes a position that a slower writer fills in later.
On SQLite an append is a ``BEGIN IMMEDIATE`` transaction, which serialises writers too.

Every appended event is sealed onto its stream's hash chain (:mod:`infra.chain`): it
records its predecessor's hash and its own. ``load(..., verified=True)`` (replays,
exports) and :meth:`EventStore.verify` check the chain and name where it breaks.

What the store takes and returns (events, snapshots, its errors, upcasting) is defined in
:mod:`infra.stored_events` and read from here too; its hottest statements are built once
in :mod:`infra.event_statements`.
"""

from __future__ import annotations

import itertools
import pickle
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from datetime import UTC
from typing import Any

from sqlalchemy import Connection, Engine, and_, bindparam, delete, func, insert, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import IntegrityError

from infra.chain import GENESIS, Break, Sealed, canonical, check, event_hash, moment
from infra.db import reader, writer
from infra.event_statements import (
    COLUMNS,
    FOLD_COLUMNS,
    GAMES,
    HEAD,
    INSERT,
    LOCK_AND_HEAD,
    READ_ALL,
    SEALED_COLUMNS,
    VERSION,
)
from infra.schema import events, processed_commands, snapshots
from infra.stored_events import (
    BrokenChain,
    Clock,
    ConcurrencyError,
    DuplicateCommand,
    EventStoreError,
    NewEvent,
    Payload,
    Snapshot,
    StoredEvent,
    Upcaster,
    Upcasters,
    Verification,
    dump_state,
    upcast,
    utc_now,
)

# The store's vocabulary is read from here too.
__all__ = [
    "BrokenChain",
    "Clock",
    "ConcurrencyError",
    "DuplicateCommand",
    "EventStore",
    "EventStoreError",
    "NewEvent",
    "Payload",
    "Snapshot",
    "StoredEvent",
    "Upcaster",
    "Upcasters",
    "Verification",
    "dump_state",
    "upcast",
    "utc_now",
]


class EventStore:
    """Append to and read from the ``events`` table through ``engine``."""

    def __init__(
        self,
        engine: Engine,
        upcasters: Upcasters | None = None,
        clock: Clock = utc_now,
        *,
        schema_version: int = 1,
    ) -> None:
        self.engine = engine
        # Kept by reference: upcasters registered later (a codec's table) still apply.
        self.upcasters: Upcasters = upcasters if upcasters is not None else {}
        self.clock = clock
        self.schema_version = schema_version
        self._postgres = engine.dialect.name == "postgresql"

    # -- writing -------------------------------------------------------------------

    def append(
        self,
        stream_id: str,
        expected_version: int,
        new_events: Iterable[NewEvent],
        metadata: Mapping[str, Any] | None = None,
        *,
        idempotency_key: str | None = None,
    ) -> list[StoredEvent]:
        """Append ``new_events`` after version ``expected_version`` of the stream.

        Raises :class:`ConcurrencyError` when the stream is not at ``expected_version``
        and :class:`DuplicateCommand` when ``idempotency_key`` was already recorded on
        this stream. With a key, the key is recorded in the same transaction, even when
        there are no events.
        """
        batch = list(new_events)
        meta = dict(metadata or {})
        try:
            with writer(self.engine) as conn:
                if idempotency_key is not None:
                    seen = self._processed(conn, stream_id, idempotency_key)
                    if seen is not None:
                        raise DuplicateCommand(stream_id, idempotency_key, seen)
                if self._postgres:
                    _, version, last = conn.execute(LOCK_AND_HEAD, {"stream_id": stream_id}).one()
                else:
                    version, last = conn.execute(HEAD, {"stream_id": stream_id}).one()
                current = int(version)
                if current != expected_version:
                    raise ConcurrencyError(stream_id, expected_version, current)
                stored = self._insert(
                    conn, stream_id, expected_version, batch, meta, last or GENESIS
                )
                if idempotency_key is not None:
                    conn.execute(
                        insert(processed_commands).values(
                            stream_id=stream_id,
                            idempotency_key=idempotency_key,
                            first_version=expected_version + 1,
                            last_version=expected_version + len(batch),
                            processed_at=self.clock(),
                        )
                    )
                return stored
        except IntegrityError as error:
            # Another writer won the race between our check and our insert.
            if idempotency_key is not None:
                with reader(self.engine) as conn:
                    seen = self._processed(conn, stream_id, idempotency_key)
                if seen is not None:
                    raise DuplicateCommand(stream_id, idempotency_key, seen) from error
            raise ConcurrencyError(stream_id, expected_version) from error

    def _insert(
        self,
        conn: Connection,
        stream_id: str,
        after: int,
        batch: Sequence[NewEvent],
        meta: Payload,
        previous: str = GENESIS,
    ) -> list[StoredEvent]:
        if not batch:
            return []
        now = self.clock()
        if now.tzinfo is not None:  # SQLite keeps no offset: the time is stored in UTC
            now = now.astimezone(UTC)
        meta = canonical(meta)
        at = moment(now)
        rows: list[dict[str, Any]] = []
        for i, e in enumerate(batch, start=1):
            payload = canonical(dict(e.payload))
            version = after + i
            sealed = event_hash(
                previous, stream_id, version, e.type, e.schema_version, payload, meta, at
            )
            rows.append(
                {
                    "stream_id": stream_id,
                    "version": version,
                    "type": e.type,
                    "schema_version": e.schema_version,
                    "payload": payload,
                    "metadata": meta,
                    "recorded_at": now,
                    "prev_hash": previous,
                    "hash": sealed,
                }
            )
            previous = sealed
        result = conn.execute(INSERT, rows)
        positions = [row[0] for row in result]
        return [
            StoredEvent(
                p, stream_id, r["version"], r["type"], r["schema_version"], r["payload"], meta, now
            )
            for p, r in zip(positions, rows, strict=True)
        ]

    # -- reading -------------------------------------------------------------------

    def load(
        self,
        stream_id: str,
        after_version: int = 0,
        *,
        with_metadata: bool = True,
        verified: bool = False,
        types: Collection[str] | None = None,
    ) -> list[StoredEvent]:
        """The stream's events after ``after_version``, oldest first, upcast.

        ``with_metadata=False`` leaves each event's metadata empty, which folding a
        state does not need and which costs a JSON decoding per row. ``verified=True``
        checks the stream's whole hash chain first (replays, exports) and raises
        :class:`BrokenChain` where it breaks. ``types``: only the events of these stored
        types (a read model that needs a few of them reads no others).
        """
        if verified:
            sealed = self._sealed(stream_id)
            found = check(sealed)
            if found is not None:
                raise BrokenChain(found)
            return [self._from_sealed(row) for row in sealed if row.version > after_version]
        columns = COLUMNS if with_metadata else FOLD_COLUMNS
        where = [events.c.stream_id == stream_id, events.c.version > after_version]
        if types is not None:
            where.append(events.c.type.in_(bindparam("types", sorted(types), expanding=True)))
        with reader(self.engine) as conn:
            rows = conn.execute(select(*columns).where(*where).order_by(events.c.version)).all()
        return [self._row(row) for row in rows]

    def load_streams(
        self,
        conn: Connection,
        stream_ids: Collection[str],
        *,
        with_metadata: bool = True,
        types: Collection[str] | None = None,
    ) -> dict[str, list[StoredEvent]]:
        """Several whole streams in one statement on ``conn`` (as :meth:`load` reads one),
        each oldest first; a stream with no event is left out."""
        if not stream_ids:
            return {}
        columns = COLUMNS if with_metadata else FOLD_COLUMNS
        where = [events.c.stream_id.in_(bindparam("streams", sorted(stream_ids), expanding=True))]
        if types is not None:
            where.append(events.c.type.in_(bindparam("types", sorted(types), expanding=True)))
        query = select(*columns).where(*where).order_by(events.c.stream_id, events.c.version)
        found: dict[str, list[StoredEvent]] = {}
        for row in conn.execute(query):
            event = self._row(row)
            found.setdefault(event.stream_id, []).append(event)
        return found

    def load_games(
        self,
        conn: Connection,
        stream_ids: Collection[str],
        *,
        with_metadata: bool = True,
        types: Collection[str] | None = None,
    ) -> tuple[dict[str, list[StoredEvent]], dict[str, dict[str, Any]]]:
        """:meth:`load_streams`, and in the same statement each stream's first event's
        metadata (which says whether the game was imported, :mod:`infra.imported`)."""
        if not stream_ids:
            return {}, {}
        query = GAMES[with_metadata, types is not None]
        params: dict[str, Any] = {"streams": sorted(stream_ids)}
        if types is not None:
            params["types"] = sorted(types)
        found: dict[str, list[StoredEvent]] = {}
        firsts: dict[str, dict[str, Any]] = {}
        for row in conn.execute(query, params):
            if row.version == 1:
                firsts[row.stream_id] = row.first_metadata or {}
                if types is not None and row.type not in types:
                    continue  # read for its metadata only
            event = self._row(row[:-1])
            found.setdefault(event.stream_id, []).append(event)
        return found, firsts

    def read_all(
        self,
        after_position: int = 0,
        limit: int = 1000,
        *,
        types: Collection[str] | None = None,
        up_to: int | None = None,
        conn: Connection | None = None,
    ) -> list[StoredEvent]:
        """Up to ``limit`` events of every stream after ``after_position``, in commit order
        (``types``: only those of these stored types; ``up_to``: none after that position;
        ``conn``: on that connection, else on a reader of its own)."""
        query = READ_ALL[types is not None, up_to is not None]
        params: dict[str, Any] = {"after": after_position, "limit": limit}
        if types is not None:
            params["types"] = sorted(types)
        if up_to is not None:
            params["up_to"] = up_to
        if conn is not None:
            return [self._row(row) for row in conn.execute(query, params)]
        with reader(self.engine) as own:
            return [self._row(row) for row in own.execute(query, params)]

    # -- the hash chain ------------------------------------------------------------

    def verify(self, stream_id: str) -> Break | None:
        """Where the stream's hash chain breaks, or None when it holds (or is empty)."""
        return check(self._sealed(stream_id))

    def verify_all(self) -> Verification:
        """Check every stream's chain, reading the log once in (stream, version) order."""
        breaks: list[Break] = []
        streams = count = 0
        # A transaction of its own: PostgreSQL streams the rows through a server-side
        # cursor, which lives in one (the statement sees one snapshot of the log).
        with self.engine.connect() as conn:
            rows = conn.execution_options(stream_results=True, yield_per=2000).execute(
                select(*SEALED_COLUMNS).order_by(events.c.stream_id, events.c.version)
            )
            sealed = (Sealed(**row._mapping) for row in rows)
            for _, stream in itertools.groupby(sealed, key=lambda r: r.stream_id):
                counted = _Counted(stream)
                found = check(counted)
                streams += 1
                count += counted.seen
                if found is not None:
                    breaks.append(found)
        return Verification(streams, count, breaks)

    def _sealed(self, stream_id: str) -> list[Sealed]:
        with reader(self.engine) as conn:
            rows = conn.execute(
                select(*SEALED_COLUMNS)
                .where(events.c.stream_id == stream_id)
                .order_by(events.c.version)
            ).all()
        return [Sealed(**row._mapping) for row in rows]

    def _from_sealed(self, row: Sealed) -> StoredEvent:
        return self._row(
            (
                row.position,
                row.stream_id,
                row.version,
                row.type,
                row.schema_version,
                row.payload,
                row.metadata,
                row.recorded_at,
            )
        )

    def version(self, stream_id: str) -> int:
        """The stream's last version (0 for a stream with no events)."""
        with reader(self.engine) as conn:
            return self._current_version(conn, stream_id)

    def last_position(self) -> int:
        with reader(self.engine) as conn:
            return int(
                conn.execute(select(func.coalesce(func.max(events.c.position), 0))).scalar_one()
            )

    def processed(self, stream_id: str, idempotency_key: str) -> list[StoredEvent] | None:
        """The events a command with this key appended, or None if it never ran."""
        with reader(self.engine) as conn:
            return self._processed(conn, stream_id, idempotency_key)

    def _processed(self, conn: Connection, stream_id: str, key: str) -> list[StoredEvent] | None:
        row = conn.execute(
            select(processed_commands.c.first_version, processed_commands.c.last_version).where(
                processed_commands.c.stream_id == stream_id,
                processed_commands.c.idempotency_key == key,
            )
        ).first()
        if row is None:
            return None
        first, last = row
        if last < first:
            return []
        rows = conn.execute(
            select(*COLUMNS)
            .where(
                and_(
                    events.c.stream_id == stream_id,
                    events.c.version >= first,
                    events.c.version <= last,
                )
            )
            .order_by(events.c.version)
        )
        return [self._row(r) for r in rows]

    @staticmethod
    def _current_version(conn: Connection, stream_id: str) -> int:
        return int(conn.execute(VERSION, {"stream_id": stream_id}).scalar_one())

    def _row(self, row: Any) -> StoredEvent:
        """An event from a row of :data:`COLUMNS` or of :data:`FOLD_COLUMNS`."""
        if len(row) == len(COLUMNS):
            position, stream_id, version, type_, schema, payload, meta, recorded = row
        else:
            position, stream_id, version, type_, schema, payload, recorded = row
            meta = None
        if recorded.tzinfo is None:  # SQLite hands datetimes back naive; we store UTC
            recorded = recorded.replace(tzinfo=UTC)
        event = StoredEvent(
            position, stream_id, version, type_, schema, payload, meta or {}, recorded
        )
        return upcast(event, self.upcasters, self.schema_version) if self.upcasters else event

    # -- snapshots -----------------------------------------------------------------

    def save_snapshot(self, stream_id: str, version: int, kind: str, state: Any) -> None:
        """Keep ``state`` as the stream's state at ``version`` (replacing an older one)."""
        blob = dump_state(state)
        values = {
            "stream_id": stream_id,
            "version": version,
            "state_kind": kind,
            "state": blob,
            "taken_at": self.clock(),
        }
        dialect_insert = postgresql.insert if self._postgres else sqlite.insert
        statement = dialect_insert(snapshots).values(**values)
        statement = statement.on_conflict_do_update(
            index_elements=[snapshots.c.stream_id],
            set_={k: statement.excluded[k] for k in values if k != "stream_id"},
            where=snapshots.c.version < statement.excluded.version,
        )
        with self.engine.begin() as conn:
            conn.execute(statement)

    def load_snapshot(self, stream_id: str, kind: str) -> Snapshot | None:
        """The stream's snapshot, or None when there is none, it is of another kind, or it
        cannot be unpickled: a snapshot is a cache, the events are the truth."""
        with reader(self.engine) as conn:
            row = conn.execute(
                select(snapshots.c.version, snapshots.c.state_kind, snapshots.c.state).where(
                    snapshots.c.stream_id == stream_id
                )
            ).first()
        if row is None or row.state_kind != kind:
            return None
        try:
            state = pickle.loads(row.state)  # our own table, written by us
        except Exception:
            return None
        return Snapshot(stream_id, row.version, kind, state)

    def delete_snapshots(self) -> None:
        with self.engine.begin() as conn:
            conn.execute(delete(snapshots))


class _Counted:
    """A stream's rows passed through, counted (``check`` stops at a break)."""

    def __init__(self, rows: Iterable[Sealed]) -> None:
        self._rows = iter(rows)
        self.seen = 0

    def __iter__(self) -> Iterator[Sealed]:
        for row in self._rows:
            self.seen += 1
            yield row
