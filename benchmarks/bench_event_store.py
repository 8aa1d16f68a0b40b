"""Append and load games with our event store and with the ``eventsourcing`` library's
application recorder, side by side on the same database (SQLite, then PostgreSQL).

    python benchmarks/bench_event_store.py                      1,000 games of ~300 events
    python benchmarks/bench_event_store.py --games 100 --backends sqlite

Games are real: the rules engine's simulator plays a few, and their encoded events are
reused for every stream (without the rules engine, a counter game stands in). Appends go
a few events at a time, as commands do. Printed per backend: append throughput of each
recorder and their ratio, the time to load a game's rows with each, and the time to load
and fold a finished game through the game service, with and without a snapshot.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sqlalchemy import create_engine, text  # noqa: E402
from sqlalchemy.engine import make_url  # noqa: E402

from infra.db import make_engine  # noqa: E402
from infra.event_store import EventStore, NewEvent  # noqa: E402
from infra.game_service import GameService  # noqa: E402
from infra.migrations import upgrade  # noqa: E402

DEFAULT_POSTGRES = os.environ.get(
    "TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)


# -- the games ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Counter:
    events: int = 0
    total: int = 0


class CounterGame:
    """Stands in for the rules engine when it is not installed."""

    def initial_state(self) -> Counter:
        return Counter()

    def decide(self, state: Counter, command: Any) -> list[Any]:
        return []

    def evolve(self, state: Counter, event: Any) -> Counter:
        return Counter(state.events + 1, state.total + int(event.get("n", 0)))

    def encode(self, event: Any) -> tuple[str, dict[str, Any]]:
        return "ticked", dict(event)

    def decode(self, type_: str, payload: dict[str, Any], schema_version: int) -> Any:
        return payload


def sample_games(count: int, events: int) -> tuple[list[list[NewEvent]], Any, Any, str]:
    """``count`` encoded games of about ``events`` events, and the decider and codec."""
    try:
        from domain import codec, decider
        from domain.simulate import play_one
    except Exception:  # not installed, or not importable right now
        game = CounterGame()
        sample = [NewEvent("ticked", {"n": i, "player": 1000 + i % 5}) for i in range(events)]
        return [sample] * count, game, game, "counter game (rules engine not installed)"
    games: list[list[NewEvent]] = []
    seed = 1
    while len(games) < count:
        played, _, _ = play_one("base", 5, seed, check=False)
        seed += 1
        encoded = [NewEvent(*codec.encode(e), codec.SCHEMA_VERSION) for e in played]
        games.append(encoded)
    sizes = [len(g) for g in games]
    return (
        games,
        decider,
        codec,
        (f"rules engine, base game, 5 players, {min(sizes)}-{max(sizes)} events a game"),
    )


# -- the recorders --------------------------------------------------------------------


class Ours:
    name = "ours"

    def __init__(self, url: str) -> None:
        self.engine = make_engine(url)
        self.store = EventStore(self.engine)

    def append_game(self, stream: str, game: Sequence[NewEvent], batch: int) -> None:
        for start in range(0, len(game), batch):
            self.store.append(stream, start, game[start : start + batch], {"actor": 1})

    def load(self, stream: str) -> int:
        return len(self.store.load(stream))

    def close(self) -> None:
        self.engine.dispose()


class Theirs:
    name = "eventsourcing"

    def __init__(self, url: str) -> None:
        from eventsourcing.persistence import StoredEvent

        self.StoredEvent = StoredEvent
        parsed = make_url(url)
        if parsed.get_backend_name() == "sqlite":
            from eventsourcing.sqlite import SQLiteApplicationRecorder, SQLiteDatastore

            self.datastore: Any = SQLiteDatastore(str(parsed.database), originator_id_type="text")
            self.recorder: Any = SQLiteApplicationRecorder(self.datastore)
        else:
            from eventsourcing.postgres import PostgresApplicationRecorder, PostgresDatastore

            self.datastore = PostgresDatastore(
                dbname=str(parsed.database),
                host=parsed.host or "127.0.0.1",
                port=parsed.port or 5432,
                user=parsed.username or "postgres",
                password=parsed.password or "",
                originator_id_type="text",
            )
            self.recorder = PostgresApplicationRecorder(self.datastore)
        self.recorder.create_table()

    def append_game(self, stream: str, game: Sequence[NewEvent], batch: int) -> None:
        for start in range(0, len(game), batch):
            self.recorder.insert_events(
                [
                    self.StoredEvent(
                        stream,
                        start + i + 1,
                        e.type,
                        json.dumps({"payload": e.payload, "metadata": {"actor": 1}}).encode(),
                    )
                    for i, e in enumerate(game[start : start + batch])
                ]
            )

    def load(self, stream: str) -> int:
        rows = self.recorder.select_events(stream)
        return len([json.loads(r.state) for r in rows])

    def close(self) -> None:
        self.datastore.close()


# -- measuring ------------------------------------------------------------------------


def timed(action: Callable[[], object]) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def bench_backend(
    label: str,
    url: str,
    games: list[list[NewEvent]],
    decider: Any,
    codec: Any,
    batch: int,
    loads: int,
) -> None:
    upgrade(url)
    ours, theirs = Ours(url), Theirs(url)
    total = sum(len(g) for g in games)
    streams = {r.name: [f"game-{uuid.uuid4()}" for _ in games] for r in (ours, theirs)}
    append: dict[str, float] = {}
    # Interleave the two recorders game by game so neither gets a warmer database.
    for recorder in (ours, theirs):
        append[recorder.name] = 0.0
    for i, game in enumerate(games):
        for recorder in (ours, theirs) if i % 2 == 0 else (theirs, ours):
            stream = streams[recorder.name][i]
            append[recorder.name] += timed(
                lambda r=recorder, s=stream, g=game: r.append_game(s, g, batch)  # type: ignore[misc]
            )
    load: dict[str, list[float]] = {r.name: [] for r in (ours, theirs)}
    picks = range(0, len(games), max(1, len(games) // loads))
    for i in picks:
        for recorder in (ours, theirs):
            stream = streams[recorder.name][i]
            load[recorder.name].append(timed(lambda r=recorder, s=stream: r.load(s)))  # type: ignore[misc]

    cold = GameService(ours.store, decider, codec, snapshot_every=10**9)
    warm = GameService(ours.store, decider, codec, snapshot_every=50)
    fold_cold, fold_warm = [], []
    for i in picks:
        stream = streams["ours"][i]
        fold_cold.append(timed(lambda s=stream: cold.load(s)))  # type: ignore[misc]
        warm.store.save_snapshot(stream, len(games[i]), warm.kind, cold.load(stream).state)
        fold_warm.append(timed(lambda s=stream: warm.load(s)))  # type: ignore[misc]

    rate = {name: total / seconds for name, seconds in append.items()}
    ms = {name: statistics.median(v) * 1000 for name, v in load.items()}
    print(f"\n{label}: {len(games)} games, {total} events, appended {batch} at a time")
    print(
        f"  append  ours {rate['ours']:9.0f} events/s   eventsourcing "
        f"{rate['eventsourcing']:9.0f} events/s   ratio {rate['ours'] / rate['eventsourcing']:.2f}"
    )
    print(
        f"  load    ours {ms['ours']:9.2f} ms/game    eventsourcing "
        f"{ms['eventsourcing']:9.2f} ms/game    ratio {ms['eventsourcing'] / ms['ours']:.2f}"
        " (theirs/ours)"
    )
    print(
        f"  load+fold a finished game (median of {len(fold_cold)}): "
        f"{statistics.median(fold_cold) * 1000:.2f} ms from the events, "
        f"{statistics.median(fold_warm) * 1000:.2f} ms from a snapshot"
    )
    ours.close()
    theirs.close()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--events", type=int, default=300, help="events a game (counter game)")
    parser.add_argument("--distinct", type=int, default=20, help="distinct games simulated")
    parser.add_argument("--batch", type=int, default=3, help="events per append")
    parser.add_argument("--loads", type=int, default=100, help="games loaded for timing")
    parser.add_argument("--backends", default="sqlite,postgres")
    parser.add_argument("--postgres-url", default=DEFAULT_POSTGRES)
    args = parser.parse_args(argv)

    distinct, decider, codec, what = sample_games(args.distinct, args.events)
    games = [distinct[i % len(distinct)] for i in range(args.games)]
    print(f"games: {what}")
    for backend in args.backends.split(","):
        if backend == "sqlite":
            with tempfile.TemporaryDirectory() as scratch:
                bench_backend(
                    "SQLite",
                    f"sqlite:///{scratch}/bench.db",
                    games,
                    decider,
                    codec,
                    args.batch,
                    args.loads,
                )
        elif backend == "postgres":
            admin = create_engine(args.postgres_url, isolation_level="AUTOCOMMIT")
            name = f"saboteur_bench_{uuid.uuid4().hex[:8]}"
            with admin.connect() as conn:
                conn.execute(text(f'CREATE DATABASE "{name}"'))
            url = make_url(args.postgres_url).set(database=name).render_as_string(False)
            try:
                bench_backend("PostgreSQL", url, games, decider, codec, args.batch, args.loads)
            finally:
                with admin.connect() as conn:
                    conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
                admin.dispose()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
