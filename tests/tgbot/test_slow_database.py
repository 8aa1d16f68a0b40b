"""A slow database stalls no chat: the bot's handlers and announcer wait for it in
threads, never on the event loop every chat shares (no statement is executed in the
loop's thread)."""

from __future__ import annotations

import asyncio
import contextlib
import sys
import threading
import time
import traceback
from collections.abc import AsyncIterator, Callable

import pytest
from sqlalchemy import event

from infra.migrations import upgrade
from tests.fakebotapi import FakeBotAPI
from tests.infra.pg_proxy import pg_proxy
from tests.tgbot import bot_harness
from tests.tgbot.bot_harness import Table, bot_services, running_bot, seat, settle, start_game

pytestmark = pytest.mark.timeout(300)
GROUP = -9009
PLAYERS = [91, 92, 93]
ROUND_TRIP = 0.1  # seconds added to every message to the database


# Where a thread waiting on the database stands: the driver and SQLAlchemy's layers.
DATABASE_CODE = ("psycopg", "sqlalchemy", "asyncpg")


@contextlib.asynccontextmanager
async def loop_watched(loop_thread: int) -> AsyncIterator[list[str]]:
    """Whenever the event loop has not run a 5 ms timer for 50 ms, where its thread
    stands, looked at every 10 ms by a thread of its own: the innermost database frame
    of each look that found it waiting on the database (the list filled while inside).

    A loop held up by a busy machine stands anywhere else, or nowhere Python can see;
    one waiting on a round trip stands in the driver for the whole 100 ms."""
    loop = asyncio.get_running_loop()
    beat = [time.monotonic()]
    seen: list[str] = []
    done = threading.Event()

    async def heart() -> None:
        while True:
            beat[0] = time.monotonic()
            await asyncio.sleep(0.005)

    def watch() -> None:
        while not done.wait(0.01):
            if time.monotonic() - beat[0] < 0.05:
                continue
            frame = sys._current_frames().get(loop_thread)
            for summary in reversed(traceback.extract_stack(frame) if frame else []):
                if any(part in summary.filename for part in DATABASE_CODE):
                    seen.append(f"{summary.filename}:{summary.lineno} {summary.name}")
                    break

    task = loop.create_task(heart())
    watcher = threading.Thread(target=watch, name="loop-watcher", daemon=True)
    watcher.start()
    try:
        yield seen
    finally:
        done.set()
        watcher.join()
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


async def test_a_database_100_ms_away_never_holds_the_event_loop(
    empty_database: Callable[[str], str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Each delivery takes several round trips of 100 ms: a busy machine needs longer.
    monkeypatch.setattr(bot_harness, "SETTLE_SECONDS", 240.0)
    url = empty_database("postgres")
    upgrade(url)
    with pg_proxy(url) as proxy:
        async with FakeBotAPI() as api:
            seat(api, GROUP, PLAYERS)
            async with running_bot(api, proxy.url) as app:
                await settle(api, app)
                await start_game(api, app, GROUP, PLAYERS)
                table = Table(api, app, GROUP, PLAYERS)
                services = bot_services(app)
                on_the_loop: list[str] = []
                loop_thread = threading.get_ident()

                def executing(conn: object, cursor: object, statement: str, *args: object) -> None:
                    if threading.get_ident() == loop_thread:
                        on_the_loop.append(statement)

                event.listen(services.store.engine, "before_cursor_execute", executing)
                proxy.delay = ROUND_TRIP
                services.botstate.forget_cached_messages()
                async with loop_watched(loop_thread) as waits:
                    for _ in range(6):
                        await table.play_one()
                    api.send_text(GROUP, PLAYERS[0], "/hand")
                    api.send_text(GROUP, PLAYERS[1], "/help")
                    await settle(api, app, timeout=60)
                event.remove(services.store.engine, "before_cursor_execute", executing)

    assert on_the_loop == []  # every statement ran in a thread
    # Nor did the loop wait on the database any other way (a driver called directly), so
    # no chat waited for another's round trips. A machine busy with the suite's other
    # workers holds the loop up too, but never inside the driver.
    assert waits == []
