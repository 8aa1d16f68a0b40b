"""Button presses. Every press is answered; a press that cannot count changes nothing.

The path of a press: decode (forged → alert), then for a player's prompt: the keyboard's
game version must still hold (stale → alert), the presser must own the keyboard (foreign →
alert), then the command goes to the game service with the update id as idempotency key.
A second press of a button whose action just took effect (a double tap) is answered
quietly: it changed nothing, and nothing went wrong. Steps inside a decision are drawn by
the presenter and delivered through the outbox.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Collection

from telegram import CallbackQuery, Message, Update, User

from domain import events as ev
from domain.commands import CancelGame, ComeBack
from domain.events import Event
from domain.moves import canonical, legal_moves
from tgbot import invitations
from tgbot import keyboards as kb
from tgbot.callback import BadCallback, CallbackData, decode
from tgbot.context import BotContext
from tgbot.handlers import (
    between_games,
    group,
    language,
    practice,
    roundlog,
    seat_chooser,
    seats,
)
from tgbot.handlers.common import (
    acted_by,
    error_text,
    group_press,
    press_chats,
    remember,
    run,
    same_kind,
    still_valid,
    user_texts,
)
from tgbot.presenter import prompt
from tgbot.presenter.icons import Icon
from tgbot.presenter.messages import Alert, Slot, TextEdit, Unbuttoned
from tgbot.texts import Texts

log = logging.getLogger(__name__)

# A decision a player made themselves (its player field names them).
MADE = (
    ev.PathPlaced,
    ev.ActionPlayed,
    ev.CardsDiscarded,
    ev.FrontCardRemoved,
    ev.GoldPicked,
    ev.PlayerCameBack,
)


async def on_press(update: Update, context: BotContext) -> None:
    query = update.callback_query
    if query is None:
        return
    user = query.from_user
    texts = await user_texts(context, user)
    try:
        # A button is good only in the chat it was sent to (under any id the chat had).
        chats = await press_chats(context, query)
        data = decode(query.data or "", context.services.callback_keys, chats)
    except BadCallback:
        await query.answer(texts.t("error.forged_button"), show_alert=True)
        return
    press = kb.Press.of(data)
    try:
        if press.action in kb.LOBBY_ACTIONS:
            await _lobby_press(update, context, query, data, press, user)
        elif press.action == kb.PRACTICE:
            await practice.on_press(update, context, query, data, user)
        elif press.action in kb.SEAT_ACTIONS:
            await seats.on_press(update, context, query, data, user)
        elif press.action in kb.HANDING_ACTIONS:
            await seat_chooser.on_press(update, context, query, data, user)
        elif press.action in kb.LOG_ACTIONS:
            await roundlog.on_press(update, context, query, data, user)
        elif press.action == kb.LANGUAGE_PICK:
            await language.on_press(update, context, query, data, user)
        elif press.action in kb.RUNNING_ACTIONS:
            await _stop_press(update, context, query, data, press, user)
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


async def _on_its_message(
    context: BotContext, query: CallbackQuery, data: CallbackData, actions: Collection[str]
) -> bool:
    """Whether a press that changes the message it came on came on a message of its own
    kind (the game's prompt, its question...): a button copied onto another message
    changes nothing there."""
    chats = await press_chats(context, query)
    return same_kind(query.message, context.services.callback_keys, chats, data.game, actions)


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
    texts = await asyncio.to_thread(context.services.texts_for_chat, chat.id, user.language_code)
    state, _ = await asyncio.to_thread(context.services.load, data.game)
    if state.chat_id not in await _chat_ids(context, chat.id):
        await query.answer(texts.t("error.stale_button"), show_alert=True)
        return
    if state.phase != "lobby":
        # Start or Join pressed again just as the game began: nothing to say.
        if state.phase == "playing" and (
            press.action == kb.START or (press.action == kb.JOIN and state.is_player(user.id))
        ):
            await query.answer()
        else:
            await query.answer(texts.t("error.stale_button"), show_alert=True)
        return
    if press.action in (
        kb.JOIN,
        kb.LEAVE,
        kb.START,
        kb.CANCEL,
        kb.ADD_COMPUTER,
        kb.REMOVE_COMPUTER,
    ):
        reply = await group.lobby_action(update, context, data.game, press.action, user, texts)
        if reply.alert and await _took_effect(context, data.game, press.action, user.id):
            reply = group.Reply()  # a second tap: the first one counted
    elif press.action in kb.SETTING_ACTIONS:
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


async def _took_effect(context: BotContext, game_id: str, action: str, user: int) -> bool:
    """Whether what a refused lobby press asked for is done already: the game started
    (Start), or the presser is seated (Join)."""
    state, _ = await asyncio.to_thread(context.services.load, game_id)
    if action == kb.START:
        return state.phase == "playing"
    return action == kb.JOIN and state.is_player(user)


async def _chat_ids(context: BotContext, chat_id: int) -> set[int]:
    earlier = await asyncio.to_thread(context.services.botstate.chats_migrated_to, chat_id)
    return {chat_id, *earlier}


async def _stop_press(
    update: Update,
    context: BotContext,
    query: CallbackQuery,
    data: CallbackData,
    press: kb.Press,
    user: User,
) -> None:
    """The answer to /cancel's question in a running game: cancel it, or play on."""
    found = await group_press(update, context, query, data, user)
    if found is None:
        return
    chat, message, texts, state = found.chat, found.message, found.texts, found.state
    if state.chat_id not in await _chat_ids(context, chat.id) or state.phase != "playing":
        await query.answer(texts.t("error.stale_button"), show_alert=True)
        return
    if not await group.may_manage(context, state, chat.id, user):
        await query.answer(texts.t("lobby.only_creator"), show_alert=True)
        return
    if not await _on_its_message(context, query, data, kb.RUNNING_ACTIONS):
        await query.answer(texts.t("error.wrong_message"), show_alert=True)
        return
    if press.action == kb.KEEP:
        await query.answer()
        await _deliver(context, TextEdit(chat.id, message.message_id, texts.t("cancel.kept")))
        return
    actor = state.creator if state.creator is not None else user.id
    error = await run(context, data.game, CancelGame(actor), update, acted_by(user))
    if error is not None:
        await query.answer(error_text(texts, error), show_alert=True)
        return
    await query.answer()
    await _deliver(context, TextEdit(chat.id, message.message_id, texts.t("cancel.done")))


async def _deliver(context: BotContext, *messages: object) -> None:
    outbox = context.services.outbox
    if outbox is not None:
        await outbox.deliver(messages)  # type: ignore[arg-type]


async def _since(context: BotContext, game_id: str, version: int) -> list[Event]:
    return await asyncio.to_thread(context.services.service.events, game_id, after_version=version)


async def just_done(context: BotContext, game_id: str, drawn: int, player: int) -> bool:
    """Whether the decision the keyboard drawn at ``drawn`` was for has since been made by
    ``player`` themselves: a press on it is a second tap of a button that took effect."""
    for event in await _since(context, game_id, drawn):
        if isinstance(event, ev.DecisionTimedOut):
            return False  # their time ran out: the button is out of date, say so
        if isinstance(event, MADE) and event.player == player:
            return True
        if isinstance(event, ev.TheftResolved) and event.thief == player:
            return True
    return False


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
    valid = await still_valid(services, data.game, data.version, version)
    if state.phase != "playing" or not valid:
        if await just_done(context, data.game, data.version, user.id):
            await query.answer()  # a double tap: the first one counted
        else:
            await query.answer(texts.t("error.stale_button"), show_alert=True)
        return
    pending = state.pending
    if pending is None or pending.player != user.id:
        await query.answer(error_text(texts, "not_your_turn"), show_alert=True)
        return
    if press.action in kb.COMMAND_ACTIONS:
        try:
            command = kb.command_for(state, user.id, press)
        except kb.BadPress:
            await query.answer(texts.t("error.forged_button"), show_alert=True)
            return
        if canonical(command) not in legal_moves(state, user.id):
            await query.answer(texts.t("error.forged_button"), show_alert=True)
            return
        error = await run(context, data.game, command, update)
        if error is not None and not await just_done(context, data.game, data.version, user.id):
            await query.answer(error_text(texts, error), show_alert=True)
        else:
            await query.answer()
        return
    if not await _on_its_message(context, query, data, kb.PROMPT_ACTIONS):
        await query.answer(texts.t("error.wrong_message"), show_alert=True)
        return
    if await _replaced(context, data.game, message):
        await query.answer(texts.t("error.replaced_prompt"), show_alert=True)
        return
    table = await asyncio.to_thread(services.table, data.game, state)
    try:
        drawn = prompt.step(state, version, user.id, press, table, message.message_id)
    except kb.BadPress:
        await query.answer(texts.t("error.forged_button"), show_alert=True)
        return
    if isinstance(drawn, Alert):
        await query.answer(drawn.text, show_alert=drawn.alert)
        return
    await query.answer()  # at once: the picture below takes a moment
    await _deliver(context, drawn)
    # A prompt sent meanwhile in its place (by an instance that took the game over and
    # sent a try that may have arrived again) took this one's buttons off, perhaps before
    # this step showed it with buttons: they come off again.
    await _replaced(context, data.game, message)


async def _replaced(context: BotContext, game_id: str, message: Message) -> bool:
    """Whether the prompt ``message`` is no longer the player's live one (a newer prompt
    of the same decision replaced it): then its buttons are taken off."""
    live = await asyncio.to_thread(
        context.services.botstate.fresh_message, game_id, message.chat.id, Slot.PROMPT
    )
    if live is None or live.message_id == message.message_id:
        return False
    await _deliver(context, Unbuttoned(message.chat.id, message.message_id))
    return True


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
    if not await _on_its_message(context, query, data, {kb.COME_BACK}):
        await query.answer(texts.t("error.wrong_message"), show_alert=True)
        return
    error = await run(context, data.game, ComeBack(user.id), update)
    if error is not None:
        await query.answer(error_text(texts, error), show_alert=True)
        return
    await query.answer(f"{Icon.BACK.emoji} {texts.t('bot.welcome_back')}")
    await _deliver(context, Unbuttoned(message.chat.id, message.message_id))
