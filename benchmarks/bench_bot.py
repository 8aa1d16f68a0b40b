"""The bot under load: many concurrent games through the fake Bot API, on PostgreSQL.

Two processes, as in production: this one runs the bot (the real ``Application``, long
polling, the notifier, the game service on a fresh PostgreSQL database, and the Mini App
served on a local port) and nothing else; a second one runs Telegram — the fake Bot API
server — and the players. The players are computer-controlled groups, one game per group,
in both editions, one after the other, each played in two flows (``--flows``):

- ``buttons``: the players press buttons the bot sent them (seeded, uniformly at random);
- ``miniapp``: the player whose prompt came plays on the Mini App instead: the page opens
  the game its ``web_app`` button names (``GET``, with initData signed as Telegram signs
  it) and taps one of the legal moves it offers (``POST``, with the version drawn and a
  key per tap) — no button press, no preview picture; the rest is the same bot, the same
  groups and the same announcer.

Setting up (private chats opened, ``/newgame``, Join, Start) goes through the fake API by
the same presses, each step waited for with a bound, and is not measured. Measured, for
``--seconds`` from the moment every game is started and the bot is idle:

- button presses handled per second (every press the bot answered; on the Mini App, every
  move it answered: a whole turn each, so without the target);
- handling latency, p50 / p99: on the fake server's clock, from the press being queued
  for ``getUpdates`` to the bot's ``answerCallbackQuery`` for it reaching the server (on
  the Mini App: the move's ``POST``, sent to answered). That
  is the bot's whole handling of a press up to its answer: fetching the update, decoding
  the button, loading the game, checking version, owner and legal moves, and for a move
  running the command — its events committed to the database — or for a step inside a
  decision, building the next keyboard (its preview picture is drawn after the answer);
- also shown, without a target: from the press to the pressed message redrawn (a
  preview edited in, or the prompt closed by the notifier once the move is announced);
- Telegram calls per turn per game, every call counted (everything but ``getUpdates``):
  all of them (the acting player's own presses — answers, preview edits — included), the
  notifier's, and those the group sees (the group's churn: the target);
- the board pictures rendered by the bot during the run (time and PNG size);
- the bot process's CPU time (every thread, user and system) during the run: percent of
  one core, and per press; and the event loop's thread's alone, per press (the rest is
  the worker threads: the database, the rules, drawing).

- edits skipped per turn because the message showed what they set already (see
  :mod:`tgbot.telegram.edits`), and the calls Telegram would refuse (the fake is as strict as its
  documentation): none, of which "message is not modified" is one kind. ``--edits both``
  runs each flow a second time with nothing skipped ("no skip"): every edit is sent, as
  before the bot compared them, so the calls those edits cost show side by side.

A turn is a decision opened (a turn, a gold pick, a theft), counted over every game —
finished ones included. Targets: ≥ 100 updates/s, p99 < 150 ms, ≤ 3 calls per turn per
game in the group (and from the notifier), render < 50 ms, PNG < 150 KB, no call Telegram
would refuse (but in a "no skip" column). Both flows of an edition are printed side by
side. Run (PostgreSQL at TEST_POSTGRES_URL or 127.0.0.1):

    python -m benchmarks.bench_bot --games 20 --seconds 30
    python -m benchmarks.bench_bot --flows buttons --edits both --double-taps 0.2
    python -m benchmarks.bench_bot --flows miniapp --editions base
    python -m benchmarks.bench_bot --instances 1 2   (web processes: see bench_instances)

Telegram's own flood limits (AIORateLimiter) are off: they would measure Telegram's
quotas, not the bot.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import functools
import json
import multiprocessing
import operator
import pstats
import random
import statistics
import threading
import time
import traceback
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from contextvars import ContextVar
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any, Final
from urllib.parse import parse_qs, urlsplit

import aiohttp

from benchmarks.databases import create_database, drop_database
from infra.migrations import upgrade
from infra.settings import load_settings
from tgbot.delivery import announcer as announcer_module
from tgbot.delivery import sending as sending_module
from tgbot.miniapp import initdata
from tgbot.miniapp.api import mini_app
from tgbot.miniapp.server import serving
from tgbot.offline.fakeapi import FakeBotAPI
from tgbot.telegram import gateway as gateway_module
from tgbot.telegram.app import ANNOUNCER_KEY, polling_bot
from tgbot.telegram.context import SERVICES_KEY, BotServices

PLAYERS = {"base": 3, "saboteur2": 4}
NOTIFIER_METHODS = (
    "send_message",
    "send_photo",
    "edit_message_text",
    "edit_message_caption",
    "edit_message_media",
    "edit_message_reply_markup",
    "delete_message",
)
FLOWS = ("buttons", "miniapp")
# The Mini App as BotFather knows it: prompts carry its web_app button (the players map the
# page's address to the bot process's local server), the group's board its direct link.
MINIAPP = {"miniapp_name": "board", "miniapp_url": "https://bench.example/miniapp/"}
SETUP_SECONDS = 120.0  # bound on each setup step
ANSWER_SECONDS = 10.0  # a press not answered by then counts as lost
REDRAW_SECONDS = 3.0  # a press whose message is not redrawn by then is looked past


# ---------------------------------------------------------------- Telegram and the players


class TimedAPI(FakeBotAPI):
    """The fake Bot API, noting when each press was queued and answered, and waking the
    player watching a chat when the bot changes a message there."""

    def __init__(self) -> None:
        super().__init__()
        self.pressed_at: dict[str, float] = {}
        self.answered_at: dict[str, float] = {}
        self.changed_at: dict[int, float] = {}
        self.watchers: dict[int, asyncio.Event] = {}  # chat id -> its game's player
        self.query_watchers: dict[str, asyncio.Event] = {}

    def press(self, chat: Any, user: Any, message_id: int, callback_data: str) -> str:
        query_id = super().press(chat, user, message_id, callback_data)
        self.pressed_at[query_id] = time.perf_counter()
        return query_id

    async def _api_answerCallbackQuery(self, params: Any, files: Any) -> bool:
        query_id = str(params.get("callback_query_id", ""))
        self.answered_at.setdefault(query_id, time.perf_counter())
        try:
            return await super()._api_answerCallbackQuery(params, files)
        finally:
            event = self.query_watchers.pop(query_id, None)
            if event is not None:
                event.set()

    def _bot_message(self, chat: Any, params: Any, content: Any) -> Any:
        message = super()._bot_message(chat, params, content)
        self._touched(chat["id"])
        return message

    def _edit(self, params: Any, changes: Any, drop: tuple[str, ...] = ()) -> Any:
        message = super()._edit(params, changes, drop)
        self._touched(message["chat"]["id"])
        return message

    async def _api_deleteMessage(self, params: Any, files: Any) -> bool:
        chat = self._target_chat(params)["id"]
        done = await super()._api_deleteMessage(params, files)
        self._touched(chat)
        return done

    def _touched(self, chat_id: int) -> None:
        self.changed_at[chat_id] = time.perf_counter()
        event = self.watchers.get(chat_id)
        if event is not None:
            event.set()


@dataclass
class Game:
    group: int
    players: list[int]


@dataclass
class Play:
    """What the players saw during the measured run."""

    presses: int = 0
    latencies: list[float] = field(default_factory=list)
    redraws: list[float] = field(default_factory=list)
    refused: int = 0  # answered with an alert (the Mini App: refused): nothing changed
    requests: int = 0  # the Mini App's HTTP requests (opening the board, moves)
    lost: int = 0  # not answered within ANSWER_SECONDS
    not_redrawn: int = 0  # answered, but the message unchanged within REDRAW_SECONDS


async def until(predicate: Callable[[], object], event: asyncio.Event, seconds: float) -> bool:
    """Wait until ``predicate()`` holds, looking again whenever ``event`` is set; False
    after ``seconds``."""
    deadline = time.perf_counter() + seconds
    while True:
        event.clear()
        if predicate():
            return True
        left = deadline - time.perf_counter()
        if left <= 0:
            return False
        try:
            await asyncio.wait_for(event.wait(), left)
        except TimeoutError:
            return bool(predicate())


def redrawn(api: FakeBotAPI, chat: int, message: dict[str, Any]) -> bool:
    """Whether the bot edited or deleted ``message`` since it was seen."""
    return api.messages[chat].get(message["message_id"]) is not message


def keyboard_data(message: dict[str, Any]) -> list[str]:
    rows = message.get("reply_markup", {}).get("inline_keyboard", [])
    return [b["callback_data"] for row in rows for b in row if b.get("callback_data")]


def newest_prompt(api: FakeBotAPI, players: Iterable[int]) -> tuple[int, dict[str, Any]] | None:
    """The first player whose newest message with buttons exists, and that message."""
    for player in players:
        for message in reversed(api.messages.get(player, {}).values()):
            if keyboard_data(message):
                return player, message
    return None


async def set_up(api: TimedAPI, edition: str, games: int) -> list[Game]:
    """Every player opens the private chat; every group opens a game, the others join, the
    creator starts it: all by messages and presses, each step waited for."""
    tables = []
    for g in range(games):
        group = -10_000 - g
        players = [1000 * (g + 1) + i for i in range(PLAYERS[edition])]
        api.group(group, f"Mine {g}", admins=(players[0],))
        for p in players:
            api.user(p, f"P{p}", "en")
            api.send_text(p, p, "/start")
        tables.append(Game(group, players))
    everyone = [p for table in tables for p in table.players]
    await api.wait_for(lambda: all(api.messages_in(p) for p in everyone), SETUP_SECONDS)
    for table in tables:
        api.send_text(table.group, table.players[0], f"/newgame {edition}")

    def lobby(table: Game) -> dict[str, Any] | None:
        return next((m for m in api.messages_in(table.group) if keyboard_data(m)), None)

    await api.wait_for(lambda: all(lobby(t) for t in tables), SETUP_SECONDS)
    joins = []
    for table in tables:
        message = lobby(table)
        assert message is not None
        join = keyboard_data(message)[0]
        for p in table.players[1:]:
            joins.append(api.press(table.group, p, message["message_id"], join))
    await api.wait_for(lambda: all(q in api.answered for q in joins), SETUP_SECONDS)
    starts = []
    for table in tables:
        message = lobby(table)
        assert message is not None
        start = keyboard_data(message)[2]
        starts.append(api.press(table.group, table.players[0], message["message_id"], start))
    await api.wait_for(lambda: all(q in api.answered for q in starts), SETUP_SECONDS)
    return tables


async def prompts(
    api: TimedAPI, table: Game, stop_at: float
) -> AsyncIterator[tuple[int, dict[str, Any], asyncio.Event]]:
    """One group's newest prompt each time there is one, until ``stop_at``: the player,
    the message, and an event set whenever the bot changes one of their chats."""
    event = asyncio.Event()
    for p in table.players:
        api.watchers[p] = event
    while (left := stop_at - time.perf_counter()) > 0:
        found = newest_prompt(api, table.players)
        if found is None:  # the notifier is still drawing, or the game is over
            await until(lambda: newest_prompt(api, table.players), event, left)
            continue
        yield *found, event


async def drive(
    api: TimedAPI,
    table: Game,
    rng: random.Random,
    stop_at: float,
    out: Play,
    double_taps: float = 0.0,
) -> None:
    """One group's players: press a button of the newest prompt, wait for the answer and
    for the message to be redrawn, again, until ``stop_at``. A share ``double_taps`` of
    the presses redrawn is pressed once more, on the same message, as an impatient
    player taps again (what it redraws is often what the message shows already)."""
    async for player, message, event in prompts(api, table, stop_at):
        data = rng.choice(keyboard_data(message))
        pressed = await tap(api, player, message, data, event, out)
        if pressed is None:
            continue
        if await until(functools.partial(redrawn, api, player, message), event, REDRAW_SECONDS):
            out.redraws.append(api.changed_at[player] - pressed)
            if double_taps and rng.random() < double_taps:
                await tap(api, player, message, data, event, out)
        else:
            out.not_redrawn += 1


async def tap(
    api: TimedAPI, player: int, message: dict[str, Any], data: str, event: asyncio.Event, out: Play
) -> float | None:
    """Press ``data`` on ``message`` and wait for the answer: when it was pressed, or
    None when it was lost or refused (an alert)."""
    query = api.press(player, player, message["message_id"], data)
    api.query_watchers[query] = event
    answered = functools.partial(operator.contains, api.answered_at, query)
    if not await until(answered, event, ANSWER_SECONDS):
        out.lost += 1
        return None
    pressed = api.pressed_at[query]
    out.latencies.append(api.answered_at[query] - pressed)
    out.presses += 1
    if api.answered[query].get("show_alert"):
        out.refused += 1
        return None
    return pressed


def prompt_game(message: dict[str, Any]) -> str:
    """The game a prompt's ``web_app`` button opens (``?game=`` of the page's address)."""
    for row in message.get("reply_markup", {}).get("inline_keyboard", []):
        for button in row:
            if "web_app" in button:
                return str(parse_qs(urlsplit(button["web_app"]["url"]).query)["game"][0])
    raise AssertionError("a prompt without the Mini App's button")


def signed(api: FakeBotAPI, player: int) -> str:
    """initData for ``player`` opening the Mini App, as Telegram signs it."""
    user = json.dumps({"id": player, "first_name": f"P{player}", "language_code": "en"})
    return initdata.sign({"auth_date": str(int(time.time())), "user": user}, api.token)


async def drive_miniapp(
    api: TimedAPI,
    http: aiohttp.ClientSession,
    page: str,
    table: Game,
    rng: random.Random,
    stop_at: float,
    out: Play,
) -> None:
    """One group's players on the Mini App: the player whose prompt came opens the board
    (``page``: where the bot serves it) at the game its button names, taps one of the
    legal moves it offers, and waits for the prompt to be closed; again, until
    ``stop_at``."""
    async for player, message, event in prompts(api, table, stop_at):
        game = prompt_game(message)
        headers = {"Authorization": f"tma {signed(api, player)}"}
        async with http.get(f"{page}api/game/{game}", headers=headers) as response:
            shown = (await response.json()).get("state") or {}
        out.requests += 1
        moves = shown.get("moves") or []
        closed = functools.partial(redrawn, api, player, message)
        if not moves:  # the prompt is behind the game already: it is being closed
            await until(closed, event, REDRAW_SECONDS)
            continue
        move = {k: v for k, v in rng.choice(moves).items() if k != "label"}
        body = {"version": shown["version"], "key": uuid.uuid4().hex, "move": move}
        sent = time.perf_counter()
        async with http.post(f"{page}api/game/{game}/move", json=body, headers=headers) as r:
            await r.read()
        out.latencies.append(time.perf_counter() - sent)
        out.requests += 1
        out.presses += 1
        if r.status != 200:
            out.refused += 1
            continue
        if await until(closed, event, REDRAW_SECONDS):
            out.redraws.append(api.changed_at[player] - sent)
        else:
            out.not_redrawn += 1


async def play(
    api: TimedAPI,
    tables: list[Game],
    seconds: float,
    seed: int,
    page: str | None,
    double_taps: float = 0.0,
) -> dict[str, Any]:
    """Every group plays for ``seconds``: by buttons, or on the Mini App at ``page``."""
    out = Play()
    groups = {str(t.group) for t in tables}
    first_call = len(api.calls)
    started = time.perf_counter()
    async with aiohttp.ClientSession() as http:
        await asyncio.gather(
            *(
                drive(api, table, random.Random(seed + i), started + seconds, out, double_taps)
                if page is None
                else drive_miniapp(
                    api, http, page, table, random.Random(seed + i), started + seconds, out
                )
                for i, table in enumerate(tables)
            )
        )
    elapsed = time.perf_counter() - started
    return {"out": out, "elapsed": elapsed, "first_call": first_call, "groups": groups}


def count_calls(api: FakeBotAPI, first_call: int, groups: set[str]) -> dict[str, Any]:
    calls = api.calls[first_call:]
    refused = [r for r in api.refusals if r.index >= first_call]
    return {
        "calls": len(calls),
        "by_method": dict(Counter(call.method for call in calls)),
        "in_groups": sum(1 for call in calls if str(call.get("chat_id")) in groups),
        "refused_calls": len(refused),
        "not_modified": sum(1 for r in refused if "not modified" in r.description),
    }


def players_process(
    conn: Connection, edition: str, games: int, seed: int, flow: str, double_taps: float = 0.0
) -> None:
    """The second process: Telegram and the players, talking to the bot's process by
    ``conn``."""
    try:
        asyncio.run(_players(conn, edition, games, seed, flow, double_taps))
    except BaseException:
        conn.send(("error", traceback.format_exc()))
        raise


async def _players(
    conn: Connection, edition: str, games: int, seed: int, flow: str, double_taps: float = 0.0
) -> None:
    api = TimedAPI()
    await api.start()
    try:
        conn.send(("server", (api.base_url, api.base_file_url, api.token)))
        page = await receive(conn, "polling")  # where the bot serves the Mini App
        tables = await set_up(api, edition, games)
        conn.send(("ready", None))
        seconds = await receive(conn, "go")
        started = sum(1 for t in tables if newest_prompt(api, t.players))
        page_or_none = page if flow == "miniapp" else None
        ran = await play(api, tables, seconds, seed, page_or_none, double_taps)
        conn.send(("stopped", None))
        await receive(conn, "settled")
        out: Play = ran["out"]
        result = {
            "games_started": started,
            "elapsed": ran["elapsed"],
            "presses": out.presses,
            "latencies": out.latencies,
            "redraws": out.redraws,
            "refused": out.refused,
            "lost": out.lost,
            "not_redrawn": out.not_redrawn,
            "requests": out.requests,
            "groups": sorted(ran["groups"]),
            **count_calls(api, ran["first_call"], ran["groups"]),
        }
        conn.send(("result", result))
        await receive(conn, "stop", SETUP_SECONDS)
    finally:
        await api.stop()


async def receive(conn: Connection, expected: str, seconds: float = SETUP_SECONDS) -> Any:
    """The next message from the other process, which must be ``expected``."""
    if not await asyncio.to_thread(conn.poll, seconds):
        raise TimeoutError(f"no {expected!r} from the other process in {seconds:g}s")
    kind, value = conn.recv()
    if kind == "error":
        raise RuntimeError(f"the other process failed:\n{value}")
    if kind != expected:
        raise RuntimeError(f"expected {expected!r} from the other process, got {kind!r}")
    return value


# ---------------------------------------------------------------- the bot


class Profiler:
    """cProfile in every thread of this process (the event loop's and the workers'),
    from ``start`` to ``stop``; the stats merged."""

    def __init__(self) -> None:
        self.profiles: list[cProfile.Profile] = []
        self.lock = threading.Lock()

    def _hook(self, *_: Any) -> None:
        profile = cProfile.Profile()
        with self.lock:
            self.profiles.append(profile)
        profile.enable()  # replaces this hook in this thread

    def start(self) -> None:
        """Profile this thread and every thread started from now on: the event loop gets
        a new default executor, so its worker threads are among them."""
        threading.setprofile(self._hook)
        self._hook()
        asyncio.get_running_loop().set_default_executor(ThreadPoolExecutor())

    def stop(self, path: str) -> None:
        threading.setprofile(None)
        for profile in self.profiles:
            profile.disable()
        stats = pstats.Stats(*self.profiles)
        stats.dump_stats(path)
        print(f"\nprofile of the bot process ({len(self.profiles)} threads): {path}")
        stats.sort_stats("tottime").print_stats(25)


def run(
    edition: str,
    games: int,
    seconds: float,
    seed: int,
    profile: str | None = None,
    flow: str = "buttons",
    skip: bool = True,
    double_taps: float = 0.0,
) -> dict[str, float]:
    """One edition and flow; ``skip`` False: every edit is sent, even one that changes
    nothing the message shows (as before such edits were skipped); ``double_taps``: the
    share of presses tapped twice (see :func:`drive`)."""
    # The players' process is forked before this one opens a connection or a thread: a
    # copy of it with every module imported already, not a second start-up (seconds of
    # CPU for each run).
    context = multiprocessing.get_context("fork")
    conn, child_conn = context.Pipe()
    players = context.Process(
        target=players_process,
        args=(child_conn, edition, games, seed, flow, double_taps),
        daemon=True,
    )
    players.start()
    url = None
    try:
        url = create_database()
        upgrade(url)
        return asyncio.run(_run(conn, url, seconds, seed, profile, skip))
    finally:
        players.join(10)
        if players.is_alive():
            players.terminate()
        if url is not None:
            drop_database(url)


async def _run(
    conn: Connection, url: str, seconds: float, seed: int, profile: str | None, skip: bool = True
) -> dict[str, float]:
    renders: list[float] = []
    sizes: list[int] = []
    original_draw = sending_module.draw

    def timed_draw(picture: Any) -> bytes:
        started = time.perf_counter()
        png: bytes = original_draw(picture)
        renders.append(time.perf_counter() - started)
        sizes.append(len(png))
        return png

    # Each Outbox remembers the pictures it drew lately (Outbox.draw): only the drawing
    # that cache misses is timed.
    sending_module.draw = timed_draw
    # The announcer's calls: those made while it announces the log (the handlers' own,
    # a placement preview edited in, go through the same gateway and are not counted),
    # and only those that went to Telegram (not an edit skipped, nor a board's redraw
    # replaced by a newer one while it waited).
    notifier_calls: Counter[str] = Counter()
    original_call = gateway_module.Gateway._call
    original_catch_up = announcer_module.Announcer.catch_up
    announcing: ContextVar[bool] = ContextVar("announcing", default=False)

    async def counted(self: Any, place: Any, method: str, *args: Any) -> Any:
        result = await original_call(self, place, method, *args)
        if announcing.get() and result is not gateway_module.REPLACED:
            notifier_calls[method] += 1
        return result

    async def catch_up(self: Any, *args: Any, **kwargs: Any) -> int:
        token = announcing.set(True)
        try:
            handled: int = await original_catch_up(self, *args, **kwargs)
            return handled
        finally:
            announcing.reset(token)

    gateway_module.Gateway._call = counted  # type: ignore[method-assign, assignment]
    announcer_module.Announcer.catch_up = catch_up  # type: ignore[method-assign]
    base_url, base_file_url, token = await receive(conn, "server")
    seeds = iter(range(seed * 10_000, seed * 10_000 + 10_000_000))
    # The movers are scripts pressing as fast as the bot answers: no throttling.
    settings = load_settings(
        telegram_bot_token=token, database_url=url, throttle_presses=0, **MINIAPP
    )
    served = contextlib.AsyncExitStack()
    try:
        app = await served.enter_async_context(
            polling_bot(
                settings,
                base_url=base_url,
                base_file_url=base_file_url,
                poll_interval=0.05,
                rate_limit=False,
                seeds=lambda: next(seeds),
            )
        )
        bot: BotServices = app.bot_data[SERVICES_KEY]
        bot.shown.skipping = skip  # the outbox's and the handlers' edits alike
        board = mini_app(bot, token=token, bot=app.bot)
        served.push_async_callback(board.feed.close)
        base = await served.enter_async_context(serving(board.routes()))
        conn.send(("polling", f"{base}/miniapp/"))
        await receive(conn, "ready")
        await _quiet(app, bot)
        notifier_calls.clear()
        renders.clear()
        sizes.clear()
        first_position = bot.store.last_position()
        skipped_before = bot.shown.skipped
        profiler = Profiler() if profile else None
        if profiler is not None:
            profiler.start()
        conn.send(("go", seconds))
        cpu_before, loop_before = time.process_time(), time.thread_time()
        await receive(conn, "stopped", seconds + SETUP_SECONDS)
        cpu = time.process_time() - cpu_before
        loop_cpu = time.thread_time() - loop_before
        if profiler is not None and profile:
            profiler.stop(profile)
        await _quiet(app, bot)
        skipped = bot.shown.skipped - skipped_before
        conn.send(("settled", None))
        played = await receive(conn, "result")
        turns = _decisions_opened(bot, first_position)
        finished = _finished_games(bot, {int(g) for g in played.pop("groups", ())})
    finally:
        await served.aclose()  # the Mini App's server, its live updates, then the bot
        gateway_module.Gateway._call = original_call  # type: ignore[method-assign]
        announcer_module.Announcer.catch_up = original_catch_up  # type: ignore[method-assign]
        sending_module.draw = original_draw
        conn.send(("stop", None))
    played["skipped_edits"] = skipped
    return _figures(played, turns, finished, (cpu, loop_cpu), notifier_calls, renders, sizes)


def _figures(
    played: dict[str, Any],
    turns: int,
    finished: int,
    cpu: tuple[float, float],
    notifier_calls: Counter[str],
    renders: list[float],
    sizes: list[int],
) -> dict[str, float]:
    latencies = sorted(played["latencies"])
    redraws = sorted(played["redraws"])
    by_method: dict[str, int] = played["by_method"]
    presses = played["presses"]
    elapsed = played["elapsed"]
    turns = max(1, turns)
    from_notifier = sum(notifier_calls[m] for m in NOTIFIER_METHODS)
    return {
        "games_started": played["games_started"],
        "finished_games": finished,
        "presses": presses,
        "refused_presses": played["refused"],
        "lost_presses": played["lost"],
        "not_redrawn": played["not_redrawn"],
        "miniapp_requests_per_turn": played["requests"] / turns,
        "seconds": elapsed,
        "updates_per_second": presses / elapsed,
        "bot_cpu_percent": 100 * cpu[0] / elapsed,
        "bot_cpu_ms_per_press": 1000 * cpu[0] / max(1, presses),
        "event_loop_cpu_ms_per_press": 1000 * cpu[1] / max(1, presses),
        "p50_ms": 1000 * _quantile(latencies, 0.5),
        "p99_ms": 1000 * _quantile(latencies, 0.99),
        "redraw_p50_ms": 1000 * _quantile(redraws, 0.5),
        "redraw_p99_ms": 1000 * _quantile(redraws, 0.99),
        "turns": turns,
        "presses_per_turn": presses / turns,
        "all_calls_per_turn": played["calls"] / turns,
        "skipped_edits_per_turn": played["skipped_edits"] / turns,
        "refused_calls": played["refused_calls"],
        "not_modified_calls": played["not_modified"],
        "answers_per_turn": by_method.get("answerCallbackQuery", 0) / turns,
        "preview_edits_per_turn": (
            by_method.get("editMessageMedia", 0)
            + by_method.get("editMessageReplyMarkup", 0)
            - notifier_calls["edit_message_media"]
            - notifier_calls["edit_message_reply_markup"]
        )
        / turns,
        "notifier_calls_per_turn": from_notifier / turns,
        "group_calls_per_turn": played["in_groups"] / turns,
        "renders": len(renders),
        "render_mean_ms": 1000 * statistics.fmean(renders) if renders else 0.0,
        "render_p99_ms": 1000 * _quantile(sorted(renders), 0.99),
        "png_max_kb": max(sizes) / 1024 if sizes else 0.0,
    }


def _quantile(ordered: list[float], q: float) -> float:
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))] if ordered else 0.0


def _decisions_opened(bot: BotServices, after: int) -> int:
    """Decisions opened after ``after`` in every game, finished ones included."""
    count = 0
    position = after
    while records := bot.store.read_all(position, limit=5000):
        count += sum(1 for r in records if r.type == "decision_opened")
        position = records[-1].position
    return count


def _finished_games(bot: BotServices, groups: set[int]) -> int:
    from sqlalchemy import func, select

    from infra.schema import games

    bot.projector.catch_up()
    with bot.store.engine.connect() as conn:
        return int(
            conn.execute(
                select(func.count())
                .select_from(games)
                .where(games.c.chat_id.in_(groups), games.c.status == "finished")
            ).scalar_one()
        )


async def _quiet(app: Any, bot: BotServices, timeout: float = SETUP_SECONDS) -> None:
    """Wait until no update is queued or being handled and the notifier announced every
    event."""
    notifier = app.bot_data[ANNOUNCER_KEY]
    deadline = time.perf_counter() + timeout
    while time.perf_counter() < deadline:
        idle = app.update_queue.empty()
        busy = app.update_processor.current_concurrent_updates > 0
        if idle and not busy and await asyncio.to_thread(notifier.settled):
            return
        await asyncio.sleep(0.005)
    raise TimeoutError(f"the bot was still busy after {timeout:g}s")


TARGETS = (
    ("updates_per_second", ">=", 100.0, "updates per second"),
    ("p99_ms", "<", 150.0, "p99 handling latency (ms)"),
    ("group_calls_per_turn", "<=", 3.0, "calls per turn per game the group sees"),
    ("notifier_calls_per_turn", "<=", 3.0, "calls per turn per game by the notifier"),
    ("render_p99_ms", "<", 50.0, "board render p99 (ms)"),
    ("png_max_kb", "<", 150.0, "largest PNG (KB)"),
    ("refused_calls", "<=", 0.0, "calls Telegram would refuse"),
)
# Edits that change nothing are sent only in the "before" column (--edits both): there
# Telegram refuses them as "not modified", which is what the column shows.
BEFORE_SKIP: Final = "no skip"


def verdicts(result: dict[str, float], flow: str = "buttons") -> list[str]:
    lines = []
    if not result["presses"]:
        lines.append("FAIL  measured nothing: no press answered")
    for key, op, bound, label in TARGETS:
        if flow.startswith("miniapp") and key == "updates_per_second":
            continue  # a Mini App's "press" is a whole move: not comparable
        if flow.endswith(BEFORE_SKIP) and key == "refused_calls":
            continue  # its no-op edits are refused by design
        value = result[key]
        ok = value >= bound if op == ">=" else value < bound if op == "<" else value <= bound
        lines.append(f"{'PASS' if ok else 'FAIL'}  {label}: {value:.2f} {op} {bound:g}")
    return lines


def side_by_side(results: dict[str, dict[str, float]]) -> list[str]:
    """One line per figure, one column per flow."""
    flows = list(results)
    width = max(12, *(len(flow) + 2 for flow in flows))
    lines = [f"{'':28}" + "".join(f"{flow:>{width}}" for flow in flows)]
    for key in results[flows[0]]:
        lines.append(f"{key:28}" + "".join(f"{results[f][key]:{width}.2f}" for f in flows))
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=20, help="games per edition")
    parser.add_argument("--seconds", type=float, default=30.0, help="seconds per edition")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--editions", nargs="+", default=["base", "saboteur2"])
    parser.add_argument(
        "--flows",
        nargs="+",
        choices=FLOWS,
        default=list(FLOWS),
        help="how the movers play: pressing buttons, on the Mini App (default: both, side by side)",
    )
    parser.add_argument(
        "--edits",
        choices=("skip", "send", "both"),
        default="skip",
        help="edits that would change nothing a message shows: skipped (as the bot does),"
        " sent anyway (as before it compared them), or both side by side: the 'before'"
        " column is each flow again with nothing skipped",
    )
    parser.add_argument(
        "--double-taps",
        type=float,
        default=0.0,
        metavar="SHARE",
        help="the share of button presses tapped again once the message was redrawn"
        " (default 0: every press once)",
    )
    parser.add_argument(
        "--profile",
        metavar="PREFIX",
        help="profile the bot process during the run (every thread, cProfile: slower);"
        " write PREFIX.<edition>.<flow>.pstats and print the top functions",
    )
    parser.add_argument(
        "--instances",
        nargs="+",
        type=int,
        metavar="N",
        help="run the bot as N web processes instead (e.g. --instances 1 2: side by side):"
        " updates/s, p99, Telegram calls/s, restart to first announcement after a kill"
        " (see benchmarks/bench_instances.py)",
    )
    args = parser.parse_args()
    if args.instances:
        from benchmarks import bench_instances

        results = bench_instances.run(args.instances, args.games, args.seconds)
        print(f"\n== {args.games} games of the base game, by webhook, instances side by side")
        print("\n".join(bench_instances.report(results)))
        return
    skips = {"skip": (True,), "send": (False,), "both": (False, True)}[args.edits]
    for edition in args.editions:
        results = {}
        for flow in args.flows:
            for skip in skips:
                column = flow if skip else f"{flow} {BEFORE_SKIP}"
                name = column.replace(" ", "-")
                profile = f"{args.profile}.{edition}.{name}.pstats" if args.profile else None
                results[column] = run(
                    edition,
                    args.games,
                    args.seconds,
                    args.seed,
                    profile,
                    flow,
                    skip,
                    args.double_taps,
                )
        print(f"\n== {edition}: {args.games} games, {PLAYERS[edition]} players each")
        print("\n".join(side_by_side(results)))
        for flow, result in results.items():
            print(f"\n{flow}:")
            print("\n".join(verdicts(result, flow)))
    print(
        "\n(p50/p99: press queued to its answer reaching Telegram, or the Mini App's move"
        " sent to answered; redraw: press or move to the pressed prompt changed, no target;"
        " all_calls_per_turn counts every Telegram call, the acting player's own presses —"
        " answers and preview edits — included; miniapp_requests_per_turn: the page's"
        " requests to the bot, not Telegram calls; no target)"
    )


if __name__ == "__main__":
    main()
