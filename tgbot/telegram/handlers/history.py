"""Finished games: ``/history``, ``/stats``, ``/replay`` and the replay message's buttons.

A replay is one photo message (the board after a move, the move told with every secret
in the caption) edited in place by ⏮ ◀ ▶ ⏭ and by jumps to each round's start and end; a
step too long for one caption is told in pages that ◀ ▶ turn. Every button carries its
game's id in the signed callback data, and a press is refused unless the message it sits
on shows that same game. A game still running is refused: its public board is what the
group already sees. A game is opened in its own group, or for a player of its group.
``/history`` pages through a group's games, edited in place.

What a replay message shows, and the replays kept in memory, are
:mod:`tgbot.telegram.handlers.replays`'s; what /history and /stats answer,
:mod:`tgbot.telegram.handlers.history_messages`'s.

Wire it with :func:`register` from ``tgbot.telegram.app.build_application``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import Any, Final

from telegram import Chat, Message, Update
from telegram.ext import Application, ApplicationHandlerStop, CommandHandler

from tgbot.presenter import callback as cb
from tgbot.presenter.keyboards import OPEN
from tgbot.presenter.messages import Animation
from tgbot.replay.gif import replay_gif
from tgbot.replay.steps import (
    GameCancelledError,
    GameNotFinishedError,
    GameTamperedError,
    Replay,
    ReplayError,
    text,
)
from tgbot.telegram import gateway
from tgbot.telegram.context import BotContext, BotServices
from tgbot.telegram.handlers.common import (
    deliver,
    display_name,
    message_presses,
    press_chats,
    update_texts,
)
from tgbot.telegram.handlers.history_messages import PAGE, history_message, stats_message
from tgbot.telegram.handlers.replays import GIF, STEP, GifCache, ReplayCache, replay_view
from tgbot.telegram.handlers.topics import topic_of

log = logging.getLogger(__name__)

ACTIONS: Final = (STEP, GIF, OPEN, PAGE)


# -- /history and /stats --------------------------------------------------------------------


def _in_group(chat: Chat) -> bool:
    return chat.type in (Chat.GROUP, Chat.SUPERGROUP)


async def history_command(update: Update, context: BotContext) -> None:
    chat, user, message = update.effective_chat, update.effective_user, update.effective_message
    if chat is None or message is None:
        return
    lang = (await update_texts(context, update)).lang
    player = None if _in_group(chat) else (user.id if user else chat.id)
    body, markup = await asyncio.to_thread(
        history_message, context.services, chat.id, lang, 0, player
    )
    await gateway.reply(message, body, shown=context.services.shown, reply_markup=markup)
    raise ApplicationHandlerStop


async def stats_command(update: Update, context: BotContext) -> None:
    chat, user, message = update.effective_chat, update.effective_user, update.effective_message
    if chat is None or user is None or message is None:
        return
    lang = (await update_texts(context, update)).lang
    group = chat.id if _in_group(chat) else None
    name = display_name(user)
    body = await asyncio.to_thread(stats_message, context.services, lang, user.id, name, group)
    await gateway.reply(message, body)
    raise ApplicationHandlerStop


# -- /replay and the buttons ----------------------------------------------------------------


def _gif_cache(context: BotContext) -> GifCache:
    cache = context.application.bot_data.get("replay_gifs")
    if cache is None:
        cache = context.application.bot_data["replay_gifs"] = GifCache()
    return cache


def _cache(context: BotContext) -> ReplayCache:
    cache = context.application.bot_data.get("replay_cache")
    if cache is None:
        cache = context.application.bot_data["replay_cache"] = ReplayCache()
    return cache


async def replay_command(update: Update, context: BotContext) -> None:
    """``/replay`` in a group: its last finished game; ``/replay GAME_ID``: that game, if
    it was played in this group or in a group the user played in."""
    chat, user, message = update.effective_chat, update.effective_user, update.effective_message
    if chat is None or message is None:
        return
    lang = (await update_texts(context, update)).lang
    services = context.services
    game_id: str | None = context.args[0] if context.args else None
    # Answered here, whatever the answer: no other handler answers it too (in private,
    # the pointer to /help).
    if game_id is None:
        if not _in_group(chat):
            await gateway.reply(message, text(lang, "replay.usage_group"))
            raise ApplicationHandlerStop
        game_id = await asyncio.to_thread(_last_finished, services, chat.id)
        if game_id is None:
            running = bool(await asyncio.to_thread(services.running_games, chat.id, every=True))
            key = "replay.not_finished" if running else "replay.not_found"
            await gateway.reply(message, text(lang, key))
            raise ApplicationHandlerStop
    who = user.id if user else None
    refusal = await open_replay(context, chat.id, who, game_id, lang, topic_of(message))
    if refusal is not None:
        await gateway.reply(message, text(lang, refusal))
    raise ApplicationHandlerStop


async def open_replay(
    context: BotContext,
    chat_id: int,
    user_id: int | None,
    game_id: str,
    lang: str,
    topic: int | None = None,
) -> str | None:
    """Send a new replay message of ``game_id`` in ``chat_id`` at its first step; or, when
    it cannot be shown there, the catalog key of the reason (nothing is sent)."""
    found = await find_replay(context, chat_id, user_id, game_id)
    if isinstance(found, str):
        return found
    await send_replay(context, chat_id, found, lang, topic)
    return None


async def find_replay(
    context: BotContext, chat_id: int, user_id: int | None, game_id: str
) -> Replay | str:
    """The replay of ``game_id`` if it may be shown in ``chat_id`` to ``user_id``, else
    the catalog key of the reason."""
    try:
        replay = await asyncio.to_thread(_cache(context).get, context.services, game_id)
    except ReplayError as error:
        return refusal_key(error)
    except ValueError:
        return "replay.not_found"
    allowed = await may_replay(context, replay, chat_id, user_id)
    return replay if allowed else "replay.elsewhere"


def _last_finished(services: BotServices, chat_id: int) -> str | None:
    """The group's last finished game, with every ended game recorded first."""
    return services.history.last_finished(chat_id)


def refusal_key(error: ReplayError) -> str:
    if isinstance(error, GameTamperedError):
        return "replay.tampered"
    if isinstance(error, GameCancelledError):
        return "replay.cancelled"
    if isinstance(error, GameNotFinishedError):
        return "replay.not_finished"
    return "replay.not_found"


async def may_replay(
    context: BotContext, replay: Replay, chat_id: int, user_id: int | None
) -> bool:
    """A game is replayed in its own group (whatever ids the group had), and wherever one
    of its players or a member of its group asks for it. Membership is Telegram's word
    (asked, see :mod:`tgbot.telegram.membership`), never the bot's records: having played in a
    group once makes no one a member of it."""
    services = context.services
    if user_id is not None and user_id in replay.final.seating:
        return True  # known without a query
    game_chat = replay.final.chat_id
    if game_chat is None:
        return False
    if await asyncio.to_thread(_same_group, services, chat_id, game_chat):
        return True
    if user_id is None:
        return False
    group_id = services.botstate.resolve_chat(game_chat)
    return await services.members.is_member(context.bot, group_id, user_id)


def _same_group(services: BotServices, chat_id: int, game_chat: int) -> bool:
    return game_chat in services.index.group_chats(chat_id)


async def send_replay(
    context: BotContext, chat_id: int, replay: Replay, lang: str, topic: int | None = None
) -> None:
    """Send a new replay message at the game's first step (in a forum, to ``topic``,
    where it was asked for)."""
    view = await asyncio.to_thread(replay_view, replay, 0, lang)
    await deliver(context, view.message(chat_id, topic=topic))


def is_replay_data(data: object) -> bool:
    """Whether a press is for this module (routing only: :func:`on_button` checks it)."""
    peeked = cb.peek(data) if isinstance(data, str) else None
    return peeked is not None and peeked.action in ACTIONS


def message_game(message: Any, keys: Sequence[bytes], chats: Sequence[int]) -> str | None:
    """The game the replay message shows, read from its own buttons (None: it is no
    replay message)."""
    for press in message_presses(message, keys, chats):
        if press.action in (STEP, GIF):
            return press.game
    return None


async def on_button(update: Update, context: BotContext) -> None:
    query = update.callback_query
    # python-telegram-bot routes a press without data to every press handler: it is
    # answered "not valid" by the game's handler, like any data that is not ours.
    if query is None or not isinstance(query.data, str) or not is_replay_data(query.data):
        return
    services = context.services
    chat = update.effective_chat
    lang = (await update_texts(context, update)).lang
    # Good only in the chat it was sent to (under any id the chat had).
    chats = await press_chats(context, query)
    try:
        data = cb.decode(query.data, services.callback_keys, chats)
    except cb.BadCallback:
        await gateway.answer_press(query, text(lang, "replay.wrong_game"), show_alert=True)
        raise ApplicationHandlerStop from None
    if data.action == PAGE:
        # The page is shown in place of the message pressed: it must be a /history list.
        presses = message_presses(query.message, services.callback_keys, chats)
        if not any(press.action == PAGE for press in presses):
            await gateway.answer_press(query, text(lang, "replay.wrong_game"), show_alert=True)
        else:
            await show_history_page(context, query, data.value or 0, lang)
        raise ApplicationHandlerStop
    # A step is shown in place of the message pressed: it must be that game's replay.
    shown = message_game(query.message, services.callback_keys, chats)
    if data.action in (STEP, GIF) and shown != data.game:
        await gateway.answer_press(query, text(lang, "replay.wrong_game"), show_alert=True)
        raise ApplicationHandlerStop
    if data.action == OPEN:
        user = update.effective_user
        if chat is None:
            await gateway.answer_press(query)
            raise ApplicationHandlerStop
        found = await find_replay(context, chat.id, user.id if user else None, data.game)
        if isinstance(found, str):
            await gateway.answer_press(query, text(lang, found), show_alert=True)
        else:
            # Answered before the picture is drawn and sent: the button stops spinning.
            await gateway.answer_press(query)
            await send_replay(context, chat.id, found, lang, topic_of(query.message))
        raise ApplicationHandlerStop
    user = update.effective_user
    if chat is None or user is None:
        await gateway.answer_press(query)
        raise ApplicationHandlerStop
    # A step or the GIF is checked as opening the replay is: whoever presses must still
    # be allowed to see it.
    found = await find_replay(context, chat.id, user.id, data.game)
    if isinstance(found, str):
        await gateway.answer_press(query, text(lang, found), show_alert=True)
        raise ApplicationHandlerStop
    replay = found
    if data.action == STEP:
        await gateway.answer_press(query)
        await show_step(context, query.message, replay, data.value or 0, lang, data.page or 0)
    elif data.action == GIF:
        await send_gif(context, query, chat, replay, lang)
    raise ApplicationHandlerStop


async def send_gif(
    context: BotContext, query: Any, chat: Chat | None, replay: Replay, lang: str
) -> None:
    """Send the game's GIF: made once per game and language, then kept in memory. A press
    while it is being made is answered and changes nothing."""
    gifs = _gif_cache(context)
    key = (replay.game_id, lang)
    if chat is None:
        await gateway.answer_press(query)
        return
    gif = gifs.get(key)
    if gif is None:
        if not gifs.start(key):
            await gateway.answer_press(query, text(lang, "replay.gif_busy"))
            return
        await gateway.answer_press(query, text(lang, "replay.gif_making"))
        try:
            gif = await asyncio.to_thread(replay_gif, replay, lang=lang)
            gifs.put(key, gif)
        finally:
            gifs.done(key)
    else:
        await gateway.answer_press(query)
    filename = f"saboteur-{replay.game_id}.gif"
    caption = text(lang, "replay.gif_caption")
    topic = topic_of(query.message)
    await deliver(context, Animation(chat.id, gif, filename, caption, topic))


async def show_history_page(context: BotContext, query: Any, offset: int, lang: str) -> None:
    """Edit the /history message in place to show the page ``offset`` games back (a
    group's games, or in a private chat its player's)."""
    message = query.message
    if not isinstance(message, Message):
        await gateway.answer_press(query)
        return
    player = None if _in_group(message.chat) else message.chat.id
    body, markup = await asyncio.to_thread(
        history_message, context.services, message.chat.id, lang, offset, player
    )
    await gateway.answer_press(query)
    await gateway.rewrite(message, body, shown=context.services.shown, reply_markup=markup)


async def show_step(
    context: BotContext, message: Any, replay: Replay, index: int, lang: str, page: int = 0
) -> None:
    """Edit the replay message in place to show step ``index`` (page ``page``)."""
    if not isinstance(message, Message):
        return
    view = await asyncio.to_thread(replay_view, replay, index, lang, page)
    await deliver(context, view.message(message.chat.id, message.message_id))


def register(application: Application[Any, Any, Any, Any, Any, Any], group: int = -1) -> None:
    """Add the commands. The replay's buttons reach :func:`on_button` through the one
    press handler (:func:`tgbot.telegram.handlers.callbacks.on_press`)."""
    application.add_handler(CommandHandler("history", history_command), group)
    application.add_handler(CommandHandler("stats", stats_command), group)
    application.add_handler(CommandHandler("replay", replay_command), group)
