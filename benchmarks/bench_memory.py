"""The bot's resident memory as games go by: it must stay flat, however many users, groups
and games passed through.

Two processes, as in ``bench_bot``: this one runs the bot (the real ``Application``, long
polling, the announcer, the game service on a fresh PostgreSQL database at
TEST_POSTGRES_URL, or with ``--sqlite`` a SQLite file, whose page caches live in the
bot's process and fill as the file grows) and nothing else; the
second runs Telegram — the fake Bot API server, which keeps every message — and the
players. Game after game, each in a new group with three new users: they open the private
chat, the first one sends ``/newgame``, the others press Join, the creator presses Start
(the board and every player's prompt are drawn and sent), then ``/cancel`` and "Yes,
cancel". Every ``--every`` games the bot is waited for until idle, garbage is collected
and its resident set size (VmRSS) is read.

Printed: the resident memory after 0, ``--every``, ... games, and its growth per 100 games
over the second half of the run (the caches are full by then: flat means about 0; target:
under 1 MB per 100 games, PASS or FAIL; a run of a few games is too short to say). Beside
it, where it goes: Python's heap (its blocks, its objects and the arenas they live in),
C's heap (in use, and free but kept by malloc) and the resident memory by kind of mapping.
``--trace-from GAMES`` also prints, from then on, the allocations that grew most
(tracemalloc, grouped by traceback) and the kinds of objects that multiplied.
``--cache-scale 0.05`` shrinks every bounded cache so that they are all full within the
first half of 1,000 games (at full size the users' cache fills after about 6,700 games).
``--unbounded`` runs the same with every bounded cache (``infra.lru.LRU``) unbounded and
nothing forgotten when a game ends, as the caches were before, for comparison. Run:

    python -m benchmarks.bench_memory --games 1000
    python -m benchmarks.bench_memory --games 1000 --cache-scale 0.05
    python -m benchmarks.bench_memory --games 1000 --unbounded --sqlite
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import ctypes
import gc
import itertools
import multiprocessing
import os
import re
import sys
import tempfile
import time
import traceback
import tracemalloc
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from benchmarks.databases import create_database, drop_database
from infra import lru
from infra.migrations import upgrade
from infra.settings import load_settings
from tgbot.delivery.announcer import ANNOUNCER_KEY
from tgbot.offline.fakeapi import FakeBotAPI
from tgbot.telegram.app import polling_bot
from tgbot.telegram.context import SERVICES_KEY, BotServices

WAIT = 60.0  # seconds any one step may take before the run is given up
FIRST_USER = 1_000_000
FIRST_GROUP = -1_000_000_000


def rss_mb() -> float:
    """This process's resident set size, in MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS in /proc/self/status")


class _Mallinfo2(ctypes.Structure):
    _fields_ = [
        (name, ctypes.c_size_t)
        for name in (
            "arena",
            "ordblks",
            "smblks",
            "hblks",
            "hblkhd",
            "usmblks",
            "fsmblks",
            "uordblks",
            "fordblks",
            "keepcost",
        )
    ]


def malloc_mb() -> tuple[float, float]:
    """C's heap (glibc): MB in use (the interpreter's large objects and the libraries'
    own memory; Python's small objects live in arenas of their own) and MB free but kept
    by the allocator (fragmentation). (0, 0) where mallinfo2 is missing."""
    try:
        mallinfo2 = ctypes.CDLL(None).mallinfo2
    except (AttributeError, OSError):
        return 0.0, 0.0
    mallinfo2.restype = _Mallinfo2
    info = mallinfo2()
    return (info.uordblks + info.hblkhd) / 2**20, info.fordblks / 2**20


def mappings_mb() -> dict[str, float]:
    """The resident memory by kind of mapping: the C heap (brk), anonymous mappings (the
    Python arenas, large allocations, threads' heaps and stacks), files (code)."""
    kinds = {"heap": 0.0, "anonymous": 0.0, "files": 0.0}
    kind = "anonymous"
    for line in Path("/proc/self/smaps").read_text().splitlines():
        fields = line.split()
        if fields and "-" in fields[0] and len(fields) >= 5:  # a mapping's header
            name = fields[5] if len(fields) > 5 else ""
            kind = "heap" if name == "[heap]" else "files" if name.startswith("/") else "anonymous"
        elif fields and fields[0] == "Rss:":
            kinds[kind] += int(fields[1]) / 1024
    return kinds


def python_arenas_mb() -> float:
    """MB of the arenas Python's small objects live in (an arena goes back to the system
    only once every object in it is freed)."""
    with tempfile.TemporaryFile() as out:
        saved = os.dup(2)
        os.dup2(out.fileno(), 2)
        try:
            sys._debugmallocstats()
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        out.seek(0)
        report = out.read().decode(errors="replace")
    found = re.search(r"([\d,]+) arenas \* ([\d,]+) bytes/arena", report)
    if found is None:
        return 0.0
    arenas, size = (int(g.replace(",", "")) for g in found.groups())
    return arenas * size / 2**20


# ---------------------------------------------------------------- Telegram and the players


def players_process(conn: Connection, games: int, every: int) -> None:
    try:
        asyncio.run(_players(conn, games, every))
    except BaseException:
        conn.send(("error", traceback.format_exc()))
        raise


async def until(api: FakeBotAPI, found: Any, what: str) -> Any:
    try:
        return await api.wait_for(found, WAIT)
    except Exception as error:
        raise TimeoutError(f"waited {WAIT:g}s for {what}") from error


def button(api: FakeBotAPI, message: dict[str, Any], index: int) -> str:
    data = [b.callback_data for row in api.keyboard(message) for b in row if b.callback_data]
    return str(data[index])


async def one_game(api: FakeBotAPI, number: int) -> None:
    group = FIRST_GROUP - number
    users = [FIRST_USER + 3 * number + i for i in range(3)]
    api.group(group, f"Mine {number}", admins=(users[0],))
    for user in users:
        api.user(user, f"Dwarf {user}")
        api.send_text(user, user, "/start")
        api.send_text(group, user, "hello")  # a member of the group
    await until(api, lambda: all(api.messages_in(u) for u in users), "the /start answers")
    api.send_text(group, users[0], "/newgame")
    lobby = await until(
        api, lambda: next((m for m in api.messages_in(group) if api.keyboard(m)), None), "lobby"
    )
    for user in users[1:]:
        query = api.press(group, user, lobby["message_id"], button(api, lobby, 0))
        await until(api, lambda q=query: api.answered.get(q), "a join")
    query = api.press(group, users[0], lobby["message_id"], button(api, lobby, 2))
    await until(api, lambda: api.answered.get(query), "the start")
    await until(api, lambda: any(m.get("photo") for m in api.messages_in(group)), "the first board")
    api.send_text(group, users[0], "/cancel")

    def question() -> dict[str, Any] | None:
        asked = [m for m in api.messages_in(group) if "text" in m and api.keyboard(m)]
        return asked[-1] if asked and asked[-1]["message_id"] != lobby["message_id"] else None

    asked = await until(api, question, "/cancel's question")
    query = api.press(group, users[0], asked["message_id"], button(api, asked, 0))
    await until(api, lambda: api.answered.get(query), "the cancel")


async def _players(conn: Connection, games: int, every: int) -> None:
    async with FakeBotAPI() as api:
        conn.send(("server", (api.base_url, api.base_file_url, api.token)))
        await receive(conn, "polling")
        for number in itertools.count():
            if number % every == 0:
                conn.send(("measure", number))
                await receive(conn, "measured")
            if number == games:
                break
            await one_game(api, number)
        conn.send(("done", None))
        await receive(conn, "stop")  # the bot stops polling first


async def receive(conn: Connection, expected: str, seconds: float = 600.0) -> Any:
    if not await asyncio.to_thread(conn.poll, seconds):
        raise TimeoutError(f"no {expected!r} from the other process in {seconds:g}s")
    kind, value = conn.recv()
    if kind == "error":
        raise RuntimeError(f"the other process failed:\n{value}")
    if kind != expected:
        raise RuntimeError(f"expected {expected!r}, got {kind!r}")
    return value


# ---------------------------------------------------------------- the bot


async def quiet(app: Any, bot: BotServices) -> None:
    announcer = app.bot_data[ANNOUNCER_KEY]
    deadline = time.perf_counter() + WAIT
    while time.perf_counter() < deadline:
        idle = app.update_queue.empty() and app.update_processor.current_concurrent_updates == 0
        if idle and await asyncio.to_thread(announcer.settled):
            return
        await asyncio.sleep(0.01)
    raise TimeoutError(f"the bot was still busy after {WAIT:g}s")


async def run_bot(
    conn: Connection, url: str, trace_from: int | None = None
) -> list[tuple[int, float]]:
    base_url, base_file_url, token = await receive(conn, "server")
    # Its players are scripts pressing as fast as the bot answers: no throttling.
    settings = load_settings(telegram_bot_token=token, database_url=url, throttle_presses=0)
    started = contextlib.AsyncExitStack()
    app = await started.enter_async_context(
        polling_bot(settings, base_url=base_url, base_file_url=base_file_url, rate_limit=False)
    )
    bot: BotServices = app.bot_data[SERVICES_KEY]
    conn.send(("polling", None))
    samples: list[tuple[int, float]] = []
    traced: tracemalloc.Snapshot | None = None
    counted: collections.Counter[str] | None = None
    try:
        while True:
            kind, value = await asyncio.to_thread(conn.recv)
            if kind == "error":
                raise RuntimeError(f"the players' process failed:\n{value}")
            if kind == "done":
                return samples
            await quiet(app, bot)
            gc.collect()
            samples.append((int(value), rss_mb()))
            used, free = malloc_mb()
            kinds = mappings_mb()
            print(
                f"  after {value:>5} games: {samples[-1][1]:7.1f} MB "
                f"({sys.getallocatedblocks():>9,} Python blocks, "
                f"{len(gc.get_objects()):>9,} objects in {python_arenas_mb():4.0f} MB arenas; "
                f"malloc {used:6.1f} MB used, {free:5.1f} MB free; resident: "
                + ", ".join(f"{k} {v:.1f}" for k, v in kinds.items())
                + ")",
                flush=True,
            )
            if trace_from is not None and int(value) >= trace_from:
                if not tracemalloc.is_tracing():
                    tracemalloc.start(TRACE_FRAMES)
                now = tracemalloc.take_snapshot().filter_traces(TRACE_FILTERS)
                if traced is None:  # what grows from here on is compared with this
                    traced, counted = now, count_objects()
                else:
                    print_growers(now, traced)
                    print_type_growth(count_objects(), counted)
            conn.send(("measured", None))
    finally:
        await started.aclose()


TRACE_FRAMES = 10
TRACE_FILTERS = [
    tracemalloc.Filter(False, tracemalloc.__file__),
    tracemalloc.Filter(False, "<frozen importlib._bootstrap>"),
    tracemalloc.Filter(False, "<frozen importlib._bootstrap_external>"),
]


def print_growers(now: tracemalloc.Snapshot, before: tracemalloc.Snapshot) -> None:
    """The allocations that grew most since ``before``, by where they were made."""
    for stat in now.compare_to(before, "traceback")[:10]:
        if stat.size_diff <= 0:
            break
        print(
            f"      {stat.size_diff / 1024:+9.1f} KiB {stat.count_diff:+7d} blocks",
            flush=True,
        )
        for line in stat.traceback.format(limit=6, most_recent_first=True):
            print(f"          {line}", flush=True)


def count_objects() -> collections.Counter[str]:
    return collections.Counter(type(o).__qualname__ for o in gc.get_objects())


def print_type_growth(now: collections.Counter[str], before: collections.Counter[str]) -> None:
    """The kinds of objects whose numbers grew most."""
    grown = sorted(((now[k] - before[k], k) for k in now), reverse=True)[:12]
    print("      objects: " + ", ".join(f"{k} {d:+d}" for d, k in grown if d > 0), flush=True)


def unbound_every_cache() -> None:
    """Every LRU as large as it likes, and nothing forgotten when a game ends: the caches
    as they were before they were bounded."""
    original = lru.LRU.__init__

    def unbounded(self: Any, size: int) -> None:
        original(self, 10**12)

    lru.LRU.__init__ = unbounded  # type: ignore[method-assign]
    BotServices.forget_game = lambda self, game_id: None  # type: ignore[method-assign]


def scale_every_cache(factor: float) -> None:
    """Every LRU ``factor`` times its size: small caches fill within a short run, so its
    second half shows whether memory stays flat once they are full."""
    original = lru.LRU.__init__

    def scaled(self: Any, size: int) -> None:
        original(self, max(1, round(size * factor)))

    lru.LRU.__init__ = scaled  # type: ignore[method-assign]


def growth_per_100(samples: list[tuple[int, float]]) -> float:
    """The least-squares slope of memory over the second half of the run, per 100 games."""
    half = [s for s in samples if s[0] >= samples[-1][0] / 2]
    if len(half) < 2:
        return 0.0
    mean_x = sum(x for x, _ in half) / len(half)
    mean_y = sum(y for _, y in half) / len(half)
    num = sum((x - mean_x) * (y - mean_y) for x, y in half)
    den = sum((x - mean_x) ** 2 for x, _ in half)
    return 100 * num / den if den else 0.0


GROWTH_MB_PER_100: float = 1.0


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--every", type=int, default=100, help="games between measurements")
    parser.add_argument("--unbounded", action="store_true", help="caches without bounds")
    parser.add_argument("--sqlite", action="store_true", help="on SQLite, not PostgreSQL")
    parser.add_argument(
        "--cache-scale",
        type=float,
        default=1.0,
        help="every bounded cache this times its size (0.05: full within 1,000 games)",
    )
    parser.add_argument(
        "--trace-from",
        type=int,
        metavar="GAMES",
        help="from this many games on, print at each measurement where memory grew since "
        "then (tracemalloc: several times slower) and which objects multiplied",
    )
    args = parser.parse_args()
    if args.unbounded:
        unbound_every_cache()
    elif args.cache_scale != 1.0:
        scale_every_cache(args.cache_scale)
    ctx = multiprocessing.get_context("spawn")
    here, there = ctx.Pipe()
    players = ctx.Process(target=players_process, args=(there, args.games, args.every))
    players.start()
    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite:///{folder}/bench.db" if args.sqlite else create_database()
        try:
            upgrade(url)
            caches = "unbounded" if args.unbounded else f"bounded (x{args.cache_scale:g})"
            print(f"bot process on {url.split(':')[0]}, caches {caches}:")
            started = time.perf_counter()
            samples = asyncio.run(run_bot(here, url, args.trace_from))
            elapsed = time.perf_counter() - started
        finally:
            if not args.sqlite:
                drop_database(url)
    here.send(("stop", None))
    players.join(WAIT)
    first, last = samples[0][1], samples[-1][1]
    print(
        f"\n{samples[-1][0]} games in {elapsed:.0f} s: resident memory {first:.1f} MB "
        f"before, {last:.1f} MB after ({last - first:+.1f} MB); over the second half "
        f"{growth_per_100(samples):+.2f} MB per 100 games"
    )
    flat = growth_per_100(samples) < GROWTH_MB_PER_100
    print(
        f"growth over the second half: target < {GROWTH_MB_PER_100:g} MB per 100 games: "
        f"{'PASS' if flat else 'FAIL'}"
    )
    return 0 if flat else 1


if __name__ == "__main__":
    raise SystemExit(main())
