"""Throttling what users send: button presses, commands and private messages, per user
and per chat, before any handler does any work.

Telegram's limits are the bot's, not a user's: one user pressing a button 200 times in a
few seconds would otherwise spend them all (200 pictures redrawn and uploaded) and stall
every other game. A user — or a chat — sending faster than people play is answered with
a quiet "slow down" (a press's answer; for a command, once until they may again) and
nothing else happens. A chat's limit sheds only its heaviest senders: while the chat's
window is full, a member sending no more than :data:`LIGHT` still gets through. The
counts live in :mod:`infra.ratelimit`'s windows: in Redis when the bot has one (every
instance counts in the same windows), else in this process.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, Protocol

from telegram import Update
from telegram.error import TelegramError
from telegram.ext import ApplicationHandlerStop

from infra.lru import LRU
from infra.ratelimit import Backend, MemoryBackend, RedisBackend, Window, shared
from tgbot.presenter.texts import Texts
from tgbot.telegram import gateway

log = logging.getLogger(__name__)

PREFIX: Final = "saboteur:throttle"
PER_USER: Final = Window(12, 6.0)
PER_CHAT: Final = Window(40, 6.0)
# While a chat's window is full, what each of its members may still send: someone pressing
# now and then gets through; the few flooding it are shed.
LIGHT: Final = Window(4, 6.0)
TOLD: Final = 4096  # users told to slow down, remembered so a flood is told once


@dataclass(frozen=True, slots=True)
class Limits:
    """How much a person, and a whole chat, may send: well above what anyone playing
    does (a decision is three or four presses), well below what a script does."""

    per_user: Window = PER_USER
    per_chat: Window = PER_CHAT
    light: Window = LIGHT


class Throttle:
    """Counts each user's and chat's updates; :meth:`allow` says whether one may be
    handled."""

    def __init__(
        self,
        backend: Backend,
        limits: Limits | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.backend = shared(backend, "throttle")
        self.limits = limits or Limits()
        self.clock = clock
        self._told: LRU[int, float] = LRU(TOLD)  # user -> until when they were told

    async def allow(self, user_id: int, chat_id: int | None) -> bool:
        """Count one update of ``user_id`` in ``chat_id``: True when it may be handled.
        An update refused is not counted (a flood does not lengthen its own wait). While
        Redis fails, this process counts (:class:`~infra.ratelimit.Fallback`): a flood is
        never let through because the backend is busy or gone."""
        user = (f"user:{user_id}", self.limits.per_user)
        if chat_id is None or chat_id == user_id:
            return (await self.backend.try_acquire([user])).wait <= 0
        chat = f"chat:{chat_id}"
        verdict = await self.backend.try_acquire([user, (chat, self.limits.per_chat)])
        if verdict.wait <= 0:
            return True
        if verdict.key != chat:
            return False  # this user's own window is full
        # The chat is full: the chat limit sheds only those sending more than a member
        # does now and then, counted per member of this chat.
        light = (f"light:{chat_id}:{user_id}", self.limits.light)
        return (await self.backend.try_acquire([user, light])).wait <= 0

    def tell(self, user_id: int) -> bool:
        """Whether a refused user should be told to slow down now (once per window)."""
        now = self.clock()
        until = self._told.get(user_id)
        if until is not None and until > now:
            return False
        self._told[user_id] = now + self.limits.per_user.seconds
        return True


def throttle_for(
    redis_url: str = "", limits: Limits | None = None, *, enabled: bool = True
) -> Throttle | None:
    """On Redis when ``redis_url`` is set (shared by every instance), else in memory;
    None when throttling is off."""
    if not enabled:
        return None
    backend: Backend = RedisBackend(redis_url, PREFIX) if redis_url else MemoryBackend()
    return Throttle(backend, limits)


def limits_of(presses: int, chat_presses: int, seconds: float) -> Limits:
    """The limits THROTTLE_PRESSES, THROTTLE_CHAT_PRESSES and THROTTLE_SECONDS say (a
    0 leaves that count unlimited in practice)."""
    unlimited = 2**31
    return Limits(
        Window(presses or unlimited, seconds),
        Window(chat_presses or unlimited, seconds),
        Window(LIGHT.count, seconds),
    )


# The kinds of update asked of Telegram: the ones :func:`acted_on` lets through.
UPDATES: Final = (Update.MESSAGE, Update.CALLBACK_QUERY, Update.CHAT_MEMBER)


def acted_on(update: Update) -> bool:
    """Whether the bot acts on this kind of update at all: a press, a new message, a
    change of a group's members. An edited message is not a new command (editing
    ``/rules`` sixty times is not sixty requests), so it is ignored, as most bots do; so
    are channel posts, reactions, the bot's own membership and everything else."""
    return (
        update.callback_query is not None
        or update.message is not None
        or update.chat_member is not None
    )


def counted(update: Update) -> bool:
    """Whether the update asks the bot to do something: a press, a command, anything
    sent in private (a sticker too). Group chatter the bot sees as an admin is not its
    business; a group's members changing are facts Telegram reports, not requests, and
    are never dropped."""
    if update.callback_query is not None:
        return True
    message = update.message
    if message is None:
        return False
    if message.chat.type == "private":
        return True
    return message.text is not None and message.text.startswith("/")


class _Services(Protocol):
    """What :func:`on_update` reads of the bot's services (``tgbot.telegram.context.BotServices``,
    which builds the throttle: so this module names no class of that one)."""

    @property
    def throttle(self) -> Throttle | None: ...

    def texts_for_user(self, user_id: int, telegram_language: str | None = None) -> Texts: ...


class _Context(Protocol):
    @property
    def services(self) -> _Services: ...


async def on_update(update: Update, context: _Context) -> None:
    """Let the update through, or answer "slow down" and stop it here; an update of a
    kind the bot does not act on (:func:`acted_on`) stops here too, answered nothing."""
    if not acted_on(update):
        raise ApplicationHandlerStop
    throttle = context.services.throttle
    user = update.effective_user
    if throttle is None or user is None or not counted(update):
        return
    chat = update.effective_chat
    if await throttle.allow(user.id, chat.id if chat is not None else None):
        return
    texts = context.services.texts_for_user(user.id, user.language_code)
    with contextlib.suppress(TelegramError):
        query = update.callback_query
        if query is not None:
            await gateway.answer_press(query, texts.t("bot.slow_down"))
        elif throttle.tell(user.id) and update.message is not None:
            await gateway.reply(update.message, texts.t("bot.slow_down"))
    raise ApplicationHandlerStop
