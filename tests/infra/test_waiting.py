"""Waiting for an event with a bound: a stop that comes as the event is set still stops."""

from __future__ import annotations

import asyncio

import pytest

from infra.waiting import wait_event


@pytest.mark.parametrize("turns", range(4))
async def test_a_wait_stopped_as_its_event_is_set_stops(turns: int) -> None:
    event = asyncio.Event()
    waiting = asyncio.Event()
    waits = 0

    async def loop_forever() -> None:
        nonlocal waits
        while True:  # a loop that only a stop ends, as the announcer's and the feeds' do
            waits += 1
            waiting.set()
            await wait_event(event, 60.0)
            event.clear()

    task = asyncio.create_task(loop_forever())
    await asyncio.wait_for(waiting.wait(), 5)
    event.set()
    for _ in range(turns):
        await asyncio.sleep(0)
    task.cancel()
    done, _ = await asyncio.wait({task}, timeout=5)

    assert done and task.cancelled()


async def test_a_wait_says_whether_its_event_came() -> None:
    event = asyncio.Event()
    assert not await wait_event(event, 0.01)
    asyncio.get_running_loop().call_soon(event.set)
    assert await wait_event(event, 5)
