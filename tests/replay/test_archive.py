"""Export a game's events as JSON lines; import them elsewhere under a new id."""

from __future__ import annotations

import io
import json
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest
from sqlalchemy import select

from domain import codec
from domain.events import Event, GameCreated, PlayerJoined, PlayerLeft, SettingsChanged
from infra.archive import (
    ArchiveError,
    GameNotFound,
    export_game,
    import_game,
    main_export,
    main_import,
)
from infra.db import make_engine
from infra.event_store import EventStore, NewEvent
from infra.migrations import upgrade
from infra.projector import Projector
from infra.schema import games


def store_game(
    store: EventStore, events: list[Event] | tuple[Event, ...], per_batch: int = 7
) -> str:
    game_id = uuid.uuid4().hex[:12]
    version = 0
    for start in range(0, len(events), per_batch):
        batch = [NewEvent(*codec.encode(e)) for e in events[start : start + per_batch]]
        store.append(game_id, version, batch, {"command": "Test", "batch": start})
        version += len(batch)
    return game_id


def other_database(empty_database: Callable[[str], str], backend: str) -> EventStore:
    url = empty_database(backend)
    upgrade(url)
    return EventStore(make_engine(url))


@pytest.fixture
def lobby() -> list[Event]:
    return [
        GameCreated(1, "Ann", "base", -5, 180, False),
        PlayerJoined(2, "Bø"),
        PlayerJoined(3, "Cy"),
        SettingsChanged("saboteur2", 60),
        PlayerLeft(3),
    ]


@pytest.mark.parametrize("target", ["sqlite", "postgres"])
def test_an_export_imported_elsewhere_has_the_same_events_under_a_new_id(
    db_url: str, empty_database: Callable[[str], str], target: str, lobby: list[Event]
) -> None:
    source = EventStore(make_engine(db_url))
    game_id = store_game(source, lobby, per_batch=2)
    lines = list(export_game(source, game_id))
    assert len(lines) == len(lobby)
    first = json.loads(lines[0])
    assert {"type", "schema_version", "payload", "metadata", "recorded_at"} <= set(first)

    destination = other_database(empty_database, target)
    new_id, count = import_game(destination, lines)
    assert new_id != game_id and count == len(lobby)
    copied = destination.load(new_id)
    original = source.load(game_id)
    assert [(e.type, e.payload, e.schema_version) for e in copied] == [
        (e.type, e.payload, e.schema_version) for e in original
    ]
    assert [e.recorded_at for e in copied] == [e.recorded_at for e in original]
    assert all(e.metadata["imported_from"] == game_id for e in copied)
    assert copied[0].metadata["command"] == "Test"


def test_importing_twice_makes_two_games_and_rewrites_nothing(
    sqlite_url: str, lobby: list[Event]
) -> None:
    store = EventStore(make_engine(sqlite_url))
    game_id = store_game(store, lobby)
    lines = list(export_game(store, game_id))
    first, _ = import_game(store, lines)
    second, _ = import_game(store, lines)
    assert len({game_id, first, second}) == 3
    assert [e.payload for e in store.load(game_id)] == [e.payload for e in store.load(first)]
    with pytest.raises(ArchiveError):
        import_game(store, lines, game_id=first)


def test_an_unknown_game_cannot_be_exported(sqlite_url: str) -> None:
    with pytest.raises(GameNotFound):
        list(export_game(EventStore(make_engine(sqlite_url)), "nope"))


@pytest.mark.parametrize(
    "text",
    ["", "not json\n", '{"format": "other"}\n'],
)
def test_a_file_that_is_not_an_export_is_refused(sqlite_url: str, text: str) -> None:
    with pytest.raises(ArchiveError):
        import_game(EventStore(make_engine(sqlite_url)), io.StringIO(text))


def test_lines_of_two_games_or_with_a_gap_are_refused(sqlite_url: str, lobby: list[Event]) -> None:
    store = EventStore(make_engine(sqlite_url))
    one = list(export_game(store, store_game(store, lobby)))
    two = list(export_game(store, store_game(store, lobby)))
    with pytest.raises(ArchiveError, match="several games"):
        import_game(store, [one[0], two[1]])
    with pytest.raises(ArchiveError, match="versions"):
        import_game(store, [one[0], one[2]])


def test_the_command_line_exports_to_a_file_and_imports_it(
    sqlite_url: str, empty_database: Callable[[str], str], tmp_path: Path, lobby: list[Event]
) -> None:
    game_id = store_game(EventStore(make_engine(sqlite_url)), lobby)
    path = tmp_path / "game.jsonl"
    assert main_export([game_id, "--out", str(path), "--database-url", sqlite_url]) == 0
    assert len(path.read_text().splitlines()) == len(lobby)
    target = empty_database("sqlite")
    upgrade(target)
    out = io.StringIO()
    assert main_import([str(path), "--database-url", target], out=out) == 0
    new_id = out.getvalue().strip()
    assert len(EventStore(make_engine(target)).load(new_id)) == len(lobby)
    assert main_export(["missing", "--database-url", sqlite_url]) == 1


def test_a_game_imported_into_the_same_database_is_not_its_groups_running_game(
    sqlite_url: str, lobby: list[Event]
) -> None:
    store = EventStore(make_engine(sqlite_url))
    original = store_game(store, lobby)
    copy, _ = import_game(store, export_game(store, original))
    projector = Projector(store.engine, store)
    projector.catch_up()

    with store.engine.connect() as conn:
        rows = conn.execute(select(games.c.stream_id, games.c.chat_id)).all()
    assert (original, -5) in rows
    assert copy not in {stream for stream, _ in rows}
    projector.rebuild()
    with store.engine.connect() as conn:
        assert (
            conn.execute(select(games.c.stream_id).where(games.c.stream_id == copy)).first() is None
        )
