"""Games stored before the finer action events (their action cards as ``action_played``)
still load, and replay as they did when they were recorded: the same states and views
after every event, the same narration to every reader in every language, the same replay
captions, the same memory for the computer players, the same achievements."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from domain import achievements as rules
from domain.codec import decode, encode
from domain.evolve import fold
from domain.simulate import play_one
from infra.achievements import finished_game
from infra.bootstrap import domain_modules, event_store
from infra.db import make_engine
from infra.event_store import NewEvent, StoredEvent
from infra.game_service import GameService
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


def test_the_event_store_keeps_the_old_payloads_and_the_game_service_reads_them(
    game: dict[str, Any], sqlite_url: str
) -> None:
    store = event_store(make_engine(sqlite_url))
    stream = f"legacy-{game['edition']}"
    rows = [NewEvent(t, p, game["schema_version"]) for t, p in stored(game)]
    store.append(stream, 0, rows)
    loaded = store.load(stream)
    assert [(e.type, dict(e.payload)) for e in loaded] == list(stored(game))  # never rewritten
    service = GameService(store, *domain_modules())
    events = service.events(stream, 0)
    assert events == [decode(t, p, game["schema_version"]) for t, p in stored(game)]
    assert service.load(stream).state == fold(events)


def test_the_same_game_played_today_records_the_finer_events_and_tells_the_same(
    game: dict[str, Any],
) -> None:
    events, violations, _ = play_one(game["edition"], game["players"], game["seed"])
    assert not violations
    assert [decode(*encode(e)) for e in events] == events
    assert "action_played" not in {encode(e)[0] for e in events}
    assert events == [decode(t, p, game["schema_version"]) for t, p in stored(game)]
