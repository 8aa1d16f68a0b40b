"""Fixtures of the deadline tests: a database of their own, a broker, a real worker."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from deadline_harness import Process, Table, worker

from infra.migrations import upgrade


@pytest.fixture
def database(empty_database: Callable[[str], str]) -> str:
    """A new PostgreSQL database migrated to head: the worker sweeps every game in it."""
    url = empty_database("postgres")
    upgrade(url)
    return url


@pytest.fixture(params=["redis", "embedded"])
def broker(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Redis (a flushed database number), or the broker used when no Redis is configured:
    kombu's SQL transport on a SQLite file."""
    if request.param == "redis":
        return str(request.getfixturevalue("redis_url"))
    return f"sqla+sqlite:///{tmp_path / 'broker.db'}"


@pytest.fixture
def redis_broker(redis_url: str) -> str:
    return redis_url


@pytest.fixture
def table(database: str, broker: str) -> Iterator[Table]:
    t = Table(database, broker)
    yield t
    t.close()


@pytest.fixture
def celery_worker(database: str, broker: str, tmp_path: Path) -> Iterator[Process]:
    process = worker(database, broker, tmp_path / "worker.log").start()
    yield process
    process.kill()  # the database and broker are thrown away: no need to wait for it
