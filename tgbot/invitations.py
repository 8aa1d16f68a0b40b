"""Between games: the game-over message's "Play again" and "Notify me" buttons, the
invitation of the last game's players, and the private notice a subscriber gets when a new
game opens in their group.

The texts are pure functions of their inputs; :func:`tell_subscribers` sends the notices
through whatever sends the bot's messages (the outbox).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable
from typing import Any, Final, Protocol

from telegram import InlineKeyboardButton, InlineKeyboardMarkup
from telegram.constants import ParseMode
from telegram.error import Forbidden

from domain.state import GameState, PlayerId
from tgbot.context import BotServices
from tgbot.keyboards import NOTIFY as NOTIFY
from tgbot.keyboards import PLAY_AGAIN as PLAY_AGAIN
from tgbot.texts import Texts, esc, mention

log = logging.getLogger(__name__)

ACTIONS: Final = frozenset({PLAY_AGAIN, NOTIFY})


class Sender(Protocol):
    async def call(self, chat_id: int, method: str, *, strict: bool = False, **kwargs: Any) -> Any:
        """Call the Bot API method for ``chat_id`` (see :class:`tgbot.outbox.Outbox`)."""


def invitation_text(
    texts: Texts, opener: str, players: Iterable[tuple[PlayerId, str]], edition: str
) -> str:
    """The group's message when someone plays again: the last game's players, mentioned
    (HTML), are invited to join the new lobby.

    >>> invitation_text(Texts("en"), "Ann", [(2, "Bo")], "base")  # doctest: +ELLIPSIS
    '🔁 Ann opened a new game of Saboteur. <a href="tg://user?id=2">Bo</a>: you are invited...'
    """
    invited = ", ".join(mention(player, name) for player, name in players)
    head = texts.t("again.opened", name=esc(opener), edition=texts.t(f"edition.{edition}"))
    if not invited:
        return head
    return f"{head} {texts.t('again.invited', names=invited)}"


def last_players(state: GameState, opener: PlayerId) -> list[tuple[PlayerId, str]]:
    """The finished game's players but the one who plays again, in seat order."""
    return [(p, state.names.get(p, "?")) for p in state.seating if p != opener]


def new_game_notice(texts: Texts, state: GameState, group: str) -> str:
    """A subscriber's private notice: a game opened in ``group`` (its title)."""
    creator = state.names.get(state.creator, "?") if state.creator is not None else "?"
    return texts.t(
        "notify.new_game",
        name=esc(creator),
        edition=texts.t(f"edition.{state.edition}"),
        group=esc(group),
    )


async def tell_subscribers(sender: Sender, services: BotServices, state: GameState) -> int:
    """Tell in private everyone who asked to hear of the group's new games (but the game's
    creator) that ``state``'s game opened; returns how many were told. A subscriber who
    never opened the private chat, or blocked the bot since, is skipped."""
    botstate = services.botstate
    subscribers = await asyncio.to_thread(botstate.subscribers, state.chat_id)
    wanted = [p for p in subscribers if p != state.creator]
    users = await asyncio.to_thread(botstate.users, wanted)
    reachable = [p for p in wanted if p in users and users[p].private_chat]
    if not reachable:
        return 0
    chat = await sender.call(state.chat_id, "get_chat")  # a ChatFullInfo; None if refused
    title: str | None = getattr(chat, "title", None)
    public: str | None = getattr(chat, "username", None)  # a public group's @name
    link = f"https://t.me/{public}" if public else None
    told = 0
    for player in reachable:
        texts = await asyncio.to_thread(services.texts_for_user, player)
        markup = (
            InlineKeyboardMarkup([[InlineKeyboardButton(texts.t("notify.open_group"), url=link)]])
            if link
            else None
        )
        text = new_game_notice(texts, state, title or texts.t("bot.your_group"))
        try:
            sent = await sender.call(
                player, "send_message", text=text, parse_mode=ParseMode.HTML, reply_markup=markup
            )
        except Forbidden:
            await asyncio.to_thread(botstate.set_private_chat, player, False)
            continue
        told += sent is not None
    return told
