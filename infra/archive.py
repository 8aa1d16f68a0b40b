"""Export a game's stored events as JSON lines, and import them under a new id elsewhere.

A player attaches the export of a game to a bug report; a developer imports it into
their own database and replays it. Each line is one stored event exactly as recorded:
its type, schema version, payload, metadata and recording time. Importing appends the
events through the event store under a new stream id; nothing stored is ever rewritten.

An imported game is never live: its events keep their original chat id, but every one
carries ``imported_from`` in its metadata, and the read models that make a game live
(deadlines, the group's history and figures, the group's running game) skip such streams
(:mod:`infra.imported`). It stays replayable by its id.

>>> line = to_line(StoredEvent(1, "g1", 1, "player_joined", 1, {"player": 2, "name": "Bo"},
...                            {}, datetime(2025, 1, 2, tzinfo=UTC)))
>>> from_line(line).payload == {"player": 2, "name": "Bo"}
True
"""

from __future__ import annotations

import argparse
import json
import secrets
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

from infra.event_store import BrokenChain, EventStore, NewEvent, StoredEvent
from infra.imported import IMPORTED_FROM as IMPORTED_FROM
from infra.imported import imported_streams as imported_streams
from infra.imported import is_imported as is_imported

FORMAT = "saboteur-bot/events"
FORMAT_VERSION = 1


class ArchiveError(ValueError):
    """An export file this module cannot read."""


class GameNotFound(ArchiveError):
    """No events are stored under that game id."""


@dataclass(frozen=True, slots=True)
class ArchivedEvent:
    stream_id: str
    version: int
    type: str
    schema_version: int
    payload: dict[str, Any]
    metadata: dict[str, Any]
    recorded_at: datetime


def to_line(event: StoredEvent) -> str:
    """One stored event as one line of JSON (no newline)."""
    return json.dumps(
        {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "stream_id": event.stream_id,
            "version": event.version,
            "type": event.type,
            "schema_version": event.schema_version,
            "payload": event.payload,
            "metadata": event.metadata,
            "recorded_at": event.recorded_at.astimezone(UTC).isoformat(),
        },
        ensure_ascii=False,
        sort_keys=True,
        separators=(",", ":"),
    )


def from_line(line: str) -> ArchivedEvent:
    try:
        data = json.loads(line)
        if data.get("format") != FORMAT or data.get("format_version") != FORMAT_VERSION:
            raise ArchiveError(f"not a {FORMAT} v{FORMAT_VERSION} line")
        recorded_at = datetime.fromisoformat(data["recorded_at"])
        return ArchivedEvent(
            stream_id=str(data["stream_id"]),
            version=int(data["version"]),
            type=str(data["type"]),
            schema_version=int(data["schema_version"]),
            payload=dict(data["payload"]),
            metadata=dict(data.get("metadata") or {}),
            recorded_at=recorded_at if recorded_at.tzinfo else recorded_at.replace(tzinfo=UTC),
        )
    except (KeyError, TypeError, ValueError) as error:
        if isinstance(error, ArchiveError):
            raise
        raise ArchiveError(f"unreadable event line: {error}") from error


def export_game(store: EventStore, game_id: str) -> Iterator[str]:
    """The game's events as JSON lines, oldest first, as stored (not upcast).

    Raises :class:`~infra.event_store.BrokenChain` (nothing exported) when the game's
    hash chain does not hold.
    """
    plain = EventStore(store.engine)  # no upcasters: export what was recorded
    stored = plain.load(game_id, verified=True)
    if not stored:
        raise GameNotFound(game_id)
    for event in stored:
        yield to_line(event)


def read_lines(lines: Iterable[str]) -> list[ArchivedEvent]:
    """Parse an export, checking it is one stream with versions 1, 2, 3, …"""
    archived = [from_line(line) for line in lines if line.strip()]
    if not archived:
        raise ArchiveError("the file holds no event")
    if len({e.stream_id for e in archived}) != 1:
        raise ArchiveError("the file mixes several games")
    if [e.version for e in archived] != list(range(1, len(archived) + 1)):
        raise ArchiveError("the file's events are not versions 1, 2, 3, … of one game")
    return archived


def new_game_id() -> str:
    """A fresh id in the bot's game id alphabet (12 URL-safe characters)."""
    return secrets.token_urlsafe(9)


def import_game(
    store: EventStore, lines: Iterable[str], game_id: str | None = None
) -> tuple[str, int]:
    """Append an export's events to a new stream; returns (new game id, events appended).

    Events recorded together stay together (one append per original metadata and
    recording time), keep their metadata (with ``imported_from`` added) and their
    recording time.
    """
    archived = read_lines(lines)
    game_id = game_id or new_game_id()
    if store.version(game_id) != 0:
        raise ArchiveError(f"game {game_id!r} already exists")
    version = 0
    for batch in _batches(archived):
        first = batch[0]
        writer = EventStore(store.engine, store.upcasters, clock=_fixed(first.recorded_at))
        metadata = {**first.metadata, IMPORTED_FROM: first.stream_id}
        writer.append(
            game_id,
            version,
            [NewEvent(e.type, e.payload, e.schema_version) for e in batch],
            metadata,
        )
        version += len(batch)
    return game_id, version


def _fixed(moment: datetime) -> Callable[[], datetime]:
    return lambda: moment


def _batches(archived: Sequence[ArchivedEvent]) -> Iterator[list[ArchivedEvent]]:
    batch: list[ArchivedEvent] = []
    for event in archived:
        if batch and (
            event.metadata != batch[0].metadata or event.recorded_at != batch[0].recorded_at
        ):
            yield batch
            batch = []
        batch.append(event)
    if batch:
        yield batch


# -- command line ---------------------------------------------------------------------


def _store(url: str | None) -> EventStore:
    from infra.bootstrap import event_store
    from infra.db import make_engine
    from infra.migrations import require_current

    if url is None:
        from infra.settings import load_settings

        url = load_settings().database_url
    engine = make_engine(url)
    require_current(engine)
    return event_store(engine)


def main_export(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    """``export GAME_ID [--out FILE] [--database-url URL]``: the game's events as JSON lines."""
    parser = argparse.ArgumentParser(prog="saboteur-bot export", description=main_export.__doc__)
    parser.add_argument("game_id")
    parser.add_argument("--out", type=Path, help="file to write (default: standard output)")
    parser.add_argument("--database-url", help="default: the configured database")
    args = parser.parse_args(argv)
    store = _store(args.database_url)
    try:
        lines = list(export_game(store, args.game_id))
    except GameNotFound:
        print(f"no game {args.game_id!r}", file=sys.stderr)
        return 1
    except BrokenChain as error:
        print(f"game {args.game_id!r} not exported: {error}", file=sys.stderr)
        return 1
    text = "".join(line + "\n" for line in lines)
    if args.out is not None:
        args.out.write_text(text, encoding="utf-8")
    else:
        (out or sys.stdout).write(text)
    return 0


def main_import(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    """``import FILE [--game-id ID] [--database-url URL]``: load an export under a new id."""
    parser = argparse.ArgumentParser(prog="saboteur-bot import", description=main_import.__doc__)
    parser.add_argument("file", type=Path)
    parser.add_argument("--game-id", help="the new game's id (default: a fresh one)")
    parser.add_argument("--database-url", help="default: the configured database")
    args = parser.parse_args(argv)
    store = _store(args.database_url)
    try:
        with args.file.open(encoding="utf-8") as lines:
            game_id, count = import_game(store, lines, args.game_id)
    except (OSError, ArchiveError) as error:
        print(f"cannot import {args.file}: {error}", file=sys.stderr)
        return 1
    (out or sys.stdout).write(f"{game_id}\n")
    print(f"imported {count} events as game {game_id}", file=sys.stderr)
    return 0
