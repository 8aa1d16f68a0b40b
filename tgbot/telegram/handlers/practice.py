"""``/practice`` in private: a game of one's chosen edition and size against computer
players, played entirely in the private chat (its "group" is that chat) and left out of
the statistics (the game is created as a practice game).

The edition and the size are chosen with buttons, and the computer players' level
(docs/rules.md §7.5) with ``/practice hard`` or the buttons beside the sizes; the choices
so far travel in the callback data (``value``: the edition's index, ``page``: the number of
seats, ``card``: the level's index in :data:`LEVELS`, normal when absent).
"""

from __future__ import annotations

import asyncio
from typing import Final

from telegram import CallbackQuery, Chat, InlineKeyboardButton, InlineKeyboardMarkup, Update, User

from domain.cards import PLAYER_LIMITS, Edition
from domain.commands import LEVELS, AddComputerPlayer, Command, CreateGame, Level, StartGame
from tgbot.presenter import callback as cb
from tgbot.presenter import keyboards as kb
from tgbot.presenter.texts import Texts
from tgbot.telegram import gateway
from tgbot.telegram.context import BotContext
from tgbot.telegram.handlers.common import display_name, error_text, execute, remember, user_texts

# The buttons name no game yet: this stands in for one.
PRACTICE_DATA: Final = "practice"


NORMAL: Final = LEVELS.index("normal")


def _button(
    context: BotContext,
    chat: int,
    label: str,
    edition: int,
    seats: int | None = None,
    level: int = NORMAL,
) -> InlineKeyboardButton:
    """A button of the private chat ``chat`` (its signature binds it there)."""
    data = cb.CallbackData(
        kb.PRACTICE,
        PRACTICE_DATA,
        0,
        value=edition,
        page=seats,
        card=None if level == NORMAL else level,
    )
    key = context.services.callback_key
    return InlineKeyboardButton(label, callback_data=cb.encode(data, key, chat))


def editions_markup(
    context: BotContext, texts: Texts, chat: int, level: int = NORMAL
) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup(
        [
            [_button(context, chat, texts.t(f"edition.{e}"), i, level=level)]
            for i, e in enumerate(kb.EDITIONS)
        ]
    )


def sizes_markup(
    context: BotContext, texts: Texts, edition: int, chat: int, level: int = NORMAL
) -> InlineKeyboardMarkup:
    low, high = PLAYER_LIMITS[kb.EDITIONS[edition]]
    sizes = [
        _button(context, chat, str(n), edition, n, level) for n in range(max(low, 2), high + 1)
    ]
    levels = [
        _button(
            context,
            chat,
            ("✅ " if n == level else "") + texts.t(f"settings.button_level_{chosen}"),
            edition,
            level=n,
        )
        for n, chosen in enumerate(LEVELS)
    ]
    return InlineKeyboardMarkup([*(sizes[i : i + 4] for i in range(0, len(sizes), 4)), levels])


def size_question(texts: Texts, edition: int, level: int) -> str:
    """The size step's text: the edition, and the computer players' level."""
    name = texts.t(f"edition.{kb.EDITIONS[edition]}")
    return "\n".join(
        (
            texts.t("practice.choose_size", edition=name),
            texts.t("practice.level", level=texts.t(f"level.{LEVELS[level]}")),
        )
    )


async def practice(update: Update, context: BotContext) -> None:
    """``/practice [easy|normal|hard]``: in private, the edition to choose (the computer
    players at that level); in a group, where to send it."""
    chat, user, message = update.effective_chat, update.effective_user, update.effective_message
    if chat is None or user is None or message is None:
        return
    texts = await user_texts(context, user)
    if chat.type != Chat.PRIVATE:
        await gateway.reply(message, texts.t("practice.private_only"))
        return
    words = [w.casefold() for w in (context.args or [])]
    if len(words) > 1 or (words and words[0] not in LEVELS):
        await gateway.reply(message, texts.t("practice.level_usage"))
        return
    level = LEVELS.index(words[0]) if words else NORMAL
    await remember(context, user, private_chat=True)
    await gateway.reply(
        message,
        texts.t("practice.choose_edition"),
        shown=context.services.shown,
        reply_markup=editions_markup(context, texts, chat.id, level),
    )


async def on_press(
    update: Update, context: BotContext, query: CallbackQuery, data: cb.CallbackData, user: User
) -> None:
    """An edition chosen (the sizes follow), or a size (the game starts)."""
    texts = await user_texts(context, user)
    message = query.message
    edition = data.value if data.value is not None else -1
    if message is None or message.chat.id != user.id or not 0 <= edition < len(kb.EDITIONS):
        await gateway.answer_press(query, texts.t("error.not_your_button"), show_alert=True)
        return
    level = data.card if data.card is not None else NORMAL
    if not 0 <= level < len(LEVELS):
        await gateway.answer_press(query, texts.t("error.forged_button"), show_alert=True)
        return
    if data.page is None:
        await gateway.answer_press(query)
        await gateway.edit_pressed(
            query,
            size_question(texts, edition, level),
            reply_markup=sizes_markup(context, texts, edition, user.id, level),
            shown=context.services.shown,
        )
        return
    low, high = PLAYER_LIMITS[kb.EDITIONS[edition]]
    if not max(low, 2) <= data.page <= high:
        await gateway.answer_press(query, texts.t("error.forged_button"), show_alert=True)
        return
    chosen: Edition = kb.EDITIONS[edition]
    error = await start_practice(update, context, user, chosen, data.page, LEVELS[level])
    if error is not None:
        await gateway.answer_press(query, error, show_alert=True)
        return
    await gateway.answer_press(query)
    await gateway.unbutton_pressed(query, shown=context.services.shown)


async def start_practice(
    update: Update,
    context: BotContext,
    user: User,
    edition: Edition,
    seats: int,
    level: Level = "normal",
) -> str | None:
    """Open, fill with computer players of ``level`` and start a practice game in
    ``user``'s private chat: None when it started, else why not."""
    services = context.services
    texts = await user_texts(context, user)
    if await asyncio.to_thread(services.active_game, user.id) is not None:
        return texts.t("practice.already")
    game_id = await asyncio.to_thread(services.next_game_id, user.id)
    create = CreateGame(user.id, display_name(user), edition, user.id, practice=True)
    commands: list[Command] = [
        create,
        *(AddComputerPlayer(user.id, level=level) for _ in range(seats - 1)),
        StartGame(user.id),
    ]
    for step, command in enumerate(commands):
        error = await execute(
            services,
            game_id,
            command,
            idempotency_key=f"tg:{update.update_id}:{step}",
            metadata={"telegram_update_id": update.update_id},
        )
        if error is not None:
            return error_text(texts, error)
    return None
