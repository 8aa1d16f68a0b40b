"""Fixtures of the bot tests."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from infra.migrations import upgrade


@pytest.fixture
def db(empty_database: Callable[[str], str]) -> str:
    """A new SQLite database of the test's own, migrated to head, for the bot to run on."""
    url = empty_database("sqlite")
    upgrade(url)
    return url
