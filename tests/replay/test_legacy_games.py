"""Games stored before the finer action events (their action cards as ``action_played``)
still load, and replay as they did when they were recorded: the same states and views
after every event, the same narration to every reader in every language, the same replay
captions, the same memory for the computer players, the same achievements."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from domain import achievements as rules
from domain.codec import decode
from infra.achievements import finished_game
from infra.event_store import StoredEvent
from tests.replay.legacy_games import digests, load, stored

GAMES = load()


@pytest.fixture(params=GAMES, ids=[g["edition"] for g in GAMES])
def game(request: pytest.FixtureRequest) -> dict[str, Any]:
    return dict(request.param)


def test_both_editions_are_recorded() -> None:
    assert {g["edition"] for g in GAMES} == {"base", "saboteur2"}
    assert all(any(t == "action_played" for t, _ in stored(g)) for g in GAMES)


def test_a_game_stored_with_action_played_replays_as_recorded(game: dict[str, Any]) -> None:
    events = [decode(t, p, game["schema_version"]) for t, p in stored(game)]
    assert digests(events) == game["expected"]


def test_the_achievements_read_the_stored_payloads_as_recorded(game: dict[str, Any]) -> None:
    at = datetime(2026, 1, 1, tzinfo=UTC)
    rows = [
        StoredEvent(n, "g", n, t, game["schema_version"], p, {}, at)
        for n, (t, p) in enumerate(stored(game), start=1)
    ]
    finished = finished_game(rows)
    assert finished is not None
    earned = {
        str(player): list(rules.earned(finished.game, player, rules.Earlier()))
        for player in finished.game.seating
    }
    assert earned == game["expected"]["achievements"]
