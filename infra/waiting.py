"""Waiting for an :class:`asyncio.Event` with a bound, without ever swallowing a stop.

On Python 3.11 ``asyncio.wait_for(event.wait(), seconds)`` returns normally when its task
is cancelled in the same few turns of the loop as the event is set (CPython gh-86296):
the stop is lost, and a loop built on it never ends. :func:`wait_event` waits under
:func:`asyncio.timeout` instead, which lets every cancel through.
"""

from __future__ import annotations

import asyncio


async def wait_event(event: asyncio.Event, seconds: float) -> bool:
    """Wait until ``event`` is set (True) or ``seconds`` have passed (False)."""
    try:
        async with asyncio.timeout(seconds):
            await event.wait()
    except TimeoutError:
        return False
    return True
