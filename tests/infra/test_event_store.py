"""The event store's contract, run on SQLite and on PostgreSQL."""

from __future__ import annotations

import multiprocessing
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from sqlalchemy import Engine, text
from sqlalchemy.exc import DBAPIError

from infra.db import make_engine
from infra.event_store import (
    ConcurrencyError,
    DuplicateCommand,
    EventStore,
    NewEvent,
    StoredEvent,
)


@pytest.fixture
def engine(db_url: str) -> Iterator[Engine]:
    engine = make_engine(db_url)
    yield engine
    engine.dispose()


@pytest.fixture
def store(engine: Engine) -> EventStore:
    return EventStore(engine)


def stream() -> str:
    return f"game-{uuid.uuid4().hex}"


def ticks(*values: int) -> list[NewEvent]:
    return [NewEvent("ticked", {"n": v}) for v in values]


def test_appended_events_load_back_in_version_order(store: EventStore) -> None:
    game = stream()
    store.append(game, 0, ticks(1, 2), {"actor": 7, "correlation_id": "c1"})
    store.append(game, 2, ticks(3))

    loaded = store.load(game)

    assert [(e.version, e.payload["n"]) for e in loaded] == [(1, 1), (2, 2), (3, 3)]
    assert loaded[0].metadata == {"actor": 7, "correlation_id": "c1"}
    assert loaded[0].type == "ticked" and loaded[0].schema_version == 1
    assert loaded[0].recorded_at.utcoffset() is not None
    assert loaded[0].position < loaded[1].position < loaded[2].position
    assert store.version(game) == 3
    assert store.load(game, after_version=2) == loaded[2:]


def test_a_stream_never_written_is_empty_at_version_zero(store: EventStore) -> None:
    assert store.load(stream()) == []
    assert store.version(stream()) == 0


def test_a_stale_expected_version_is_rejected_and_appends_nothing(store: EventStore) -> None:
    game = stream()
    store.append(game, 0, ticks(1))

    with pytest.raises(ConcurrencyError):
        store.append(game, 0, ticks(2))
    with pytest.raises(ConcurrencyError):
        store.append(game, 5, ticks(2))

    assert [e.payload["n"] for e in store.load(game)] == [1]


def test_read_all_returns_every_stream_in_position_order(store: EventStore) -> None:
    start = store.last_position()
    a, b = stream(), stream()
    store.append(a, 0, ticks(1))
    store.append(b, 0, ticks(2, 3))
    store.append(a, 1, ticks(4))

    seen = store.read_all(after_position=start, limit=100)

    assert [(e.stream_id, e.payload["n"]) for e in seen] == [(a, 1), (b, 2), (b, 3), (a, 4)]
    assert store.read_all(after_position=start, limit=2) == seen[:2]
    assert store.read_all(after_position=seen[1].position, limit=100) == seen[2:]


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE events SET type = 'forged' WHERE stream_id = :s",
        "DELETE FROM events WHERE stream_id = :s",
    ],
)
def test_the_database_rejects_changing_or_deleting_events(
    store: EventStore, engine: Engine, statement: str
) -> None:
    game = stream()
    store.append(game, 0, ticks(1))

    with pytest.raises(DBAPIError, match="immutable"), engine.begin() as conn:
        conn.execute(text(statement), {"s": game})

    assert [e.type for e in store.load(game)] == ["ticked"]


def test_the_database_rejects_truncating_events(store: EventStore, engine: Engine) -> None:
    game = stream()
    store.append(game, 0, ticks(1))
    statement = "TRUNCATE events" if engine.dialect.name == "postgresql" else "DELETE FROM events"

    with pytest.raises(DBAPIError, match="immutable"), engine.begin() as conn:
        conn.execute(text(statement))

    assert len(store.load(game)) == 1


def test_an_idempotency_key_is_recorded_once_with_its_events(store: EventStore) -> None:
    game = stream()
    first = store.append(game, 0, ticks(1, 2), idempotency_key="update-41")

    with pytest.raises(DuplicateCommand) as raised:
        store.append(game, 2, ticks(3), idempotency_key="update-41")

    assert raised.value.events == first
    assert store.processed(game, "update-41") == first
    assert store.processed(game, "update-42") is None
    assert store.version(game) == 2


def test_a_key_recorded_with_no_events_is_remembered(store: EventStore) -> None:
    game = stream()
    store.append(game, 0, [], idempotency_key="noop")

    assert store.processed(game, "noop") == []
    assert store.version(game) == 0


def test_upcasters_lift_old_payloads_step_by_step(engine: Engine) -> None:
    game = stream()
    EventStore(engine).append(game, 0, [NewEvent("ticked", {"value": 5}, schema_version=1)])
    upcasters = {
        ("ticked", 1): lambda p: {"n": p.pop("value")},
        ("ticked", 2): lambda p: {**p, "unit": "tick"},
    }

    [event] = EventStore(engine, upcasters=upcasters).load(game)

    assert (event.schema_version, event.payload) == (3, {"n": 5, "unit": "tick"})


def test_a_version_with_no_upcaster_is_passed_over_up_to_the_current_one(
    engine: Engine,
) -> None:
    game = stream()
    EventStore(engine).append(game, 0, [NewEvent("ticked", {"value": 5}, schema_version=1)])
    upcasters = {
        ("ticked", 1): lambda p: {"n": p.pop("value")},
        # version 2 left "ticked" alone
        ("ticked", 3): lambda p: {**p, "unit": "tick"},
    }

    [event] = EventStore(engine, upcasters=upcasters, schema_version=5).load(game)
    [read] = EventStore(engine, upcasters=upcasters, schema_version=5).read_all(
        after_position=event.position - 1, limit=1
    )

    assert (event.schema_version, event.payload) == (5, {"n": 5, "unit": "tick"})
    assert read == event


def test_a_snapshot_is_kept_per_stream_and_ignored_when_unreadable(
    store: EventStore, engine: Engine
) -> None:
    game = stream()
    store.save_snapshot(game, 10, "counter", {"total": 55})
    store.save_snapshot(game, 5, "counter", {"total": 15})  # older: ignored

    snapshot = store.load_snapshot(game, "counter")
    assert snapshot is not None and (snapshot.version, snapshot.state) == (10, {"total": 55})
    assert store.load_snapshot(game, "other-kind") is None

    with engine.begin() as conn:
        conn.execute(
            text("UPDATE snapshots SET state = :b WHERE stream_id = :s"),
            {"b": b"not a pickle", "s": game},
        )
    assert store.load_snapshot(game, "counter") is None


# -- racing writers -----------------------------------------------------------------


def _race(url: str, game: str, writer: int, count: int, ready: object) -> None:
    engine = make_engine(url)
    store = EventStore(engine)
    ready.wait()  # type: ignore[attr-defined]
    written = 0
    while written < count:
        version = store.version(game)
        try:
            store.append(game, version, [NewEvent("ticked", {"writer": writer, "i": written})])
            written += 1
        except ConcurrencyError:
            continue
    engine.dispose()


def test_processes_racing_on_one_stream_get_one_event_per_version_and_lose_none(
    store: EventStore, db_url: str
) -> None:
    game, writers, each = stream(), 4, 15
    context = multiprocessing.get_context("fork")
    ready = context.Event()
    processes = [
        context.Process(target=_race, args=(db_url, game, w, each, ready)) for w in range(writers)
    ]
    for p in processes:
        p.start()
    ready.set()
    for p in processes:
        p.join(timeout=120)
        assert p.exitcode == 0

    loaded = store.load(game)
    assert [e.version for e in loaded] == list(range(1, writers * each + 1))
    for w in range(writers):
        assert [e.payload["i"] for e in loaded if e.payload["writer"] == w] == list(range(each))


def test_a_reader_following_read_all_never_skips_an_event_under_concurrent_writers(
    store: EventStore,
) -> None:
    start = store.last_position()
    writers, each = 4, 25
    done = threading.Event()
    seen: list[StoredEvent] = []

    def write(w: int) -> None:
        game = stream()
        for i in range(each):
            store.append(game, i, [NewEvent("ticked", {"w": w, "i": i})])

    def follow() -> None:
        position = start
        while True:
            finished = done.is_set()
            batch = store.read_all(after_position=position, limit=7)
            seen.extend(batch)
            if batch:
                position = batch[-1].position
            elif finished:
                return

    reader = threading.Thread(target=follow)
    reader.start()
    threads = [threading.Thread(target=write, args=(w,)) for w in range(writers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    done.set()
    reader.join(timeout=60)

    everything = store.read_all(after_position=start, limit=10_000)
    ours = [e for e in everything if e.type == "ticked" and "w" in e.payload]
    assert len(ours) == writers * each
    assert [e.position for e in seen] == [e.position for e in everything]


def _wait_until(condition: Callable[[], object], timeout: float = 30.0) -> None:
    limit = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < limit, f"not within {timeout} s: {condition.__doc__}"
        time.sleep(0.01)


def test_a_reader_never_passes_an_append_that_commits_after_a_later_one(
    postgres_url: str,
) -> None:
    """Writer A draws its position and holds its transaction open; writer B appends
    after it; a reader reads; only then does A commit. The reader must still get A."""
    engine = make_engine(postgres_url)
    store = EventStore(engine)
    slow, late = EventStore(engine), stream()
    fast = stream()
    start = store.last_position()
    inserted, release = threading.Event(), threading.Event()
    insert = slow._insert

    def insert_then_hold(*args: Any) -> list[StoredEvent]:
        rows = insert(*args)
        inserted.set()
        release.wait(30)  # A's transaction stays open until the reader has read
        return rows

    slow._insert = insert_then_hold  # type: ignore[method-assign]

    def b_waits_for_the_append_lock() -> bool:
        with engine.connect() as conn:
            waiting = conn.execute(
                text(
                    "SELECT count(*) FROM pg_locks JOIN pg_database d ON d.oid = database"
                    " WHERE d.datname = current_database()"
                    " AND locktype = 'advisory' AND NOT granted"
                )
            ).scalar_one()
        return bool(waiting)

    writer_a = threading.Thread(target=slow.append, args=(late, 0, ticks(1)))
    writer_b = threading.Thread(target=store.append, args=(fast, 0, ticks(2)))
    try:
        writer_a.start()
        assert inserted.wait(30)
        writer_b.start()
        # B either committed (no lock ordering appends) or queues behind A.
        _wait_until(lambda: not writer_b.is_alive() or b_waits_for_the_append_lock())

        seen = store.read_all(after_position=start)
        position = seen[-1].position if seen else start
        release.set()
        writer_a.join(30)
        writer_b.join(30)
        seen += store.read_all(after_position=position)
    finally:
        release.set()
        engine.dispose()

    ours = [e for e in seen if e.stream_id in (late, fast)]
    assert [e.stream_id for e in ours] == [late, fast]
    assert [e.position for e in seen] == sorted(e.position for e in seen)
