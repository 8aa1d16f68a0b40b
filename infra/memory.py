"""Memory the C allocator keeps once the process freed it, given back to the system.

glibc's ``malloc`` keeps what was freed for later allocations, and its pages stay
resident. In a bot that runs for months, the few allocations that live long (entries of
the bounded caches, connections) end up scattered among the many that live for one
update or one game (rows, pictures, Telegram's answers): the free memory between them
grows slowly and the resident set creeps up with it, by about 0.4 MB per 100 games while
every object and every byte in use stays flat (``benchmarks/bench_memory.py`` prints
both). :meth:`FreeMemory.release` gives the free pages back (``malloc_trim``), at most
once per :data:`RELEASE_EVERY` seconds; where the C library has no ``malloc_trim``
(musl, macOS) it does nothing. :func:`limit_arenas` (at start) keeps malloc to a couple of
arenas, each with its free memory, instead of up to eight per core.
"""

from __future__ import annotations

import ctypes
import logging
import math
import os
import threading
import time
from collections.abc import Callable
from typing import Final

log = logging.getLogger(__name__)

RELEASE_EVERY: Final = 5.0  # seconds (a release takes under 10 ms, most of it giving pages back)


def _malloc_trim() -> Callable[[int], int] | None:
    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (AttributeError, OSError):
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return trim


M_ARENA_MAX: Final = -8  # mallopt's parameter (glibc's malloc.h)
ARENAS: Final = 2  # malloc's arenas: the threads are few, and each arena keeps free memory


def limit_arenas(arenas: int = ARENAS) -> bool:
    """At most ``arenas`` arenas for malloc (glibc makes up to eight per core, one more
    whenever threads allocate at once, and each keeps free memory of its own): to call
    before the process starts threads. MALLOC_ARENA_MAX in the environment, if set, has
    the last word. Whether the limit was set."""
    if os.environ.get("MALLOC_ARENA_MAX"):
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (AttributeError, OSError):
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    return bool(mallopt(M_ARENA_MAX, arenas))


class FreeMemory:
    """Gives the C heap's free memory back to the system, now and then."""

    def __init__(
        self,
        every: float = RELEASE_EVERY,
        clock: Callable[[], float] = time.monotonic,
        trim: Callable[[int], int] | None = None,
    ) -> None:
        self.every = every
        self.clock = clock
        self.trim = trim if trim is not None else _malloc_trim()
        self._last = -math.inf
        self._guard = threading.Lock()

    def release(self) -> bool:
        """Give the free memory back, unless that was done less than :attr:`every`
        seconds ago; whether it was (blocks for a few ms: call it in a thread)."""
        if self.trim is None:
            return False
        with self._guard:
            now = self.clock()
            if now - self._last < self.every:
                return False
            self._last = now
        try:
            self.trim(0)
        except Exception:  # never worth failing the caller for
            log.warning("giving free memory back failed", exc_info=True)
            return False
        return True
