"""A turn (docs/rules.md §3.2), placing path cards (§4.1) and reaching goals (§4.3)."""

from __future__ import annotations

from typing import Final

from given import T0, TURN, action_event, dealt, given, ids, then_raises, when

from domain import errors
from domain.board import GOAL_CELLS
from domain.commands import DiscardToRemove, Pass, PlacePath, PlayAction
from domain.events import (
    CardDrawn,
    CardsDiscarded,
    DecisionOpened,
    FrontCardRemoved,
    GoalRevealed,
    MapLooked,
    PathPlaced,
    RoundEnded,
)

CROSS = ids("base", "cross")
EW = ids("base", "straight_ew")
NS = ids("base", "straight_ns")
T_ESW = ids("base", "t_esw")
MAP = ids("base", "map")
ROCKFALL = ids("base", "rockfall")
BROKEN_PICKAXE = ids("base", "broken_pickaxe")
DEADLINE = T0 + TURN * 1000
AGAIN = DecisionOpened(2, 1, "turn", DEADLINE)  # player 1 on turn again after a set-up


def test_placing_a_path_card_draws_one_and_passes_the_turn_left() -> None:
    state = given(dealt(hands={1: (EW[0], NS[0])}, draw_pile=(50, 51)))
    events = when(state, PlacePath(1, EW[0], (1, 0), False), at=T0)
    assert events == [
        PathPlaced(1, EW[0], (1, 0), False),
        CardDrawn(1, 50),
        DecisionOpened(2, 2, "turn", DEADLINE),
    ]
    after = given(dealt(hands={1: (EW[0], NS[0])}, draw_pile=(50, 51)), events)
    assert after.hand(1) == (NS[0], 50) and after.board[(1, 0)].card == EW[0]


def test_a_card_that_does_not_fit_is_refused_with_the_boards_reason() -> None:
    state = given(dealt(hands={1: (NS[0],)}))
    error = then_raises(state, PlacePath(1, NS[0], (1, 0), False), errors.IllegalPlacement)
    assert isinstance(error, errors.IllegalPlacement) and error.reason == "does_not_fit"


def test_a_card_away_from_the_maze_is_refused() -> None:
    state = given(dealt(hands={1: (EW[0],)}))
    error = then_raises(state, PlacePath(1, EW[0], (4, 4), False), errors.IllegalPlacement)
    assert isinstance(error, errors.IllegalPlacement) and error.reason == "not_adjacent"


def test_broken_tool_forbids_placing_path_cards() -> None:
    state = given(
        dealt(hands={1: (BROKEN_PICKAXE[0], EW[1]), 2: (EW[0],)}),
        action_event(1, BROKEN_PICKAXE[0], "broken_pickaxe", target_player=2),
        DecisionOpened(2, 2, "turn", DEADLINE),
    )
    then_raises(state, PlacePath(2, EW[0], (1, 0), False), errors.ToolsBroken)


def test_playing_out_of_turn_is_refused() -> None:
    then_raises(
        given(dealt(hands={2: (EW[0],)})), PlacePath(2, EW[0], (1, 0), False), errors.NotYourTurn
    )


def test_a_card_not_in_hand_is_refused() -> None:
    then_raises(
        given(dealt(hands={1: (EW[0],)})), PlacePath(1, EW[1], (1, 0), False), errors.CardNotInHand
    )


def test_a_stranger_is_not_a_player() -> None:
    then_raises(given(dealt()), Pass(99, (1,)), errors.NotAPlayer)


def test_an_action_card_cannot_be_placed_as_a_path() -> None:
    state = given(dealt(hands={1: (MAP[0],)}))
    then_raises(state, PlacePath(1, MAP[0], (1, 0), False), errors.WrongCardType)


def test_base_pass_discards_exactly_one_card_and_draws_one() -> None:
    state = given(dealt(hands={1: (EW[0], NS[0])}, draw_pile=(50,)))
    then_raises(state, Pass(1, (EW[0], NS[0])), errors.InvalidPass)
    assert when(state, Pass(1, (NS[0],)), at=T0) == [
        CardsDiscarded(1, (NS[0],)),
        CardDrawn(1, 50),
        DecisionOpened(2, 2, "turn", DEADLINE),
    ]


def test_saboteur2_pass_discards_up_to_three_and_draws_as_many() -> None:
    hand = (0, 1, 2, 3)
    state = given(dealt("saboteur2", hands={1: hand}, draw_pile=(60, 61, 62, 63)))
    then_raises(state, Pass(1, (0, 1, 2, 3)), errors.InvalidPass)
    then_raises(state, Pass(1, (2, 1)), errors.InvalidPass)  # listed in increasing order
    events = when(state, Pass(1, (0, 1, 2)), at=T0)
    assert events[:4] == [
        CardsDiscarded(1, (0, 1, 2)),
        CardDrawn(1, 60),
        CardDrawn(1, 61),
        CardDrawn(1, 62),
    ]


def test_no_card_is_drawn_from_an_empty_pile() -> None:
    state = given(dealt(hands={1: (EW[0], NS[0])}, draw_pile=()))
    assert when(state, Pass(1, (NS[0],)), at=T0) == [
        CardsDiscarded(1, (NS[0],)),
        DecisionOpened(2, 2, "turn", DEADLINE),
    ]


def test_a_player_with_an_empty_hand_is_skipped() -> None:
    state = given(dealt(hands={1: (EW[0], NS[0]), 2: (), 3: (CROSS[0],)}, draw_pile=()))
    events = when(state, Pass(1, (NS[0],)), at=T0)
    assert events[-1] == DecisionOpened(2, 3, "turn", DEADLINE)


def test_the_round_ends_when_the_pile_and_every_hand_are_empty() -> None:
    state = given(dealt(hands={1: (NS[0],), 2: (), 3: ()}, draw_pile=()))
    events = when(state, Pass(1, (NS[0],)), at=T0)
    ended = [e for e in events if isinstance(e, RoundEnded)]
    assert ended and ended[0].treasure_reached is False and ended[0].round == 1


def test_discarding_two_cards_removes_a_card_in_front_of_yourself() -> None:
    broken = ids("saboteur2", "broken_cart")[0]
    setup = [
        *dealt("saboteur2", hands={1: (0, 1, 2, broken)}, draw_pile=(60,)),
        action_event(1, broken, "broken_cart", target_player=1),
        AGAIN,
    ]
    state = given(setup)
    then_raises(state, DiscardToRemove(1, (0, 1), "trapped"), errors.InvalidTarget)
    events = when(state, DiscardToRemove(1, (0, 1), "broken_cart"), at=T0)
    assert events[:2] == [FrontCardRemoved(1, (0, 1), "broken_cart"), CardDrawn(1, 60)]
    after = given(setup, events)
    assert after.front_of(1) == () and broken in after.discards


def test_the_base_game_has_no_discard_to_remove() -> None:
    state = given(dealt(hands={1: (0, 1)}))
    then_raises(state, DiscardToRemove(1, (0, 1), "broken_cart"), errors.NotInEdition)


def _row(y: int, cards: list[int]) -> list[PathPlaced]:
    return [PathPlaced(1, c, (x, y), False) for x, c in enumerate(cards)]


def test_reaching_the_treasure_reveals_it_and_ends_the_round_at_once() -> None:
    path = _row(0, [CROSS[0], CROSS[1], CROSS[2], CROSS[3], EW[0], EW[1], EW[2]])[1:]
    path = [PathPlaced(1, e.card, (e.cell[0], 0), False) for e in path]
    state = given(dealt(hands={1: (CROSS[4],)}, draw_pile=(50,)), path, AGAIN)
    events = when(state, PlacePath(1, CROSS[4], (7, 0), False), at=T0)
    assert events[0] == PathPlaced(1, CROSS[4], (7, 0), False)
    assert events[1] == GoalRevealed((8, 0), "goal_treasure", False)
    assert isinstance(events[2], RoundEnded) and events[2].treasure_reached
    assert events[2].reached_by == 1
    assert not any(isinstance(e, CardDrawn) and e.player == 1 and e.card == 50 for e in events)


def test_reaching_a_stone_turns_it_face_up_and_the_round_goes_on() -> None:
    path = [PathPlaced(1, CROSS[0], (0, 1), False), PathPlaced(1, T_ESW[0], (0, 2), False)]
    path += [PathPlaced(1, c, (x, 2), False) for x, c in enumerate(EW + CROSS[1:4], start=1)]
    state = given(dealt(hands={1: (CROSS[4],)}, draw_pile=(50,)), path, AGAIN)
    events = when(state, PlacePath(1, CROSS[4], (7, 2), False), at=T0)
    assert events == [
        PathPlaced(1, CROSS[4], (7, 2), False),
        GoalRevealed((8, 2), "goal_stone_a", False),
        CardDrawn(1, 50),
        DecisionOpened(3, 2, "turn", DEADLINE),
    ]


def test_one_card_may_reach_two_goals_and_the_treasure_ends_the_round() -> None:
    row = [CROSS[0], *EW, *T_ESW[:4]]
    path = [PathPlaced(1, c, (x, 1), False) for x, c in enumerate(row)]
    state = given(dealt(hands={1: (CROSS[1],)}, draw_pile=(50,)), path, AGAIN)
    events = when(state, PlacePath(1, CROSS[1], (8, 1), False), at=T0)
    revealed = [e.cell for e in events if isinstance(e, GoalRevealed)]
    assert sorted(revealed) == sorted([GOAL_CELLS[0], GOAL_CELLS[1]])
    assert any(isinstance(e, RoundEnded) and e.treasure_reached for e in events)


def test_a_map_shows_a_face_down_goal_to_its_player_alone() -> None:
    state = given(dealt(hands={1: (MAP[0],)}, draw_pile=(50,)))
    events = when(state, PlayAction(1, MAP[0], target_cell=(8, 0)), at=T0)
    assert events[0] == MapLooked(1, MAP[0], (8, 0), "goal_treasure")
    after = given(dealt(hands={1: (MAP[0],)}, draw_pile=(50,)), events)
    assert dict(after.known_goals[1]) == {(8, 0): "goal_treasure"}
    then_raises(state, PlayAction(1, MAP[0], target_cell=(1, 0)), errors.InvalidTarget)


def test_a_rockfall_discards_a_path_card_but_never_the_start_or_a_goal() -> None:
    setup = [
        *dealt(hands={1: (ROCKFALL[0],)}, draw_pile=(50,)),
        PathPlaced(2, EW[0], (1, 0), False),
    ]
    state = given(setup)
    then_raises(state, PlayAction(1, ROCKFALL[0], target_cell=(0, 0)), errors.InvalidTarget)
    then_raises(state, PlayAction(1, ROCKFALL[0], target_cell=(8, 0)), errors.InvalidTarget)
    events = when(state, PlayAction(1, ROCKFALL[0], target_cell=(1, 0)), at=T0)
    after = given(setup, events)
    assert (1, 0) not in after.board and {EW[0], ROCKFALL[0]} <= set(after.discards)


def test_open_rule_a_stone_reached_through_a_bridge_opens_towards_it_not_the_ladder() -> None:
    # A bridge lies north of stone A (8, 2), only its east-west tunnel connected: its
    # north-south tunnel faces the stone but reaches nothing. A ladder later joins that
    # tunnel to the start: the stone is reached by the bridge, from the north, so it is
    # turned to open north (§4.3), though the card just placed (the ladder) is further off.
    s2: Final = "saboteur2"
    cross, ew, ns = ids(s2, "cross"), ids(s2, "straight_ew"), ids(s2, "straight_ns")
    bridge, ladder = ids(s2, "bridge")[0], ids(s2, "ladder_stub_n")[0]
    cells = [(0, 1), (0, 2), (0, 3), *[(x, 3) for x in range(1, 8)]]
    route = [ns[0], ns[1], cross[0], *ew, *cross[1:5]]
    setup = [
        *dealt(s2, hands={1: (bridge,), 2: (ladder,)}, draw_pile=(60, 61, 62)),
        *[PathPlaced(3, c, cell, False) for c, cell in zip(route, cells, strict=True)],
        AGAIN,
    ]

    placed = when(given(setup), PlacePath(1, bridge, (8, 3), False), at=T0)

    assert not [e for e in placed if isinstance(e, GoalRevealed)]

    reached = when(given(setup, placed), PlacePath(2, ladder, (8, 4), True), at=T0)

    assert reached[:2] == [
        PathPlaced(2, ladder, (8, 4), True),
        GoalRevealed((8, 2), "goal_stone_a", True),  # turned: its openings are N and E
    ]
