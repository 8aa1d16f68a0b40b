"""The bot on several instances, and the wait for a prompt after each kind of fault:
``python -m benchmarks.bench_bot --instances 1 2``.

For each count of instances, in the same run and on the same machine: a fresh PostgreSQL
database, Redis (BENCH_REDIS_URL, else TEST_REDIS_URL, else redis://127.0.0.1:6379/15; its
database is flushed), a real Celery worker and beat, and that many ``saboteur-bot web``
processes behind a round-robin forwarder of webhook updates (the cluster of the tests,
tests/cluster/cluster.py), Telegram being the fake Bot API. The players of ``--games``
groups (the base game, three players each) press buttons of the prompts they were sent,
as in the single-process benchmark. Measured, for ``--seconds``:

- updates/s: presses answered per second;
- p99 latency: press queued to its answer reaching Telegram;
- Telegram calls/s: every call the instances made.

Then each fault of ``--faults`` in turn (:data:`FAULTS`), the players going on for
``--fault-seconds`` after it, everything mended and rebalanced before the next:

- the wait for a prompt after the fault, p50 / p99 / max over every decision whose prompt
  first reached a chat in that window: from the decision opening (or the fault, for one
  opened before it) to its prompt reaching the chat; PASS when the longest is within
  :data:`TARGET_SECONDS`;
- where the seconds go, for the games the instance at fault held (medians, and the
  longest): *lapse*, from the fault until its claims stopped holding (they expired, or it
  gave them up); *takeover*, from then (or from the game's first event after the fault,
  when later: nobody takes a game with nothing to announce) until another instance held
  the game; *first call*, from then until the prompt of a decision already waiting
  reached the chat;
- restart: from exec to ``/readyz`` 200, where the fault restarts the instance;
- kill to prompt: from the fault to the first prompt of a decision opened after it.

Every figure is printed with the load average it was taken at: the machine may be busy.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from sqlalchemy import text

from tests.cluster.cluster import ROOT, START_SECONDS, Cluster, Instance, until
from tests.cluster.players import Played, StopAt, Table, play, set_up

REDIS = os.environ.get(
    "BENCH_REDIS_URL", os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/15")
)
TARGET_SECONDS: Final = 3.0  # the longest wait for a prompt after a fault
AFTER_FAULT_SECONDS = 15.0  # how long the players go on after a fault, prompts timed
CUT_SECONDS: Final = 8.0  # how long an instance is cut off from Telegram
VERBOSE = bool(os.environ.get("BENCH_VERBOSE"))  # print each fault's timeline
POLL_SECONDS: Final = 0.02  # how often the claims are looked at during a fault
REBALANCE_SECONDS: Final = 20.0  # bound on every live instance holding games again

# The faults, by name: whether it needs a survivor (two instances or more).
FAULTS: Final = {
    "kill, restart": False,  # SIGKILL of the holder of a game; started again at once
    "kill, none": True,  # SIGKILL, not started again in the window
    "term, restart": False,  # SIGTERM (a deploy): waited for, then started again
    "term, none": True,  # SIGTERM, not started again in the window
    "worker kill": False,  # SIGKILL of the Celery worker; started again at once
    "redis flush": False,  # FLUSHDB: the rate windows, the throttle, the shown edits
    "telegram cut": True,  # the holder's connections to Telegram cut for CUT_SECONDS
}


def _quantile(ordered: list[float], q: float) -> float:
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))] if ordered else float("nan")


def load() -> float:
    """The 1-minute load average."""
    return os.getloadavg()[0]


def _flush_redis() -> None:
    import redis

    client = redis.Redis.from_url(REDIS)
    try:
        client.flushdb()
    finally:
        client.close()


# ------------------------------------------------------------------------- the claims


@dataclass
class ClaimWatch:
    """The claims' rows, looked at every :data:`POLL_SECONDS` (Unix s, stream, holder,
    expiry in Unix ms; a missing row as holder "")."""

    cluster: Cluster
    rows: list[tuple[float, dict[str, tuple[str, int]]]] = field(default_factory=list)
    _task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._run())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)

    def look(self) -> dict[str, tuple[str, int]]:
        assert self.cluster.engine is not None
        with self.cluster.engine.connect() as conn:
            return {
                stream: (holder, expires)
                for stream, holder, expires in conn.execute(
                    text("SELECT stream_id, holder, expires_at FROM game_claims")
                )
            }

    async def _run(self) -> None:
        while True:
            rows = await asyncio.to_thread(self.look)
            self.rows.append((time.time(), rows))
            await asyncio.sleep(POLL_SECONDS)

    def lapsed(self, game: str, holder: str, since: float) -> float | None:
        """When ``holder``'s claim on ``game`` stopped holding, after ``since``: its
        expiry, or the first look that found it gone."""
        for at, rows in self.rows:
            if at < since:
                continue
            who, expires = rows.get(game, ("", 0))
            if who != holder:
                return at
            if expires < at * 1000:
                return expires / 1000
        return None

    def taken(self, game: str, holder: str, since: float) -> float | None:
        """The first look after ``since`` that found another instance holding ``game``."""
        for at, rows in self.rows:
            who, expires = rows.get(game, ("", 0))
            if at >= since and who not in ("", holder) and expires >= at * 1000:
                return at
        return None


def holder_name(cluster: Cluster, instance: Instance) -> str | None:
    assert cluster.engine is not None
    with cluster.engine.connect() as conn:
        holder: str | None = conn.execute(
            text("SELECT holder FROM instances WHERE holder LIKE :p"), {"p": f"%:{instance.pid}:%"}
        ).scalar()
    return holder


# ------------------------------------------------------------------------- the faults


@dataclass
class Outcome:
    """What one fault cost."""

    fault: str
    load: float  # the load average as it began
    waits: list[float] = field(default_factory=list)
    lapse: list[float] = field(default_factory=list)
    takeover: list[float] = field(default_factory=list)
    first_call: list[float] = field(default_factory=list)
    restart: float = float("nan")  # exec to /readyz
    to_prompt: float = float("nan")  # fault to the first prompt of a decision after it
    skipped: str = ""
    note: str = ""  # what went wrong beside (a restart not ready in time)

    @property
    def worst(self) -> float:
        return max(self.waits) if self.waits else float("nan")

    def verdict(self) -> str:
        if self.skipped:
            return f"skipped ({self.skipped})"
        if not self.waits:
            return "FAIL (measured nothing: no prompt after the fault)"
        ok = self.worst <= TARGET_SECONDS
        return f"{'PASS' if ok else 'FAIL'} (max {self.worst:.2f} s, target {TARGET_SECONDS} s)"


def _versions(cluster: Cluster) -> dict[str, int]:
    assert cluster.engine is not None
    with cluster.engine.connect() as conn:
        return dict(
            (stream, version)
            for stream, version in conn.execute(
                text("SELECT stream_id, max(version) FROM events GROUP BY stream_id")
            )
        )


def _recorded(cluster: Cluster) -> dict[tuple[str, int], float]:
    assert cluster.engine is not None
    with cluster.engine.connect() as conn:
        return {
            (stream, version): at.timestamp()
            for stream, version, at in conn.execute(
                text("SELECT stream_id, version, recorded_at FROM events")
            )
        }


def _victim(cluster: Cluster, tables: list[Table]) -> Instance:
    """The live instance holding the most of the tables' games."""
    counts: dict[str, int] = {}
    for table in tables:
        holder = cluster.holder_of(table.game)
        if holder is not None:
            counts[holder.name] = counts.get(holder.name, 0) + 1
    alive = [i for i in cluster.instances if i.alive]
    return max(alive, key=lambda i: counts.get(i.name, 0))


async def _mend(cluster: Cluster, tables: list[Table]) -> None:
    """Every instance and the worker running and ready, Telegram reachable, and every
    instance holding a game again (or :data:`REBALANCE_SECONDS` passed)."""
    assert cluster.http is not None
    for instance in cluster.instances:
        if instance.proxy is not None:
            instance.proxy.mend()
        if not instance.alive:
            await cluster.restart(instance)
    worker = cluster.celery[0]
    if not worker.alive:
        worker.start()
    games = [t.game for t in tables]

    def balanced() -> bool:
        holders = {getattr(cluster.holder_of(g), "name", None) for g in games}
        return all(i.name in holders for i in cluster.instances) or len(games) < len(
            cluster.instances
        )

    with contextlib.suppress(AssertionError):  # one benched after a cut takes none a while
        await until(balanced, REBALANCE_SECONDS, every=0.2)
    await asyncio.sleep(1.0)


async def fault_and_play(
    cluster: Cluster, tables: list[Table], fault: str, seconds: float
) -> Outcome:
    """Cause ``fault``, the players going on for ``seconds``; what it cost."""
    out = Outcome(fault, load())
    survivors_needed = FAULTS[fault]
    if survivors_needed and len(cluster.instances) < 2:
        out.skipped = "needs a second instance"
        return out
    try:
        await _mend(cluster, tables)
    except AssertionError as error:  # an instance that would not start again
        out.skipped = f"not mended: {str(error)[:120]}"
        return out
    before = _versions(cluster)
    victim = _victim(cluster, tables)
    holder = holder_name(cluster, victim) or ""
    held = [t.game for t in tables if cluster.holder_of(t.game) is victim]
    watch = ClaimWatch(cluster)
    watch.start()
    await asyncio.sleep(3 * POLL_SECONDS)
    stop = StopAt(time.monotonic() + seconds)
    game = asyncio.create_task(play(cluster.api, tables, seconds, seed=7, stop=stop))
    at = time.time()
    after: Callable[[], Awaitable[None]] | None = None
    if fault.startswith("kill"):
        victim.kill()
    elif fault.startswith("term"):
        victim.popen.terminate()  # type: ignore[union-attr]
    elif fault == "worker kill":
        cluster.celery[0].kill()
        cluster.celery[0].start()
    elif fault == "redis flush":
        await asyncio.to_thread(_flush_redis)
    elif fault == "telegram cut":
        assert victim.proxy is not None
        victim.proxy.cut()

        async def mend() -> None:
            await asyncio.sleep(CUT_SECONDS)
            victim.proxy.mend()  # type: ignore[union-attr]

        after = mend
    if fault.endswith("restart"):

        async def restart() -> None:
            await asyncio.to_thread(victim.popen.wait, 60)  # type: ignore[union-attr]
            started = time.monotonic()
            await cluster.restart(victim)
            out.restart = time.monotonic() - started

        after = restart
    side = asyncio.create_task(after()) if after is not None else None
    try:
        await game
        if side is not None:
            await asyncio.wait_for(side, START_SECONDS + CUT_SECONDS)
    except (TimeoutError, AssertionError) as error:  # a restart that never got ready
        out.note = f"{type(error).__name__}: {str(error)[:200]}"
    finally:
        for task in (game, side):
            if task is not None:
                task.cancel()
        await asyncio.gather(game, *([side] if side else []), return_exceptions=True)
        await watch.stop()
    recorded = await asyncio.to_thread(_recorded, cluster)
    out.waits = sorted(_waits_after(cluster, before, at, recorded))
    fresh = [s.at for s in cluster.api.seen if s.at > at and s.version > before.get(s.game, 0)]
    out.to_prompt = (min(fresh) - at) if fresh else float("nan")
    if fault.startswith(("kill", "term", "telegram")):
        _breakdown(cluster, watch, out, held, holder, at, recorded)
    if VERBOSE:
        _timeline(cluster, watch, held, holder, at, recorded)
    return out


def _timeline(
    cluster: Cluster,
    watch: ClaimWatch,
    held: list[str],
    holder: str,
    at: float,
    recorded: dict[tuple[str, int], float],
) -> None:
    """Print what happened to each game the instance at fault held (seconds after it)."""
    for game in held:
        print(f"  {game}: lapsed {_after(watch.lapsed(game, holder, at), at)}")
        last = ""
        for seen_at, rows in watch.rows:
            who = rows.get(game, ("", 0))[0]
            if who != last:
                print(f"    {seen_at - at:6.2f} held by {who or 'nobody'}")
                last = who
        for (stream, version), when in sorted(recorded.items(), key=lambda kv: kv[1]):
            if stream == game and when > at - 2:
                print(f"    {when - at:6.2f} v{version} recorded")
        for s in cluster.api.seen:
            if s.game == game and s.at > at - 2:
                print(f"    {s.at - at:6.2f} prompt v{s.version} reached {s.chat_id}")
        for row in _failed_deliveries(cluster, game, at):
            print(
                f"    {row[0] / 1000 - at:6.2f} {row[1]} {row[2]} to {row[3]} {row[4]} after"
                f" {row[5]} failed tries, next try at {row[6] / 1000 - at:.2f}"
            )


def _failed_deliveries(cluster: Cluster, game: str, at: float) -> list[tuple[Any, ...]]:
    """The game's deliveries that failed a try since ``at``: when created, key, kind, chat,
    state now, tries failed, next try (the backoff a takeover may have waited on)."""
    assert cluster.engine is not None
    with cluster.engine.connect() as conn:
        return [
            tuple(row)
            for row in conn.execute(
                text(
                    "SELECT created_at, key, kind, chat_id, state, attempts, next_attempt_at"
                    " FROM deliveries WHERE stream_id = :g AND attempts > 0"
                    " AND updated_at >= :since ORDER BY created_at"
                ),
                {"g": game, "since": int(at * 1000)},
            )
        ]


def _after(value: float | None, at: float) -> str:
    return "never" if value is None else f"{value - at:.2f}"


def _breakdown(
    cluster: Cluster,
    watch: ClaimWatch,
    out: Outcome,
    held: list[str],
    holder: str,
    at: float,
    recorded: dict[tuple[str, int], float],
) -> None:
    """Lapse, takeover and first call of each game ``holder`` held at the fault (``at``)."""
    shown_before = {(s.game, s.version) for s in cluster.api.seen if s.at <= at}
    for game in held:
        lapsed = watch.lapsed(game, holder, at)
        if lapsed is None:
            continue
        out.lapse.append(max(0.0, lapsed - at))
        taken = watch.taken(game, holder, at)
        if taken is None:
            continue  # nothing happened in it for an instance to take it up
        # A free game is taken once something is to be announced in it: its first event
        # after the fault (the lapse, if one was waiting already).
        new = [when for (g, _), when in recorded.items() if g == game and at < when <= taken]
        needed = max(lapsed, min(new)) if new else lapsed
        out.takeover.append(max(0.0, taken - needed))
        # The first prompt after the takeover of a decision that was waiting by then.
        prompts = sorted(
            s.at
            for s in cluster.api.seen
            if s.game == game
            and s.at >= taken
            and (s.game, s.version) not in shown_before
            and recorded.get((s.game, s.version), taken) <= taken
        )
        if prompts:
            out.first_call.append(prompts[0] - taken)


def _waits_after(
    cluster: Cluster,
    before: dict[str, int],
    at: float,
    recorded: dict[tuple[str, int], float],
) -> list[float]:
    """For each decision whose prompt first reached a chat after ``at``: seconds from
    when it opened (its event recorded; ``at``, when that was earlier) to then."""
    first: dict[tuple[str, int], float] = {}
    shown_before = {(s.game, s.version) for s in cluster.api.seen if s.at <= at}
    for seen in cluster.api.seen:
        key = (seen.game, seen.version)
        if seen.at > at and seen.version >= before.get(seen.game, 0) and key not in shown_before:
            first[key] = min(first.get(key, seen.at), seen.at)
    waits = [shown - max(at, recorded.get(key, at)) for key, shown in first.items()]
    return [w for w in waits if w >= 0]


# ------------------------------------------------------------------------------ a run


def start_seconds() -> dict[str, float]:
    """What a start of the web process costs before it serves: its imports alone (a
    process that imports what ``saboteur-bot web`` does, and ends)."""
    code = (
        "import time; t = time.perf_counter();"
        "import tgbot.cli, tgbot.telegram.web, tgbot.telegram.app, infra.bootstrap, "
        "tgbot.miniapp.api;"
        "print(time.perf_counter() - t)"
    )
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return {
        "imports_s": float(done.stdout.strip().splitlines()[-1]),
        "process_s": time.monotonic() - started,
    }


async def measure(
    database_url: str,
    instances: int,
    games: int,
    seconds: float,
    faults: list[str],
    fault_seconds: float,
    root: Path = ROOT,
) -> tuple[dict[str, float], list[Outcome]]:
    _flush_redis()
    with tempfile.TemporaryDirectory(prefix="bench-instances-") as scratch:
        logs = Path(os.environ.get("BENCH_LOGS") or scratch)  # where the processes log
        logs.mkdir(parents=True, exist_ok=True)
        cluster = Cluster(database_url, REDIS, logs, size=instances, root=root)
        try:
            await cluster.start()
            tables = await set_up(cluster.api, games)
            first_call = len(cluster.api.calls)
            started = time.monotonic()
            at_load = load()
            played: Played = await play(cluster.api, tables, seconds)
            elapsed = time.monotonic() - started
            calls = len(cluster.api.calls) - first_call
            outcomes = [
                await fault_and_play(cluster, tables, fault, fault_seconds) for fault in faults
            ]
        finally:
            await cluster.close()
    latencies = sorted(played.latencies)
    return {
        "load": at_load,
        "updates_per_second": played.answered / elapsed,
        "p50_ms": 1000 * _quantile(latencies, 0.5),
        "p99_ms": 1000 * _quantile(latencies, 0.99),
        "telegram_calls_per_second": calls / elapsed,
        "unanswered_presses": float(played.unanswered),
    }, outcomes


Results = dict[str, tuple[dict[str, float], list[Outcome]]]


def run(
    counts: list[int],
    games: int,
    seconds: float,
    faults: list[str] | None = None,
    fault_seconds: float = AFTER_FAULT_SECONDS,
    before: str | None = None,
) -> Results:
    """Each count of instances; with ``before`` (a git revision), each count twice,
    the instances running that revision's code first, then this tree's (one run, one
    machine: the comparison holds at whatever load). Each run has a database of its own,
    migrated by its own code's migrations: the revision's code refuses a schema newer
    than its own."""
    from benchmarks.databases import create_database, drop_database

    results: Results = {}
    with contextlib.ExitStack() as stack:
        trees = [("", ROOT)]
        if before:
            trees.insert(0, (f" {before}", stack.enter_context(checkout(before))))
        for count in counts:
            for label, root in trees:
                url = create_database()
                try:
                    migrate(url, root, label.strip())
                    results[f"{count} inst.{label or (' now' if before else '')}"] = asyncio.run(
                        measure(
                            url, count, games, seconds, faults or list(FAULTS), fault_seconds, root
                        )
                    )
                finally:
                    drop_database(url)
    return results


class BeforeUnusable(Exception):
    """The ``--before`` revision cannot be run here (said in one paragraph)."""


def migrate(url: str, root: Path, revision: str = "") -> None:
    """Bring the new database at ``url`` to the schema of the code at ``root``: this
    tree's migrations, or those of the checkout of ``revision``, run by its own Alembic
    configuration in a process of their own (its own modules first on the path)."""
    if root == ROOT:
        from infra.migrations import upgrade

        upgrade(url)
        return
    env = dict(os.environ, DATABASE_URL=url, PYTHONPATH=str(root))
    ini = root / "alembic.ini"
    argv = [sys.executable, "-m", "alembic", "-c", str(ini), "-x", f"url={url}", "upgrade", "head"]
    if not ini.is_file():
        raise BeforeUnusable(f"--before {revision}: that revision has no alembic.ini to migrate")
    done = subprocess.run(argv, cwd=root, env=env, capture_output=True, text=True, check=False)
    if done.returncode:
        said = (done.stderr or done.stdout).strip().splitlines()[-5:]
        raise BeforeUnusable(
            f"--before {revision}: that revision's own migrations failed on a fresh database,"
            " so its code cannot be benchmarked here:\n  " + "\n  ".join(said)
        )


@contextlib.contextmanager
def checkout(revision: str) -> Iterator[Path]:
    """The code at ``revision``, checked out apart (a detached git worktree)."""
    with tempfile.TemporaryDirectory(prefix="bench-before-") as parent:
        tree = Path(parent) / "tree"
        git = ["git", "-C", str(ROOT)]
        subprocess.run([*git, "worktree", "add", "--detach", str(tree), revision], check=True)
        try:
            yield tree
        finally:
            subprocess.run([*git, "worktree", "remove", "--force", str(tree)], check=False)


def _median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def _worst(values: list[float]) -> float:
    return max(values) if values else float("nan")


def report(results: Results) -> list[str]:
    columns = list(results)
    first = results[columns[0]][0]
    lines = [f"{'':34}" + "".join(f"{c:>12}" for c in columns)]
    for key in first:
        lines.append(f"{key:34}" + "".join(f"{results[c][0][key]:12.2f}" for c in columns))
    for column in columns:
        outcomes = results[column][1]
        if not outcomes:
            continue
        lines += [
            "",
            f"-- {column}: the wait for a prompt after a fault (s); where the seconds go,"
            " for the games the instance at fault held: median / longest",
            f"{'fault':15}{'load':>6}{'n':>5}{'p50':>7}{'p99':>7}{'max':>7}"
            f"{'lapse':>13}{'takeover':>13}{'first call':>13}{'restart':>9}{'to prompt':>10}",
        ]
        for o in outcomes:
            if o.skipped:
                lines.append(f"{o.fault:15}{o.load:6.2f}  {o.verdict()}")
                continue
            ordered = o.waits

            def pair(values: list[float]) -> str:
                return f"{_median(values):6.2f}/{_worst(values):<6.2f}"

            lines.append(
                f"{o.fault:15}{o.load:6.2f}{len(ordered):5d}"
                f"{_quantile(ordered, 0.5):7.2f}{_quantile(ordered, 0.99):7.2f}{o.worst:7.2f}"
                f" {pair(o.lapse):>12} {pair(o.takeover):>12} {pair(o.first_call):>12}"
                f"{o.restart:9.2f}{o.to_prompt:10.2f}"
            )
        lines.append("")
        for o in outcomes:
            lines.append(f"{column} {o.fault}: {o.verdict()}" + (f"; {o.note}" if o.note else ""))
    return lines


def failed(results: Results) -> bool:
    return any("FAIL" in o.verdict() for _, outcomes in results.values() for o in outcomes)


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--instances", nargs="+", type=int, default=[2])
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--faults", nargs="+", choices=list(FAULTS), default=list(FAULTS))
    parser.add_argument("--fault-seconds", type=float, default=AFTER_FAULT_SECONDS)
    parser.add_argument(
        "--before",
        metavar="REVISION",
        help="also run the instances on this git revision's code, first (before and after)",
    )
    args = parser.parse_args(argv)
    imports = start_seconds()
    print(
        f"start-up before serving (load {load():.2f}): imports {imports['imports_s']:.2f} s,"
        f" a process that only imports {imports['process_s']:.2f} s"
    )
    try:
        results = run(
            args.instances, args.games, args.seconds, args.faults, args.fault_seconds, args.before
        )
    except BeforeUnusable as error:
        print(error, file=sys.stderr)
        return 2
    print(f"\n== {args.games} games of the base game, by webhook, instances side by side")
    print("\n".join(report(results)))
    return 1 if failed(results) else 0


if __name__ == "__main__":
    sys.exit(main())
