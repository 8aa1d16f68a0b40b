"""Deadlines fire through a real Celery worker, on Redis and on the embedded broker."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

import pytest
from deadline_harness import (
    HOLDING,
    Process,
    Table,
    beat,
    now_ms,
    running,
    succeeded,
    wait_for,
    worker,
)

from domain.events import CardsDiscarded, DecisionOpened, DecisionTimedOut
from infra.celery_app import FIRE_TASK
from infra.settings import load_settings


def test_a_blitz_turn_times_out_and_the_game_moves_on(
    table: Table, celery_worker: Process, database: str, broker: str, tmp_path: Path
) -> None:
    with running(beat(database, broker, tmp_path / "beat.log"), ready="beat: Starting"):
        game = table.new_game(first_deadline_in=1.0)
        owed = table.pending(game)
        timed_out = DecisionTimedOut(owed.decision, owed.player)
        wait_for(lambda: timed_out in table.events(game), timeout=60)

    events = table.events(game)
    after = events[events.index(timed_out) + 1 :]
    assert isinstance(after[0], CardsDiscarded) and after[0].player == owed.player
    following = [e for e in after if isinstance(e, DecisionOpened)]
    assert following and following[0].player != owed.player
    stored = next(e for e in table.store.load(game) if e.type == DecisionTimedOut.TYPE)
    lateness = stored.recorded_at.timestamp() - owed.deadline / 1000
    # Never early; how late is bench_deadlines' figure (p99 target: a sweep and a second).
    assert lateness >= -0.05


def timeouts(table: Table, game: str) -> list[DecisionTimedOut]:
    return [e for e in table.events(game) if isinstance(e, DecisionTimedOut)]


@pytest.mark.parametrize("broker", ["redis"], indirect=True)
def test_a_move_made_just_before_the_deadline_wins_and_the_late_fire_changes_nothing(
    table: Table, celery_worker: Process
) -> None:
    game = table.new_game(first_deadline_in=0.3)
    owed = table.pending(game)
    table.project()
    wait_for(lambda: now_ms() >= owed.deadline)
    # The alarm is claimed (the task is on its way) when the player's move lands.
    claimed = wait_for(table.claim)
    assert [(d.game_id, d.decision) for d in claimed] == [(game, owed.decision)]
    table.pass_turn(game, at=owed.deadline - 1)
    for due in claimed:
        table.send(due)

    wait_for(lambda: succeeded(celery_worker, FIRE_TASK) == 1)
    assert timeouts(table, game) == []
    assert (owed.decision, "timeout") not in table.alarms(game)


@pytest.mark.parametrize("broker", ["redis"], indirect=True)
def test_the_same_fire_delivered_twice_applies_once(table: Table, celery_worker: Process) -> None:
    game = table.new_game(first_deadline_in=0.2)
    owed = table.pending(game)
    wait_for(lambda: now_ms() >= owed.deadline)
    table.project()
    (due,) = wait_for(table.claim)
    table.send(due)
    table.send(due)

    wait_for(lambda: succeeded(celery_worker, FIRE_TASK) == 2)
    assert timeouts(table, game) == [DecisionTimedOut(owed.decision, owed.player)]


def test_a_worker_killed_mid_flight_leaves_every_deadline_to_fire_exactly_once(
    table: Table, database: str, broker: str, tmp_path: Path
) -> None:
    """On Redis and on the embedded broker (kombu's SQL transport, which never hands a
    fetched message out again): the held task dies with the worker, and once its lease
    runs out the sweeper sends it again."""
    games = [table.new_game(first_deadline_in=0.5) for _ in range(12)]
    owed = {game: table.pending(game).decision for game in games}
    # The first worker times out one decision, then holds the next one, unacknowledged,
    # until it is killed.
    first = worker(database, broker, tmp_path / "first.log", DEADLINE_TEST_HOLD_AFTER="1")
    first.start()
    try:
        table.sweep_until(lambda: _fired(table, owed) >= 1 and HOLDING in first.log())
    finally:
        first.kill()
    killed_at = datetime.now(UTC)
    assert _fired(table, owed) == 1
    held = re.search(rf"{HOLDING}: timeout:(\S+):(\d+)", first.log())
    assert held is not None and owed[held[1]] == int(held[2])

    with running(worker(database, broker, tmp_path / "second.log")):
        table.sweep_until(lambda: _fired(table, owed) == len(games), timeout=30)
    for game, decision in owed.items():
        assert [t.decision for t in timeouts(table, game)].count(decision) == 1
    # The task that died with the first worker was sent again and ran after the kill.
    stored = [e for e in table.store.load(held[1]) if e.type == DecisionTimedOut.TYPE]
    assert stored[0].recorded_at >= killed_at


def test_a_killed_workers_deadline_fires_again_on_the_worker_still_running(
    table: Table, database: str, broker: str, tmp_path: Path
) -> None:
    """With the lease the bot runs with by default (not the harness's short one). As in
    production, the other worker is already running when one dies: how long workers take
    to start (seconds, on a busy machine) is no part of the lateness."""
    table.lease = load_settings(_env_file=None).deadline_lease_seconds
    first = worker(database, broker, tmp_path / "first.log", DEADLINE_TEST_HOLD_AFTER="0")
    second = worker(database, broker, tmp_path / "second.log")
    first.start()
    try:
        game = table.new_game(first_deadline_in=0.5)
        owed = table.pending(game)
        table.sweep_until(lambda: HOLDING in first.log())
        second.start()
    finally:
        first.kill()

    try:
        table.sweep_until(lambda: timeouts(table, game), timeout=60)
    finally:
        second.stop()
    stored = next(e for e in table.store.load(game) if e.type == DecisionTimedOut.TYPE)
    lateness = stored.recorded_at.timestamp() - owed.deadline / 1000
    # Fired once, after the deadline, by the worker still running. How late (about a
    # lookahead, a sweep and the 5 s lease) is bench_deadlines --kill's figure.
    assert lateness >= -0.05
    assert len(timeouts(table, game)) == 1


def _fired(table: Table, owed: dict[str, int]) -> int:
    return sum(
        1
        for game, decision in owed.items()
        if any(t.decision == decision for t in timeouts(table, game))
    )


@pytest.mark.parametrize("broker", ["redis"], indirect=True)
def test_deadlines_pending_when_redis_is_flushed_still_fire(
    table: Table, redis_url: str, database: str, tmp_path: Path
) -> None:
    import redis

    sent = [table.new_game(first_deadline_in=0.2) for _ in range(3)]
    later = [table.new_game(first_deadline_in=2.0) for _ in range(3)]
    owed = {game: table.pending(game).decision for game in sent + later}
    # The first three are sent to Redis with no worker to take them; then Redis is emptied.
    wait_for(lambda: all(now_ms() >= table.pending(g).deadline for g in sent))
    table.project()
    assert len(table.sweep()) >= 3
    client = redis.Redis.from_url(redis_url)
    assert client.llen("celery") >= 3
    client.flushdb()
    client.close()

    with running(worker(database, redis_url, tmp_path / "worker.log")):
        table.sweep_until(lambda: _fired(table, owed) == len(owed), timeout=20)
    for game, decision in owed.items():
        assert [t.decision for t in timeouts(table, game)].count(decision) == 1
