"""Private chat and chat-agnostic commands: ``/start`` (deep links), ``/help``, ``/rules``,
``/language``, ``/hand``; and group-to-supergroup migrations."""

from __future__ import annotations

import asyncio

from telegram import Chat, Update, User
from telegram import Message as TelegramMessage
from telegram.constants import ParseMode

from domain.commands import ComeBack, JoinGame
from tgbot.delivery.presenting import decision_opening
from tgbot.presenter import prompt
from tgbot.presenter.icons import Icon, legend
from tgbot.presenter.messages import Message
from tgbot.presenter.rules import edition_named, rules_messages
from tgbot.presenter.texts import Texts, esc
from tgbot.telegram import gateway
from tgbot.telegram.context import BotContext
from tgbot.telegram.handlers import group
from tgbot.telegram.handlers.common import (
    chat_texts,
    display_name,
    error_text,
    remember,
    run,
    start_payload,
    user_texts,
    username,
)
from tgbot.telegram.handlers.topics import topic_of
from tgbot.telegram.membership import is_inside


async def start(update: Update, context: BotContext) -> None:
    """``/start`` in private: the user opened the chat. Payload ``j<game>`` completes a
    join; ``r<game>`` sends the prompt again (after unblocking the bot)."""
    chat, user, message = update.effective_chat, update.effective_user, update.effective_message
    if chat is None or user is None or message is None:
        return
    if chat.type != Chat.PRIVATE:
        await help_command(update, context)
        return
    await remember(context, user, private_chat=True)
    texts = await user_texts(context, user)
    payload = start_payload(context.args)
    if payload[:1] == "j" and len(payload) > 1:
        await join_by_link(update, context, payload[1:], user, texts)
        return
    if payload[:1] == "r" and len(payload) > 1:
        if not await send_hand(context, payload[1:], user.id):
            await gateway.reply(message, texts.t("bot.nothing_pending"))
        return
    # A link, not a button: the private chat's buttons are the game's.
    link = f"https://t.me/{username(context)}?startgroup=new"
    welcome = texts.t("private.welcome", name=esc(display_name(user)), link=link)
    await gateway.reply(message, welcome, parse_mode=ParseMode.HTML)


async def join_by_link(
    update: Update, context: BotContext, game_id: str, user: User, texts: Texts
) -> None:
    """The deep link of a lobby's Join button: it seats only a member of the lobby's group
    (asked of Telegram); anyone else is told so and nothing changes."""
    message = update.effective_message
    if message is None:
        return
    services = context.services
    try:
        state, _ = await asyncio.to_thread(services.load, game_id)
    except ValueError:  # not even a well-formed id
        state = None
    if state is None or state.chat_id is None or state.phase == "new":
        await gateway.reply(message, error_text(texts, "no_game"))
        return
    if not state.is_player(user.id):
        group_id = services.botstate.resolve_chat(state.chat_id)
        if not await services.members.is_member(context.bot, group_id, user.id):
            await gateway.reply(message, texts.t("bot.join_members_only"))
            return
        if await group.seated_too_often(context, user.id):
            await gateway.reply(message, group.too_many_games(texts))
            return
    error = await run(context, game_id, JoinGame(user.id, display_name(user)), update)
    if error is None or error == "already_joined":  # the creator is seated already
        await gateway.reply(message, texts.t("bot.joined_private"))
    else:
        await gateway.reply(message, error_text(texts, error))


async def send_hand(context: BotContext, game_id: str, player: int) -> bool:
    """Send the player, in private, their dwarf card, hand and gold in ``game_id`` — with
    the decision's buttons when they owe one. False when they play no running game there."""
    services = context.services
    state, version = await asyncio.to_thread(services.load, game_id)
    if state.phase != "playing" or not state.is_player(player):
        return False
    table = await asyncio.to_thread(services.table, game_id, state)
    pending = state.pending
    shown: Message
    if pending is not None and pending.player == player:
        # The prompt again, opening as it did: the moves since the player's last turn.
        opening = await asyncio.to_thread(
            decision_opening, services, game_id, state, version, table
        )
        shown = prompt.decision(state, version, player, table, opening)
    else:
        shown = prompt.status(state, version, player, table)
    await services.outbox.deliver([shown])
    return True


async def help_command(update: Update, context: BotContext) -> None:
    chat, user, message = update.effective_chat, update.effective_user, update.effective_message
    if chat is None or message is None:
        return
    texts = await chat_texts(context, chat, user)
    await gateway.reply(message, f"{texts.t('help.text')}\n\n{legend(texts)}")


async def rules(update: Update, context: BotContext) -> None:
    """``/rules [base|saboteur2]``: that edition's rules, action cards, buttons and icons;
    without one, the edition of the game the asker plays here (else the base game)."""
    chat, user, message = update.effective_chat, update.effective_user, update.effective_message
    if chat is None or message is None:
        return
    texts = await chat_texts(context, chat, user)
    if context.args:
        edition = edition_named(context.args)
        if edition is None:
            await gateway.reply(message, texts.t("rules.usage"))
            return
    else:
        edition = "base"
        games = await games_here(context, chat, user, message) if user is not None else []
        if games:
            state, _ = await asyncio.to_thread(context.services.load, games[0])
            edition = state.edition
    other = "saboteur2" if edition == "base" else "base"
    for text in rules_messages(edition, texts, texts.t("rules.footer", other=other)):
        await gateway.reply(message, text)


async def hand(update: Update, context: BotContext) -> None:
    """``/hand``: the player's dwarf card, hand and gold again, in private, at any time.

    In private: every running game they sit in; in a group: that group's game."""
    chat, user, message = update.effective_chat, update.effective_user, update.effective_message
    if chat is None or user is None or message is None:
        return
    texts = await chat_texts(context, chat, user)
    if chat.type == Chat.PRIVATE:
        await remember(context, user, private_chat=True)
    games = await games_here(context, chat, user, message)
    found = [await send_hand(context, game, user.id) for game in games]
    if not any(found):
        await gateway.reply(message, texts.t("bot.no_running_game"))
        return
    known = await asyncio.to_thread(context.services.botstate.user, user.id)
    if chat.type != Chat.PRIVATE and known is not None and known.private_chat:
        await gateway.reply(message, texts.t("bot.hand_sent"))


async def back(update: Update, context: BotContext) -> None:
    """``/back``: a player who was away plays again — in private, in every running game
    they sit in; in a group, in that group's game."""
    chat, user, message = update.effective_chat, update.effective_user, update.effective_message
    if chat is None or user is None or message is None:
        return
    texts = await chat_texts(context, chat, user)
    results: list[str | None] = []  # per game they were away in: None, or why refused
    left = False  # they left a game here: /back cannot undo that
    for game_id in await games_here(context, chat, user, message):
        state, _ = await asyncio.to_thread(context.services.load, game_id)
        if user.id in state.away:
            results.append(await run(context, game_id, ComeBack(user.id), update))
        left = left or state.handed_over.get(user.id) == "left"
    if not results:
        said = texts.t("bot.back_after_leave") if left else error_text(texts, "not_away")
        await gateway.reply(message, said)
        return
    lines = [f"{Icon.BACK.emoji} {texts.t('bot.welcome_back')}"] if None in results else []
    refusals = dict.fromkeys(error for error in results if error is not None)
    lines.extend(error_text(texts, error) for error in refusals)
    await gateway.reply(message, "\n".join(lines))


async def games_here(
    context: BotContext, chat: Chat, user: User, message: TelegramMessage | None = None
) -> list[str]:
    """The running games a command from ``user`` in ``chat`` is about: in private, every
    one they sit in (newest first); in a group, that group's game (in a forum, the game
    of the topic ``message`` was sent in; in General, General's, or, with none, every
    game of the group they sit in)."""
    services = context.services
    if chat.type == Chat.PRIVATE:
        return await asyncio.to_thread(services.games_of, user.id)
    topic = topic_of(message)
    found = await asyncio.to_thread(services.active_game, chat.id, topic)
    if found is not None:
        return [found]
    if topic is not None or not chat.is_forum:
        return []
    tables = await asyncio.to_thread(services.running_games, chat.id, every=True)
    theirs = set(await asyncio.to_thread(services.games_of, user.id))
    return [game for game, _ in tables if game in theirs]


async def private_message(update: Update, context: BotContext) -> None:
    """Any private message proves the chat is open; a text that is no command of the bot's
    gets a one-line pointer to /help."""
    user, message = update.effective_user, update.effective_message
    if user is None:
        return
    await remember(context, user, private_chat=True)
    if message is not None and message.text:
        await gateway.reply(message, (await user_texts(context, user)).t("private.pointer"))


async def migrated(update: Update, context: BotContext) -> None:
    """A group became a supergroup: follow it to its new id."""
    message = update.effective_message
    if message is None:
        return
    if message.migrate_to_chat_id:
        await asyncio.to_thread(
            context.services.botstate.set_migrated, message.chat.id, message.migrate_to_chat_id
        )
    elif message.migrate_from_chat_id:
        await asyncio.to_thread(
            context.services.botstate.set_migrated, message.migrate_from_chat_id, message.chat.id
        )


async def member_changed(update: Update, context: BotContext) -> None:
    """Someone joined or left a group: what the bot remembers of its members follows."""
    changed = update.chat_member
    if changed is None:
        return
    member = changed.new_chat_member
    context.services.members.note(changed.chat.id, member.user.id, is_inside(member))
