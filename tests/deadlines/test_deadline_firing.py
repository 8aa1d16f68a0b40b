"""Deadlines fire through a real Celery worker, on Redis and on the embedded broker."""

from __future__ import annotations

from pathlib import Path

from deadline_harness import SWEEP_INTERVAL, Process, Table, beat, running, wait_for

from domain.events import CardsDiscarded, DecisionOpened, DecisionTimedOut


def test_a_blitz_turn_times_out_and_the_game_moves_on(
    table: Table, celery_worker: Process, database: str, broker: str, tmp_path: Path
) -> None:
    with running(beat(database, broker, tmp_path / "beat.log"), ready="beat: Starting"):
        game = table.new_game(first_deadline_in=1.0)
        owed = table.pending(game)
        timed_out = DecisionTimedOut(owed.decision, owed.player)
        wait_for(lambda: timed_out in table.events(game), timeout=15)

    events = table.events(game)
    after = events[events.index(timed_out) + 1 :]
    assert isinstance(after[0], CardsDiscarded) and after[0].player == owed.player
    following = [e for e in after if isinstance(e, DecisionOpened)]
    assert following and following[0].player != owed.player
    stored = next(e for e in table.store.load(game) if e.type == DecisionTimedOut.TYPE)
    lateness = stored.recorded_at.timestamp() - owed.deadline / 1000
    assert -0.05 <= lateness <= SWEEP_INTERVAL + 1.0
