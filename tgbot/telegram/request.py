"""python-telegram-bot's HTTP requests made with aiohttp's client.

:class:`AiohttpRequest` replaces PTB's default :class:`telegram.request.HTTPXRequest` for
every call the bot makes, ``getUpdates`` included. From the bot's side nothing changes:
the same form fields and multipart uploads go out, PTB's :class:`BaseRequest` turns the
HTTP status and body into the same errors (``BadRequest``, ``Forbidden``, ``RetryAfter``,
``ChatMigrated``, ``NetworkError``...), a timeout is ``TimedOut`` and any other client
failure ``NetworkError``.

Why: httpx's connection pool costs about 3 ms of CPU per call (every request checks every
pooled connection's socket, under anyio's cancel scopes); aiohttp's costs a fraction of
that, and a bot sends several calls per button press.

Timeouts, in httpx's terms: ``connect`` bounds opening a connection, ``pool`` waiting for a
free one, ``read`` each wait for response data (``getUpdates`` adds its long-polling
timeout to it, as PTB does). aiohttp bounds no single write, so a request with a body is
bounded as a whole by the sum of its four timeouts instead (uploads use
``media_write_timeout`` as the write part).

A proxy is taken from the environment (``HTTPS_PROXY``, ``HTTP_PROXY``, ``NO_PROXY``...), as
httpx does, once per host; HTTP proxies only (aiohttp speaks no SOCKS).
"""

from __future__ import annotations

import urllib.request
from typing import TYPE_CHECKING, Any, cast
from urllib.parse import urlencode, urlsplit

import aiohttp
from telegram.error import NetworkError, TimedOut
from telegram.request import BaseRequest, RequestData

from tgbot.telegram.outage import OUTAGE

if TYPE_CHECKING:
    from telegram._utils.types import ODVInput

__all__ = ["AiohttpRequest"]

FORM = {"Content-Type": "application/x-www-form-urlencoded"}


class AiohttpRequest(BaseRequest):
    """A :class:`telegram.request.BaseRequest` on one :class:`aiohttp.ClientSession`,
    with the defaults of :class:`telegram.request.HTTPXRequest`.

    >>> request = AiohttpRequest(connection_pool_size=1, read_timeout=7)
    >>> request.read_timeout
    7
    """

    __slots__ = (
        "_connect_timeout",
        "_media_write_timeout",
        "_pool_size",
        "_pool_timeout",
        "_proxies",
        "_read_timeout",
        "_session",
        "_write_timeout",
    )

    def __init__(
        self,
        connection_pool_size: int = 256,
        read_timeout: float | None = 5.0,
        write_timeout: float | None = 5.0,
        connect_timeout: float | None = 5.0,
        pool_timeout: float | None = 1.0,
        media_write_timeout: float | None = 20.0,
    ) -> None:
        self._pool_size = connection_pool_size
        self._read_timeout = read_timeout
        self._write_timeout = write_timeout
        self._connect_timeout = connect_timeout
        self._pool_timeout = pool_timeout
        self._media_write_timeout = media_write_timeout
        self._session: aiohttp.ClientSession | None = None
        self._proxies: dict[tuple[str, str], str | None] = {}

    @property
    def read_timeout(self) -> float | None:
        return self._read_timeout

    async def initialize(self) -> None:
        if self._session is None or self._session.closed:
            self._session = aiohttp.ClientSession(
                # httpx's pool: as many connections in all, idle ones closed after 5 s.
                connector=aiohttp.TCPConnector(limit=self._pool_size, keepalive_timeout=5.0),
                cookie_jar=aiohttp.DummyCookieJar(),
                headers={"User-Agent": self.USER_AGENT},
                # Trusted, aiohttp would read the environment and ~/.netrc again on every
                # request (in a thread); the proxy is looked up once per host instead.
                trust_env=False,
            )

    async def shutdown(self) -> None:
        if self._session is not None and not self._session.closed:
            await self._session.close()
        self._session = None

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        read_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        write_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        connect_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        pool_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
    ) -> tuple[int, bytes]:
        if self._session is None or self._session.closed:
            raise RuntimeError("This AiohttpRequest is not initialized!")
        files = request_data.multipart_data if request_data is not None else {}
        fields = request_data.json_parameters if request_data is not None else {}
        body: Any = None
        headers = None
        if files:
            form = aiohttp.FormData(quote_fields=False)
            for name, value in fields.items():
                form.add_field(name, value)
            for name, (filename, content, mimetype) in files.items():
                form.add_field(name, content, filename=filename, content_type=mimetype)
            body = form
        elif fields:
            body, headers = urlencode(fields).encode(), FORM  # as httpx sends it
        read = self._given(read_timeout, self._read_timeout)
        connect = self._given(connect_timeout, self._connect_timeout)
        pool = self._given(pool_timeout, self._pool_timeout)
        write = self._given(
            write_timeout, self._media_write_timeout if files else self._write_timeout
        )
        parts = (connect, pool, write, read)
        timeout = aiohttp.ClientTimeout(
            total=(
                sum(p for p in parts if p is not None)
                if body is not None and None not in parts
                else None
            ),
            connect=None if connect is None or pool is None else connect + pool,
            sock_connect=connect,
            sock_read=read,
        )
        try:
            async with self._session.request(
                method,
                url,
                data=body,
                headers=headers,
                timeout=timeout,
                proxy=self._proxy(url),
                allow_redirects=False,  # as httpx: a redirect is an answer, not followed
            ) as response:
                body = await response.read()
        except TimeoutError as error:
            raise TimedOut from error
        except aiohttp.ClientError as error:
            raise NetworkError(f"aiohttp.{error.__class__.__name__}: {error}") from error
        if response.status < 500 and OUTAGE.since is not None:  # Telegram answers again
            OUTAGE.answered()
        return response.status, body

    def _proxy(self, url: str) -> str | None:
        """The environment's proxy for ``url``'s scheme and host, if any (looked up once)."""
        parts = urlsplit(url)
        key = (parts.scheme, parts.netloc)
        if key not in self._proxies:
            bypass = urllib.request.proxy_bypass(parts.hostname or "")
            proxies = urllib.request.getproxies()
            self._proxies[key] = None if bypass else proxies.get(parts.scheme)
        return self._proxies[key]

    @staticmethod
    def _given(value: ODVInput[float], default: float | None) -> float | None:
        return default if value is BaseRequest.DEFAULT_NONE else cast("float | None", value)
