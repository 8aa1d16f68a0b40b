"""How fast the ratings and achievements projectors keep up with finished games.

Plays a few games with random legal moves (fixed seeds; base and Saboteur 2, 3 to 7
players) and stores copies of them, spread over 20 groups, as 1,000 finished games in a
SQLite event store. Then it times:

- the two projectors catching up with all 1,000 games from nothing, as the first run
  after an upgrade does (target < 10 s);
- a rebuild of the same (reported);
- what one more game's end adds: the projectors brought up to a game that just ended,
  1,000 games already counted, as the announcer does before the game-over message
  (target: the median < 5 ms).

Two copies of the same store are timed side by side, game end after game end (in
alternating order, so both see the same load): "apart", each projector on its own (as
before :class:`infra.projector.Projectors`), and "together", the two brought up by one
``Projectors`` (one read of the log and of the game's stream, one write transaction), as
the announcer does now. Each end is timed on the wall clock and in this process's CPU
time (the wall clock also counts a busy machine's queue and SQLite's file syncs), and the
SQL statements and transactions it ran are counted. The verdict is on the wall clock of
"together".

The target holds on both databases: ``--database postgres`` times the same on a scratch
PostgreSQL database of the tests' server (``TEST_POSTGRES_URL``), ``both`` one after the
other (the verdict needs both to pass).

Run: ``.venv/bin/python -m benchmarks.bench_ratings [--games 1000] [--ends 30]
[--database sqlite|postgres|both]``
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy import Engine, text
from sqlalchemy import event as sql_event
from sqlalchemy.engine import make_url

from benchmarks.databases import create_database, drop_database
from domain import codec
from domain.cards import Edition
from domain.commands import CreateGame, Envelope, JoinGame, StartGame, TimeOut
from domain.decide import decide
from domain.events import Event
from domain.evolve import evolve, initial_state
from domain.moves import legal_moves
from domain.queries import is_terminal
from infra.achievements import AchievementsProjector, achievements_projection
from infra.db import make_engine
from infra.event_store import EventStore, NewEvent
from infra.migrations import upgrade
from infra.projector import Projector, Projectors
from infra.ratings import RatingsProjector, ratings_projection

CATCH_UP_TARGET_S = 10.0
GAME_END_TARGET_MS = 5.0


def play(seed: int, players: int, edition: Edition) -> list[Event]:
    rng = random.Random(seed)
    state = initial_state()
    events: list[Event] = []

    def run(command: object, at: int = 0, seed: int = 0) -> None:
        nonlocal state
        for event in decide(state, Envelope(command, at, seed)):  # type: ignore[arg-type]
            state = evolve(state, event)
            events.append(event)

    run(CreateGame(1, "P1", edition, chat_id=-1))
    for player in range(2, players + 1):
        run(JoinGame(player, f"P{player}"))
    run(StartGame(1), seed=rng.getrandbits(48))
    while not is_terminal(state):
        pending = state.pending
        assert pending is not None
        if rng.random() < 0.05:
            run(TimeOut(pending.id), at=pending.deadline, seed=rng.getrandbits(48))
        else:
            move = rng.choice(legal_moves(state, pending.player))
            run(move, seed=rng.getrandbits(48))  # type: ignore[type-var]
    return events


def encoded(events: list[Event], chat_id: int) -> list[NewEvent]:
    stored = [NewEvent(*codec.encode(e)) for e in events]
    first = stored[0]
    return [NewEvent(first.type, {**first.payload, "chat_id": chat_id}), *stored[1:]]


def store_games(store: EventStore, templates: list[list[Event]], count: int) -> None:
    start = datetime(2026, 1, 1, tzinfo=UTC)
    for n in range(count):
        moment = start + timedelta(hours=n)
        writer = EventStore(store.engine, clock=lambda moment=moment: moment)
        events = encoded(templates[n % len(templates)], -100 - n % 20)
        writer.append("b" + uuid.uuid4().hex[:11], 0, events)


class Counter:
    """The SQL statements and transactions an engine ran."""

    def __init__(self, engine: Engine) -> None:
        self.statements = self.transactions = 0
        sql_event.listen(engine, "before_cursor_execute", self._statement)
        sql_event.listen(engine, "begin", self._begin)

    def _statement(self, *args: object) -> None:
        self.statements += 1

    def _begin(self, *args: object) -> None:
        self.transactions += 1

    def take(self) -> tuple[int, int]:
        taken = self.statements, self.transactions
        self.statements = self.transactions = 0
        return taken


class Side:
    """One copy of the store and the way its projectors are brought up."""

    def __init__(self, name: str, url: str, together: bool) -> None:
        self.name = name
        upgrade(url)
        self.engine = make_engine(url)
        self.store = EventStore(self.engine)
        self.counter = Counter(self.engine)
        self.together = together
        self.wall: list[float] = []
        self.cpu: list[float] = []
        self.counts: list[tuple[int, int]] = []

    def catch_up(self) -> None:
        if self.together:
            projections = [ratings_projection(self.store), achievements_projection(self.store)]
            Projectors(self.engine, self.store, projections).catch_up()
            return
        separate: list[Projector] = [
            RatingsProjector(self.engine, self.store),
            AchievementsProjector(self.engine, self.store),
        ]
        for projector in separate:
            projector.catch_up()

    def rebuild(self) -> None:
        RatingsProjector(self.engine, self.store).rebuild()
        AchievementsProjector(self.engine, self.store).rebuild()

    def timed_end(self) -> None:
        self.counter.take()
        wall, cpu = time.perf_counter(), time.process_time()
        self.catch_up()
        self.cpu.append((time.process_time() - cpu) * 1000)
        self.wall.append((time.perf_counter() - wall) * 1000)
        self.counts.append(self.counter.take())

    def said(self) -> str:
        statements = statistics.median(c[0] for c in self.counts)
        transactions = statistics.median(c[1] for c in self.counts)
        return (
            f"median {statistics.median(self.wall):.2f} ms wall "
            f"(max {max(self.wall):.2f}), {statistics.median(self.cpu):.2f} ms CPU, "
            f"{statements:.0f} statements in {transactions:.0f} transactions"
        )


def copy_store(url: str, folder: str, name: str) -> tuple[str, Callable[[], None]]:
    """A second database holding what ``url``'s holds (its engines disposed of), and how
    to drop it."""
    if url.startswith("sqlite"):
        path = Path(folder) / f"{name}.db"
        shutil.copyfile(make_url(url).database or "", path)
        return f"sqlite:///{path}", lambda: None
    copy = create_database(template=make_url(url).database)
    return copy, lambda: drop_database(copy)


def run(database: str, args: argparse.Namespace, templates: list[list[Event]]) -> bool:
    """Time one database; say the figures and return whether both targets were met."""
    with tempfile.TemporaryDirectory() as folder:
        first = f"sqlite:///{Path(folder) / 'apart.db'}"
        if database == "postgres":
            first = create_database()
        upgrade(first)
        engine = make_engine(first)
        store_games(EventStore(engine), templates, args.games)
        if database == "postgres":
            # The planner's statistics of the filled log, as autovacuum keeps them on a
            # running server: without any, reading the log's last events scans it whole.
            with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
                conn.execute(text("ANALYZE"))
        engine.dispose()
        second, drop_second = copy_store(first, folder, "together")
        try:
            apart = Side("apart", first, together=False)
            together = Side("together", second, together=True)
            sides = [apart, together]
            catch_ups: dict[str, float] = {}
            for side in sides:
                began = time.perf_counter()
                side.catch_up()
                catch_ups[side.name] = time.perf_counter() - began
            began = time.perf_counter()
            together.rebuild()
            rebuild = time.perf_counter() - began
            for n in range(args.ends):
                for side in sides:
                    store_games(side.store, templates, 1)
                for side in sides if n % 2 == 0 else reversed(sides):
                    side.timed_end()
            for side in sides:
                side.engine.dispose()
        finally:
            drop_second()
            if database == "postgres":
                drop_database(first)
    catch_up = catch_ups["together"]
    end = statistics.median(together.wall)
    ok_catch_up = catch_up < CATCH_UP_TARGET_S
    ok_end = end < GAME_END_TARGET_MS
    print(f"[{database}] {args.games} finished games: the projectors catch up in ", end="")
    print(f"{catch_up:.2f} s (apart: {catch_ups['apart']:.2f} s)", end="")
    print(f" (target < {CATCH_UP_TARGET_S:.0f} s): {'PASS' if ok_catch_up else 'FAIL'}")
    print(f"[{database}] rebuild of the same: {rebuild:.2f} s")
    print(f"[{database}] one game's end, {args.games} games counted, {args.ends} ends each:")
    print(f"  apart (before):   {apart.said()}")
    print(f"  together (after): {together.said()}")
    print(
        f"[{database}] one game's end: median {end:.2f} ms "
        f"(target: median < {GAME_END_TARGET_MS:.0f} ms): {'PASS' if ok_end else 'FAIL'}"
    )
    return ok_catch_up and ok_end


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--ends", type=int, default=30)
    parser.add_argument("--database", choices=("sqlite", "postgres", "both"), default="sqlite")
    args = parser.parse_args()
    shapes: list[tuple[int, Edition]] = [(3, "base"), (5, "base"), (7, "base")]
    shapes += [(4, "saboteur2"), (6, "saboteur2")]
    templates = [play(seed, players, edition) for seed, (players, edition) in enumerate(shapes)]
    databases = ["sqlite", "postgres"] if args.database == "both" else [args.database]
    passed = [run(database, args, templates) for database in databases]
    return 0 if all(passed) else 1


if __name__ == "__main__":
    sys.exit(main())
