"""A TCP proxy in front of PostgreSQL that can drop a connection around a COMMIT.

``cut("after")``: the next COMMIT reaches the server, which commits; the proxy waits for
the server's answer and closes the connection instead of passing it on, so the client
cannot know whether its transaction counted. ``cut("before")``: the next COMMIT never
reaches the server (which rolls the transaction back when the connection closes).
``cut(when, marker=b"...")``: the next COMMIT of a transaction whose statements contain
``marker`` (an SQL fragment such as a table's name; statements psycopg prepared are
followed by their name).
``delay``: every message to the server is held that long (a database far away).
"""

from __future__ import annotations

import contextlib
import re
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy.engine import make_url

# A simple-protocol Query message "COMMIT", and the server's CommandComplete for it.
COMMIT_QUERY = b"Q\x00\x00\x00\x0bCOMMIT\x00"
COMMIT_DONE = b"C\x00\x00\x00\x0bCOMMIT\x00"
# A named statement in a Parse message (psycopg names its prepared statements _pg3_N).
PARSED = re.compile(rb"(_pg3_\d+)\x00([^\x00]*)\x00")


class PgProxy:
    def __init__(self, server_url: str) -> None:
        url = make_url(server_url)
        self.target = (url.host or "127.0.0.1", url.port or 5432)
        self.server_url = server_url
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        self._lock = threading.Lock()
        self._armed: str | None = None
        self._marker: bytes | None = None
        self.cuts = 0
        self.delay = 0.0  # seconds each message to the server is held (a slow network)
        self._closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def url(self) -> str:
        """``server_url`` through the proxy."""
        return (
            make_url(self.server_url)
            .set(host="127.0.0.1", port=self.port)
            .render_as_string(hide_password=False)
        )

    def cut(self, when: str, marker: bytes | None = None) -> None:
        """Drop the connection of the next COMMIT (of a transaction that ran ``marker``),
        ``"before"`` or ``"after"`` it."""
        assert when in ("before", "after")
        with self._lock:
            self._armed = when
            self._marker = marker

    @property
    def armed(self) -> bool:
        return self._armed is not None

    def close(self) -> None:
        self._closed = True
        self._listener.close()

    def _take(self, marked: set[bytes]) -> str | None:
        """The armed cut, taken, if it applies to a transaction that ran ``marked``."""
        with self._lock:
            if self._marker is not None and self._marker not in marked:
                return None
            when, self._armed = self._armed, None
            return when

    @property
    def marker(self) -> bytes | None:
        return self._marker

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            server = socket.create_connection(self.target)
            _Link(self, client, server).start()


class _Link:
    """One client connection and its server connection, pumped both ways."""

    def __init__(self, proxy: PgProxy, client: socket.socket, server: socket.socket) -> None:
        self.proxy = proxy
        self.client = client
        self.server = server
        self.cut_on_answer = threading.Event()
        self.prepared: dict[bytes, bytes] = {}  # statement name -> its SQL
        self.marked: set[bytes] = set()  # the markers the open transaction ran

    def _note(self, data: bytes) -> None:
        marker = self.proxy.marker
        for name, query in PARSED.findall(data):
            self.prepared[name] = query
        if marker is None:
            return
        if marker in data or any(
            marker in self.prepared.get(name, b"") for name in re.findall(rb"_pg3_\d+", data)
        ):
            self.marked.add(marker)

    def start(self) -> None:
        threading.Thread(target=self._upstream, daemon=True).start()
        threading.Thread(target=self._downstream, daemon=True).start()

    def _close(self) -> None:
        for sock in (self.client, self.server):
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()

    def _upstream(self) -> None:
        with contextlib.suppress(OSError):
            while data := self.client.recv(65536):
                self._note(data)
                when = None
                if COMMIT_QUERY in data:
                    when = self.proxy._take(self.marked)
                    self.marked = set()
                if when == "before":
                    self.proxy.cuts += 1
                    self._close()
                    return
                if when == "after":
                    self.cut_on_answer.set()
                if self.proxy.delay:
                    time.sleep(self.proxy.delay)
                self.server.sendall(data)
        self._close()

    def _downstream(self) -> None:
        answer = b""
        with contextlib.suppress(OSError):
            while data := self.server.recv(65536):
                if self.cut_on_answer.is_set():
                    answer += data
                    if COMMIT_DONE in answer:  # committed: the client never hears it
                        self.proxy.cuts += 1
                        self._close()
                        return
                    continue
                self.client.sendall(data)
        self._close()


@contextmanager
def pg_proxy(server_url: str) -> Iterator[PgProxy]:
    proxy = PgProxy(server_url)
    try:
        yield proxy
    finally:
        proxy.close()
