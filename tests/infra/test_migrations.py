"""Migrations build the schema from an empty database, triggers included."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from alembic import command
from sqlalchemy import inspect, text

from infra.botstate import BotState
from infra.db import make_engine
from infra.migrations import alembic_config, check, upgrade
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


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_how_far_the_announcer_got_survives_the_tables_renaming(
    backend: str, empty_database: Callable[[str], str]
) -> None:
    url = empty_database(backend)
    upgrade(url, "0016_achievements")
    engine = make_engine(url)
    try:
        with engine.begin() as conn:
            conn.execute(text("INSERT INTO notifier_positions VALUES ('notifier', 42)"))
            conn.execute(
                text(
                    "INSERT INTO notifier_games (name, stream_id, version) "
                    "VALUES ('notifier', 'g1', 7), ('notifier', 'g2', 3), ('other', 'g1', 1)"
                )
            )

        upgrade(url)

        state = BotState(engine)
        assert state.position() == 42
        assert state.game_versions(["g1", "g2", "g3"]) == {"g1": 7, "g2": 3}
        assert state.game_versions(["g1"], name="other") == {"g1": 1}
        # The primary keys came along: a game is still claimed by one writer only.
        assert not state.claim_game("g1", None, 9)
        assert state.claim_game("g1", 7, 9)
        assert not state.claim_game("g2", None, 4)
        names = set(inspect(engine).get_table_names())
        assert {"announced_positions", "announced_games"} <= names
        assert not {"notifier_positions", "notifier_games"} & names

        engine.dispose()
        command.downgrade(alembic_config(url), "0016_achievements")
        with engine.connect() as conn:
            games = conn.execute(
                text("SELECT name, stream_id, version FROM notifier_games ORDER BY 1, 2")
            ).all()
            position = conn.execute(text("SELECT position FROM notifier_positions")).scalar()
        assert [tuple(row) for row in games] == [
            ("notifier", "g1", 9),
            ("notifier", "g2", 3),
            ("other", "g1", 1),
        ]
        assert position == 42
        upgrade(url)  # and up again
        check(url)
    finally:
        engine.dispose()
