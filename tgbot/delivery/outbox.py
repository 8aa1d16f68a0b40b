"""The outbox: it turns the presenter's messages into calls to the gateway.

It delivers the presenter's messages (:mod:`tgbot.presenter.messages`): it keeps the id of
each message that fills a slot (the lobby, the board of the round, a player's live prompt)
to edit or supersede it later, draws pictures off the event loop and sends a picture
Telegram already has by its ``file_id``, turns plain keyboards into Telegram's markup, and
handles a user who blocked the bot. The calls themselves, their pacing and their retries
are the gateway's (:mod:`tgbot.telegram.gateway`); the outbox says how each message is paced
(:func:`pace`): prompts go before other messages, and those before board and lobby
redraws; a board redraw still waiting is replaced by a newer one of the same game and
chat. A recorded delivery (:mod:`tgbot.delivery.driver`) is handed in with its message
(:meth:`Outbox.deliver_one`) and carried by each of its calls.

A game opened in a forum topic is played there: each of its group messages goes to that
topic (:meth:`Outbox.topic_for`, from the game's creation event). While the topic is
closed or deleted, they go to General, where one notice names the topic, and the game's
lobby and board are posted anew there; once it is open again, they go back.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Hashable, Sequence
from dataclasses import replace
from functools import lru_cache
from typing import Any, Final, Protocol

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
from telegram.error import BadRequest, Forbidden

from infra.botstate import BotState, StoredMessage
from infra.locks import Locks
from infra.lru import LRU
from infra.ratelimit import Priority, RateLimiter
from tgbot.delivery.photos import PhotoCache
from tgbot.presenter import messages as m
from tgbot.presenter import palette, render
from tgbot.presenter.callback import encode
from tgbot.presenter.keyboards import Keyboard
from tgbot.presenter.messages import Picture, Slot
from tgbot.telegram.edits import ShownEdits, fingerprint
from tgbot.telegram.gateway import DIRECT, REPLACED, Delivery, Gateway, Place, TopicClosed, Via

log = logging.getLogger(__name__)

# A prompt sent again after a try that may have arrived: at most this many messages
# before the new one are checked for that try's buttons.
UNKNOWN_PROMPTS: Final = 3
# A prompt is checked again this long after it was sent (see Outbox._recheck_later).
PROMPT_RECHECK_SECONDS: Final = 2.0
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


def _unknown_after(via: Via) -> int | None:
    """See :attr:`Delivery.unknown_after` (None outside a delivery)."""
    return via.delivery.unknown_after if via.delivery is not None else None


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

    # -- the port the handlers and the announcer use ---------------------------------

    async def deliver(self, messages: Sequence[m.Message]) -> list[Any]:
        """Deliver ``messages`` in order; what Telegram answered to each (None: nothing
        was sent or it was refused)."""
        return [await self.deliver_one(message) for message in messages]

    async def deliver_one(self, message: m.Message, delivery: Delivery | None = None) -> Any:
        """Deliver ``message``: what Telegram answered (None: nothing was sent or it was
        refused). Its calls carry out ``delivery``, if given (see :class:`Delivery`)."""
        priority, coalesce = pace(message)
        thread = await self.topic_for(message, delivery)
        game = getattr(message, "game", "")
        return await self._deliver_one(Via(priority, coalesce, delivery, thread, game), message)

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

    async def _deliver_one(self, via: Via, message: m.Message) -> Any:
        match message:
            case m.Text() if message.about:
                return await self._unreachable(via, message)
            case m.Text():
                return await self._text(via, message)
            case m.Board():
                return await self._board(via, message)
            case m.Prompt():
                return await self._prompt(via, message)
            case m.ClosedPrompt():
                return await self._closed(via, message)
            case m.PrivateText():
                return await self.reach(
                    message.player,
                    message.game,
                    message.unreachable,
                    self.call(
                        message.player,
                        "send_message",
                        via=via,
                        text=message.text,
                        parse_mode=HTML,
                        reply_markup=self.markup(
                            message.keyboard, message.game, message.version, message.player
                        ),
                    ),
                    via,
                )
            case m.PromptStep():
                return await self._step(via, message)
            case m.TextEdit():
                return await self.call(
                    message.chat,
                    "edit_message_text",
                    via=via,
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
                    via, message.chat, message.picture, message.caption, markup, message.message_id
                )
            case m.Animation():
                return await self.call(
                    message.chat,
                    "send_animation",
                    via=via,
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
                    chat, "edit_message_reply_markup", via=via, message_id=message.message_id
                )
            case m.Deleted():
                deleted = await self.call(
                    message.chat, "delete_message", via=via, message_id=message.message_id
                )
                if deleted is None:
                    return await self.call(
                        message.chat,
                        "edit_message_reply_markup",
                        via=via,
                        message_id=message.message_id,
                    )
                return deleted
            case m.Lobby():
                return await self._lobby(via, message)
            case m.LobbyClosed():
                return await self._lobby_closed(via, message)
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

    async def _board(self, via: Via, message: m.Board) -> Any:
        chat, stored = await self._board_message(message.game, message.chat)
        markup = self.markup(message.keyboard, message.game, message.version, chat)
        if stored is not None and not message.new:
            done = await self._picture(
                via, chat, message.picture, message.caption, markup, stored.message_id
            )
            if done is not None:
                return done
        sent = await self._picture(via, chat, message.picture, message.caption, markup)
        if isinstance(sent, Message):
            await self._save(
                message.game, sent.chat.id, Slot.BOARD, sent.message_id, message.version
            )
        return sent

    async def _prompt(self, via: Via, message: m.Prompt) -> Any:
        player, game = message.player, message.game
        png = await asyncio.to_thread(self.draw, message.picture)
        markup = self.markup(message.keyboard, game, message.version, player)
        sent = await self.reach(
            player,
            game,
            message.unreachable,
            self.send_picture(
                player, "send_photo", png, caption=message.caption, reply_markup=markup, via=via
            ),
            via,
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
            for message_id in older + self._doubtful(via, sent.message_id, older):
                if message_id != sent.message_id:
                    await self._unbutton(via, player, game, message_id)
            self._recheck_later(via, player, game, sent.message_id)
        return sent

    @staticmethod
    def _doubtful(via: Via, before: int, known: Sequence[int] = ()) -> list[int]:
        """Within a delivery whose earlier try (or a superseded one's) may have arrived
        unknown to anyone: the messages before ``before`` that may be that try (it lies
        after the chat's last message known sent, :attr:`Delivery.unknown_after`)."""
        after = _unknown_after(via)
        if after is None:
            return []
        start = max(after + 1, before - UNKNOWN_PROMPTS)
        return [i for i in range(start, before) if i not in known]

    async def _unbutton(self, via: Via, player: int, game: str, message_id: int) -> None:
        await self.reach(
            player,
            game,
            None,
            self.call(player, "edit_message_reply_markup", via=via, message_id=message_id),
        )

    def _recheck_later(self, via: Via, player: int, game: str, message_id: int) -> None:
        """In a moment, make sure the prompt just sent is the player's live one: another
        instance (a handler's ``/hand``, a delivery in flight) may have sent one at the
        same time, each missing the other's. The one the database does not name loses
        its buttons."""

        async def recheck() -> None:
            await asyncio.sleep(PROMPT_RECHECK_SECONDS)
            live = await asyncio.to_thread(self.botstate.fresh_message, game, player, Slot.PROMPT)
            if live is not None and live.message_id != message_id:
                await self._unbutton(via, player, game, message_id)

        task = asyncio.create_task(recheck(), name=f"recheck prompt {game} {player}")
        self._rechecks.add(task)
        task.add_done_callback(self._rechecks.discard)

    async def _closed(self, via: Via, message: m.ClosedPrompt) -> Any:
        """The decision's prompt shows it was made, without buttons. With no live prompt
        on record, the closing is sent as a message when the player is to read it, or
        when a try of the prompt may have arrived unknown (its buttons are removed: the
        new message bounds where it may lie)."""
        player, game = message.player, message.game
        markup = self.markup(message.keyboard, game, message.version, player)
        stored = await asyncio.to_thread(self.botstate.fresh_message, game, player, Slot.PROMPT)
        if stored is None:
            if not message.or_send and _unknown_after(via) is None:
                return None
            sent = await self.reach(
                player,
                game,
                message.unreachable,
                self.call(
                    player,
                    "send_message",
                    via=via,
                    text=message.caption,
                    parse_mode=HTML,
                    reply_markup=markup,
                ),
                via,
            )
            if isinstance(sent, Message):
                for message_id in self._doubtful(via, sent.message_id):
                    await self._unbutton(via, player, game, message_id)
            return sent
        done = await self.reach(
            player,
            game,
            None,
            self.call(
                player,
                "edit_message_caption",
                via=via,
                message_id=stored.message_id,
                caption=message.caption,
                parse_mode=HTML,
                reply_markup=markup,
            ),
        )
        await self._forget(game, player, Slot.PROMPT)
        for message_id in self._doubtful(via, stored.message_id):
            await self._unbutton(via, player, game, message_id)
        return done

    async def _step(self, via: Via, message: m.PromptStep) -> Any:
        markup = self.markup(message.keyboard, message.game, message.version, message.chat)
        if message.picture is None:
            return await self.call(
                message.chat,
                "edit_message_caption",
                via=via,
                message_id=message.message_id,
                caption=message.caption,
                parse_mode=HTML,
                reply_markup=markup,
            )
        return await self._picture(
            via, message.chat, message.picture, message.caption, markup, message.message_id
        )

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

    async def _lobby(self, via: Via, message: m.Lobby) -> Any:
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
                deleted = await self.call(
                    chat, "delete_message", via=via, message_id=stored.message_id
                )
                if deleted is None:
                    await self.call(
                        chat, "edit_message_reply_markup", via=via, message_id=stored.message_id
                    )
                stored = None
            message_id: int | None = None
            if stored is not None:
                done = await self.call(
                    chat,
                    "edit_message_text",
                    via=via,
                    message_id=stored.message_id,
                    text=message.text,
                    parse_mode=HTML,
                    reply_markup=markup,
                )
                message_id = stored.message_id if done is not None else None
            if message_id is None:
                sent = await self.call(
                    chat,
                    "send_message",
                    via=via,
                    text=message.text,
                    parse_mode=HTML,
                    reply_markup=markup,
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

    async def _lobby_closed(self, via: Via, message: m.LobbyClosed) -> Any:
        async with self.lock(message.game):
            chat = await asyncio.to_thread(self.botstate.resolve_chat, message.chat)
            stored = await asyncio.to_thread(
                self.botstate.fresh_message, message.game, chat, Slot.LOBBY
            )
            if stored is None:
                if message.or_send:
                    return await self.call(
                        chat, "send_message", via=via, text=message.or_send, parse_mode=HTML
                    )
                return None
            done = await self.call(
                chat,
                "edit_message_text",
                via=via,
                message_id=stored.message_id,
                text=message.text,
                parse_mode=HTML,
            )
            await self._forget(message.game, chat, Slot.LOBBY)
            await self._forget(message.game, chat, Slot.SETTINGS)
        # Whoever still waits holds this lock and finds the lobby over.
        self._locks.pop(message.game, None)
        return done

    async def _text(self, via: Via, message: m.Text) -> Any:
        markup = self.markup(message.keyboard, message.game, message.version, message.chat)
        return await self.call(
            message.chat,
            "send_message",
            via=via,
            text=message.text,
            parse_mode=HTML,
            reply_markup=markup,
        )

    async def _unreachable(self, via: Via, message: m.Text, again: bool = False) -> Any:
        """The group told which players cannot be written to: once per game and player
        (``again``: they opened the chat and blocked it since), noted. One at a time:
        the group's notice and a player's prompt that found them unreachable, delivered
        side by side, tell the group once."""
        async with self._telling:
            if not again:
                told = await asyncio.to_thread(self._told, message.game, message.about)
                if told:
                    return None
            sent = await self._text(via, message)
            message_id = sent.message_id if isinstance(sent, Message) else 0
            for player in message.about:
                await self._save(message.game, player, Slot.UNREACHABLE, message_id, 0)
            return sent

    def _told(self, game: str, players: Sequence[int]) -> bool:
        """Whether the group was told every one of ``players`` cannot be written to."""
        return all(self.botstate.message(game, p, Slot.UNREACHABLE) is not None for p in players)

    # -- private chats -----------------------------------------------------------------

    async def reach(
        self, player: int, game: str, notice: m.Text | None, call: Any, via: Via = DIRECT
    ) -> Any:
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
                await self._unreachable(via, notice, again=was_open)
            return None

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
