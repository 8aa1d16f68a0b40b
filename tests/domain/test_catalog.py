"""The card catalog holds every count of docs/rules.md §2, card by card."""

from __future__ import annotations

from collections import Counter

import pytest

from domain.cards import (
    BASE_DWARVES,
    EDITIONS,
    EXPANSION_DWARVES,
    GOALS,
    PATHS,
    PLAYER_LIMITS,
    START,
    Action,
    Door,
    Edition,
    Role,
    deck,
    dwarf_cards,
    hand_size,
    nugget_cards,
)

SIDE_BITS = {"N": 1, "E": 2, "S": 4, "W": 8}


def segments(text: str) -> set[int]:
    """``"NS,E"`` -> the masks of the segments N–S and E."""
    return {sum(SIDE_BITS[side] for side in part) for part in text.split(",")}


# docs/rules.md §2.1: kind -> (segments as printed, copies)
BASE_PATH_TABLE = {
    "cross": ("NESW", 5),
    "t_nse": ("NES", 5),
    "t_esw": ("ESW", 5),
    "straight_ns": ("NS", 4),
    "straight_ew": ("EW", 3),
    "curve_se": ("ES", 4),
    "curve_sw": ("SW", 5),
    "dead_cross": ("N,E,S,W", 1),
    "dead_t_nse": ("N,E,S", 1),
    "dead_t_esw": ("E,S,W", 1),
    "dead_straight_ns": ("N,S", 1),
    "dead_straight_ew": ("E,W", 1),
    "dead_curve_se": ("E,S", 1),
    "dead_curve_sw": ("S,W", 1),
    "dead_stub_n": ("N", 1),
    "dead_stub_e": ("E", 1),
}

# docs/rules.md §2.4: kind -> (segments, copies, ladder, door on the first listed segment, crystals)
EXPANSION_PATH_TABLE = {
    "bridge": ("NS,EW", 2, False, None, 0),
    "double_curve_a": ("NW,ES", 1, False, None, 0),
    "double_curve_b": ("NE,SW", 1, False, None, 0),
    "ladder_stub_n": ("N", 1, True, None, 0),
    "ladder_stub_w": ("W", 1, True, None, 0),
    "ladder_curve_wn": ("NW", 1, True, None, 0),
    "ladder_curve_ws": ("SW", 1, True, None, 0),
    "blue_door_ns": ("NS", 1, False, Door.BLUE, 0),
    "blue_door_ew": ("EW", 1, False, Door.BLUE, 0),
    "blue_door_ws": ("SW", 1, False, Door.BLUE, 0),
    "green_door_ns_w": ("NS,W", 1, False, Door.GREEN, 0),
    "green_door_ew": ("EW", 1, False, Door.GREEN, 0),
    "green_door_wn": ("NW", 1, False, Door.GREEN, 0),
    "crystal_cross": ("NESW", 1, False, None, 1),
    "crystal_t_wne": ("NEW", 3, False, None, 1),
    "crystal_t_nes": ("NES", 1, False, None, 1),
    "crystal_t_nes_w": ("NES,W", 1, False, None, 1),
    "crystal_t_wne_s": ("NEW,S", 1, False, None, 1),
    "crystal_straight_ew_n": ("EW,N", 1, False, None, 1),
    "crystal_stub_n": ("N", 1, False, None, 1),
    "crystal_stub_w": ("W", 1, False, None, 1),
    "straight_ns_e": ("NS,E", 1, False, None, 0),
    "straight_ns_we": ("NS,W,E", 1, False, None, 0),
    "straight_ew_ns": ("EW,N,S", 1, False, None, 0),
    "curve_es_n": ("ES,N", 2, False, None, 0),
    "curve_sw_n": ("SW,N", 1, False, None, 0),
}

BASE_ACTION_TABLE = {
    Action.BROKEN_PICKAXE: 3,
    Action.BROKEN_LANTERN: 3,
    Action.BROKEN_CART: 3,
    Action.REPAIR_PICKAXE: 2,
    Action.REPAIR_LANTERN: 2,
    Action.REPAIR_CART: 2,
    Action.REPAIR_PICKAXE_LANTERN: 1,
    Action.REPAIR_PICKAXE_CART: 1,
    Action.REPAIR_CART_LANTERN: 1,
    Action.ROCKFALL: 3,
    Action.MAP: 6,
}

EXPANSION_ACTION_TABLE = {
    Action.THEFT: 4,
    Action.HANDS_OFF: 3,
    Action.SWAP_HAND: 2,
    Action.INSPECTION: 2,
    Action.SWAP_HATS: 2,
    Action.TRAPPED: 3,
    Action.FREE_AT_LAST: 4,
    Action.ROCKFALL: 1,
}

# docs/rules.md §2.3: players -> (saboteurs, gold-diggers, hand size)
PER_PLAYERS = {
    3: (1, 3, 6),
    4: (1, 4, 6),
    5: (2, 4, 6),
    6: (2, 5, 5),
    7: (3, 5, 5),
    8: (3, 6, 4),
    9: (3, 7, 4),
    10: (4, 7, 4),
}


def path_counts(edition: Edition) -> Counter[str]:
    return Counter(c.kind for c in deck(edition) if c.path)


def action_counts(edition: Edition) -> Counter[Action]:
    return Counter(c.action for c in deck(edition) if c.action is not None)


def test_a_card_id_is_its_index_in_the_deck() -> None:
    for edition in EDITIONS:
        chosen = deck(edition)
        assert [c.id for c in chosen] == list(range(len(chosen)))


def test_the_base_game_has_44_path_cards_counting_the_start_and_three_goals() -> None:
    in_deck = path_counts("base")

    assert sum(in_deck.values()) == 40
    assert sum(in_deck.values()) + 1 + len(GOALS) == 44
    assert {kind: copies for kind, (_, copies) in BASE_PATH_TABLE.items()} == dict(in_deck)


def test_every_base_path_card_has_the_printed_segments() -> None:
    for kind, (printed, _) in BASE_PATH_TABLE.items():
        spec = PATHS[kind]
        assert set(spec.segments) == segments(printed), kind
        assert len(spec.segments) == len(printed.split(",")), kind
        assert not spec.ladder and spec.door is None and spec.crystals == 0, kind


def test_dead_ends_have_one_segment_per_opening() -> None:
    dead = {kind for kind in BASE_PATH_TABLE if kind.startswith("dead_")}

    assert {k for k in dead if PATHS[k].is_dead_end} == dead - {"dead_stub_n", "dead_stub_e"}
    assert all(len(PATHS[k].segments) == bin(PATHS[k].openings).count("1") for k in dead)


def test_the_start_is_a_cross_with_a_ladder_and_the_goals_are_a_cross_and_two_curves() -> None:
    assert START.segments == (15,) and START.ladder
    assert [(g.kind, set(g.segments)) for g in GOALS] == [
        ("goal_treasure", segments("NESW")),
        ("goal_stone_a", segments("SW")),
        ("goal_stone_b", segments("NW")),
    ]


def test_the_base_game_has_27_action_cards_of_the_listed_kinds() -> None:
    in_deck = action_counts("base")

    assert sum(in_deck.values()) == 27
    assert dict(in_deck) == BASE_ACTION_TABLE


def test_the_base_deck_is_40_path_and_27_action_cards() -> None:
    assert len(deck("base")) == 67


def test_base_dwarves_are_seven_gold_diggers_and_four_saboteurs() -> None:
    assert Counter(dwarf_cards("base", 10)) == {Role.GOLD_DIGGER: 7, Role.SABOTEUR: 4}


@pytest.mark.parametrize(("players", "row"), sorted(PER_PLAYERS.items()))
def test_base_dwarves_and_hand_size_follow_the_table(
    players: int, row: tuple[int, int, int]
) -> None:
    saboteurs, diggers, hand = row
    dealt = Counter(dwarf_cards("base", players))

    assert dealt == {Role.SABOTEUR: saboteurs, Role.GOLD_DIGGER: diggers}
    assert saboteurs + diggers == players + 1
    assert hand_size("base", players) == hand


def test_the_table_covers_exactly_three_to_ten_players() -> None:
    assert sorted(BASE_DWARVES) == list(range(3, 11))
    assert PLAYER_LIMITS == {"base": (3, 10), "saboteur2": (2, 12)}


def test_there_are_28_gold_nuggets_worth_44() -> None:
    nuggets = nugget_cards()

    assert Counter(nuggets) == {1: 16, 2: 8, 3: 4}
    assert (len(nuggets), sum(nuggets)) == (28, 44)


def test_saboteur_2_adds_30_path_cards_with_the_printed_shapes() -> None:
    added = path_counts("saboteur2") - path_counts("base")

    assert sum(added.values()) == 30
    assert {kind: row[1] for kind, row in EXPANSION_PATH_TABLE.items()} == dict(added)
    for kind, (printed, _, ladder, door, gems) in EXPANSION_PATH_TABLE.items():
        spec = PATHS[kind]
        assert set(spec.segments) == segments(printed), kind
        assert len(spec.segments) == len(printed.split(",")), kind
        assert (spec.ladder, spec.door, spec.crystals) == (ladder, door, gems), kind
        if door is not None:
            first = printed.split(",")[0]
            assert spec.segments[spec.door_segment] == segments(first).pop(), kind


def test_saboteur_2_has_four_ladders_and_three_doors_of_each_colour() -> None:
    added = [c.path for c in deck("saboteur2") if c.path]  # the base deck has none of them

    assert sum(p.ladder for p in added) == 4
    assert Counter(p.door for p in added if p.door) == {Door.BLUE: 3, Door.GREEN: 3}


def test_saboteur_2_has_ten_crystals() -> None:
    assert sum(c.path.crystals for c in deck("saboteur2") if c.path) == 10


def test_saboteur_2_adds_21_action_cards_including_a_rockfall() -> None:
    added = action_counts("saboteur2") - action_counts("base")

    assert sum(added.values()) == 21
    assert dict(added) == EXPANSION_ACTION_TABLE


def test_the_saboteur_2_deck_is_118_cards() -> None:
    assert len(deck("saboteur2")) == 40 + 27 + 30 + 21 == 118


def test_saboteur_2_has_15_dwarf_cards() -> None:
    expected = {
        Role.BLUE_DIGGER: 4,
        Role.GREEN_DIGGER: 4,
        Role.BOSS: 1,
        Role.PROFITEER: 1,
        Role.GEOLOGIST: 2,
        Role.SABOTEUR: 3,
    }

    assert dict(EXPANSION_DWARVES) == expected
    for players in range(2, 13):
        assert Counter(dwarf_cards("saboteur2", players)) == expected
        assert hand_size("saboteur2", players) == 6
