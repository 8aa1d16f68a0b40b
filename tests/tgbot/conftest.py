"""Fixtures of the bot tests."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from sqlalchemy.engine import make_url

from infra.migrations import upgrade


@pytest.fixture(scope="session")
def migrated_sqlite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite database migrated to head once a run, copied for each test that needs
    one (the migrations take a tenth of a CPU second, hundreds of bot tests a run)."""
    path = tmp_path_factory.mktemp("migrated") / "head.db"
    upgrade(f"sqlite:///{path}")
    return path


@pytest.fixture
def db(empty_database: Callable[[str], str], migrated_sqlite: Path) -> str:
    """A new SQLite database of the test's own, migrated to head, for the bot to run on."""
    url = empty_database("sqlite")
    target = make_url(url).database
    assert target is not None
    # (sqlite's backup: a whole copy whatever the journal holds)
    with (
        sqlite3.connect(migrated_sqlite) as source,
        sqlite3.connect(target) as copy,
    ):
        source.backup(copy)
    source.close()
    copy.close()
    return url
