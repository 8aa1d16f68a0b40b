"""After a game and between games: "Play again" opens a new lobby inviting the last
game's players; "Notify me" (the button, or ``/notify``) subscribes to a group's new games."""

from __future__ import annotations

import asyncio

from telegram import CallbackQuery, Chat, Update, User
from telegram.constants import ParseMode

from tgbot.presenter.callback import CallbackData
from tgbot.presenter.invitations import NOTIFY, PLAY_AGAIN, invitation_text, last_players
from tgbot.presenter.texts import Texts
from tgbot.telegram import gateway
from tgbot.telegram.context import BotContext
from tgbot.telegram.gateway import Place
from tgbot.telegram.handlers import group
from tgbot.telegram.handlers.common import (
    chat_texts,
    display_name,
    error_text,
    remember,
    update_texts,
)
from tgbot.telegram.handlers.topics import topic_of


async def on_press(
    update: Update, context: BotContext, query: CallbackQuery, data: CallbackData, user: User
) -> None:
    """A press of the game-over message's "Play again" or "Notify me"."""
    chat = update.effective_chat
    if chat is None or chat.type not in (Chat.GROUP, Chat.SUPERGROUP):
        await gateway.answer_press(query)
        return
    texts = await chat_texts(context, chat, user, topic_of(query.message))
    if data.action == NOTIFY:
        reply, alert = await toggle_notify(context, chat.id, user, texts)
        await gateway.answer_press(query, reply, show_alert=alert)
    elif data.action == PLAY_AGAIN:
        await play_again(update, context, query, chat, data.game, user, texts)
    else:
        await gateway.answer_press(query, texts.t("error.forged_button"), show_alert=True)


async def play_again(
    update: Update,
    context: BotContext,
    query: CallbackQuery,
    chat: Chat,
    game_id: str,
    user: User,
    texts: Texts,
) -> None:
    """Open a new game with the finished one's edition and settings, the presser its
    creator, and invite (mention) the finished game's other players."""
    services = context.services
    finished, _ = await asyncio.to_thread(services.load, game_id)
    chats = await asyncio.to_thread(services.botstate.chat_ids, chat.id)
    if finished.phase != "finished" or finished.chat_id not in chats:
        await gateway.answer_press(query, texts.t("error.stale_button"), show_alert=True)
        return
    await remember(context, user)
    await asyncio.to_thread(group.learn_language, context, chat.id, user)
    error = await group.create_game(
        update,
        context,
        chat.id,
        user,
        texts,
        finished.edition,
        finished.turn_seconds,
        finished.gold_house_rule,
        topic=topic_of(query.message),  # in a forum: where it is played again
    )
    if error == "game_already_created":
        # A second press, or someone faster: the lobby they look for is there.
        await gateway.answer_press(query, texts.t("again.lobby_open"))
        return
    if error is not None:
        refusal = group.too_many_games(texts) if error == group.TOO_MANY_GAMES else None
        await gateway.answer_press(query, refusal or error_text(texts, error), show_alert=True)
        return
    await gateway.answer_press(query)
    invited = last_players(finished, user.id)
    text = invitation_text(texts, display_name(user), invited, finished.edition)
    place = Place(chat.id, topic_of(query.message))
    await gateway.post_text(context.bot, place, text, parse_mode=ParseMode.HTML)


async def toggle_notify(
    context: BotContext, chat_id: int, user: User, texts: Texts
) -> tuple[str, bool]:
    """Subscribe ``user`` to the group's new games, or unsubscribe them if they were:
    what to answer, and whether as an alert (they must open the private chat first)."""
    botstate = context.services.botstate
    await remember(context, user)
    on = not await asyncio.to_thread(botstate.subscribed, chat_id, user.id)
    await asyncio.to_thread(botstate.subscribe, chat_id, user.id, on)
    if not on:
        return texts.t("notify.off"), False
    known = botstate.user(user.id)
    if known is None or not known.private_chat:
        return texts.t("notify.on_open_private"), True
    return texts.t("notify.on"), False


async def notify(update: Update, context: BotContext) -> None:
    """``/notify`` in a group: tell me in private of this group's new games (again: stop)."""
    chat, user, message = update.effective_chat, update.effective_user, update.effective_message
    if chat is None or user is None or message is None:
        return
    texts = await update_texts(context, update)
    if chat.type not in (Chat.GROUP, Chat.SUPERGROUP):
        await gateway.reply(message, texts.t("notify.group_only"))
        return
    reply, _ = await toggle_notify(context, chat.id, user, texts)
    await gateway.reply(message, reply)
