"""Helpers every handler uses: who is writing, in which language, running a command."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from telegram import Chat, Update, User
from telegram.constants import ChatMemberStatus

from domain.commands import Command
from domain.errors import DomainError
from domain.events import PlayerReminded
from infra.event_store import ConcurrencyError
from tgbot.context import BotContext, BotServices
from tgbot.texts import Texts

log = logging.getLogger(__name__)

# Events after which choices drawn earlier (a keyboard, the Mini App's page) still hold.
HARMLESS = (PlayerReminded,)


def display_name(user: User) -> str:
    return user.full_name or user.username or str(user.id)


async def remember(context: BotContext, user: User, *, private_chat: bool | None = None) -> None:
    """Keep the user's name and Telegram language; ``private_chat`` when we know it."""
    await asyncio.to_thread(
        context.services.botstate.save_user,
        user.id,
        display_name(user),
        language=user.language_code,
        private_chat=private_chat,
    )


def user_texts(context: BotContext, user: User) -> Texts:
    return context.services.texts_for_user(user.id, user.language_code)


def chat_texts(context: BotContext, chat: Chat, user: User | None = None) -> Texts:
    if chat.type == Chat.PRIVATE and user is not None:
        return user_texts(context, user)
    return context.services.texts_for_chat(chat.id, user.language_code if user else None)


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
    return await execute(
        context.services,
        game_id,
        command,
        idempotency_key=f"tg:{update.update_id}",
        metadata={"telegram_update_id": update.update_id, **(metadata or {})},
    )


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
    try:
        # Off the event loop: the database and folding the game take a while.
        await asyncio.to_thread(
            services.service.handle,
            game_id,
            command,
            idempotency_key=idempotency_key,
            metadata=metadata,
        )
    except DomainError as error:
        return error.code
    except ConcurrencyError:
        return "busy"
    services.wake.set()
    return None


async def still_valid(services: BotServices, game_id: str, drawn: int, current: int) -> bool:
    """Whether choices drawn at version ``drawn`` (a keyboard, the Mini App's page) still
    hold at ``current``: nothing but reminders happened in between."""
    if drawn == current:
        return True
    if drawn > current:
        return False
    later = await asyncio.to_thread(services.service.events, game_id, after_version=drawn)
    return all(isinstance(e, HARMLESS) for e in later)


async def is_admin(context: BotContext, chat_id: int, user_id: int) -> bool:
    try:
        member = await context.bot.get_chat_member(chat_id, user_id)
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
