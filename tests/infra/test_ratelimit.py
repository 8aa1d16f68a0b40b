"""The outgoing-call rate limiter, in memory and on Redis (shared by instances).

Windows are shortened (tenths of a second) so the tests run quickly; assertions bound
from below what the limits forbid (never two calls too close) and check order."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Callable

import pytest
import pytest_asyncio

from infra.ratelimit import (
    Backend,
    Limits,
    MemoryBackend,
    Priority,
    RateLimiter,
    RedisBackend,
    Window,
)

pytestmark = pytest.mark.timeout(60)
SLACK = 0.02  # Redis counts in whole milliseconds
WIDE = Window(1000, 1.0)

Factory = Callable[[Limits], RateLimiter]


@pytest_asyncio.fixture(params=["memory", "redis"])
async def limiters(request: pytest.FixtureRequest) -> AsyncIterator[Factory]:
    """Makes limiters sharing one set of windows: in memory (one instance), or on Redis
    (one per instance)."""
    backends: list[RedisBackend] = []
    if request.param == "memory":
        shared = MemoryBackend()

        def make(limits: Limits) -> RateLimiter:
            return RateLimiter(shared, limits)

    else:
        url = request.getfixturevalue("redis_url")
        prefix = f"test:{uuid.uuid4().hex[:8]}"

        def make(limits: Limits) -> RateLimiter:
            backend = RedisBackend(url, prefix)
            backends.append(backend)
            return RateLimiter(backend, limits)

    yield make
    for backend in backends:
        await backend.close()


async def granted_at(limiter: RateLimiter, chat: int | None, **options: object) -> float:
    assert await limiter.acquire(chat, **options)  # type: ignore[arg-type]
    return asyncio.get_running_loop().time()


def closest(times: list[float], apart: int) -> float:
    """The shortest time between a call and the ``apart``-th call after it."""
    times = sorted(times)
    return min(b - a for a, b in zip(times, times[apart:], strict=False))


async def test_calls_to_one_chat_are_spaced_by_its_window(limiters: Factory) -> None:
    limiter = limiters(Limits(per_bot=WIDE, per_chat=Window(1, 0.2)))

    times = await asyncio.gather(*(granted_at(limiter, 7) for _ in range(4)))

    assert closest(times, 1) >= 0.2 - SLACK


async def test_a_group_gets_at_most_its_count_per_window(limiters: Factory) -> None:
    limits = Limits(per_bot=WIDE, per_group=Window(3, 0.5), per_chat=Window(100, 0.01))
    limiter = limiters(limits)

    times = await asyncio.gather(*(granted_at(limiter, -5, group=True) for _ in range(7)))

    assert closest(times, 3) >= 0.5 - SLACK


async def test_every_instance_counts_in_the_same_windows(limiters: Factory) -> None:
    limits = Limits(per_bot=Window(4, 0.4), per_chat=WIDE)
    first, second = limiters(limits), limiters(limits)

    times = await asyncio.gather(
        *(granted_at(first, chat) for chat in range(6)),
        *(granted_at(second, chat) for chat in range(6, 12)),
    )

    assert closest(times, 4) >= 0.4 - SLACK


async def test_a_prompt_goes_before_board_edits_that_waited_longer(limiters: Factory) -> None:
    limiter = limiters(Limits(per_bot=Window(1, 0.15), per_chat=WIDE))
    order: list[str] = []

    async def call(name: str, chat: int, priority: Priority) -> None:
        assert await limiter.acquire(chat, priority)
        order.append(name)

    boards = [asyncio.create_task(call(f"board{i}", i, Priority.BOARD)) for i in range(3)]
    while not order:
        await asyncio.sleep(0.005)
    await asyncio.gather(call("prompt", 9, Priority.PROMPT), *boards)

    assert order == ["board0", "prompt", "board1", "board2"]


async def test_a_board_that_fell_behind_is_sent_only_in_its_latest_drawing(
    limiters: Factory,
) -> None:
    limiter = limiters(Limits(per_bot=WIDE, per_chat=Window(1, 0.3)))
    assert await limiter.acquire(-5, Priority.MESSAGE)  # the chat's window is now full

    drawings = await asyncio.gather(
        *(limiter.acquire(-5, Priority.BOARD, coalesce=("board", "g1", -5)) for _ in range(3))
    )

    assert drawings == [False, False, True]


async def test_a_full_chat_does_not_hold_back_calls_to_other_chats(limiters: Factory) -> None:
    limiter = limiters(Limits(per_bot=WIDE, per_chat=Window(1, 0.5)))
    assert await limiter.acquire(1)
    order: list[int] = []

    async def call(chat: int) -> None:
        assert await limiter.acquire(chat)
        order.append(chat)

    await asyncio.gather(call(1), call(2))

    assert order == [2, 1]


async def test_telegrams_retry_after_holds_that_chat_back(limiters: Factory) -> None:
    limiter = limiters(Limits(per_bot=WIDE, per_chat=WIDE))
    loop = asyncio.get_running_loop()
    started = loop.time()

    await limiter.retry_after(3, 0.3)
    other = await granted_at(limiter, 4)
    held = await granted_at(limiter, 3)

    assert held - started >= 0.3 - SLACK
    assert other < held


def test_without_redis_the_limiter_counts_in_memory() -> None:
    from infra.ratelimit import limiter

    backend: Backend = limiter("").backend
    assert isinstance(backend, MemoryBackend)
