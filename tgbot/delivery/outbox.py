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

:class:`Outbox` keeps the group's board and lobby; it builds on
:class:`tgbot.delivery.private_chats.PrivateChats` (prompts, players who cannot be
reached) and :class:`tgbot.delivery.sending.Sender` (the calls, topics, pictures, markup).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Hashable, Sequence
from typing import Any

from telegram import InputFile, Message

from infra.botstate import StoredMessage
from infra.ratelimit import Priority
from tgbot.delivery.private_chats import PrivateChats
from tgbot.delivery.sending import HTML
from tgbot.presenter import messages as m
from tgbot.presenter.messages import Slot
from tgbot.telegram.gateway import Delivery, Via


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


class Outbox(PrivateChats):
    """Delivers messages to Telegram for one bot (see the module's docstring)."""

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

    # -- slots -------------------------------------------------------------------------

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
