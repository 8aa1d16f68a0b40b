"""Games played with a variant are counted apart in /stats (docs/rules.md §8): the plain
games' figures stay what they were, the variant games' have their own."""

from __future__ import annotations

from domain import codec
from infra.db import make_engine
from infra.event_store import EventStore
from infra.history import HistoryProjector
from infra.history_queries import group_figures, history, player_figures
from tests.replay.games import PlayedGame, play
from tests.replay.test_history_figures import store_game

CHAT = -2101


def _figures(game: PlayedGame, player: int) -> tuple[int, int, int]:
    final = game.final
    return 1, int(player in final.winners), final.gold.get(player, 0)


def test_variant_games_are_counted_apart_from_plain_games_and_a_rebuild_agrees(
    fresh_db_url: str,
) -> None:
    plain = play(31, players=4, chat_id=CHAT)
    greedy = play(32, players=4, chat_id=CHAT, variants=("greedy_dwarf", "selfish_dwarf"))
    store = EventStore(make_engine(fresh_db_url), upcasters=codec.UPCASTERS)
    store_game(store, plain.events, day=0)
    projector = HistoryProjector(store.engine, store)
    projector.catch_up()
    only_plain = {p: player_figures(store.engine, p, CHAT) for p in (101, 102, 103, 104)}
    store_game(store, greedy.events, day=1)
    projector.catch_up()

    for player in (101, 102, 103, 104):
        mine = player_figures(store.engine, player, CHAT)
        # The plain game's figures, and its dwarves won with, are as before the variant game.
        assert (mine.games, mine.wins, mine.gold) == _figures(plain, player)
        assert (mine.favourite_roles, mine.role_rounds) == (
            only_plain[player].favourite_roles,
            only_plain[player].role_rounds,
        )
        assert (mine.variant_games, mine.variant_wins, mine.variant_gold) == _figures(
            greedy, player
        )
    group = group_figures(store.engine, CHAT)
    assert (group.games, group.variant_games) == (1, 1)
    assert group.wins == len(plain.final.winners)
    assert group.variant_wins == len(greedy.final.winners)
    # /history lists both, the variant game with its variants.
    assert [e.variants for e in history(store.engine, CHAT)] == [
        ("greedy_dwarf", "selfish_dwarf"),
        (),
    ]

    before = (
        [player_figures(store.engine, p, CHAT) for p in (101, 102, 103, 104)],
        group_figures(store.engine, CHAT),
        history(store.engine, CHAT),
    )
    projector.rebuild()
    after = (
        [player_figures(store.engine, p, CHAT) for p in (101, 102, 103, 104)],
        group_figures(store.engine, CHAT),
        history(store.engine, CHAT),
    )
    assert after == before
