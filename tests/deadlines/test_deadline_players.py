"""What players see of the clock: reminders, and being away after three timeouts."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

import pytest
from deadline_harness import TURN_SECONDS, Process, Table, now_ms, succeeded, wait_for

from domain.events import (
    DecisionOpened,
    DecisionTimedOut,
    Event,
    PlayerCameBack,
    PlayerReminded,
    PlayerWentAway,
)
from infra import deadlines
from infra.celery_app import REMIND_TASK

pytestmark = pytest.mark.parametrize("broker", ["redis"], indirect=True)


def soon_deadline() -> int:
    """A command clock that makes the next turn end 0.3 s from now."""
    return now_ms() - TURN_SECONDS * 1000 + 300


def test_three_timeouts_make_a_player_away_and_acting_again_clears_it(
    table: Table, celery_worker: Process
) -> None:
    """With the away setting "pass" (the computer's play is in test_computer_moves)."""
    game = table.new_game(first_deadline_in=0.3, away_play="pass")
    sleeper = table.pending(game).player
    for round_ in range(3):
        owed = table.pending(game)
        assert owed.player == sleeper
        table.sweep_until(_has(table, game, DecisionTimedOut(owed.decision, sleeper)))
        away = PlayerWentAway(sleeper) in table.events(game)
        assert away == (round_ == 2)
        table.pass_turn(game)
        table.pass_turn(game, at=soon_deadline())

    # Away: the turn ends the moment it opens, without reminders.
    owed = table.pending(game)
    assert owed.player == sleeper
    table.project()
    assert table.alarms(game) == [(owed.decision, deadlines.TIMEOUT)]
    table.sweep_until(lambda: DecisionTimedOut(owed.decision, sleeper) in table.events(game))
    table.pass_turn(game)
    table.pass_turn(game)

    # Acting again brings the player back, and their next turn gets the whole timer.
    assert table.pending(game).player == sleeper
    acted = table.pass_turn(game)
    assert acted[0] == PlayerCameBack(sleeper)
    table.pass_turn(game)
    table.pass_turn(game)
    back = table.pending(game)
    assert back.player == sleeper
    opened_at = table.store.load(game)[-1].recorded_at.timestamp() * 1000
    assert back.deadline - opened_at > (TURN_SECONDS - 1) * 1000


def test_each_reminder_is_sent_once_and_before_the_deadline(
    table: Table, celery_worker: Process
) -> None:
    game = table.new_game(first_deadline_in=2.4)
    owed = table.pending(game)
    reminded = [PlayerReminded(owed.decision, owed.player, w) for w in ("half", "soon")]

    table.sweep_until(lambda: DecisionTimedOut(owed.decision, owed.player) in table.events(game))
    events = table.events(game)
    assert [e for e in events if isinstance(e, PlayerReminded)] == reminded
    stored = {e.type: e for e in table.store.load(game) if e.type == PlayerReminded.TYPE}
    assert stored and all(e.recorded_at.timestamp() * 1000 < owed.deadline for e in stored.values())

    # Delivered again, a reminder is not given again.
    before = succeeded(celery_worker, REMIND_TASK)
    table.send(deadlines.Due(game, owed.decision, "half", _now(), _now()))
    wait_for(lambda: succeeded(celery_worker, REMIND_TASK) == before + 1)
    assert [e for e in table.events(game) if isinstance(e, PlayerReminded)] == reminded


def test_no_reminder_comes_after_the_decision_was_made(
    table: Table, celery_worker: Process
) -> None:
    game = table.new_game(first_deadline_in=1.2)
    owed = table.pending(game)
    table.project()
    assert [w for _, w in table.alarms(game)] == ["half", "soon", "timeout"]
    table.pass_turn(game)  # the player acts; the alarms are still on the table

    claimed = wait_for(lambda: table.claim(lookahead=0))
    assert [(d.decision, d.which) for d in claimed] == [(owed.decision, "half")]
    table.send(claimed[0])
    wait_for(lambda: succeeded(celery_worker, REMIND_TASK) == 1)
    assert not [e for e in table.events(game) if isinstance(e, PlayerReminded)]
    table.project()
    assert all(d != owed.decision for d, _ in table.alarms(game))
    assert isinstance(table.events(game)[-1], DecisionOpened)


def _has(table: Table, game: str, event: Event) -> Callable[[], bool]:
    return lambda: event in table.events(game)


def _now() -> datetime:
    return datetime.now(UTC)
