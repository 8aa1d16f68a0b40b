"""Every benchmark runs, in a few seconds, as its README line says: a smoke run of each.

A benchmark that nothing runs rots unnoticed (one failed at once with an AttributeError
for weeks). Each is run here as a process with the smallest arguments that still make it
measure something, and must end without a traceback, print its verdicts, and report
that it measured something. Its targets are not judged: speed belongs to the full runs
(see the README's benchmark table), which a busy machine would fail.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import POSTGRES_SERVER_URL, REDIS_SERVER_URL

ROOT = Path(__file__).resolve().parent.parent

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]

# name: (arguments after `python`, needs PostgreSQL and Redis)
SMOKE: dict[str, tuple[list[str], bool]] = {
    "board": (["benchmarks/bench_board.py", "--runs", "5"], False),
    "rules": (["benchmarks/bench_rules.py", "--smoke"], False),
    "rules --simulate": (["benchmarks/bench_rules.py", "--simulate", "--smoke"], False),
    "render": (["-m", "benchmarks.bench_render", "--runs", "2"], False),
    "replay": (["benchmarks/bench_replay.py", "--steps", "3"], False),
    "ratings": (["-m", "benchmarks.bench_ratings", "--games", "20", "--ends", "2"], False),
    "strategy": (
        [
            "benchmarks/bench_strategy.py",
            "--part",
            "strength",
            "--games",
            "2",
            "--players",
            "3",
            "--editions",
            "base",
            "--runs",
            "5",
        ],
        False,
    ),
    "strategy levels": (
        [
            "benchmarks/bench_strategy.py",
            "--part",
            "levels",
            "--games",
            "1",
            "--rows",
            "base:3",
            "--runs",
            "2",
            "--hard-runs",
            "1",
            "--seed",
            "6",  # of seeds 1 to 8, the cheapest row: its hard games are short
        ],
        False,
    ),
    "event store": (
        [
            "benchmarks/bench_event_store.py",
            "--games",
            "6",
            "--events",
            "60",
            "--distinct",
            "3",
            "--loads",
            "3",
            "--postgres-url",
            POSTGRES_SERVER_URL,
        ],
        True,
    ),
    "bot": (
        [
            "-m",
            "benchmarks.bench_bot",
            "--games",
            "1",
            "--seconds",
            "1",
            "--editions",
            "base",
            "--edits",
            "both",
        ],
        True,
    ),
    "instances": (
        [
            "-m",
            "benchmarks.bench_instances",
            "--instances",
            "2",
            "--games",
            "2",
            "--seconds",
            "1",
            "--fault-seconds",
            "4",
            # One fault, mended at once: a SIGTERM (a deploy, waited for) and a start
            # again. Every fault is the full run's; each one more costs a start, most of
            # the run's CPU.
            "--faults",
            "term, restart",
        ],
        True,
    ),
    "memory": (["-m", "benchmarks.bench_memory", "--games", "4", "--every", "2"], True),
    "deadlines --kill": (
        ["benchmarks/bench_deadlines.py", "--kill", "1", "--redis-url", REDIS_SERVER_URL],
        True,
    ),
    "deadlines": (
        [
            "benchmarks/bench_deadlines.py",
            "--games",
            "10",
            "--window",
            "3",
            "--redis-url",
            REDIS_SERVER_URL,
        ],
        True,
    ),
}


@pytest.mark.parametrize("name", sorted(SMOKE))
def test_the_benchmark_runs_and_reports_its_verdicts(
    name: str, request: pytest.FixtureRequest
) -> None:
    arguments, services = SMOKE[name]
    if services:
        request.getfixturevalue("postgres_available")
        request.getfixturevalue("redis_url")
    env = {
        **os.environ,
        "TEST_POSTGRES_URL": POSTGRES_SERVER_URL,
        "TEST_REDIS_URL": REDIS_SERVER_URL,
        "BENCH_REDIS_URL": REDIS_SERVER_URL,
    }
    done = subprocess.run(
        [sys.executable, *arguments],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=540,
    )
    output = done.stdout + done.stderr
    assert "Traceback" not in output, output[-4000:]
    # 0: every target met; 1: one missed (not judged here); anything else: it broke.
    assert done.returncode in (0, 1), output[-4000:]
    assert "PASS" in output or "FAIL" in output, output[-4000:]
    assert "measured nothing" not in output, output[-4000:]
