"""Engines: one function makes them, nothing is built at import time."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import Engine, Table, create_engine, event, make_url
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection
from sqlalchemy.exc import DisconnectionError, OperationalError
from sqlalchemy.pool import ConnectionPoolEntry

from infra.settings import ConfigurationError, normalise_database_url

SQLITE_BUSY_TIMEOUT_MS = 30_000
# A pooled PostgreSQL connection idle longer than this is pinged before it is used.
IDLE_PING_SECONDS = 5.0


def make_engine(url: str, **kwargs: Any) -> Engine:
    """An engine for ``url`` (SQLite or PostgreSQL).

    SQLite runs in WAL mode with a busy timeout so several processes can write, and its
    transactions are begun by us: ``BEGIN IMMEDIATE`` when a connection carries the
    execution option ``sqlite_begin="IMMEDIATE"`` (writers that read first), else a plain
    ``BEGIN``.
    """
    url = normalise_database_url(url)
    if url.startswith("sqlite"):
        connect_args = {"timeout": SQLITE_BUSY_TIMEOUT_MS / 1000, "check_same_thread": False}
        connect_args.update(kwargs.pop("connect_args", {}))
        engine = create_engine(url, connect_args=connect_args, **kwargs)
        _configure_sqlite(engine)
        return engine
    engine = create_engine(url, **kwargs)
    _ping_when_idle(engine)
    return engine


def _ping_when_idle(engine: Engine) -> None:
    """Ping a pooled connection before use only if it sat idle for a while.

    A server restart or an idle timeout kills connections waiting in the pool: those are
    pinged and, dead, replaced (the pool tries again) before anything runs on them. A
    connection in steady use skips the round trip ``pool_pre_ping`` would add to every
    checkout; if the server goes away under it, the statement fails once and SQLAlchemy
    invalidates the pool.
    """

    @event.listens_for(engine, "checkin")
    def _checkin(dbapi_connection: Any, record: ConnectionPoolEntry) -> None:
        record.info["idle_since"] = time.monotonic()

    @event.listens_for(engine, "checkout")
    def _checkout(dbapi_connection: Any, record: ConnectionPoolEntry, proxy: Any) -> None:
        idle_since = record.info.pop("idle_since", None)
        if idle_since is None or time.monotonic() - idle_since < IDLE_PING_SECONDS:
            return
        try:
            engine.dialect.do_ping(dbapi_connection)
        except Exception as error:
            raise DisconnectionError("a pooled connection died while idle") from error


def _configure_sqlite(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Let SQLAlchemy's begin() emit our BEGIN, not the driver's implicit one.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Connection) -> None:
        mode = connection.get_execution_options().get("sqlite_begin", "")
        connection.exec_driver_sql(f"BEGIN {mode}".strip())


@contextmanager
def writer(engine: Engine) -> Iterator[Connection]:
    """A write transaction, committed at the end, rolled back on an error. On SQLite it
    takes the database's write lock up front (``BEGIN IMMEDIATE``), so a writer that
    reads first never finds the lock taken between its read and its write."""
    with engine.connect().execution_options(sqlite_begin="IMMEDIATE") as conn, conn.begin():
        yield conn


def reader(engine: Engine) -> Connection:
    """A connection for reading.

    On PostgreSQL its statements run in autocommit: each sees what was committed when it
    began, exactly as in the READ COMMITTED transaction ``engine.connect()`` would open,
    without the BEGIN and ROLLBACK round trips around them. On SQLite it is a plain
    connection (its transaction keeps one snapshot of the WAL for every statement).
    """
    conn = engine.connect()
    if is_postgres(engine):
        conn.execution_options(isolation_level="AUTOCOMMIT")
    return conn


def connect_or_explain(engine: Engine, variable: str = "DATABASE_URL") -> Connection:
    """``engine.connect()``, turning a database that cannot be reached (server down, wrong
    host, password refused, SQLite folder missing) into one line naming ``variable``.

    Raises :class:`ConfigurationError`.
    """
    try:
        return engine.connect()
    except OperationalError as error:
        url = engine.url.render_as_string(hide_password=True)
        reason = str(error.orig or error).strip().splitlines()
        raise ConfigurationError(
            f"{variable} {url}: cannot connect ({reason[0] if reason else 'no reason given'})"
        ) from None


def shown_url(url: str) -> str:
    """``url`` as it may be printed: its password hidden.

    >>> shown_url("postgresql://bot:secret@db/saboteur")
    'postgresql://bot:***@db/saboteur'
    """
    return make_url(url).render_as_string(hide_password=True)


def is_postgres(engine: Engine | Connection) -> bool:
    return engine.dialect.name == "postgresql"


def insert_for(conn: Connection, table: Table) -> Any:
    """The dialect's INSERT into ``table``, which knows ``ON CONFLICT`` (PostgreSQL and
    SQLite alike)."""
    return postgresql.insert(table) if is_postgres(conn) else sqlite.insert(table)
