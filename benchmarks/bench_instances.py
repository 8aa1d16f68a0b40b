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
  for a decision opened after the kill;
- the wait for a prompt after the fault, p50 / p99 / max over every decision whose
  prompt reached a chat in the 15 s after the kill: from the decision opening (or the
  kill, for one it left unannounced) to its prompt reaching the chat.

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
AFTER_FAULT_SECONDS = 15.0  # how long the players go on after the kill, prompts timed


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
            takeover, waits = await _kill_and_restart(cluster, tables, played)
        finally:
            await cluster.close()
    latencies = sorted(played.latencies)
    waits.sort()
    return {
        "updates_per_second": played.answered / elapsed,
        "p50_ms": 1000 * _quantile(latencies, 0.5),
        "p99_ms": 1000 * _quantile(latencies, 0.99),
        "telegram_calls_per_second": calls / elapsed,
        "unanswered_presses": float(played.unanswered),
        "restart_to_first_announcement_s": takeover,
        "prompt_wait_after_fault_p50_s": _quantile(waits, 0.5),
        "prompt_wait_after_fault_p99_s": _quantile(waits, 0.99),
        "prompt_wait_after_fault_max_s": waits[-1] if waits else float("nan"),
        "decisions_after_fault": float(len(waits)),
    }


async def _kill_and_restart(
    cluster: Cluster, tables: list[Any], played: Played
) -> tuple[float, list[float]]:
    """Kill the instance announcing the first game, start it again at once, keep playing
    for :data:`AFTER_FAULT_SECONDS`: seconds from the kill to the first prompt of a
    decision opened after it; and for every decision open in that time (the ones the
    kill left unannounced included), seconds from when it opened (the kill, for those)
    to its prompt reaching the chat."""
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

    game = asyncio.create_task(play(cluster.api, tables, AFTER_FAULT_SECONDS, seed=2))
    try:
        at: float = await until(first_after, AFTER_KILL_SECONDS, every=0.02)
        await asyncio.wait_for(asyncio.shield(game), AFTER_KILL_SECONDS + AFTER_FAULT_SECONDS)
    except (AssertionError, TimeoutError):
        return float("nan"), []
    finally:
        game.cancel()
        await asyncio.gather(game, restart, return_exceptions=True)
    return at - killed_at, _waits_after(cluster, before, killed_at)


def _waits_after(cluster: Cluster, before: dict[str, int], killed_at: float) -> list[float]:
    """For each decision whose prompt first reached a chat after ``killed_at``: seconds
    from when it opened (its event recorded; the kill, when that was earlier) to then."""
    assert cluster.engine is not None
    first: dict[tuple[str, int], float] = {}
    shown_before = {(s.game, s.version) for s in cluster.api.seen if s.at <= killed_at}
    for seen in cluster.api.seen:
        key = (seen.game, seen.version)
        after = seen.at > killed_at and seen.version >= before.get(seen.game, 0)
        if after and key not in shown_before:
            first[key] = min(first.get(key, seen.at), seen.at)
    with cluster.engine.connect() as conn:
        recorded = {
            (stream, version): at.timestamp()
            for stream, version, at in conn.execute(
                text("SELECT stream_id, version, recorded_at FROM events")
            ).tuples()
        }
    return [
        at - max(killed_at, recorded.get(key, killed_at))
        for key, at in first.items()
        if at - max(killed_at, recorded.get(key, killed_at)) >= 0
    ]


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
