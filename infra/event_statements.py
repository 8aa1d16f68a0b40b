"""The event store's statements that run most, built once at import: the stream's head
read for an append (with, on PostgreSQL, the append lock in the same round trip), the
insert, the log read in commit order (the projectors follow it at every game's end) and
a set of games' streams read together.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Select, and_, bindparam, case, func, insert, or_, select, type_coerce
from sqlalchemy.sql.elements import ColumnElement

from infra.schema import events

# Any constant will do; it only has to be the one every appender uses.
APPEND_LOCK_ID = 0x5AB0_7E0

COLUMNS = (
    events.c.position,
    events.c.stream_id,
    events.c.version,
    events.c.type,
    events.c.schema_version,
    events.c.payload,
    events.c.metadata,
    events.c.recorded_at,
)
FOLD_COLUMNS = tuple(c for c in COLUMNS if c is not events.c.metadata)
SEALED_COLUMNS = (*COLUMNS, events.c.prev_hash, events.c.hash)

# Appends are the hot path: their statements are built once.
VERSION = select(func.coalesce(func.max(events.c.version), 0)).where(
    events.c.stream_id == bindparam("stream_id")
)
# The hash of the stream's last event (None for a new stream).
LAST_HASH = (
    select(events.c.hash)
    .where(events.c.stream_id == bindparam("stream_id"))
    .order_by(events.c.version.desc())
    .limit(1)
)
# The stream's version and last hash, read in one statement (one snapshot: they agree).
HEAD = select(VERSION.scalar_subquery(), LAST_HASH.scalar_subquery())
# PostgreSQL: the append lock and the stream's head in one round trip. The head may be
# read just before the lock is granted; if another writer got in meanwhile, the insert
# collides with its version and the append fails as stale, as it must.
LOCK_AND_HEAD = select(
    func.pg_advisory_xact_lock(APPEND_LOCK_ID),
    VERSION.scalar_subquery(),
    LAST_HASH.scalar_subquery(),
)
INSERT = insert(events).returning(events.c.position, sort_by_parameter_order=True)


def read_all_query(typed: bool, bounded: bool) -> Select[Any]:
    """:meth:`EventStore.read_all`'s statement: after ``after``, of ``types`` when typed,
    up to ``up_to`` when bounded, ``limit`` rows."""
    where = [events.c.position > bindparam("after")]
    if typed:
        where.append(events.c.type.in_(bindparam("types", expanding=True)))
    if bounded:
        where.append(events.c.position <= bindparam("up_to"))
    return select(*COLUMNS).where(*where).order_by(events.c.position).limit(bindparam("limit"))


# Projectors follow the log at every game's end: the statements are built once.
READ_ALL = {(t, b): read_all_query(t, b) for t in (False, True) for b in (False, True)}


def games_query(with_metadata: bool, typed: bool) -> Select[Any]:
    """:meth:`EventStore.load_games`'s statement: the streams' events (of ``types`` when
    typed) and their first events, each row with its metadata when it is a first one."""
    columns = COLUMNS if with_metadata else FOLD_COLUMNS
    first = type_coerce(case((events.c.version == 1, events.c.metadata)), events.c.metadata.type)
    where: ColumnElement[bool] = events.c.stream_id.in_(bindparam("streams", expanding=True))
    if typed:
        where = and_(
            where, or_(events.c.type.in_(bindparam("types", expanding=True)), events.c.version == 1)
        )
    return (
        select(*columns, first.label("first_metadata"))
        .where(where)
        .order_by(events.c.stream_id, events.c.version)
    )


GAMES = {(m, t): games_query(m, t) for m in (False, True) for t in (False, True)}
