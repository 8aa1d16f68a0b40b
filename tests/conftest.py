"""Shared fixtures: database URLs on real servers, Redis, and the skip-or-fail rule.

PostgreSQL and Redis are the real servers on 127.0.0.1 (override with
``TEST_POSTGRES_URL`` / ``TEST_REDIS_URL``). When one is unreachable its tests are
skipped with the reason, except in CI (``CI=true``), where they fail instead.
"""

from __future__ import annotations

import os
import sqlite3
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from infra.migrations import upgrade

POSTGRES_SERVER_URL = os.environ.get(
    "TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)


def _redis_for_this_worker(url: str) -> str:
    """Under pytest-xdist each worker (gw0, gw1, ...) flushes a database number of its
    own, counting down from the configured one, so parallel workers never flush each
    other's keys."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    if not worker.startswith("gw"):
        return url
    base, _, number = url.rpartition("/")
    if not number.isdigit():
        return url
    return f"{base}/{int(number) - int(worker[2:])}"


REDIS_SERVER_URL = _redis_for_this_worker(
    os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/15")
)
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def unavailable(service: str, reason: object) -> None:
    """Skip (locally) or fail (in CI) because ``service`` cannot be reached."""
    message = f"{service} is unreachable: {reason}"
    if IN_CI:
        pytest.fail(f"{message} (CI=true requires it)", pytrace=False)
    pytest.skip(message)


# -- PostgreSQL ---------------------------------------------------------------------


def _admin_url() -> str:
    return make_url(POSTGRES_SERVER_URL).render_as_string(hide_password=False)


def create_postgres_database(prefix: str = "saboteur_test", template: str | None = None) -> str:
    """Create an empty, uniquely named database and return its URL (``template``: the URL
    of a database to copy instead, which nothing may be connected to)."""
    name = f"{prefix}_{uuid.uuid4().hex[:12]}"
    copy = f' TEMPLATE "{make_url(template).database}"' if template else ""
    admin = create_engine(_admin_url(), isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{name}"{copy}'))
    finally:
        admin.dispose()
    return make_url(POSTGRES_SERVER_URL).set(database=name).render_as_string(hide_password=False)


def drop_postgres_database(url: str) -> None:
    name = make_url(url).database
    admin = create_engine(_admin_url(), isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    finally:
        admin.dispose()


@pytest.fixture(scope="session")
def postgres_available() -> None:
    engine = create_engine(_admin_url(), connect_args={"connect_timeout": 3})
    try:
        with engine.connect() as conn:
            conn.execute(text("SELECT 1"))
    except Exception as error:
        unavailable("PostgreSQL", f"{POSTGRES_SERVER_URL}: {type(error).__name__}")
    finally:
        engine.dispose()


@pytest.fixture(scope="session")
def postgres_url(postgres_available: None) -> Iterator[str]:
    """A fresh PostgreSQL database for the session, migrated to head, dropped after."""
    url = create_postgres_database()
    try:
        upgrade(url)
        yield url
    finally:
        drop_postgres_database(url)


# -- SQLite -------------------------------------------------------------------------


@pytest.fixture(scope="session")
def sqlite_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A SQLite file database for the session, migrated to head."""
    url = f"sqlite:///{tmp_path_factory.mktemp('sqlite') / 'saboteur.db'}"
    upgrade(url)
    return url


@pytest.fixture(params=["sqlite", "postgres"])
def db_url(request: pytest.FixtureRequest) -> str:
    """Each test runs once on SQLite and once on PostgreSQL (a shared, migrated database:
    use unique stream ids, or ``fresh_db_url`` for a database of your own)."""
    return str(request.getfixturevalue(f"{request.param}_url"))


@pytest.fixture
def empty_database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Callable[..., str]]:
    """A factory: ``empty_database("sqlite" | "postgres")`` returns the URL of a new,
    empty database (no tables), dropped after the test (PostgreSQL's, a copy of the
    database ``template`` names, if it is given)."""
    created: list[str] = []

    def make(backend: str, template: str | None = None) -> str:
        if backend == "sqlite":
            return f"sqlite:///{tmp_path / f'{uuid.uuid4().hex[:8]}.db'}"
        request.getfixturevalue("postgres_available")
        url = create_postgres_database(template=template)
        created.append(url)
        return url

    yield make
    for url in created:
        drop_postgres_database(url)


@pytest.fixture(scope="session")
def migrated_sqlite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite database migrated to head once a run, copied for each test that needs a
    migrated one of its own (the migrations take a tenth of a CPU second or more,
    hundreds of tests a run)."""
    path = tmp_path_factory.mktemp("migrated") / "head.db"
    upgrade(f"sqlite:///{path}")
    return path


def copy_sqlite(source: Path, url: str) -> str:
    """``url``, a new SQLite database, made a copy of ``source`` (sqlite's backup: whole,
    whatever its journal holds)."""
    target = make_url(url).database
    assert target is not None
    with sqlite3.connect(source) as original, sqlite3.connect(target) as copy:
        original.backup(copy)
    original.close()
    copy.close()
    return url


@pytest.fixture(scope="session")
def migrated_postgres(postgres_available: None) -> Iterator[str]:
    """A PostgreSQL database migrated to head once a run, the template of each test's
    migrated one (nothing stays connected to it)."""
    url = create_postgres_database("saboteur_template")
    try:
        upgrade(url)
        yield url
    finally:
        drop_postgres_database(url)


@pytest.fixture(params=["sqlite", "postgres"])
def fresh_db_url(request: pytest.FixtureRequest, empty_database: Callable[..., str]) -> str:
    """A new database of the test's own, migrated to head, on SQLite then PostgreSQL."""
    if request.param == "sqlite":
        migrated: Path = request.getfixturevalue("migrated_sqlite")
        return copy_sqlite(migrated, empty_database("sqlite"))
    template: str = request.getfixturevalue("migrated_postgres")
    return empty_database("postgres", template)


# -- Redis --------------------------------------------------------------------------


@pytest.fixture
def redis_url() -> Iterator[str]:
    """A Redis URL on a dedicated database number, flushed before and after the test."""
    import redis

    client = redis.Redis.from_url(REDIS_SERVER_URL, socket_connect_timeout=3)
    try:
        client.flushdb()
    except Exception as error:
        client.close()
        unavailable("Redis", f"{REDIS_SERVER_URL}: {type(error).__name__}")
    try:
        yield REDIS_SERVER_URL
    finally:
        client.flushdb()
        client.close()


# -- the cluster tests, apart ---------------------------------------------------------


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--cluster",
        choices=("all", "skip", "only"),
        default="all",
        help="the cluster tests (tests/cluster): run with the others (all), leave them"
        " out (skip) or run only them (only); ./scripts/test runs them apart, last",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    choice = config.getoption("--cluster")
    if choice != "all":
        wanted = choice == "only"
        kept = [item for item in items if ("tests/cluster/" in item.nodeid) == wanted]
        if len(kept) != len(items):
            config.hook.pytest_deselected(items=[item for item in items if item not in kept])
            items[:] = kept
    items[:] = spread_slow(items)


def spread_slow(items: list[pytest.Item]) -> list[pytest.Item]:
    """The order to run in: the modules of slow tests (whole games, real processes) spread
    evenly through the first half of the others, each module's tests kept together.

    pytest-xdist hands each worker runs of consecutive tests: the slow ones all at the
    end (where ``tests/tgbot`` sorts) leave the last worker alone with them, and all at
    the start would go to the first worker. The order is the same on every worker."""
    modules: dict[str, list[pytest.Item]] = {}
    rest: list[pytest.Item] = []
    for item in items:
        if item.get_closest_marker("slow") is not None:
            modules.setdefault(item.nodeid.split("::")[0], []).append(item)
        else:
            rest.append(item)
    if not modules or not rest:
        return items
    slow = list(modules.values())
    every = max(1, len(rest) // 2 // len(slow))
    ordered: list[pytest.Item] = []
    for index, item in enumerate(rest):
        if index % every == 0 and slow:
            ordered += slow.pop(0)
        ordered.append(item)
    for module in slow:
        ordered += module
    return ordered
