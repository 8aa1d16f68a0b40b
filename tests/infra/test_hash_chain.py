"""Every stream is a hash chain: each event records its predecessor's hash and its own.
Tampering done as the tables' owner (the immutability triggers set aside, as an attacker
holding that role would) is found by ``saboteur-bot verify``, which says where, and the
exports and replays refuse the game."""

from __future__ import annotations

import itertools
import json
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import Connection, Engine, create_engine, insert, select, text

from infra.archive import main_export
from infra.chain import GENESIS, event_hash
from infra.db import make_engine
from infra.event_store import BrokenChain, EventStore, NewEvent
from infra.migrations import upgrade
from infra.schema import events
from tests.fakebotapi import FakeBotAPI
from tests.replay.games import PlayedGame, play
from tests.replay.test_history_figures import store_game
from tests.tgbot.bot_harness import running_bot
from tgbot.cli import main
from tgbot.replay.steps import text as replay_text

GROUP = -4004
USER = 101


def append_game(store: EventStore, events_count: int = 9, per_batch: int = 3) -> str:
    game_id = f"g-{uuid.uuid4().hex[:10]}"
    for start in range(0, events_count, per_batch):
        batch = [
            NewEvent("ticked", {"n": n, "who": ("ann", n)}) for n in range(start, start + per_batch)
        ]
        store.append(game_id, start, batch, {"command": "Tick", "actor": 1})
    return game_id


def hashes(engine: Engine, game_id: str) -> list[tuple[int, str, str]]:
    with engine.connect() as conn:
        rows = conn.execute(
            select(events.c.version, events.c.prev_hash, events.c.hash)
            .where(events.c.stream_id == game_id)
            .order_by(events.c.version)
        )
        return [tuple(r) for r in rows]  # type: ignore[misc]


def test_each_event_records_its_predecessors_hash_and_its_own(db_url: str) -> None:
    store = EventStore(make_engine(db_url))
    game_id = append_game(store)
    chain = hashes(store.engine, game_id)
    assert [v for v, _, _ in chain] == list(range(1, 10))
    assert chain[0][1] == GENESIS
    for (_, _, before), (_, prev, own) in itertools.pairwise(chain):
        assert prev == before and len(own) == 64 and own != before
    assert store.verify(game_id) is None
    assert [e.payload["n"] for e in store.load(game_id, verified=True)] == list(range(9))
    store.engine.dispose()


@contextmanager
def as_the_owner_without_triggers(engine: Engine) -> Iterator[Connection]:
    """A transaction of the tables' owner with the immutability triggers set aside: what
    an attacker holding that role can do."""
    with engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            conn.execute(text("ALTER TABLE events DISABLE TRIGGER USER"))
            yield conn
            conn.execute(text("ALTER TABLE events ENABLE TRIGGER USER"))
        else:
            conn.execute(text("DROP TRIGGER events_no_update"))
            conn.execute(text("DROP TRIGGER events_no_delete"))
            yield conn
            conn.execute(
                text(
                    "CREATE TRIGGER events_no_update BEFORE UPDATE ON events BEGIN "
                    "SELECT RAISE(ABORT, 'events are immutable: UPDATE on events rejected'); END"
                )
            )
            conn.execute(
                text(
                    "CREATE TRIGGER events_no_delete BEFORE DELETE ON events BEGIN "
                    "SELECT RAISE(ABORT, 'events are immutable: DELETE on events rejected'); END"
                )
            )


def _payload(conn: Connection, game_id: str, version: int) -> str:
    return str(
        conn.execute(
            text("SELECT payload FROM events WHERE stream_id = :g AND version = :v"),
            {"g": game_id, "v": version},
        ).scalar_one()
    )


def _forge(conn: Connection, game_id: str, version: int, reseal: bool) -> None:
    """Change event ``version``'s payload (and, with ``reseal``, recompute its hash as a
    careful attacker would)."""
    row = conn.execute(
        select(events).where(events.c.stream_id == game_id, events.c.version == version)
    ).one()
    payload = {**row.payload, "n": 999}
    values: dict[str, object] = {"payload": payload}
    if reseal:
        values["hash"] = event_hash(
            row.prev_hash,
            game_id,
            version,
            row.type,
            row.schema_version,
            payload,
            row.metadata,
            row.recorded_at,
        )
    conn.execute(
        events.update()
        .where(events.c.stream_id == game_id, events.c.version == version)
        .values(**values)
    )


ATTACKS: dict[str, tuple[Callable[[Connection, str], None], int, str]] = {
    "a payload changed": (
        lambda conn, g: _forge(conn, g, 5, reseal=False),
        5,
        "its content does not match its hash",
    ),
    "a payload changed and its hash recomputed": (
        lambda conn, g: _forge(conn, g, 5, reseal=True),
        6,
        "its predecessor's hash does not match",
    ),
    "an event removed": (
        lambda conn, g: conn.execute(
            text("DELETE FROM events WHERE stream_id = :g AND version = 5"), {"g": g}
        ),
        5,
        "version 5 is missing",
    ),
    "an event's time moved": (
        lambda conn, g: conn.execute(
            events.update()
            .where(events.c.stream_id == g, events.c.version == 2)
            .values(recorded_at=datetime(2020, 1, 1, tzinfo=UTC))
        ),
        2,
        "its content does not match its hash",
    ),
}


@pytest.mark.parametrize("attack", list(ATTACKS))
def test_tampering_as_the_owner_is_found_where_it_is(
    fresh_db_url: str,
    attack: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    store = EventStore(make_engine(fresh_db_url))
    untouched, game_id = append_game(store), append_game(store)
    forge, version, reason = ATTACKS[attack]
    with as_the_owner_without_triggers(store.engine) as conn:
        forge(conn, game_id)

    found = store.verify(game_id)
    assert found is not None and (found.version, found.reason) == (version, reason)
    assert store.verify(untouched) is None
    with pytest.raises(BrokenChain) as refused:
        store.load(game_id, verified=True)
    assert refused.value.version == version

    monkeypatch.setenv("DATABASE_URL", fresh_db_url)
    capsys.readouterr()
    assert main(["verify"]) == 1
    said = capsys.readouterr()
    assert f"BROKEN: stream '{game_id}' is broken at version {version}" in said.out
    assert reason in said.out and untouched not in said.out
    assert "1 broken of 2 streams" in said.err
    assert main(["verify", game_id]) == 1
    assert main(["verify", untouched]) == 0
    assert "hash chains hold: game" in capsys.readouterr().out

    # An export refuses the game, saying where (and writes nothing).
    assert main_export([game_id, "--database-url", fresh_db_url]) == 1
    said = capsys.readouterr()
    assert said.out == "" and f"broken at version {version}" in said.err
    store.engine.dispose()


def test_verify_on_an_intact_log_says_how_much_it_checked(
    fresh_db_url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    store = EventStore(make_engine(fresh_db_url))
    for _ in range(3):
        append_game(store)
    monkeypatch.setenv("DATABASE_URL", fresh_db_url)
    assert main(["verify"]) == 0
    assert "hash chains hold: 3 streams, 27 events" in capsys.readouterr().out
    assert main(["verify", "no-such-game"]) == 1
    assert "no game 'no-such-game'" in capsys.readouterr().err
    store.engine.dispose()


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_events_stored_before_the_chain_are_sealed_by_the_migration(
    empty_database: Callable[[str], str], backend: str
) -> None:
    url = empty_database(backend)
    upgrade(url, "0012_computer_players")
    engine = create_engine(url.replace("postgresql://", "postgresql+psycopg://"))
    at = datetime(2025, 3, 1, 12, 0, 0, 123456, tzinfo=UTC)
    with engine.begin() as conn:
        for game in ("old-a", "old-b"):
            for version in range(1, 5):
                conn.execute(
                    text(
                        "INSERT INTO events (stream_id, version, type, schema_version, payload,"
                        " metadata, recorded_at) VALUES (:s, :v, 'ticked', 1, :p, :m, :t)"
                    ),
                    {
                        "s": game,
                        "v": version,
                        "p": json.dumps({"n": version, "name": "Bø"}),
                        "m": json.dumps({"actor": 1}),
                        "t": at + timedelta(seconds=version),
                    },
                )
    engine.dispose()
    upgrade(url)
    store = EventStore(make_engine(url))
    result = store.verify_all()
    assert (result.streams, result.events, result.breaks) == (2, 8, [])
    assert all(len(h) == 64 for _, _, h in hashes(store.engine, "old-a"))
    store.append("old-a", 4, [NewEvent("ticked", {"n": 5})])  # the chain goes on
    assert store.verify("old-a") is None and store.version("old-a") == 5
    store.engine.dispose()


def test_a_row_inserted_around_the_store_breaks_the_chain(db_url: str) -> None:
    store = EventStore(make_engine(db_url))
    game_id = append_game(store, events_count=3)
    with store.engine.begin() as conn:  # the runtime role may INSERT: it cannot seal
        conn.execute(
            insert(events).values(
                stream_id=game_id,
                version=4,
                type="ticked",
                schema_version=1,
                payload={"n": 3},
                metadata={},
                recorded_at=datetime.now(UTC),
            )
        )
    found = store.verify(game_id)
    assert found is not None and found.version == 4
    store.engine.dispose()


@pytest.fixture(scope="module")
def finished() -> PlayedGame:
    return play(41, players=3, edition="base", chat_id=GROUP)


async def test_the_bot_refuses_to_replay_a_tampered_game(
    empty_database: Callable[[str], str], finished: PlayedGame, tmp_path: Path
) -> None:
    url = empty_database("sqlite")
    upgrade(url)
    store = EventStore(make_engine(url))
    game_id = store_game(store, finished.events, day=0)
    with as_the_owner_without_triggers(store.engine) as conn:
        _forge(conn, game_id, 7, reseal=False)
    before = store.last_position()
    refusal = replay_text("en", "replay.tampered")
    async with FakeBotAPI() as api, running_bot(api, url):
        api.group(GROUP)
        api.user(USER, "P1")
        sent = len(api.calls)
        api.send_text(GROUP, USER, f"/replay {game_id}")
        answer = await api.wait_for_call("sendMessage", 20, after=sent, chat_id=GROUP)
        assert answer["text"] == refusal
        assert not [c for c in api.calls[sent:] if c.method in ("sendPhoto", "sendAnimation")]
    assert store.last_position() == before  # nothing appended

    # Nor does the command line make its GIF.
    gif = tmp_path / "game.gif"
    assert main(["replay", game_id, "--out", str(gif), "--database-url", url]) == 1
    assert not gif.exists()
    store.engine.dispose()


def test_the_stored_payload_is_what_was_sealed(sqlite_url: str) -> None:
    # Tuples and non-string keys are sealed as JSON gives them back.
    store = EventStore(make_engine(sqlite_url))
    game_id = f"g-{uuid.uuid4().hex[:8]}"
    odd = {"t": (1, 2), "k": {10: "x", 9: "y"}, "s": "Bø"}
    store.append(game_id, 0, [NewEvent("odd", odd), NewEvent("odd", odd)])
    assert store.verify(game_id) is None
    store.engine.dispose()
