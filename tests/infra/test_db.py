"""Engines on PostgreSQL: connections killed while idle in the pool are replaced unseen."""

from __future__ import annotations

import uuid
from collections.abc import Callable

import pytest
from sqlalchemy import Engine, create_engine, text
from sqlalchemy.engine import make_url

from infra import db
from infra.event_store import EventStore, NewEvent
from infra.migrations import upgrade
from tests.conftest import POSTGRES_SERVER_URL


@pytest.fixture
def engine(empty_database: Callable[[str], str]) -> Engine:
    url = empty_database("postgres")
    upgrade(url)
    return db.make_engine(url)


def kill_connections(engine: Engine) -> int:
    """What a server restart does to the pool: every connection to the database dies."""
    name = make_url(engine.url).database
    admin = create_engine(POSTGRES_SERVER_URL, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            killed = conn.execute(
                text(
                    "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
                    " WHERE datname = :name AND pid <> pg_backend_pid()"
                ),
                {"name": name},
            ).scalar_one()
    finally:
        admin.dispose()
    return int(killed)


def counting_pings(engine: Engine) -> list[int]:
    pings: list[int] = []
    ping = engine.dialect.do_ping

    def counted(dbapi_connection: object) -> bool:
        pings.append(1)
        return ping(dbapi_connection)

    engine.dialect.do_ping = counted  # type: ignore[method-assign]
    return pings


def append_one(store: EventStore, stream: str) -> None:
    store.append(stream, store.version(stream), [NewEvent("tick", {"n": 1})])


def test_a_connection_killed_while_idle_in_the_pool_is_replaced_before_use(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    store, stream = EventStore(engine), uuid.uuid4().hex
    append_one(store, stream)
    assert kill_connections(engine) >= 1

    monkeypatch.setattr(db, "IDLE_PING_SECONDS", 0.0)
    append_one(store, stream)

    assert store.version(stream) == 2


def test_a_connection_in_steady_use_is_not_pinged_before_each_statement(engine: Engine) -> None:
    store, stream = EventStore(engine), uuid.uuid4().hex
    pings = counting_pings(engine)

    for _ in range(20):
        append_one(store, stream)

    assert store.version(stream) == 20
    assert pings == []


def test_a_reader_holds_no_transaction_and_sees_each_commit_as_it_lands(engine: Engine) -> None:
    """Reads on PostgreSQL run in autocommit: a reading connection is never left "idle
    in transaction" (holding back vacuum, costing a BEGIN and a ROLLBACK), and every
    statement sees what was committed before it."""
    store = EventStore(engine)
    append_one(store, "game-1")
    with db.reader(engine) as conn:
        first = conn.execute(text("SELECT count(*) FROM events")).scalar_one()
        state = conn.execute(
            text("SELECT state FROM pg_stat_activity WHERE pid = pg_backend_pid()")
        ).scalar_one()
        # Without a transaction the activity row shows the running query as 'active';
        # between statements it would be 'idle', never 'idle in transaction'.
        status = conn.connection.dbapi_connection.info.transaction_status  # type: ignore[union-attr]
        append_one(store, "game-1")  # another connection commits meanwhile
        second = conn.execute(text("SELECT count(*) FROM events")).scalar_one()
    assert (first, second) == (1, 2)
    assert state == "active"
    assert status.name == "IDLE"
