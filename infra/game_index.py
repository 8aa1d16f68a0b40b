"""The games the bot looks up: which are open in a chat or topic, whose seats they have,
how many a chat opened, and where each was opened.

These read the ``games`` read model (kept by :class:`infra.projector.Projector`) and the
games' first events; the lookups that must see the newest games catch the read model up
first. The Telegram adapter asks these questions; it runs no SQL of its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from sqlalchemy import Engine, func, select

from infra.bot_tables import group_chats
from infra.db import reader
from infra.imported import imported_streams
from infra.projector import Projector
from infra.schema import events, games

ACTIVE: Final = ("lobby", "playing")  # a game in its lobby or being played


class GameIndex:
    """Lookups over the games read model of ``engine``, caught up by ``projector``."""

    def __init__(self, engine: Engine, projector: Projector) -> None:
        self.engine = engine
        self.projector = projector

    def open_games(
        self, chats: Sequence[int], topic: int | None = None, *, every: bool = False
    ) -> list[tuple[str, int | None]]:
        """The games of ``chats`` in the lobby or being played, newest first, each with its
        forum topic: only the newest of ``topic`` (None: of General, or of a chat without
        topics); ``every``: all of them, of every topic and General."""
        self.projector.catch_up()
        query = (
            select(games.c.stream_id, games.c.topic)
            .where(games.c.chat_id.in_(chats), games.c.status.in_(ACTIVE))
            .order_by(games.c.created_at.desc())
        )
        if not every:
            same = games.c.topic.is_(None) if topic is None else games.c.topic == topic
            query = query.where(same).limit(1)
        with reader(self.engine) as conn:
            return [(row.stream_id, row.topic) for row in conn.execute(query)]

    def games_seating(self, user_id: int, statuses: Sequence[str] = ("playing",)) -> list[str]:
        """The games in ``statuses`` with ``user_id`` seated, newest first."""
        self.projector.catch_up()
        with reader(self.engine) as conn:
            rows = conn.execute(
                select(games.c.stream_id, games.c.players)
                .where(games.c.status.in_(statuses))
                .order_by(games.c.created_at.desc())
            ).all()
        return [
            row.stream_id
            for row in rows
            if any(isinstance(p, dict) and p.get("id") == user_id for p in row.players or ())
        ]

    def games_opened_in(self, chat_id: int, topic: int | None = None) -> int:
        """How many games the read model holds of the chat's ``topic`` (None: of General,
        or of a chat without topics), whatever became of them."""
        same = games.c.topic.is_(None) if topic is None else games.c.topic == topic
        with reader(self.engine) as conn:
            count = conn.execute(
                select(func.count()).select_from(games).where(games.c.chat_id == chat_id, same)
            ).scalar_one()
        return int(count)

    def group_chats(self, chat_id: int) -> list[int]:
        """The ids one group had: ``chat_id`` first, then the chats it migrated from or to
        (its history and ratings go with it)."""
        with reader(self.engine) as conn:
            return group_chats(conn, chat_id)

    def imported(self, game_ids: Sequence[str]) -> set[str]:
        """Those of ``game_ids`` that are imported games (played elsewhere)."""
        with reader(self.engine) as conn:
            return imported_streams(conn, game_ids)

    def opened_in(self, game_id: str) -> tuple[str, str]:
        """The title and public @name (each "" when unknown) the game's group had when the
        game was opened, as its first event's metadata recorded them."""
        with reader(self.engine) as conn:
            meta = conn.execute(
                select(events.c.metadata).where(
                    events.c.stream_id == game_id, events.c.version == 1
                )
            ).scalar()
        meta = meta if isinstance(meta, dict) else {}
        title, username = meta.get("chat_title"), meta.get("chat_username")
        return (
            title if isinstance(title, str) else "",
            username if isinstance(username, str) else "",
        )
