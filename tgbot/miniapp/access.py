"""Who may look at a game, and as whom.

A seated player sees their seat's view; a member of the game's group who does not play
sees the public view; anybody else is refused. A member is someone the bot already knows
there (a player of one of the group's games, its earlier ids included when it became a
supergroup), else whom Telegram's ``getChatMember`` calls a member. Telegram's answers are
remembered for a while, so an open board reconnecting does not ask again each time.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Final, Protocol

from sqlalchemy import select
from telegram import Bot
from telegram.constants import ChatMemberStatus

from domain.state import GameState, PlayerId
from infra.db import reader
from infra.schema import games
from tgbot.context import BotServices

log = logging.getLogger(__name__)

REMEMBER_SECONDS: Final = 300.0
MAX_REMEMBERED: Final = 10_000
MEMBERS: Final = frozenset(
    {ChatMemberStatus.OWNER, ChatMemberStatus.ADMINISTRATOR, ChatMemberStatus.MEMBER}
)


class Refused(Exception):
    """The user may not see this game; ``code`` names why (an ``error.`` or
    ``miniapp.`` message)."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


class Membership(Protocol):
    async def is_member(self, chat_id: int, user_id: int) -> bool: ...


class TelegramMembership:
    """Asks Telegram (``getChatMember``) through the bot."""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot

    async def is_member(self, chat_id: int, user_id: int) -> bool:
        try:
            member = await self.bot.get_chat_member(chat_id, user_id)
        except Exception:  # a chat or user Telegram does not know: not a member
            log.info("could not read membership of %s in %s", user_id, chat_id, exc_info=True)
            return False
        if member.status in MEMBERS:
            return True
        return member.status == ChatMemberStatus.RESTRICTED and bool(
            getattr(member, "is_member", False)
        )


class Access:
    """Decides as whom a user sees a game."""

    def __init__(
        self,
        services: BotServices,
        membership: Membership,
        *,
        remember_seconds: float = REMEMBER_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.services = services
        self.membership = membership
        self.remember_seconds = remember_seconds
        self.clock = clock
        self._answers: dict[tuple[int, int], tuple[bool, float]] = {}

    async def viewer(self, state: GameState, user_id: int) -> PlayerId | None:
        """``user_id`` when they play, None for a member watching; raises :class:`Refused`."""
        if state.phase in ("new", "cancelled"):
            raise Refused("miniapp.no_game")
        if state.is_player(user_id):
            return user_id
        if await self.is_member(state.chat_id, user_id):
            return None
        raise Refused("miniapp.not_member")

    async def is_member(self, chat_id: int, user_id: int) -> bool:
        chat, known = await asyncio.to_thread(self._known_in, chat_id, user_id)
        if known:
            return True
        key = (chat, user_id)
        now = self.clock()
        remembered = self._answers.get(key)
        if remembered is not None and now - remembered[1] < self.remember_seconds:
            return remembered[0]
        answer = await self.membership.is_member(chat, user_id)
        if len(self._answers) >= MAX_REMEMBERED:
            self._answers.clear()
        self._answers[key] = (answer, now)
        return answer

    def _known_in(self, chat_id: int, user_id: int) -> tuple[int, bool]:
        """The group's id now (it may have become a supergroup), and whether ``user_id``
        played one of its games (the ``games`` read model)."""
        botstate = self.services.botstate
        chat = botstate.resolve_chat(chat_id)
        chats = [chat, *botstate.chats_migrated_to(chat)]
        with reader(self.services.store.engine) as conn:
            rows = conn.execute(select(games.c.players).where(games.c.chat_id.in_(chats))).all()
        known = any(
            isinstance(p, dict) and p.get("id") == user_id for row in rows for p in row.players
        )
        return chat, known
