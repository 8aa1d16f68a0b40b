"""Read models follow the log; a rebuild from the log gives the same tables."""

from __future__ import annotations

import sqlite3
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from infra_fakes import Create, Finish, Join, Tick, TinyCodec, TinyDecider
from sqlalchemy import Engine, select

from infra.db import make_engine
from infra.event_store import EventStore
from infra.game_service import GameService
from infra.projector import Projector
from infra.schema import games, player_stats


@pytest.fixture
def engine(fresh_db_url: str) -> Iterator[Engine]:
    engine = make_engine(fresh_db_url)
    yield engine
    engine.dispose()


def play(service: GameService, chat: int, finish: bool) -> str:
    game = f"game-{uuid.uuid4().hex}"
    service.handle(game, Create(actor=chat, chat_id=-chat))
    service.handle(game, Join(actor=chat + 1, name=f"p{chat + 1}"))
    service.handle(game, Join(actor=7, name="Seven"))
    for _ in range(3):
        service.handle(game, Tick(actor=chat), at=1_700_000_000_000)
    if finish:
        service.handle(game, Finish(actor=chat))
    return game


def tables(engine: Engine) -> dict[str, list[dict[str, Any]]]:
    with engine.connect() as conn:
        return {
            "games": [
                dict(r) for r in conn.execute(select(games).order_by(games.c.stream_id)).mappings()
            ],
            "player_stats": [
                dict(r)
                for r in conn.execute(
                    select(player_stats).order_by(player_stats.c.player_id)
                ).mappings()
            ],
        }


def test_games_and_player_statistics_follow_the_log(engine: Engine) -> None:
    store = EventStore(engine)
    service = GameService(store, TinyDecider(), TinyCodec())
    projector = Projector(engine, store)
    running = play(service, 100, finish=False)
    finished = play(service, 200, finish=True)

    projector.catch_up()

    by_id = {g["stream_id"]: g for g in tables(engine)["games"]}
    assert by_id[running]["status"] == "lobby"  # the tiny game has no start
    assert by_id[running]["chat_id"] == -100
    assert [p["id"] for p in by_id[running]["players"]] == [100, 101, 7]
    assert by_id[running]["current_player"] is not None
    assert by_id[running]["deadline"] is not None
    assert by_id[running]["version"] == store.version(running)
    assert by_id[finished]["status"] == "ended" and by_id[finished]["current_player"] is None
    stats = {s["player_id"]: s for s in tables(engine)["player_stats"]}
    assert stats[7]["games"] == 1 and stats[7]["name"] == "Seven"
    assert sum(s["wins"] for s in stats.values()) == 1
    assert sum(s["rounds_won"] for s in stats.values()) == 1
    assert sum(s["gold"] for s in stats.values()) == 3 + 1 + 1
    assert projector.position() == store.last_position()


def test_a_rebuild_from_the_log_equals_the_incrementally_built_tables(engine: Engine) -> None:
    store = EventStore(engine)
    service = GameService(store, TinyDecider(), TinyCodec())
    projector = Projector(engine, store)
    for chat in range(10, 60, 10):
        play(service, chat, finish=chat % 20 == 0)
        projector.run_once(batch=3)  # incremental, in small steps, interleaved with play
    projector.catch_up(batch=4)
    incremental = tables(engine)

    replayed = projector.rebuild(batch=1000)

    # 5 games of 9 events (create, 2 joins, 3 ticks of 2), 2 of them finished (2 more)
    assert replayed == len(store.read_all(limit=10_000)) == 5 * 9 + 2 * 2
    assert tables(engine) == incremental
    assert len(incremental["games"]) == 5


def test_readers_see_the_old_read_models_until_a_rebuild_is_complete(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = EventStore(engine)
    service = GameService(store, TinyDecider(), TinyCodec())
    projector = Projector(engine, store)
    for chat in (10, 20, 30):
        play(service, chat, finish=chat == 20)
    projector.catch_up()
    before = tables(engine)
    seen_meanwhile: list[dict[str, list[dict[str, Any]]]] = []
    read_all = store.read_all

    def read_all_and_look(*args: Any, **kwargs: Any) -> list[Any]:
        seen_meanwhile.append(tables(engine))  # another connection, as a reader's
        return read_all(*args, **kwargs)

    monkeypatch.setattr(store, "read_all", read_all_and_look)

    projector.rebuild(batch=4)

    assert len(seen_meanwhile) > 2
    assert all(seen == before for seen in seen_meanwhile)
    assert tables(engine) == before


def test_a_rebuild_keeps_every_event(engine: Engine) -> None:
    store = EventStore(engine)
    service = GameService(store, TinyDecider(), TinyCodec())
    play(service, 10, finish=True)
    before = store.read_all(limit=10_000)

    Projector(engine, store).rebuild()

    assert store.read_all(limit=10_000) == before


def test_events_of_a_stream_that_is_no_game_are_passed_over(engine: Engine) -> None:
    store = EventStore(engine)
    from infra.event_store import NewEvent

    store.append("audit-1", 0, [NewEvent("something_else", {"x": 1})])
    projector = Projector(engine, store)

    assert projector.catch_up() == 1
    assert tables(engine)["games"] == []


def test_a_projection_prepares_its_batch_before_it_takes_the_write_lock(
    sqlite_url: str,
) -> None:
    """What a projection reads to prepare its rows (the history reads whole games) must
    not hold up the players' moves: on SQLite the write lock is the whole database."""
    engine = make_engine(sqlite_url)
    store = EventStore(engine)
    play(GameService(store, TinyDecider(), TinyCodec()), chat=900, finish=True)
    path = engine.url.database
    assert path is not None
    lock_free_while_preparing: list[bool] = []

    @dataclass(frozen=True)
    class Probe:
        name: str = f"probe-{uuid.uuid4().hex[:6]}"
        tables: tuple[Any, ...] = ()

        def prepare(self, events: Any) -> None:
            other = sqlite3.connect(path, timeout=0, isolation_level=None)
            try:
                other.execute("BEGIN IMMEDIATE")
                other.execute("ROLLBACK")
                lock_free_while_preparing.append(True)
            except sqlite3.OperationalError:  # database is locked
                lock_free_while_preparing.append(False)
            finally:
                other.close()

        def apply(self, conn: Any, events: Any, prepared: None) -> None:
            pass

    assert Projector(engine, store, Probe()).catch_up() > 0
    assert lock_free_while_preparing and all(lock_free_while_preparing)
    engine.dispose()
