"""Computer players move through a real Celery worker, after their pause, exactly once."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

import pytest
from deadline_harness import (
    HOLDING,
    PLAYERS,
    TURN_SECONDS,
    Process,
    Table,
    now_ms,
    running,
    succeeded,
    wait_for,
    worker,
)

from domain.commands import ComeBack, HandSeatToComputer
from domain.events import (
    ACTION_EVENTS,
    CardsDiscarded,
    DecisionOpened,
    DecisionTimedOut,
    Event,
    FrontCardRemoved,
    PathPlaced,
    PlayerCameBack,
    SeatHandedOver,
)
from infra import deadlines
from infra.celery_app import COMPUTER_TASK
from infra.computer import move_key

pytestmark = pytest.mark.parametrize("broker", ["redis"], indirect=True)

CREATOR = PLAYERS[0]
MOVES = (PathPlaced, *ACTION_EVENTS, CardsDiscarded, FrontCardRemoved)


def moves_on(table: Table, game: str, decision: int) -> list[Event]:
    """The moves made on ``decision`` (between its opening and the next decision)."""
    events = table.events(game)
    opened = next(
        i for i, e in enumerate(events) if isinstance(e, DecisionOpened) and e.decision == decision
    )
    made: list[Event] = []
    for event in events[opened + 1 :]:
        if isinstance(event, DecisionOpened):
            break
        if isinstance(event, MOVES):
            made.append(event)
    return made


def until_the_computer_owes(table: Table, game: str) -> DecisionOpened:
    """People pass (no worker moves meanwhile) until the computer owes a decision."""
    for _ in range(10):
        owed = table.pending(game)
        if owed.computer:
            return owed
        table.pass_turn(game)
    raise AssertionError("the computer never owes a decision")


def until_a_person_owes(table: Table, game: str, timeout: float = 20.0) -> DecisionOpened:
    """Sweep (as beat would) until the computer has moved and a person owes a decision."""

    def person() -> DecisionOpened | None:
        owed = table.pending(game)
        return owed if not owed.computer else None

    return table.sweep_until(person, timeout)


def test_computer_players_turns_are_played_through_the_rules_and_the_game_moves_on(
    table: Table, celery_worker: Process
) -> None:
    game = table.lobby(computers=2)  # seats: the creator, then two computer players
    table.start(game, first_deadline=10**13)
    for _ in range(3):
        until_a_person_owes(table, game)
        table.pass_turn(game)
    computer = [e for e in table.events(game) if isinstance(e, DecisionOpened) and e.computer]
    assert len(computer) >= 4
    for owed in computer[:-1]:
        made = moves_on(table, game, owed.decision)
        assert len(made) == 1 and made[0].player == owed.player  # type: ignore[union-attr]
    assert not any(isinstance(e, DecisionTimedOut) for e in table.events(game))
    recorded = [
        e for e in table.store.load(game) if e.metadata.get("command") == "MakeComputerMove"
    ]
    keys = {e.metadata["idempotency_key"] for e in recorded}
    assert move_key(game, computer[0].decision) in keys


def test_a_computer_player_waits_its_pause_before_moving(
    database: str, broker: str, celery_worker: Process, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COMPUTER_PAUSE_SECONDS", "1.0")
    table = Table(database, broker)
    try:
        game = table.lobby(computers=2)
        table.start(game, first_deadline=10**13)
        owed = until_the_computer_owes(table, game)
        until_a_person_owes(table, game)
        stored = table.store.load(game)
        opened = next(
            e
            for e in stored
            if e.type == "decision_opened" and e.payload["decision"] == owed.decision
        )
        moved = next(e for e in stored if e.version > opened.version and e.type in {
            cls.TYPE for cls in MOVES})  # fmt: skip
        waited = (moved.recorded_at - opened.recorded_at).total_seconds()
        assert waited >= 1.0
    finally:
        table.close()


def test_the_same_computer_move_delivered_twice_is_made_once(
    table: Table, celery_worker: Process
) -> None:
    game = table.lobby(computers=2)
    table.start(game, first_deadline=10**13)
    owed = until_the_computer_owes(table, game)
    table.project()
    (due,) = [d for d in wait_for(table.claim) if d.game_id == game]
    assert (due.decision, due.which) == (owed.decision, deadlines.COMPUTER)
    table.send(due)
    table.send(due)

    wait_for(lambda: succeeded(celery_worker, COMPUTER_TASK) == 2)
    assert len(moves_on(table, game, owed.decision)) == 1


def test_a_worker_killed_mid_move_leaves_the_move_to_be_made_exactly_once(
    table: Table, database: str, broker: str, tmp_path: Path
) -> None:
    game = table.lobby(computers=2)
    table.start(game, first_deadline=10**13)
    owed = until_the_computer_owes(table, game)
    first = worker(database, broker, tmp_path / "first.log", COMPUTER_TEST_HOLD_AFTER="0")
    first.start()
    try:
        table.sweep_until(lambda: HOLDING in first.log())
    finally:
        first.kill()
    killed_at = datetime.now(UTC)
    held = re.search(rf"{HOLDING}: computer:(\S+):(\d+)", first.log())
    assert held is not None and (held[1], int(held[2])) == (game, owed.decision)
    assert moves_on(table, game, owed.decision) == []

    with running(worker(database, broker, tmp_path / "second.log")):
        table.sweep_until(lambda: moves_on(table, game, owed.decision) != [], timeout=30)
    (made,) = moves_on(table, game, owed.decision)
    assert made.player == owed.player  # type: ignore[union-attr]
    stored = [e for e in table.store.load(game) if e.metadata.get("command") == "MakeComputerMove"]
    assert stored and stored[0].recorded_at >= killed_at


def test_a_player_back_before_the_computer_moves_leaves_it_nothing_to_do(
    table: Table, celery_worker: Process
) -> None:
    game = table.new_game(first_deadline_in=600)
    person = PLAYERS[1]
    while table.pending(game).player != person:
        table.pass_turn(game)
    table.handle(game, HandSeatToComputer(CREATOR, person))
    handed = table.pending(game)
    assert handed.computer and handed.player == person
    table.project()
    claimed = [d for d in wait_for(table.claim) if d.game_id == game]
    assert [(d.decision, d.which) for d in claimed] == [(handed.decision, deadlines.COMPUTER)]
    back = table.handle(game, ComeBack(person))
    assert back[0] == PlayerCameBack(person)
    for due in claimed:
        table.send(due)

    wait_for(lambda: succeeded(celery_worker, COMPUTER_TASK) == 1)
    assert moves_on(table, game, handed.decision) == []
    assert not table.pending(game).computer and table.pending(game).player == person


def test_a_player_away_after_three_timeouts_is_played_by_the_computer(
    table: Table, celery_worker: Process
) -> None:
    """The away setting's default: the seat is handed over, and the computer plays it."""
    game = table.new_game(first_deadline_in=0.3)
    sleeper = table.pending(game).player
    for _ in range(3):
        owed = table.pending(game)
        assert owed.player == sleeper and not owed.computer
        timed_out = DecisionTimedOut(owed.decision, sleeper)
        table.sweep_until(lambda t=timed_out: t in table.events(game))  # type: ignore[misc]
        table.pass_turn(game)
        table.pass_turn(game, at=now_ms() - TURN_SECONDS * 1000 + 300)
    assert SeatHandedOver(sleeper, "away") in table.events(game)
    owed = table.pending(game)
    assert owed.player == sleeper and owed.computer
    table.sweep_until(lambda: moves_on(table, game, owed.decision) != [])
    assert DecisionTimedOut(owed.decision, sleeper) not in table.events(game)
