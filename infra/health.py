"""Readiness: can this process reach what it needs, the database and the Celery broker?

Each check answers None when the service answers, else one short reason a person can act
on (no password, no traceback). They block: call them from a thread.
"""

from __future__ import annotations

from sqlalchemy import Engine, text
from sqlalchemy.engine import make_url

from infra.db import make_engine

CHECK_TIMEOUT_SECONDS = 2.0


def database_problem(engine: Engine) -> str | None:
    """Why the database cannot be used now, or None."""
    try:
        with engine.connect() as conn:
            conn.execute(text("SELECT 1"))
    except Exception as error:
        return f"database {_safe(str(engine.url))}: {_first_line(error)}"
    return None


def broker_problem(url: str, timeout: float = CHECK_TIMEOUT_SECONDS) -> str | None:
    """Why the Celery broker at ``url`` cannot be reached now, or None.

    Redis is pinged; kombu's SQL transport (``sqla+...``) runs a query on its database;
    any other transport is asked by kombu to connect.
    """
    try:
        if url.startswith(("redis://", "rediss://", "unix://")):
            import redis

            client = redis.Redis.from_url(
                url, socket_connect_timeout=timeout, socket_timeout=timeout
            )
            try:
                client.ping()
            finally:
                client.close()
        elif url.startswith(("sqla+", "sqlalchemy+")):
            engine = make_engine(url.split("+", 1)[1])
            try:
                with engine.connect() as conn:
                    conn.execute(text("SELECT 1"))
            finally:
                engine.dispose()
        else:
            from kombu.connection import Connection

            with Connection(url, connect_timeout=timeout) as conn:  # type: ignore[no-untyped-call]
                conn.ensure_connection(max_retries=1, timeout=timeout)
    except Exception as error:
        return f"broker {_safe(url)}: {_first_line(error)}"
    return None


def problems(engine: Engine, broker_url: str) -> list[str]:
    """Every reason this process is not ready (none: it is)."""
    return [p for p in (database_problem(engine), broker_problem(broker_url)) if p]


def _first_line(error: Exception) -> str:
    origin = getattr(error, "orig", None) or error
    lines = str(origin).strip().splitlines()
    return lines[0] if lines else type(error).__name__


def _safe(url: str) -> str:
    """``url`` with its password hidden."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:
        return url.split("@")[-1]
