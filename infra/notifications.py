"""Notifications across instances: PostgreSQL's LISTEN/NOTIFY on one channel.

Two kinds of notice travel on :data:`CHANNEL`, each a ``topic:key`` string:

- ``event:<game id>:<version>``: events were appended to a game. A database trigger on
  ``events`` sends it (see the migrations), so it is part of the append's transaction
  and goes out when, and only if, the append commits: every writer notifies, the bot's
  instances and Celery's workers alike.
- ``user:<id>``, ``chat:<id>``, ``message:<game>:<chat>:<role>``: a row another instance
  may have cached changed (:mod:`infra.botstate` sends them in its writes' transactions).

A :class:`Listener` (one per instance) holds a connection of its own that LISTENs, and
hands each :class:`Notice` to a callback in its thread. After its connection was lost and
opened again, it hands a :data:`RESET` notice first: notices may have been missed, so
caches are dropped whole and every game looked at again.

On SQLite there is no such channel: one process serves the database, and the in-process
wake-up (``BotServices.wake``) stays what it is; :func:`listener` returns None.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from sqlalchemy import Engine, func, select
from sqlalchemy.engine import Connection

from infra.db import is_postgres

log = logging.getLogger(__name__)

CHANNEL: Final = "saboteur"
EVENT: Final = "event"
RESET_TOPIC: Final = "reset"
RECONNECT_SECONDS: Final = (0.1, 0.5, 1.0, 2.0)


@dataclass(frozen=True, slots=True)
class Notice:
    """One notification: a topic and its key (``event`` and ``"<game>:<version>"``)."""

    topic: str
    key: str

    @classmethod
    def parse(cls, payload: str) -> Notice:
        """
        >>> Notice.parse("event:g1:12").appended
        ('g1', 12)
        >>> Notice.parse("user:42")
        Notice(topic='user', key='42')
        """
        topic, _, key = payload.partition(":")
        return cls(topic, key)

    @property
    def appended(self) -> tuple[str, int] | None:
        """(game id, version) of an ``event`` notice, else None."""
        if self.topic != EVENT:
            return None
        game, _, version = self.key.rpartition(":")
        return (game, int(version)) if version.isdigit() else None


RESET: Final = Notice(RESET_TOPIC, "")


def notify(conn: Connection, topic: str, key: object) -> None:
    """Send ``topic:key`` to every listener when ``conn``'s transaction commits
    (PostgreSQL; nothing on SQLite)."""
    if is_postgres(conn):
        conn.execute(select(func.pg_notify(CHANNEL, f"{topic}:{key}")))


class Listener:
    """A thread that LISTENs on :data:`CHANNEL` and calls ``on_notice`` for each notice.

    ``on_notice`` runs in the listener's thread: it must be quick and thread-safe (set a
    flag, drop a cache entry, ``loop.call_soon_threadsafe``).
    """

    def __init__(self, dsn: str, on_notice: Callable[[Notice], None]) -> None:
        self.dsn = dsn
        self.on_notice = on_notice
        self.listening = threading.Event()
        self._stop = threading.Event()
        self._connection: Any = None
        self._thread = threading.Thread(target=self._run, name="db-listener", daemon=True)

    def start(self) -> Listener:
        self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        self._thread.join(timeout)

    def _run(self) -> None:
        import psycopg

        failures = 0
        first = True
        while not self._stop.is_set():
            try:
                with psycopg.connect(self.dsn, autocommit=True) as conn:
                    conn.execute(f"LISTEN {CHANNEL}")
                    self._connection = conn
                    failures = 0
                    if not first:
                        self._deliver(RESET)
                    first = False
                    self.listening.set()
                    while not self._stop.is_set():
                        for notify in conn.notifies(timeout=0.25):
                            self._deliver(Notice.parse(notify.payload))
            except psycopg.Error:
                self.listening.clear()
                wait = RECONNECT_SECONDS[min(failures, len(RECONNECT_SECONDS) - 1)]
                failures += 1
                log.warning("listening on the database failed; again in %.1f s", wait)
                self._stop.wait(wait)
        self.listening.clear()

    def _deliver(self, notice: Notice) -> None:
        try:
            self.on_notice(notice)
        except Exception:
            log.exception("handling %s failed", notice)

    def backend_pid(self) -> int | None:
        """The listening connection's server process (tests cut it)."""
        conn = self._connection
        return None if conn is None else int(conn.info.backend_pid)


def listener(engine: Engine, on_notice: Callable[[Notice], None]) -> Listener | None:
    """A started :class:`Listener` on ``engine``'s database; None on SQLite."""
    if not is_postgres(engine):
        return None
    url = engine.url.set(drivername="postgresql")
    return Listener(url.render_as_string(hide_password=False), on_notice).start()
