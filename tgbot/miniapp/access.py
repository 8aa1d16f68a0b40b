"""Who may look at a game, and as whom.

A seated player sees their seat's view; a member of the game's group who does not play
sees the public view; anybody else is refused. Membership is Telegram's word
(``getChatMember``, asked as a replay asks it, through the same remembered answers of
:mod:`tgbot.telegram.membership`), never the bot's records: having played in a group once makes
no one a member of it.
"""

from __future__ import annotations

import asyncio
from typing import Protocol

from telegram import Bot

from domain.state import GameState, PlayerId
from tgbot.telegram.context import BotServices
from tgbot.telegram.membership import Memberships


class Refused(Exception):
    """The user may not see this game; ``code`` names why (an ``error.`` or
    ``miniapp.`` message)."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


class Membership(Protocol):
    async def is_member(self, chat_id: int, user_id: int) -> bool: ...


class TelegramMembership:
    """Asks Telegram (``getChatMember``) through the bot, its answers remembered in
    ``members`` (the bot's own, shared with replays and deep links)."""

    def __init__(self, bot: Bot, members: Memberships) -> None:
        self.bot = bot
        self.members = members

    async def is_member(self, chat_id: int, user_id: int) -> bool:
        return await self.members.is_member(self.bot, chat_id, user_id)


class Access:
    """Decides as whom a user sees a game."""

    def __init__(self, services: BotServices, membership: Membership) -> None:
        self.services = services
        self.membership = membership

    @staticmethod
    def player(state: GameState, user_id: int) -> PlayerId | None:
        """``user_id`` when they play the game (as :meth:`viewer` says, without asking
        anyone); None: :meth:`viewer` must say."""
        if state.phase not in ("new", "cancelled") and state.is_player(user_id):
            return user_id
        return None

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
        """Whether ``user_id`` is in the group ``chat_id`` (its id now: it may have become
        a supergroup) as Telegram says."""
        chat = await asyncio.to_thread(self.services.botstate.resolve_chat, chat_id)
        return await self.membership.is_member(chat, user_id)
