"""``/timezone``: the group's time zone, in which deadlines and dates are shown."""

from __future__ import annotations

import asyncio

from telegram import Chat, Update

from tgbot.presenter.zones import UTC_NAME, clock_time, zone, zone_named
from tgbot.telegram import gateway
from tgbot.telegram.context import BotContext
from tgbot.telegram.handlers.common import is_admin, update_texts


async def timezone(update: Update, context: BotContext) -> None:
    """``/timezone``: which zone the group's times are shown in; ``/timezone NAME``
    (admins): show them in that IANA zone from now on (``UTC`` goes back to UTC)."""
    chat, user, message = update.effective_chat, update.effective_user, update.effective_message
    if chat is None or message is None:
        return
    texts = await update_texts(context, update)
    if chat.type == Chat.PRIVATE:
        await gateway.reply(message, texts.t("timezone.group_only"))
        return
    services = context.services
    botstate = services.botstate
    asked = " ".join(context.args or ()).strip()
    if not asked:
        current = await asyncio.to_thread(botstate.chat_timezone, botstate.resolve_chat(chat.id))
        now = clock_time(int(services.service.clock_ms()), zone(current))
        await gateway.reply(message, texts.t("timezone.current", zone=current or UTC_NAME, now=now))
        return
    if user is None or not await is_admin(context, chat.id, user.id):
        await gateway.reply(message, texts.t("timezone.admins_only"))
        return
    name = zone_named(asked)
    if name is None:
        await gateway.reply(message, texts.t("timezone.unknown", zone=asked[:64]))
        return
    chat_id = botstate.resolve_chat(chat.id)
    await asyncio.to_thread(botstate.set_chat_timezone, chat_id, None if name == UTC_NAME else name)
    now = clock_time(int(services.service.clock_ms()), zone(name))
    await gateway.reply(message, texts.t("timezone.chosen", zone=name, now=now))
