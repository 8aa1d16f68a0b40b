"""Append and load games with our event store and with the ``eventsourcing`` library's
application recorder, side by side on the same database (SQLite, then PostgreSQL); and
the hash chain's cost: our append on a database of its own against the append as it
was before the chain on a database of the schema before it, game by game in turn.

    python benchmarks/bench_event_store.py                      1,000 games of ~300 events
    python benchmarks/bench_event_store.py --games 100 --backends sqlite

Games are real: the rules engine's simulator plays a few base games of 5 players, and
their encoded events are reused for every stream (without the rules engine, a counter
game stands in). A finished game runs to 510-580 events, so the appended games are each
one's first ~300 events (``--events``, varied by up to 10 % so snapshots do not all land
on the last event). Appends go a few events at a time, as commands do.

Printed per backend: append throughput of each recorder and their ratio, the hash chain's
cost on append (with it and before it, in the same run), the time to
check a game's chain (``load(verified=True)`` against a plain load), the time to load
a game's rows with each, and the time to load and fold a game through the game service —
the ~300-event games and whole finished games — from the events alone and as production
loads it: from the snapshot the game service took at the last multiple of
``SNAPSHOT_EVERY`` it crossed, then the events after it. Then PASS or FAIL against the
targets: loading and folding a finished game under 10 ms on PostgreSQL, and append
throughput at least the ``eventsourcing`` recorder's. The exit status is 1 if one fails.
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
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sqlalchemy import (  # noqa: E402
    JSON,
    BigInteger,
    Column,
    DateTime,
    Integer,
    MetaData,
    String,
    Table,
    bindparam,
    create_engine,
    func,
    insert,
    select,
    text,
)
from sqlalchemy.dialects.postgresql import JSONB  # noqa: E402
from sqlalchemy.engine import make_url  # noqa: E402

from infra.bootstrap import event_store  # noqa: E402
from infra.db import make_engine, writer  # noqa: E402
from infra.event_statements import APPEND_LOCK_ID  # noqa: E402
from infra.event_store import ConcurrencyError, NewEvent  # noqa: E402
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

    def decide(self, state: Counter, envelope: Any) -> list[Any]:
        return []

    def evolve(self, state: Counter, event: Any) -> Counter:
        return Counter(state.events + 1, state.total + int(event.get("n", 0)))

    def encode(self, event: Any) -> tuple[str, dict[str, Any]]:
        return "ticked", dict(event)

    def decode(self, type_: str, payload: dict[str, Any], schema_version: int) -> Any:
        return payload


def sample_games(count: int, events: int) -> tuple[list[list[NewEvent]], Any, Any, str]:
    """``count`` encoded finished games, and the decider and codec."""
    try:
        from domain import codec, engine
        from domain.simulate import play_one
    except Exception:  # not installed, or not importable right now
        game = CounterGame()
        sample = [NewEvent("ticked", {"n": i, "player": 1000 + i % 5}) for i in range(events)]
        return [sample] * count, game, game, "counter game (rules engine not installed)"
    games: list[list[NewEvent]] = []
    for seed in range(1, count + 1):
        played, _, _ = play_one("base", 5, seed, check=False)
        games.append([NewEvent(*codec.encode(e), codec.SCHEMA_VERSION) for e in played])
    return games, engine, codec, "rules engine, base game, 5 players"


def cut(game: list[NewEvent], events: int, i: int) -> list[NewEvent]:
    """The game's first ``events`` events, give or take 10 % (varied with ``i``)."""
    spread = max(1, events // 10)
    return game[: events - spread + (i * 7) % (2 * spread + 1)]


def snapshot_version(length: int, batch: int, every: int) -> int:
    """Where the game service took its last snapshot of a game appended ``batch`` events
    at a time: after the append that crossed the last multiple of ``every`` (0: none)."""
    taken, before = 0, 0
    while before < length:
        after = min(before + batch, length)
        if after // every > before // every:
            taken = after
        before = after
    return taken


# -- the recorders --------------------------------------------------------------------


class Ours:
    name = "ours"

    def __init__(self, url: str, codec: Any, name: str = "ours") -> None:
        self.name = name
        self.engine = make_engine(url)
        self.store = event_store(self.engine, codec)  # as the bot builds it

    def append_game(self, stream: str, game: Sequence[NewEvent], batch: int) -> None:
        for start in range(0, len(game), batch):
            self.store.append(stream, start, game[start : start + batch], {"actor": 1})

    def load(self, stream: str) -> int:
        return len(self.store.load(stream))

    def close(self) -> None:
        self.engine.dispose()


# The events table as it was before the hash chain (revision 0012_computer_players).
BEFORE_CHAIN = "0012_computer_players"
_unchained = Table(
    "events",
    MetaData(),
    Column("position", BigInteger().with_variant(Integer(), "sqlite"), primary_key=True),
    Column("stream_id", String(200)),
    Column("version", Integer),
    Column("type", String(100)),
    Column("schema_version", Integer),
    Column("payload", JSON().with_variant(JSONB(), "postgresql")),
    Column("metadata", JSON().with_variant(JSONB(), "postgresql")),
    Column("recorded_at", DateTime(timezone=True)),
)


class Unchained:
    """Our append as it was before the hash chain (the same lock, version check and
    insert; no predecessor's hash read, nothing sealed), on a database of that schema."""

    name = "before the chain"

    def __init__(self, url: str) -> None:
        upgrade(url, BEFORE_CHAIN)
        self.engine = make_engine(url)
        self.postgres = self.engine.dialect.name == "postgresql"
        version = select(func.coalesce(func.max(_unchained.c.version), 0)).where(
            _unchained.c.stream_id == bindparam("stream_id")
        )
        self.version = version
        self.lock_and_version = select(
            func.pg_advisory_xact_lock(APPEND_LOCK_ID), version.scalar_subquery()
        )
        self.insert = insert(_unchained).returning(
            _unchained.c.position, sort_by_parameter_order=True
        )

    def append(self, stream: str, after: int, batch: Sequence[NewEvent], meta: dict) -> None:
        with writer(self.engine) as conn:
            if self.postgres:
                current = conn.execute(self.lock_and_version, {"stream_id": stream}).one()[1]
            else:
                current = conn.execute(self.version, {"stream_id": stream}).scalar_one()
            if current != after:
                raise ConcurrencyError(stream, after, current)
            now = datetime.now(UTC)
            rows = [
                {
                    "stream_id": stream,
                    "version": after + i,
                    "type": e.type,
                    "schema_version": e.schema_version,
                    "payload": dict(e.payload),
                    "metadata": meta,
                    "recorded_at": now,
                }
                for i, e in enumerate(batch, start=1)
            ]
            list(conn.execute(self.insert, rows))

    def append_game(self, stream: str, game: Sequence[NewEvent], batch: int) -> None:
        for start in range(0, len(game), batch):
            self.append(stream, start, game[start : start + batch], {"actor": 1})

    def close(self) -> None:
        self.engine.dispose()


class Theirs:
    name = "eventsourcing"

    def __init__(self, url: str) -> None:
        try:
            from eventsourcing.persistence import StoredEvent
        except ImportError:
            raise SystemExit("eventsourcing is missing: pip install -e '.[bench]'") from None

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


@dataclass(frozen=True, slots=True)
class Fold:
    """Median times (ms) to load and fold a game through the game service."""

    events: int  # median length
    cold: float  # from the events alone
    warm: float  # from the production snapshot, then the events after it
    tail: int  # median events folded after the snapshot


def fold_times(
    ours: Ours,
    streams: list[str],
    games: list[list[NewEvent]],
    decider: Any,
    codec: Any,
    *,
    batch: int,
    every: int,
) -> Fold:
    cold = GameService(ours.store, decider, codec, snapshot_every=10**9)
    warm = GameService(ours.store, decider, codec, snapshot_every=every)
    times_cold, times_warm, tails = [], [], []
    for stream, game in zip(streams, games, strict=True):
        times_cold.append(timed(lambda s=stream: cold.load(s)))  # type: ignore[misc]
        taken = snapshot_version(len(game), batch, every)
        state = decider.initial_state()
        for stored in ours.store.load(stream)[:taken]:
            state = decider.evolve(state, cold.decode(stored))
        ours.store.save_snapshot(stream, taken, warm.kind, state)
        times_warm.append(timed(lambda s=stream: warm.load(s)))  # type: ignore[misc]
        tails.append(len(game) - taken)
    return Fold(
        round(statistics.median(len(g) for g in games)),
        statistics.median(times_cold) * 1000,
        statistics.median(times_warm) * 1000,
        round(statistics.median(tails)),
    )


def verdict(passed: bool) -> str:
    return "PASS" if passed else "FAIL"


FOLD_TARGET_MS = 10.0


def bench_backend(
    label: str,
    url: str,
    chained_url: str,
    before_url: str,
    games: list[list[NewEvent]],
    finished: list[list[NewEvent]],
    decider: Any,
    codec: Any,
    batch: int,
    every: int,
) -> list[bool]:
    """Measure one database; print the figures and return each target's verdict."""
    upgrade(url)
    upgrade(chained_url)
    ours, theirs = Ours(url, codec), Theirs(url)
    # The chain's cost: each alone on a database of its own, the same games in turn.
    chained, before = Ours(chained_url, codec, "chained"), Unchained(before_url)
    recorders: tuple[Any, ...] = (ours, theirs, chained, before)
    total = sum(len(g) for g in games)
    streams = {r.name: [f"game-{uuid.uuid4()}" for _ in games] for r in recorders}
    append: dict[str, float] = {}
    # Interleave the recorders game by game so none gets a warmer database.
    for recorder in recorders:
        append[recorder.name] = 0.0
    for i, game in enumerate(games):
        for recorder in recorders if i % 2 == 0 else recorders[::-1]:
            stream = streams[recorder.name][i]
            append[recorder.name] += timed(
                lambda r=recorder, s=stream, g=game: r.append_game(s, g, batch)  # type: ignore[misc]
            )
    load: dict[str, list[float]] = {r.name: [] for r in (ours, theirs)}
    picks = list(range(0, len(games), max(1, len(games) // len(finished))))[: len(finished)]
    for i in picks:
        for recorder in (ours, theirs):
            stream = streams[recorder.name][i]
            load[recorder.name].append(timed(lambda r=recorder, s=stream: r.load(s)))  # type: ignore[misc]

    checked = [
        timed(lambda s=streams["ours"][i]: ours.store.load(s, verified=True))  # type: ignore[misc]
        for i in picks
    ]
    picked = [streams["ours"][i] for i in picks]
    short = fold_times(
        ours, picked, [games[i] for i in picks], decider, codec, batch=batch, every=every
    )
    whole = [f"game-{uuid.uuid4()}" for _ in finished]
    for stream, game in zip(whole, finished, strict=True):
        ours.append_game(stream, game, batch)
    long = fold_times(ours, whole, finished, decider, codec, batch=batch, every=every)

    rate = {name: total / seconds for name, seconds in append.items()}
    ms = {name: statistics.median(v) * 1000 for name, v in load.items()}
    ratio = rate["ours"] / rate["eventsourcing"]
    print(f"\n{label}: {len(games)} games, {total} events, appended {batch} at a time")
    print(
        f"  append  ours {rate['ours']:9.0f} events/s   eventsourcing "
        f"{rate['eventsourcing']:9.0f} events/s   ratio {ratio:.2f}"
    )
    cost = rate[before.name] / rate[chained.name] - 1
    print(
        f"  hash chain: append with it {rate[chained.name]:9.0f} events/s   before it "
        f"{rate[before.name]:9.0f} events/s   cost {cost * 100:+.1f} % time per event"
    )
    print(
        f"  hash chain: load and check a game {statistics.median(checked) * 1000:.2f} ms "
        f"against {ms['ours']:.2f} ms to load it unchecked"
    )
    print(
        f"  load    ours {ms['ours']:9.2f} ms/game    eventsourcing "
        f"{ms['eventsourcing']:9.2f} ms/game    ratio {ms['eventsourcing'] / ms['ours']:.2f}"
        " (theirs/ours)"
    )
    for name, fold, count in (
        ("the appended games", short, len(picks)),
        ("finished games", long, len(finished)),
    ):
        print(
            f"  load+fold {name} (median of {count}, {fold.events} events): "
            f"{fold.cold:.2f} ms from the events, {fold.warm:.2f} ms from the snapshot "
            f"(then {fold.tail} events, SNAPSHOT_EVERY={every})"
        )
    verdicts = [ratio >= 1.0]
    print(f"  {verdict(ratio >= 1.0)}  append throughput at least eventsourcing's ({ratio:.2f}x)")
    if label == "PostgreSQL":
        fast = long.warm < FOLD_TARGET_MS
        verdicts.append(fast)
        print(
            f"  {verdict(fast)}  load+fold a finished game under {FOLD_TARGET_MS:.0f} ms: "
            f"{long.warm:.2f} ms as the game service loads it "
            f"({long.cold:.2f} ms folding every event)"
        )
    ours.close()
    theirs.close()
    chained.close()
    before.close()
    return verdicts


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000, help="games appended per recorder")
    parser.add_argument("--events", type=int, default=300, help="events a game (about)")
    parser.add_argument("--distinct", type=int, default=100, help="distinct games simulated")
    parser.add_argument("--batch", type=int, default=3, help="events per append")
    parser.add_argument("--loads", type=int, default=100, help="games loaded for timing")
    parser.add_argument("--snapshot-every", type=int, default=50, help="as SNAPSHOT_EVERY")
    parser.add_argument("--backends", default="sqlite,postgres")
    parser.add_argument("--postgres-url", default=DEFAULT_POSTGRES)
    args = parser.parse_args(argv)

    distinct, decider, codec, what = sample_games(args.distinct, args.events)
    finished = [distinct[i % len(distinct)] for i in range(min(args.loads, args.games))]
    games = [cut(distinct[i % len(distinct)], args.events, i) for i in range(args.games)]
    sizes = sorted(len(g) for g in games)
    whole = sorted(len(g) for g in distinct)
    print(
        f"games: {what}; appended {sizes[0]}-{sizes[-1]} events a game (median "
        f"{sizes[len(sizes) // 2]}); finished games {whole[0]}-{whole[-1]} events"
    )
    verdicts: list[bool] = []
    for backend in args.backends.split(","):
        if backend == "sqlite":
            with tempfile.TemporaryDirectory() as scratch:
                verdicts += bench_backend(
                    "SQLite",
                    f"sqlite:///{scratch}/bench.db",
                    f"sqlite:///{scratch}/chained.db",
                    f"sqlite:///{scratch}/before.db",
                    games,
                    finished,
                    decider,
                    codec,
                    args.batch,
                    args.snapshot_every,
                )
        elif backend == "postgres":
            admin = create_engine(args.postgres_url, isolation_level="AUTOCOMMIT")
            name = f"saboteur_bench_{uuid.uuid4().hex[:8]}"
            names = (name, f"{name}_chained", f"{name}_before")
            with admin.connect() as conn:
                for each in names:
                    conn.execute(text(f'CREATE DATABASE "{each}"'))
            url, chained_url, before_url = (
                make_url(args.postgres_url).set(database=each).render_as_string(False)
                for each in names
            )
            try:
                verdicts += bench_backend(
                    "PostgreSQL",
                    url,
                    chained_url,
                    before_url,
                    games,
                    finished,
                    decider,
                    codec,
                    args.batch,
                    args.snapshot_every,
                )
            finally:
                with admin.connect() as conn:
                    for each in names:
                        conn.execute(text(f'DROP DATABASE IF EXISTS "{each}" WITH (FORCE)'))
                admin.dispose()
    print(f"\n{verdict(all(verdicts))}: {sum(verdicts)} of {len(verdicts)} targets met")
    return 0 if all(verdicts) else 1


if __name__ == "__main__":
    raise SystemExit(main())
