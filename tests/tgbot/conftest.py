"""Fixtures of the bot tests."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import copy_sqlite


@pytest.fixture
def db(empty_database: Callable[[str], str], migrated_sqlite: Path) -> str:
    """A new SQLite database of the test's own, migrated to head, for the bot to run on
    (a copy of one migrated once a run)."""
    return copy_sqlite(migrated_sqlite, empty_database("sqlite"))
