"""The announcer's loop on one instance: a stop ends it, whenever it comes."""

from __future__ import annotations

import asyncio

import pytest

from tests.fakebotapi import FakeBotAPI
from tests.tgbot.instances_harness import instance

pytestmark = pytest.mark.timeout(60)


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
