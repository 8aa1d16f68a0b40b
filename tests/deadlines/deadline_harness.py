"""Test harness for deadlines: real games, a real Celery worker (and beat) as processes.

The worker runs ``celery -A deadline_worker_app worker`` against the test's database and
broker. Tests observe only the event log, the ``deadlines`` table and the worker's log,
and wait on conditions with a bound.
"""

from __future__ import annotations

import importlib
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar

import clockwork
from celery import Celery
from sqlalchemy import Engine

from domain import codec
from domain.commands import AddComputerPlayer, Command, CreateGame, JoinGame, Pass, StartGame
from domain.events import DecisionOpened, Event
from infra import deadlines, tasks
from infra.bootstrap import bootstrap
from infra.celery_app import celery_config
from infra.computer import computer_player
from infra.event_store import EventStore
from infra.settings import load_settings

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
TURN_SECONDS = 10  # the rules engine's shortest timer
SWEEP_INTERVAL = 0.5
LEASE_SECONDS = 2.0
COMPUTER_PAUSE = 0.0  # the computer moves at once (COMPUTER_PAUSE_SECONDS)
PLAYERS = (101, 102, 103)
# What a worker started with DEADLINE_TEST_HOLD_AFTER logs when it holds a task.
HOLDING = "holding a task until killed"

T = TypeVar("T")


@dataclass(frozen=True)
class Rules:
    """The rules a test game follows: the real rules engine, or clockwork (no board)."""

    name: str
    decider: Any  # a module with initial_state, decide, evolve (and fold)

    def pass_command(self, state: Any) -> Pass:
        player = state.pending.player
        cards = (state.hand(player)[0],) if self.name == "real" else ()
        return Pass(player, cards)


def rules_from_env() -> Rules:
    """``DEADLINE_TEST_RULES``: ``real`` (the rules engine, default) or ``clockwork``."""
    name = os.environ.get("DEADLINE_TEST_RULES", "real")
    if name == "real":
        return Rules(name, importlib.import_module("domain.engine"))
    return Rules("clockwork", clockwork)


def now_ms() -> int:
    return round(datetime.now(UTC).timestamp() * 1000)


def wait_for(condition: Callable[[], T], timeout: float = 15.0, every: float = 0.05) -> T:
    """Poll ``condition`` until it returns something truthy; fail after ``timeout`` s."""
    limit = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > limit:
            raise AssertionError(f"condition not met within {timeout} s: {condition}")
        time.sleep(every)


# ------------------------------------------------------------------------ the game side


def build_runtime(database_url: str, rules: Rules) -> tasks.Runtime:
    """What the worker runs on: the project's services (bootstrap) with the test's rules,
    and the sweep interval, lease and computer pause of the environment (the harness's by
    default). The computer plays only by the real rules."""
    interval = float(os.environ.get("SWEEP_INTERVAL_SECONDS", SWEEP_INTERVAL))
    lease = float(os.environ.get("DEADLINE_LEASE_SECONDS", LEASE_SECONDS))
    pause = float(os.environ.get("COMPUTER_PAUSE_SECONDS", COMPUTER_PAUSE))
    settings = load_settings(database_url=database_url, sweep_interval_seconds=interval)
    services = bootstrap(settings, decider=rules.decider, codec=codec)
    return tasks.Runtime(
        services.engine,
        services.store,
        services.games.handle,
        lease=timedelta(seconds=lease),
        lookahead=timedelta(seconds=interval),
        computer=computer_player(services.games) if rules.name == "real" else None,
        computer_pause=timedelta(seconds=pause),
    )


@dataclass
class Table:
    """The test's side of the database: play games, read them back, sweep."""

    database_url: str
    broker_url: str
    rules: Rules = field(default_factory=rules_from_env)
    # The sweeper's lease (the harness's short one unless a test asks for another).
    lease: float = LEASE_SECONDS
    runtime: tasks.Runtime = field(init=False)
    celery: Celery = field(init=False)

    def __post_init__(self) -> None:
        self.runtime = build_runtime(self.database_url, self.rules)
        self.celery = Celery("saboteur-test")
        self.celery.conf.update(
            celery_config(
                load_settings(
                    database_url=self.database_url,
                    celery_broker_url=self.broker_url,
                    sweep_interval_seconds=SWEEP_INTERVAL,
                )
            )
        )

    @property
    def engine(self) -> Engine:
        return self.runtime.engine

    @property
    def store(self) -> EventStore:
        return self.runtime.store

    def handle(self, game_id: str, command: Command, at: int = 0, seed: int = 0) -> list[Event]:
        return self.runtime.handle(game_id, command, None, at=at, seed=seed)  # type: ignore[call-arg,return-value]

    def events(self, game_id: str) -> list[Event]:
        stored = self.store.load(game_id)
        return [codec.decode(e.type, e.payload, e.schema_version) for e in stored]

    def state(self, game_id: str) -> Any:
        return self.rules.decider.fold(self.events(game_id))

    def new_game(
        self, first_deadline_in: float, turn_seconds: int = TURN_SECONDS, **settings: Any
    ) -> str:
        """A started 3-player base game whose first turn ends ``first_deadline_in`` s
        from now (the start is dated back: the clock is the command's ``at``)."""
        game_id = self.lobby(turn_seconds, **settings)
        self.start(game_id, now_ms() + round(first_deadline_in * 1000), turn_seconds)
        return game_id

    def lobby(self, turn_seconds: int = TURN_SECONDS, computers: int = 0, **settings: Any) -> str:
        """A 3-player game not started yet: its creator, then ``computers`` computer
        players, then people up to three seats. ``settings``: CreateGame's."""
        game_id = f"game-{uuid.uuid4().hex[:10]}"
        creator, *others = PLAYERS
        at = now_ms()
        self.handle(
            game_id, CreateGame(creator, "Ann", "base", -100, turn_seconds, **settings), at=at
        )
        for n in range(computers):
            self.handle(game_id, AddComputerPlayer(creator), at=at, seed=n + 1)
        for i, player in enumerate(others[: len(others) - computers]):
            self.handle(game_id, JoinGame(player, f"P{i}"), at=at)
        return game_id

    def start(self, game_id: str, first_deadline: int, turn_seconds: int = TURN_SECONDS) -> None:
        """Start the game so that its first turn ends at ``first_deadline`` (Unix ms)."""
        at = first_deadline - turn_seconds * 1000
        self.handle(game_id, StartGame(PLAYERS[0]), at=at, seed=at ^ hash(game_id))

    def pending(self, game_id: str) -> DecisionOpened:
        opened = [e for e in self.events(game_id) if isinstance(e, DecisionOpened)]
        return opened[-1]

    def pass_turn(self, game_id: str, at: int | None = None) -> list[Event]:
        """The player owing the current turn passes, discarding their first card."""
        state = self.state(game_id)
        assert state.pending is not None
        return self.handle(game_id, self.rules.pass_command(state), at=at or now_ms())

    def project(self) -> None:
        deadlines.project(self.engine, self.store, computer_pause=self.runtime.computer_pause)

    def claim(self, lookahead: float = 0.0) -> list[deadlines.Due]:
        with self.engine.begin() as conn:
            return deadlines.claim_due(
                conn,
                datetime.now(UTC),
                timedelta(seconds=LEASE_SECONDS),
                timedelta(seconds=lookahead),
            )

    def send(self, due: deadlines.Due) -> None:
        tasks.sender(self.celery)(due)

    def sweep(self) -> list[deadlines.Due]:
        return deadlines.sweep(
            self.engine,
            self.store,
            tasks.sender(self.celery),
            datetime.now(UTC),
            timedelta(seconds=self.lease),
            timedelta(seconds=SWEEP_INTERVAL),
            self.runtime.computer_pause,
        )

    def sweep_until(self, condition: Callable[[], T], timeout: float = 15.0) -> T:
        """Sweep every 0.1 s (as beat would) until ``condition`` holds."""

        def swept() -> T:
            self.sweep()
            return condition()

        return wait_for(swept, timeout, every=0.1)

    def alarms(self, game_id: str) -> list[tuple[int, str]]:
        with self.engine.connect() as conn:
            return [(r["decision"], r["which"]) for r in deadlines.pending(conn, [game_id])]

    def close(self) -> None:
        self.celery.close()
        self.engine.dispose()


# --------------------------------------------------------------------- the Celery side


@dataclass
class Process:
    """A Celery worker or beat process with its log in a file."""

    argv: list[str]
    env: dict[str, str]
    log_path: Path
    popen: subprocess.Popen[bytes] | None = None

    def start(self, ready: str | None = "ready.") -> Process:
        with self.log_path.open("ab") as log:
            self.popen = subprocess.Popen(
                self.argv, env=self.env, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT
            )
        if ready:
            wait_for(lambda: ready in self.log() or self._died(), timeout=30)
            assert self.popen.poll() is None, self.log()
        return self

    def _died(self) -> bool:
        return self.popen is not None and self.popen.poll() is not None

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def kill(self) -> None:
        """SIGKILL: no goodbye, no acknowledgement, no requeue."""
        if self.popen and self.popen.poll() is None:
            self.popen.send_signal(signal.SIGKILL)
            self.popen.wait(10)

    def stop(self) -> None:
        if self.popen and self.popen.poll() is None:
            self.popen.terminate()
            try:
                self.popen.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()


def celery_env(database_url: str, broker_url: str, **extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        DATABASE_URL=database_url,
        CELERY_BROKER_URL=broker_url,
        REDIS_URL="",
        SWEEP_INTERVAL_SECONDS=str(SWEEP_INTERVAL),
        DEADLINE_LEASE_SECONDS=str(LEASE_SECONDS),
        COMPUTER_PAUSE_SECONDS=os.environ.get("COMPUTER_PAUSE_SECONDS", str(COMPUTER_PAUSE)),
        DEADLINE_TEST_RULES=os.environ.get("DEADLINE_TEST_RULES", "real"),
        PYTHONPATH=os.pathsep.join([str(HERE), str(ROOT), env.get("PYTHONPATH", "")]),
    )
    env.update(extra)
    return env


def worker(
    database_url: str,
    broker_url: str,
    log_path: Path,
    pool: str = "solo",
    threads: int = 1,
    **env: str,
) -> Process:
    """One worker process: the solo pool, or ``threads`` threads (``pool="threads"``)."""
    argv = [sys.executable, "-m", "celery", "-A", "deadline_worker_app", "worker"]
    argv += [f"--pool={pool}", f"--concurrency={threads}", "--loglevel=INFO", "--without-mingle"]
    argv += ["--without-gossip", "--without-heartbeat", f"--hostname=w{uuid.uuid4().hex[:6]}@%h"]
    return Process(argv, celery_env(database_url, broker_url, **env), log_path)


def beat(database_url: str, broker_url: str, log_path: Path, **env: str) -> Process:
    schedule = log_path.with_suffix(".schedule")
    argv = [sys.executable, "-m", "celery", "-A", "deadline_worker_app", "beat"]
    argv += ["--loglevel=INFO", f"--schedule={schedule}"]
    return Process(argv, celery_env(database_url, broker_url, **env), log_path)


@contextmanager
def running(process: Process, ready: str | None = "ready.") -> Iterator[Process]:
    process.start(ready)
    try:
        yield process
    finally:
        process.stop()


def succeeded(process: Process, task: str) -> int:
    """How many ``task`` runs the worker's log reports done."""
    return sum(
        1 for line in process.log().splitlines() if f"Task {task}[" in line and "succeeded" in line
    )
