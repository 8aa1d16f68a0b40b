"""The achievements read model: each person gets what the rules say the game earned them,
once; a rebuild awards the same set; computers and practice games earn nothing."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine, select

from domain import achievements as rules
from infra.achievements import (
    READ_TYPES,
    AchievementsProjector,
    achievement_players,
    finished_game,
    game_awards,
    player_achievements,
    shares,
)
from infra.db import make_engine
from infra.event_store import EventStore
from tests.replay.games import PlayedGame, play
from tests.replay.test_ratings import store_game

CHAT = -3101


def held(engine: Engine) -> set[tuple[Any, ...]]:
    with engine.connect() as conn:
        return {tuple(r) for r in conn.execute(select(player_achievements))}


def expected(games: list[PlayedGame]) -> dict[int, dict[str, int]]:
    """Per person, each achievement and the index of the game that first earned it."""
    found: dict[int, dict[str, int]] = {}
    results: dict[int, rules.Earlier] = {}
    for index, played in enumerate(games):
        game = rules.game_of(played.events)
        assert game is not None
        for player in played.final.humans():
            earlier = results.get(player, rules.Earlier())
            for name in rules.earned(game, player, earlier):
                found.setdefault(player, {}).setdefault(name, index)
            results[player] = rules.Earlier(
                earlier.games + 1, earlier.wins + (player in game.winners)
            )
    return found


def test_each_person_gets_what_the_games_earned_them_once_and_a_rebuild_awards_the_same(
    fresh_db_url: str,
) -> None:
    games = [play(95 + i, players=4, edition="saboteur2", chat_id=CHAT) for i in range(3)]
    store = EventStore(make_engine(fresh_db_url))
    projector = AchievementsProjector(store.engine, store)
    ids = []
    for day, game in enumerate(games):
        ids.append(store_game(store, game.events, day))
        projector.catch_up()
    want = expected(games)
    got: dict[int, dict[str, int]] = {}
    for row in held(store.engine):
        player, name, stream_id = row[0], row[1], row[2]
        got.setdefault(player, {})[name] = ids.index(stream_id)
    assert got == want
    assert all("first_game" in names for names in got.values())
    live = held(store.engine)
    projector.rebuild()
    assert held(store.engine) == live
    first = [a.achievement for a in game_awards(store.engine, ids[0]) if a.player_id == 101]
    assert first[0] == "first_game"
    assert shares(store.engine)["first_game"] == 1.0


def test_computer_players_and_practice_games_earn_nothing(fresh_db_url: str) -> None:
    store = EventStore(make_engine(fresh_db_url))
    mixed = play(97, players=2, edition="base", chat_id=CHAT, computers=2)
    practice = play(98, players=1, edition="base", chat_id=CHAT, computers=3, practice=True)
    store_game(store, mixed.events, 0)
    store_game(store, practice.events, 1)
    AchievementsProjector(store.engine, store).catch_up()
    assert {row[0] for row in held(store.engine)} == set(mixed.final.humans())
    with store.engine.connect() as conn:
        counted = {r.player_id: r.games for r in conn.execute(select(achievement_players))}
    assert counted == {p: 1 for p in mixed.final.humans()}


def test_a_stored_game_is_read_as_the_rules_read_its_events(fresh_db_url: str) -> None:
    store = EventStore(make_engine(fresh_db_url))
    for seed, edition in ((99, "base"), (100, "saboteur2")):
        played = play(seed, players=5, edition=edition, chat_id=CHAT, computers=1)
        game_id = store_game(store, played.events, 0)
        finished = finished_game(store.load(game_id, types=READ_TYPES))
        assert finished is not None
        assert finished.game == rules.game_of(played.events)
        assert [p for p, _ in finished.people] == list(played.final.humans())
