"""Action cards (docs/rules.md §5): targets, effects, and the one-card-of-a-kind rule."""

from __future__ import annotations

from typing import Final

from given import T0, TURN, action_event, dealt, given, ids, then_raises, when

from domain import errors
from domain.cards import Role, Tool
from domain.commands import DiscardToRemove, PlacePath, PlayAction
from domain.events import (
    CardDrawn,
    DecisionOpened,
    Event,
    FrontCardRemoved,
    HatsSwapped,
    RoleInspected,
)
from domain.moves import legal_moves

S2: Final = "saboteur2"
DEADLINE = T0 + TURN * 1000
AGAIN = DecisionOpened(2, 1, "turn", DEADLINE)


def card(kind: str, n: int = 0) -> int:
    return ids(S2, kind)[n]


def setup(
    hand: tuple[int, ...], *front: tuple[int, str, int], roles: dict[int, str] | None = None
) -> list[Event]:
    """Player 1 on turn with ``hand``; each (card, kind, target) already lies in front."""
    extra = tuple(c for c, _, _ in front)
    events: list[Event] = [
        *dealt(S2, players=4, hands={1: hand + extra}, draw_pile=(0, 1), roles=roles)
    ]
    events += [action_event(1, c, kind, target_player=t) for c, kind, t in front]
    if front:
        events.append(AGAIN)
    return events


def test_a_broken_tool_lies_in_front_of_any_player_self_included() -> None:
    pick = card("broken_pickaxe")
    for target in (1, 2):
        events = when(given(setup((pick,))), PlayAction(1, pick, target_player=target), at=T0)
        assert events[0] == action_event(1, pick, "broken_pickaxe", target_player=target)
        assert given(setup((pick,)), events).front_of(target) == ("broken_pickaxe",)


def test_no_player_has_two_cards_of_the_same_kind_in_front() -> None:
    first, second = card("broken_pickaxe", 0), card("broken_pickaxe", 1)
    state = given(setup((second, card("broken_cart")), (first, "broken_pickaxe", 2)))
    then_raises(state, PlayAction(1, second, target_player=2), errors.InvalidTarget)
    assert when(state, PlayAction(1, card("broken_cart"), target_player=2), at=T0)


def test_a_repair_removes_the_matching_broken_tool() -> None:
    broken, repair = card("broken_lantern"), card("repair_lantern")
    events = setup((repair,), (broken, "broken_lantern", 3))
    then_raises(
        given(events),
        PlayAction(1, repair, target_player=2, tool=Tool.LANTERN),
        errors.InvalidTarget,
    )
    played = when(given(events), PlayAction(1, repair, target_player=3, tool=Tool.LANTERN), at=T0)
    after = given(events, played)
    assert after.front_of(3) == () and {broken, repair} <= set(after.discards)


def test_a_double_repair_fixes_the_one_tool_its_player_chooses() -> None:
    pick, cart, repair = card("broken_pickaxe"), card("broken_cart"), card("repair_pickaxe_cart")
    events = setup((repair,), (pick, "broken_pickaxe", 2), (cart, "broken_cart", 2))
    state = given(events)
    then_raises(
        state, PlayAction(1, repair, target_player=2, tool=Tool.LANTERN), errors.InvalidTarget
    )
    then_raises(state, PlayAction(1, repair, target_player=2), errors.InvalidTarget)
    after = given(
        events, when(state, PlayAction(1, repair, target_player=2, tool=Tool.CART), at=T0)
    )
    assert after.front_of(2) == ("broken_pickaxe",)


def test_a_theft_is_played_on_yourself_only_once() -> None:
    theft, other = card("theft", 0), card("theft", 1)
    state = given(setup((theft,)))
    then_raises(state, PlayAction(1, theft, target_player=2), errors.InvalidTarget)
    events = when(state, PlayAction(1, theft, target_player=1), at=T0)
    assert given(setup((theft,)), events).thefts == (1,)
    state = given(setup((other,), (theft, "theft", 1)))
    then_raises(state, PlayAction(1, other, target_player=1), errors.InvalidTarget)


def test_hands_off_removes_a_theft() -> None:
    theft, hands_off = card("theft"), card("hands_off")
    events = setup((hands_off,), (theft, "theft", 1))
    state = given(events)
    then_raises(state, PlayAction(1, hands_off, target_player=2), errors.InvalidTarget)
    after = given(events, when(state, PlayAction(1, hands_off, target_player=1), at=T0))
    assert after.front_of(1) == () and after.thefts == ()


def test_trapped_targets_another_untrapped_player_and_forbids_digging() -> None:
    trap, trap2, path = card("trapped", 0), card("trapped", 1), card("straight_ew")
    state = given(setup((trap,)))
    then_raises(state, PlayAction(1, trap, target_player=1), errors.InvalidTarget)
    trapped = given(setup((trap2,), (trap, "trapped", 2)), DecisionOpened(3, 2, "turn", DEADLINE))
    then_raises(trapped, PlacePath(2, path, (1, 0), False), errors.CardNotInHand)
    trapped = given(
        dealt(S2, players=4, hands={1: (trap,), 2: (path,)}),
        action_event(1, trap, "trapped", target_player=2),
        DecisionOpened(2, 2, "turn", DEADLINE),
    )
    then_raises(trapped, PlacePath(2, path, (1, 0), False), errors.PlayerTrapped)


def test_free_at_last_frees_a_trapped_player_self_included() -> None:
    trap, free = card("trapped"), card("free_at_last")
    events = setup((free,), (trap, "trapped", 1))
    then_raises(given(events), PlayAction(1, free, target_player=2), errors.InvalidTarget)
    after = given(events, when(given(events), PlayAction(1, free, target_player=1), at=T0))
    assert after.front_of(1) == ()


def test_inspection_shows_another_players_dwarf_to_the_actor_alone() -> None:
    look = card("inspection")
    events = setup((look,), roles={2: "boss"})
    then_raises(given(events), PlayAction(1, look, target_player=1), errors.InvalidTarget)
    played = when(given(events), PlayAction(1, look, target_player=2), at=T0)
    assert played[0] == RoleInspected(1, look, 2, "boss")
    assert dict(given(events, played).inspected[1]) == {2: "boss"}


def test_swap_hats_puts_the_dwarf_under_the_pile_and_deals_the_top_one() -> None:
    hats = card("swap_hats")
    events = setup((hats,), roles={3: "profiteer"})
    state = given(events)
    top = state.dwarf_pile[0]
    played = when(state, PlayAction(1, hats, target_player=3), at=T0)
    assert played[0] == HatsSwapped(1, hats, 3, top.value)
    after = given(events, played)
    assert after.roles[3] is top and after.dwarf_pile[-1] is Role.PROFITEER
    assert len(after.dwarf_pile) == len(state.dwarf_pile)


def test_swap_hand_exchanges_hands_then_the_other_draws_and_then_the_actor() -> None:
    swap = card("swap_hand")
    events = [
        *dealt(S2, players=3, hands={1: (swap, 10, 11), 2: (20, 21, 22, 23)}, draw_pile=(0, 1))
    ]
    played = when(given(events), PlayAction(1, swap, target_player=2), at=T0)
    assert played[:3] == [
        action_event(1, swap, "swap_hand", target_player=2),
        CardDrawn(2, 0),
        CardDrawn(1, 1),
    ]
    after = given(events, played)
    assert after.hand(1) == (20, 21, 22, 23, 1) and after.hand(2) == (10, 11, 0)
    then_raises(given(events), PlayAction(1, swap, target_player=1), errors.InvalidTarget)


def test_open_rule_swap_hand_may_target_a_player_with_an_empty_hand() -> None:
    swap = card("swap_hand")
    events = [*dealt(S2, players=3, hands={1: (swap, 10, 11), 2: ()}, draw_pile=(0, 1))]
    move = PlayAction(1, swap, target_player=2)
    assert move in legal_moves(given(events), 1)
    played = when(given(events), PlayAction(1, swap, target_player=2), at=T0)
    assert played[1:3] == [CardDrawn(2, 0), CardDrawn(1, 1)]
    after = given(events, played)
    assert after.hand(1) == (1,) and after.hand(2) == (10, 11, 0)


def test_open_rule_discarding_two_cards_may_remove_your_own_theft() -> None:
    theft = card("theft")
    events = setup((10, 11, 12), (theft, "theft", 1))
    assert DiscardToRemove(1, (10, 11), "theft") in legal_moves(given(events), 1)
    removed = when(given(events), DiscardToRemove(1, (10, 11), "theft"), at=T0)
    assert removed[0] == FrontCardRemoved(1, (10, 11), "theft")
    after = given(events, removed)
    assert after.front_of(1) == () and after.thefts == () and theft in after.discards


def test_a_path_card_cannot_be_played_as_an_action() -> None:
    state = given(setup((card("cross"),)))
    then_raises(state, PlayAction(1, card("cross"), target_player=2), errors.WrongCardType)
