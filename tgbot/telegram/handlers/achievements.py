"""``/achievements``: the player's achievements, each with the share of players who hold
it (``/achievements all``: the ones still to earn too), and ``/stats``'s count of them,
read from the achievements read model (:mod:`infra.achievements`).

Wire it with :func:`register` from ``tgbot.telegram.app.build_application``.
"""

from __future__ import annotations

import asyncio
from typing import Any, Final

from telegram import Update
from telegram.constants import ParseMode
from telegram.ext import Application, ApplicationHandlerStop, CommandHandler

from domain.achievements import NAMES
from tgbot.presenter.standings import achievements_text
from tgbot.presenter.texts import Texts
from tgbot.telegram import gateway
from tgbot.telegram.context import BotContext, BotServices
from tgbot.telegram.handlers.common import update_texts

COMMANDS: Final = ("achievements",)


def achievements_message(
    services: BotServices, lang: str, player_id: int, show_all: bool = False
) -> str:
    found = services.achievements
    found.catch_up()
    mine = found.player_awards(player_id)
    return achievements_text(Texts(lang), NAMES, set(mine), found.shares(), show_all)


def stats_line(services: BotServices, texts: Texts, player_id: int) -> list[str]:
    """``/stats``'s line: how many achievements the player holds (earned live or by the
    games played before there were achievements)."""
    found = services.achievements
    found.catch_up()
    held = len(found.player_awards(player_id))
    return [texts.t("stats.achievements", n=held, total=len(NAMES))]


async def achievements_command(update: Update, context: BotContext) -> None:
    chat, user, message = update.effective_chat, update.effective_user, update.effective_message
    if chat is None or user is None or message is None:
        return
    texts = await update_texts(context, update)
    args = context.args or []
    show_all = bool(args) and args[0].lower() == "all"
    body = await asyncio.to_thread(
        achievements_message, context.services, texts.lang, user.id, show_all
    )
    await gateway.reply(message, body, parse_mode=ParseMode.HTML)
    raise ApplicationHandlerStop


def register(application: Application[Any, Any, Any, Any, Any, Any], group: int = -1) -> None:
    application.add_handler(CommandHandler("achievements", achievements_command), group)
