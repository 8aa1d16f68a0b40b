"""Ratings equal openskill's own computation over each game's rounds and final gold, a
rebuild equals the live tables, seasons start from the prior, and computers, practice,
imported games and variants are treated as docs/ratings.md says."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from openskill.models import PlackettLuce
from sqlalchemy import Engine, select

from domain import codec
from domain import events as ev
from infra.archive import export_game, import_game
from infra.db import make_engine
from infra.event_store import EventStore, NewEvent
from infra.ratings import (
    ALL_TIME,
    RatingsProjector,
    game_changes,
    player_ratings,
    rating_changes,
    rating_key,
    shown,
    table,
)
from tests.replay.games import PlayedGame, play

CHAT = -3001
START = datetime(2025, 3, 1, tzinfo=UTC)  # day 31 is in the next quarter


def store_game(
    store: EventStore, events: Sequence[ev.Event], day: int, **extra_created: Any
) -> str:
    """Append a game dated ``day`` days after START (``extra_created``: fields added to
    its creation event's payload)."""
    game_id = "r" + uuid.uuid4().hex[:11]
    writer = EventStore(store.engine, clock=lambda: START + timedelta(days=day))
    batch = []
    for event in events:
        stored = NewEvent(*codec.encode(event))
        if isinstance(event, ev.GameCreated) and extra_created:
            stored = NewEvent(stored.type, {**stored.payload, **extra_created})
        batch.append(stored)
    writer.append(game_id, 0, batch)
    return game_id


def oracle_matches(game: PlayedGame) -> list[tuple[list[list[int]], list[int]]]:
    """Each round's sides (the winners' and paid ones first) and the final gold ranking,
    built from the domain events."""
    final = game.final
    matches: list[tuple[list[list[int]], list[int]]] = []
    rounds: list[tuple[ev.RoundEnded, set[int]]] = []
    for event in game.events:
        if isinstance(event, ev.RoundEnded):
            rounds.append((event, set(event.winners)))
        elif isinstance(event, ev.GoldPaid) and rounds:
            rounds[-1][1].update(p for p, amount in event.payouts if amount > 0)
        elif isinstance(event, ev.GoldPicked) and rounds:
            rounds[-1][1].add(event.player)
    for ended, ahead in rounds:
        sides: dict[str, list[int]] = {}
        for player, role in ended.roles:
            alone = role in ("boss", "profiteer", "geologist")
            sides.setdefault(f"{role}{player}" if alone else role, []).append(player)
        teams = list(sides.values())
        ranks = [1 if ahead & set(team) else 2 for team in teams]
        if len(set(ranks)) == 2:
            matches.append((teams, ranks))
    gold = [(p, final.gold[p]) for p in final.seating]
    matches.append(([[p] for p, _ in gold], [1 + sum(o > g for _, o in gold) for _, g in gold]))
    return matches


def oracle(games: Sequence[PlayedGame]) -> dict[int, tuple[float, float]]:
    """openskill's ratings after the games' matches, played in order (keyed by seat id:
    no computers here)."""
    model = PlackettLuce()
    ratings = {p: model.rating() for g in games for p in g.final.seating}
    for game in games:
        for teams, ranks in oracle_matches(game):
            rated = model.rate([[ratings[p] for p in team] for team in teams], ranks=ranks)
            for team, after in zip(teams, rated, strict=True):
                for player, rating in zip(team, after, strict=True):
                    ratings[player] = rating
    return {p: (r.mu, r.sigma) for p, r in ratings.items()}


def rows(engine: Engine, season: str | None = None) -> dict[tuple[Any, ...], tuple[Any, ...]]:
    with engine.connect() as conn:
        found = conn.execute(select(player_ratings)).mappings().all()
    return {
        (r["chat_id"], r["season"], r["edition"], r["player_id"]): (
            r["mu"],
            r["sigma"],
            r["games"],
            r["last_change"],
            r["name"],
            r["computer"],
        )
        for r in found
        if season is None or r["season"] == season
    }


@pytest.fixture(scope="module")
def three() -> list[PlayedGame]:
    """Three games at one table of four, then one at a table of five (one newcomer)."""
    return [
        play(41, players=4, edition="base", chat_id=CHAT),
        play(42, players=4, edition="base", chat_id=CHAT),
        play(43, players=5, edition="base", chat_id=CHAT),
    ]


@pytest.fixture(scope="module")
def saboteur2() -> PlayedGame:
    return play(44, players=7, edition="saboteur2", chat_id=CHAT)


def test_the_ratings_equal_openskills_own_computation_over_the_same_matches(
    fresh_db_url: str, three: list[PlayedGame]
) -> None:
    store = EventStore(make_engine(fresh_db_url))
    for day, game in enumerate(three):
        store_game(store, game.events, day)
    RatingsProjector(store.engine, store).catch_up()
    expected = oracle(three)
    found = rows(store.engine, ALL_TIME)
    assert {k[3]: v[:2] for k, v in found.items()} == expected
    assert {k[3]: v[2] for k, v in found.items()} == {
        p: sum(p in g.final.seating for g in three) for p in expected
    }


def test_saboteur2_rates_its_teams_and_paid_roles_as_openskill_does(
    fresh_db_url: str, saboteur2: PlayedGame
) -> None:
    store = EventStore(make_engine(fresh_db_url))
    store_game(store, saboteur2.events, 0)
    RatingsProjector(store.engine, store).catch_up()
    found = {k[3]: v[:2] for k, v in rows(store.engine, ALL_TIME).items()}
    assert found == oracle([saboteur2])


def test_a_rebuild_gives_the_live_ratings_and_changes(
    fresh_db_url: str, three: list[PlayedGame], saboteur2: PlayedGame
) -> None:
    store = EventStore(make_engine(fresh_db_url))
    projector = RatingsProjector(store.engine, store)
    ids = []
    for day, game in enumerate([*three, saboteur2]):
        ids.append(store_game(store, game.events, day * 20))
        projector.catch_up()  # live: one game at a time
    live = rows(store.engine)
    changes = [game_changes(store.engine, g) for g in ids]
    projector.rebuild()
    assert rows(store.engine) == live
    assert [game_changes(store.engine, g) for g in ids] == changes
    assert all(changes)


def test_old_games_are_rated_the_first_time_the_projector_runs(
    fresh_db_url: str, three: list[PlayedGame]
) -> None:
    store = EventStore(make_engine(fresh_db_url))
    for day, game in enumerate(three):
        store_game(store, game.events, day)
    RatingsProjector(store.engine, store).catch_up()
    assert {k[3]: v[:2] for k, v in rows(store.engine, ALL_TIME).items()} == oracle(three)


def test_a_new_season_starts_everyone_from_the_prior_and_keeps_the_last_seasons_table(
    fresh_db_url: str, three: list[PlayedGame]
) -> None:
    store = EventStore(make_engine(fresh_db_url))
    store_game(store, three[0].events, day=30)  # 2025-03-31: the first quarter
    store_game(store, three[1].events, day=31)  # 2025-04-01: the second
    RatingsProjector(store.engine, store).catch_up()
    first = {k[3]: v[:3] for k, v in rows(store.engine, "2025Q1").items()}
    second = {k[3]: v[:3] for k, v in rows(store.engine, "2025Q2").items()}
    every = {k[3]: v[:3] for k, v in rows(store.engine, ALL_TIME).items()}
    assert first == {p: (*r, 1) for p, r in oracle([three[0]]).items()}
    assert second == {p: (*r, 1) for p, r in oracle([three[1]]).items()}
    assert every == {p: (*r, 2) for p, r in oracle(three[:2]).items()}


def test_the_game_changes_are_the_season_ratings_shown_before_and_after(
    fresh_db_url: str, three: list[PlayedGame]
) -> None:
    store = EventStore(make_engine(fresh_db_url))
    first = store_game(store, three[0].events, 0)
    second = store_game(store, three[1].events, 1)
    RatingsProjector(store.engine, store).catch_up()
    after_one = oracle(three[:1])
    after_two = oracle(three[:2])
    changes = game_changes(store.engine, second)
    assert [c.player_id for c in changes] == list(three[1].final.seating)
    for change in changes:
        assert change.before == shown(*after_one[change.player_id])
        assert change.after == shown(*after_two[change.player_id])
    assert {c.before for c in game_changes(store.engine, first)} == {shown(25.0, 25.0 / 3)}


def test_computer_players_are_rated_by_their_names_and_shown_apart(fresh_db_url: str) -> None:
    games = [play(50 + i, players=2, edition="base", chat_id=CHAT, computers=2) for i in range(5)]
    store = EventStore(make_engine(fresh_db_url))
    for day, game in enumerate(games):
        store_game(store, game.events, day)
    RatingsProjector(store.engine, store).catch_up()
    found = rows(store.engine, ALL_TIME)
    computers = {k[3]: v for k, v in found.items() if v[5]}
    names = {
        rating_key(p, g.final.names[p], True): g.final.names[p]
        for g in games
        for p in g.final.computers
    }
    assert {k: v[4] for k, v in computers.items()} == names
    assert all(key < 0 for key in computers)
    assert sum(v[2] for v in computers.values()) == 10  # two seats a game
    people, shown_computers = table(store.engine, [CHAT], ALL_TIME, "base")
    assert {s.player_id for s in people} == set(games[0].final.humans())
    assert all(s.computer for s in shown_computers)
    assert {s.player_id for s in shown_computers} == {k for k, v in computers.items() if v[2] >= 5}


def at_level(events: Sequence[ev.Event], level: str, for_all: bool = False) -> list[ev.Event]:
    """A game's events with its computer players seated at ``level`` (``for_all``: seated
    at normal, then the lobby's level for them all set to it)."""
    changed: list[ev.Event] = []
    for event in events:
        if isinstance(event, ev.ComputerPlayerAdded):
            if for_all:
                changed += [event, ev.ComputerLevelSet(level)]
                continue
            event = replace(event, level=level)
        changed.append(event)
    return changed


def test_a_computer_player_is_rated_apart_at_each_level_and_shown_with_it(
    fresh_db_url: str,
) -> None:
    """The same computer player ("🤖 Greta") in the same games, at normal and at hard:
    two ratings, each of five games, and a rebuild gives the same."""
    game = play(90, players=2, edition="base", chat_id=CHAT, computers=1)
    store = EventStore(make_engine(fresh_db_url))
    for day in range(5):
        store_game(store, game.events, day)
        store_game(store, at_level(game.events, "hard", for_all=day % 2 == 1), day)
    projector = RatingsProjector(store.engine, store)
    projector.catch_up()
    _, computers = table(store.engine, [CHAT], ALL_TIME, "base")
    (name,) = {game.final.names[p] for p in game.final.computers}
    assert sorted((c.name, c.level, c.games) for c in computers) == [
        (name, "hard", 5),
        (name, "normal", 5),
    ]
    assert len({c.player_id for c in computers}) == 2
    live = rows(store.engine)
    projector.rebuild()
    assert rows(store.engine) == live


def test_practice_imported_and_variant_games_are_not_rated(fresh_db_url: str) -> None:
    store = EventStore(make_engine(fresh_db_url))
    practice = play(60, players=1, edition="base", chat_id=CHAT, computers=3, practice=True)
    store_game(store, practice.events, 0)
    store_game(store, play(61, players=3, chat_id=CHAT).events, 1, variants=["selfish_dwarf"])
    played = store_game(store, play(62, players=3, chat_id=CHAT).events, 2)
    projector = RatingsProjector(store.engine, store)
    projector.catch_up()
    rated_once = rows(store.engine)
    assert {k[3] for k in rated_once} == {101, 102, 103}
    assert {v[2] for v in rated_once.values()} == {1}
    import_game(store, list(export_game(store, played)))
    projector.catch_up()
    assert rows(store.engine) == rated_once
    with store.engine.connect() as conn:
        rated = set(conn.execute(select(rating_changes.c.stream_id).distinct()).scalars())
    assert rated == {played}


def test_a_variant_game_stays_unrated_when_a_later_settings_change_leaves_its_variants(
    fresh_db_url: str,
) -> None:
    """The creation event switches a variant on; a timer change in the lobby records no
    variants (None: unchanged), which must not switch them off for the projector."""
    store = EventStore(make_engine(fresh_db_url))
    played = play(64, players=3, chat_id=CHAT, variants=("greedy_dwarf",)).events
    timer = ev.SettingsChanged("base", 90)
    assert codec.encode(timer)[1]["variants"] is None
    store_game(store, [played[0], timer, *played[1:]], 0)
    RatingsProjector(store.engine, store).catch_up()
    assert rows(store.engine) == {}


def test_nobody_is_ranked_before_five_rated_games(fresh_db_url: str) -> None:
    store = EventStore(make_engine(fresh_db_url))
    games = [play(70 + i, players=3, chat_id=CHAT) for i in range(5)]
    for day, game in enumerate(games[:4]):
        store_game(store, game.events, day)
    projector = RatingsProjector(store.engine, store)
    projector.catch_up()
    assert table(store.engine, [CHAT], ALL_TIME, "base") == ([], [])
    store_game(store, games[4].events, 4)
    projector.catch_up()
    people, _ = table(store.engine, [CHAT], ALL_TIME, "base")
    assert sorted(s.player_id for s in people) == [101, 102, 103]
    assert [s.rating for s in people] == sorted((s.rating for s in people), reverse=True)
    assert all(s.games == 5 for s in people)
