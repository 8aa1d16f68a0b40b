"""Messages derived from events: the notifier follows the event log and tells the chats.

Whoever appended an event — a button press in this process, a deadline in a Celery worker,
another bot instance — the notifier announces it once: it reads :meth:`EventStore.read_all`
from its recorded position, folds each game's state, and sends or edits the messages the
new events call for. Each game's progress is claimed before its messages go out, so a
restart goes on where it stopped and repeats nothing, and a game whose announcing failed
is tried again later without holding up the others. What a chat sees always goes through
:func:`domain.view.view_for` and :func:`domain.view.describe`: the group as the public
(``None``), a private chat as its player.

Per turn the group's one board message is edited (a new one per round), the player who
acted gets their prompt edited and the next player gets a new prompt: three calls.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import logging
import os
import re
import socket
import time
import uuid
from collections import defaultdict
from collections.abc import Awaitable, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import aiohttp
import httpx
from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup, InputMediaPhoto, Message
from telegram.constants import ParseMode
from telegram.error import (
    BadRequest,
    ChatMigrated,
    Forbidden,
    NetworkError,
    RetryAfter,
    TelegramError,
)

from domain import events as ev
from domain.board import Cell, Tile
from domain.cards import PLAYER_LIMITS
from domain.decider import evolve, fold
from domain.moves import legal_moves
from domain.state import GameState, PlayerId
from domain.view import View, describe, view_for
from infra.archive import imported_streams
from infra.db import reader
from infra.event_store import StoredEvent
from tgbot import keyboards as kb
from tgbot import render
from tgbot.context import BotServices
from tgbot.invitations import after_game_rows, tell_subscribers
from tgbot.texts import Texts, cell_text, esc, mention, name_html
from tgbot.zones import clock_time

log = logging.getLogger(__name__)

NOTIFIER_KEY = "notifier"  # where the application keeps its notifier (bot_data)
LOBBY, BOARD, PROMPT = "lobby", "board", "prompt"
UNREACHABLE = "unreachable"  # the group was told this player must open the private chat
SETTINGS = "settings"  # the lobby message shows the settings (its message id)
ATTEMPTS = 4  # tries per Telegram call (flood limits waited out, network errors)
# Calls that do the same when repeated: tried again after any network error. Any other
# (a send) only when the request surely never left (see never_sent).
REPEATABLE = ("edit_", "delete_", "get_")
UNSENT = (
    aiohttp.ClientConnectorError,
    aiohttp.ConnectionTimeoutError,
    httpx.ConnectError,
    httpx.ConnectTimeout,
    httpx.PoolTimeout,
    ConnectionRefusedError,
)
NETWORK_BACKOFF = 0.25  # seconds before the second try; doubled each time
MAX_FAILURES = 3  # a game's events whose announcing failed this often are given up
LEASE_MS = 15_000  # how long the announcing instance's lease lasts without renewal
CAPTION_LIMIT = 1024  # Telegram's limit for a photo's caption
BOARD_MOVES = 8  # move lines a board caption shows at most
TAG = re.compile(r"<[^>]*>")
ENTITY_TAIL = re.compile(r"&[#\w]*$")  # an HTML entity cut short at the end
# Events after which a keyboard drawn earlier still means the same thing.
HARMLESS = (ev.PlayerReminded,)
FRONT_ICONS = {
    "broken_pickaxe": "⛏✖",
    "broken_lantern": "🔦✖",
    "broken_cart": "🛒✖",
    "trapped": "⛓",
    "theft": "💰",
}


def start_link(username: str, payload: str) -> str:
    return f"https://t.me/{username}?start={payload}"


class Outbox:
    """Sends to Telegram, handling what Telegram answers: a user who blocked the bot, a
    group that became a supergroup, "message is not modified", flood limits."""

    def __init__(self, bot: Bot, services: BotServices) -> None:
        self.bot = bot
        self.services = services

    async def send_picture(
        self, chat_id: int, method: str, png: bytes, *, caption: str, **kwargs: Any
    ) -> Any:
        """``send_photo`` or ``edit_message_media`` of ``png`` with its HTML ``caption``:
        by the ``file_id`` Telegram gave the same picture before, if any; should Telegram
        refuse that id (it forgot the file), once more with the bytes. The id of what was
        sent is remembered. None when Telegram refused."""
        photos = self.services.photos
        known = photos.file_id(png)
        if known is not None:
            try:
                sent = await self.call(
                    chat_id, method, strict=True, **_picture(method, known, caption, kwargs)
                )
            except BadRequest as error:
                log.info(
                    "%s to %s: file %s refused (%s); uploaded again",
                    method,
                    chat_id,
                    known,
                    error.message,
                )
                photos.forget(png)
            else:
                photos.remember(png, sent)
                return sent
        sent = await self.call(chat_id, method, **_picture(method, png, caption, kwargs))
        photos.remember(png, sent)
        return sent

    async def call(self, chat_id: int, method: str, *, strict: bool = False, **kwargs: Any) -> Any:
        """Call ``bot.<method>(chat_id=..., **kwargs)``; None when Telegram refused
        (``strict``: a BadRequest is raised instead, but for "not modified")."""
        chat_id = self.services.botstate.resolve_chat(chat_id)
        for attempt in range(ATTEMPTS):
            try:
                result = await getattr(self.bot, method)(chat_id=chat_id, **kwargs)
            except RetryAfter as error:
                await asyncio.sleep(_seconds(error.retry_after))
            except ChatMigrated as error:
                self.services.botstate.set_migrated(chat_id, error.new_chat_id)
                if method != "send_message" and method != "send_photo":
                    return None  # the message lives in the old chat: the caller sends anew
                chat_id = error.new_chat_id
            except BadRequest as error:
                if "not modified" in error.message.lower():
                    return True
                if strict:
                    raise
                log.info("%s to %s refused: %s", method, chat_id, error.message)
                return None
            except Forbidden as error:
                log.info("%s to %s forbidden: %s", method, chat_id, error.message)
                if chat_id > 0:
                    raise
                return None
            except NetworkError as error:  # timed out, a 5xx, a dropped connection
                if not method.startswith(REPEATABLE) and not never_sent(error):
                    # Telegram may have carried it out and only the answer was lost:
                    # sending it again could show the message twice.
                    log.warning(
                        "%s to %s may have arrived; not repeated: %s", method, chat_id, error
                    )
                    _went_out(method)
                    return None
                log.warning("%s to %s failed (attempt %d): %s", method, chat_id, attempt + 1, error)
                if attempt + 1 < ATTEMPTS:
                    await asyncio.sleep(NETWORK_BACKOFF * 2**attempt)
            except TelegramError as error:
                log.warning("%s to %s failed: %s", method, chat_id, error)
                return None
            else:
                _went_out(method)
                return result
        log.warning("%s to %s dropped after %d attempts", method, chat_id, ATTEMPTS)
        return None


@dataclass
class Delivery:
    """Whether a batch sent anything that announcing it again would send a second time
    (a message sent, or a send whose answer was lost); edits and deletes repeat safely."""

    sent: bool = False


DELIVERY: ContextVar[Delivery | None] = ContextVar("delivery", default=None)


def _went_out(method: str) -> None:
    delivery = DELIVERY.get()
    if delivery is not None and not method.startswith(REPEATABLE):
        delivery.sent = True


def _picture(
    method: str, media: str | bytes, caption: str, kwargs: dict[str, Any]
) -> dict[str, Any]:
    if method == "edit_message_media":
        photo = InputMediaPhoto(media, caption=caption, parse_mode=ParseMode.HTML)
        return {"media": photo, **kwargs}
    return {"photo": media, "caption": caption, "parse_mode": ParseMode.HTML, **kwargs}


def never_sent(error: BaseException) -> bool:
    """Whether a failed request surely never reached Telegram: no connection could be
    opened (refused, no route, timed out connecting or waiting for the pool)."""
    cause: BaseException | None = error
    while cause is not None:
        if isinstance(cause, UNSENT):
            return True
        cause = cause.__cause__ or cause.__context__
    return False


def _seconds(value: object) -> float:
    total = getattr(value, "total_seconds", None)
    return float(total()) if callable(total) else float(value)  # type: ignore[arg-type]


class Notifier:
    """Follows the event log and announces every event once."""

    def __init__(
        self,
        services: BotServices,
        bot: Bot,
        *,
        bot_username: str,
        poll_interval: float = 1.0,
        name: str = "notifier",
    ) -> None:
        self.services = services
        self.bot = bot
        self.outbox = Outbox(bot, services)
        self.bot_username = bot_username
        self.poll_interval = poll_interval
        self.name = name
        self.position: int | None = None
        # Only the instance that holds the lease announces (see :meth:`lead`).
        self.holder = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self.leading = False
        self.lease_until = 0.0  # monotonic seconds when the lease must be renewed by
        self.cache: dict[str, tuple[GameState, int]] = {}
        self.failures: dict[tuple[str, int], int] = {}
        # Claims to take back (game -> (claimed, announced before)) that failed to be:
        # taken back before the next catch-up, or the game's events would pass as told.
        self.unclaims: dict[str, tuple[int, int]] = {}
        self.sent: list[tuple[str, float]] = []  # (method, seconds) for the benchmark
        self._lobby_locks: dict[str, asyncio.Lock] = {}

    async def run(self) -> None:
        """Forever: while this instance holds the lease, catch up, then wait for a wake-up
        or the poll interval; else wait for the lease."""
        wake = self.services.wake
        try:
            while True:
                wake.clear()
                try:
                    handled = await self.catch_up() if await self.lead() else 0
                except asyncio.CancelledError:
                    raise
                except Exception:
                    log.exception("notifier failed; retrying")
                    await asyncio.sleep(self.poll_interval)
                    continue
                if handled:
                    continue  # more may be waiting
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(wake.wait(), self.poll_interval)
        finally:
            if self.leading:
                await asyncio.shield(asyncio.to_thread(self.resign))

    async def lead(self) -> bool:
        """Whether this instance announces: it takes or renews the lease in the database
        (renewed when a third of it is used). Two bot instances on one database: one
        announces, the other waits to take over. Whoever takes over reads the position
        afresh; the per-game claims keep even an overlap from repeating a message."""
        loop = asyncio.get_running_loop()
        if self.leading and loop.time() < self.lease_until:
            return True
        now_ms = time.time_ns() // 1_000_000
        held = await asyncio.to_thread(
            self.services.botstate.hold_lease, self.holder, now_ms, LEASE_MS, self.name
        )
        if held:
            self.lease_until = loop.time() + LEASE_MS / 3000
            if not self.leading:
                log.info("notifier %s announces", self.holder)
                # Another instance may have announced meanwhile: its position, the
                # states it folded and the messages it posted are read afresh.
                self.position = None
                self.cache.clear()
                self.services.botstate.forget_cached_messages()
        self.leading = held
        return held

    def resign(self) -> None:
        """Give the lease up (a clean shutdown), so another instance takes over at once."""
        self.leading = False
        try:
            self.services.botstate.release_lease(self.holder, self.name)
        except Exception:  # the lease runs out by itself
            log.warning("could not release the notifier lease", exc_info=True)

    async def catch_up(self, limit: int = 500) -> int:
        """Announce the events after the recorded position; returns how many were passed.

        Games are announced side by side, each game's events in order. Each game's progress
        is claimed (compare-and-set) before its messages go out, so a game is never
        announced twice, and a game that failed neither repeats nor holds up the others:
        the position stops before its events, which are tried again next time.
        """
        botstate = self.services.botstate
        # Database work runs off the event loop (handlers keep answering meanwhile).
        if self.position is None:
            self.position = await asyncio.to_thread(botstate.position, self.name)
        for game_id in list(self.unclaims):
            await self._take_back(game_id)
        start = self.position
        records = await asyncio.to_thread(self.services.store.read_all, start, limit)
        if not records:
            return 0
        by_game: dict[str, list[StoredEvent]] = {}
        for record in records:
            by_game.setdefault(record.stream_id, []).append(record)
        imported, done = await asyncio.to_thread(self._progress, list(by_game))
        for game_id in imported:
            del by_game[game_id]
        failed = await asyncio.gather(
            *(self.announce_game(g, chunk, done.get(g)) for g, chunk in by_game.items())
        )
        stuck = [position for position in failed if position is not None]
        self.position = min(stuck) - 1 if stuck else records[-1].position
        if self.position > start:
            await asyncio.to_thread(botstate.save_position, self.position, self.name)
        return self.position - start if stuck else len(records)

    def _progress(self, game_ids: list[str]) -> tuple[set[str], dict[str, int]]:
        """Of these games, the imported ones (played elsewhere: replayed by their id,
        never announced) and how far each other one was announced."""
        with reader(self.services.store.engine) as conn:
            imported = imported_streams(conn, game_ids)
        others = [g for g in game_ids if g not in imported]
        return imported, self.services.botstate.game_versions(others, self.name)

    async def _take_back(self, game_id: str) -> None:
        """Return a game's claim noted in ``unclaims`` (its events are told again)."""
        claimed, back = self.unclaims[game_id]
        await asyncio.to_thread(
            self.services.botstate.claim_game, game_id, claimed, back, self.name
        )
        del self.unclaims[game_id]

    async def announce_game(
        self, game_id: str, chunk: Sequence[StoredEvent], done: int | None
    ) -> int | None:
        """Announce one game's events after version ``done``; the position of the first
        event to try again when announcing failed, else None."""
        botstate = self.services.botstate
        fresh = [r for r in chunk if done is None or r.version > done]
        if not fresh:
            return None
        claimed = fresh[-1].version
        if not await asyncio.to_thread(botstate.claim_game, game_id, done, claimed, self.name):
            self.cache.pop(game_id, None)  # announced by someone else meanwhile
            return None
        key = (game_id, fresh[0].version)
        delivery = Delivery()
        token = DELIVERY.set(delivery)
        try:
            await self.announce(game_id, fresh)
        except asyncio.CancelledError:
            raise
        except Exception:
            self.cache.pop(game_id, None)
            if delivery.sent:
                # Announcing again would send those messages twice. The claim stays and
                # the rest of these events goes untold: the lesser evil next to duplicates
                # (the players' next moves are announced as usual; /hand shows the rest).
                self.failures.pop(key, None)
                log.exception(
                    "game %s: announcing failed after sending; up to %d left", game_id, claimed
                )
                return None
            self.failures[key] = self.failures.get(key, 0) + 1
            if self.failures[key] >= MAX_FAILURES:
                del self.failures[key]
                log.exception("game %s: events up to %d given up", game_id, claimed)
                return None
            log.exception("game %s: announcing failed; trying again", game_id)
            self.unclaims[game_id] = (claimed, done or 0)
            try:
                await self._take_back(game_id)
            except Exception:  # taken back before the next catch-up (see catch_up)
                log.exception("game %s: could not take the claim back yet", game_id)
            return fresh[0].position
        finally:
            DELIVERY.reset(token)
        self.failures.pop(key, None)
        return None

    def state_before(self, game_id: str, version: int) -> GameState:
        cached = self.cache.get(game_id)
        if cached is not None and cached[1] == version:
            return cached[0]
        events = [
            self.services.service.decode(e)
            for e in self.services.store.load(game_id)
            if e.version <= version
        ]
        return fold(events)

    async def announce(self, game_id: str, records: Sequence[StoredEvent]) -> None:
        first = records[0].version - 1
        state = await asyncio.to_thread(self.state_before, game_id, first)
        batch = _Batch(self, game_id, state, first)
        await batch.run(records)
        if batch.state.phase in ("finished", "cancelled"):
            self.cache.pop(game_id, None)
        else:
            self.cache[game_id] = (batch.state, first + len(records))

    # -- building blocks shared with the handlers ------------------------------------

    def now_ms(self) -> int:
        """Now, by the game service's clock (the one deadlines are set by)."""
        return int(self.services.service.clock_ms())

    def zone(self, state: GameState) -> dt.tzinfo:
        """The time zone the game's group shows times in."""
        return self.services.zone(state.chat_id)

    def group_texts(self, state: GameState) -> Texts:
        return self.services.texts_for_chat(self.services.botstate.resolve_chat(state.chat_id))

    def user_texts(self, player: PlayerId) -> Texts:
        return self.services.texts_for_user(player)

    def markup(self, rows: Sequence[kb.Row], game_id: str, version: int) -> InlineKeyboardMarkup:
        return kb.markup(rows, game_id, version, self.services.callback_key)

    def lobby_text(self, state: GameState, texts: Texts) -> str:
        return lobby_text(state, texts, self.bot_username)

    async def send_prompt(
        self, game_id: str, state: GameState, version: int, player: PlayerId, news: Sequence[str]
    ) -> None:
        texts = self.user_texts(player)
        caption, rows = prompt(state, player, texts, news, self.now_ms(), self.zone(state))
        png = await asyncio.to_thread(board_png, view_for(state, player))
        message = await self.reach(
            game_id,
            state,
            player,
            self.outbox.send_picture(
                player,
                "send_photo",
                png,
                caption=caption,
                reply_markup=self.markup(rows, game_id, version) if rows else None,
            ),
        )
        if isinstance(message, Message):
            # One live prompt per player: an earlier one (the same decision sent again by
            # /hand, say) keeps its text but loses its buttons.
            earlier = self.services.botstate.message(game_id, player, PROMPT)
            if earlier is not None and earlier.message_id != message.message_id:
                await self.private(
                    game_id,
                    state,
                    player,
                    "edit_message_reply_markup",
                    message_id=earlier.message_id,
                )
            await asyncio.to_thread(
                self.services.botstate.save_message,
                game_id,
                player,
                PROMPT,
                message.message_id,
                version,
            )

    def lobby_lock(self, game_id: str) -> asyncio.Lock:
        """Held by whoever draws or closes a game's lobby message: one at a time."""
        return self._lobby_locks.setdefault(game_id, asyncio.Lock())

    async def show_lobby(
        self, game_id: str, *, settings: bool | None = None, anew: bool = False
    ) -> None:
        """Draw the group's one lobby message as the game is now: the players, and either
        the lobby's buttons or its settings (``settings``; None keeps what it shows).
        ``anew``: post it again at the bottom of the chat, deleting the old one.

        The notifier (after lobby events) and the handlers (/settings, the settings and
        back buttons, a language) all draw through here, one at a time per game, each
        from the game loaded afresh: a drawing never loses a newer one, and a message
        posted anew is the one recorded. Nothing is drawn once the lobby is over."""
        async with self.lobby_lock(game_id):
            state, version = await asyncio.to_thread(self.services.load, game_id)
            if state.phase != "lobby":
                return
            await self._draw_lobby(game_id, state, version, settings, anew)

    async def _draw_lobby(
        self, game_id: str, state: GameState, version: int, settings: bool | None, anew: bool
    ) -> None:
        botstate = self.services.botstate
        chat = botstate.resolve_chat(state.chat_id)
        texts = self.group_texts(state)
        stored = botstate.message(game_id, chat, LOBBY)
        if settings is None:
            marker = botstate.message(game_id, chat, SETTINGS)
            settings = (
                stored is not None and marker is not None and marker.message_id == stored.message_id
            )
        rows = kb.settings_rows(state, texts.lang, texts) if settings else kb.lobby_rows(texts)
        text = self.lobby_text(state, texts)
        markup = self.markup(rows, game_id, version)
        if stored is not None and anew:
            if await self.outbox.call(chat, "delete_message", message_id=stored.message_id) is None:
                await self.outbox.call(
                    chat, "edit_message_reply_markup", message_id=stored.message_id
                )
            stored = None
        if stored is not None:
            done = await self.outbox.call(
                chat,
                "edit_message_text",
                message_id=stored.message_id,
                text=text,
                parse_mode=ParseMode.HTML,
                reply_markup=markup,
            )
            message_id = stored.message_id if done is not None else None
        else:
            message_id = None
        if message_id is None:
            message = await self.outbox.call(
                chat, "send_message", text=text, parse_mode=ParseMode.HTML, reply_markup=markup
            )
            if not isinstance(message, Message):
                return
            chat, message_id = message.chat.id, message.message_id
            await asyncio.to_thread(
                botstate.save_message, game_id, chat, LOBBY, message_id, version
            )
        if settings:
            await asyncio.to_thread(
                botstate.save_message, game_id, chat, SETTINGS, message_id, version
            )
        else:
            await asyncio.to_thread(botstate.forget_message, game_id, chat, SETTINGS)

    async def close_lobby(self, game_id: str, state: GameState, text: str) -> bool:
        """The lobby message, its buttons gone, tells how the lobby ended (``text``): the
        game started or was cancelled (``state``: the lobby as it ended). False when
        there was no lobby message to close."""
        async with self.lobby_lock(game_id):
            botstate = self.services.botstate
            chat = botstate.resolve_chat(state.chat_id)
            stored = botstate.message(game_id, chat, LOBBY)
            if stored is None:
                return False
            body = self.lobby_text(state, self.group_texts(state)).split("\n\n")[0]
            await self.outbox.call(
                chat,
                "edit_message_text",
                message_id=stored.message_id,
                text=f"{body}\n\n{text}",
                parse_mode=ParseMode.HTML,
            )
            await asyncio.to_thread(botstate.forget_message, game_id, chat, LOBBY)
            await asyncio.to_thread(botstate.forget_message, game_id, chat, SETTINGS)
        # Whoever still waits holds this lock and finds the lobby over; later ones get a
        # new lock and find the same.
        self._lobby_locks.pop(game_id, None)
        return True

    async def send_status(self, game_id: str, state: GameState, player: PlayerId) -> None:
        """The player's secrets (dwarf card, gold, hand) as a private message."""
        texts = self.user_texts(player)
        text, _ = prompt(state, player, texts, (), self.now_ms(), self.zone(state))
        await self.private(
            game_id, state, player, "send_message", text=text, parse_mode=ParseMode.HTML
        )

    async def private(
        self, game_id: str, state: GameState, player: PlayerId, method: str, **kwargs: Any
    ) -> Any:
        """Send to a player; if they blocked the bot, tell the group how to fix it."""
        return await self.reach(game_id, state, player, self.outbox.call(player, method, **kwargs))

    async def reach(
        self, game_id: str, state: GameState, player: PlayerId, call: Awaitable[Any]
    ) -> Any:
        """Await a call to a player's chat; if they blocked the bot, tell the group how to
        fix it (and answer None)."""
        botstate = self.services.botstate
        try:
            result = await call
        except Forbidden:
            user = botstate.user(player)
            was_open = user is not None and user.private_chat
            name = state.names.get(player, "?")
            await asyncio.to_thread(botstate.save_user, player, name, private_chat=False)
            told = botstate.message(game_id, player, UNREACHABLE) is not None
            if was_open or not told:  # once per game, unless they opened it and blocked again
                await self.blocked_notice(game_id, state, [player])
            return None
        return result

    async def blocked_notice(
        self, game_id: str, state: GameState, players: Sequence[PlayerId]
    ) -> None:
        """Tell the group which players must open the private chat, with the deep link."""
        texts = self.group_texts(state)
        link = start_link(self.bot_username, f"r{game_id}")
        button = InlineKeyboardMarkup(
            [[InlineKeyboardButton(texts.t("lobby.button_open_private"), url=link)]]
        )
        names = ", ".join(mention(p, state.names.get(p, "?")) for p in players)
        message = await self.outbox.call(
            state.chat_id,
            "send_message",
            text=texts.t("blocked.notice", name=names),
            parse_mode=ParseMode.HTML,
            reply_markup=button,
        )
        message_id = message.message_id if isinstance(message, Message) else 0
        for player in players:
            await asyncio.to_thread(
                self.services.botstate.save_message, game_id, player, UNREACHABLE, message_id, 0
            )

    async def unreachable_at_start(self, game_id: str, state: GameState) -> None:
        """At the start, name at once every player who never opened the private chat."""
        users = await asyncio.to_thread(self.services.botstate.users, state.seating)
        missing = [p for p in state.seating if p not in users or not users[p].private_chat]
        if missing:
            await self.blocked_notice(game_id, state, missing)


def prompt(
    state: GameState,
    player: PlayerId,
    texts: Texts,
    news: Sequence[str],
    now_ms: int,
    tz: dt.tzinfo = dt.UTC,
) -> tuple[str, list[kb.Row]]:
    """A player's private message: news, their secrets, and the decision they owe (its
    time left counted from ``now_ms``, the game clock's now; its deadline in ``tz``, the
    group's time zone)."""
    view = view_for(state, player)
    status = private_status(view, state, texts)
    decision: list[str] = []
    rows: list[kb.Row] = []
    pending = view.pending
    if pending is not None and pending.player == player and state.phase == "playing":
        decision.append("")
        if pending.kind == "gold_pick":
            values = ", ".join(str(v) for v in sorted(view.gold_pick_offer))
            decision.append(texts.t("turn.gold_pick_prompt", values=values))
        elif pending.kind == "theft":
            decision.append(texts.t("turn.theft_prompt"))
        else:
            decision.append(texts.t("turn.prompt_private", group=texts.t("bot.your_group")))
        decision.append(deadline_line(texts, pending.deadline, now_ms, tz))
        rows = kb.root_rows(state, player, legal_moves(state, player), texts)
    lines = [*news, *status, *decision]
    # Too long: the oldest news go first, then the secrets from the last; the decision stays.
    drop = [*range(len(news)), *reversed(range(len(news), len(news) + len(status)))]
    return fit_caption(lines, drop), rows


def prompt_caption(
    state: GameState, player: PlayerId, texts: Texts, now_ms: int, tz: dt.tzinfo = dt.UTC
) -> str:
    return prompt(state, player, texts, (), now_ms, tz)[0]


def board_png(
    view: View, labels: Mapping[Cell, str] | None = None, orientations: str | None = None
) -> bytes:
    """The board as a PNG, as ``view`` shows it: ``labels`` drawn on cells, else the last
    move framed; goals the viewer mapped peeked at; a path card's two ``orientations``
    drawn below (a placement preview)."""
    last = view.last_move.cell if view.last_move is not None else None
    marks = tuple(sorted(labels.items())) if labels else ()
    peeks = tuple(sorted(view.known_goals.items()))
    return _png(tuple(sorted(view.board.items())), marks, last, peeks, orientations)


@lru_cache(maxsize=256)
def _png(
    board: tuple[tuple[Cell, Tile], ...],
    marks: tuple[tuple[Cell, str], ...],
    last: Cell | None,
    peeks: tuple[tuple[Cell, str], ...],
    orientations: str | None = None,
) -> bytes:
    # The group's board and the next player's prompt usually show the same picture.
    highlight: Mapping[Cell, str] | Cell | None = dict(marks) if marks else last
    return render.render_board(
        dict(board),
        highlight=highlight,
        show_goal_kinds=dict(peeks) or None,
        orientations=orientations,
    )


def lobby_text(state: GameState, texts: Texts, bot_username: str) -> str:
    names = [esc(state.names[p]) for p in state.seating]
    low, high = PLAYER_LIMITS[state.edition]
    creator = esc(state.names.get(state.creator, "?")) if state.creator is not None else "?"
    lines = [
        texts.t("lobby.title", edition=texts.t(f"edition.{state.edition}"), creator=creator),
        texts.t("lobby.settings", timer=texts.timer(state.turn_seconds), min=low, max=high),
        texts.t("lobby.joined", count=len(names), max=high, names=", ".join(names))
        if names
        else texts.t("lobby.nobody"),
        "",
        texts.t("lobby.hint"),
        texts.t("bot.open_private_hint", link=start_link(bot_username, "hello")),
    ]
    return "\n".join(lines)


def deadline_line(texts: Texts, deadline_ms: int, now_ms: int, tz: dt.tzinfo = dt.UTC) -> str:
    """The time left from ``now_ms`` (the game clock's now), and the moment as a clock
    time in ``tz`` (the group's time zone): ``⏳ 3 min left (until 14:05 CET)``. Drawn
    anew each time a message is (re)drawn."""
    moment = clock_time(deadline_ms, tz)
    left = (deadline_ms - now_ms) / 1000
    if left <= 0:
        return texts.t("bot.deadline_due", time=moment)
    return texts.t("bot.deadline", left=texts.remaining(left), time=moment)


def fit_caption(lines: Sequence[str], drop: Sequence[int], limit: int = CAPTION_LIMIT) -> str:
    """``lines`` joined, at most ``limit`` characters: while too long, whole lines are left
    out in the order of their indexes in ``drop`` (never a tag or an entity cut in two).
    Only if that is not enough is the text cut — as plain text, safely."""
    left_out: set[int] = set()
    text = "\n".join(lines)
    for index in drop:
        if len(text) <= limit:
            break
        left_out.add(index)
        text = "\n".join(line for i, line in enumerate(lines) if i not in left_out)
    if len(text) <= limit:
        return text
    plain = TAG.sub("", text)  # links become their text; entities stay escaped
    cut = ENTITY_TAIL.sub("", plain[: limit - 1])
    return cut + "…"


# ------------------------------------------------------------------------- texts


def private_status(view: View, state: GameState, texts: Texts) -> list[str]:
    """The viewer's secrets: dwarf, gold, hand, what they mapped or inspected."""
    lines: list[str] = []
    if view.phase not in ("playing", "finished") or view.viewer is None:
        return lines
    lines.append(texts.t("turn.round", round=view.round))
    if view.role is not None:
        lines.append(texts.t("turn.your_role", role=texts.role_name(view.role)))
    if view.gold is not None:
        lines.append(texts.t("turn.your_gold", gold=view.gold))
    hand = ", ".join(texts.card_name(view.edition, c) for c in sorted(view.hand)) or "—"
    lines.append(f"{texts.t('turn.your_hand')} {hand}")
    me = next((s for s in view.seats if s.player == view.viewer), None)
    if me is not None and me.front:
        front = ", ".join(texts.front_name(k) for k in me.front)
        lines.append(texts.t("turn.front_cards", name=name_html(me.name), cards=front))
    for cell, kind in sorted(view.known_goals.items()):
        lines.append(texts.t("turn.map_result", cell=cell_text(cell), goal=texts.goal_name(kind)))
    for player, role in view.inspected.items():
        name = next((s.name for s in view.seats if s.player == player), "?")
        role_name = texts.role_name(role)
        lines.append(texts.t("turn.inspection_result", name=name_html(name), role=role_name))
    return lines


def public_line(d: dict[str, Any], state: GameState, texts: Texts) -> str | None:
    """One line of the group's summary for a described event (``describe(event, None)``)."""
    names = state.names

    def name(player: object) -> str:
        return name_html(names.get(player, "?")) if isinstance(player, int) else "?"

    kind = d["type"]
    if kind == "path_placed":
        return texts.t(
            "move.path_placed",
            name=name(d["player"]),
            card=texts.card_name(state.edition, d["card"]),
            cell=cell_text(tuple(d["cell"])),
        )
    if kind == "goal_revealed":
        key = "move.goal_treasure" if d["kind"] == "goal_treasure" else "move.goal_stone"
        return texts.t(key, cell=cell_text(tuple(d["cell"])))
    if kind == "action_played":
        cell = d.get("target_cell")
        tool = d.get("tool")
        return texts.t(
            f"move.action.{d['action']}",
            name=name(d["player"]),
            target=name(d.get("target_player")),
            cell=cell_text(tuple(cell)) if cell is not None else "",
            tool=texts.tool_name(tool) if tool else "",
        )
    if kind == "cards_discarded":
        count = d.get("count") or len(d.get("cards") or ()) or 1
        if count == 1:
            return texts.t("move.passed_one", name=name(d["player"]))
        return texts.t("move.passed_many", name=name(d["player"]), count=count)
    if kind == "front_card_removed":
        return texts.t(
            "move.front_removed", name=name(d["player"]), card=texts.front_name(d["removed"])
        )
    if kind == "decision_timed_out":
        return texts.t("move.timed_out", name=name(d["player"]))
    if kind == "player_went_away":
        return texts.t("away.went", name=name(d["player"]))
    if kind == "player_came_back":
        return texts.t("away.back", name=name(d["player"]))
    if kind == "round_started":
        return texts.t("move.round_started", round=d["round"], name=name(d["first_player"]))
    if kind == "gold_picked":
        return texts.t("move.gold_picked", name=name(d["player"]))
    if kind == "theft_resolved":
        if d.get("victim") is None:
            return texts.t("move.theft_nobody", thief=name(d["thief"]))
        return texts.t("move.theft", thief=name(d["thief"]), victim=name(d["victim"]))
    return None


def private_line(
    d: dict[str, Any], state: GameState, me: PlayerId, texts: Texts, at_ms: int
) -> str | None:
    """News only ``me`` may read, from ``describe(event, me)``; None when nothing new.
    ``at_ms``: when the event was recorded (a reminder tells the time left from then)."""
    names = state.names
    kind = d["type"]
    if kind == "round_started":
        roles = {p: r for p, r in d["roles"]}
        if me in roles:
            first = name_html(names.get(d["first_player"], "?"))
            return texts.t("move.round_started", round=d["round"], name=first)
    elif kind == "action_played" and d.get("result") is not None:
        if d["action"] == "map" and d.get("target_cell") is not None:
            return texts.t(
                "turn.map_result",
                cell=cell_text(tuple(d["target_cell"])),
                goal=texts.goal_name(d["result"]),
            )
        if d["action"] == "inspection":
            return texts.t(
                "turn.inspection_result",
                name=name_html(names.get(d["target_player"], "?")),
                role=texts.role_name(d["result"]),
            )
        if d["action"] == "swap_hats":
            return texts.t("turn.swap_hats_yours", role=texts.role_name(d["result"]))
    elif kind == "action_played" and d["action"] == "swap_hand" and d.get("target_player") == me:
        return texts.t("turn.swap_hand_received", name=name_html(names.get(d["player"], "?")))
    elif kind == "gold_paid":
        for player, amount in d.get("payouts") or ():
            if player == me:
                return texts.t("move.gold_paid_private", gold=amount, total=state.gold.get(me, 0))
    elif kind == "gold_picked" and d.get("player") == me and d.get("value") is not None:
        return texts.t("bot.gold_picked_private", gold=d["value"])
    elif kind == "player_went_away" and d.get("player") == me:
        return texts.t("bot.away_private")
    elif kind == "player_reminded" and d.get("player") == me:
        pending = state.pending
        if pending is None:
            return None
        left = texts.remaining((pending.deadline - at_ms) / 1000)
        return texts.t(f"reminder.{d['which']}", name=name_html(names.get(me, "?")), left=left)
    return None


def seats_line(state: GameState, view: View, texts: Texts) -> list[str]:
    lines = []
    for seat in view.seats:
        icons = " ".join(FRONT_ICONS.get(k, "") for k in seat.front)
        away = " 💤" if seat.away else ""
        lines.append(f"• {name_html(seat.name)} 🃏{seat.hand_count} {icons}{away}".rstrip())
    return lines


# ---------------------------------------------------------------------------- batch


@dataclass
class _Batch:
    """One game's new events: what to send once they are all applied."""

    notifier: Notifier
    game_id: str
    state: GameState
    version: int
    lines: list[str] = field(default_factory=list)
    news: dict[PlayerId, list[str]] = field(default_factory=lambda: defaultdict(list))
    closed: dict[PlayerId, int] = field(default_factory=dict)
    lobby_changed: bool = False
    cancelled_by: PlayerId | None = None
    cancelled_name: object = None
    user_texts: dict[PlayerId, Texts] = field(default_factory=dict)
    board_changed: bool = False
    new_board: bool = False
    went_away: set[PlayerId] = field(default_factory=set)
    opened: bool = False  # the game was created in these events
    # Group messages to send once the board is drawn: (text, buttons)
    after: list[tuple[str, InlineKeyboardMarkup | None]] = field(default_factory=list)

    def texts(self, player: PlayerId) -> Texts:
        found = self.user_texts.get(player)
        if found is None:
            found = self.user_texts[player] = self.notifier.user_texts(player)
        return found

    async def run(self, records: Sequence[StoredEvent]) -> None:
        n = self.notifier
        gtexts = n.group_texts(self.state)
        start_pending = self.state.pending
        for record in records:
            event = n.services.service.decode(record)
            at_ms = int(record.recorded_at.timestamp() * 1000)
            if isinstance(event, ev.RoundStarted):
                # The ended round's board gets its last lines first; the new round gets
                # a new board message.
                await self.flush_board(gtexts)
                self.new_board = True
            before = self.state
            self.state = evolve(before, event)
            self.version += 1
            state = self.state
            if before.chat_id != state.chat_id:  # the game was created: now we know its chat
                gtexts = n.group_texts(state)
            if before.pending is not None and (
                state.pending is None or state.pending.id != before.pending.id
            ):
                self.closed.setdefault(before.pending.player, before.pending.id)
            public = describe(event, None)
            line = public_line(public, state, gtexts)
            if line is not None:
                self.lines.append(line)
                self.board_changed = True
            for player in state.seating:
                described = describe(event, player)
                news = private_line(described, state, player, self.texts(player), at_ms)
                if news is not None:
                    self.news[player].append(news)
            match event:
                case ev.GameCreated() | ev.PlayerJoined() | ev.PlayerLeft() | ev.SettingsChanged():
                    self.lobby_changed = True
                    self.opened = self.opened or isinstance(event, ev.GameCreated)
                case ev.GameStarted():
                    started = gtexts.t(
                        "lobby.started",
                        count=len(state.seating),
                        edition=gtexts.t(f"edition.{state.edition}"),
                    )
                    await n.close_lobby(self.game_id, before, started)
                    await n.unreachable_at_start(self.game_id, state)
                case ev.GameCancelled():
                    self.cancelled_by = event.by
                    self.cancelled_name = record.metadata.get("acted_by_name")
                    await self.cancelled(before, gtexts)
                case ev.DecisionOpened():
                    self.board_changed = True
                case ev.PlayerWentAway():
                    self.went_away.add(event.player)
                case ev.RoundEnded():
                    self.board_changed = True
                    self.after.append((round_end_text(event, state, gtexts), None))
                case ev.GameEnded():
                    self.board_changed = True
                    replay = kb.replay_button(
                        self.game_id, n.services.callback_key, gtexts.t("bot.button_replay")
                    )
                    key = n.services.callback_key
                    after_game = after_game_rows(self.game_id, key, gtexts)
                    markup = InlineKeyboardMarkup([[replay], *after_game])
                    self.after.append((game_end_text(event, state, gtexts), markup))
                case _:
                    pass
        if self.lobby_changed and self.state.phase == "lobby":
            await n.show_lobby(self.game_id)
            if self.opened:
                await tell_subscribers(n.outbox, n.services, self.state)
        await self.flush_board(gtexts)
        await self.update_private(start_pending)

    async def flush_board(self, texts: Texts) -> None:
        """The board as the state now is (when it changed), then the messages that follow
        it: a round's or the game's end."""
        if self.state.phase in ("playing", "finished") and (self.board_changed or self.new_board):
            await self.update_board(texts)
        after, self.after = self.after, []
        for text, markup in after:
            await self.group_text(text, reply_markup=markup)

    # -- group --------------------------------------------------------------------

    async def group_text(self, text: str, reply_markup: InlineKeyboardMarkup | None = None) -> None:
        await self.notifier.outbox.call(
            self.state.chat_id,
            "send_message",
            text=text,
            parse_mode=ParseMode.HTML,
            reply_markup=reply_markup,
        )

    async def cancelled(self, before: GameState, texts: Texts) -> None:
        text = texts.t("lobby.cancelled", name=self.canceller())
        closed = await self.notifier.close_lobby(self.game_id, before, text)
        if not closed and not self.lobby_changed:
            await self.group_text(texts.t("move.cancelled"))
        self.lobby_changed = False

    def canceller(self) -> str:
        """Who cancelled: the admin who pressed (event metadata), else the creator."""
        if isinstance(self.cancelled_name, str) and self.cancelled_name:
            return esc(self.cancelled_name)
        by = self.cancelled_by
        return esc(self.state.names.get(by, "?")) if by is not None else "?"

    def board_caption(self, texts: Texts) -> str:
        """The board's caption: the round, the last moves, the seats, and whose decision
        it is — or that the round or the game is over."""
        state = self.state
        view = view_for(state, None)
        status: list[str] = []
        pending = view.pending
        if state.phase == "finished":
            status.append(texts.t("bot.board_game_over"))
        elif pending is None or pending.kind != "turn":
            status.append(texts.t("bot.board_round_over"))
        if state.phase == "playing" and pending is not None:
            who = mention(pending.player, state.names.get(pending.player, "?"))
            key = "turn.prompt_group" if pending.kind == "turn" else "turn.waiting"
            status.append(texts.t(key, name=who))
            now_ms, tz = self.notifier.now_ms(), self.notifier.zone(state)
            status.append(deadline_line(texts, pending.deadline, now_ms, tz))
        head = f"{texts.t('turn.round', round=view.round)} · " + texts.t(
            "turn.draw_pile", count=view.draw_pile
        )
        moves = self.lines[-BOARD_MOVES:]
        seats = seats_line(state, view, texts)
        lines = [*status, head, *moves, "", *seats]
        # Who is on turn and until when come first and stay; too long, the older moves
        # go first, then the seats from the last, then the last move.
        first_move = len(status) + 1
        first_seat = first_move + len(moves) + 1
        drop = [
            *range(first_move, first_move + len(moves) - 1),
            *reversed(range(first_seat, first_seat + len(seats))),
            *range(first_move + len(moves) - 1, first_move + len(moves)),
        ]
        return fit_caption(lines, drop)

    async def update_board(self, texts: Texts) -> None:
        n = self.notifier
        botstate = n.services.botstate
        state = self.state
        chat = botstate.resolve_chat(state.chat_id)
        caption = self.board_caption(texts)
        self.lines.clear()
        self.board_changed = False
        png = await asyncio.to_thread(board_png, view_for(state, None))
        stored = botstate.message(self.game_id, chat, BOARD)
        if stored is not None and not self.new_board:
            done = await n.outbox.send_picture(
                chat, "edit_message_media", png, caption=caption, message_id=stored.message_id
            )
            if done is not None:
                return
        self.new_board = False
        message = await n.outbox.send_picture(chat, "send_photo", png, caption=caption)
        if isinstance(message, Message):
            await asyncio.to_thread(
                botstate.save_message,
                self.game_id,
                message.chat.id,
                BOARD,
                message.message_id,
                self.version,
            )

    # -- private ------------------------------------------------------------------

    async def update_private(self, start_pending: Any) -> None:
        n = self.notifier
        state = self.state
        botstate = n.services.botstate
        pending = state.pending
        opened = (
            pending.player
            if pending is not None
            and state.phase == "playing"
            and (start_pending is None or start_pending.id != pending.id)
            # An away player's turns pass at once: no prompt until they are back.
            and pending.player not in state.away
            else None
        )
        for player in state.seating:
            news = self.news.get(player, [])
            texts = self.texts(player)
            back = self.back_button(player, texts)
            if player in self.closed:
                stored = botstate.message(self.game_id, player, PROMPT)
                if stored is not None:
                    caption, _ = prompt(
                        state,
                        player,
                        texts,
                        news if player != opened else (),
                        n.now_ms(),
                        n.zone(state),
                    )
                    await n.private(
                        self.game_id,
                        state,
                        player,
                        "edit_message_caption",
                        message_id=stored.message_id,
                        caption=caption,
                        parse_mode=ParseMode.HTML,
                        reply_markup=back,
                    )
                    await asyncio.to_thread(botstate.forget_message, self.game_id, player, PROMPT)
                    if player != opened:
                        continue
                    news = []
            if player == opened:
                await n.send_prompt(self.game_id, state, self.version, player, news)
            elif news:
                caption, _ = prompt(state, player, texts, news, n.now_ms(), n.zone(state))
                await n.private(
                    self.game_id,
                    state,
                    player,
                    "send_message",
                    text=caption,
                    parse_mode=ParseMode.HTML,
                    reply_markup=back,
                )

    def back_button(self, player: PlayerId, texts: Texts) -> InlineKeyboardMarkup | None:
        """An "I'm back" button for a player who went away in these events (and still is)."""
        if player not in self.went_away or player not in self.state.away:
            return None
        rows: list[kb.Row] = [[(texts.t("bot.button_come_back"), kb.Press(kb.COME_BACK))]]
        return self.notifier.markup(rows, self.game_id, self.version)


def round_end_text(event: ev.RoundEnded, state: GameState, texts: Texts) -> str:
    names = state.names
    head = (
        texts.t(
            "move.round_ended_treasure",
            round=event.round,
            name=esc(names.get(event.reached_by, "?")),
        )
        if event.treasure_reached and event.reached_by is not None
        else texts.t("move.round_ended_blocked", round=event.round)
    )
    roles = ", ".join(
        texts.t("move.role_of", name=esc(names.get(p, "?")), role=texts.role_name(r))
        for p, r in event.roles
    )
    # base: the dwarf card nobody was dealt, revealed with the others; saboteur2: none.
    spare = ", ".join(texts.role_name(r) for r in event.spare)
    winners = ", ".join(esc(names.get(p, "?")) for p in event.winners)
    tail = texts.t("move.winners", names=winners) if winners else texts.t("move.no_winners")
    lines = [head, texts.t("move.roles", roles=roles)]
    if spare:
        lines.append(texts.t("move.spare", roles=spare))
    return "\n".join([*lines, tail])


def game_end_text(event: ev.GameEnded, state: GameState, texts: Texts) -> str:
    names = state.names
    winners = ", ".join(esc(names.get(p, "?")) for p in event.winners) or "—"
    scores = [
        texts.t("move.score_line", name=esc(names.get(p, "?")), gold=g)
        for p, g in sorted(event.gold, key=lambda pg: -pg[1])
    ]
    return "\n".join([texts.t("move.game_ended", names=winners), *scores])
