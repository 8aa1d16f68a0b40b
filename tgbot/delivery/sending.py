"""Calls to Telegram on the outbox's behalf (:class:`Sender`, which
:class:`tgbot.delivery.outbox.Outbox` builds on): each call goes through the gateway to the
chat as it is now and to the forum topic its game plays in (General, with one notice,
while the topic is closed), pictures are drawn off the event loop and sent by the
``file_id`` Telegram gave them before, plain keyboards become Telegram's markup, and the
ids of the messages that fill a slot are kept.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import replace
from functools import lru_cache
from typing import Any, Final, Protocol

from PIL import Image
from telegram import (
    Bot,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    InputMediaPhoto,
    Message,
    WebAppInfo,
)
from telegram.constants import ParseMode
from telegram.error import BadRequest

from infra.botstate import BotState
from infra.locks import Locks
from infra.lru import LRU
from infra.ratelimit import RateLimiter
from tgbot.delivery.photos import PhotoCache
from tgbot.presenter import messages as m
from tgbot.presenter import palette, render
from tgbot.presenter.callback import encode
from tgbot.presenter.keyboards import Keyboard
from tgbot.presenter.messages import Picture, Slot
from tgbot.telegram.edits import ShownEdits, fingerprint
from tgbot.telegram.gateway import DIRECT, REPLACED, Delivery, Gateway, Place, TopicClosed, Via

log = logging.getLogger(__name__)

HTML: Final = ParseMode.HTML
DRAWN_PICTURES: Final = 256  # pictures kept as PNG bytes (about 10 kB each)


class Places(Protocol):
    """Where a game's group messages go, in a forum (see :meth:`Outbox.topic_for`)."""

    def game_place(self, game: str) -> tuple[int, int | None]:
        """The game's group (its id now) and the topic it was opened in (None: none)."""
        ...

    def topic_open(self, chat_id: int, topic: int) -> bool:
        """Whether the topic may be written to (as far as the bot heard)."""
        ...

    def topic_lost(self, chat_id: int, topic: int, state: str) -> None:
        """Telegram refused a send to the topic: it is ``state`` ("closed", "deleted")."""
        ...

    def moved_notice(self, game: str, chat_id: int, topic: int) -> str:
        """The notice (HTML) that the game's messages come to General meanwhile."""
        ...


def draw(picture: Picture) -> bytes:
    """A picture as PNG bytes. The group's board and the next player's prompt often show
    the same board: it is drawn once, and the prompt's hand is added below it."""
    image = _board(replace(picture, hand=()))
    if picture.hand:
        image = render.with_hand(image, picture.hand)
    return palette.png_bytes(image)


@lru_cache(maxsize=16)  # a board is about 1 MB: enough for the board, then the prompt
def _board(picture: Picture) -> Image.Image:
    highlight = dict(picture.marks) if picture.marks else picture.last
    image = render.render_image(
        dict(picture.board), highlight=highlight, show_goal_kinds=dict(picture.peeks) or None
    )
    if picture.orientations is not None:
        image = render.with_orientations(image, picture.orientations)
    return image


class Sender:
    """Sends and edits messages for one bot; the state of the outbox is kept here."""

    def __init__(
        self,
        bot: Bot,
        botstate: BotState,
        photos: PhotoCache,
        key: bytes,
        shown: ShownEdits | None = None,
        locks: Locks | None = None,
        limiter: RateLimiter | None = None,
        places: Places | None = None,
    ) -> None:
        self.shown = shown if shown is not None else ShownEdits()
        self.gateway = Gateway(bot, botstate, limiter, self.shown)
        self.places = places  # None: no forum topics (every message to its chat itself)
        self._moving = asyncio.Lock()  # one "moved to General" notice at a time
        self.botstate = botstate
        self.photos = photos
        self.key = key
        self.locks = locks or Locks(botstate.engine)
        self._locks: dict[str, asyncio.Lock] = {}
        self._telling = asyncio.Lock()  # the group told of unreachable players: one at a time
        self._rechecks: set[asyncio.Task[None]] = set()  # prompts checked again in a moment
        # Pictures drawn lately (a prompt sent again, a board shown in several chats).
        self._drawn: LRU[Picture, bytes] = LRU(DRAWN_PICTURES)

    @property
    def bot(self) -> Bot:
        return self.gateway.bot

    @bot.setter
    def bot(self, bot: Bot) -> None:
        self.gateway.bot = bot

    @property
    def limiter(self) -> RateLimiter | None:
        return self.gateway.limiter

    async def topic_for(self, message: m.Message, delivery: Delivery | None = None) -> int | None:
        """The forum topic a game's group message goes to: the one the game was opened in,
        while it is open; None: the chat itself (no topic, or General). A topic found
        closed or deleted sends one notice to General, and the game's lobby and board
        are posted anew there; found open again, anew in the topic."""
        chat, game = getattr(message, "chat", 0), getattr(message, "game", "")
        if isinstance(message, m.Photo | m.Animation):  # a replay: where it was asked for
            return message.topic if chat < 0 else None
        if self.places is None or chat >= 0 or not game:
            return None
        places = self.places
        home, topic = await asyncio.to_thread(places.game_place, game)
        chat = await asyncio.to_thread(self.botstate.resolve_chat, chat)
        if topic is None or home != chat:
            return None
        is_open = await asyncio.to_thread(places.topic_open, chat, topic)
        moved = await asyncio.to_thread(self.botstate.message, game, chat, Slot.MOVED)
        if is_open and moved is not None:
            for slot in (Slot.MOVED, Slot.BOARD, Slot.LOBBY, Slot.SETTINGS):
                await self._forget(game, chat, slot)
        elif not is_open and moved is None:
            await self._moved(Via(delivery=delivery), game, chat, topic)
        return topic if is_open else None

    async def _lost(self, via: Via, chat: int, closed: TopicClosed) -> None:
        """Telegram refused a send to the game's topic, closed or deleted without the bot
        hearing of it: noted, and General told."""
        topic = closed.place.thread
        if self.places is None or topic is None:
            return
        await asyncio.to_thread(self.places.topic_lost, chat, topic, closed.state)
        await self._moved(via, via.game, chat, topic)

    async def _moved(self, via: Via, game: str, chat: int, topic: int) -> None:
        """The game's messages come to General while its topic is closed or gone: one
        notice there says so (once), and its lobby and board are posted anew there."""
        if self.places is None or not game:
            return
        async with self._moving:
            if await asyncio.to_thread(self.botstate.fresh_message, game, chat, Slot.MOVED):
                return
            text = await asyncio.to_thread(self.places.moved_notice, game, chat, topic)
            # Apart from the message's own delivery: should the notice go and the message
            # fail, the delivery is still tried again.
            notice = Via(priority=via.priority)
            sent = await self.gateway.call(
                Place(chat), "send_message", via=notice, text=text, parse_mode=HTML
            )
            message_id = sent.message_id if isinstance(sent, Message) else 0
            await self._save(game, chat, Slot.MOVED, message_id, 0)
            for slot in (Slot.BOARD, Slot.LOBBY, Slot.SETTINGS):
                await self._forget(game, chat, slot)

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

    async def _picture(
        self,
        via: Via,
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
                chat, "send_photo", png, caption=caption, reply_markup=markup, via=via
            )
        return await self.send_picture(
            chat,
            "edit_message_media",
            png,
            caption=caption,
            via=via,
            message_id=message_id,
            reply_markup=markup,
        )

    # -- Telegram calls ----------------------------------------------------------------

    async def send_picture(
        self,
        chat_id: int,
        method: str,
        png: bytes,
        *,
        caption: str,
        via: Via = DIRECT,
        **kwargs: Any,
    ) -> Any:
        """``send_photo`` or ``edit_message_media`` of ``png`` with its HTML ``caption``:
        by the ``file_id`` Telegram gave the same picture before, if any; should Telegram
        refuse that id (it forgot the file), once more with the bytes. The id of what was
        sent is remembered. None when Telegram refused. An edit to what the message
        shows already is not sent (True): nothing is uploaded."""
        return await self._send_picture(via, chat_id, method, png, caption, kwargs)

    async def _send_picture(
        self, via: Via, chat_id: int, method: str, png: bytes, caption: str, kwargs: dict[str, Any]
    ) -> Any:
        known = self.photos.file_id(png)
        picture = fingerprint(png)
        if known is not None:
            try:
                sent = await self.call(
                    chat_id,
                    method,
                    via=via,
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
            chat_id, method, via=via, picture=picture, **_picture(method, png, caption, kwargs)
        )
        self.photos.remember(png, sent)
        return sent

    async def call(
        self,
        chat_id: int,
        method: str,
        *,
        via: Via = DIRECT,
        strict: bool = False,
        picture: bytes | None = None,
        **kwargs: Any,
    ) -> Any:
        """Call ``bot.<method>(chat_id=..., **kwargs)`` through the gateway, for the chat
        ``chat_id`` is now; None when Telegram refused (``strict``: a BadRequest is
        raised instead, but for "not modified"). Forbidden in a private chat is raised
        (see :meth:`reach`). An edit that would change nothing the message shows is not
        sent (True; see :meth:`Gateway.call`, ``picture``: the digest of its file).
        """
        chat_id = await asyncio.to_thread(self.botstate.resolve_chat, chat_id)
        # A new message goes to the game's topic (Place.target leaves it out of edits).
        place = Place(chat_id, via.thread if chat_id < 0 else None)
        try:
            result = await self.gateway.call(
                place, method, via=via, strict=strict, picture=picture, **kwargs
            )
        except TopicClosed as closed:
            # Closed or deleted unknown to the bot: noted, the notice sent, and the
            # message goes to General.
            await self._lost(via, chat_id, closed)
            via = replace(via, thread=None)
            result = await self.gateway.call(
                Place(chat_id), method, via=via, strict=strict, picture=picture, **kwargs
            )
        return True if result is REPLACED else result


def _picture(
    method: str, media: str | bytes, caption: str, kwargs: dict[str, Any]
) -> dict[str, Any]:
    if method == "edit_message_media":
        photo = InputMediaPhoto(media, caption=caption, parse_mode=HTML)
        return {"media": photo, **kwargs}
    return {"photo": media, "caption": caption, "parse_mode": HTML, **kwargs}
