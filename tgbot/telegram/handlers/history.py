"""Finished games: ``/history``, ``/stats``, ``/replay`` and the replay message's buttons.

A replay is one photo message (the board after a move, the move told with every secret
in the caption) edited in place by ⏮ ◀ ▶ ⏭ and by jumps to each round's start and end; a
step too long for one caption is told in pages that ◀ ▶ turn. Every button carries its
game's id in the signed callback data, and a press is refused unless the message it sits
on shows that same game. A game still running is refused: its public board is what the
group already sees. A game is opened in its own group, or for a player of its group.
``/history`` pages through a group's games, edited in place.

Wire it with :func:`register` from ``tgbot.telegram.app.build_application``.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from telegram import Chat, InlineKeyboardButton, InlineKeyboardMarkup, Message, Update
from telegram.ext import Application, ApplicationHandlerStop, CommandHandler

from domain.events import Event
from infra.event_store import BrokenChain, EventStore
from infra.history import (
    HistoryProjector,
    computer_figures,
    group_figures,
    history,
    last_finished,
    player_figures,
    player_history,
)
from infra.lru import LRU
from tgbot.presenter import callback as cb
from tgbot.presenter import keyboards as kb
from tgbot.presenter.caption import CAPTION_LIMIT, runs
from tgbot.presenter.keyboards import OPEN
from tgbot.presenter.messages import Animation, Photo, Picture
from tgbot.presenter.standings import group_variant_lines, variant_lines
from tgbot.presenter.telegram_html import TEXT_LIMIT, length
from tgbot.presenter.texts import Texts
from tgbot.presenter.variants import variants_line
from tgbot.presenter.zones import date_text
from tgbot.replay.gif import hidden_goals, replay_gif
from tgbot.replay.steps import (
    GameCancelledError,
    GameNotFinishedError,
    GameTamperedError,
    Replay,
    ReplayError,
    Step,
    caption,
    text,
)
from tgbot.telegram import gateway
from tgbot.telegram.context import BotContext, BotServices
from tgbot.telegram.handlers import achievements, standings
from tgbot.telegram.handlers.common import (
    deliver,
    display_name,
    message_presses,
    press_chats,
    update_texts,
)
from tgbot.telegram.handlers.topics import topic_of

log = logging.getLogger(__name__)

STEP: Final = "vs"  # value: the step to show; page: the page of its caption
GIF: Final = "vg"
PAGE: Final = "vh"  # value: how many newer games the /history page skips
ACTIONS: Final = (STEP, GIF, OPEN, PAGE)
HISTORY_DATA: Final = "history"  # the game field of a /history page button (no one game)
HISTORY_LIMIT: Final = 10
CACHED_REPLAYS: Final = 16
CACHED_GIFS: Final = 8
GIF_BUDGET_BYTES: Final = 64 * 1024 * 1024


# -- loading replays ---------------------------------------------------------------------


class ReplayCache:
    """The last replays opened, kept in memory: a finished game never changes, so stepping
    through it folds from the replay's in-memory checkpoints."""

    def __init__(self, size: int = CACHED_REPLAYS) -> None:
        self._replays: LRU[str, Replay] = LRU(size)

    def get(self, services: BotServices, game_id: str) -> Replay:
        found = self._replays.get(game_id)
        if found is None:
            found = self._replays[game_id] = load_replay(
                services.store, game_id, services.service.decode
            )
        return found


def load_replay(store: EventStore, game_id: str, decode: Any) -> Replay:
    """A finished game's replay, folded from its stored events only (no snapshot, no read
    model).

    Raises :class:`GameNotFoundError`, :class:`GameNotFinishedError` or, when the game's
    hash chain does not hold, :class:`GameTamperedError`.
    """
    try:
        stored = store.load(game_id, verified=True)
    except BrokenChain as error:
        log.warning("replay of %s refused: %s", game_id, error)
        raise GameTamperedError(str(error)) from error
    events: list[Event] = [decode(e) for e in stored]
    return Replay(game_id, events)


class GifCache:
    """The GIFs made last, per (game, language), at most ``size`` of them and ``budget``
    bytes in all; and the ones being made right now, so a second press does not make the
    same GIF again alongside the first."""

    def __init__(self, size: int = CACHED_GIFS, budget: int = GIF_BUDGET_BYTES) -> None:
        self.size = size
        self.budget = budget
        self._gifs: LRU[tuple[str, str], bytes] = LRU(size)
        self._making: set[tuple[str, str]] = set()

    def get(self, key: tuple[str, str]) -> bytes | None:
        return self._gifs.get(key)

    def start(self, key: tuple[str, str]) -> bool:
        """Claim the making of ``key``'s GIF; False when it is already being made."""
        if key in self._making:
            return False
        self._making.add(key)
        return True

    def done(self, key: tuple[str, str]) -> None:
        self._making.discard(key)

    def put(self, key: tuple[str, str], gif: bytes) -> None:
        self._gifs[key] = gif  # at most ``size`` of them
        while len(self._gifs) > 1 and sum(map(len, self._gifs.values())) > self.budget:
            self._gifs.popitem(last=False)


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


# -- what a replay message shows ------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ReplayView:
    """What the replay message shows: the board after the step, its caption (HTML), its
    buttons (drawn for the game's id and its number of events)."""

    picture: Picture
    caption: str
    keyboard: kb.Keyboard
    game: str
    version: int

    def message(self, chat: int, message_id: int | None = None, topic: int | None = None) -> Photo:
        return Photo(
            chat,
            self.picture,
            self.caption,
            self.keyboard,
            message_id,
            self.game,
            self.version,
            topic,
        )


def replay_button(game_id: str, key: bytes, chat: int, label: str = "🎬") -> InlineKeyboardButton:
    """A button that opens the replay of ``game_id`` (in /history's list, in ``chat``)."""
    data = kb.replay_button(game_id, label).press
    assert data is not None
    raw = cb.encode(data.data(game_id, 0), key, chat)
    return InlineKeyboardButton(label, callback_data=raw)


def keyboard(replay: Replay, index: int, lang: str, page: int = 0, pages: int = 1) -> kb.Keyboard:
    """⏮ ◀ ▶ ⏭, a row per round with its start and its end, and the GIF button. ◀ and ▶ turn the
    pages of a step told in several captions before they move to another step."""
    last = len(replay) - 1

    def button(label: str, target: int, target_page: int = 0) -> kb.Button:
        target = max(0, min(last, target))
        here = (target, target_page) == (index, page)
        shown = "·" + label + "·" if here else label
        return kb.Button(shown, kb.Press(STEP, value=target, page=target_page or None))

    back = button("◀", index, page - 1) if page > 0 else button("◀", index - 1)
    forward = button("▶", index, page + 1) if page + 1 < pages else button("▶", index + 1)
    moves = [button("⏮", 0), back, forward, button("⏭", last)]
    jumps = [  # a row per round: "▶ Round 2: start", "■ Round 2: end"
        [
            button(text(lang, "replay.button_start", round=round_no), start),
            button(text(lang, "replay.button_end", round=round_no), end),
        ]
        for round_no, start, end in replay.jumps()
    ]
    gif = kb.Button(text(lang, "replay.button_gif"), kb.Press(GIF))
    return kb.keyboard([moves, *jumps, [gif]])


def step_picture(step: Step) -> Picture:
    """The board after ``step``, the move's cell framed, the goals' kinds shown."""
    return Picture(
        board=tuple(sorted(step.state.board.items())),
        last=step.highlight,
        peeks=tuple(sorted(hidden_goals(step).items())),
    )


def _title(replay: Replay, step: Step, lang: str, page: int, pages: int) -> str:
    title = text(
        lang,
        "replay.title",
        game=replay.game_id,
        edition=text(lang, f"edition.{step.state.edition}"),
        round=step.round,
        index=step.index + 1,
        total=len(replay),
    )
    if pages > 1:
        title += text(lang, "replay.page", page=page + 1, pages=pages)
    return title


def caption_pages(replay: Replay, step: Step, lang: str, limit: int = CAPTION_LIMIT) -> list[str]:
    """The step's captions, each within Telegram's ``limit``: its title, then as many of
    its lines as fit, the rest on the next pages. Nothing is cut off."""
    room = limit - length(_title(replay, step, lang, 98, 99)) - 1
    pieces = [piece for line in caption(step, lang).splitlines() for piece in _split(line, room)]
    pages = runs(pieces, room) or [[]]
    return [
        _title(replay, step, lang, number, len(pages)) + "\n" + "\n".join(lines)
        for number, lines in enumerate(pages)
    ]


def _split(line: str, room: int) -> list[str]:
    """``line`` in pieces of at most ``room`` long as Telegram counts, cut after a comma
    or a space."""
    pieces: list[str] = []
    while length(line) > room:
        low, high = 1, len(line)  # the longest start that fits: line[:low]
        while low < high:
            middle = (low + high + 1) // 2
            low, high = (middle, high) if length(line[:middle]) <= room else (low, middle - 1)
        cut = max(line.rfind(", ", 0, low - 1) + 1, line.rfind(" ", 0, low))
        cut = cut if cut > 0 else low
        pieces.append(line[:cut].rstrip())
        line = line[cut:].lstrip()
    pieces.append(line)
    return pieces


def replay_view(replay: Replay, index: int, lang: str, page: int = 0) -> ReplayView:
    """What the replay message shows at step ``index`` (and ``page`` of its caption)."""
    step = replay.step(index)
    pages = caption_pages(replay, step, lang)
    page = max(0, min(page, len(pages) - 1))
    return ReplayView(
        step_picture(step),
        pages[page],
        keyboard(replay, step.index, lang, page, len(pages)),
        replay.game_id,
        len(replay.events),
    )


# -- /history and /stats --------------------------------------------------------------------


def history_message(
    services: BotServices, chat_id: int, lang: str, offset: int = 0, player: int | None = None
) -> tuple[str, InlineKeyboardMarkup | None]:
    """A page of finished games, newest first, skipping ``offset`` of them: the group's, or
    with ``player`` (a private chat) the ones that player played in any group. A Replay
    button per game and ◀ newer / older ▶ buttons when there are more."""
    HistoryProjector(services.store.engine, services.store).catch_up()
    offset = max(0, min(offset, cb.MAX_SMALL))
    texts = Texts(lang)
    if player is None:
        entries = history(services.store.engine, chat_id, HISTORY_LIMIT + 1, offset)
        title, empty, tz = "history.title", "history.empty", services.zone(chat_id)
    else:
        entries = player_history(services.store.engine, player, HISTORY_LIMIT + 1, offset)
        title, empty, tz = "history.title_player", "history.empty_player", dt.UTC
    if not entries:
        return texts.t(empty), None
    older = len(entries) > HISTORY_LIMIT
    lines = [texts.t(title)]
    buttons: list[list[InlineKeyboardButton]] = []
    for number, entry in enumerate(entries[:HISTORY_LIMIT], start=offset + 1):
        date = date_text(entry.finished_at, tz)
        winners = ", ".join(entry.winners) or text(lang, "story.nobody")
        line = f"{number}. " + text(
            lang,
            "history.line",
            date=date,
            edition=texts.t(f"edition.{entry.edition}"),  # the bot's name for it, as the lobby's
            players=", ".join(entry.players),
            winners=winners,
            game=entry.game_id,
        )
        if entry.variants:  # a game played with variants says which (docs/rules.md §8)
            line += " " + variants_line(entry.variants, texts)
        if buttons and length("\n".join([*lines, line])) > TEXT_LIMIT - 100:
            older = True  # the rest goes to the next page
            break
        lines.append(line)
        label = f"{number}. " + text(lang, "history.button", date=date)
        key = services.callback_key
        buttons.append([replay_button(entry.game_id, key, chat_id, "🎬 " + label)])
    shown = len(buttons)
    pages = []
    if offset > 0:
        newer = max(0, offset - HISTORY_LIMIT)
        pages.append(
            _page_button(services.callback_key, chat_id, text(lang, "history.newer"), newer)
        )
    if older:
        pages.append(
            _page_button(
                services.callback_key, chat_id, text(lang, "history.older"), offset + shown
            )
        )
    if pages:
        buttons.append(pages)
    return "\n".join(lines), InlineKeyboardMarkup(buttons)


def _page_button(key: bytes, chat: int, label: str, offset: int) -> InlineKeyboardButton:
    data = cb.CallbackData(PAGE, HISTORY_DATA, 0, value=min(offset, cb.MAX_SMALL))
    return InlineKeyboardButton(label, callback_data=cb.encode(data, key, chat))


def stats_message(
    services: BotServices, lang: str, player_id: int, name: str, chat_id: int | None
) -> str:
    """The player's figures, and in a group the group's: a tie is shown as a tie, and
    no favourite dwarf is named before a round was won."""
    engine = services.store.engine
    HistoryProjector(engine, services.store).catch_up()
    texts = Texts(lang)
    mine = player_figures(engine, player_id)
    lines = [
        texts.t(
            "stats.player",
            name=mine.name or name,
            games=texts.t("count.games_played", n=mine.games),
            wins=texts.t("count.wins", n=mine.wins),
            gold=texts.t("count.gold", n=mine.gold),
        ),
        *_most_line(texts, ROLES, _role_names(texts, mine.favourite_roles), mine.role_rounds),
        # The games played with a variant, apart (docs/rules.md §8).
        *variant_lines(texts, mine.variant_games, mine.variant_wins, mine.variant_gold),
    ]
    if chat_id is not None:
        lines.extend(standings.rating_lines(services, texts, player_id, chat_id))
    lines.extend(achievements.stats_line(services, texts, player_id))
    if chat_id is not None:
        group = group_figures(engine, chat_id)
        lines.append("")
        games = texts.t("count.games_finished", n=group.games)
        # One per winner of each game: counted as winners, not as wins.
        winners = texts.t("count.winners", n=group.wins)
        lines.append(texts.t("stats.group", games=games, winners=winners, gold=group.gold))
        roles = _role_names(texts, group.favourite_roles)
        lines.extend(_most_line(texts, ROLES, roles, group.role_rounds))
        lines.extend(_most_line(texts, TOP, list(group.top_winners), group.top_wins))
        lines.extend(group_variant_lines(texts, group.variant_games, group.variant_wins))
        # The people's figures above; the computer players' apart, all of them together.
        computers = computer_figures(engine, chat_id)
        if computers.seats:
            lines.append(
                texts.t(
                    "stats.computers",
                    seats=computers.seats,
                    wins=computers.wins,
                    rounds=computers.rounds_won,
                    gold=computers.gold,
                )
            )
    return "\n".join(lines)


def _role_names(texts: Texts, roles: Sequence[str]) -> list[str]:
    return [texts.role_name(role) for role in roles]


# The line's two keys (one name, a tie) and the counted noun it counts in.
ROLES: Final = ("stats.roles", "stats.roles_tied", "count.rounds")
TOP: Final = ("stats.top", "stats.top_tied", "count.wins")


def _most_line(
    texts: Texts, keys: tuple[str, str, str], names: Sequence[str], count: int
) -> list[str]:
    """The line for the one name with the highest count (``keys[0]``) or for several
    (``keys[1]``: a tie); no line when nobody counts."""
    if not names:
        return []
    key = keys[0] if len(names) == 1 else keys[1]
    return [texts.t(key, names=", ".join(names), count=texts.t(keys[2], n=count))]


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
    HistoryProjector(services.store.engine, services.store).catch_up()
    return last_finished(services.store.engine, chat_id)


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
