"""The group's chooser of seats to hand to the computer (docs/rules.md §7.4).

The board has one button for it, whoever the game waits for: the creator or a group admin
presses it and the bot posts a small chooser in the group, a button per person's seat the
computer does not play yet (the awaited one first, marked ⏳) and one to close it. A seat
chosen is handed over as ``/kick`` hands it (the same command, event and announcement),
and the chooser then says whose seat the computer plays. Anyone else's press is refused
with an alert and changes nothing; so is a press on a chooser of a game that is over, or
of a seat the computer plays already (the chooser is drawn again without it).
"""

from __future__ import annotations

import asyncio

from telegram import CallbackQuery, Update, User

from domain.state import GameState
from tgbot.presenter import keyboards as kb
from tgbot.presenter.callback import CallbackData
from tgbot.presenter.icons import Icon
from tgbot.presenter.messages import Deleted, Text, TextEdit, Unbuttoned
from tgbot.presenter.texts import ALERT_NAME_LIMIT, Texts, esc, short
from tgbot.telegram import gateway
from tgbot.telegram.context import BotContext
from tgbot.telegram.handlers.common import deliver, group_press, press_chats, same_kind
from tgbot.telegram.handlers.group import may_manage
from tgbot.telegram.handlers.seats import hand_over


def chooser_text(state: GameState, texts: Texts) -> str:
    """The chooser's question, or what it says when no seat is left to hand over."""
    if not kb.handable_seats(state):
        return texts.t("handseat.none")
    question = texts.t("handseat.choose", mark=Icon.DEADLINE.emoji)
    return f"{Icon.COMPUTER.emoji} {question}"


async def on_press(
    update: Update, context: BotContext, query: CallbackQuery, data: CallbackData, user: User
) -> None:
    """The board's button (the chooser posted), or one of the chooser's."""
    press = await group_press(update, context, query, data, user)
    if press is None:
        return
    chat, message, texts, state, version = (
        press.chat,
        press.message,
        press.texts,
        press.state,
        press.version,
    )
    services = context.services
    chats = await press_chats(context, query)
    on_chooser = data.action in kb.CHOOSER_ACTIONS
    if state.chat_id not in chats:
        await gateway.answer_press(query, texts.t("error.stale_button"), show_alert=True)
        return
    kind = kb.CHOOSER_ACTIONS if on_chooser else {kb.SEATS_MENU}
    if not same_kind(message, services.callback_keys, chats, data.game, kind):
        await gateway.answer_press(query, texts.t("error.wrong_message"), show_alert=True)
        return
    if state.phase != "playing":
        await gateway.answer_press(query, texts.t("handseat.game_over"), show_alert=True)
        if on_chooser:  # its buttons can do nothing more
            await deliver(context, Unbuttoned(chat.id, message.message_id))
        return
    if not await may_manage(context, state, chat.id, user):
        await gateway.answer_press(query, texts.t("lobby.only_creator"), show_alert=True)
        return
    if data.action == kb.SEATS_MENU:
        if not kb.handable_seats(state):
            await gateway.answer_press(query, texts.t("handseat.none"), show_alert=True)
            return
        await gateway.answer_press(query)
        rows = kb.seat_chooser_rows(state, texts)
        await deliver(
            context,
            Text(chat.id, chooser_text(state, texts), kb.keyboard(rows), data.game, version),
        )
        return
    if data.action == kb.SEATS_CLOSE:
        await gateway.answer_press(query)
        await deliver(context, Deleted(chat.id, message.message_id))
        return
    player = data.player
    if player is None:
        await gateway.answer_press(query, texts.t("error.forged_button"), show_alert=True)
        return
    name = esc(state.names.get(player, "?"))
    if player in state.handed_over:  # an alert: plain text, in 200 characters
        alerted = short(state.names.get(player, "?"), ALERT_NAME_LIMIT)
        refused: str | None = texts.t("handseat.already", name=alerted)
    else:
        refused = await hand_over(update, context, data.game, state, user, player, texts)
    if refused is None:
        await gateway.answer_press(query)
        await deliver(
            context, TextEdit(chat.id, message.message_id, texts.t("kick.done", name=name))
        )
        return
    await gateway.answer_press(query, refused, show_alert=True)
    # Drawn again as the game is now: a seat handed over meanwhile is no longer offered.
    state, version = await asyncio.to_thread(services.load, data.game)
    rows = kb.seat_chooser_rows(state, texts) if kb.handable_seats(state) else []
    redrawn = TextEdit(
        chat.id,
        message.message_id,
        chooser_text(state, texts),
        kb.keyboard(rows),
        data.game,
        version,
    )
    await deliver(context, redrawn)
