"""What each message the bot edits shows now, so that an edit that would change nothing
is not sent at all.

Pressing the same button again and again asks for the same picture again and again; each
edit would upload it again (Telegram answers "message is not modified" and keeps no file
of it). The fingerprint of each message's last edit is kept in Redis when the bot has
one: every instance edits the same messages, and an instance must not skip an edit
because it does not know another one changed the message since. Without Redis it is kept
in this process (a bounded cache), and trusted only for half a minute.

>>> import asyncio
>>> shown = ShownEdits()
>>> [asyncio.run(shown.claim((-1, 5), edit)) for edit in (b"a", b"a", b"b", b"a")]
[False, True, False, False]
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable
from typing import Any, Final

from infra.lru import LRU

log = logging.getLogger(__name__)

SIZE: Final = 4096  # messages whose last edit is remembered in this process
TTL_SECONDS: Final = 3600  # in Redis: an edit older than this is made again, to be sure
# In this process alone: trusted briefly, in case other instances (with no Redis to tell
# them apart) edited the message since; long enough to absorb a flood of the same press.
LOCAL_TTL_SECONDS: Final = 30.0
PREFIX: Final = "saboteur:shown"

MessageKey = tuple[int, int]  # chat id, message id


def fingerprint(*parts: object) -> bytes:
    """A short digest of what an edit would show."""
    digest = hashlib.blake2b(digest_size=16)
    for part in parts:
        digest.update(part if isinstance(part, bytes) else repr(part).encode())
        digest.update(b"\0")
    return digest.digest()


class ShownEdits:
    """The last edit's fingerprint per message (see the module's docstring)."""

    def __init__(
        self,
        redis_url: str = "",
        size: int = SIZE,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.clock = clock
        # message -> (fingerprint, until when it is trusted)
        self._local: LRU[MessageKey, tuple[bytes, float]] = LRU(size)
        self._redis: Any = None
        if redis_url:
            import redis.asyncio

            self._redis = redis.asyncio.Redis.from_url(redis_url)

    async def claim(self, key: MessageKey, shown: bytes) -> bool:
        """Whether the message shows ``shown`` already (True: skip the edit); else it is
        noted as showing it now, before the edit is sent, so that the same edit asked
        for meanwhile is skipped too (:meth:`forget` it if the edit fails)."""
        if self._redis is None:
            now = self.clock()
            before = self._local.get(key)
            self._local[key] = (shown, now + LOCAL_TTL_SECONDS)
            return before is not None and before[0] == shown and before[1] > now
        try:
            before = await self._redis.set(self._name(key), shown, ex=TTL_SECONDS, get=True)
        except Exception:  # not knowing, the edit is made
            log.warning("could not read the shown edits", exc_info=True)
            return False
        return bool(before == shown)

    async def forget(self, key: MessageKey) -> None:
        """The message's content is unknown now (an edit failed halfway, say)."""
        self._local.pop(key, None)
        if self._redis is not None:
            try:
                await self._redis.delete(self._name(key))
            except Exception:
                log.warning("could not forget a shown edit", exc_info=True)

    async def close(self) -> None:
        if self._redis is not None:
            await self._redis.aclose()

    @staticmethod
    def _name(key: MessageKey) -> str:
        return f"{PREFIX}:{key[0]}:{key[1]}"
