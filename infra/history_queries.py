"""What the history read models (:mod:`infra.history`) answer: a group's or a player's
finished games, most recent first, and the figures of a player, a group and its computer
players.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Engine, String, desc, func, select

from infra.bot_tables import group_chats
from infra.db import reader
from infra.history import (
    VARIANT_COUNTS,
    chat_computer_stats,
    chat_player_stats,
    finished_games,
    role_wins,
)


@dataclass(frozen=True, slots=True)
class HistoryEntry:
    game_id: str
    finished_at: datetime
    edition: str
    players: tuple[str, ...]
    winners: tuple[str, ...]
    gold: tuple[tuple[str, int], ...]
    variants: tuple[str, ...] = ()  # the variants played (docs/rules.md §8)


@dataclass(frozen=True, slots=True)
class PlayerFigures:
    player_id: int
    name: str
    games: int
    wins: int
    gold: int
    # The dwarves they won most rounds with (several when tied; none before a round won)
    # and how many rounds each.
    favourite_roles: tuple[str, ...]
    role_rounds: int
    # The games played with a variant (docs/rules.md §8), counted apart from the above.
    variant_games: int = 0
    variant_wins: int = 0
    variant_gold: int = 0


@dataclass(frozen=True, slots=True)
class ComputerFigures:
    """How the computer players fared in a group's games, all of them together."""

    chat_id: int
    seats: int  # computer seats over the group's finished games
    wins: int
    rounds_won: int
    gold: int


@dataclass(frozen=True, slots=True)
class GroupFigures:
    chat_id: int
    games: int
    wins: int  # games won by its players, one per winner of each game
    gold: int
    favourite_roles: tuple[str, ...]  # the dwarves its players won most rounds with
    role_rounds: int
    top_winners: tuple[str, ...]  # who won most games (several when tied; none: no win)
    top_wins: int
    # The games finished with a variant (docs/rules.md §8) and their winners, apart.
    variant_games: int = 0
    variant_wins: int = 0


def history(engine: Engine, chat_id: int, limit: int = 10, offset: int = 0) -> list[HistoryEntry]:
    """The group's finished games, most recent first (``offset`` of them skipped)."""
    with reader(engine) as conn:
        rows = conn.execute(
            select(finished_games)
            .where(finished_games.c.chat_id.in_(group_chats(conn, chat_id)))
            .order_by(desc(finished_games.c.finished_at), desc(finished_games.c.stream_id))
            .offset(offset)
            .limit(limit)
        ).mappings()
        return [_entry(row) for row in rows]


def _entry(row: Any) -> HistoryEntry:
    names = {int(p["id"]): str(p["name"]) for p in row["players"]}
    return HistoryEntry(
        game_id=row["stream_id"],
        finished_at=row["finished_at"],
        edition=row["edition"],
        players=tuple(names.values()),
        winners=tuple(names.get(int(w), str(w)) for w in row["winners"]),
        gold=tuple((names.get(int(pid), str(pid)), int(g)) for pid, g in row["gold"]),
        variants=tuple(str(v) for v in row["variants"] or ()),
    )


def player_history(
    engine: Engine, player_id: int, limit: int = 10, offset: int = 0
) -> list[HistoryEntry]:
    """The finished games ``player_id`` played, in any group, most recent first
    (``offset`` of them skipped)."""
    stats = chat_player_stats
    with reader(engine) as conn:
        chats = conn.execute(
            select(stats.c.chat_id).where(stats.c.player_id == player_id)
        ).scalars()
        rows = conn.execute(
            select(finished_games)
            .where(finished_games.c.chat_id.in_(list(chats)))
            .order_by(desc(finished_games.c.finished_at), desc(finished_games.c.stream_id))
        ).mappings()
        # Only the player's groups are read; their games without the player are skipped.
        mine = (row for row in rows if any(int(p["id"]) == player_id for p in row["players"]))
        return [_entry(row) for _, row in zip(range(offset + limit), mine, strict=False)][offset:]


def _most(counts: Sequence[tuple[Any, Any]]) -> tuple[tuple[str, ...], int]:
    """The names with the highest count (all of them when tied) and that count; nothing
    when the highest is 0."""
    best = max((int(count) for _, count in counts), default=0)
    if best <= 0:
        return (), 0
    return tuple(sorted(str(name) for name, count in counts if int(count) == best)), best


def last_finished(engine: Engine, chat_id: int) -> str | None:
    entries = history(engine, chat_id, limit=1)
    return entries[0].game_id if entries else None


def is_finished(engine: Engine, game_id: str) -> bool:
    with reader(engine) as conn:
        row = conn.execute(
            select(finished_games.c.stream_id).where(finished_games.c.stream_id == game_id)
        ).first()
    return row is not None


def player_figures(engine: Engine, player_id: int, chat_id: int | None = None) -> PlayerFigures:
    """A player's figures in one group, or across every group when ``chat_id`` is None."""
    stats, roles = chat_player_stats, role_wins
    with reader(engine) as conn:
        where = [stats.c.player_id == player_id]
        role_where = [roles.c.player_id == player_id]
        if chat_id is not None:
            chats = group_chats(conn, chat_id)
            where.append(stats.c.chat_id.in_(chats))
            role_where.append(roles.c.chat_id.in_(chats))
        games, wins, gold, v_games, v_wins, v_gold = conn.execute(
            select(
                *(
                    func.coalesce(func.sum(stats.c[column]), 0)
                    for column in ("games", "wins", "gold", *VARIANT_COUNTS)
                )
            ).where(*where)
        ).one()
        name = conn.execute(select(stats.c.name).where(*where).limit(1)).scalar()
        by_role = conn.execute(
            select(roles.c.role, func.sum(roles.c.rounds_won))
            .where(*role_where)
            .group_by(roles.c.role)
        ).all()
    favourite, rounds = _most(by_role)
    return PlayerFigures(
        player_id,
        name or "",
        int(games),
        int(wins),
        int(gold),
        favourite,
        rounds,
        int(v_games),
        int(v_wins),
        int(v_gold),
    )


def computer_figures(engine: Engine, chat_id: int) -> ComputerFigures:
    """The computer players' figures in a group (under any id it had)."""
    stats = chat_computer_stats.c
    with reader(engine) as conn:
        seats, wins, rounds_won, gold = conn.execute(
            select(
                func.coalesce(func.sum(stats.seats), 0),
                func.coalesce(func.sum(stats.wins), 0),
                func.coalesce(func.sum(stats.rounds_won), 0),
                func.coalesce(func.sum(stats.gold), 0),
            ).where(stats.chat_id.in_(group_chats(conn, chat_id)))
        ).one()
    return ComputerFigures(chat_id, int(seats), int(wins), int(rounds_won), int(gold))


def group_figures(engine: Engine, chat_id: int) -> GroupFigures:
    """A group's figures: its finished games, its players' wins and gold, the dwarf they
    won most rounds with, and its top winner."""
    stats = chat_player_stats
    with reader(engine) as conn:
        chats = group_chats(conn, chat_id)
        plain = finished_games.c.variants.cast(String) == "[]"
        games, variant_games = conn.execute(
            select(func.count().filter(plain), func.count().filter(~plain)).where(
                finished_games.c.chat_id.in_(chats)
            )
        ).one()
        wins, gold, variant_wins = conn.execute(
            select(
                func.coalesce(func.sum(stats.c.wins), 0),
                func.coalesce(func.sum(stats.c.gold), 0),
                func.coalesce(func.sum(stats.c.variant_wins), 0),
            ).where(stats.c.chat_id.in_(chats))
        ).one()
        by_role = conn.execute(
            select(role_wins.c.role, func.sum(role_wins.c.rounds_won))
            .where(role_wins.c.chat_id.in_(chats))
            .group_by(role_wins.c.role)
        ).all()
        by_player = conn.execute(
            select(func.max(stats.c.name), func.sum(stats.c.wins))
            .where(stats.c.chat_id.in_(chats))
            .group_by(stats.c.player_id)
        ).all()
    favourite, rounds = _most(by_role)
    top, top_wins = _most(by_player)
    return GroupFigures(
        chat_id,
        int(games),
        int(wins),
        int(gold),
        favourite,
        rounds,
        top,
        top_wins,
        int(variant_games),
        int(variant_wins),
    )
