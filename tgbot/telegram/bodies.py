"""Reading a request's body within a bound, and its JSON without stalling the event loop.

Every game on an instance shares its event loop: a 20 MB body read whole and parsed there
stalls them all for seconds. Each route says how much it takes (:data:`UPDATE_BYTES` for
Telegram's updates, :data:`MOVE_BYTES` for a Mini App move); a declared length over it is
refused before a byte is read, and a body streamed without one is cut off at the bound.

uvicorn bounds the headers (:mod:`tgbot.telegram.connections`) but not the body: a client that
sends its headers, then the body a byte at a time or never, would keep its connection and
its request open for as long as it likes (each one a slot of the connection limit). So the
whole body must arrive within :data:`BODY_SECONDS`, else the request is answered 408 and
the connection closed.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any, Final

from starlette.requests import Request

# Telegram's updates: a message is at most 4,096 characters of text (a caption 1,024),
# with its entities and the message it replies to; a megabyte is many times any of them.
UPDATE_BYTES: Final = 1 << 20
# A Mini App move: a version, a key and a move of a few fields, well under a kilobyte.
MOVE_BYTES: Final = 4096
# Parsed in a worker thread above this size (below it, parsing takes microseconds).
INLINE_BYTES: Final = 16 * 1024
# From the end of the headers to the end of the body: Telegram and the page send a
# request whole at once, so even a slow link is far within it.
BODY_SECONDS = 10.0


class Unreadable(ValueError):
    """A body no client of ours would send: too large, not JSON, nested too deep."""

    def __init__(self, reason: str, status: int = 400) -> None:
        super().__init__(reason)
        self.status = status

    @property
    def headers(self) -> dict[str, str]:
        """The refusal's headers: a body too large or too slow to read ends the
        connection, so the rest of it is not waited for either."""
        return {"Connection": "close"} if self.status in (408, 413) else {}


async def read_body(request: Request, limit: int) -> bytes:
    """The body of ``request``, at most ``limit`` bytes (else :class:`Unreadable`, 413),
    all of it within :data:`BODY_SECONDS` (else :class:`Unreadable`, 408)."""
    declared = request.headers.get("content-length")
    if declared is not None:
        if not declared.isdigit():
            raise Unreadable("a Content-Length that is no number")
        if int(declared) > limit:
            raise Unreadable(f"a body of {int(declared)} bytes (at most {limit})", 413)
    chunks: list[bytes] = []
    size = 0
    seconds = BODY_SECONDS
    try:
        async with asyncio.timeout(seconds):
            async for chunk in request.stream():
                size += len(chunk)
                if size > limit:
                    raise Unreadable(f"a body of more than {limit} bytes", 413)
                chunks.append(chunk)
    except TimeoutError:
        raise Unreadable(f"a body not sent whole within {seconds:g} s", 408) from None
    return b"".join(chunks)


def parse(body: bytes) -> Any:
    """``body``'s JSON; :class:`Unreadable` when it is none, or nested deeper than Python
    recurses.

    >>> parse(b'{"a": [1]}')
    {'a': [1]}
    >>> parse(b"[" * 100_000)
    Traceback (most recent call last):
    ...
    tgbot.telegram.bodies.Unreadable: JSON nested too deep
    """
    try:
        return json.loads(body)
    except RecursionError:
        raise Unreadable("JSON nested too deep") from None
    except ValueError as error:  # UnicodeDecodeError too
        raise Unreadable(f"not JSON ({error})") from None


async def read_json(request: Request, limit: int) -> Any:
    """The JSON body of ``request``, at most ``limit`` bytes, parsed off the event loop
    when it is large."""
    body = await read_body(request, limit)
    if len(body) <= INLINE_BYTES:
        return parse(body)
    return await asyncio.to_thread(parse, body)
