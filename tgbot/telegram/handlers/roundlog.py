"""The round's log (📜): the board's button posts it in the group as a text message of
its own; its buttons page it, show one player's moves or another round's by editing it in
place (no new picture, no new message), or close it. Anyone in the group may read it:
it holds what the group saw, nothing secret.
"""

from __future__ import annotations

import asyncio

from telegram import CallbackQuery, Message, Update, User

from tgbot.presenter import keyboards as kb
from tgbot.presenter.callback import CallbackData
from tgbot.presenter.messages import Deleted, Text, TextEdit
from tgbot.presenter.roundlog import log_page, rounds
from tgbot.telegram import gateway
from tgbot.telegram.context import BotContext
from tgbot.telegram.handlers.common import deliver
from tgbot.telegram.handlers.topics import topic_of


async def on_press(
    update: Update, context: BotContext, query: CallbackQuery, data: CallbackData, user: User
) -> None:
    chat, message = update.effective_chat, query.message
    if chat is None or not isinstance(message, Message):
        await gateway.answer_press(query)
        return
    services = context.services
    texts = await asyncio.to_thread(
        services.texts_for_chat, chat.id, user.language_code, topic_of(message)
    )
    if data.action == kb.LOG_CLOSE:
        await gateway.answer_press(query)
        await deliver(context, Deleted(chat.id, message.message_id))
        return
    events = await asyncio.to_thread(services.service.events, data.game)
    found = rounds(events, texts)
    if not found:
        await gateway.answer_press(query, texts.t("log.nothing"), show_alert=True)
        return
    await gateway.answer_press(query)
    text, keyboard = log_page(found, texts, data.value, data.page, data.player)
    on_board = message.photo is not None and len(message.photo) > 0
    if on_board:  # the board's button: the log comes as a message of its own
        await deliver(context, Text(chat.id, text, keyboard, data.game))
    else:
        await deliver(context, TextEdit(chat.id, message.message_id, text, keyboard, data.game))
