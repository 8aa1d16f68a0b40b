"""A player's private chat, for the outbox (:class:`PrivateChats`, which
:class:`tgbot.delivery.outbox.Outbox` builds on): their prompts, one live at a time (the
earlier one, and any try that may have arrived unknown, loses its buttons), a prompt
closed or stepped in place, and a player who cannot be written to (noted, and the group
told once per game).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any, Final

from telegram import Message
from telegram.error import Forbidden

from tgbot.delivery.sending import HTML, Sender
from tgbot.presenter import messages as m
from tgbot.presenter.messages import Slot
from tgbot.telegram.gateway import DIRECT, Via

# A prompt sent again after a try that may have arrived: at most this many messages
# before the new one are checked for that try's buttons.
UNKNOWN_PROMPTS: Final = 3
# A prompt is checked again this long after it was sent (see Outbox._recheck_later).
PROMPT_RECHECK_SECONDS: Final = 2.0


def _unknown_after(via: Via) -> int | None:
    """See :attr:`Delivery.unknown_after` (None outside a delivery)."""
    return via.delivery.unknown_after if via.delivery is not None else None


class PrivateChats(Sender):
    """Delivers to players' private chats, and tells the group who cannot be reached."""

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
