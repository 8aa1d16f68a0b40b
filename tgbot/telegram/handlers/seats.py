"""A running game's seats handed to the computer (docs/rules.md §7.4).

``/leave`` asks the player first (two buttons only they may press), then the computer plays
their seat to the end, with their dwarf, hand and gold. The creator or a group admin hands
an absent player's seat over with the board's chooser (:mod:`tgbot.telegram.handlers.seat_chooser`)
or ``/kick`` in reply to that player's message; that player's own next press (``/back``,
"I'm back", a move) takes it back.
"""

from __future__ import annotations

import asyncio

from telegram import CallbackQuery, Message, Update, User

from domain.commands import HandSeatToComputer
from domain.state import GameState, PlayerId
from tgbot.presenter import keyboards as kb
from tgbot.presenter.callback import CallbackData
from tgbot.presenter.messages import Text, TextEdit
from tgbot.presenter.texts import Texts, esc
from tgbot.telegram import gateway
from tgbot.telegram.context import BotContext
from tgbot.telegram.handlers import group
from tgbot.telegram.handlers.common import (
    acted_by,
    deliver,
    display_name,
    error_text,
    message_presses,
    press_chats,
    run,
)
from tgbot.telegram.handlers.group import active_game, may_manage
from tgbot.telegram.handlers.topics import topic_of


def can_leave(state: GameState, player: PlayerId) -> str | None:
    """Why ``player`` cannot leave the running game (an error code), or None."""
    if not state.is_player(player) or state.is_computer(player):
        return "not_a_player"
    if state.handed_over.get(player) == "left":
        return "left_the_game"
    return None


async def leave(update: Update, context: BotContext) -> None:
    """``/leave``: before the game starts, the seat is left at once; in a running game,
    the player is asked first."""
    found = await active_game(update, context)
    if found is None:
        return
    game_id, texts = found
    state, _ = await asyncio.to_thread(context.services.load, game_id)
    if state.phase == "playing":
        await ask_leave(update, context, game_id, texts)
    else:
        await group.leave(update, context)


async def ask_leave(update: Update, context: BotContext, game_id: str, texts: Texts) -> None:
    """``/leave`` in a running game: the question, with the player's two buttons."""
    user, message = update.effective_user, update.effective_message
    if user is None or message is None:
        return
    services = context.services
    state, version = await asyncio.to_thread(services.load, game_id)
    refused = can_leave(state, user.id)
    if refused is not None:
        await gateway.reply(message, error_text(texts, refused))
        return
    question = texts.t("leave.confirm", name=esc(display_name(user)))
    keys = kb.keyboard(kb.leave_rows(texts, user.id))
    await deliver(context, Text(state.chat_id, question, keys, game_id, version))


async def kick(update: Update, context: BotContext) -> None:
    """``/kick`` in reply to a player's message: the creator or an admin hands that
    player's seat to the computer."""
    found = await active_game(update, context)
    chat, user, message = update.effective_chat, update.effective_user, update.effective_message
    if found is None or chat is None or user is None or message is None:
        return
    game_id, texts = found
    state, _ = await asyncio.to_thread(context.services.load, game_id)
    replied = message.reply_to_message
    target = replied.from_user if replied is not None else None
    if state.phase != "playing":
        await gateway.reply(message, texts.t("kick.not_running"))
        return
    if target is None:
        await gateway.reply(message, texts.t("kick.usage"))
        return
    answer = await hand_over(update, context, game_id, state, user, target.id, texts)
    await gateway.reply(message, answer or texts.t("kick.done", name=esc(state.names[target.id])))


async def hand_over(
    update: Update,
    context: BotContext,
    game_id: str,
    state: GameState,
    user: User,
    player: PlayerId,
    texts: Texts,
) -> str | None:
    """``user`` hands ``player``'s seat to the computer: None when done, else why not."""
    chat = update.effective_chat
    chat_id = chat.id if chat is not None else state.chat_id
    if not await may_manage(context, state, chat_id, user):
        return texts.t("lobby.only_creator")
    if player == user.id:
        return texts.t("kick.self")
    if not state.is_player(player):
        return error_text(texts, "not_a_player")
    # The creator acts for an admin who is not at the table (the metadata names the admin),
    # unless the seat is the creator's own: handing over one's own seat is leaving.
    actor = user.id
    if not state.is_player(user.id) and state.creator is not None and state.creator != player:
        actor = state.creator
    command = HandSeatToComputer(actor, player)
    error = await run(context, game_id, command, update, acted_by(user))
    return error_text(texts, error) if error is not None else None


async def on_press(
    update: Update, context: BotContext, query: CallbackQuery, data: CallbackData, user: User
) -> None:
    """The leave question's answer, or the hand-over button of a board drawn before the
    chooser (it named the awaited player)."""
    chat, message = update.effective_chat, query.message
    services = context.services
    if chat is None or not isinstance(message, Message) or data.player is None:
        await gateway.answer_press(query)
        return
    texts = await asyncio.to_thread(
        services.texts_for_chat, chat.id, user.language_code, topic_of(message)
    )
    state, _ = await asyncio.to_thread(services.load, data.game)
    if state.chat_id != chat.id or state.phase != "playing":
        await gateway.answer_press(query, texts.t("error.stale_button"), show_alert=True)
        return
    if data.action == kb.HAND_OVER:
        refused = await hand_over(update, context, data.game, state, user, data.player, texts)
        await gateway.answer_press(query, refused, show_alert=refused is not None)
        return
    if data.player != user.id:
        await gateway.answer_press(query, texts.t("error.not_your_button"), show_alert=True)
        return
    if not await _on_its_question(context, query, data):
        await gateway.answer_press(query, texts.t("error.wrong_message"), show_alert=True)
        return
    name = esc(display_name(user))
    if data.action == kb.LEAVE_NO:
        await gateway.answer_press(query)
        await _edit(context, chat.id, message, texts.t("leave.stayed", name=name))
        return
    error = await run(context, data.game, HandSeatToComputer(user.id, user.id), update)
    if error is not None:
        await gateway.answer_press(query, error_text(texts, error), show_alert=True)
        return
    await gateway.answer_press(query)
    await _edit(context, chat.id, message, texts.t("leave.done", name=name))


async def _on_its_question(context: BotContext, query: CallbackQuery, data: CallbackData) -> bool:
    """Whether a leave question's answer came on that very question (its game, its
    player): copied onto another message (an admin's cancel question, another player's
    leave question) it would rewrite that message."""
    chats = await press_chats(context, query)
    return any(
        press.game == data.game and press.player == data.player and press.action in kb.LEAVE_ANSWERS
        for press in message_presses(query.message, context.services.callback_keys, chats)
    )


async def _edit(context: BotContext, chat_id: int, message: Message, text: str) -> None:
    await deliver(context, TextEdit(chat_id, message.message_id, text))
