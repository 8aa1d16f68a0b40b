"""The read models ``games`` and ``player_stats``, applied one event at a time.

``player_stats`` counts people only: computer players' seats and practice games are left
out of it (:mod:`infra.history` counts the computer players apart). They work on stored
event types and payload dicts, not on the rules engine, and take every time from the
event (``recorded_at``, deadlines), so rebuilding from the log gives the same rows.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Connection, insert, select, update

from infra.event_store import StoredEvent
from infra.projection import EachEvent, Projection
from infra.schema import READ_MODEL_TABLES, games, player_stats

READ_MODELS_PROJECTOR = "read_models"

Row = dict[str, Any]


def ms_to_datetime(ms: int) -> datetime:
    return datetime.fromtimestamp(ms / 1000, tz=UTC)


def apply(conn: Connection, event: StoredEvent) -> None:
    """Apply one stored event to the read models."""
    handler = _HANDLERS.get(event.type)
    game = _game(conn, event.stream_id)
    if game is None and event.type != "game_created":
        return  # not a game stream, or a game this projection cannot know
    if handler is not None:
        game = handler(conn, game or {}, event.payload, event)
    if game is not None:
        game["version"] = event.version
        game["updated_at"] = event.recorded_at
        _save_game(conn, event.stream_id, game)


# The ``games`` and ``player_stats`` read models.
READ_MODELS: Projection[None] = EachEvent(READ_MODELS_PROJECTOR, READ_MODEL_TABLES, apply)


Handler = Callable[[Connection, Row, dict[str, Any], StoredEvent], Row]


def _game(conn: Connection, stream_id: str) -> Row | None:
    row = conn.execute(select(games).where(games.c.stream_id == stream_id)).mappings().first()
    return None if row is None else dict(row)


def _save_game(conn: Connection, stream_id: str, game: Row) -> None:
    values = {k: v for k, v in game.items() if k != "stream_id"}
    done = conn.execute(update(games).where(games.c.stream_id == stream_id).values(**values))
    if done.rowcount == 0:
        conn.execute(insert(games).values(stream_id=stream_id, **values))


def _edition(value: Any) -> str | None:
    return None if value is None else str(getattr(value, "value", value))


def _created(conn: Connection, game: Row, p: dict[str, Any], e: StoredEvent) -> Row:
    return {
        "chat_id": p.get("chat_id"),
        "topic": p.get("topic"),
        "practice": bool(p.get("practice", False)),
        "status": "lobby",
        "edition": _edition(p.get("edition")),
        "players": [{"id": p["creator"], "name": p.get("creator_name", "")}],
        "round": 0,
        "current_player": None,
        "decision_id": None,
        "decision_kind": None,
        "deadline": None,
        "created_at": e.recorded_at,
    }


def _joined(conn: Connection, game: Row, p: dict[str, Any], e: StoredEvent) -> Row:
    players = [q for q in game["players"] if q["id"] != p["player"]]
    return {**game, "players": [*players, {"id": p["player"], "name": p.get("name", "")}]}


def _computer_joined(conn: Connection, game: Row, p: dict[str, Any], e: StoredEvent) -> Row:
    seat = {"id": p["player"], "name": p.get("name", ""), "computer": True}
    return {**game, "players": [*game["players"], seat]}


def _left(conn: Connection, game: Row, p: dict[str, Any], e: StoredEvent) -> Row:
    return {**game, "players": [q for q in game["players"] if q["id"] != p["player"]]}


def _settings(conn: Connection, game: Row, p: dict[str, Any], e: StoredEvent) -> Row:
    return {**game, "edition": _edition(p.get("edition", game["edition"]))}


def _started(conn: Connection, game: Row, p: dict[str, Any], e: StoredEvent) -> Row:
    by_id = {q["id"]: q for q in game["players"]}
    seating = [by_id.get(pid, {"id": pid, "name": ""}) for pid in p.get("seating", [])]
    return {**game, "status": "playing", "players": seating or game["players"]}


def _round_started(conn: Connection, game: Row, p: dict[str, Any], e: StoredEvent) -> Row:
    return {**game, "round": p.get("round", game["round"] + 1)}


def _decision(conn: Connection, game: Row, p: dict[str, Any], e: StoredEvent) -> Row:
    return {
        **game,
        "current_player": p.get("player"),
        "decision_id": p.get("decision"),
        "decision_kind": p.get("kind"),
        "deadline": ms_to_datetime(p["deadline"]) if p.get("deadline") else None,
    }


def _no_decision(game: Row) -> Row:
    return {
        **game,
        "current_player": None,
        "decision_id": None,
        "decision_kind": None,
        "deadline": None,
    }


def _counted(game: Row) -> list[dict[str, Any]]:
    """The players whose figures a game counts: people, and none in a practice game."""
    if game.get("practice"):
        return []
    return [q for q in game["players"] if not q.get("computer")]


def _round_ended(conn: Connection, game: Row, p: dict[str, Any], e: StoredEvent) -> Row:
    counted = {q["id"] for q in _counted(game)}
    for player in p.get("winners", []):
        if player in counted:
            _bump(conn, player, _name(game, player), rounds_won=1)
    return _no_decision(game)


def _ended(conn: Connection, game: Row, p: dict[str, Any], e: StoredEvent) -> Row:
    gold = {int(pid): int(amount) for pid, amount in p.get("gold", [])}
    winners = set(p.get("winners", []))
    for player in _counted(game):
        pid = player["id"]
        _bump(conn, pid, player["name"], games=1, wins=int(pid in winners), gold=gold.get(pid, 0))
    return {**_no_decision(game), "status": "ended"}


def _cancelled(conn: Connection, game: Row, p: dict[str, Any], e: StoredEvent) -> Row:
    return {**_no_decision(game), "status": "cancelled"}


def _name(game: Row, player: int) -> str:
    return next((q["name"] for q in game["players"] if q["id"] == player), "")


def _bump(conn: Connection, player: int, name: str, **deltas: int) -> None:
    row = (
        conn.execute(select(player_stats).where(player_stats.c.player_id == player))
        .mappings()
        .first()
    )
    if row is None:
        base = {"games": 0, "wins": 0, "rounds_won": 0, "gold": 0}
        base.update(deltas)
        conn.execute(insert(player_stats).values(player_id=player, name=name, **base))
        return
    values: dict[str, Any] = {k: row[k] + v for k, v in deltas.items()}
    if name:
        values["name"] = name
    conn.execute(update(player_stats).where(player_stats.c.player_id == player).values(**values))


_HANDLERS: dict[str, Handler] = {
    "game_created": _created,
    "player_joined": _joined,
    "player_left": _left,
    "computer_player_added": _computer_joined,
    "computer_player_removed": _left,
    "settings_changed": _settings,
    "game_started": _started,
    "round_started": _round_started,
    "decision_opened": _decision,
    "round_ended": _round_ended,
    "game_ended": _ended,
    "game_cancelled": _cancelled,
}
