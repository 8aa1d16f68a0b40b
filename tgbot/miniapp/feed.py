"""Live updates: follow the event log and tell each open board that its game moved on.

One task per process follows the store while somebody watches (``last_position``, then
the events after it) and marks every watcher of a game that got events. A watcher then
draws its game afresh: changes coalesce, so a slow page never builds a backlog.

What makes it look (:class:`Wakeup`): the Mini App's own moves, and the bot's wake-up
(``BotServices.wake``, followed by :class:`Following`), set whenever this process appended
events and, on PostgreSQL, whenever the notification channel tells of another instance's
or a worker's append (:func:`tgbot.telegram.app.listen`). Without a channel (SQLite, where the
deadline worker is another process) those are seen at the next poll.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from typing import Any, Final, Protocol

from infra.actions import WakeUp
from infra.event_store import EventStore
from infra.waiting import wait_event

log = logging.getLogger(__name__)

POLL_SECONDS: Final = 1.0
PAGE: Final = 1000


class Wakeup(Protocol):
    async def wait(self, timeout: float) -> None:
        """Return when new events may be in the store, or after ``timeout`` seconds."""
        ...


class Following:
    """Follows a :class:`~infra.actions.WakeUp` with an event of its own, which only this
    waiter clears: a wake-up while the feed was busy reading is not lost."""

    def __init__(self, wake: WakeUp) -> None:
        self.wake = wake
        self.event = wake.follow()

    async def wait(self, timeout: float) -> None:
        await wait_event(self.event, timeout)
        self.event.clear()

    def close(self) -> None:
        self.wake.unfollow(self.event)


class Watcher:
    """One open board: ``changed`` is set when its game got events."""

    def __init__(self, game_id: str) -> None:
        self.game_id = game_id
        self.changed = asyncio.Event()


class Feed:
    """Follows the store for the games somebody watches."""

    def __init__(
        self, store: EventStore, wakeup: Wakeup | None = None, poll_seconds: float = POLL_SECONDS
    ) -> None:
        self.store = store
        self.wakeup = wakeup
        self.poll_seconds = poll_seconds
        self.position: int | None = None
        self._watchers: dict[str, set[Watcher]] = {}
        self._poked = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def poke(self) -> None:
        """Events were appended in this process: look now."""
        self._poked.set()

    @contextlib.asynccontextmanager
    async def watch(self, game_id: str) -> AsyncIterator[Watcher]:
        """Watch ``game_id`` for the block's length. Changes from the moment this is
        entered on set :attr:`Watcher.changed`."""
        watcher = Watcher(game_id)
        if self.position is None or self._task is None or self._task.done():
            # Start where the store is now: the watcher draws the current state itself.
            self.position = await asyncio.to_thread(self.store.last_position)
        self._watchers.setdefault(game_id, set()).add(watcher)
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._follow(), name="miniapp-feed")
        try:
            yield watcher
        finally:
            watchers = self._watchers.get(game_id, set())
            watchers.discard(watcher)
            if not watchers:
                self._watchers.pop(game_id, None)

    async def close(self) -> None:
        if isinstance(self.wakeup, Following):
            self.wakeup.close()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _follow(self) -> None:
        while self._watchers:
            await self._wait()
            self._poked.clear()
            try:
                await self._look()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("miniapp feed could not read the store; trying again")
                await asyncio.sleep(self.poll_seconds)

    async def _wait(self) -> None:
        waits: list[asyncio.Future[Any]] = [asyncio.ensure_future(self._poked.wait())]
        if self.wakeup is not None:
            waits.append(asyncio.ensure_future(self.wakeup.wait(self.poll_seconds)))
        try:
            await asyncio.wait(waits, timeout=self.poll_seconds, return_when="FIRST_COMPLETED")
        finally:
            for waiting in waits:
                waiting.cancel()

    async def _look(self) -> None:
        position = self.position or 0
        last = await asyncio.to_thread(self.store.last_position)
        if last <= position:
            return
        moved: set[str] = set()
        while position < last:
            page = await asyncio.to_thread(self.store.read_all, position, PAGE)
            if not page:
                break
            moved.update(e.stream_id for e in page)
            position = page[-1].position
        self.position = position
        for game_id in moved:
            for watcher in self._watchers.get(game_id, ()):
                watcher.changed.set()
