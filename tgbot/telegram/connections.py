"""The web process's connections, bounded: how many, and how long one may take to ask.

uvicorn alone keeps a connection that never sends a whole request for as long as the
client likes, and accepts connections until the process runs out of file descriptors,
when its database, Redis and Telegram connections fail too. So every connection must
have sent its request's headers within :data:`HEADER_SECONDS`, and beyond
:func:`connection_limit` open connections a new one is closed at once (its descriptor
freed), while the ones open go on. Idle kept-alive connections close after uvicorn's
``timeout_keep_alive``; a request's headers are bounded by h11 (:data:`HEADER_BYTES`).
A deploy still puts a reverse proxy in front (see the README).
"""

from __future__ import annotations

import asyncio
import logging
import resource
from typing import Any, Final

from uvicorn.protocols.http.h11_impl import H11Protocol

log = logging.getLogger(__name__)

HEADER_SECONDS: Final = 10.0  # from connecting to the end of the request's headers
HEADER_BYTES: Final = 32 * 1024  # a request line and headers (initData is under 4 KB)
KEEP_ALIVE_SECONDS: Final = 5  # an idle connection between two requests
MAX_CONNECTIONS: Final = 1000
RESERVED_FILES: Final = 256  # descriptors kept for the database, Redis, Telegram, files


def connection_limit(files: int | None = None) -> int:
    """How many connections the process takes at once: :data:`MAX_CONNECTIONS`, fewer
    when its open-file limit (``files``, else the process's, raised to its hard limit)
    leaves less beside :data:`RESERVED_FILES`.

    >>> connection_limit(1024), connection_limit(65536)
    (768, 1000)
    """
    if files is None:
        files = open_file_limit()
    return max(16, min(MAX_CONNECTIONS, files - RESERVED_FILES))


def open_file_limit() -> int:
    """The process's open-file limit, its soft limit raised to the hard one first."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and soft < hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            soft = hard
        except (ValueError, OSError):
            pass
    return soft if soft != resource.RLIM_INFINITY else MAX_CONNECTIONS + RESERVED_FILES


def bounded_protocol(
    max_connections: int, header_seconds: float = HEADER_SECONDS
) -> type[H11Protocol]:
    """uvicorn's h11 protocol, closing a connection beyond ``max_connections`` at once
    and one whose request has not begun within ``header_seconds``."""

    class Bounded(H11Protocol):
        _refused = 0

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            if len(self.connections) >= max_connections:
                Bounded._refused += 1
                if Bounded._refused == 1 or Bounded._refused % 1000 == 0:
                    log.warning(
                        "%d connections open: closing new ones (%d so far)",
                        len(self.connections),
                        Bounded._refused,
                    )
                transport.abort()
                return
            super().connection_made(transport)
            self._asking = self.loop.call_later(header_seconds, self._too_slow)

        def _too_slow(self) -> None:
            if self.cycle is None and not self.transport.is_closing():
                self.transport.abort()  # no whole request in time: a client that hangs

        def connection_lost(self, exc: Exception | None) -> None:
            asking: Any = getattr(self, "_asking", None)
            if asking is not None:
                asking.cancel()
            if hasattr(self, "transport"):
                super().connection_lost(exc)

    return Bounded
