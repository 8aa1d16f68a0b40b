"""Computer players play the base game's variants sensibly (docs/rules.md §8)."""

from __future__ import annotations

from given import T0, action_event, dealt, given, ids

from domain.commands import Command, PlacePath, PlayAction
from domain.events import DecisionOpened, Event, PathPlaced
from domain.strategy import choose_move
from domain.strategy.suspicion import prior

CROSS = ids("base", "cross")
EW = ids("base", "straight_ew")
MAP = ids("base", "map")
DEAD_EW = ids("base", "dead_straight_ew")
T_NSE = ids("base", "t_nse")
BREAK_PICK = ids("base", "broken_pickaxe")
BREAK_CART = ids("base", "broken_cart")
REPAIR_PICK = ids("base", "repair_pickaxe")


def _tunnel(length: int, by: int = 2) -> list[Event]:
    """Cards from the start to (length, 0), laid by player ``by``."""
    cards = [*CROSS[:4], *EW]
    return [PathPlaced(by, cards[x - 1], (x, 0), False) for x in range(1, length + 1)]


def _moves(events: list[Event], seat: int = 1, seeds: int = 3) -> list[Command]:
    state = given(events)
    return [choose_move(state, seat, events, seed) for seed in range(seeds)]


def _greedy_position(length: int, *variants: str) -> list[Event]:
    """Player 1, a gold-digger with a broken pickaxe, holds its repair and a map; the
    tunnel reaches (length, 0)."""
    setup = dealt(
        players=4,
        hands={1: (REPAIR_PICK[0], MAP[0], DEAD_EW[0], BREAK_CART[0])},
        roles={1: "gold_digger"},
        first=1,
        variants=variants,
    )
    broken = action_event(3, BREAK_PICK[0], "broken_pickaxe", target_player=1)
    return [*setup, *_tunnel(length), broken]


def test_a_greedy_gold_digger_mends_its_tool_before_the_treasure_is_reached() -> None:
    mend = PlayAction(1, REPAIR_PICK[0], target_player=1, tool=None)
    near = _greedy_position(5, "greedy_dwarf")
    assert all(
        isinstance(m, PlayAction) and m.card == mend.card and m.target_player == 1
        for m in _moves(near)
    )
    # Without the variant the broken tool costs it no gold: it looks at a goal first.
    assert all(isinstance(m, PlayAction) and m.card == MAP[0] for m in _moves(_greedy_position(5)))
    # Far from the goals the greedy dwarf is in no hurry either.
    far = _greedy_position(2, "greedy_dwarf")
    assert all(isinstance(m, PlayAction) and m.card == MAP[0] for m in _moves(far))


def _selfish_position(length: int, role: str) -> list[Event]:
    """Player 1 (``role``) looked at the treasure at (8, 0) and holds a cross; the tunnel
    reaches (length, 0)."""
    setup = dealt(
        players=4,
        hands={1: (CROSS[4], DEAD_EW[0], BREAK_CART[0], T_NSE[0])},
        roles={1: role},
        first=1,
        variants=("selfish_dwarf",),
    )
    peek = action_event(1, MAP[1], "map", target_cell=(8, 0), result="goal_treasure")
    return [*setup, *_tunnel(length), peek, DecisionOpened(2, 1, "turn", T0)]


def test_the_selfish_dwarf_wants_to_lay_the_last_card_himself() -> None:
    """He leaves no treasure one card away for the others (a gold-digger would), and lays
    the card that reaches it when he can."""
    extend = PlacePath(1, CROSS[4], (6, 0), False)
    assert _moves(_selfish_position(5, "gold_digger")) == [extend] * 3
    assert extend not in _moves(_selfish_position(5, "selfish_dwarf"))
    reach = PlacePath(1, CROSS[4], (7, 0), False)
    assert _moves(_selfish_position(6, "selfish_dwarf")) == [reach] * 3


def test_saboteurs_who_know_each_other_do_not_break_each_others_tools() -> None:
    """Player 2, a saboteur digging to look like a gold-digger, plays next: a saboteur who
    does not know it breaks its tools; one who knows it never does."""
    roles = {1: "saboteur", 2: "saboteur", 3: "gold_digger", 4: "gold_digger", 5: "gold_digger"}

    def position(*variants: str) -> list[Event]:
        hands = {1: (BREAK_PICK[0], BREAK_PICK[1], MAP[0], CROSS[4])}
        setup = dealt(players=5, hands=hands, roles=roles, first=1, variants=variants)
        return [*setup, *_tunnel(5, by=2)]

    def breaks_two(move: Command) -> bool:
        return isinstance(move, PlayAction) and move.target_player == 2

    assert any(breaks_two(m) for m in _moves(position(), seeds=4))
    assert not any(breaks_two(m) for m in _moves(position("saboteurs_know_each_other"), seeds=4))


def test_with_maximum_saboteurs_a_gold_digger_expects_more_saboteurs_around_it() -> None:
    assert prior(4, "base", "gold_digger", ("maximum_saboteurs",)) > prior(4, "base", "gold_digger")
