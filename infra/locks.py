"""Named locks held across instances: one writer at a time (a game's lobby message).

On PostgreSQL a lock is a session-level advisory lock on a connection of its own, held
while the caller works (Telegram calls included) and released at the end, or by the
server when the holder's connection dies with its process: a crashed instance never
leaves a lock behind. On SQLite (one machine, one process serving the database) it is a
lock in this process.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import weakref
import zlib
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import Final

from sqlalchemy import Engine, text
from sqlalchemy.exc import DBAPIError, OperationalError

from infra.db import is_postgres

log = logging.getLogger(__name__)

# The first half of every advisory lock key taken here (the append lock uses the
# one-number form, so they never meet).
NAMESPACE: Final = 0x5AB0
DEFAULT_TIMEOUT: Final = 10.0


class LockTimeout(TimeoutError):
    """Another holder kept the lock longer than the caller would wait."""


def lock_key(name: str) -> int:
    """A lock name as a signed 32-bit number (names that collide only wait for each
    other).

    >>> lock_key("lobby:g1") == lock_key("lobby:g1") != lock_key("lobby:g2")
    True
    """
    return zlib.crc32(name.encode()) - 2**31


class Locks:
    """Named locks on ``engine``'s database."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        # In this process (SQLite): a name's lock lives while someone holds or awaits it.
        self._local: weakref.WeakValueDictionary[str, threading.Lock] = (
            weakref.WeakValueDictionary()
        )
        self._guard = threading.Lock()

    @contextmanager
    def hold(self, name: str, timeout: float = DEFAULT_TIMEOUT) -> Iterator[None]:
        """Hold the lock ``name`` for the ``with`` block, waiting up to ``timeout``
        seconds for it. Raises :class:`LockTimeout`. Blocks: from async code use
        :meth:`holding`."""
        if not is_postgres(self.engine):
            with self._guard:
                lock = self._local.setdefault(name, threading.Lock())
            if not lock.acquire(timeout=timeout):
                raise LockTimeout(f"lock {name!r} still held after {timeout:.1f} s")
            try:
                yield
            finally:
                lock.release()
            return
        key = lock_key(name)
        with self.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
            conn.execute(text(f"SET lock_timeout = {max(1, round(timeout * 1000))}"))
            try:
                conn.execute(
                    text("SELECT pg_advisory_lock(:ns, :key)"), {"ns": NAMESPACE, "key": key}
                )
            except OperationalError as error:
                if getattr(error.orig, "sqlstate", None) == "55P03":  # lock_not_available
                    raise LockTimeout(f"lock {name!r} still held after {timeout:.1f} s") from None
                raise
            try:
                yield
            finally:
                try:
                    conn.execute(
                        text("SELECT pg_advisory_unlock(:ns, :key)"), {"ns": NAMESPACE, "key": key}
                    )
                    conn.execute(text("RESET lock_timeout"))
                except DBAPIError:
                    # The connection died: the server released the lock with it.
                    log.warning("releasing lock %r: the connection was lost", name)

    @asynccontextmanager
    async def holding(self, name: str, timeout: float = DEFAULT_TIMEOUT) -> AsyncIterator[None]:
        """:meth:`hold` for async code: waiting for the lock and releasing it happen in a
        thread, never on the event loop."""
        held = self.hold(name, timeout)
        await asyncio.to_thread(held.__enter__)
        try:
            yield
        finally:
            await asyncio.to_thread(held.__exit__, None, None, None)
