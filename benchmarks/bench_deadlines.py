"""Deadline lateness: 1,000 concurrent games with pending deadlines on one Celery worker.

Starts a real worker (one process: the Procfile's threads pool, or ``--threads 0`` for the
solo pool) and beat against a fresh PostgreSQL database and Redis (or the embedded
broker), starts ``--games`` games of the real rules engine whose first deadlines are spread
evenly over ``--window`` seconds, and prints how late each timeout was appended:
``recorded_at`` of ``DecisionTimedOut`` minus the deadline, as p50, p90, p99 and max.
Target: p99 ≤ the sweep interval + 1 s (PASS or FAIL). ``--rules clockwork`` swaps the
rules engine for a decider with no board, to measure the machinery alone.

``--kill N`` measures instead how late a deadline fires when the worker running its task
dies: N times, a game's deadline is taken by a worker that holds the task until it is
killed (SIGKILL), beside a second worker already running, as in production, with the
lease the bot runs with by default (``DEADLINE_LEASE_SECONDS``). Measured from the kill
(the second worker's start-up before it is no part of it). Target: each fires within two
sweep intervals, the lease and 2 s of the kill.

    .venv/bin/python benchmarks/bench_deadlines.py --games 1000 --window 60
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "deadlines"), str(ROOT)]

from conftest import (  # noqa: E402  (tests/conftest.py: database helpers)
    create_postgres_database,
    drop_postgres_database,
)
from deadline_harness import (  # noqa: E402
    HOLDING,
    SWEEP_INTERVAL,
    Table,
    beat,
    now_ms,
    running,
    wait_for,
    worker,
)
from sqlalchemy import func, select  # noqa: E402

from domain.events import DecisionTimedOut  # noqa: E402
from infra import deadlines  # noqa: E402
from infra.migrations import upgrade  # noqa: E402
from infra.schema import events  # noqa: E402
from infra.settings import load_settings  # noqa: E402


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--window", type=float, default=60.0, help="deadlines spread (s)")
    parser.add_argument("--sweep", type=float, default=2.0, help="sweep interval (s)")
    parser.add_argument("--broker", choices=("redis", "embedded"), default="redis")
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/14")
    parser.add_argument("--turn", type=int, default=60, help="turn timer of the games (s)")
    parser.add_argument(
        "--rules",
        choices=("real", "clockwork"),
        default="real",
        help="real: the rules engine (default); clockwork: turns and the clock only",
    )
    parser.add_argument(
        "--threads", type=int, default=8, help="worker threads, as the Procfile (0: solo pool)"
    )
    parser.add_argument(
        "--kill", type=int, default=0, metavar="N", help="N deadlines whose worker is killed"
    )
    args = parser.parse_args()
    if args.kill:
        return killed_workers(args.kill, args.redis_url)

    import redis

    work = Path(tempfile.mkdtemp(prefix="bench-deadlines-"))
    database = create_postgres_database("bench_deadlines")
    if args.broker == "redis":
        broker = args.redis_url
        redis.Redis.from_url(broker).flushdb()
    else:
        broker = f"sqla+sqlite:///{work / 'broker.db'}"
    env = {
        "SWEEP_INTERVAL_SECONDS": str(args.sweep),
        "DEADLINE_LEASE_SECONDS": "30",
        "DEADLINE_TEST_RULES": args.rules,
    }
    os.environ["DEADLINE_TEST_RULES"] = args.rules
    pool, threads = ("threads", args.threads) if args.threads else ("solo", 1)
    table = Table(database, broker)
    try:
        upgrade(database)
        began = time.monotonic()
        with ThreadPoolExecutor(8) as executor:
            games = list(executor.map(lambda _: table.lobby(args.turn), range(args.games)))
        lobbies = time.monotonic() - began
        print(f"{args.games} lobbies in {lobbies:.1f} s")

        with (
            running(worker(database, broker, work / "worker.log", pool, threads, **env)),
            running(beat(database, broker, work / "beat.log", **env), ready="beat: Starting"),
        ):
            # Starting is one command per game against four for a lobby: leave room for it.
            first = now_ms() + round((0.6 * lobbies + 10) * 1000)
            step = args.window * 1000 / args.games
            owed = {g: first + round(i * step) for i, g in enumerate(games)}
            began = time.monotonic()
            with ThreadPoolExecutor(8) as executor:
                list(executor.map(lambda g: table.start(g, owed[g], args.turn), games))
            print(f"{args.games} games started in {time.monotonic() - began:.1f} s")
            assert now_ms() < first, "starting the games took longer than planned"

            def fired() -> int:
                with table.engine.connect() as conn:
                    return int(
                        conn.execute(
                            select(func.count(func.distinct(events.c.stream_id))).where(
                                events.c.type == DecisionTimedOut.TYPE
                            )
                        ).scalar_one()
                    )

            wait_for(lambda: fired() >= args.games, timeout=args.window + 120, every=1.0)

        lateness: list[float] = []
        with table.engine.connect() as conn:
            rows = conn.execute(
                select(events.c.stream_id, events.c.payload, events.c.recorded_at)
                .where(events.c.type == DecisionTimedOut.TYPE)
                .order_by(events.c.position)
            ).all()
            dispatched = conn.execute(select(func.count()).select_from(deadlines.deadlines))
            left = int(dispatched.scalar_one())
        seen: set[str] = set()
        for stream_id, _payload, recorded_at in rows:
            if stream_id in seen:
                continue  # a game's later turns: only the first deadline is measured
            seen.add(stream_id)
            lateness.append(recorded_at.timestamp() - owed[stream_id] / 1000)
        print(
            f"broker={args.broker} games={args.games} window={args.window:.0f}s "
            f"rules={args.rules} sweep={args.sweep}s turn={args.turn}s pool={pool}x{threads} "
            f"timeouts={len(lateness)} "
            f"alarms still pending={left}"
        )
        print(
            "lateness (deadline -> event appended): "
            + " ".join(f"p{p}={percentile(lateness, p) * 1000:.0f}ms" for p in (50, 90, 99))
            + f" max={max(lateness) * 1000:.0f}ms min={min(lateness) * 1000:.0f}ms"
            + f" mean={statistics.mean(lateness) * 1000:.0f}ms"
        )
        target = args.sweep + 1.0
        p99 = percentile(lateness, 99)
        verdict = "PASS" if p99 <= target and len(lateness) == args.games else "FAIL"
        print(f"target p99 <= sweep + 1 s = {target:.1f} s: p99 {p99:.2f} s: {verdict}")
        return 0 if verdict == "PASS" else 1
    finally:
        table.close()
        drop_postgres_database(database)


def killed_workers(times: int, redis_url: str) -> int:
    """How late a deadline fires after the worker holding its task is killed (the sweep
    is this process's, every SWEEP_INTERVAL, as in the tests)."""
    sweep = SWEEP_INTERVAL
    import redis

    redis.Redis.from_url(redis_url).flushdb()
    work = Path(tempfile.mkdtemp(prefix="bench-deadlines-kill-"))
    database = create_postgres_database("bench_deadlines")
    lease = load_settings(_env_file=None).deadline_lease_seconds
    env: dict[str, str] = {}
    table = Table(database, redis_url)
    table.lease = lease
    lateness: list[float] = []
    try:
        upgrade(database)
        for n in range(times):
            first = worker(
                database, redis_url, work / f"first{n}.log", DEADLINE_TEST_HOLD_AFTER="0", **env
            )
            second = worker(database, redis_url, work / f"second{n}.log", **env)
            first.start()
            try:
                game = table.new_game(first_deadline_in=0.5)
                owed = table.pending(game)
                table.sweep_until(lambda first=first: HOLDING in first.log(), timeout=60)  # type: ignore[misc]
                second.start()
            finally:
                first.kill()
            killed = time.time()
            try:
                table.sweep_until(
                    lambda game=game: any(  # type: ignore[misc]
                        isinstance(e, DecisionTimedOut) for e in table.events(game)
                    ),
                    timeout=120,
                )
            finally:
                second.stop()
            stored = next(e for e in table.store.load(game) if e.type == DecisionTimedOut.TYPE)
            lateness.append(stored.recorded_at.timestamp() - killed)
            late = stored.recorded_at.timestamp() - owed.deadline / 1000
            print(
                f"killed worker {n + 1}: fired {lateness[-1]:.2f} s after the kill "
                f"({late:.2f} s after the deadline)"
            )
        target = 2 * sweep + lease + 2.0
        worst = max(lateness)
        verdict = "PASS" if worst <= target else "FAIL"
        print(
            f"{times} deadlines whose worker was killed, lease {lease:g} s, sweep {sweep:g} s: "
            f"median {statistics.median(lateness):.2f} s, max {worst:.2f} s after the kill — "
            f"target "
            f"<= 2 × sweep + lease + 2 s = {target:.1f} s: {verdict}"
        )
        return 0 if verdict == "PASS" else 1
    finally:
        table.close()
        drop_postgres_database(database)


if __name__ == "__main__":
    sys.exit(main())
