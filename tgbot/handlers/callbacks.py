"""Button presses. Every press is answered; a press that cannot count changes nothing.

The path of a press: decode (forged → alert), then for a player's prompt: the keyboard's
game version must still hold (stale → alert), the presser must own the keyboard (foreign →
alert), then the command goes to the game service with the update id as idempotency key. A
second press of the same button finds the version moved on and is refused as stale.
"""

from __future__ import annotations

import asyncio
import logging

from telegram import CallbackQuery, Message, Update, User

from domain.cards import Action, card
from domain.commands import ComeBack
from domain.moves import canonical, legal_moves
from domain.state import GameState
from domain.view import view_for
from tgbot import invitations
from tgbot import keyboards as kb
from tgbot.callback import BadCallback, CallbackData, decode
from tgbot.context import BotContext
from tgbot.handlers import between_games, group
from tgbot.handlers.common import error_text, remember, run, still_valid, user_texts
from tgbot.notifier import Outbox, board_png, prompt_caption
from tgbot.texts import Texts

log = logging.getLogger(__name__)


async def on_press(update: Update, context: BotContext) -> None:
    query = update.callback_query
    if query is None:
        return
    user = query.from_user
    texts = user_texts(context, user)
    try:
        data = decode(query.data or "", context.services.callback_keys)
    except BadCallback:
        await query.answer(texts.t("error.forged_button"), show_alert=True)
        return
    press = kb.Press.of(data)
    try:
        if press.action in kb.LOBBY_ACTIONS:
            await _lobby_press(update, context, query, data, press, user)
        elif press.action in kb.PROMPT_ACTIONS:
            await _prompt_press(update, context, query, data, press, user, texts)
        elif press.action == kb.COME_BACK:
            await _come_back(update, context, query, data, user, texts)
        elif press.action in invitations.ACTIONS:
            await between_games.on_press(update, context, query, data, user)
        else:
            await query.answer(texts.t("error.forged_button"), show_alert=True)
    except Exception:
        log.exception("press %s failed", press)
        await _answer_once(query, texts.t("error.internal"))
        raise


async def _answer_once(query: CallbackQuery, text: str) -> None:
    try:
        await query.answer(text, show_alert=True)
    except Exception:  # already answered
        log.debug("callback already answered", exc_info=True)


async def _lobby_press(
    update: Update,
    context: BotContext,
    query: CallbackQuery,
    data: CallbackData,
    press: kb.Press,
    user: User,
) -> None:
    chat = update.effective_chat
    if chat is None:
        await query.answer()
        return
    await remember(context, user)
    texts = context.services.texts_for_chat(chat.id, user.language_code)
    state, _ = await asyncio.to_thread(context.services.load, data.game)
    if state.phase != "lobby" or state.chat_id not in await _chat_ids(context, chat.id):
        await query.answer(texts.t("error.stale_button"), show_alert=True)
        return
    if press.action in (kb.JOIN, kb.LEAVE, kb.START, kb.CANCEL):
        reply = await group.lobby_action(update, context, data.game, press.action, user, texts)
    elif press.action in (kb.SET_EDITION, kb.SET_TIMER, kb.SET_LANGUAGE):
        reply = await group.change_setting(update, context, data.game, press, user, texts)
    else:  # SETTINGS or LOBBY: switch the lobby's keyboard
        if press.action == kb.SETTINGS and not await group.may_manage(
            context, state, chat.id, user
        ):
            reply = group.Reply(texts.t("lobby.only_creator"), alert=True)
        else:
            settings = press.action == kb.SETTINGS
            await group.show_lobby(context, data.game, settings=settings)
            reply = group.Reply()
    if reply.url is not None:
        await query.answer(url=reply.url)
    else:
        await query.answer(reply.text or None, show_alert=reply.alert)


async def _chat_ids(context: BotContext, chat_id: int) -> set[int]:
    earlier = await asyncio.to_thread(context.services.botstate.chats_migrated_to, chat_id)
    return {chat_id, *earlier}


async def _prompt_press(
    update: Update,
    context: BotContext,
    query: CallbackQuery,
    data: CallbackData,
    press: kb.Press,
    user: User,
    texts: Texts,
) -> None:
    message = query.message
    if not isinstance(message, Message):
        await query.answer(texts.t("error.stale_button"), show_alert=True)
        return
    if message.chat.id != user.id:
        await query.answer(texts.t("error.not_your_button"), show_alert=True)
        return
    services = context.services
    state, version = await asyncio.to_thread(services.load, data.game)
    if not state.is_player(user.id):
        await query.answer(texts.t("error.not_your_button"), show_alert=True)
        return
    if state.phase != "playing" or not await still_valid(
        context.services, data.game, data.version, version
    ):
        await query.answer(texts.t("error.stale_button"), show_alert=True)
        return
    pending = state.pending
    if pending is None or pending.player != user.id:
        await query.answer(error_text(texts, "not_your_turn"), show_alert=True)
        return
    moves = legal_moves(state, user.id)
    if press.action in kb.COMMAND_ACTIONS:
        try:
            command = kb.command_for(state, user.id, press)
        except kb.BadPress:
            await query.answer(texts.t("error.forged_button"), show_alert=True)
            return
        if canonical(command) not in moves:
            await query.answer(texts.t("error.forged_button"), show_alert=True)
            return
        error = await run(context, data.game, command, update)
        if error is not None:
            await query.answer(error_text(texts, error), show_alert=True)
        else:
            await query.answer()
        return
    await _navigate(context, query, message, data.game, version, state, user, press, texts)


async def _come_back(
    update: Update,
    context: BotContext,
    query: CallbackQuery,
    data: CallbackData,
    user: User,
    texts: Texts,
) -> None:
    """ "I'm back": an away player plays again (their own private message only)."""
    message = query.message
    if not isinstance(message, Message) or message.chat.id != user.id:
        await query.answer(texts.t("error.not_your_button"), show_alert=True)
        return
    error = await run(context, data.game, ComeBack(user.id), update)
    if error is not None:
        await query.answer(error_text(texts, error), show_alert=True)
        return
    await query.answer(texts.t("bot.welcome_back"))
    await message.edit_reply_markup(None)


async def _navigate(
    context: BotContext,
    query: CallbackQuery,
    message: Message,
    game_id: str,
    version: int,
    state: GameState,
    user: User,
    press: kb.Press,
    texts: Texts,
) -> None:
    """A step inside a decision: redraw the prompt's keyboard (and preview)."""
    moves = legal_moves(state, user.id)
    key = context.services.callback_key
    labels: dict[tuple[int, int], str] = {}
    orientations: str | None = None
    try:
        match press.action:
            case kb.CARD if press.card is not None and press.card in state.hand(user.id):
                rows, labels = kb.card_rows(state, moves, press.card, texts)
                preview = True
                if labels and kb.is_path_card(state, press.card):
                    # both ways, as the buttons name them
                    orientations = card(state.edition, press.card).kind
            case kb.PASS_MENU:
                rows = kb.pass_rows(state, user.id, moves, press.value or 0, texts)
                preview = False
            case kb.REMOVE_MENU:
                rows = kb.remove_rows(
                    state, user.id, moves, press.page or 0, press.value or 0, texts
                )
                preview = False
            case kb.MENU:
                rows = kb.root_rows(state, user.id, moves, texts)
                preview = True
            case _:
                await query.answer(texts.t("error.forged_button"), show_alert=True)
                return
    except kb.BadPress:
        await query.answer(texts.t("error.forged_button"), show_alert=True)
        return
    markup = kb.markup(rows, game_id, version, key)
    await query.answer()  # at once: the picture below takes a moment
    if preview:
        services = context.services
        now_ms, tz = services.service.clock_ms(), services.zone(state.chat_id)
        caption = prompt_caption(state, user.id, texts, now_ms, tz)
        if press.action == kb.CARD and press.card is not None:
            caption += "\n\n" + choose_text(state, press.card, texts)
        png = await asyncio.to_thread(board_png, view_for(state, user.id), labels, orientations)
        await Outbox(context.bot, context.services).send_picture(
            message.chat.id,
            "edit_message_media",
            png,
            caption=caption,
            message_id=message.message_id,
            reply_markup=markup,
        )
    else:
        await message.edit_reply_markup(markup)


def choose_text(state: GameState, card_id: int, texts: Texts) -> str:
    """What the player is asked after picking a card."""
    played = card(state.edition, card_id)
    name = texts.card_name(state.edition, card_id)
    if played.path is not None:
        return texts.t("turn.choose_cell", card=name)
    if played.action is Action.ROCKFALL:
        return texts.t("turn.choose_path")
    if played.action is Action.MAP:
        return texts.t("turn.choose_goal")
    return texts.t("turn.choose_player", card=name)
