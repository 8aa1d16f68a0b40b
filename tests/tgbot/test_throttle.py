"""The throttle counts each user's and each chat's updates in windows: in Redis shared by
every instance of the bot, else in the process."""

from __future__ import annotations

import asyncio

import pytest

from infra.ratelimit import MemoryBackend, RedisBackend, Window
from tgbot.telegram.edits import Shown, ShownEdits, fingerprint
from tgbot.telegram.throttle import PREFIX, Limits, Throttle, throttle_for

LIMITS = Limits(per_user=Window(3, 60.0), per_chat=Window(5, 60.0), light=Window(1, 60.0))


async def test_on_redis_every_instance_counts_in_the_same_windows(redis_url: str) -> None:
    one, other = throttle_for(redis_url, LIMITS), throttle_for(redis_url, LIMITS)
    assert one is not None and other is not None
    try:
        allowed = [await (one if i % 2 else other).allow(7, -100) for i in range(5)]
        assert allowed == [True, True, True, False, False]
        # Another user in the same chat: the chat's window has room for two more, then
        # the chat is full and only a light sender's one more goes.
        assert [await other.allow(8, -100) for _ in range(4)] == [True, True, True, False]
        assert [await one.allow(9, -100) for _ in range(2)] == [True, False]
    finally:
        for throttle in (one, other):
            await throttle.backend.close()  # type: ignore[attr-defined]


async def test_in_memory_a_user_and_a_chat_are_counted_apart() -> None:
    throttle = Throttle(MemoryBackend(), LIMITS)
    assert [await throttle.allow(7, 7) for _ in range(4)] == [True, True, True, False]
    assert await throttle.allow(8, 8)  # someone else, in their own private chat


def test_a_refused_user_is_told_once_per_window() -> None:
    now = [0.0]
    throttle = Throttle(MemoryBackend(), LIMITS, clock=lambda: now[0])
    assert [throttle.tell(7), throttle.tell(7), throttle.tell(8)] == [True, False, True]
    now[0] = 61.0
    assert throttle.tell(7)


def test_throttling_can_be_turned_off() -> None:
    assert throttle_for("", LIMITS, enabled=False) is None


@pytest.mark.parametrize("on_redis", [False, True])
async def test_an_edit_is_skipped_only_when_the_message_shows_it_already(
    on_redis: bool, request: pytest.FixtureRequest
) -> None:
    url = request.getfixturevalue("redis_url") if on_redis else ""
    one, other = ShownEdits(url), ShownEdits(url)
    step1, step2 = Shown(body=fingerprint("step 1")), Shown(body=fingerprint("step 2"))
    try:
        assert not await one.unchanged((-1, 5), step1)
        await one.remember((-1, 5), step1)  # Telegram confirmed it
        assert await one.unchanged((-1, 5), step1)
        assert not await one.unchanged((-1, 6), step1)  # another message
        if on_redis:  # another instance moved the message on meanwhile: edited again
            await other.remember((-1, 5), step2)
            assert not await one.unchanged((-1, 5), step1)
        await one.forget((-1, 5))
        assert not await one.unchanged((-1, 5), step1)
    finally:
        await one.close()
        await other.close()


async def test_without_redis_an_edit_is_trusted_only_briefly() -> None:
    now = [0.0]
    shown = ShownEdits(clock=lambda: now[0])
    step1 = Shown(body=fingerprint("step 1"))
    await shown.remember((-1, 5), step1)
    now[0] = 10.0
    assert await shown.unchanged((-1, 5), step1)  # a flood of the same press
    now[0] = 100.0  # another instance may have edited it since: edited again
    assert not await shown.unchanged((-1, 5), step1)


@pytest.mark.parametrize("connections", [None, 2])
async def test_a_thousand_simultaneous_presses_are_let_through_no_more_than_the_budget(
    redis_url: str, connections: int | None
) -> None:
    # None: the pool the bot runs with; 2: one far smaller than the flood.
    options = {} if connections is None else {"connections": connections}
    throttle = Throttle(RedisBackend(redis_url, PREFIX, **options), LIMITS)
    try:
        allowed = await asyncio.gather(*(throttle.allow(7, -100) for _ in range(1000)))
        assert sum(allowed) == LIMITS.per_user.count
    finally:
        await throttle.backend.close()  # type: ignore[attr-defined]


async def test_while_redis_fails_the_process_counts_and_says_so_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    down = RedisBackend("redis://127.0.0.1:1/0")  # nothing listens there
    throttle = Throttle(down, LIMITS)
    try:
        allowed = [await throttle.allow(7, -100) for _ in range(20)]
        assert allowed == [True] * LIMITS.per_user.count + [False] * (20 - LIMITS.per_user.count)
        failed = [r for r in caplog.records if "throttle backend failed" in r.getMessage()]
        assert len(failed) == 1 and failed[0].exc_info is None
    finally:
        await throttle.backend.close()  # type: ignore[attr-defined]


async def test_a_few_flooding_a_chat_do_not_get_a_member_pressing_now_and_then_refused() -> None:
    now = [0.0]
    throttle = Throttle(MemoryBackend(clock=lambda: now[0]), Limits(), clock=lambda: now[0])
    flooders, member, chat = range(1, 7), 100, -100
    refused, flood_allowed = [], 0
    for step in range(16):  # six users press every 0.5 s for 8 s
        now[0] = step * 0.5
        for user in flooders:
            flood_allowed += await throttle.allow(user, chat)
        if step % 4 == 1:  # the member, every 2 s
            refused += [] if await throttle.allow(member, chat) else [now[0]]

    assert refused == []
    assert flood_allowed < 6 * 16  # the flood is still shed
