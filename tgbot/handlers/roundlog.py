"""The round's log (📜): the board's button posts it in the group as a text message of
its own; its buttons page it, show one player's moves or another round's by editing it in
place (no new picture, no new message), or close it. Anyone in the group may read it:
it holds what the group saw, nothing secret.
"""

from __future__ import annotations

import asyncio

from telegram import CallbackQuery, Message, Update, User

from tgbot import keyboards as kb
from tgbot.callback import CallbackData
from tgbot.context import BotContext
from tgbot.presenter.messages import Deleted, Text, TextEdit
from tgbot.presenter.messages import Message as Outgoing
from tgbot.presenter.roundlog import log_page, rounds


async def on_press(
    update: Update, context: BotContext, query: CallbackQuery, data: CallbackData, user: User
) -> None:
    chat, message = update.effective_chat, query.message
    if chat is None or not isinstance(message, Message):
        await query.answer()
        return
    services = context.services
    texts = await asyncio.to_thread(services.texts_for_chat, chat.id, user.language_code)
    if data.action == kb.LOG_CLOSE:
        await query.answer()
        await _deliver(context, Deleted(chat.id, message.message_id))
        return
    events = await asyncio.to_thread(services.service.events, data.game)
    found = rounds(events, texts)
    if not found:
        await query.answer(texts.t("log.nothing"), show_alert=True)
        return
    await query.answer()
    text, keyboard = log_page(found, texts, data.value, data.page, data.player)
    on_board = message.photo is not None and len(message.photo) > 0
    if on_board:  # the board's button: the log comes as a message of its own
        await _deliver(context, Text(chat.id, text, keyboard, data.game))
    else:
        await _deliver(context, TextEdit(chat.id, message.message_id, text, keyboard, data.game))


async def _deliver(context: BotContext, *messages: Outgoing) -> None:
    outbox = context.services.outbox
    if outbox is not None:
        await outbox.deliver(messages)
