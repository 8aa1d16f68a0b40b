"""Named locks held across instances: one writer at a time (a game's lobby message).

On PostgreSQL a lock is a session-level advisory lock on a connection of its own, held
while the caller works (Telegram calls included) and released at the end, or by the
server when the holder's connection dies with its process: a crashed instance never
leaves a lock behind. On SQLite (one machine, one process serving the database) it is a
lock in this process.

A lock's connection is never one of the engine's pool: the work done under a lock needs
connections of its own (to read and note the message it edits), and holders each keeping
one of the pool's while they wait for another starved it (twenty lobbies redrawn at once
against a pool of fifteen: every holder waited for a connection no one would give back,
until the pool timed out). A lock opens a session of its own instead and closes it with
the lock; at most ``holders`` are open at once in a process, and waiting for one of those
happens on the event loop (:meth:`Locks.holding`), never in a worker thread, which the
holders need to finish.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
import weakref
import zlib
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import Final

from sqlalchemy import Engine, create_engine, text
from sqlalchemy.exc import DBAPIError, OperationalError
from sqlalchemy.pool import NullPool

from infra.db import is_postgres

log = logging.getLogger(__name__)

# The first half of every advisory lock key taken here (the append lock uses the
# one-number form, so they never meet).
NAMESPACE: Final = 0x5AB0
DEFAULT_TIMEOUT: Final = 10.0
HOLDERS: Final = 16  # locks held at once by a process on PostgreSQL: a session each
SLOT_POLL_SECONDS: Final = 0.01  # how often a lock waiting for a session looks again


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

    def __init__(self, engine: Engine, holders: int = HOLDERS) -> None:
        self.engine = engine
        # Each lock's session, opened for it and closed with it: never one of the pool's.
        self._sessions = (
            create_engine(engine.url, poolclass=NullPool) if is_postgres(engine) else engine
        )
        self._slots = threading.BoundedSemaphore(holders)
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
        if not self._slots.acquire(timeout=timeout):
            raise LockTimeout(f"lock {name!r}: no session free after {timeout:.1f} s")
        try:
            with self._advisory(name, timeout):
                yield
        finally:
            self._slots.release()

    @contextmanager
    def _advisory(self, name: str, timeout: float) -> Iterator[None]:
        """The advisory lock ``name``, on a session of its own (a slot taken)."""
        key = lock_key(name)
        with self._sessions.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
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
                except DBAPIError:
                    # The connection died: the server released the lock with it.
                    log.warning("releasing lock %r: the connection was lost", name)

    @asynccontextmanager
    async def holding(self, name: str, timeout: float = DEFAULT_TIMEOUT) -> AsyncIterator[None]:
        """:meth:`hold` for async code: taking the lock and releasing it happen in a
        thread, never on the event loop; waiting for a free session (more than
        ``holders`` held at once) happens on the loop, holding no thread."""
        if not is_postgres(self.engine):
            held = self.hold(name, timeout)
        else:
            deadline = time.monotonic() + timeout
            while not self._slots.acquire(blocking=False):
                if time.monotonic() >= deadline:
                    raise LockTimeout(f"lock {name!r}: no session free after {timeout:.1f} s")
                await asyncio.sleep(SLOT_POLL_SECONDS)
            held = self._released_after(name, timeout)
        await asyncio.to_thread(held.__enter__)
        try:
            yield
        finally:
            await asyncio.to_thread(held.__exit__, None, None, None)

    @contextmanager
    def _released_after(self, name: str, timeout: float) -> Iterator[None]:
        """The advisory lock on a slot taken already, the slot given back after."""
        try:
            with self._advisory(name, timeout):
                yield
        finally:
            self._slots.release()

    def close(self) -> None:
        """Nothing stays open between locks; for symmetry with the engines."""
        if self._sessions is not self.engine:
            self._sessions.dispose()
