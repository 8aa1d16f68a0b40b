"""One rate limiter for every outgoing Telegram call of the bot, on all its instances.

Telegram's limits (https://core.telegram.org/bots/faq#my-bot-is-hitting-limits-how-do-i-avoid-this):
about 30 messages a second per bot, 20 a minute per group, 1 a second per chat. Each is
a sliding window (:class:`Window`) counted in a :class:`Backend`: Redis when the bot has
one (every instance counts in the same windows; Redis's clock is the one clock), else
this process's memory.

:meth:`RateLimiter.acquire` waits until a call may go. Waiting calls go in order of
:class:`Priority` (answers and prompts before board edits), then first come first served;
a call whose chat is full does not hold back calls to other chats. A call given a
``coalesce`` key replaces a waiting call with the same key: the older one is answered
False (send nothing) and the newer takes its place in the queue, so a game whose board
edits fall behind sends only its latest board. Telegram's own ``retry_after`` is fed back
with :meth:`RateLimiter.retry_after` and blocks that chat (or the whole bot) for as long.

Across instances the windows are shared, the queue is not: each instance serves its own
waiting calls by priority.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import logging
import math
import time
import uuid
from collections import deque
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any, Final, Protocol

from infra.waiting import wait_event

log = logging.getLogger(__name__)

PREFIX: Final = "saboteur:rate"


class Priority(IntEnum):
    """Lower goes first."""

    ANSWER = 0  # answering a button press
    PROMPT = 1  # a player's prompt: what they must decide
    MESSAGE = 2  # any other message
    BOARD = 3  # redrawing a board or a lobby


@dataclass(frozen=True, slots=True)
class Window:
    """At most ``count`` calls in any ``seconds``."""

    count: int
    seconds: float


@dataclass(frozen=True, slots=True)
class Limits:
    per_bot: Window = Window(30, 1.0)
    per_group: Window = Window(20, 60.0)
    per_chat: Window = Window(1, 1.0)


@dataclass(frozen=True, slots=True)
class Verdict:
    """A backend's answer: 0 s to wait (the call was counted), or how long to wait and
    for which key (the call was not counted)."""

    wait: float
    key: str = ""


class Backend(Protocol):
    async def try_acquire(self, windows: Sequence[tuple[str, Window]]) -> Verdict:
        """Count one call in every window if none is full; else say which is, and for
        how long."""
        ...

    async def block(self, key: str, seconds: float) -> None:
        """Let no call counted under ``key`` go for ``seconds``."""
        ...


class MemoryBackend:
    """The windows in this process (an instance alone)."""

    SWEEP_EVERY: Final = 1024  # checks between two sweeps of the keys no call is in

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._calls: dict[str, deque[float]] = {}
        self._blocked: dict[str, float] = {}
        self._longest = 0.0  # the longest window seen: older calls count nowhere
        self._checks = 0

    async def try_acquire(self, windows: Sequence[tuple[str, Window]]) -> Verdict:
        return self.check(windows)

    def check(self, windows: Sequence[tuple[str, Window]]) -> Verdict:
        """:meth:`try_acquire`, synchronously.

        >>> backend = MemoryBackend(clock=lambda: 10.0)
        >>> chat = [("chat:1", Window(1, 1.0))]
        >>> backend.check(chat), backend.check(chat)
        (Verdict(wait=0.0, key=''), Verdict(wait=1.0, key='chat:1'))
        """
        now = self.clock()
        self._checks += 1
        if self._checks % self.SWEEP_EVERY == 0:
            self.sweep(now)
        for key, window in windows:
            self._longest = max(self._longest, window.seconds)
            until = self._blocked.get(key, 0.0)
            if until > now:
                return Verdict(until - now, key)
            calls = self._calls.get(key)
            if calls is None:
                continue
            while calls and calls[0] <= now - window.seconds:
                calls.popleft()
            if len(calls) >= window.count:
                return Verdict(calls[0] + window.seconds - now, key)
        for key, _ in windows:
            self._calls.setdefault(key, deque()).append(now)
        return Verdict(0.0)

    def sweep(self, now: float) -> None:
        """Forget the keys with no call in any window and no block: memory stays bounded
        by the users and chats of the last minutes, not of all time.

        >>> backend = MemoryBackend(clock=lambda: 0.0)
        >>> _ = backend.check([("user:1", Window(3, 5.0))])
        >>> backend.sweep(now=10.0); len(backend._calls)
        0
        """
        for key in [
            k for k, calls in self._calls.items() if not calls or calls[-1] <= now - self._longest
        ]:
            del self._calls[key]
        for key in [k for k, until in self._blocked.items() if until <= now]:
            del self._blocked[key]

    async def block(self, key: str, seconds: float) -> None:
        self._blocked[key] = max(self._blocked.get(key, 0.0), self.clock() + seconds)


# KEYS: per window its calls (a sorted set) and its block (a key with a TTL).
# ARGV: a member naming this call, then per window its count and length in ms.
_ACQUIRE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local n = #KEYS / 2
for i = 1, n do
    local calls, blocked = KEYS[2 * i - 1], KEYS[2 * i]
    local count, window = tonumber(ARGV[2 * i]), tonumber(ARGV[2 * i + 1])
    local left = redis.call('PTTL', blocked)
    if left > 0 then return {left, i} end
    redis.call('ZREMRANGEBYSCORE', calls, '-inf', now - window)
    if redis.call('ZCARD', calls) >= count then
        local oldest = redis.call('ZRANGE', calls, 0, 0, 'WITHSCORES')
        return {math.max(1, tonumber(oldest[2]) + window - now), i}
    end
end
for i = 1, n do
    local calls, window = KEYS[2 * i - 1], tonumber(ARGV[2 * i + 1])
    redis.call('ZADD', calls, now, ARGV[1])
    redis.call('PEXPIRE', calls, window)
end
return {0, 0}
"""


# Connections to Redis per backend, and how long a call waits for one. The pool waits
# rather than fails: a flood of updates (python-telegram-bot handles 256 at once) queues
# for a connection instead of being let through uncounted.
CONNECTIONS: Final = 32
CONNECTION_WAIT: Final = 10.0


class RedisBackend:
    """The windows in Redis, shared by every instance of the bot, on a pool of at most
    ``connections`` that callers wait for."""

    def __init__(self, url: str, prefix: str = PREFIX, *, connections: int = CONNECTIONS) -> None:
        import redis.asyncio

        pool = redis.asyncio.BlockingConnectionPool.from_url(
            url, max_connections=connections, timeout=CONNECTION_WAIT
        )
        self.client: Any = redis.asyncio.Redis(connection_pool=pool)
        self.prefix = prefix
        self._script = self.client.register_script(_ACQUIRE)
        self._me = uuid.uuid4().hex[:12]
        self._calls = itertools.count()

    async def try_acquire(self, windows: Sequence[tuple[str, Window]]) -> Verdict:
        keys: list[str] = []
        argv: list[Any] = [f"{self._me}:{next(self._calls)}"]
        for key, window in windows:
            keys += [f"{self.prefix}:{key}", f"{self.prefix}:{key}:blocked"]
            argv += [window.count, max(1, round(window.seconds * 1000))]
        wait_ms, index = await self._script(keys=keys, args=argv)
        if not wait_ms:
            return Verdict(0.0)
        return Verdict(int(wait_ms) / 1000, windows[int(index) - 1][0])

    async def block(self, key: str, seconds: float) -> None:
        await self.client.set(f"{self.prefix}:{key}:blocked", 1, px=max(1, round(seconds * 1000)))

    async def close(self) -> None:
        await self.client.aclose()


class Fallback:
    """A shared backend, and this process's windows while it fails (Redis unreachable,
    flushed mid-call, out of connections): the count goes on here, per instance, rather
    than nothing being counted at all. One warning when it starts failing, one with the
    number of calls counted here when it answers again."""

    def __init__(self, shared: Backend, what: str) -> None:
        self.shared = shared
        self.what = what
        self.local = MemoryBackend()
        self.failed = 0  # calls counted here since the shared backend last answered

    async def try_acquire(self, windows: Sequence[tuple[str, Window]]) -> Verdict:
        try:
            verdict = await self.shared.try_acquire(windows)
        except Exception as error:
            self._failing(error)
            return self.local.check(windows)
        self._answering()
        return verdict

    async def block(self, key: str, seconds: float) -> None:
        await self.local.block(key, seconds)
        try:
            await self.shared.block(key, seconds)
        except Exception as error:
            self._failing(error)

    def _failing(self, error: Exception) -> None:
        if not self.failed:
            log.warning(
                "%s backend failed (%s: %s); counting in this process until it answers",
                self.what,
                type(error).__name__,
                error,
            )
        self.failed += 1

    def _answering(self) -> None:
        if self.failed:
            log.warning(
                "%s backend answers again; %d calls were counted in this process",
                self.what,
                self.failed,
            )
            self.failed = 0

    async def close(self) -> None:
        close = getattr(self.shared, "close", None)
        if close is not None:
            await close()


def shared(backend: Backend, what: str) -> Backend:
    """``backend`` with this process's windows behind it (:class:`Fallback`), unless it
    is this process's windows already."""
    return backend if isinstance(backend, MemoryBackend | Fallback) else Fallback(backend, what)


BOT_KEY: Final = "bot"


@dataclass(order=True)
class _Waiter:
    priority: int
    seq: int
    chat_id: int | None = field(compare=False)
    group: bool = field(compare=False)
    coalesce: Hashable | None = field(compare=False)
    future: asyncio.Future[bool] = field(compare=False)


class RateLimiter:
    """Waits outgoing calls into Telegram's limits (see the module's docstring)."""

    def __init__(self, backend: Backend, limits: Limits | None = None) -> None:
        self.backend = shared(backend, "rate limiter")
        self.limits = limits or Limits()
        self._queue: list[_Waiter] = []
        self._coalesced: dict[Hashable, _Waiter] = {}
        self._seq = itertools.count()
        self._changed: asyncio.Event | None = None
        self._dispatcher: asyncio.Task[None] | None = None

    async def acquire(
        self,
        chat_id: int | None,
        priority: Priority = Priority.MESSAGE,
        *,
        group: bool = False,
        coalesce: Hashable | None = None,
    ) -> bool:
        """Wait until a call to ``chat_id`` (None: a call to no chat, counted for the bot
        only) may go. ``group``: the chat is a group (its per-minute window counts too).
        True: make the call now. False: a newer call with the same ``coalesce`` key
        replaced this one; make none."""
        loop = asyncio.get_running_loop()
        seq = next(self._seq)
        older = self._coalesced.pop(coalesce, None) if coalesce is not None else None
        if older is not None and not older.future.done():
            older.future.set_result(False)
            self._queue.remove(older)
            heapq.heapify(self._queue)
            priority, seq = min(priority, Priority(older.priority)), older.seq
        waiter = _Waiter(int(priority), seq, chat_id, group, coalesce, loop.create_future())
        heapq.heappush(self._queue, waiter)
        if coalesce is not None:
            self._coalesced[coalesce] = waiter
        self._wake()
        try:
            return await waiter.future
        finally:
            if coalesce is not None and self._coalesced.get(coalesce) is waiter:
                del self._coalesced[coalesce]
            if waiter.future.cancelled() and waiter in self._queue:  # the caller gave up
                self._queue.remove(waiter)
                heapq.heapify(self._queue)

    async def retry_after(self, chat_id: int | None, seconds: float) -> None:
        """Telegram answered 429 with ``retry_after``: hold that chat (None: every call)
        back for ``seconds``."""
        await self.backend.block(BOT_KEY if chat_id is None else f"chat:{chat_id}", seconds)
        self._wake()

    def windows(self, chat_id: int | None, group: bool) -> list[tuple[str, Window]]:
        """The windows a call counts in, the bot's first.

        >>> [k for k, _ in RateLimiter(MemoryBackend()).windows(-5, group=True)]
        ['bot', 'chat:-5', 'group:-5']
        """
        windows = [(BOT_KEY, self.limits.per_bot)]
        if chat_id is not None:
            windows.append((f"chat:{chat_id}", self.limits.per_chat))
            if group:
                windows.append((f"group:{chat_id}", self.limits.per_group))
        return windows

    def _wake(self) -> None:
        if self._changed is None:
            self._changed = asyncio.Event()
        self._changed.set()
        if self._dispatcher is None or self._dispatcher.done():
            self._dispatcher = asyncio.get_running_loop().create_task(
                self._dispatch(), name="rate-limiter"
            )

    async def _dispatch(self) -> None:
        """Grant waiting calls in priority order while the windows allow."""
        assert self._changed is not None
        while self._queue:
            self._changed.clear()
            pause = await self._grant_one()
            if pause is None:
                continue  # one went: look again from the top
            if pause > 0:
                await wait_event(self._changed, pause)

    async def _grant_one(self) -> float | None:
        """Grant the first waiting call that may go (None), else return how long until
        one may (0: look again at once)."""
        loop = asyncio.get_running_loop()
        now = loop.time()
        full: dict[str, float] = {}  # key -> when it may take a call again (loop time)
        pause = math.inf
        for waiter in sorted(self._queue):
            if waiter.future.done():
                self._queue.remove(waiter)
                heapq.heapify(self._queue)
                return 0.0
            windows = self.windows(waiter.chat_id, waiter.group)
            known = [full[k] for k, _ in windows if k in full]
            if known:
                pause = min(pause, max(known) - now)
                continue
            verdict = await self.backend.try_acquire(windows)
            if verdict.wait <= 0:
                self._queue.remove(waiter)
                heapq.heapify(self._queue)
                if not waiter.future.done():
                    waiter.future.set_result(True)
                return None
            full[verdict.key] = loop.time() + verdict.wait
            pause = min(pause, verdict.wait)
            if verdict.key == BOT_KEY:
                break  # nothing goes until the bot's window has room
        return max(0.0, pause) if math.isfinite(pause) else 0.0


def limiter(redis_url: str = "", limits: Limits | None = None) -> RateLimiter:
    """The bot's limiter: on Redis when ``redis_url`` is set (shared by every instance),
    else in this process."""
    # One call at a time asks the windows (the dispatcher), and Telegram's retry_after
    # blocks: a few connections are plenty.
    backend: Backend = RedisBackend(redis_url, connections=4) if redis_url else MemoryBackend()
    return RateLimiter(backend, limits)
