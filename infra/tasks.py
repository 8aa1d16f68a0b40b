"""Celery tasks: the sweeper, and what it sends — a deadline, a reminder, a computer move.

The tasks only turn the clock into commands: ``TimeOut``, ``RemindPlayer`` and the
computer's ``MakeComputerMove`` (:mod:`infra.computer`) go through the game service like
any player's move, so what they append reaches the chats the same way. Each command
carries an idempotency key naming its alarm, so a task delivered twice appends once; and
the rules engine answers a command for a decision already made with no events, so a task
arriving late changes nothing.

What a lost task costs: ``task_acks_late`` leaves a task unacknowledged until it is done,
but ``task_reject_on_worker_lost`` only acts in the prefork pool, which notices a child
process dying. The Procfile's worker uses the threads pool: when it dies, its tasks die
with it and nothing is rejected or requeued by Celery (Redis hands an unacknowledged task
out again only after its visibility timeout). Correctness does not rest on either: the
alarm of a lost task stays in the ``deadlines`` table, leased, and the sweeper sends it
again once the lease (``DEADLINE_LEASE_SECONDS``) runs out.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from celery import Celery
from sqlalchemy import Engine

from domain.commands import Command, RemindPlayer, TimeOut
from domain.errors import DomainError
from infra import deadlines
from infra.bootstrap import Services, bootstrap
from infra.celery_app import COMPUTER_TASK, FIRE_TASK, REMIND_TASK, SWEEP_TASK, app
from infra.computer import ComputerMove, computer_player, move_key
from infra.event_store import DuplicateCommand, EventStore

log = logging.getLogger(__name__)

CommandHandler = Callable[[str, Command, str | None], object]
"""Runs ``command`` on game ``game_id`` with an idempotency key."""


@dataclass(frozen=True, slots=True)
class Runtime:
    """What the tasks need: the database, the event log and a way to run a command."""

    engine: Engine
    store: EventStore
    handle: CommandHandler
    lease: timedelta = deadlines.DEFAULT_LEASE
    # Alarms due before the next sweep are sent now, to run at their time (a countdown).
    lookahead: timedelta = timedelta(0)
    # The computer players' moves (None: nobody makes them, their deadlines decide).
    computer: ComputerMove | None = None
    computer_pause: timedelta = deadlines.DEFAULT_COMPUTER_PAUSE


_configured: Runtime | None = None


def configure(runtime: Runtime | None) -> None:
    """Use ``runtime`` in this process's tasks (None: build it from the settings)."""
    global _configured
    _configured = runtime


def runtime() -> Runtime:
    return _configured if _configured is not None else _default_runtime()


def runtime_from(services: Services) -> Runtime:
    """The tasks' runtime over services built by :func:`infra.bootstrap.bootstrap`."""
    return Runtime(
        services.engine,
        services.store,
        services.games.handle,
        lease=timedelta(seconds=services.settings.deadline_lease_seconds),
        lookahead=timedelta(seconds=services.settings.sweep_interval_seconds),
        computer=computer_player(services.games),
        computer_pause=timedelta(seconds=services.settings.computer_pause_seconds),
    )


_default: Runtime | None = None
_default_lock = threading.Lock()


def _default_runtime() -> Runtime:
    """The runtime built from the settings, once per process.

    Built on first use in the worker process, never at import. The Procfile's worker runs
    eight threads that may all start a task at once: the lock makes one of them build the
    engine and the others wait for it.
    """
    global _default
    if _default is None:
        with _default_lock:
            if _default is None:
                _default = runtime_from(bootstrap())
    return _default


def _now() -> datetime:
    return datetime.now(UTC)


# ------------------------------------------------------------------------------- tasks


@app.task(name=SWEEP_TASK)  # type: ignore[untyped-decorator]
def sweep() -> int:
    """Project new events into the deadlines table, then send what is due."""
    rt = runtime()
    claimed = deadlines.sweep(
        rt.engine, rt.store, send, _now(), rt.lease, rt.lookahead, rt.computer_pause
    )
    if claimed:
        log.info("sweep sent %d alarm(s)", len(claimed))
    return len(claimed)


def sender(celery: Celery) -> Callable[[deadlines.Due], None]:
    """A function sending the task of a claimed alarm through ``celery``, to run at the
    alarm's time."""

    def send(due: deadlines.Due) -> None:
        eta = due.fire_at if due.fire_at > _now() else None
        if due.which == deadlines.TIMEOUT:
            celery.send_task(FIRE_TASK, (due.game_id, due.decision), eta=eta)
        elif due.which == deadlines.COMPUTER:
            celery.send_task(COMPUTER_TASK, (due.game_id, due.decision), eta=eta)
        else:
            celery.send_task(REMIND_TASK, (due.game_id, due.decision, due.which), eta=eta)

    return send


send = sender(app)


@app.task(name=FIRE_TASK)  # type: ignore[untyped-decorator]
def fire_deadline(game_id: str, decision: int) -> None:
    """The deadline of ``decision`` passed: time it out (if it is still owed)."""
    _run(game_id, decision, deadlines.TIMEOUT)


@app.task(name=REMIND_TASK)  # type: ignore[untyped-decorator]
def send_reminder(game_id: str, decision: int, which: str) -> None:
    """Remind the player owing ``decision`` (if it is still owed and not yet reminded)."""
    _run(game_id, decision, which)


@app.task(name=COMPUTER_TASK)  # type: ignore[untyped-decorator]
def make_computer_move(game_id: str, decision: int) -> None:
    """The computer makes ``decision`` (if it still owes it)."""
    _run(game_id, decision, deadlines.COMPUTER)


def _run(game_id: str, decision: int, which: str) -> None:
    rt = runtime()
    key = _key(game_id, decision, which)
    try:
        command = _command(rt, game_id, decision, which)
        if command is None:
            log.info("%s: the computer owes nothing", key)
        else:
            rt.handle(game_id, command, key)
    except DuplicateCommand:
        log.info("%s already done", key)
    except DomainError as error:  # the game is gone or over: nothing left to fire
        log.warning("%s refused: %s", key, error)
    with rt.engine.begin() as conn:
        deadlines.complete(conn, game_id, decision, which)


def _key(game_id: str, decision: int, which: str) -> str:
    if which == deadlines.TIMEOUT:
        return f"timeout:{game_id}:{decision}"
    if which == deadlines.COMPUTER:
        return move_key(game_id, decision)
    return f"remind:{game_id}:{decision}:{which}"


def _command(rt: Runtime, game_id: str, decision: int, which: str) -> Command | None:
    # ``at`` and ``seed`` left 0: the game service stamps its clock and chance.
    if which == deadlines.TIMEOUT:
        return TimeOut(decision)
    if which == deadlines.COMPUTER:
        return rt.computer(game_id, decision) if rt.computer is not None else None
    return RemindPlayer(decision, which)
