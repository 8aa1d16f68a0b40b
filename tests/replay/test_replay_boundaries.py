"""Cutting a game's log into replay steps, one per move."""

from __future__ import annotations

from itertools import pairwise

from domain import events as ev
from tests.domain.given import action_event
from tgbot.replay.steps import MOVE, ROUND_END, ROUND_START, boundaries


def _round(number: int) -> ev.RoundStarted:
    return ev.RoundStarted(
        round=number,
        roles=((1, "saboteur"), (2, "gold_digger")),
        dwarf_pile=(),
        hands=((1, (0,)), (2, (1,))),
        draw_pile=(),
        set_aside=(),
        goals=("goal_treasure", "goal_stone_a", "goal_stone_b"),
        first_player=1,
    )


LOG: list[ev.Event] = [
    ev.GameCreated(1, "Ann", "base", 5, 180, False),
    ev.PlayerJoined(2, "Bo"),
    ev.GameStarted((1, 2), ()),
    _round(1),
    ev.DecisionOpened(1, 1, "turn", 0),
    ev.PathPlaced(1, 0, (1, 0), False),
    ev.CardDrawn(1, 5),
    ev.DecisionOpened(2, 2, "turn", 0),
    ev.DecisionTimedOut(2, 2),
    ev.CardsDiscarded(2, (1,)),
    ev.CardDrawn(2, 6),
    ev.RoundEnded(1, False, None, ((1, "saboteur"), (2, "gold_digger")), (1,)),
    ev.GoldPaid(((1, 4),)),
    _round(2),
    action_event(1, 3, "map", target_cell=(8, 0), result="goal_stone_a"),
    ev.RoundEnded(2, False, None, ((1, "saboteur"), (2, "gold_digger")), (1,)),
    ev.GameEnded(((1, 4), (2, 0)), (1,)),
]


def test_each_move_is_one_step_and_the_lobby_is_none() -> None:
    steps = boundaries(LOG)
    kinds = [b.kind for b in steps]
    assert kinds == [ROUND_START, MOVE, MOVE, ROUND_END, ROUND_START, MOVE, ROUND_END]
    assert steps[0].start == 3


def test_a_timeout_and_its_default_pass_are_one_step() -> None:
    timeout = boundaries(LOG)[2]
    assert isinstance(LOG[timeout.start], ev.DecisionTimedOut)
    assert [type(e) for e in LOG[timeout.start : timeout.end]] == [
        ev.DecisionTimedOut,
        ev.CardsDiscarded,
        ev.CardDrawn,
    ]


def test_steps_cover_every_event_after_the_lobby_exactly_once() -> None:
    steps = boundaries(LOG)
    assert steps[-1].end == len(LOG)
    for left, right in pairwise(steps):
        assert left.end == right.start
    assert [b.round for b in steps] == [1, 1, 1, 1, 2, 2, 2]
