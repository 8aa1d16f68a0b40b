"""The outbox: the only code that calls Telegram to send, edit or delete a message.

It delivers the presenter's messages (:mod:`tgbot.presenter.messages`): it keeps the id of
each message that fills a slot (the lobby, the board of the round, a player's live prompt)
to edit or supersede it later, draws pictures off the event loop and sends a picture
Telegram already has by its ``file_id``, turns plain keyboards into Telegram's markup, and
handles what Telegram answers — a user who blocked the bot, a group that became a
supergroup, "message is not modified" — with one retry policy: a flood limit is waited out
and the call tried again, a network error is tried again only when repeating it cannot
show a message twice. Every call waits for the rate limiter (:mod:`infra.ratelimit`, one
for all the instances on Redis): prompts go before other messages, and those before board
and lobby redraws; a board redraw still waiting is replaced by a newer one of the same
game and chat.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable, Hashable, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any, Final

import aiohttp
import httpx
from PIL import Image
from telegram import (
    Bot,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    InputFile,
    InputMediaPhoto,
    Message,
    WebAppInfo,
)
from telegram.constants import ParseMode
from telegram.error import (
    BadRequest,
    ChatMigrated,
    Forbidden,
    NetworkError,
    RetryAfter,
    TelegramError,
)

from infra.botstate import BotState, StoredMessage
from infra.locks import Locks
from infra.lru import LRU
from infra.ratelimit import Priority, RateLimiter
from tgbot import render
from tgbot.callback import encode
from tgbot.edits import TEXT, Shown, ShownEdits, fingerprint
from tgbot.keyboards import Keyboard
from tgbot.photos import PhotoCache
from tgbot.presenter import messages as m
from tgbot.presenter.messages import Picture, Slot

log = logging.getLogger(__name__)

ATTEMPTS: Final = 4  # tries per Telegram call (flood limits waited out, network errors)
# Calls that do the same when repeated: tried again after any network error. Any other
# (a send) only when the request surely never left (see never_sent).
REPEATABLE: Final = ("edit_", "delete_", "get_")
UNSENT: Final = (
    aiohttp.ClientConnectorError,
    aiohttp.ConnectionTimeoutError,
    httpx.ConnectError,
    httpx.ConnectTimeout,
    httpx.PoolTimeout,
    ConnectionRefusedError,
)
# A prompt sent again after a try that may have arrived: at most this many messages
# before the new one are checked for that try's buttons.
UNKNOWN_PROMPTS: Final = 3
# A prompt is checked again this long after it was sent (see Outbox._recheck_later).
PROMPT_RECHECK_SECONDS: Final = 2.0
NETWORK_BACKOFF: Final = 0.25  # seconds before the second try; doubled each time
HTML: Final = ParseMode.HTML
DRAWN_PICTURES: Final = 256  # pictures kept as PNG bytes (about 10 kB each)
# Edits skipped when the message shows what they set already (see tgbot.edits).
EDITS: Final = (
    "edit_message_text",
    "edit_message_caption",
    "edit_message_media",
    "edit_message_reply_markup",
)
SENDS: Final = ("send_message", "send_photo")  # what they show is noted, for later edits
REPLACED: Final = object()  # a board's redraw replaced by a newer one before it went


@dataclass
class Delivery:
    """One recorded delivery being carried out (see :mod:`tgbot.delivering`): whether it
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


class NotOurs(Exception):
    """A delivery's ``begin`` refused: another instance sends it, or took the game."""


class Undelivered(Exception):
    """A delivery's call failed: ``uncertain`` when it may have reached Telegram (the
    answer was lost), else it surely did not."""

    def __init__(self, method: str, chat_id: int, error: object, *, uncertain: bool) -> None:
        super().__init__(f"{method} to {chat_id}: {error}")
        self.method = method
        self.uncertain = uncertain


DELIVERY: ContextVar[Delivery | None] = ContextVar("delivery", default=None)


def _undelivered(method: str, chat_id: int, error: object, *, uncertain: bool) -> None:
    """Within a delivery that sent nothing yet, a failed call is raised."""
    delivery = DELIVERY.get()
    if delivery is not None and not delivery.sent:
        raise Undelivered(method, chat_id, error, uncertain=uncertain)


def _unknown_after() -> int | None:
    """See :attr:`Delivery.unknown_after` (None outside a delivery)."""
    delivery = DELIVERY.get()
    return delivery.unknown_after if delivery is not None else None


async def _begin() -> None:
    """Within a delivery, record it as begun before its first call (see
    :attr:`Delivery.begin`); :class:`NotOurs` when it may not go."""
    delivery = DELIVERY.get()
    if delivery is None or delivery.begin is None:
        return
    begin, delivery.begin = delivery.begin, None
    if not await begin():
        raise NotOurs


def _went_out(method: str) -> None:
    delivery = DELIVERY.get()
    if delivery is not None and not method.startswith(REPEATABLE):
        delivery.sent = True


# How the message being delivered is paced: its priority, and what may replace it.
PACE: ContextVar[tuple[Priority, Hashable | None]] = ContextVar(
    "pace", default=(Priority.MESSAGE, None)
)


def pace(message: m.Message) -> tuple[Priority, Hashable | None]:
    """A message's place in the rate limiter's queue: prompts before other messages
    before board and lobby redraws; a board's redraw is replaced by a newer one of the
    same game and chat while it waits."""
    match message:
        case m.Prompt() | m.ClosedPrompt() | m.PromptStep():
            return Priority.PROMPT, None
        case m.Board():
            return Priority.BOARD, ("board", message.game, message.chat)
        case m.Lobby() | m.LobbyClosed():
            return Priority.BOARD, None
    return Priority.MESSAGE, None


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


def draw(picture: Picture) -> bytes:
    """A picture as PNG bytes. The group's board and the next player's prompt often show
    the same board: it is drawn once, and the prompt's hand is added below it."""
    image = _board(replace(picture, hand=()))
    if picture.hand:
        image = render.with_hand(image, picture.hand)
    return render.png_bytes(image)


@lru_cache(maxsize=16)  # a board is about 1 MB: enough for the board, then the prompt
def _board(picture: Picture) -> Image.Image:
    highlight = dict(picture.marks) if picture.marks else picture.last
    image = render.render_image(
        dict(picture.board), highlight=highlight, show_goal_kinds=dict(picture.peeks) or None
    )
    if picture.orientations is not None:
        image = render.with_orientations(image, picture.orientations)
    return image


class Outbox:
    """Delivers messages to Telegram for one bot (see the module's docstring)."""

    def __init__(
        self,
        bot: Bot,
        botstate: BotState,
        photos: PhotoCache,
        key: bytes,
        shown: ShownEdits | None = None,
        locks: Locks | None = None,
        limiter: RateLimiter | None = None,
    ) -> None:
        self.bot = bot
        self.limiter = limiter
        self.botstate = botstate
        self.photos = photos
        self.key = key
        self.shown = shown if shown is not None else ShownEdits()
        self.locks = locks or Locks(botstate.engine)
        self._locks: dict[str, asyncio.Lock] = {}
        self._telling = asyncio.Lock()  # the group told of unreachable players: one at a time
        self._rechecks: set[asyncio.Task[None]] = set()  # prompts checked again in a moment
        # Pictures drawn lately (a prompt sent again, a board shown in several chats).
        self._drawn: LRU[Picture, bytes] = LRU(DRAWN_PICTURES)

    # -- the port the handlers and the announcer use ---------------------------------

    async def deliver(self, messages: Sequence[m.Message]) -> list[Any]:
        """Deliver ``messages`` in order; what Telegram answered to each (None: nothing
        was sent or it was refused)."""
        return [await self.deliver_one(message) for message in messages]

    async def deliver_one(self, message: m.Message) -> Any:
        token = PACE.set(pace(message))
        try:
            return await self._deliver_one(message)
        finally:
            PACE.reset(token)

    async def _deliver_one(self, message: m.Message) -> Any:
        match message:
            case m.Text() if message.about:
                return await self._unreachable(message)
            case m.Text():
                return await self._text(message)
            case m.Board():
                return await self._board(message)
            case m.Prompt():
                return await self._prompt(message)
            case m.ClosedPrompt():
                return await self._closed(message)
            case m.PrivateText():
                return await self.reach(
                    message.player,
                    message.game,
                    message.unreachable,
                    self.call(
                        message.player,
                        "send_message",
                        text=message.text,
                        parse_mode=HTML,
                        reply_markup=self.markup(
                            message.keyboard, message.game, message.version, message.player
                        ),
                    ),
                )
            case m.PromptStep():
                return await self._step(message)
            case m.TextEdit():
                return await self.call(
                    message.chat,
                    "edit_message_text",
                    message_id=message.message_id,
                    text=message.text,
                    parse_mode=HTML,
                    reply_markup=self.markup(
                        message.keyboard, message.game, message.version, message.chat
                    ),
                )
            case m.Photo():
                markup = self.markup(message.keyboard, message.game, message.version, message.chat)
                return await self._picture(
                    message.chat, message.picture, message.caption, markup, message.message_id
                )
            case m.Animation():
                return await self.call(
                    message.chat,
                    "send_animation",
                    animation=InputFile(message.gif, filename=message.filename),
                    caption=message.caption,
                    parse_mode=HTML,
                )
            case m.Unbuttoned():
                # Asked for because a press came from its buttons: whatever edit was
                # last made there, the message shows them, so this one is never skipped.
                chat = await asyncio.to_thread(self.botstate.resolve_chat, message.chat)
                await self.shown.forget((chat, message.message_id))
                return await self.call(
                    chat, "edit_message_reply_markup", message_id=message.message_id
                )
            case m.Deleted():
                deleted = await self.call(
                    message.chat, "delete_message", message_id=message.message_id
                )
                if deleted is None:
                    return await self.call(
                        message.chat, "edit_message_reply_markup", message_id=message.message_id
                    )
                return deleted
            case m.Lobby():
                return await self._lobby(message)
            case m.LobbyClosed():
                return await self._lobby_closed(message)
        raise TypeError(f"not a message: {message!r}")  # pragma: no cover

    @contextlib.asynccontextmanager
    async def lock(self, game_id: str) -> AsyncIterator[None]:
        """Held while a game's lobby message is drawn or closed: one at a time, on every
        instance (a lock in the database; in this process, waited for on the loop)."""
        async with (
            self._locks.setdefault(game_id, asyncio.Lock()),
            self.locks.holding(f"lobby:{game_id}"),
        ):
            yield

    def draw(self, picture: Picture) -> bytes:
        """:func:`draw`, remembered for the pictures drawn lately (blocks: call it in a
        thread)."""
        png = self._drawn.get(picture)
        if png is None:
            png = self._drawn[picture] = draw(picture)
        return png

    def markup(
        self, keyboard: Keyboard, game: str, version: int, chat: int
    ) -> InlineKeyboardMarkup | None:
        """A plain keyboard as Telegram's markup, each press encoded for ``game`` at
        ``version`` (or the game its button names) and bound to ``chat``, the chat the
        message goes to: a press from anywhere else is refused."""
        if not keyboard:
            return None
        rows = []
        for row in keyboard:
            buttons = []
            for button in row:
                if button.press is not None:
                    data = encode(button.press.data(button.game or game, version), self.key, chat)
                    buttons.append(InlineKeyboardButton(button.label, callback_data=data))
                elif button.web_app is not None:
                    buttons.append(
                        InlineKeyboardButton(button.label, web_app=WebAppInfo(button.web_app))
                    )
                else:
                    buttons.append(InlineKeyboardButton(button.label, url=button.url))
            rows.append(buttons)
        return InlineKeyboardMarkup(rows)

    # -- slots -------------------------------------------------------------------------

    async def _save(self, game: str, chat: int, slot: Slot, message_id: int, version: int) -> None:
        await asyncio.to_thread(self.botstate.save_message, game, chat, slot, message_id, version)

    async def _forget(self, game: str, chat: int, slot: Slot) -> None:
        await asyncio.to_thread(self.botstate.forget_message, game, chat, slot)

    async def _board_message(self, game: str, chat: int) -> tuple[int, StoredMessage | None]:
        """The group's chat as it is now (a group may have become a supergroup) and the
        game's board message there, if known."""
        chat = await asyncio.to_thread(self.botstate.resolve_chat, chat)
        return chat, await asyncio.to_thread(self.botstate.message, game, chat, Slot.BOARD)

    async def board_known(self, game: str, chat: int) -> bool:
        """Whether the group's board message is known (a redraw edits it; else it is
        posted anew)."""
        _, stored = await self._board_message(game, chat)
        return stored is not None

    async def forget_board(self, game: str, chat: int) -> None:
        """Forget the group's board message (one posted anew may or may not have arrived):
        the game's next redraw is posted anew."""
        chat = await asyncio.to_thread(self.botstate.resolve_chat, chat)
        await self._forget(game, chat, Slot.BOARD)

    async def _board(self, message: m.Board) -> Any:
        chat, stored = await self._board_message(message.game, message.chat)
        markup = self.markup(message.keyboard, message.game, message.version, chat)
        if stored is not None and not message.new:
            done = await self._picture(
                chat, message.picture, message.caption, markup, stored.message_id
            )
            if done is not None:
                return done
        sent = await self._picture(chat, message.picture, message.caption, markup)
        if isinstance(sent, Message):
            await self._save(
                message.game, sent.chat.id, Slot.BOARD, sent.message_id, message.version
            )
        return sent

    async def _prompt(self, message: m.Prompt) -> Any:
        player, game = message.player, message.game
        png = await asyncio.to_thread(self.draw, message.picture)
        markup = self.markup(message.keyboard, game, message.version, player)
        sent = await self.reach(
            player,
            game,
            message.unreachable,
            self.send_picture(
                player, "send_photo", png, caption=message.caption, reply_markup=markup
            ),
        )
        if isinstance(sent, Message):
            # One live prompt per player: the earlier one keeps its text, loses its buttons.
            # Read afresh: a handler on another instance may have sent the one before. The
            # new one is named live first: a step drawn on an older one meanwhile finds it
            # replaced and takes its buttons off again (see handlers.callbacks).
            earlier = await asyncio.to_thread(
                self.botstate.fresh_message, game, player, Slot.PROMPT
            )
            await self._save(game, player, Slot.PROMPT, sent.message_id, message.version)
            older = [earlier.message_id] if earlier is not None else []
            for message_id in older + self._doubtful(sent.message_id, older):
                if message_id != sent.message_id:
                    await self._unbutton(player, game, message_id)
            self._recheck_later(player, game, sent.message_id)
        return sent

    @staticmethod
    def _doubtful(before: int, known: Sequence[int] = ()) -> list[int]:
        """Within a delivery whose earlier try (or a superseded one's) may have arrived
        unknown to anyone: the messages before ``before`` that may be that try (it lies
        after the chat's last message known sent, :attr:`Delivery.unknown_after`)."""
        after = _unknown_after()
        if after is None:
            return []
        start = max(after + 1, before - UNKNOWN_PROMPTS)
        return [i for i in range(start, before) if i not in known]

    async def _unbutton(self, player: int, game: str, message_id: int) -> None:
        await self.reach(
            player,
            game,
            None,
            self.call(player, "edit_message_reply_markup", message_id=message_id),
        )

    def _recheck_later(self, player: int, game: str, message_id: int) -> None:
        """In a moment, make sure the prompt just sent is the player's live one: another
        instance (a handler's ``/hand``, a delivery in flight) may have sent one at the
        same time, each missing the other's. The one the database does not name loses
        its buttons."""

        async def recheck() -> None:
            await asyncio.sleep(PROMPT_RECHECK_SECONDS)
            live = await asyncio.to_thread(self.botstate.fresh_message, game, player, Slot.PROMPT)
            if live is not None and live.message_id != message_id:
                await self._unbutton(player, game, message_id)

        task = asyncio.create_task(recheck(), name=f"recheck prompt {game} {player}")
        self._rechecks.add(task)
        task.add_done_callback(self._rechecks.discard)

    async def _closed(self, message: m.ClosedPrompt) -> Any:
        """The decision's prompt shows it was made, without buttons. With no live prompt
        on record, the closing is sent as a message when the player is to read it, or
        when a try of the prompt may have arrived unknown (its buttons are removed: the
        new message bounds where it may lie)."""
        player, game = message.player, message.game
        markup = self.markup(message.keyboard, game, message.version, player)
        stored = await asyncio.to_thread(self.botstate.fresh_message, game, player, Slot.PROMPT)
        if stored is None:
            if not message.or_send and _unknown_after() is None:
                return None
            sent = await self.reach(
                player,
                game,
                message.unreachable,
                self.call(
                    player,
                    "send_message",
                    text=message.caption,
                    parse_mode=HTML,
                    reply_markup=markup,
                ),
            )
            if isinstance(sent, Message):
                for message_id in self._doubtful(sent.message_id):
                    await self._unbutton(player, game, message_id)
            return sent
        done = await self.reach(
            player,
            game,
            None,
            self.call(
                player,
                "edit_message_caption",
                message_id=stored.message_id,
                caption=message.caption,
                parse_mode=HTML,
                reply_markup=markup,
            ),
        )
        await self._forget(game, player, Slot.PROMPT)
        for message_id in self._doubtful(stored.message_id):
            await self._unbutton(player, game, message_id)
        return done

    async def _step(self, message: m.PromptStep) -> Any:
        markup = self.markup(message.keyboard, message.game, message.version, message.chat)
        if message.picture is None:
            return await self.call(
                message.chat,
                "edit_message_caption",
                message_id=message.message_id,
                caption=message.caption,
                parse_mode=HTML,
                reply_markup=markup,
            )
        return await self._picture(
            message.chat, message.picture, message.caption, markup, message.message_id
        )

    async def _picture(
        self,
        chat: int,
        picture: Picture,
        caption: str,
        markup: InlineKeyboardMarkup | None,
        message_id: int | None = None,
    ) -> Any:
        """A picture drawn (off the event loop) and sent, or put in place of the picture
        of message ``message_id``."""
        png = await asyncio.to_thread(self.draw, picture)
        if message_id is None:
            return await self.send_picture(
                chat, "send_photo", png, caption=caption, reply_markup=markup
            )
        return await self.send_picture(
            chat,
            "edit_message_media",
            png,
            caption=caption,
            message_id=message_id,
            reply_markup=markup,
        )

    async def _lobby(self, message: m.Lobby) -> Any:
        """The one lobby message: edited in place, or (``anew``) deleted and posted again.
        A drawing older than the one shown is dropped; ``settings`` None keeps showing
        what the message shows (its settings, or its buttons)."""
        async with self.lock(message.game):
            chat = await asyncio.to_thread(self.botstate.resolve_chat, message.chat)
            stored = await asyncio.to_thread(
                self.botstate.fresh_message, message.game, chat, Slot.LOBBY
            )
            if stored is not None and stored.version > message.version:
                return None  # a newer drawing is shown already
            settings = message.settings
            if settings is None:
                marker = await asyncio.to_thread(
                    self.botstate.fresh_message, message.game, chat, Slot.SETTINGS
                )
                settings = (
                    stored is not None
                    and marker is not None
                    and (marker.message_id == stored.message_id)
                )
            keyboard = message.settings_keyboard if settings else message.keyboard
            markup = self.markup(keyboard, message.game, message.version, chat)
            if stored is not None and message.anew:
                deleted = await self.call(chat, "delete_message", message_id=stored.message_id)
                if deleted is None:
                    await self.call(chat, "edit_message_reply_markup", message_id=stored.message_id)
                stored = None
            message_id: int | None = None
            if stored is not None:
                done = await self.call(
                    chat,
                    "edit_message_text",
                    message_id=stored.message_id,
                    text=message.text,
                    parse_mode=HTML,
                    reply_markup=markup,
                )
                message_id = stored.message_id if done is not None else None
            if message_id is None:
                sent = await self.call(
                    chat, "send_message", text=message.text, parse_mode=HTML, reply_markup=markup
                )
                if not isinstance(sent, Message):
                    return None
                chat, message_id = sent.chat.id, sent.message_id
            await self._save(message.game, chat, Slot.LOBBY, message_id, message.version)
            if settings:
                await self._save(message.game, chat, Slot.SETTINGS, message_id, message.version)
            else:
                await self._forget(message.game, chat, Slot.SETTINGS)
            return message_id

    async def _lobby_closed(self, message: m.LobbyClosed) -> Any:
        async with self.lock(message.game):
            chat = await asyncio.to_thread(self.botstate.resolve_chat, message.chat)
            stored = await asyncio.to_thread(
                self.botstate.fresh_message, message.game, chat, Slot.LOBBY
            )
            if stored is None:
                if message.or_send:
                    return await self.call(
                        chat, "send_message", text=message.or_send, parse_mode=HTML
                    )
                return None
            done = await self.call(
                chat,
                "edit_message_text",
                message_id=stored.message_id,
                text=message.text,
                parse_mode=HTML,
            )
            await self._forget(message.game, chat, Slot.LOBBY)
            await self._forget(message.game, chat, Slot.SETTINGS)
        # Whoever still waits holds this lock and finds the lobby over.
        self._locks.pop(message.game, None)
        return done

    async def _text(self, message: m.Text) -> Any:
        markup = self.markup(message.keyboard, message.game, message.version, message.chat)
        return await self.call(
            message.chat, "send_message", text=message.text, parse_mode=HTML, reply_markup=markup
        )

    async def _unreachable(self, message: m.Text, again: bool = False) -> Any:
        """The group told which players cannot be written to: once per game and player
        (``again``: they opened the chat and blocked it since), noted. One at a time:
        the group's notice and a player's prompt that found them unreachable, delivered
        side by side, tell the group once."""
        async with self._telling:
            if not again:
                told = await asyncio.to_thread(self._told, message.game, message.about)
                if told:
                    return None
            sent = await self._text(message)
            message_id = sent.message_id if isinstance(sent, Message) else 0
            for player in message.about:
                await self._save(message.game, player, Slot.UNREACHABLE, message_id, 0)
            return sent

    def _told(self, game: str, players: Sequence[int]) -> bool:
        """Whether the group was told every one of ``players`` cannot be written to."""
        return all(self.botstate.message(game, p, Slot.UNREACHABLE) is not None for p in players)

    # -- private chats -----------------------------------------------------------------

    async def reach(self, player: int, game: str, notice: m.Text | None, call: Any) -> Any:
        """Await a call to a player's chat. If they blocked the bot (or never opened the
        chat), note it and tell the group once per game (``notice``), again only if they
        opened the chat and blocked it since. None then."""
        try:
            return await call
        except Forbidden:
            user = await asyncio.to_thread(self.botstate.user, player)
            was_open = user is not None and user.private_chat
            if user is not None:
                await asyncio.to_thread(self.botstate.set_private_chat, player, False)
            if notice is not None:
                await self._unreachable(notice, again=was_open)
            return None

    # -- Telegram calls ----------------------------------------------------------------

    async def send_picture(
        self, chat_id: int, method: str, png: bytes, *, caption: str, **kwargs: Any
    ) -> Any:
        """``send_photo`` or ``edit_message_media`` of ``png`` with its HTML ``caption``:
        by the ``file_id`` Telegram gave the same picture before, if any; should Telegram
        refuse that id (it forgot the file), once more with the bytes. The id of what was
        sent is remembered. None when Telegram refused. An edit to what the message
        shows already is not sent (True): nothing is uploaded."""
        return await self._send_picture(chat_id, method, png, caption, kwargs)

    async def _send_picture(
        self, chat_id: int, method: str, png: bytes, caption: str, kwargs: dict[str, Any]
    ) -> Any:
        known = self.photos.file_id(png)
        picture = fingerprint(png)
        if known is not None:
            try:
                sent = await self.call(
                    chat_id,
                    method,
                    strict=True,
                    picture=picture,
                    **_picture(method, known, caption, kwargs),
                )
            except BadRequest as error:
                log.info(
                    "%s to %s: file %s refused (%s); uploaded again",
                    method,
                    chat_id,
                    known,
                    error.message,
                )
                self.photos.forget(png)
            else:
                self.photos.remember(png, sent)
                return sent
        sent = await self.call(
            chat_id, method, picture=picture, **_picture(method, png, caption, kwargs)
        )
        self.photos.remember(png, sent)
        return sent

    async def _paced(self, chat_id: int, method: str) -> bool:
        """Wait for the rate limiter (if any) to let a call to ``chat_id`` go; False when
        a newer board edit for the same chat took its place."""
        if self.limiter is None:
            return True
        priority, coalesce = PACE.get()
        if not method.startswith("edit_"):
            coalesce = None  # only an edit may be replaced by a newer one
        return await self.limiter.acquire(chat_id, priority, group=chat_id < 0, coalesce=coalesce)

    async def call(
        self,
        chat_id: int,
        method: str,
        *,
        strict: bool = False,
        picture: bytes | None = None,
        **kwargs: Any,
    ) -> Any:
        """Call ``bot.<method>(chat_id=..., **kwargs)``; None when Telegram refused
        (``strict``: a BadRequest is raised instead, but for "not modified"). Forbidden
        in a private chat is raised (see :meth:`reach`). An edit that would change
        nothing the message shows is not sent (True); what a message sent or edited
        shows is noted once Telegram confirmed it (``picture``: the digest of its file).
        """
        chat_id = await asyncio.to_thread(self.botstate.resolve_chat, chat_id)
        if method not in EDITS or "message_id" not in kwargs:
            result = await self._call(chat_id, method, strict=strict, **kwargs)
            if method in SENDS and isinstance(result, Message):
                shows = _shows(method, kwargs, picture)
                await self.shown.remember((result.chat.id, result.message_id), shows, anew=True)
            return True if result is REPLACED else result
        message = (chat_id, int(kwargs["message_id"]))
        edit = _shows(method, kwargs, picture)
        if await self.shown.unchanged(message, edit):
            return True  # the message shows this already: nothing to send
        flight = self.shown.begin(message, edit)
        result = None
        try:
            result = await self._call(chat_id, method, strict=strict, **kwargs)
        finally:  # made, or refused, failed or replaced: then what it shows is unknown
            made = result is not None and result is not REPLACED
            await self.shown.end(message, edit, flight, made)
        return True if result is REPLACED else result

    async def _call(self, chat_id: int, method: str, *, strict: bool, **kwargs: Any) -> Any:
        last: TelegramError | None = None
        for attempt in range(ATTEMPTS):
            if not await self._paced(chat_id, method):
                return REPLACED  # a newer board for the same chat replaced this one
            await _begin()
            try:
                result = await getattr(self.bot, method)(chat_id=chat_id, **kwargs)
            except RetryAfter as error:
                last = error
                if self.limiter is not None:  # the chat (or the bot) waits; so will we
                    await self.limiter.retry_after(chat_id, _seconds(error.retry_after))
                else:
                    await asyncio.sleep(_seconds(error.retry_after))
            except ChatMigrated as error:
                await asyncio.to_thread(self.botstate.set_migrated, chat_id, error.new_chat_id)
                if method not in ("send_message", "send_photo"):
                    return None  # the message lives in the old chat: the caller sends anew
                chat_id = error.new_chat_id
            except BadRequest as error:
                if "not modified" in error.message.lower():
                    return True
                if strict:
                    raise
                log.info("%s to %s refused: %s", method, chat_id, error.message)
                return None
            except Forbidden as error:
                log.info("%s to %s forbidden: %s", method, chat_id, error.message)
                if chat_id > 0:
                    raise
                return None
            except NetworkError as error:  # timed out, a 5xx, a dropped connection
                if not method.startswith(REPEATABLE) and not never_sent(error):
                    # Telegram may have carried it out and only the answer was lost:
                    # sending it again could show the message twice.
                    log.warning(
                        "%s to %s may have arrived; not repeated: %s", method, chat_id, error
                    )
                    _undelivered(method, chat_id, error, uncertain=True)
                    _went_out(method)
                    return None
                log.warning("%s to %s failed (attempt %d): %s", method, chat_id, attempt + 1, error)
                last = error
                if attempt + 1 < ATTEMPTS:
                    await asyncio.sleep(NETWORK_BACKOFF * 2**attempt)
            except TelegramError as error:
                log.warning("%s to %s failed: %s", method, chat_id, error)
                return None
            else:
                _went_out(method)
                return result
        log.warning("%s to %s failed %d times: %s", method, chat_id, ATTEMPTS, last)
        _undelivered(method, chat_id, last, uncertain=False)
        return None


def _markup_json(markup: Any) -> str:
    """A keyboard as Telegram shows it: one without buttons is none."""
    if isinstance(markup, InlineKeyboardMarkup) and any(markup.inline_keyboard):
        return markup.to_json()
    return "" if markup is None or isinstance(markup, InlineKeyboardMarkup) else repr(markup)


def _shows(method: str, kwargs: dict[str, Any], picture: bytes | None) -> Shown:
    """What a message sent or edited by ``method`` with ``kwargs`` shows: the parts the
    method sets (``picture``: the digest of the file it sends, if known)."""
    markup = fingerprint(_markup_json(kwargs.get("reply_markup")))
    match method:
        case "send_message" | "edit_message_text":
            return Shown(TEXT, fingerprint(str(kwargs.get("text") or "")), markup)
        case "send_photo":
            return Shown(picture, fingerprint(str(kwargs.get("caption") or "")), markup)
        case "edit_message_caption":
            return Shown(None, fingerprint(str(kwargs.get("caption") or "")), markup)
        case "edit_message_media":
            media = kwargs.get("media")
            caption = str(getattr(media, "caption", None) or "")
            # A file not known by its digest: the edit is never skipped, its file unknown.
            return Shown(picture or secrets.token_bytes(16), fingerprint(caption), markup)
    return Shown(markup=markup)  # edit_message_reply_markup


def _picture(
    method: str, media: str | bytes, caption: str, kwargs: dict[str, Any]
) -> dict[str, Any]:
    if method == "edit_message_media":
        photo = InputMediaPhoto(media, caption=caption, parse_mode=HTML)
        return {"media": photo, **kwargs}
    return {"photo": media, "caption": caption, "parse_mode": HTML, **kwargs}
