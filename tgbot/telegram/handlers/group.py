"""Group chat: the lobby (``/newgame``, join, leave, start, cancel, settings).

Handlers only run commands; the announcer draws the lobby and the board from the events.
A lobby redrawn without an event (its settings shown, a language chosen) is drawn by the
presenter and delivered through the outbox here.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from telegram import Chat, InlineKeyboardButton, InlineKeyboardMarkup, Update, User

from domain.cards import PLAYER_LIMITS, VARIANTS, Edition
from domain.commands import (
    AWAY_PLAY,
    GOLD_PICKS,
    LEVELS,
    AddComputerPlayer,
    CancelGame,
    ChangeSettings,
    Command,
    CreateGame,
    JoinGame,
    LeaveGame,
    RemoveComputerPlayer,
    SetComputerLevel,
    StartGame,
)
from domain.state import GameState
from infra.settings import LANGUAGES
from tgbot.presenter import keyboards as kb
from tgbot.presenter import lobby as lobby_view
from tgbot.presenter.lobby import start_link
from tgbot.presenter.messages import Text
from tgbot.presenter.texts import ALERT_NAME_LIMIT, Texts, esc, short, unbidi
from tgbot.telegram import gateway
from tgbot.telegram.context import BotContext, BotServices
from tgbot.telegram.handlers.common import (
    acted_by,
    chat_texts,
    deliver,
    display_name,
    error_text,
    is_admin,
    remember,
    run,
    update_texts,
    username,
)
from tgbot.telegram.handlers.topics import go_button, heard, list_games, topic_of

DEFAULT_TURN_SECONDS = 180
# How many games one person may sit in at once, lobbies and running games alike.
MAX_OPEN_GAMES = 5
TOO_MANY_GAMES = "too_many_games"  # create_game's refusal


@dataclass(frozen=True, slots=True)
class Reply:
    """What to tell the person: a short text, or a link to open (a deep link)."""

    text: str = ""
    url: str | None = None
    alert: bool = False


def in_group(update: Update) -> bool:
    chat = update.effective_chat
    return chat is not None and chat.type in (Chat.GROUP, Chat.SUPERGROUP)


async def newgame(update: Update, context: BotContext) -> None:
    chat, user, message = update.effective_chat, update.effective_user, update.effective_message
    if chat is None or user is None or message is None:
        return
    texts = await update_texts(context, update)
    if not in_group(update):
        await gateway.reply(message, texts.t("lobby.group_only"))
        return
    await remember(context, user)
    await asyncio.to_thread(learn_language, context, chat.id, user)
    topic = topic_of(message)
    texts = await chat_texts(context, chat, user, topic)
    edition = (context.args or ["base"])[0].lower()
    if edition not in kb.EDITIONS:
        await gateway.reply(message, texts.t("bot.newgame_usage"))
        return
    if topic is not None:  # the topic's name, for the private messages to say
        await heard(update, context)
    error = await create_game(update, context, chat.id, user, texts, edition, topic=topic)
    if error == "game_already_created" and topic is not None:
        # A forum's topic has one game at a time: to it, or to another topic.
        markup = go_button(texts, chat, topic)
        await gateway.reply(message, texts.t("forum.already_running"), reply_markup=markup)
    elif error == "game_already_created":
        await gateway.reply(message, texts.t("lobby.already_running"))
    elif error == TOO_MANY_GAMES:
        await gateway.reply(message, too_many_games(texts))
    elif error is not None:
        await gateway.reply(message, error_text(texts, error))


async def create_game(
    update: Update,
    context: BotContext,
    chat_id: int,
    user: User,
    texts: Texts,
    edition: str,
    turn_seconds: int = DEFAULT_TURN_SECONDS,
    gold_house_rule: bool = False,
    *,
    topic: int | None = None,
) -> str | None:
    """Open a game in the group (in a forum, in ``topic``; None: in General) with
    ``user`` as its creator (seated at once): None when it opened, else the error code
    of why not (``game_already_created`` when a game is already open there)."""
    services = context.services
    if await asyncio.to_thread(services.active_game, chat_id, topic) is not None:
        return "game_already_created"
    if await seated_too_often(context, user.id):
        return TOO_MANY_GAMES
    game_id = await asyncio.to_thread(services.next_game_id, chat_id, topic)
    command = CreateGame(
        user.id,
        display_name(user),
        "saboteur2" if edition == "saboteur2" else "base",
        chat_id,
        turn_seconds=turn_seconds,
        gold_house_rule=gold_house_rule,
        topic=topic,
    )
    # The group's title, so private prompts can name the group, and its public @name, so
    # a subscriber's notice can link to it.
    chat = update.effective_chat
    title: dict[str, object] = {"chat_title": unbidi(chat.title)} if chat and chat.title else {}
    if chat and chat.username:
        title["chat_username"] = chat.username
    error = await run(context, game_id, command, update, title)
    if error is None:
        await _private_hint(update, context, user, game_id, texts)
    return error


def learn_language(context: BotContext, chat_id: int, user: User) -> None:
    """A group that chose no language speaks that of whoever opens a game there."""
    code = (user.language_code or "").split("-")[0].split("_")[0].lower()
    if code in LANGUAGES and context.services.botstate.chat_language(chat_id) is None:
        context.services.botstate.set_chat_default_language(chat_id, code)


async def _private_hint(
    update: Update, context: BotContext, user: User, game_id: str, texts: Texts
) -> None:
    """A creator the bot cannot write to yet gets a deep link to open the private chat
    (they are seated already: opening it is all that is left)."""
    known = await asyncio.to_thread(context.services.botstate.user, user.id)
    message = update.effective_message
    if message is None or (known is not None and known.private_chat):
        return
    link = start_link(username(context), f"j{game_id}")
    await gateway.reply(
        message,
        texts.t("lobby.open_private_creator", name=display_name(user)),
        reply_markup=InlineKeyboardMarkup(
            [[InlineKeyboardButton(texts.t("lobby.button_open_private"), url=link)]]
        ),
    )


async def join_game(
    update: Update, context: BotContext, user: User, game_id: str, texts: Texts
) -> Reply:
    """Join, or send the user to the private chat first (the bot cannot write to a user
    who never opened it)."""
    await remember(context, user)
    known = await asyncio.to_thread(context.services.botstate.user, user.id)
    if known is None or not known.private_chat:
        link = start_link(username(context), f"j{game_id}")
        name = display_name(user)
        chat, outbox = update.effective_chat, context.services.outbox
        if chat is not None:
            # The group hears who is on the way, and how they get in (one tap): in HTML.
            told = texts.t("lobby.open_private", name=esc(name))
            button = kb.Button(texts.t("lobby.button_open_private"), url=link)
            await outbox.deliver([Text(chat.id, f"⏳ {told}", kb.keyboard([[button]]), game_id)])
        # The answer to the press: plain text, in an alert's 200 characters.
        said = texts.t("lobby.open_private", name=short(name, ALERT_NAME_LIMIT))
        return Reply(said, url=link)
    state, _ = await asyncio.to_thread(context.services.load, game_id)
    if not state.is_player(user.id) and await seated_too_often(context, user.id):
        return Reply(too_many_games(texts), alert=True)
    error = await run(context, game_id, JoinGame(user.id, display_name(user)), update)
    if error is not None:
        return Reply(error_text(texts, error), alert=True)
    return Reply(texts.t("bot.joined"))


async def seated_too_often(context: BotContext, user_id: int) -> bool:
    """Whether ``user_id`` sits in :data:`MAX_OPEN_GAMES` games already (lobbies too):
    one person opening or joining games in dozens of groups holds every one of them up."""
    return await asyncio.to_thread(context.services.open_games_of, user_id) >= MAX_OPEN_GAMES


def too_many_games(texts: Texts) -> str:
    return texts.t("lobby.too_many_games", count=MAX_OPEN_GAMES)


async def may_manage(context: BotContext, state: GameState, chat_id: int, user: User) -> bool:
    """The game's creator or an admin of the group."""
    return user.id == state.creator or await is_admin(context, chat_id, user.id)


async def lobby_action(
    update: Update, context: BotContext, game_id: str, action: str, user: User, texts: Texts
) -> Reply:
    """join / leave / start / cancel / add or remove a computer player, as asked by a
    button or a command."""
    services = context.services
    state, _ = await asyncio.to_thread(services.load, game_id)
    chat = update.effective_chat
    chat_id = chat.id if chat is not None else state.chat_id
    if action == kb.JOIN:
        return await join_game(update, context, user, game_id, texts)
    if action == kb.LEAVE:
        error = await run(context, game_id, LeaveGame(user.id), update)
        return Reply(error_text(texts, error), alert=True) if error else Reply(texts.t("bot.left"))
    if not await may_manage(context, state, chat_id, user):
        return Reply(texts.t("lobby.only_creator"), alert=True)
    # The rules let only the creator start or cancel: an admin acts in the creator's name,
    # and the event's metadata records who pressed.
    actor = state.creator if state.creator is not None else user.id
    commands: dict[str, Command] = {
        kb.START: StartGame(actor),
        kb.CANCEL: CancelGame(actor),
        kb.ADD_COMPUTER: AddComputerPlayer(actor),
        kb.REMOVE_COMPUTER: RemoveComputerPlayer(actor),
    }
    error = await run(context, game_id, commands[action], update, acted_by(user))
    if error == "not_a_computer_player":
        return Reply(texts.t("lobby.no_computer"), alert=True)
    return Reply(error_text(texts, error), alert=True) if error else Reply()


async def active_game(update: Update, context: BotContext) -> tuple[str, Texts] | None:
    """The chat's game in the lobby or running, or None (the writer told why): a group's
    (in a forum, the one of the topic the command was sent in; in General, General's, or
    none, and the group's games in their topics are listed), or in a private chat the
    practice game played there."""
    chat, user, message = update.effective_chat, update.effective_user, update.effective_message
    if chat is None or user is None or message is None:
        return None
    topic = topic_of(message) if in_group(update) else None
    texts = await chat_texts(context, chat, user, topic)
    game_id = await asyncio.to_thread(context.services.active_game, chat.id, topic)
    if not in_group(update) and game_id is None:
        await gateway.reply(message, texts.t("lobby.group_only"))
        return None
    if game_id is None:
        if topic is None and chat.is_forum and await list_games(context, message, chat, texts):
            return None
        await gateway.reply(message, texts.t("lobby.no_game"))
        return None
    return game_id, texts


async def _command(update: Update, context: BotContext, action: str) -> None:
    found = await active_game(update, context)
    user, message = update.effective_user, update.effective_message
    if found is None or user is None or message is None:
        return
    game_id, texts = found
    reply = await lobby_action(update, context, game_id, action, user, texts)
    if reply.url is not None:
        await gateway.reply(
            message,
            reply.text,
            reply_markup=InlineKeyboardMarkup(
                [[InlineKeyboardButton(texts.t("lobby.button_open_private"), url=reply.url)]]
            ),
        )
    elif reply.text:
        await gateway.reply(message, reply.text)


async def join(update: Update, context: BotContext) -> None:
    await _command(update, context, kb.JOIN)


async def leave(update: Update, context: BotContext) -> None:
    await _command(update, context, kb.LEAVE)


async def cancel(update: Update, context: BotContext) -> None:
    """``/cancel``: a lobby is cancelled at once; a running game only once the creator or
    an admin confirms it (a question with two buttons)."""
    found = await active_game(update, context)
    chat, user, message = update.effective_chat, update.effective_user, update.effective_message
    if found is None or chat is None or user is None or message is None:
        return
    game_id, texts = found
    services = context.services
    state, version = await asyncio.to_thread(services.load, game_id)
    if state.phase != "playing":
        await _command(update, context, kb.CANCEL)
        return
    if not await may_manage(context, state, chat.id, user):
        await gateway.reply(message, texts.t("lobby.only_creator"))
        return
    table = await asyncio.to_thread(services.table, game_id, state)
    await deliver(context, lobby_view.stop_question(table, version, texts))


async def settings(update: Update, context: BotContext) -> None:
    found = await active_game(update, context)
    chat, message = update.effective_chat, update.effective_message
    if found is None or chat is None or message is None:
        return
    game_id, texts = found
    state, _ = await asyncio.to_thread(context.services.load, game_id)
    user = update.effective_user
    if state.phase != "lobby":
        await gateway.reply(message, error_text(texts, "not_in_lobby"))
        return
    if user is None or not await may_manage(context, state, chat.id, user):
        await gateway.reply(message, texts.t("lobby.only_creator"))
        return
    # The one lobby message comes down to the command, showing its settings.
    await show_lobby(context, game_id, settings=True, anew=True)


async def show_lobby(
    context: BotContext, game_id: str, *, settings: bool, anew: bool = False
) -> None:
    """Redraw the group's lobby message, as the game is now, with its buttons or its
    settings (``anew``: posted again at the bottom of the chat). Nothing once the lobby
    is over."""
    services = context.services
    state, version = await asyncio.to_thread(services.load, game_id)
    if state.phase != "lobby":
        return
    table = await asyncio.to_thread(services.table, game_id, state)
    drawn = lobby_view.lobby(state, version, table, settings=settings, anew=anew)
    await services.outbox.deliver([drawn])


def set_lobby_language(services: BotServices, chat_id: int, topic: int | None, value: int) -> None:
    """The lobby's language button changes the language the lobby speaks: its topic's,
    when an admin gave the topic its own, else the group's."""
    code = LANGUAGES[value]
    if topic is not None and services.topics.language(chat_id, topic) is not None:
        services.topics.set_language(chat_id, topic, code)
    else:
        services.botstate.set_chat_language(chat_id, code)


async def change_seat_level(
    update: Update,
    context: BotContext,
    game_id: str,
    drawn_at: int,
    press: kb.Press,
    user: User,
    texts: Texts,
) -> Reply:
    """A computer player's own level button in the lobby's settings (docs/rules.md §7.5):
    that one seat moves to the level the button asks for. Who may press it is who may change
    the settings; a button drawn before the lobby last changed is out of date (the seat it
    names may be gone, its number given to another computer player), unless what it asks
    for is done already (a second tap)."""
    services = context.services
    state, version = await asyncio.to_thread(services.load, game_id)
    chat = update.effective_chat
    if chat is None or state.phase != "lobby":
        return Reply(error_text(texts, "not_in_lobby"), alert=True)
    if not await may_manage(context, state, chat.id, user):
        return Reply(texts.t("lobby.only_creator"), alert=True)
    player, value = press.player, press.value
    if player is None or value is None or not 0 <= value < len(LEVELS):
        return Reply(texts.t("error.forged_button"), alert=True)
    level = LEVELS[value]
    if state.is_computer(player) and state.level_of(player) == level:
        return Reply()  # a second tap: the first one counted
    if drawn_at != version or not state.is_computer(player):
        return Reply(texts.t("error.stale_button"), alert=True)
    actor = state.creator if state.creator is not None else user.id
    command = SetComputerLevel(actor, level, player)
    error = await run(context, game_id, command, update, acted_by(user))
    if error:
        return Reply(error_text(texts, error), alert=True)
    name = short(state.names.get(player, "?"), ALERT_NAME_LIMIT)
    return Reply(texts.t("story.level_set", name=name, level=texts.t(f"level.{level}")))


async def change_setting(
    update: Update, context: BotContext, game_id: str, press: kb.Press, user: User, texts: Texts
) -> Reply:
    """A settings button: edition, timer, away play and gold pick are game settings,
    language is the group's."""
    services = context.services
    state, _ = await asyncio.to_thread(services.load, game_id)
    chat = update.effective_chat
    if chat is None or state.phase != "lobby":
        return Reply(error_text(texts, "not_in_lobby"), alert=True)
    if not await may_manage(context, state, chat.id, user):
        return Reply(texts.t("lobby.only_creator"), alert=True)
    actor = state.creator if state.creator is not None else user.id
    value = press.value if press.value is not None else -1
    if press.action == kb.SET_LANGUAGE:
        if not 0 <= value < len(LANGUAGES):
            return Reply(texts.t("error.forged_button"), alert=True)
        await asyncio.to_thread(set_lobby_language, services, chat.id, state.topic, value)
        texts = await asyncio.to_thread(services.texts_for_chat, chat.id, None, state.topic)
    elif press.action == kb.SET_LEVEL:
        if not 0 <= value < len(LEVELS):
            return Reply(texts.t("error.forged_button"), alert=True)
        level = SetComputerLevel(actor, LEVELS[value])
        error = await run(context, game_id, level, update, acted_by(user))
        if error:
            return Reply(error_text(texts, error), alert=True)
    elif press.action == kb.SET_EDITION:
        if not 0 <= value < len(kb.EDITIONS):
            return Reply(texts.t("error.forged_button"), alert=True)
        edition: Edition = kb.EDITIONS[value]
        most = PLAYER_LIMITS[edition][1]
        if len(state.seating) > most:
            # Too many seated for that edition: say so, with the numbers; nothing changes.
            name = texts.t(f"edition.{edition}")
            count = len(state.seating)
            too_many = texts.t("lobby.too_many", edition=name, max=most, count=count)
            return Reply(too_many, alert=True)
        command = ChangeSettings(actor, edition=edition)
        error = await run(context, game_id, command, update, acted_by(user))
        if error:
            return Reply(error_text(texts, error), alert=True)
    elif press.action == kb.SET_VARIANT:
        if not 0 <= value < len(VARIANTS):
            return Reply(texts.t("error.forged_button"), alert=True)
        # The button switches its variant on or off; the others stay as they are.
        name = VARIANTS[value]
        variants = tuple(v for v in VARIANTS if (v in state.variants) != (v == name))
        command = ChangeSettings(actor, variants=variants)
        error = await run(context, game_id, command, update, acted_by(user))
        if error:
            return Reply(error_text(texts, error), alert=True)
    else:
        choices: dict[str, tuple[str, tuple[object, ...]]] = {
            kb.SET_TIMER: ("turn_seconds", kb.TIMER_PRESETS),
            kb.SET_AWAY: ("away_play", AWAY_PLAY),
            kb.SET_GOLD_PICK: ("gold_pick", GOLD_PICKS),
        }
        field, options = choices[press.action]
        if not 0 <= value < len(options):
            return Reply(texts.t("error.forged_button"), alert=True)
        command = ChangeSettings(actor, **{field: options[value]})  # type: ignore[arg-type]
        error = await run(context, game_id, command, update, acted_by(user))
        if error:
            return Reply(error_text(texts, error), alert=True)
    if press.action == kb.SET_LANGUAGE:
        # No event for a language: redraw the lobby here, in the new language.
        await show_lobby(context, game_id, settings=True)
    return Reply(texts.t("bot.settings_saved"))
