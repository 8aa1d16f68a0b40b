"""Helpers every handler uses: who is writing, in which language, running a command."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any, TypedDict

from telegram import CallbackQuery, Chat, Message, Update, User
from telegram.constants import ChatMemberStatus

from domain.commands import Command
from domain.state import GameState
from infra.actions import Refused
from tgbot.presenter.callback import BadCallback, CallbackData, decode
from tgbot.presenter.messages import Message as Outgoing
from tgbot.presenter.texts import Texts, short
from tgbot.telegram import gateway
from tgbot.telegram.context import BotContext, BotServices
from tgbot.telegram.handlers.topics import topic_of

log = logging.getLogger(__name__)

STORED_NAME_LIMIT = 128  # Telegram's longest full name (64 + 1 + 64), less the last one


def display_name(user: User) -> str:
    """The user's name as the game keeps it: a longer one (a client may send anything)
    is accepted, shortened; captions and lists shorten it further (``texts.short``).

    >>> from telegram import User
    >>> len(display_name(User(1, "x" * 300, False)))
    128
    """
    name = user.full_name or user.username or str(user.id)
    return short(name, STORED_NAME_LIMIT)


async def remember(context: BotContext, user: User, *, private_chat: bool | None = None) -> None:
    """Keep the user's name and Telegram language; ``private_chat`` when we know it."""
    await asyncio.to_thread(
        context.services.botstate.save_user,
        user.id,
        display_name(user),
        language=user.language_code,
        private_chat=private_chat,
    )


async def user_texts(context: BotContext, user: User) -> Texts:
    """The user's language (read in a thread: a cache miss reads the database)."""
    languages = context.services.languages
    return await asyncio.to_thread(languages.texts_for_user, user.id, user.language_code)


async def chat_texts(
    context: BotContext, chat: Chat, user: User | None = None, topic: int | None = None
) -> Texts:
    """The chat's language: the user's in a private chat, else the group's (in a forum
    ``topic`` with its own language, the topic's)."""
    if chat.type == Chat.PRIVATE and user is not None:
        return await user_texts(context, user)
    return await asyncio.to_thread(
        context.services.texts_for_chat, chat.id, user.language_code if user else None, topic
    )


async def update_texts(context: BotContext, update: Update) -> Texts:
    """The language to answer ``update`` in: the user's in a private chat, else the
    group's, or the forum topic's own where it was written in a topic with one."""
    chat, user = update.effective_chat, update.effective_user
    if chat is None:
        return Texts(context.services.default_language)
    return await chat_texts(context, chat, user, topic_of(update.effective_message))


def acted_by(user: User) -> dict[str, object]:
    """Event metadata naming who really pressed (a group admin acting for the creator)."""
    return {"acted_by": user.id, "acted_by_name": display_name(user)}


async def run(
    context: BotContext,
    game_id: str,
    command: Command,
    update: Update,
    metadata: dict[str, object] | None = None,
) -> str | None:
    """Run ``command``; the error code when refused, None when done.

    The update id is the idempotency key: Telegram delivering an update twice runs it once.
    It is recorded in the events' metadata too.
    """
    key = update_key(update)
    return await execute(
        context.services,
        game_id,
        command,
        idempotency_key=key["key"],
        metadata={**key["metadata"], **(metadata or {})},
    )


class UpdateKey(TypedDict):
    key: str
    metadata: dict[str, object]


def update_key(update: Update) -> UpdateKey:
    """The idempotency key of what an update asks for (Telegram may deliver an update
    twice: it counts once) and the events' metadata naming the update."""
    return {
        "key": f"tg:{update.update_id}",
        "metadata": {"telegram_update_id": update.update_id},
    }


async def execute(
    services: BotServices,
    game_id: str,
    command: Command,
    *,
    idempotency_key: str,
    metadata: dict[str, object],
) -> str | None:
    """Run ``command`` through the game service, whatever asked for it (a button, the
    Mini App); the error code when refused, None when done. The same key twice runs once.
    """
    done = await services.actions.run(game_id, command, idempotency_key, metadata)
    return done.reason if isinstance(done, Refused) else None


async def deliver(context: BotContext, *messages: Outgoing) -> None:
    """Hand the presenter's messages to the outbox, in order, at once (not recorded: a
    handler's own answer to what was pressed or written)."""
    await context.services.outbox.deliver(messages)


async def is_admin(context: BotContext, chat_id: int, user_id: int) -> bool:
    try:
        member = await gateway.chat_member(context.bot, chat_id, user_id)
    except Exception:  # a chat we cannot ask: nobody is admin there
        log.info("could not read membership of %s in %s", user_id, chat_id, exc_info=True)
        return False
    return member.status in (ChatMemberStatus.ADMINISTRATOR, ChatMemberStatus.OWNER)


def error_text(texts: Texts, code: str) -> str:
    """Why a command was refused, in the reader's language (``error.<code>``)."""
    key = f"error.{code}"
    return texts.t(key) if texts.has(key) else texts.t("error.domain_error")


def start_payload(args: list[str] | None) -> str:
    return args[0] if args else ""


def username(context: BotContext) -> str:
    name: Any = context.bot.username
    return str(name or "")


async def press_chats(context: BotContext, query: Any) -> list[int]:
    """The ids of the chat a press came from: its id now, then those it had before it
    migrated (none: a press on no message we can see, good nowhere)."""
    return await asyncio.to_thread(_press_chats, context.services, query)


async def presser_and_chats(context: BotContext, query: Any, user: User) -> tuple[Texts, list[int]]:
    """The presser's language and the ids of the chat the press came from (see
    :func:`press_chats`), in one trip off the event loop."""
    services = context.services

    def both() -> tuple[Texts, list[int]]:
        texts = services.languages.texts_for_user(user.id, user.language_code)
        return texts, _press_chats(services, query)

    return await asyncio.to_thread(both)


def _press_chats(services: BotServices, query: Any) -> list[int]:
    message = query.message
    if message is None or getattr(message, "chat", None) is None:
        return []
    chat_id = int(message.chat.id)
    return [chat_id, *services.botstate.chats_migrated_to(chat_id)]


def message_presses(
    message: Any, keys: Sequence[bytes], chats: Sequence[int]
) -> list[CallbackData]:
    """The presses of the bot's own buttons on ``message`` (as Telegram shows it with a
    press): what kind of message it is, whatever the press claims."""
    markup = getattr(message, "reply_markup", None)
    found: list[CallbackData] = []
    for row in markup.inline_keyboard if markup is not None else ():
        for button in row:
            if isinstance(button.callback_data, str):
                try:
                    found.append(decode(button.callback_data, keys, chats))
                except BadCallback:
                    continue
    return found


def same_kind(
    message: Any,
    keys: Sequence[bytes],
    chats: Sequence[int],
    game: str,
    actions: Collection[str],
) -> bool:
    """Whether ``message`` is one of ``game``'s messages that carry ``actions``' buttons
    (a prompt, a question, a replay): a press that redraws the message it came on is
    refused anywhere else."""
    return any(
        p.game == game and p.action in actions for p in message_presses(message, keys, chats)
    )


@dataclass(frozen=True, slots=True)
class GroupPress:
    """A press on a game's message in a group: where, in the group's words, and the game
    as it stands."""

    chat: Chat
    message: Message
    texts: Texts
    state: GameState
    version: int


async def group_press(
    update: Update, context: BotContext, query: CallbackQuery, data: CallbackData, user: User
) -> GroupPress | None:
    """What a press on a game's group message starts from; None (answered) when it came on
    no message the bot can read."""
    chat, message = update.effective_chat, query.message
    if chat is None or not isinstance(message, Message):
        await gateway.answer_press(query)
        return None
    services = context.services
    texts = await asyncio.to_thread(
        services.texts_for_chat, chat.id, user.language_code, topic_of(message)
    )
    state, version = await asyncio.to_thread(services.load, data.game)
    return GroupPress(chat, message, texts, state, version)
