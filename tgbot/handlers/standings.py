"""``/top`` (the group's table this season; ``/top all``: all time) and the rating lines
of ``/stats``, read from the ratings read model (:mod:`infra.ratings`).

The season asked for is the one the game clock is in now (the games are put in seasons
by their own end, recorded in the log).

Wire it with :func:`register` from ``tgbot.app.build_application``.
"""

from __future__ import annotations

import asyncio
import datetime as dt
from typing import Any, Final

from telegram import Chat, Update
from telegram.constants import ParseMode
from telegram.ext import Application, ApplicationHandlerStop, CommandHandler

from infra.db import reader
from infra.history import group_chats
from infra.ratings import (
    ALL_TIME,
    RANKED_AFTER,
    RatingsProjector,
    editions_rated,
    player_standings,
    season_of,
    table,
)
from tgbot import gateway
from tgbot.context import BotContext, BotServices
from tgbot.handlers.common import chat_texts
from tgbot.presenter.standings import Ranked, stats_lines, top_text
from tgbot.texts import Texts

COMMANDS: Final = ("top",)


def current_season(services: BotServices) -> str:
    """The season the game clock's now falls in."""
    now = dt.datetime.fromtimestamp(services.service.clock_ms() / 1000, tz=dt.UTC)
    return season_of(now)


def _chats(services: BotServices, chat_id: int) -> list[int]:
    with reader(services.store.engine) as conn:
        return group_chats(conn, chat_id)


def top_message(services: BotServices, lang: str, chat_id: int, all_time: bool) -> str:
    """The group's table: its best ranked people per edition, the computer players apart."""
    engine = services.store.engine
    RatingsProjector(engine, services.store).catch_up()
    chats = _chats(services, chat_id)
    season = ALL_TIME if all_time else current_season(services)
    tables = {}
    for edition in editions_rated(engine, chats, season):
        people, computers = table(engine, chats, season, edition)
        tables[edition] = (
            [Ranked(s.name, s.rating, s.games) for s in people],
            [Ranked(s.name, s.rating, s.games) for s in computers],
        )
    return top_text(Texts(lang), None if all_time else season, tables, RANKED_AFTER)


def rating_lines(services: BotServices, texts: Texts, player_id: int, chat_id: int) -> list[str]:
    """``/stats``'s lines in a group: the player's rating this season per edition, with
    its change in their last game."""
    engine = services.store.engine
    RatingsProjector(engine, services.store).catch_up()
    season = current_season(services)
    found = player_standings(engine, player_id, _chats(services, chat_id), season)
    mine = {
        edition: (s.rating, s.last_change, s.games)
        for edition, s in sorted(found.items(), key=lambda e: (e[0] != "base", e[0]))
    }
    return stats_lines(texts, season, mine, RANKED_AFTER)


async def top_command(update: Update, context: BotContext) -> None:
    chat, user, message = update.effective_chat, update.effective_user, update.effective_message
    if chat is None or message is None:
        return
    texts = await chat_texts(context, chat, user)
    if chat.type not in (Chat.GROUP, Chat.SUPERGROUP):
        await gateway.reply(message, texts.t("top.group_only"))
        raise ApplicationHandlerStop
    args = context.args or []
    all_time = bool(args) and args[0].lower() == ALL_TIME
    body = await asyncio.to_thread(top_message, context.services, texts.lang, chat.id, all_time)
    await gateway.reply(message, body, parse_mode=ParseMode.HTML)
    raise ApplicationHandlerStop


def register(application: Application[Any, Any, Any, Any, Any, Any], group: int = -1) -> None:
    application.add_handler(CommandHandler("top", top_command), group)
