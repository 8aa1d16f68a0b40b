"""Forum topics: which topic a message was written in, what the bot hears of topics, and
the group's games in its topics.

In a forum supergroup a game lives in the topic it was opened in (see
:meth:`tgbot.delivery.outbox.Outbox.topic_for`): each topic has at most one game open, General one
too. A command sent in a topic acts on that topic's game; in General, on General's game,
or, when General has none, it answers with the group's games in their topics and a link
to each. What the bot learns of a topic from the messages it sees — its name (from the
``forum_topic_created`` message every topic message answers, or a renaming), and whether
it is closed or reopened — is kept (:mod:`infra.topics`).
"""

from __future__ import annotations

import asyncio

from telegram import (
    Chat,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    MaybeInaccessibleMessage,
    Message,
    Update,
)

from infra.topics import CLOSED, OPEN
from tgbot.presenter.texts import Texts, esc
from tgbot.telegram import gateway
from tgbot.telegram.context import BotContext, BotServices


def topic_of(message: MaybeInaccessibleMessage | None) -> int | None:
    """The forum topic ``message`` was written in (None: General, or a chat without
    topics). A reply in General carries the thread id of its reply chain, which is no
    topic: ``is_topic_message`` decides."""
    if not isinstance(message, Message) or not message.is_topic_message:
        return None
    return message.message_thread_id


def heard_name(message: Message) -> str | None:
    """The topic's name, as ``message`` tells it (its creation, a renaming, or the
    creation message a topic message answers)."""
    if message.forum_topic_created is not None:
        return message.forum_topic_created.name
    if message.forum_topic_edited is not None and message.forum_topic_edited.name:
        return message.forum_topic_edited.name
    replied = message.reply_to_message
    if replied is not None and replied.forum_topic_created is not None:
        return replied.forum_topic_created.name
    return None


async def heard(update: Update, context: BotContext) -> None:
    """Any message in a forum topic: its name and state noted when they changed. Runs
    before the other handlers, which still run."""
    message = update.effective_message
    topic = topic_of(message)
    if message is None or topic is None:
        return
    name = heard_name(message)
    state = None
    if message.forum_topic_closed is not None:
        state = CLOSED
    elif message.forum_topic_reopened is not None or message.forum_topic_created is not None:
        state = OPEN
    if name is None and state is None:
        return
    topics = context.services.topics
    known = await asyncio.to_thread(topics.topic, message.chat.id, topic)
    if (name is None or name == known.name) and (state is None or state == known.state):
        return
    await asyncio.to_thread(topics.learn, message.chat.id, topic, name=name, state=state)


def topic_link(chat: Chat, topic: int | None, message_id: int | None = None) -> str:
    """A link to a forum topic (or a message in it): by the group's public name, else
    by its internal id (``t.me/c/…``, for its members)."""
    path = "/".join(str(n) for n in (topic, message_id) if n is not None)
    if chat.username:
        return f"https://t.me/{chat.username}/{path}"
    internal = str(-chat.id).removeprefix("100")
    return f"https://t.me/c/{internal}/{path}"


def topic_label(services: BotServices, texts: Texts, chat_id: int, topic: int) -> str:
    """A topic as the group reads it: its name, else its number (HTML)."""
    name = services.topic_name(chat_id, topic)
    return esc(name) if name else texts.t("forum.topic_number", number=topic)


async def list_games(context: BotContext, message: Message, chat: Chat, texts: Texts) -> bool:
    """In General with no game of its own: the group's games in their topics, with a
    link to each; False when there are none (nothing sent)."""
    services = context.services
    found = await asyncio.to_thread(services.running_games, chat.id, every=True)
    tables = [topic for _, topic in found if topic is not None]
    if not tables:
        return False
    labels = await asyncio.to_thread(
        lambda: [topic_label(services, texts, chat.id, topic) for topic in tables]
    )
    lines = [texts.t("forum.games_list")]
    lines += [
        f'• <a href="{topic_link(chat, topic)}">{label}</a>'
        for topic, label in zip(tables, labels, strict=True)
    ]
    await gateway.reply(message, "\n".join(lines), parse_mode="HTML")
    return True


def go_button(texts: Texts, chat: Chat, topic: int | None) -> InlineKeyboardMarkup:
    """A button to the game of ``topic``."""
    button = InlineKeyboardButton(texts.t("forum.button_go"), url=topic_link(chat, topic))
    return InlineKeyboardMarkup([[button]])
