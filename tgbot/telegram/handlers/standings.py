"""``/top`` (the group's table this season; ``/top all``: all time; ``/top global``, or
``/top`` in private: every group's, naming only who chose it with ``/privacy``), the
rating lines of ``/stats``, and ``/privacy``, read from the ratings read model
(:mod:`infra.ratings`).

The season asked for is the one the game clock is in now (the games are put in seasons
by their own end, recorded in the log).

Wire it with :func:`register` from ``tgbot.telegram.app.build_application``.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import re
from typing import Any, Final

from telegram import Chat, Update
from telegram.constants import ParseMode
from telegram.ext import Application, ApplicationHandlerStop, CommandHandler

from infra.ratings import (
    ALL_TIME,
    GLOBAL,
    RANKED_AFTER,
    season_of,
)
from tgbot.presenter.standings import (
    GlobalRanks,
    Ranked,
    global_top_text,
    privacy_text,
    stats_lines,
    top_text,
)
from tgbot.presenter.texts import Texts
from tgbot.telegram import gateway
from tgbot.telegram.context import BotContext, BotServices
from tgbot.telegram.handlers.common import update_texts

COMMANDS: Final = ("top", "privacy")
PRIVATE_COMMANDS: Final = ("top", "privacy")
GLOBAL_WORD: Final = "global"
SEASON: Final = re.compile(r"\d{4}q[1-4]")  # a season as /top takes it: 2025q1


def current_season(services: BotServices) -> str:
    """The season the game clock's now falls in."""
    now = dt.datetime.fromtimestamp(services.service.clock_ms() / 1000, tz=dt.UTC)
    return season_of(now)


def _chats(services: BotServices, chat_id: int) -> list[int]:
    return services.index.group_chats(chat_id)


def top_message(services: BotServices, lang: str, chat_id: int, season: str | None) -> str:
    """The group's table of ``season`` (``all``: all time; None: the current one): its
    best ranked people per edition, the computer players apart."""
    ratings = services.ratings
    ratings.catch_up()
    chats = _chats(services, chat_id)
    season = season or current_season(services)
    all_time = season == ALL_TIME
    tables = {}
    for edition in ratings.editions_rated(chats, season):
        people, computers = ratings.table(chats, season, edition)
        tables[edition] = (
            [Ranked(s.name, s.rating, s.games) for s in people],
            [Ranked(s.name, s.rating, s.games, s.level) for s in computers],
        )
    return top_text(Texts(lang), None if all_time else season, tables, RANKED_AFTER)


def global_top_message(services: BotServices, lang: str, season: str | None) -> str:
    """Every group's table of ``season`` (as :func:`top_message`): the best ranked people
    per edition, named when they chose to be (``/privacy``), the others counted; the
    computer players apart."""
    ratings = services.ratings
    ratings.catch_up()
    season = season or current_season(services)
    all_time = season == ALL_TIME
    tables = {}
    for edition in ratings.editions_rated([GLOBAL], season):
        found = ratings.global_table(season, edition)
        tables[edition] = GlobalRanks(
            [(rank, Ranked(s.name, s.rating, s.games)) for rank, s in found.named],
            found.unnamed,
            [Ranked(s.name, s.rating, s.games, s.level) for s in found.computers],
        )
    return global_top_text(Texts(lang), None if all_time else season, tables, RANKED_AFTER)


def rating_lines(services: BotServices, texts: Texts, player_id: int, chat_id: int) -> list[str]:
    """``/stats``'s lines in a group: the player's rating this season per edition, with
    its change in their last game."""
    ratings = services.ratings
    ratings.catch_up()
    season = current_season(services)
    found = ratings.player_standings(player_id, _chats(services, chat_id), season)
    mine = {
        edition: (s.rating, s.last_change, s.games)
        for edition, s in sorted(found.items(), key=lambda e: (e[0] != "base", e[0]))
    }
    return stats_lines(texts, season, mine, RANKED_AFTER)


async def top_command(update: Update, context: BotContext) -> None:
    chat, message = update.effective_chat, update.effective_message
    if chat is None or message is None:
        return
    texts = await update_texts(context, update)
    words = {a.casefold() for a in context.args or []}
    # A past season's table is kept: ``/top 2025q1`` shows it.
    seasons = {w.upper() for w in words if SEASON.fullmatch(w)}
    if not words - {w.casefold() for w in seasons} <= {ALL_TIME, GLOBAL_WORD} or (
        len(seasons) > 1 or (seasons and ALL_TIME in words)
    ):
        await gateway.reply(message, texts.t("top.usage"))
        raise ApplicationHandlerStop
    season = ALL_TIME if ALL_TIME in words else next(iter(seasons), None)
    services = context.services
    if GLOBAL_WORD in words or chat.type not in (Chat.GROUP, Chat.SUPERGROUP):
        body = await asyncio.to_thread(global_top_message, services, texts.lang, season)
    else:
        body = await asyncio.to_thread(top_message, services, texts.lang, chat.id, season)
    await gateway.reply(message, body, parse_mode=ParseMode.HTML)
    raise ApplicationHandlerStop


async def privacy_command(update: Update, context: BotContext) -> None:
    """``/privacy``: whether the player's name is shown in the global tables (not by
    default); ``/privacy on`` shows it, ``/privacy off`` hides it again."""
    chat, user, message = update.effective_chat, update.effective_user, update.effective_message
    if chat is None or user is None or message is None:
        return
    texts = await update_texts(context, update)
    words = [a.casefold() for a in context.args or []]
    ratings = context.services.ratings
    if not words:
        listed = await asyncio.to_thread(ratings.is_listed, user.id)
        await gateway.reply(message, privacy_text(texts, listed, changed=False))
    elif words in (["on"], ["off"]):
        listed = words == ["on"]
        at = dt.datetime.fromtimestamp(context.services.service.clock_ms() / 1000, tz=dt.UTC)
        await asyncio.to_thread(ratings.set_listed, user.id, listed, at)
        await gateway.reply(message, privacy_text(texts, listed, changed=True))
    else:
        await gateway.reply(message, texts.t("privacy.usage"))
    raise ApplicationHandlerStop


def register(application: Application[Any, Any, Any, Any, Any, Any], group: int = -1) -> None:
    application.add_handler(CommandHandler("top", top_command), group)
    application.add_handler(CommandHandler("privacy", privacy_command), group)
