"""Without Redis, ``saboteur-bot run`` runs Celery's worker and beat itself, and takes
them down with it.

The real-process tests start ``saboteur-bot run`` in a child Python with a stand-in for
the Telegram side (it waits for SIGTERM as python-telegram-bot's polling loop does);
everything else is real: the settings, the supervisor, a Celery worker and beat on the
embedded SQLite broker, and a game on a SQLite database whose turn deadline is due.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

import pytest

from domain.commands import CreateGame, JoinGame, StartGame
from infra import embedded_celery
from infra.bootstrap import bootstrap
from infra.migrations import upgrade
from infra.settings import load_settings
from tgbot import cli

ROOT = Path(__file__).resolve().parents[2]
T = TypeVar("T")

linux_only = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="reads /proc; the death signal is Linux's"
)

# `saboteur-bot run` with the Telegram side replaced by a loop that ends on SIGTERM.
BOT = """
import signal, sys, time, types
from tgbot import cli

def run_bot(settings):
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(True))
    print("bot running", flush=True)
    while not stop:
        time.sleep(0.05)
    return 0

real = cli._module
fake = types.SimpleNamespace(run_bot=run_bot)
cli._module = lambda name: fake if name == "tgbot.telegram.app" else real(name)
sys.exit(cli.main(["run"]))
"""


def wait_for(condition: Callable[[], T], timeout: float = 90.0) -> T:
    limit = time.monotonic() + timeout
    while not (value := condition()):
        if time.monotonic() > limit:
            raise AssertionError(f"not within {timeout} s: {condition.__doc__ or condition}")
        time.sleep(0.1)
    return value


def alive(pid: int) -> bool:
    """The process exists and is not a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


class Bot:
    """``saboteur-bot run`` in a process of its own, its output (and its children's) in
    a file."""

    def __init__(self, folder: Path, database_url: str) -> None:
        self.log_path = folder / "bot.log"
        env = {
            k: v
            for k, v in os.environ.items()
            if k not in ("REDIS_URL", "CELERY_BROKER_URL", "EMBEDDED_WORKER")
        }
        env.update(
            TELEGRAM_BOT_TOKEN="123:test",
            DATABASE_URL=database_url,
            SWEEP_INTERVAL_SECONDS="0.5",
            PYTHONPATH=os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]),
        )
        with self.log_path.open("wb") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-c", BOT], cwd=folder, env=env, stdout=log, stderr=log
            )

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def children(self) -> dict[str, int]:
        found = re.findall(r"embedded Celery (worker|beat) started \(pid (\d+)\)", self.log())
        return {name: int(pid) for name, pid in found}

    def ready(self) -> bool:
        """The bot, the worker and beat have all started."""
        log = self.log()
        return "bot running" in log and "ready." in log and "beat: Starting" in log

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(30)
        for pid in self.children().values():
            if alive(pid):
                os.kill(pid, signal.SIGKILL)


@pytest.fixture
def database(tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'saboteur.db'}"
    upgrade(url)
    return url


@pytest.fixture
def bot(tmp_path: Path, database: str) -> Iterator[Bot]:
    running = Bot(tmp_path, database)
    yield running
    running.close()


def game_with_a_turn_overdue(database_url: str) -> tuple[Callable[[], bool], Callable[[], None]]:
    """A started 3-player game whose first turn ended a second ago; returns a check that
    it was timed out, and a closer."""
    services = bootstrap(load_settings(database_url=database_url, _env_file=None))
    now = round(time.time() * 1000)
    at = now - 11_000  # the shortest turn is 10 s
    game = "game-overdue"
    services.games.handle(game, CreateGame(1, "Ann", "base", -7, turn_seconds=10), at=at)
    services.games.handle(game, JoinGame(2, "Bo"), at=at)
    services.games.handle(game, JoinGame(3, "Cy"), at=at)
    services.games.handle(game, StartGame(1), at=at, seed=5)

    def timed_out() -> bool:
        """The turn was timed out."""
        return any(e.type == "decision_timed_out" for e in services.store.load(game))

    return timed_out, services.close


@pytest.mark.slow
@linux_only
def test_the_bot_runs_a_worker_and_beat_that_fire_a_due_deadline_and_stops_them_with_it(
    bot: Bot, database: str
) -> None:
    timed_out, close = game_with_a_turn_overdue(database)
    try:
        wait_for(timed_out)
    finally:
        close()
    children = bot.children()
    assert set(children) == {"worker", "beat"}
    assert all(alive(pid) for pid in children.values())

    bot.process.send_signal(signal.SIGTERM)

    assert bot.process.wait(60) == 0, bot.log()
    assert not any(alive(pid) for pid in children.values()), bot.log()


@pytest.mark.slow
@linux_only
def test_a_bot_killed_without_a_goodbye_leaves_no_worker_or_beat_behind(bot: Bot) -> None:
    wait_for(bot.ready)
    children = bot.children()

    bot.process.kill()
    bot.process.wait(30)

    wait_for(lambda: not any(alive(pid) for pid in children.values()), timeout=30)


@pytest.mark.parametrize(
    ("env", "starts"),
    [
        ({}, True),
        ({"REDIS_URL": "redis://cache:6379/0"}, False),
        ({"CELERY_BROKER_URL": "sqla+sqlite:///elsewhere.db"}, False),
        ({"EMBEDDED_WORKER": "off"}, False),
        ({"EMBEDDED_WORKER": "on", "REDIS_URL": "redis://cache:6379/0"}, True),
    ],
    ids=["no redis", "redis", "own broker", "off", "on"],
)
def test_the_bot_starts_worker_and_beat_only_without_a_broker_of_its_own(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, env: dict[str, str], starts: bool
) -> None:
    for name in ("REDIS_URL", "CELERY_BROKER_URL", "EMBEDDED_WORKER"):
        monkeypatch.delenv(name, raising=False)
    database = f"sqlite:///{tmp_path / 'bot.db'}"
    upgrade(database)
    for name, value in {"TELEGRAM_BOT_TOKEN": "123:test", "DATABASE_URL": database, **env}.items():
        monkeypatch.setenv(name, value)
    started: list[bool] = []
    monkeypatch.setattr(
        embedded_celery.EmbeddedCelery, "start", lambda self: started.append(True) or self
    )
    monkeypatch.setattr(embedded_celery.EmbeddedCelery, "stop", lambda self: None)
    monkeypatch.setattr(cli, "_module", lambda name: types.SimpleNamespace(run_bot=lambda s: 0))

    assert cli.main(["run"]) == 0
    assert started == ([True] if starts else [])
