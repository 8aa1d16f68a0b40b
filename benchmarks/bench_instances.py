"""The bot on several instances: ``python -m benchmarks.bench_bot --instances 1 2``.

For each count of instances, in the same run and on the same machine: a fresh PostgreSQL
database, Redis (BENCH_REDIS_URL, else TEST_REDIS_URL, else redis://127.0.0.1:6379/15; its
database is flushed), a real Celery worker and beat, and that many ``saboteur-bot web``
processes behind a round-robin forwarder of webhook updates (the cluster of the tests,
tests/cluster/cluster.py), Telegram being the fake Bot API. The players of ``--games``
groups (the base game, three players each) press buttons of the prompts they were sent,
as in the single-process benchmark. Measured, for ``--seconds``:

- updates/s: presses answered per second;
- p99 latency: press queued to its answer reaching Telegram;
- Telegram calls/s: every call the instances made;

then the instance announcing the first game is killed (SIGKILL) and started again at
once, the players going on:

- restart to first announcement: from the kill to the first prompt that reaches a chat
  for a decision opened after the kill.

The counts are printed side by side.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from sqlalchemy import text

from tests.cluster.cluster import Cluster, until
from tests.cluster.players import Played, play, set_up

REDIS = os.environ.get(
    "BENCH_REDIS_URL", os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/15")
)
AFTER_KILL_SECONDS = 30.0  # bound on the first announcement after a kill


def _quantile(ordered: list[float], q: float) -> float:
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))] if ordered else 0.0


def _flush_redis() -> None:
    import redis

    client = redis.Redis.from_url(REDIS)
    try:
        client.flushdb()
    finally:
        client.close()


async def measure(
    database_url: str, instances: int, games: int, seconds: float
) -> dict[str, float]:
    _flush_redis()
    with tempfile.TemporaryDirectory(prefix="bench-instances-") as logs:
        cluster = Cluster(database_url, REDIS, Path(logs), size=instances)
        try:
            await cluster.start()
            tables = await set_up(cluster.api, games)
            first_call = len(cluster.api.calls)
            started = time.monotonic()
            played = await play(cluster.api, tables, seconds)
            elapsed = time.monotonic() - started
            calls = len(cluster.api.calls) - first_call
            takeover = await _kill_and_restart(cluster, tables, played)
        finally:
            await cluster.close()
    latencies = sorted(played.latencies)
    return {
        "updates_per_second": played.answered / elapsed,
        "p50_ms": 1000 * _quantile(latencies, 0.5),
        "p99_ms": 1000 * _quantile(latencies, 0.99),
        "telegram_calls_per_second": calls / elapsed,
        "unanswered_presses": float(played.unanswered),
        "restart_to_first_announcement_s": takeover,
    }


async def _kill_and_restart(cluster: Cluster, tables: list[Any], played: Played) -> float:
    """Kill the instance announcing the first game, start it again at once, keep playing:
    seconds from the kill to the first prompt of a decision opened after it."""
    assert cluster.engine is not None
    victim = cluster.holder_of(tables[0].game) or cluster.instances[0]
    with cluster.engine.connect() as conn:
        before: dict[str, int] = dict(
            conn.execute(text("SELECT stream_id, max(version) FROM events GROUP BY stream_id"))
            .tuples()
            .all()
        )
    killed_at = time.time()
    victim.kill()
    restart = asyncio.create_task(cluster.restart(victim))
    seen = cluster.api.seen

    def first_after() -> float | None:
        fresh = [s.at for s in seen if s.at > killed_at and s.version > before.get(s.game, 0)]
        return min(fresh) if fresh else None

    game = asyncio.create_task(play(cluster.api, tables, AFTER_KILL_SECONDS, seed=2))
    try:
        at: float = await until(first_after, AFTER_KILL_SECONDS, every=0.02)
    except AssertionError:
        return float("nan")
    finally:
        game.cancel()
        await asyncio.gather(game, restart, return_exceptions=True)
    return at - killed_at


def run(counts: list[int], games: int, seconds: float) -> dict[str, dict[str, float]]:
    from benchmarks.databases import create_database, drop_database
    from infra.migrations import upgrade

    results = {}
    for count in counts:
        url = create_database()
        try:
            upgrade(url)
            results[f"{count} inst."] = asyncio.run(measure(url, count, games, seconds))
        finally:
            drop_database(url)
    return results


def report(results: dict[str, dict[str, float]]) -> list[str]:
    columns = list(results)
    lines = [f"{'':34}" + "".join(f"{c:>12}" for c in columns)]
    for key in results[columns[0]]:
        lines.append(f"{key:34}" + "".join(f"{results[c][key]:12.2f}" for c in columns))
    return lines
