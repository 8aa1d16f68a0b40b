"""The announcer's loop on one instance: a stop ends it, whenever it comes, and nothing
else does — a CancelledError that nobody stopping it raised in what it awaited, or an
exception, is logged and the loop goes on announcing."""

from __future__ import annotations

import asyncio
import logging

import pytest

from tests.fakebotapi import FakeBotAPI
from tests.tgbot.instances_harness import instance, new_game, prompts, seat_players, until

pytestmark = pytest.mark.timeout(60)
GROUP = -7117
PLAYERS = [91, 92, 93]
GAME = "gloop"


@pytest.mark.parametrize("turns", range(4))
async def test_an_announcer_stopped_as_it_is_woken_stops(db: str, turns: int) -> None:
    # The wake-up completes and the stop comes within the same few turns of the loop
    # (another instance's append heard just as the bot shuts down).
    async with FakeBotAPI() as api, instance(api, db, "a", poll=60.0) as a:
        wake = a.bot_services.wake
        waiting = asyncio.Event()
        wait = wake.wait

        async def noted_wait() -> bool:
            waiting.set()
            return await wait()

        wake.wait = noted_wait  # type: ignore[method-assign]
        await asyncio.wait_for(waiting.wait(), 10)

        wake.set()
        for _ in range(turns):
            await asyncio.sleep(0)
        a.task.cancel()
        done, _ = await asyncio.wait({a.task}, timeout=10)

        assert done and a.task.cancelled()


@pytest.mark.parametrize("work", ["catch_up", "step"])
async def test_an_announcer_whose_work_is_cancelled_without_a_stop_goes_on_announcing(
    db: str, work: str, caplog: pytest.LogCaptureFixture
) -> None:
    # ``catch_up`` is the loop's own work; ``step`` the claims' loop's (no game waits yet).
    loop = asyncio.get_running_loop()
    async with FakeBotAPI() as api, instance(api, db, "a") as a:
        announcer = a.announcer
        stray: asyncio.Future[None] = loop.create_future()
        original = getattr(announcer, work)
        hit = asyncio.Event()

        async def cancelled_under_it(*args: object, **kwargs: object) -> object:
            if not hit.is_set():
                hit.set()
                await stray  # cancelled by someone else, not the announcer's task
            return await original(*args, **kwargs)

        setattr(announcer, work, cancelled_under_it)
        await asyncio.wait_for(hit.wait(), 10)
        with caplog.at_level(logging.ERROR, logger="tgbot.delivery.announcer"):
            stray.cancel()
            cancelled = loop.time()
            # The claims are renewed on (the loop renews them too, but only as a game
            # begins waiting).
            await until(lambda: announcer.valid_until > cancelled + 1.5)
            seat_players(api, a.bot_services, GROUP, PLAYERS)
            first = new_game(a.bot_services, GAME, GROUP, PLAYERS)

            await api.wait_for(lambda: prompts(api, first) or None, 10)

        assert not a.task.done()
        assert any("cancelled" in r.getMessage() for r in caplog.records)


async def test_an_announcer_whose_loop_fails_goes_on_announcing(
    db: str, caplog: pytest.LogCaptureFixture
) -> None:
    async with FakeBotAPI() as api, instance(api, db, "a") as a:
        announcer = a.announcer
        wake = a.bot_services.wake
        failed = asyncio.Event()

        def clear() -> None:  # outside the loop's own try: the loop itself ends
            if not failed.is_set():
                failed.set()
                raise RuntimeError("broken")
            asyncio.Event.clear(wake)

        with caplog.at_level(logging.ERROR, logger="tgbot.delivery.announcer"):
            wake.clear = clear  # type: ignore[method-assign]
            await asyncio.wait_for(failed.wait(), 10)
            seat_players(api, a.bot_services, GROUP, PLAYERS)
            first = new_game(a.bot_services, GAME, GROUP, PLAYERS)

            await api.wait_for(lambda: prompts(api, first) or None, 10)

        assert not a.task.done()
        assert any("broken" in str(r.exc_info) for r in caplog.records)
        await until(lambda: not announcer.deliveries.owing())
