"""Simulated games shared by the replay tests (played once per session)."""

from __future__ import annotations

import pytest

from tests.replay.games import PlayedGame, play


@pytest.fixture(scope="session")
def base_game() -> PlayedGame:
    return play(11, players=4, edition="base")


@pytest.fixture(scope="session")
def expansion_game() -> PlayedGame:
    return play(12, players=5, edition="saboteur2", timeouts=0.1)


@pytest.fixture(scope="session", params=["base", "saboteur2"])
def finished_game(
    request: pytest.FixtureRequest, base_game: PlayedGame, expansion_game: PlayedGame
) -> PlayedGame:
    return base_game if request.param == "base" else expansion_game


@pytest.fixture(scope="session")
def unfinished_game() -> PlayedGame:
    return play(13, players=3, edition="base", finish=False)
