"""The deadlines read model and the sweeper's claim, on SQLite and PostgreSQL (no worker)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta

import pytest
from deadline_harness import Table

from domain.events import PlayerReminded
from infra import deadlines, tasks
from infra.archive import export_game, import_game
from infra.migrations import upgrade
from tgbot.presenter.texts import TIMER_PRESETS


@pytest.fixture
def desk(db_url: str) -> Iterator[Table]:
    """The shared test database: other games are there too, so look only at your own."""
    table = Table(db_url, "memory://")
    yield table
    table.close()


def at(ms: int) -> datetime:
    return datetime.fromtimestamp(ms / 1000, tz=UTC)


def claim(table: Table, game: str, now: datetime) -> list[tuple[int, str]]:
    with table.engine.begin() as conn:
        claimed = deadlines.claim_due(conn, now, timedelta(seconds=2))
    return [(d.decision, d.which) for d in claimed if d.game_id == game]


def test_an_opened_decision_owes_two_reminders_and_a_deadline(desk: Table) -> None:
    game = desk.new_game(first_deadline_in=60)
    desk.project()
    owed = desk.pending(game)
    assert desk.alarms(game) == [(owed.decision, w) for w in ("half", "soon", "timeout")]


def test_the_computers_decision_owes_its_move_after_the_pause_and_no_reminder(
    desk: Table,
) -> None:
    game = desk.lobby(computers=2)
    desk.start(game, first_deadline=4_000_000_000_000)
    while not desk.pending(game).computer:
        desk.pass_turn(game)
    owed = desk.pending(game)
    desk.project()
    assert desk.alarms(game) == [(owed.decision, "computer"), (owed.decision, "timeout")]
    # Due at once (the harness's pause is 0), long before the deadline: claimed and sent.
    assert claim(desk, game, datetime.now(UTC)) == [(owed.decision, "computer")]


def test_a_claimed_alarm_is_not_claimed_again_until_its_lease_runs_out(desk: Table) -> None:
    game = desk.new_game(first_deadline_in=60)
    desk.project()
    owed = desk.pending(game)
    due = at(owed.deadline)
    every = [(owed.decision, w) for w in ("half", "soon", "timeout")]
    # At the deadline the reminders (late, their decision still open) and the timeout are
    # claimed once; the lease is 2 s.
    assert claim(desk, game, due) == every
    assert claim(desk, game, due + timedelta(seconds=1)) == []
    assert claim(desk, game, due + timedelta(seconds=2)) == every
    # Sent a second time, they are leased twice as long: 4 s.
    assert claim(desk, game, due + timedelta(seconds=5)) == []
    assert claim(desk, game, due + timedelta(seconds=6)) == every
    assert desk.alarms(game) == every


def test_a_reminder_lost_with_its_worker_is_sent_late_while_its_decision_is_open(
    desk: Table,
) -> None:
    game = desk.new_game(first_deadline_in=60)
    desk.project()
    owed = desk.pending(game)
    # The decision opened 60 s before its deadline: "half" is due 30 s before it.
    assert claim(desk, game, at(owed.deadline) - timedelta(seconds=20)) == [(owed.decision, "half")]
    # Its task died with its worker; the lease ran out after the deadline had passed.
    late = claim(desk, game, at(owed.deadline) + timedelta(seconds=1))
    assert late[0] == (owed.decision, "half")

    tasks.configure(desk.runtime)
    try:
        tasks.send_reminder(game, owed.decision, "half")
    finally:
        tasks.configure(None)

    assert PlayerReminded(owed.decision, owed.player, "half") in desk.events(game)


def test_a_new_decision_replaces_the_alarms_of_the_last(desk: Table) -> None:
    game = desk.new_game(first_deadline_in=60)
    first = desk.pending(game)
    desk.pass_turn(game)
    desk.project()
    second = desk.pending(game)
    assert second.decision != first.decision
    assert {d for d, _ in desk.alarms(game)} == {second.decision}


def test_concurrent_sweepers_claim_different_alarms(
    empty_database: Callable[[str], str],
) -> None:
    url = empty_database("postgres")  # SKIP LOCKED is PostgreSQL's; SQLite has one writer
    upgrade(url)
    desk = Table(url, "memory://")
    games = [desk.new_game(first_deadline_in=60) for _ in range(4)]
    desk.project()
    later = datetime.now(UTC) + timedelta(seconds=31)  # the half-time reminders are due
    with desk.engine.connect() as one, desk.engine.connect() as two, one.begin():
        mine = deadlines.claim_due(one, later, limit=2)
        with two.begin():
            theirs = deadlines.claim_due(two, later)
    desk.close()
    assert len(mine) == 2 and len(theirs) == 2
    assert {d.game_id for d in mine} | {d.game_id for d in theirs} == set(games)


def test_a_rebuild_from_the_log_gives_the_same_alarms(desk: Table) -> None:
    games = [desk.new_game(first_deadline_in=60) for _ in range(2)]
    desk.pass_turn(games[0])
    desk.project()
    before = {game: desk.alarms(game) for game in games}
    deadlines.rebuild(desk.engine, desk.store)
    assert {game: desk.alarms(game) for game in games} == before
    assert before[games[0]] and before[games[1]]


def test_a_send_that_fails_holds_back_only_its_own_alarm(desk: Table) -> None:
    games = [desk.new_game(first_deadline_in=60) for _ in range(3)]
    broken = games[1]
    failing = {broken}
    desk.project()
    sent: list[str] = []

    def send(due: deadlines.Due) -> None:
        if due.game_id in failing:
            raise ConnectionError("the broker is gone")
        sent.append(due.game_id)
        with desk.engine.begin() as conn:  # the task ran: the alarm is done
            deadlines.complete(conn, due.game_id, due.decision, due.which)

    def sweep(now: datetime) -> list[str]:
        sent.clear()
        deadlines.sweep(desk.engine, desk.store, send, now, timedelta(seconds=2))
        return sorted({g for g in sent if g in games})

    due = at(max(desk.pending(g).deadline for g in games))
    assert sweep(due) == sorted([games[0], games[2]])
    owed = desk.pending(broken).decision
    assert desk.alarms(broken) == [(owed, w) for w in ("half", "soon", "timeout")]
    # The broker is back, but the failed alarm is still leased: once the lease ran out,
    # a sweep sends it again.
    failing.clear()
    assert sweep(due + timedelta(seconds=1)) == []
    assert sweep(due + timedelta(seconds=2)) == [broken]
    assert desk.alarms(broken) == []


def test_an_unfinished_game_imported_into_the_same_database_owes_no_alarm(desk: Table) -> None:
    game = desk.new_game(first_deadline_in=-5)  # its deadline is already past
    desk.project()
    copy, _ = import_game(desk.store, list(export_game(desk.store, game)))
    desk.project()
    assert desk.alarms(game) and desk.alarms(copy) == []
    # Nothing for a sweep to send, now or after a rebuild from the log.
    assert copy not in {d.game_id for d in desk.claim(lookahead=60)}
    deadlines.rebuild(desk.engine, desk.store)
    assert desk.alarms(game) and desk.alarms(copy) == []


# Half time, and "shortly before" scaled to the timer: docs/rules.md §7.1 and the bot's presets.
REMINDERS = {
    "blitz": (60, 30, 10),
    "normal": (180, 90, 30),
    "relaxed": (3600, 1800, 600),
    "async": (86400, 43200, 3600),
}


def test_the_reminder_table_covers_every_timer_the_bot_offers() -> None:
    assert {name: turn for name, (turn, _, _) in REMINDERS.items()} == dict(TIMER_PRESETS)


@pytest.mark.parametrize("preset", list(REMINDERS))
def test_each_timer_preset_reminds_at_half_time_and_shortly_before_the_deadline(
    desk: Table, preset: str
) -> None:
    turn, half, soon = REMINDERS[preset]
    game = desk.new_game(first_deadline_in=turn, turn_seconds=turn)
    desk.project()
    with desk.engine.connect() as conn:
        rows = {r["which"]: r for r in deadlines.pending(conn, [game])}
    assert list(rows) == ["half", "soon", "timeout"]
    deadline = rows["timeout"]["fire_at"]
    assert deadline - rows["half"]["fire_at"] == timedelta(seconds=half)
    assert deadline - rows["soon"]["fire_at"] == timedelta(seconds=soon)
