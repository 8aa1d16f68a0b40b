"""``/language``: a button per language (``/language xx`` sets it at once). In private
it sets the user's language; in a group, the group's, and only an admin's press counts;
in a forum topic, the topic's own (admins too), which its games speak instead of the
group's. The buttons name no game yet: a stand-in does.
"""

from __future__ import annotations

import asyncio
from typing import Final

from telegram import CallbackQuery, Chat, InlineKeyboardButton, InlineKeyboardMarkup, Update, User
from telegram.constants import ParseMode

from infra.settings import LANGUAGES
from tgbot.presenter import callback as cb
from tgbot.presenter import keyboards as kb
from tgbot.presenter.texts import Texts
from tgbot.telegram import gateway
from tgbot.telegram.context import BotContext
from tgbot.telegram.handlers.common import chat_texts, display_name, is_admin, remember, user_texts
from tgbot.telegram.handlers.topics import topic_of

LANGUAGE_DATA: Final = "language"


def language_markup(context: BotContext, chat: int) -> InlineKeyboardMarkup:
    """The languages, each in its own words, two to a row (signed for ``chat``)."""
    key = context.services.callback_key
    buttons = [
        InlineKeyboardButton(
            Texts(code).t("language.button"),
            callback_data=cb.encode(
                cb.CallbackData(kb.LANGUAGE_PICK, LANGUAGE_DATA, 0, value=i), key, chat
            ),
        )
        for i, code in enumerate(LANGUAGES)
    ]
    return InlineKeyboardMarkup([buttons[i : i + 2] for i in range(0, len(buttons), 2)])


async def choose(
    update: Update, context: BotContext, chat: Chat, user: User, code: str, topic: int | None
) -> str:
    """Set ``code`` as the chat's language (in a forum ``topic``, the topic's): "" when
    done, else the refusal's text."""
    botstate = context.services.botstate
    if chat.type == Chat.PRIVATE:
        await remember(context, user, private_chat=True)
        await asyncio.to_thread(botstate.set_user_language, user.id, display_name(user), code)
        return ""
    if not await is_admin(context, chat.id, user.id):
        refusal = "bot.admins_only" if topic is None else "forum.admins_only_language"
        return (await chat_texts(context, chat, user, topic)).t(refusal)
    if topic is not None:
        await asyncio.to_thread(context.services.topics.set_language, chat.id, topic, code)
    else:
        await asyncio.to_thread(botstate.set_chat_language, chat.id, code)
    return ""


async def language(update: Update, context: BotContext) -> None:
    """``/language``: the buttons; ``/language xx``: that language."""
    chat, user, message = update.effective_chat, update.effective_user, update.effective_message
    if chat is None or user is None or message is None:
        return
    topic = topic_of(message)
    texts = await chat_texts(context, chat, user, topic)
    choice = (context.args or [""])[0].lower()
    if choice not in LANGUAGES:
        await gateway.reply(
            message,
            texts.t("language.prompt"),
            shown=context.services.shown,
            reply_markup=language_markup(context, chat.id),
        )
        return
    refused = await choose(update, context, chat, user, choice, topic)
    if refused:
        await gateway.reply(message, refused)
        return
    await gateway.reply(message, Texts(choice).t("language.chosen"), parse_mode=ParseMode.HTML)


async def on_press(
    update: Update, context: BotContext, query: CallbackQuery, data: cb.CallbackData, user: User
) -> None:
    """A language's button: it is set, and the question says so in that language."""
    chat = update.effective_chat
    index = data.value if data.value is not None else -1
    if chat is None or query.message is None or not 0 <= index < len(LANGUAGES):
        texts = await user_texts(context, user)
        await gateway.answer_press(query, texts.t("error.forged_button"), show_alert=True)
        return
    code = LANGUAGES[index]
    refused = await choose(update, context, chat, user, code, topic_of(query.message))
    if refused:
        await gateway.answer_press(query, refused, show_alert=True)
        return
    await gateway.answer_press(query)
    await gateway.edit_pressed(
        query,
        Texts(code).t("language.chosen"),
        shown=context.services.shown,
        parse_mode=ParseMode.HTML,
    )
