"""Named locks: one holder at a time, across instances on PostgreSQL."""

from __future__ import annotations

import asyncio
import threading
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlalchemy import Engine, text

from infra.db import make_engine
from infra.locks import NAMESPACE, Locks, LockTimeout, lock_key


@pytest.fixture
def engines(db_url: str) -> Iterator[tuple[Engine, Engine]]:
    a, b = make_engine(db_url), make_engine(db_url)
    yield a, b
    a.dispose()
    b.dispose()


def instances(engines: tuple[Engine, Engine]) -> tuple[Locks, Locks]:
    """Two instances' locks (on SQLite, one process serves the database: one object)."""
    if engines[0].dialect.name == "sqlite":
        shared = Locks(engines[0])
        return shared, shared
    return Locks(engines[0]), Locks(engines[1])


def name() -> str:
    return f"lobby:g-{uuid.uuid4().hex[:8]}"


def test_a_held_lock_makes_another_instance_wait_until_it_is_released(
    engines: tuple[Engine, Engine],
) -> None:
    a, b = instances(engines)
    lobby = name()
    released = threading.Event()
    got: list[str] = []

    with a.hold(lobby):
        with pytest.raises(LockTimeout), b.hold(lobby, timeout=0.2):
            pass

        def second() -> None:
            with b.hold(lobby, timeout=10):
                got.append("b" if released.is_set() else "b too early")

        waiter = threading.Thread(target=second)
        waiter.start()
        released.set()
    waiter.join(10)

    assert got == ["b"]
    with b.hold(name(), timeout=0.2):  # another name is free all along
        pass


async def test_async_code_holds_the_lock_without_blocking_the_event_loop(
    engines: tuple[Engine, Engine],
) -> None:
    a, b = instances(engines)
    lobby = name()
    order: list[str] = []

    async def edit(locks: Locks, who: str) -> None:
        async with locks.holding(lobby):
            order.append(f"{who} in")
            await asyncio.sleep(0.05)
            order.append(f"{who} out")

    await asyncio.gather(edit(a, "a"), edit(b, "b"))

    assert order in (["a in", "a out", "b in", "b out"], ["b in", "b out", "a in", "a out"])


def test_a_lock_whose_holder_died_is_free(postgres_url: str) -> None:
    a_engine, b_engine = make_engine(postgres_url), make_engine(postgres_url)
    try:
        a, b = Locks(a_engine), Locks(b_engine)
        lobby = name()
        held = a.hold(lobby)
        held.__enter__()  # the instance dies holding it: its connection goes
        with b_engine.connect() as conn:
            conn.execute(
                text(
                    "SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory'"
                    " AND granted AND classid = :ns AND objid = CAST(:objid AS oid)"
                ),
                {"ns": NAMESPACE, "objid": lock_key(lobby) % 2**32},
            )

        with b.hold(lobby, timeout=5):
            pass
        held.__exit__(None, None, None)  # its release finds the connection gone
    finally:
        a_engine.dispose()
        b_engine.dispose()


def test_a_lock_in_this_process_is_forgotten_once_nobody_holds_or_awaits_it(
    empty_database: Callable[[str], str],
) -> None:
    locks = Locks(make_engine(empty_database("sqlite")))
    for _ in range(100):  # a lobby's lock per game, games after games
        with locks.hold(name()):
            assert len(locks._local) == 1
    assert len(locks._local) == 0


def test_a_held_lock_takes_none_of_the_pools_connections(postgres_url: str) -> None:
    engine = make_engine(postgres_url, pool_size=1, max_overflow=0, pool_timeout=5)
    try:
        locks = Locks(engine)
        with locks.hold(name()):
            assert engine.pool.checkedout() == 0  # type: ignore[attr-defined]
            with engine.connect() as conn:  # the work under the lock has the pool's one
                assert conn.execute(text("SELECT 1")).scalar_one() == 1
    finally:
        engine.dispose()


async def test_many_lobbies_redrawn_at_once_through_a_small_pool_all_finish(
    postgres_url: str,
) -> None:
    """More locks held at once than the pool has connections, and than the process lets
    hold sessions, each holder reading through the pool under its lock, with two worker
    threads: every one finishes (the holders once starved the pool, waiting for it)."""
    engine = make_engine(postgres_url, pool_size=1, max_overflow=0, pool_timeout=5)
    asyncio.get_running_loop().set_default_executor(ThreadPoolExecutor(2))
    locks = Locks(engine, holders=3)
    done: list[int] = []

    def read() -> int:
        with engine.connect() as conn:
            return int(conn.execute(text("SELECT 1")).scalar_one())

    async def redraw(lobby: int) -> None:
        async with locks.holding(f"lobby:{lobby}-{uuid.uuid4().hex[:8]}", timeout=60):
            await asyncio.sleep(0.01)  # a Telegram call
            done.append(lobby * await asyncio.to_thread(read))

    try:
        await asyncio.wait_for(asyncio.gather(*(redraw(i) for i in range(12))), 120)
    finally:
        engine.dispose()
    assert sorted(done) == list(range(12))
