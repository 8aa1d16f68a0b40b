"""Button presses. Every press is answered; a press that cannot count changes nothing.

The path of a press: decode (forged → alert; a replay's button goes to the replay's
handler), then for a player's prompt: the presser must own the keyboard (foreign →
alert). A decision's last press is translated into one call of the use case every move
takes (:meth:`infra.actions.Actions.play`, as the Mini App's taps do), in one trip off the
event loop, with the update id as idempotency key: the keyboard's game version must still
hold (stale → alert), the decision must be the presser's and the move one the rules offer;
its answer becomes the press's (the presser's language is read only to word a refusal).
A second press of a button whose action just took effect (a double tap) is answered
quietly: it changed nothing, and nothing went wrong. Steps inside a decision, checked the
same way, are drawn by the presenter and delivered through the outbox.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from collections.abc import Collection

from telegram import CallbackQuery, Message, Update, User

from domain.cards import Tool
from domain.commands import CancelGame, ChooseTheftVictim, ComeBack, PickGold, PlacePath, PlayAction
from infra.actions import AlreadyDone, Move, Refused
from tgbot.delivery.presenting import decision_opening
from tgbot.presenter import invitations, prompt
from tgbot.presenter import keyboards as kb
from tgbot.presenter.callback import BadCallback, CallbackData, decode
from tgbot.presenter.icons import Icon
from tgbot.presenter.messages import Alert, PromptStep, Slot, TextEdit, Unbuttoned
from tgbot.presenter.texts import Texts
from tgbot.telegram import gateway
from tgbot.telegram.context import BotContext
from tgbot.telegram.handlers import (
    between_games,
    group,
    history,
    language,
    practice,
    roundlog,
    seat_chooser,
    seats,
)
from tgbot.telegram.handlers.common import (
    acted_by,
    deliver,
    error_text,
    group_press,
    press_chats,
    presser_and_chats,
    remember,
    run,
    same_kind,
    update_key,
    user_texts,
)
from tgbot.telegram.handlers.topics import topic_of
from tgbot.telegram.outage import unreachable

log = logging.getLogger(__name__)


async def on_press(update: Update, context: BotContext) -> None:
    query = update.callback_query
    if query is None:
        return
    services = context.services
    user = query.from_user
    raw = query.data or ""
    # A button is good only in the chat it was sent to, under any id the chat had: its id
    # now (a press on no message is good nowhere), and only when that fails those it had
    # before it migrated, read with the presser's language in one trip.
    message = query.message
    chat = getattr(message, "chat", None) if message is not None else None
    texts: Texts | None = None
    try:
        data = decode(raw, services.callback_keys, [] if chat is None else [int(chat.id)])
    except BadCallback:
        texts, chats = await presser_and_chats(context, query, user)
        try:
            data = decode(raw, services.callback_keys, chats)
        except BadCallback:
            if history.is_replay_data(raw):  # a replay's: refused in the replay's words
                await history.on_button(update, context)
            else:
                await gateway.answer_press(query, texts.t("error.forged_button"), show_alert=True)
            return
    if data.action in history.ACTIONS:  # a replay's button, or a /history page's
        await history.on_button(update, context)
        return
    final = data.action in kb.COMMAND_ACTIONS  # a decision's last press: the move
    if texts is None and not final:
        texts = await user_texts(context, user)
    try:
        if final:
            await _move_press(update, context, query, data, user)
        else:
            assert texts is not None
            await _dispatch(update, context, query, data, user, texts)
    except Exception as error:
        if not unreachable(error):  # else said once per outage (tgbot.telegram.outage)
            log.exception("press %s failed", kb.Press.of(data))
        with contextlib.suppress(Exception):
            texts = texts or await user_texts(context, user)
            await _answer_once(query, texts.t("error.internal"))
        raise


async def _dispatch(
    update: Update,
    context: BotContext,
    query: CallbackQuery,
    data: CallbackData,
    user: User,
    texts: Texts,
) -> None:
    """Any press but a decision's last: to the handler of its kind."""
    press = kb.Press.of(data)
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
        await gateway.answer_press(query, texts.t("error.forged_button"), show_alert=True)


async def _move_press(
    update: Update, context: BotContext, query: CallbackQuery, data: CallbackData, user: User
) -> None:
    """A decision's last press, on the presser's own prompt: its move goes to the one use
    case of a move (in one trip off the event loop, with the update's key), and its
    answer becomes the press's; the presser's language is read only to word a refusal."""
    message = query.message
    if not isinstance(message, Message) or message.chat.id != user.id:
        code = "not_your_button" if isinstance(message, Message) else "stale_button"
        texts = await user_texts(context, user)
        await gateway.answer_press(query, texts.t(f"error.{code}"), show_alert=True)
        return
    answer = await context.services.actions.play(
        data.game,
        user.id,
        move_of(user.id, data),
        data.version,
        **update_key(update),
        double_taps=True,
    )
    if isinstance(answer, Refused):
        texts = await user_texts(context, user)
        await gateway.answer_press(query, error_text(texts, answer.reason), show_alert=True)
    else:
        await gateway.answer_press(query)  # played, or a double tap: the first one counted


def move_of(player: int, data: CallbackData) -> Move:
    """The move a decision's last press stands for: the command itself when the button
    names all of it (as :func:`~tgbot.presenter.keyboards.command_for` makes it); else
    (cards named by their place in the hand, or no such move) what makes it from the game
    as it is, called in the use case's trip, a press that makes none refused as forged."""
    card, cell = data.card, data.cell
    try:
        match data.action:
            case kb.PLACE if card is not None and cell is not None:
                return PlacePath(player, card, cell, data.rotated)
            case kb.ACT if card is not None:
                tool = Tool(data.tool) if data.tool is not None else None
                return PlayAction(
                    player, card, target_player=data.player, target_cell=cell, tool=tool
                )
            case kb.GOLD if data.value is not None:
                return PickGold(player, data.value)
            case kb.THEFT if data.player is not None:
                return ChooseTheftVictim(player, data.player)
    except ValueError:
        pass  # made (and refused) in the trip, as any press that makes no move
    return functools.partial(kb.command_for, player=player, press=kb.Press.of(data))


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
        await gateway.answer_press(query, text, show_alert=True)
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
        await gateway.answer_press(query)
        return
    await remember(context, user)
    texts = await asyncio.to_thread(
        context.services.texts_for_chat, chat.id, user.language_code, topic_of(query.message)
    )
    state, _ = await asyncio.to_thread(context.services.load, data.game)
    if state.chat_id not in await _chat_ids(context, chat.id):
        await gateway.answer_press(query, texts.t("error.stale_button"), show_alert=True)
        return
    if state.phase != "lobby":
        # Start or Join pressed again just as the game began: nothing to say.
        if state.phase == "playing" and (
            press.action == kb.START or (press.action == kb.JOIN and state.is_player(user.id))
        ):
            await gateway.answer_press(query)
        else:
            await gateway.answer_press(query, texts.t("error.stale_button"), show_alert=True)
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
    elif press.action == kb.SET_SEAT_LEVEL:
        reply = await group.change_seat_level(
            update, context, data.game, data.version, press, user, texts
        )
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
        await gateway.answer_press(query, url=reply.url)
    else:
        await gateway.answer_press(query, reply.text or None, show_alert=reply.alert)


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
        await gateway.answer_press(query, texts.t("error.stale_button"), show_alert=True)
        return
    if not await group.may_manage(context, state, chat.id, user):
        await gateway.answer_press(query, texts.t("lobby.only_creator"), show_alert=True)
        return
    if not await _on_its_message(context, query, data, kb.RUNNING_ACTIONS):
        await gateway.answer_press(query, texts.t("error.wrong_message"), show_alert=True)
        return
    if press.action == kb.KEEP:
        await gateway.answer_press(query)
        await deliver(context, TextEdit(chat.id, message.message_id, texts.t("cancel.kept")))
        return
    actor = state.creator if state.creator is not None else user.id
    error = await run(context, data.game, CancelGame(actor), update, acted_by(user))
    if error is not None:
        await gateway.answer_press(query, error_text(texts, error), show_alert=True)
        return
    await gateway.answer_press(query)
    await deliver(context, TextEdit(chat.id, message.message_id, texts.t("cancel.done")))


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
        await gateway.answer_press(query, texts.t("error.stale_button"), show_alert=True)
        return
    if message.chat.id != user.id:
        await gateway.answer_press(query, texts.t("error.not_your_button"), show_alert=True)
        return
    services = context.services
    actions = services.actions
    checked = await asyncio.to_thread(
        actions.check, data.game, user.id, data.version, double_taps=True
    )
    if isinstance(checked, Refused):
        await gateway.answer_press(query, error_text(texts, checked.reason), show_alert=True)
        return
    if isinstance(checked, AlreadyDone):
        await gateway.answer_press(query)  # a double tap: the first one counted
        return
    state, version = checked.state, checked.version
    if not await _on_its_message(context, query, data, kb.PROMPT_ACTIONS):
        await gateway.answer_press(query, texts.t("error.wrong_message"), show_alert=True)
        return
    if await _replaced(context, data.game, message):
        await gateway.answer_press(query, texts.t("error.replaced_prompt"), show_alert=True)
        return

    def step() -> PromptStep | Alert:
        table = services.table(data.game, state)
        # The step keeps what the decision's prompt opened with: the moves since the
        # player's last turn.
        opening = decision_opening(services, data.game, state, version, table)
        return prompt.step(state, version, user.id, press, table, message.message_id, opening)

    try:
        drawn = await asyncio.to_thread(step)  # (the choices come from the rules)
    except kb.BadPress:
        await gateway.answer_press(query, texts.t("error.forged_button"), show_alert=True)
        return
    if isinstance(drawn, Alert):
        await gateway.answer_press(query, drawn.text, show_alert=drawn.alert)
        return
    await gateway.answer_press(query)  # at once: the picture below takes a moment
    await deliver(context, drawn)
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
    await deliver(context, Unbuttoned(message.chat.id, message.message_id))
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
        await gateway.answer_press(query, texts.t("error.not_your_button"), show_alert=True)
        return
    if not await _on_its_message(context, query, data, {kb.COME_BACK}):
        await gateway.answer_press(query, texts.t("error.wrong_message"), show_alert=True)
        return
    error = await run(context, data.game, ComeBack(user.id), update)
    if error is not None:
        await gateway.answer_press(query, error_text(texts, error), show_alert=True)
        return
    await gateway.answer_press(query, f"{Icon.BACK.emoji} {texts.t('bot.welcome_back')}")
    await deliver(context, Unbuttoned(message.chat.id, message.message_id))
