"""Every program stops on a setting it cannot use with one line naming it, exit status 2.

Each case runs the real program in a fresh process from an empty folder (no ``.env``), as
a person would: ``saboteur-bot``, ``alembic`` and ``celery -A infra.celery_app``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ALEMBIC = [sys.executable, "-m", "alembic", "-c", str(ROOT / "alembic.ini")]
CELERY = [sys.executable, "-m", "celery", "-A", "infra.celery_app"]
SABOTEUR_BOT = [sys.executable, "-m", "tgbot.cli"]
# Nothing listens on port 1: connecting is refused at once.
UNREACHABLE_POSTGRES = "postgresql://postgres@127.0.0.1:1/saboteur"


def run(argv: list[str], folder: Path, **env: str) -> subprocess.CompletedProcess[str]:
    environment = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL")
    }
    environment.update(env)
    return subprocess.run(
        argv, cwd=folder, env=environment, capture_output=True, text=True, timeout=120
    )


def one_line(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


@pytest.mark.parametrize(
    ("argv", "variable", "value"),
    [
        (["current"], "DATABASE_URL", "mysql://x/y"),
        (["worker"], "REDIS_URL", "http://x"),
        (["migrate"], "DATABASE_URL", "mysql://x/y"),
        (["migrate"], "DEFAULT_LANGUAGE", "xx"),
    ],
    ids=["alembic", "celery", "saboteur-bot", "saboteur-bot language"],
)
def test_a_setting_that_cannot_be_used_stops_each_program_with_one_line(
    tmp_path: Path, argv: list[str], variable: str, value: str
) -> None:
    program = {"current": ALEMBIC, "worker": CELERY, "migrate": SABOTEUR_BOT}[argv[0]]

    line = one_line(run([*program, *argv], tmp_path, **{variable: value}))

    assert variable in line


def test_celery_report_with_a_bad_redis_url_is_one_line(tmp_path: Path) -> None:
    line = one_line(run([*CELERY, "report"], tmp_path, REDIS_URL="http://x"))

    assert "REDIS_URL" in line and "unix://" in line


@pytest.mark.parametrize("program", ["alembic", "saboteur-bot"])
def test_migrating_an_unreachable_database_is_one_clear_line(tmp_path: Path, program: str) -> None:
    argv = [*ALEMBIC, "upgrade", "head"] if program == "alembic" else [*SABOTEUR_BOT, "migrate"]

    line = one_line(run(argv, tmp_path, DATABASE_URL=UNREACHABLE_POSTGRES))

    assert "DATABASE_URL" in line and "cannot connect" in line and "127.0.0.1" in line


def test_alembic_refuses_an_empty_url_instead_of_migrating_the_default_database(
    tmp_path: Path,
) -> None:
    line = one_line(run([*ALEMBIC, "-x", "url=", "upgrade", "head"], tmp_path))

    assert "-x url=" in line
    assert list(tmp_path.iterdir()) == []  # no ./saboteur.db was made and migrated


PASSWORD = "hunter2-not-for-logs"


@pytest.mark.parametrize(
    ("argv", "variable", "value"),
    [
        (["verify"], "DATABASE_URL", f"postgres//u:{PASSWORD}@db/app"),
        (["migrate"], "MIGRATION_DATABASE_URL", f"postgres//u:{PASSWORD}@db/app"),
        (["migrate"], "DATABASE_URL", f"mysql://u:{PASSWORD}@db/app"),
        (["worker"], "DATABASE_URL", f"postgres//u:{PASSWORD}@db/app"),
        (["current"], "DATABASE_URL", f"postgres//u:{PASSWORD}@db/app"),
    ],
    ids=["verify", "migrate", "another kind of database", "celery", "alembic"],
)
def test_a_mistyped_database_url_is_named_without_its_password(
    tmp_path: Path, argv: list[str], variable: str, value: str
) -> None:
    program = {"current": ALEMBIC, "worker": CELERY}.get(argv[0], SABOTEUR_BOT)

    result = run([*program, *argv], tmp_path, **{variable: value})

    assert variable in one_line(result)
    assert PASSWORD not in result.stderr + result.stdout
