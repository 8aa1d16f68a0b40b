"""The walk of one placement press and one Mini App tap through the project's own modules.

The real bot runs against the offline fake Bot API on a SQLite file, a game of three is
started by button presses, and then two moves are traced, each from the moment the bot
takes it up to its answer:

- a press of a final placement button in the player's private chat (every handler the
  update reaches, and what they call: the press handler, the helpers, the game service,
  the store...);
- a tap of a placement on the Mini App's page (its ``move`` route and what it calls).

Only the ``domain``, ``infra`` and ``tgbot`` modules count (the fake Bot API, the tests'
harness and the libraries are transparent), and only the code run for that one update or
request: the announcer, woken by the move, runs in a task of its own and is left out.
Printed for each: the modules in the order control entered them (a hop is a step from one
module to the next, returns included), which were entered more than once, the trips off
the event loop (``asyncio.to_thread`` and ``run_in_executor``), and whether the rules'
``legal_moves`` ran on the event loop's thread. Then the calls alone (returns, and a
coroutine resumed where it waited, left out): how often each module was entered by a
call from another module (or from the libraries; a trip's work in a worker thread is
called by whoever sent it), and every call up a layer: into a
layer above the caller's (domain < infra < the adapter's presenter, delivery and Telegram
plumbing < its handlers, the throttle, the Mini App and the application), as the rules'
or a presenter's code calling back into what called it. Run:

    python -m benchmarks.trace_press          (the rules engine's modules as one)
    python -m benchmarks.trace_press --full   (each of its modules too)
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import inspect
import sys
import tempfile
import threading
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

import aiohttp
from telegram.ext import Application

from domain.commands import PlacePath
from domain.moves import legal_moves
from infra.migrations import upgrade
from tests.fakebotapi import FakeBotAPI
from tests.tgbot.bot_harness import Table, bot_services, press_and_wait, running_bot, settle
from tests.tgbot.miniapp_harness import auth, init_data, miniapp_served
from tgbot.miniapp.api import MiniApp
from tgbot.miniapp.payload import move_json
from tgbot.presenter.callback import peek
from tgbot.presenter.keyboards import PLACE

GROUP = -7001
PLAYERS = [71, 72, 73]
PROJECT = ("domain", "infra", "tgbot")
TRANSPARENT = ("tgbot.offline.fakeapi",)

_traced: contextvars.ContextVar[Walk | None] = contextvars.ContextVar("traced", default=None)


def _module(frame: FrameType) -> str | None:
    name = frame.f_globals.get("__name__", "")
    if not isinstance(name, str) or name.split(".")[0] not in PROJECT:
        return None
    if name.startswith(TRANSPARENT):
        return None
    return name


def _trip(frame: FrameType) -> bool:
    """Whether ``frame`` sends work off the event loop (``run_in_executor`` counted when
    not called by ``to_thread``, which is counted itself)."""
    code = frame.f_code
    if "asyncio" not in code.co_filename:
        return False
    if code.co_name == "to_thread":
        return True
    caller = frame.f_back
    return code.co_name == "run_in_executor" and (
        caller is None or caller.f_code.co_name != "to_thread"
    )


_RESUMABLE = inspect.CO_COROUTINE | inspect.CO_GENERATOR | inspect.CO_ASYNC_GENERATOR
# Modules of the adapter that take what comes from outside (an update, a request) and
# call down: the layer above the rest of tgbot.
_ENTRY = (
    "tgbot.telegram.handlers",
    "tgbot.telegram.throttle",
    "tgbot.telegram.app",
    "tgbot.miniapp",
)


def layer(module: str) -> int:
    """The module's layer: domain 0, infra 1, the adapter 2, the adapter's entry points 3."""
    top = module.split(".")[0]
    if top == "domain":
        return 0
    if top == "infra":
        return 1
    return 3 if module.startswith(_ENTRY) else 2


def _target(frame: FrameType) -> str:
    func = frame.f_locals.get("func")
    func = getattr(func, "func", func)  # a functools.partial's
    name = getattr(func, "__qualname__", None) or repr(func)
    return f"{getattr(func, '__module__', '?')}.{name}"


def _nearest(frame: FrameType | None) -> str | None:
    while frame is not None:
        module = _module(frame)
        if module is not None:
            return module
        frame = frame.f_back
    return None


@dataclass
class Walk:
    """The modules one traced update or request entered, in order."""

    loop_thread: int
    modules: list[str] = field(default_factory=list)
    trips: int = 0
    sent: list[str] = field(default_factory=list)  # what each trip ran
    rules_on_loop: int = 0
    calls: list[tuple[str | None, str]] = field(default_factory=list)  # (caller, entered)
    _resumable: set[FrameType] = field(default_factory=set)  # coroutines seen called
    _senders: list[str | None] = field(default_factory=list)  # who sent each trip
    _current: dict[int, str | None] = field(default_factory=dict)
    _started: list[FrameType] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def enter(self, module: str | None) -> None:
        thread = threading.get_ident()
        with self._lock:
            if module == self._current.get(thread):
                return
            self._current[thread] = module
            if module is not None and (not self.modules or self.modules[-1] != module):
                self.modules.append(module)

    def hook(self, frame: FrameType, event: str, arg: object) -> None:
        if _traced.get() is not self:
            return
        code = frame.f_code
        if event == "call":
            if _trip(frame) and frame not in self._started:  # (not a resumption)
                self._started.append(frame)
                self.trips += 1
                self.sent.append(_target(frame))
                self._senders.append(_nearest(frame.f_back))
            module = _module(frame)
            if module is None:
                return
            self.called(frame, module)
            if (
                module == "domain.moves"
                and code.co_name == "legal_moves"
                and threading.get_ident() == self.loop_thread
            ):
                self.rules_on_loop += 1
            self.enter(module)
        elif event == "return" and _module(frame) is not None:
            self.enter(_nearest(frame.f_back))

    def called(self, frame: FrameType, module: str) -> None:
        """Note a call into ``module`` from another module (not a coroutine resumed)."""
        if frame.f_code.co_flags & _RESUMABLE:
            if frame in self._resumable:
                return
            self._resumable.add(frame)
        caller = _nearest(frame.f_back)
        if caller is None and threading.get_ident() != self.loop_thread and self._senders:
            caller = self._senders[-1]  # a trip's work: called by whoever sent it
        if caller != module:
            with self._lock:
                self.calls.append((caller, module))

    def report(self, title: str, *, full: bool = False) -> list[str]:
        """The walk, the rules engine's modules as one (``domain``) unless ``full``."""
        walk = self.modules if full else _collapsed(self.modules)
        entered = Counter(walk)
        again = {m: n for m, n in entered.items() if n > 1}
        whole = Counter(self.modules)
        return [
            f"{title}: {len(entered)} modules, {max(0, len(walk) - 1)} hops"
            f" ({len(whole)} modules, {max(0, len(self.modules) - 1)} hops counting the"
            f" rules engine's own), {self.trips} trip(s) off the event loop, legal_moves"
            f" on the loop {self.rules_on_loop} time(s)",
            "  off the loop: " + (", ".join(_short(t) for t in self.sent) or "nothing"),
            "  walk: " + " > ".join(_short(m) for m in walk),
            "  entered more than once: "
            + (", ".join(f"{_short(m)} x{n}" for m, n in sorted(again.items())) or "none"),
            *self.call_report(full=full),
        ]

    def call_report(self, *, full: bool = False) -> list[str]:
        """The calls alone: entries of each module, and the calls up a layer."""
        name = (lambda m: m) if full else _collapse
        calls = [
            (None if caller is None else name(caller), name(module))
            for caller, module in self.calls
        ]
        calls = [(caller, module) for caller, module in calls if caller != module]
        entered = Counter(module for _, module in calls)
        again = {m: n for m, n in entered.items() if n > 1}
        up = Counter(
            f"{_short(caller)} -> {_short(module)}"
            for caller, module in calls
            if caller is not None and layer(module) > layer(caller)
        )
        return [
            f"  calls: {len(entered)} modules entered by {len(calls)} calls;"
            f" entered by more than one call: "
            + (", ".join(f"{_short(m)} x{n}" for m, n in sorted(again.items())) or "none"),
            "  calls up a layer: "
            + (", ".join(f"{c} x{n}" for c, n in sorted(up.items())) or "none"),
        ]


def _collapse(module: str) -> str:
    return "domain" if module.startswith("domain.") else module


def _collapsed(modules: list[str]) -> list[str]:
    walk: list[str] = []
    for module in modules:
        name = _collapse(module)
        if not walk or walk[-1] != name:
            walk.append(name)
    return walk


def _short(module: str) -> str:
    return module.removeprefix("tgbot.").removeprefix("infra.").removeprefix("domain.")


@contextlib.contextmanager
def profiling() -> Any:
    """The hook on the event loop's thread and on worker threads of a new default
    executor (``threading.setprofile`` reaches only threads started after it)."""

    def hook(frame: FrameType, event: str, arg: object) -> None:
        walk = _traced.get()
        if walk is not None:
            walk.hook(frame, event, arg)

    loop = asyncio.get_running_loop()
    before = getattr(loop, "_default_executor", None)
    workers = ThreadPoolExecutor(thread_name_prefix="traced")
    sys.setprofile(hook)
    threading.setprofile(hook)
    loop.set_default_executor(workers)
    try:
        yield
    finally:
        sys.setprofile(None)
        threading.setprofile(None)
        if before is not None:
            loop.set_default_executor(before)
        workers.shutdown(wait=False)


def traced(walk: Walk, run: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
    @functools.wraps(run)
    async def wrapper(*args: Any, **kwargs: Any) -> Any:
        token = _traced.set(walk)
        try:
            return await run(*args, **kwargs)
        finally:
            _traced.reset(token)

    return wrapper


@contextlib.contextmanager
def tracing_method(owner: type, name: str, walk: Walk) -> Any:
    original = getattr(owner, name)
    setattr(owner, name, traced(walk, original))
    try:
        yield
    finally:
        setattr(owner, name, original)


async def _started(api: FakeBotAPI, app: Any) -> str:
    api.send_text(GROUP, PLAYERS[0], "/newgame base")
    await settle(api, app)
    lobby = next(m for m in api.messages_in(GROUP) if api.keyboard(m))
    buttons = [b for row in api.keyboard(lobby) for b in row if b.callback_data]
    join = next(b for b in buttons if "Join" in b.text)
    start = next(b for b in buttons if "Start" in b.text)
    for player in PLAYERS[1:]:
        await press_and_wait(api, app, GROUP, player, lobby["message_id"], str(join.callback_data))
    await press_and_wait(api, app, GROUP, PLAYERS[0], lobby["message_id"], str(start.callback_data))
    game = bot_services(app).active_game(GROUP)
    assert game is not None
    return game


async def _placement_button(api: FakeBotAPI, app: Any) -> tuple[int, int, str]:
    """Walk the player on turn's prompt to a final placement button."""
    table = Table(api, app, GROUP, PLAYERS)
    for _ in range(200):
        found = table.prompt_owner()
        assert found is not None
        player, message = found
        for row in api.keyboard(message):
            for button in row:
                data = button.callback_data or ""
                press = peek(data) if data else None
                if press is not None and press.action == PLACE:  # a final button
                    return player, message["message_id"], data
        await table.play_one()
    raise AssertionError("no placement offered")


@contextlib.asynccontextmanager
async def _bot(directory: Path) -> AsyncIterator[tuple[FakeBotAPI, Any, str]]:
    url = f"sqlite:///{directory / 'trace.db'}"
    upgrade(url)
    async with FakeBotAPI() as api:
        api.group(GROUP, "Trace", admins=(PLAYERS[0],))
        for p in PLAYERS:
            api.user(p, f"P{p}", "en")
            api.send_text(p, p, "/start")
        async with running_bot(api, url, seed=3) as app:
            await settle(api, app)
            yield api, app, await _started(api, app)


async def trace_press(api: FakeBotAPI, app: Any) -> Walk:
    player, message_id, data = await _placement_button(api, app)
    await settle(api, app)
    walk = Walk(threading.get_ident())
    with tracing_method(Application, "process_update", walk), profiling():
        query = api.press(player, player, message_id, data)
        await api.wait_for(lambda: api.answered.get(query), 10.0)
        await settle(api, app)
    return walk


async def trace_tap(api: FakeBotAPI, app: Any, game: str) -> Walk:
    services = bot_services(app)
    walk = Walk(threading.get_ident())
    with tracing_method(MiniApp, "move", walk):
        async with miniapp_served(app, api) as (page, _), aiohttp.ClientSession() as http:
            await settle(api, app)
            state, version = services.load(game)
            assert state.pending is not None
            player = state.pending.player
            moves = legal_moves(state, player)
            move = next((m for m in moves if isinstance(m, PlacePath)), moves[0])
            raw = init_data(api, player, game=game)
            body = {"version": version, "key": "trace-tap-0001", "move": move_json(move)}
            with profiling():
                url = f"{page}api/game/{game}/move"
                async with http.post(url, json=body, headers=auth(raw)) as response:
                    assert response.status == 200, await response.text()
            await settle(api, app)
    return walk


async def main() -> None:
    with tempfile.TemporaryDirectory() as directory:
        async with _bot(Path(directory)) as (api, app, game):
            press = await trace_press(api, app)
            tap = await trace_tap(api, app, game)
    full = "--full" in sys.argv
    print("\n".join(press.report("placement press", full=full)))
    print("\n".join(tap.report("Mini App tap", full=full)))


if __name__ == "__main__":
    asyncio.run(main())
