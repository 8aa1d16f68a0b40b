"""Deadlines, timeouts, reminders and the away rule (§7)."""

from __future__ import annotations

from given import T0, TURN, dealt, given, ids, when

from domain.commands import Pass, PlacePath, RemindPlayer, TimeOut
from domain.events import (
    CardDrawn,
    CardsDiscarded,
    DecisionOpened,
    DecisionTimedOut,
    Event,
    GoldPicked,
    PathPlaced,
    PlayerCameBack,
    PlayerReminded,
    PlayerWentAway,
)

EW = ids("base", "straight_ew")
CROSS = ids("base", "cross")
LATE = T0 + TURN * 1000


def test_a_turn_that_times_out_passes_discarding_a_card_chosen_by_the_seed() -> None:
    setup = dealt(hands={1: (EW[0], EW[1])}, draw_pile=(50, 51))
    events = when(given(setup), TimeOut(1, at=LATE, seed=4))
    assert events[0] == DecisionTimedOut(1, 1)
    assert isinstance(events[1], CardsDiscarded) and events[1].cards[0] in (EW[0], EW[1])
    assert events[2:] == [CardDrawn(1, 50), DecisionOpened(2, 2, "turn", LATE + TURN * 1000)]
    discarded = {when(given(setup), TimeOut(1, seed=s))[1] for s in range(20)}
    assert len(discarded) == 2  # the seed decides


def test_a_stale_timeout_decides_nothing() -> None:
    setup = dealt(hands={1: (EW[0], EW[1])}, draw_pile=(50, 51))
    assert when(given(setup), TimeOut(7, at=LATE)) == []
    played = when(given(setup), Pass(1, (EW[0],), at=T0))
    assert when(given(setup, played), TimeOut(1, at=LATE)) == []


def _timed_out(times: int) -> list[Event]:
    """Player 1 timed out ``times`` times in a row and is on turn again."""
    events: list[Event] = [*dealt(hands={1: (EW[0], EW[1], CROSS[0])}, draw_pile=(50, 51))]
    for n in range(times):
        events += [DecisionTimedOut(n + 1, 1), DecisionOpened(n + 2, 1, "turn", LATE)]
    return events


def test_three_timeouts_in_a_row_make_a_player_away() -> None:
    events = when(given(_timed_out(2)), TimeOut(3, at=LATE))
    assert events[:2] == [DecisionTimedOut(3, 1), PlayerWentAway(1)]
    assert 1 in given(_timed_out(2), events).away


def test_an_away_players_decision_is_due_at_once() -> None:
    setup = [*dealt(players=3, hands={3: (EW[0], EW[1])}, first=3), PlayerWentAway(1)]
    events = when(given(setup), Pass(3, (EW[0],), at=T0))
    assert events[-1] == DecisionOpened(2, 1, "turn", T0)


def test_acting_again_brings_an_away_player_back() -> None:
    setup = [*_timed_out(3), PlayerWentAway(1)]
    events = when(given(setup), PlacePath(1, EW[0], (1, 0), False, at=T0))
    assert events[:2] == [PlayerCameBack(1), PathPlaced(1, EW[0], (1, 0), False)]
    after = given(setup, events)
    assert 1 not in after.away and after.timeouts_in_a_row[1] == 0


def test_acting_restarts_the_count_of_timeouts_in_a_row() -> None:
    setup = _timed_out(2)
    after = given(setup, when(given(setup), Pass(1, (EW[0],), at=T0)))
    assert after.timeouts_in_a_row[1] == 0


def test_a_gold_pick_that_times_out_is_made_by_the_seed() -> None:
    roles = {1: "gold_digger", 2: "saboteur", 3: "gold_digger", 4: "gold_digger"}
    path = [PathPlaced(2, c, (x, 0), False) for x, c in enumerate([*CROSS[:3], *EW], start=1)]
    setup = [*dealt(players=4, roles=roles, hands={3: (CROSS[4],)}, first=3), *path]
    reached = when(given(setup), PlacePath(3, CROSS[4], (7, 0), False, at=T0))
    pending = given(setup, reached).pending
    assert pending is not None and pending.kind == "gold_pick"
    events = when(given(setup, reached), TimeOut(pending.id, at=LATE, seed=1))
    assert events[0] == DecisionTimedOut(pending.id, 3)
    assert isinstance(events[1], GoldPicked) and events[1].player == 3
    assert events[1].value in (1, 2, 3)
    after = given(setup, reached, events)
    assert after.gold[3] == events[1].value


def test_a_reminder_is_given_once_per_decision_and_kind() -> None:
    setup = dealt(hands={1: (EW[0],)})
    assert when(given(setup), RemindPlayer(1, "half")) == [PlayerReminded(1, 1, "half")]
    reminded = [*setup, PlayerReminded(1, 1, "half")]
    assert when(given(reminded), RemindPlayer(1, "half")) == []
    assert when(given(reminded), RemindPlayer(1, "soon")) == [PlayerReminded(1, 1, "soon")]
    assert when(given(setup), RemindPlayer(9, "half")) == []
