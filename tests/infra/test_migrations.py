"""Migrations build the schema from an empty database, triggers included."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from sqlalchemy import inspect

from infra.db import make_engine
from infra.migrations import check, upgrade
from infra.schema import metadata


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_migrations_build_every_table_from_an_empty_database_and_match_the_models(
    backend: str, empty_database: Callable[[str], str]
) -> None:
    url = empty_database(backend)

    upgrade(url)
    check(url)  # raises when the models and the migrated database differ
    upgrade(url)  # a second run is a no-op

    engine = make_engine(url)
    try:
        assert set(metadata.tables) <= set(inspect(engine).get_table_names())
    finally:
        engine.dispose()
