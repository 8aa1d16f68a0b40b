"""Statistics keep people and computer players apart, and practice games count for nobody."""

from __future__ import annotations

from collections import Counter

import pytest
from sqlalchemy import select

from infra.db import make_engine
from infra.event_store import EventStore
from infra.history import HistoryProjector
from infra.history_queries import computer_figures, group_figures, history, player_figures
from infra.projector import Projector
from infra.schema import player_stats
from tests.replay.games import PlayedGame, play
from tests.replay.test_history_figures import store_game

CHAT = -2051


@pytest.fixture(scope="module")
def mixed() -> PlayedGame:
    """Two people and three computer players, to the end."""
    return play(31, players=2, edition="saboteur2", chat_id=CHAT, computers=3)


@pytest.fixture(scope="module")
def practice() -> PlayedGame:
    return play(32, players=1, edition="base", chat_id=CHAT, computers=3, practice=True)


def test_computer_players_are_counted_apart_from_the_people_they_played_with(
    fresh_db_url: str, mixed: PlayedGame
) -> None:
    store = EventStore(make_engine(fresh_db_url))
    store_game(store, mixed.events, day=0)
    HistoryProjector(store.engine, store).catch_up()
    final = mixed.final
    people = final.humans()
    computers = sorted(final.computers)
    assert len(people) == 2 and len(computers) == 3

    for player in people:
        figures = player_figures(store.engine, player, CHAT)
        assert (figures.games, figures.wins, figures.gold) == (
            1,
            int(player in final.winners),
            final.gold[player],
        )
    for player in computers:
        assert player_figures(store.engine, player).games == 0
    rounds_won = Counter(p for r in final.round_results for p in r.winners)
    assert computer_figures(store.engine, CHAT) == (
        computer_figures(store.engine, CHAT).__class__(
            CHAT,
            seats=3,
            wins=sum(1 for p in final.winners if p in final.computers),
            rounds_won=sum(rounds_won[p] for p in computers),
            gold=sum(final.gold[p] for p in computers),
        )
    )
    group = group_figures(store.engine, CHAT)
    assert group.games == 1
    assert group.gold == sum(final.gold[p] for p in people)
    (entry,) = history(store.engine, CHAT)
    assert entry.players == tuple(final.names[p] for p in final.seating)


def test_a_practice_game_is_listed_but_counts_for_nobody(
    fresh_db_url: str, practice: PlayedGame
) -> None:
    store = EventStore(make_engine(fresh_db_url))
    game_id = store_game(store, practice.events, day=0)
    HistoryProjector(store.engine, store).catch_up()
    (person,) = practice.final.humans()
    assert [e.game_id for e in history(store.engine, CHAT)] == [game_id]
    assert player_figures(store.engine, person).games == 0
    assert computer_figures(store.engine, CHAT).seats == 0


def test_the_players_read_model_counts_people_only_and_no_practice_game(
    fresh_db_url: str, mixed: PlayedGame, practice: PlayedGame
) -> None:
    store = EventStore(make_engine(fresh_db_url))
    store_game(store, mixed.events, day=0)
    store_game(store, practice.events, day=1)
    Projector(store.engine, store).catch_up()
    with store.engine.connect() as conn:
        counted = {row.player_id: row.games for row in conn.execute(select(player_stats))}
    assert counted == {p: 1 for p in mixed.final.humans()}
