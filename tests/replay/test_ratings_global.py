"""The global tables (docs/ratings.md): every group's games rated together, and only the
people who chose it with /privacy (nobody by default) named in them, the others counted."""

from __future__ import annotations

from datetime import UTC, datetime

from infra.db import make_engine
from infra.event_store import EventStore
from infra.ratings import (
    ALL_TIME,
    GLOBAL,
    RatingsProjector,
    global_table,
    is_listed,
    set_listed,
    table,
)
from tests.replay.games import play
from tests.replay.test_ratings import oracle, rows, store_game

ONE, OTHER = -3101, -3102
NOW = datetime(2025, 3, 30, tzinfo=UTC)


def test_the_global_tables_rate_every_groups_games_together(fresh_db_url: str) -> None:
    games = [play(90, players=3, chat_id=ONE), play(91, players=3, chat_id=OTHER)]
    store = EventStore(make_engine(fresh_db_url))
    for day, game in enumerate(games):
        store_game(store, game.events, day)
    RatingsProjector(store.engine, store).catch_up()
    everywhere = {k[3]: v[:3] for k, v in rows(store.engine, ALL_TIME).items() if k[0] == GLOBAL}
    assert everywhere == {p: (*r, 2) for p, r in oracle(games).items()}
    alone = {k[3]: v[:3] for k, v in rows(store.engine, ALL_TIME).items() if k[0] == OTHER}
    assert alone == {p: (*r, 1) for p, r in oracle(games[1:]).items()}


def test_only_who_chose_it_is_named_in_a_global_table_and_the_others_are_counted(
    fresh_db_url: str,
) -> None:
    store = EventStore(make_engine(fresh_db_url))
    for day in range(5):
        store_game(store, play(95 + day, players=3, chat_id=ONE + day % 2).events, day)
    RatingsProjector(store.engine, store).catch_up()
    found = global_table(store.engine, ALL_TIME, "base")
    assert (found.named, found.unnamed) == ([], 3)  # nobody by default

    assert not is_listed(store.engine, 102)
    set_listed(store.engine, 102, True, NOW)
    assert is_listed(store.engine, 102)
    found = global_table(store.engine, ALL_TIME, "base")
    ranks = sorted(
        (s for s in table(store.engine, [GLOBAL], ALL_TIME, "base")[0]),
        key=lambda s: (-s.rating, -s.games, s.player_id),
    )
    rank = 1 + [s.player_id for s in ranks].index(102)
    assert [(r, s.player_id) for r, s in found.named] == [(rank, 102)]
    assert found.unnamed == 2

    set_listed(store.engine, 102, False, NOW)
    assert global_table(store.engine, ALL_TIME, "base").named == []
    # A rebuild keeps the choice: it is not part of the read model.
    set_listed(store.engine, 101, True, NOW)
    RatingsProjector(store.engine, store).rebuild()
    assert [s.player_id for _, s in global_table(store.engine, ALL_TIME, "base").named] == [101]
