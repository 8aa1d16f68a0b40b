"""Deadlines, timeouts, reminders and the away rule (docs/rules.md §7.1–§7.3)."""

from __future__ import annotations

import pytest
from given import T0, TURN, action_event, dealt, given, ids, then_raises, when

from domain import errors
from domain.commands import ComeBack, Pass, PickGold, PlacePath, RemindPlayer, TimeOut
from domain.events import (
    CardDrawn,
    CardsDiscarded,
    DecisionOpened,
    DecisionTimedOut,
    Event,
    GameEnded,
    GoldPicked,
    GoldPickStarted,
    PathPlaced,
    PlayerCameBack,
    PlayerReminded,
    PlayerWentAway,
    TheftResolved,
)
from domain.moves import legal_moves

EW = ids("base", "straight_ew")
CROSS = ids("base", "cross")
LATE = T0 + TURN * 1000


def test_a_turn_that_times_out_passes_discarding_a_card_chosen_by_the_seed() -> None:
    setup = dealt(hands={1: (EW[0], EW[1])}, draw_pile=(50, 51))
    events = when(given(setup), TimeOut(1), at=LATE, seed=4)
    assert events[0] == DecisionTimedOut(1, 1)
    assert isinstance(events[1], CardsDiscarded) and events[1].cards[0] in (EW[0], EW[1])
    assert events[2:] == [CardDrawn(1, 50), DecisionOpened(2, 2, "turn", LATE + TURN * 1000)]
    discarded = {when(given(setup), TimeOut(1), seed=s)[1] for s in range(20)}
    assert len(discarded) == 2  # the seed decides


def test_a_stale_timeout_decides_nothing() -> None:
    setup = dealt(hands={1: (EW[0], EW[1])}, draw_pile=(50, 51))
    assert when(given(setup), TimeOut(7), at=LATE) == []
    played = when(given(setup), Pass(1, (EW[0],)), at=T0)
    assert when(given(setup, played), TimeOut(1), at=LATE) == []


def _timed_out(times: int) -> list[Event]:
    """Player 1 timed out ``times`` times in a row and is on turn again."""
    events: list[Event] = [*dealt(hands={1: (EW[0], EW[1], CROSS[0])}, draw_pile=(50, 51))]
    for n in range(times):
        events += [DecisionTimedOut(n + 1, 1), DecisionOpened(n + 2, 1, "turn", LATE)]
    return events


def test_three_timeouts_in_a_row_make_a_player_away() -> None:
    events = when(given(_timed_out(2)), TimeOut(3), at=LATE)
    assert events[:2] == [DecisionTimedOut(3, 1), PlayerWentAway(1)]
    assert 1 in given(_timed_out(2), events).away


def test_an_away_players_decision_is_due_at_once() -> None:
    setup = [*dealt(players=3, hands={3: (EW[0], EW[1])}, first=3), PlayerWentAway(1)]
    events = when(given(setup), Pass(3, (EW[0],)), at=T0)
    assert events[-1] == DecisionOpened(2, 1, "turn", T0)


def test_acting_again_brings_an_away_player_back() -> None:
    setup = [*_timed_out(3), PlayerWentAway(1)]
    events = when(given(setup), PlacePath(1, EW[0], (1, 0), False), at=T0)
    assert events[:2] == [PlayerCameBack(1), PathPlaced(1, EW[0], (1, 0), False)]
    after = given(setup, events)
    assert 1 not in after.away and after.timeouts_in_a_row[1] == 0


def test_acting_restarts_the_count_of_timeouts_in_a_row() -> None:
    setup = _timed_out(2)
    after = given(setup, when(given(setup), Pass(1, (EW[0],)), at=T0))
    assert after.timeouts_in_a_row[1] == 0


def test_a_gold_pick_that_times_out_is_made_by_the_seed() -> None:
    roles = {1: "gold_digger", 2: "saboteur", 3: "gold_digger", 4: "gold_digger"}
    path = [PathPlaced(2, c, (x, 0), False) for x, c in enumerate([*CROSS[:3], *EW], start=1)]
    setup = [*dealt(players=4, roles=roles, hands={3: (CROSS[4],)}, first=3), *path]
    reached = when(given(setup), PlacePath(3, CROSS[4], (7, 0), False), at=T0)
    pending = given(setup, reached).pending
    assert pending is not None and pending.kind == "gold_pick"
    events = when(given(setup, reached), TimeOut(pending.id), at=LATE, seed=1)
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


# -- coming back (§7.3: their next action of their own brings them back) ----------------


def _away_on_turn() -> list[Event]:
    """Player 1 is away and on turn: player 3 passed, so 1's turn opened already due."""
    setup = [*dealt(players=3, hands={3: (EW[0], EW[1])}, first=3), PlayerWentAway(1)]
    return [*setup, *when(given(setup), Pass(3, (EW[0],)), at=T0)]


def test_an_away_player_who_comes_back_gets_the_whole_timer_for_the_turn_they_owe() -> None:
    setup = _away_on_turn()
    assert setup[-1] == DecisionOpened(2, 1, "turn", T0)  # due at once
    events = when(given(setup), ComeBack(1), at=T0 + 500)
    assert events == [PlayerCameBack(1), DecisionOpened(3, 1, "turn", T0 + 500 + TURN * 1000)]
    after = given(setup, events)
    assert 1 not in after.away and after.timeouts_in_a_row[1] == 0


def test_an_away_player_who_comes_back_between_turns_gets_the_whole_timer_next_turn() -> None:
    setup = [*dealt(players=3, hands={3: (EW[0], EW[1])}, first=3), PlayerWentAway(1)]
    back = when(given(setup), ComeBack(1), at=T0)
    assert back == [PlayerCameBack(1)]
    events = when(given(setup, back), Pass(3, (EW[0],)), at=T0)
    assert events[-1] == DecisionOpened(2, 1, "turn", T0 + TURN * 1000)


def test_the_old_deadline_of_a_decision_opened_again_on_coming_back_decides_nothing() -> None:
    setup = _away_on_turn()
    back = when(given(setup), ComeBack(1), at=T0)
    assert when(given(setup, back), TimeOut(2), at=T0 + 1) == []
    # The new deadline still holds: passing it times the turn out.
    assert when(given(setup, back), TimeOut(3), at=T0 + TURN * 1000)[0] == DecisionTimedOut(3, 1)


def test_coming_back_when_not_away_is_refused_and_changes_nothing() -> None:
    state = given(dealt(players=3))
    error = then_raises(state, ComeBack(2), errors.NotAway, at=T0)
    assert error.code == "not_away"
    then_raises(state, ComeBack(99), errors.NotAPlayer, at=T0)
    then_raises(given(dealt(players=3)[:3]), ComeBack(1), errors.NotStarted)
    over = given(_away_on_turn(), GameEnded(((1, 0), (2, 0), (3, 0)), (1, 2, 3)))
    then_raises(over, ComeBack(1), errors.GameOver)


def test_coming_back_is_a_legal_move_of_an_away_player_listed_after_their_decision() -> None:
    setup = _away_on_turn()
    state = given(setup)
    moves = legal_moves(state, 1)
    assert moves[-1] == ComeBack(1) and all(not isinstance(m, ComeBack) for m in moves[:-1])
    assert ComeBack(3) not in legal_moves(state, 3)
    between = given(dealt(players=3, first=3), PlayerWentAway(1))
    assert legal_moves(between, 1) == [ComeBack(1)]
    assert legal_moves(given(setup, when(state, ComeBack(1), at=T0)), 1)[-1] != ComeBack(1)


# -- gold picks and thefts run on the same clock (§7.1) ------------------------------------


def _treasure_reached_by_3(timeouts_of_1: int) -> list[Event]:
    """Base, 4 players: player 3 reached the treasure and kept the 3 of (3, 2, 1); player 1
    picks next. Before that, player 1 let ``timeouts_of_1`` turns time out in a row."""
    roles = {1: "gold_digger", 2: "saboteur", 3: "gold_digger", 4: "gold_digger"}
    path = [PathPlaced(2, c, (x, 0), False) for x, c in enumerate([*CROSS[:3], *EW], start=1)]
    setup: list[Event] = [*dealt(players=4, roles=roles, hands={3: (CROSS[4],)}, first=3)]
    setup += [DecisionTimedOut(1, 1) for _ in range(timeouts_of_1)]
    setup += [*path, DecisionOpened(2, 3, "turn", LATE)]
    setup += when(given(setup), PlacePath(3, CROSS[4], (7, 0), False), at=T0)
    assert GoldPickStarted((3, 2, 1), (3, 1, 4)) in setup
    return [*setup, *when(given(setup), PickGold(3, 3), at=T0)]


def test_open_rule_a_gold_pick_that_times_out_counts_toward_being_away() -> None:
    setup = _treasure_reached_by_3(timeouts_of_1=2)
    pending = given(setup).pending
    assert pending is not None and (pending.player, pending.kind) == (1, "gold_pick")
    events = when(given(setup), TimeOut(pending.id), at=LATE, seed=2)
    assert events[:2] == [DecisionTimedOut(pending.id, 1), PlayerWentAway(1)]
    assert isinstance(events[2], GoldPicked) and events[2].player == 1
    assert 1 in given(setup, events).away


def test_open_rule_a_gold_pick_made_in_time_restarts_the_count_of_timeouts() -> None:
    setup = _treasure_reached_by_3(timeouts_of_1=2)
    after = given(setup, when(given(setup), PickGold(1, 2), at=T0))
    assert after.timeouts_in_a_row[1] == 0 and 1 not in after.away


S2_ROLES = {1: "blue_digger", 2: "saboteur", 3: "saboteur", 4: "boss"}
THEFT = ids("saboteur2", "theft")


def _thief_4_chooses(timeouts_of_4: int) -> list[Event]:
    """saboteur2, 4 players: the round ended unreached, saboteurs 2 and 3 were paid 4 each,
    and player 4's theft is to be settled between them. Before that, player 4 let
    ``timeouts_of_4`` turns time out in a row."""
    setup: list[Event] = [
        *dealt(
            "saboteur2",
            players=4,
            roles=S2_ROLES,
            hands={1: (0,), 2: (), 3: (), 4: ()},
            draw_pile=(),
        ),
        *[DecisionTimedOut(1, 4) for _ in range(timeouts_of_4)],
        action_event(4, THEFT[0], "theft", target_player=4),
        DecisionOpened(2, 1, "turn", LATE),
    ]
    return setup


@pytest.mark.parametrize("timeouts_of_4", [0, 2])
def test_a_theft_that_times_out_robs_a_victim_drawn_by_the_seed_and_counts_toward_away(
    timeouts_of_4: int,
) -> None:
    setup = _thief_4_chooses(timeouts_of_4)
    ended = when(given(setup), Pass(1, (0,)), at=T0)
    pending = given(setup, ended).pending
    assert pending is not None and (pending.player, pending.kind) == (4, "theft")
    events = when(given(setup, ended), TimeOut(pending.id), at=LATE, seed=1)
    assert events[0] == DecisionTimedOut(pending.id, 4)
    went_away = timeouts_of_4 + 1 >= 3
    assert (events[1] == PlayerWentAway(4)) is went_away
    robbed = events[2 if went_away else 1]
    assert isinstance(robbed, TheftResolved) and robbed.thief == 4 and robbed.victim in (2, 3)
    after = given(setup, ended, events)
    assert after.gold[4] == 1 and after.gold[robbed.victim] == 3
    assert after.timeouts_in_a_row[4] == timeouts_of_4 + 1
    assert (4 in after.away) is went_away
    victims = {
        e.victim
        for s in range(12)
        for e in when(given(setup, ended), TimeOut(pending.id), seed=s)
        if isinstance(e, TheftResolved)
    }
    assert victims == {2, 3}  # the seed decides
