"""The gateway: the only code that calls the Bot API.

Every message the bot sends, edits or deletes goes out here, and so does every other
call to Telegram (a pressed button answered, a member looked up, the command menus set):
``tests/tgbot/test_gateway.py`` fails on a call to the Bot API made anywhere else.

There are two ways through it:

- :class:`Gateway` carries the presenter's messages for the outbox (:mod:`tgbot.delivery.outbox`)
  and through it the durable deliveries (:mod:`tgbot.delivery.driver`): each call waits for the
  rate limiter (:mod:`infra.ratelimit`, one for all the instances on Redis), a flood limit
  is waited out and the call tried again, and a network error is tried again only when
  repeating it cannot show a message twice. Within a recorded delivery
  (:class:`Delivery`, passed with the call) a call that fails is raised instead of being
  dropped, so that the driver tries the delivery again later. A delivery is tried again
  only while its instance still holds its game (:attr:`Delivery.holds`): one whose
  instance gave the game up meanwhile (it could not reach Telegram) raises
  :class:`HandedOver`, and the game's next holder sends it.
- The functions below it make the other calls, as python-telegram-bot's shortcuts do:
  a reply to a command, an answer to a pressed button (an alert), a member looked up,
  the bot's menus, profile and webhook. They are not paced and not tried again (a
  handler's answer is not recorded either); what Telegram refuses reaches the caller,
  or the application's error handler.

A message goes to a :class:`Place`: what addresses a call to it is
:meth:`Place.target`'s alone: its chat, and in a forum the topic's thread id. A send to a
topic Telegram refuses because the topic is closed or gone raises :class:`TopicClosed`,
so the caller can send it to General instead.

Every edit, by either way, goes through
:meth:`ShownEdits.once <tgbot.telegram.edits.ShownEdits.once>`:
an edit that would change nothing the message shows is not sent at all (Telegram would
refuse it as "not modified", after spending the chat's budget on it).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Hashable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Final

import aiohttp
from telegram import Bot, BotCommand, BotCommandScope, CallbackQuery, ChatMember, Message
from telegram.error import (
    BadRequest,
    ChatMigrated,
    Forbidden,
    NetworkError,
    RetryAfter,
    TelegramError,
)

from infra.botstate import BotState
from infra.ratelimit import Priority, RateLimiter
from tgbot.presenter.telegram_html import ALERT_LIMIT, cut, utf16
from tgbot.telegram.edits import EDITS, SENDS, ShownEdits, shows

log = logging.getLogger(__name__)

ATTEMPTS: Final = 4  # tries per Telegram call (flood limits waited out, network errors)
# Calls that do the same when repeated: tried again after any network error. Any other
# (a send) only when the request surely never left (see never_sent).
REPEATABLE: Final = ("edit_", "delete_", "get_")
REPLACED: Final = object()  # a board's redraw replaced by a newer one before it went
UNSENT: Final = (
    aiohttp.ClientConnectorError,
    aiohttp.ConnectionTimeoutError,
    ConnectionRefusedError,
)
NETWORK_BACKOFF: Final = 0.25  # seconds before the second try; doubled each time


# What Telegram answers a send to a topic that is closed, deleted or no topic (the last
# also for a deleted one, on some servers), lower-cased: the state the topic is then in.
TOPIC_REFUSALS: Final = (
    ("topic_closed", "closed"),
    ("topic_deleted", "deleted"),
    ("message thread not found", "deleted"),
)


@dataclass(frozen=True, slots=True)
class Place:
    """Where a message goes: a chat, and in a forum supergroup a topic (``thread``, its
    thread id; None: the chat itself, a forum's General). Only a new message is addressed
    to a topic: an edit or a delete names its message, wherever it is.

    >>> Place(-100).target()
    {'chat_id': -100}
    >>> Place(-100, 7).target("send_photo")
    {'chat_id': -100, 'message_thread_id': 7}
    >>> Place(-100, 7).target("edit_message_text")
    {'chat_id': -100}
    """

    chat_id: int
    thread: int | None = None

    def target(self, method: str = "") -> dict[str, Any]:
        """The arguments that address a call of ``method`` to this place."""
        if self.thread is None or not method.startswith(("send_", "copy_", "forward_")):
            return {"chat_id": self.chat_id}
        return {"chat_id": self.chat_id, "message_thread_id": self.thread}


class TopicClosed(Exception):
    """Telegram refused a send to a forum topic: it is ``state`` ("closed" or
    "deleted")."""

    def __init__(self, place: Place, state: str) -> None:
        super().__init__(f"topic {place.thread} of {place.chat_id} is {state}")
        self.place = place
        self.state = state


def topic_refusal(place: Place, error: BadRequest) -> str | None:
    """The state of ``place``'s topic when ``error`` says it cannot be written to."""
    if place.thread is None:
        return None
    said = error.message.lower()
    return next((state for words, state in TOPIC_REFUSALS if words in said), None)


@dataclass
class Delivery:
    """One recorded delivery being carried out (see :mod:`tgbot.delivery.driver`): whether it
    sent anything that delivering it again would send a second time (a message sent, or a
    send whose answer was lost); edits and deletes repeat safely. While it sent nothing,
    a call that fails raises :class:`Undelivered` instead of being dropped, so the
    delivery is tried again later."""

    sent: bool = False
    # Awaited once, just before its first call goes to Telegram (after the rate limiter
    # let it): records the delivery as begun; False: it is not this instance's to send.
    begin: Callable[[], Awaitable[bool]] | None = None
    # A prompt sent again because the first try may have arrived: that one, if it did,
    # has an id above this one's (and below the new one's); its buttons are removed.
    unknown_after: int | None = None
    # Whether this instance still holds the delivery's game (asked before each try after
    # the first): when not, the next holder sends it, and nothing more is tried here.
    holds: Callable[[], bool] | None = None

    def handed_over(self, method: str, chat_id: int, error: object) -> None:
        """Before a try after the first: :class:`HandedOver` when the game is no longer
        this instance's and nothing of the delivery went out yet."""
        if self.holds is not None and not self.sent and not self.holds():
            raise HandedOver(method, chat_id, error, uncertain=False)

    async def begun(self) -> None:
        """Record it as begun before its first call (see :attr:`begin`);
        :class:`NotOurs` when it may not go."""
        if self.begin is None:
            return
        begin, self.begin = self.begin, None
        if not await begin():
            raise NotOurs

    def went_out(self, method: str) -> None:
        if not method.startswith(REPEATABLE):
            self.sent = True

    def undelivered(self, method: str, chat_id: int, error: object, *, uncertain: bool) -> None:
        """While it sent nothing yet, a failed call is raised."""
        if not self.sent:
            raise Undelivered(method, chat_id, error, uncertain=uncertain)


class NotOurs(Exception):
    """A delivery's ``begin`` refused: another instance sends it, or took the game."""


class Undelivered(Exception):
    """A delivery's call failed: ``uncertain`` when it may have reached Telegram (the
    answer was lost), else it surely did not."""

    def __init__(self, method: str, chat_id: int, error: object, *, uncertain: bool) -> None:
        super().__init__(f"{method} to {chat_id}: {error}")
        self.method = method
        self.uncertain = uncertain


class HandedOver(Undelivered):
    """A delivery's call failed, and before it was tried again its instance gave the game
    up (see :attr:`Delivery.holds`): not tried again here; nothing of it went out but, for
    an edit, what repeating it shows the same."""


@dataclass(frozen=True, slots=True)
class Via:
    """How one message's calls go: their place in the rate limiter's queue (``priority``,
    and ``coalesce``: an edit waiting is replaced by a newer one with the same key), and
    the recorded delivery they carry out, if any."""

    priority: Priority = Priority.MESSAGE
    coalesce: Hashable | None = None
    delivery: Delivery | None = None
    # The forum topic its new messages go to (None: the chat itself, or General), and the
    # game it is about (whose messages move to General should the topic be closed).
    thread: int | None = None
    game: str = ""


DIRECT: Final = Via()  # a message of no recorded delivery, paced as any other


def never_sent(error: BaseException) -> bool:
    """Whether a failed request surely never reached Telegram: no connection could be
    opened (refused, no route, timed out connecting or waiting for the pool)."""
    cause: BaseException | None = error
    while cause is not None:
        if isinstance(cause, UNSENT):
            return True
        cause = cause.__cause__ or cause.__context__
    return False


def _seconds(value: object) -> float:
    total = getattr(value, "total_seconds", None)
    return float(total()) if callable(total) else float(value)  # type: ignore[arg-type]


class Gateway:
    """Calls the Bot API for one bot, paced and tried again (see the module's
    docstring); ``botstate`` learns of a group that became a supergroup; ``shown`` knows
    what each message shows, so an edit that changes nothing is not sent. ``heard``, if
    set, hears of every try of a paced call: False when Telegram could not be reached
    (a network error, a timeout, a 5xx), True when it answered (anything else); the
    announcer so notices soon that this instance is cut off from Telegram."""

    def __init__(
        self,
        bot: Bot,
        botstate: BotState,
        limiter: RateLimiter | None = None,
        shown: ShownEdits | None = None,
    ) -> None:
        self.bot = bot
        self.botstate = botstate
        self.limiter = limiter
        self.shown = shown if shown is not None else ShownEdits()
        self.heard: Callable[[bool], None] | None = None

    def _heard(self, answered: bool) -> None:
        if self.heard is not None:
            self.heard(answered)

    async def _paced(self, chat_id: int, method: str, via: Via) -> bool:
        """Wait for the rate limiter (if any) to let a call to ``chat_id`` go; False when
        a newer board edit for the same chat took its place."""
        if self.limiter is None:
            return True
        # Only an edit may be replaced by a newer one.
        coalesce = via.coalesce if method.startswith("edit_") else None
        return await self.limiter.acquire(
            chat_id, via.priority, group=chat_id < 0, coalesce=coalesce
        )

    async def call(
        self,
        place: Place,
        method: str,
        *,
        via: Via = DIRECT,
        strict: bool = False,
        picture: bytes | None = None,
        **kwargs: Any,
    ) -> Any:
        """Call ``bot.<method>`` for ``place``; None when Telegram refused (``strict``: a
        BadRequest is raised instead, but for "not modified", which is True). Forbidden
        in a private chat is raised. REPLACED when a newer board edit took its place before
        it went. Within a delivery, see :class:`Delivery`. An edit that would change
        nothing the message shows is not sent (True); what a message sent or edited shows
        is noted once Telegram confirmed it (``picture``: the digest of its file)."""
        if method in EDITS and "message_id" in kwargs:
            return await self.shown.once(
                (place.chat_id, int(kwargs["message_id"])),
                shows(method, kwargs, picture),
                lambda: self._call(place, method, via, strict, kwargs),
                lambda result: result is not None and result is not REPLACED,
            )
        result = await self._call(place, method, via, strict, kwargs)
        if method in SENDS and isinstance(result, Message):
            key = (result.chat.id, result.message_id)
            await self.shown.remember(key, shows(method, kwargs, picture), anew=True)
        return result

    async def _call(
        self, place: Place, method: str, via: Via, strict: bool, kwargs: dict[str, Any]
    ) -> Any:
        delivery = via.delivery
        last: TelegramError | None = None
        for attempt in range(ATTEMPTS):
            chat_id = place.chat_id
            if attempt and delivery is not None:  # not the budget of a call not made
                delivery.handed_over(method, chat_id, last)
            if not await self._paced(chat_id, method, via):
                return REPLACED  # a newer board for the same chat replaced this one
            if delivery is not None:
                if attempt:  # the game given up while this try waited for its turn
                    delivery.handed_over(method, chat_id, last)
                await delivery.begun()
            try:
                result = await getattr(self.bot, method)(**place.target(method), **kwargs)
            except RetryAfter as error:
                self._heard(True)
                last = error
                if self.limiter is not None:  # the chat (or the bot) waits; so will we
                    await self.limiter.retry_after(chat_id, _seconds(error.retry_after))
                else:
                    await asyncio.sleep(_seconds(error.retry_after))
            except ChatMigrated as error:
                self._heard(True)
                await asyncio.to_thread(self.botstate.set_migrated, chat_id, error.new_chat_id)
                if method not in ("send_message", "send_photo"):
                    return None  # the message lives in the old chat: the caller sends anew
                place = replace(place, chat_id=error.new_chat_id)
            except BadRequest as error:
                self._heard(True)
                if "not modified" in error.message.lower():
                    return True
                gone = topic_refusal(place, error)
                if gone is not None:
                    raise TopicClosed(place, gone) from error
                if strict:
                    raise
                log.info("%s to %s refused: %s", method, chat_id, error.message)
                return None
            except Forbidden as error:
                self._heard(True)
                log.info("%s to %s forbidden: %s", method, chat_id, error.message)
                if chat_id > 0:
                    raise
                return None
            except NetworkError as error:  # timed out, a 5xx, a dropped connection
                self._heard(False)
                if not method.startswith(REPEATABLE) and not never_sent(error):
                    # Telegram may have carried it out and only the answer was lost:
                    # sending it again could show the message twice.
                    log.warning(
                        "%s to %s may have arrived; not repeated: %s", method, chat_id, error
                    )
                    if delivery is not None:
                        delivery.undelivered(method, chat_id, error, uncertain=True)
                        delivery.went_out(method)
                    return None
                log.warning("%s to %s failed (attempt %d): %s", method, chat_id, attempt + 1, error)
                last = error
                if attempt + 1 < ATTEMPTS:
                    await asyncio.sleep(NETWORK_BACKOFF * 2**attempt)
            except TelegramError as error:
                self._heard(True)
                log.warning("%s to %s failed: %s", method, chat_id, error)
                return None
            else:
                self._heard(True)
                if delivery is not None:
                    delivery.went_out(method)
                return result
        log.warning("%s to %s failed %d times: %s", method, place.chat_id, ATTEMPTS, last)
        if delivery is not None:
            delivery.undelivered(method, place.chat_id, last, uncertain=False)
        return None

    async def reachable(self) -> None:
        """Ask Telegram who the bot is: raises when it cannot be reached."""
        await self.bot.get_me()


def message_id(answer: object) -> int | None:
    """The id of the message a call sent or edited, if it answered with one.

    >>> message_id(True) is None
    True
    """
    return answer.message_id if isinstance(answer, Message) else None


# -- answering an update directly -------------------------------------------------------


async def reply(
    message: Message, text: str, *, shown: ShownEdits | None = None, **kwargs: Any
) -> Message:
    """A reply to ``message`` (a command), in its chat. With ``shown``, what it shows is
    noted: a message whose buttons edit it (see :func:`rewrite`)."""
    sent = await message.reply_text(text, **kwargs)
    if shown is not None:
        key = (sent.chat.id, sent.message_id)
        await shown.remember(key, shows("send_message", {"text": text, **kwargs}), anew=True)
    return sent


async def answer_press(query: CallbackQuery, text: str | None = None, **kwargs: Any) -> bool:
    """A pressed button answered: it stops spinning; ``text`` (plain text) shows as a
    toast, or with ``show_alert`` as an alert the player closes. Telegram refuses one
    over 200 UTF-16 units: should a text ever be longer (every catalog answer fits, see
    ``tests/tgbot/test_alert_lengths.py``), its end is cut off instead."""
    if text is not None and utf16(text) > ALERT_LIMIT:
        text = cut(text, ALERT_LIMIT - 1) + "…"
    return await query.answer(text, **kwargs)


async def rewrite(
    message: Message, text: str, *, shown: ShownEdits, **kwargs: Any
) -> Message | bool:
    """``message`` (the bot's own) shows ``text`` instead (and ``reply_markup``'s
    buttons, or none); True when it shows that already: nothing is sent when ``shown``
    knows it, and Telegram's "not modified" is taken as done."""
    edit = shows("edit_message_text", {"text": text, **kwargs})
    key = (message.chat.id, message.message_id)
    done: Message | bool = await shown.once(
        key, edit, _modified(lambda: message.edit_text(text, **kwargs))
    )
    return done


async def edit_pressed(
    query: CallbackQuery, text: str, *, shown: ShownEdits, **kwargs: Any
) -> Message | bool:
    """The message whose button was pressed shows ``text`` instead (see :func:`rewrite`)."""
    message = query.message
    if not isinstance(message, Message):  # an inline message: nothing known of it
        return await _modified(lambda: query.edit_message_text(text, **kwargs))()
    return await rewrite(message, text, shown=shown, **kwargs)


async def unbutton_pressed(query: CallbackQuery, *, shown: ShownEdits) -> Message | bool:
    """The message whose button was pressed loses its buttons (nothing is sent when
    ``shown`` knows it has none)."""
    make = _modified(lambda: query.edit_message_reply_markup(None))
    message = query.message
    if not isinstance(message, Message):
        return await make()
    key = (message.chat.id, message.message_id)
    done: Message | bool = await shown.once(key, shows("edit_message_reply_markup", {}), make)
    return done


def _modified(
    edit: Callable[[], Awaitable[Message | bool]],
) -> Callable[[], Awaitable[Message | bool]]:
    """``edit`` to be made, Telegram's "not modified" taken as done (True)."""

    async def make() -> Message | bool:
        try:
            return await edit()
        except BadRequest as error:
            if "not modified" not in str(error).lower():
                raise
            return True

    return make


async def post_text(bot: Bot, place: Place, text: str, **kwargs: Any) -> Message:
    """A message sent to ``place``."""
    return await bot.send_message(**place.target("send_message"), text=text, **kwargs)


async def chat_member(bot: Bot, chat_id: int, user_id: int) -> ChatMember:
    """What ``user_id`` is in ``chat_id`` (``getChatMember``)."""
    return await bot.get_chat_member(chat_id, user_id)


async def set_commands(
    bot: Bot, commands: Sequence[BotCommand], scope: BotCommandScope, language_code: str | None
) -> bool:
    """The command menu of ``scope`` in ``language_code`` (None: the default)."""
    return await bot.set_my_commands(commands, scope=scope, language_code=language_code)


async def set_profile(bot: Bot, description: str, short: str, language_code: str | None) -> None:
    """The bot's description and short description in ``language_code``, each written
    only where it changed."""
    if (await bot.get_my_description(language_code=language_code)).description != description:
        await bot.set_my_description(description, language_code=language_code)
    current = await bot.get_my_short_description(language_code=language_code)
    if current.short_description != short:
        await bot.set_my_short_description(short, language_code=language_code)


async def register_webhook(bot: Bot, url: str, **kwargs: Any) -> bool:
    """Telegram posts the bot's updates to ``url``."""
    return await bot.set_webhook(url, **kwargs)
