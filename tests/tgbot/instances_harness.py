"""Several bot instances in one test, each its own services, connections, bot and
announcer on one database, and a way to kill one as ``kill -9`` would (its claims are not
given back: they lapse).

The players' game is made through the game service (as a press on any instance would),
so only the announcers are under test.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

from telegram import Bot

from domain.commands import CreateGame, JoinGame, StartGame
from domain.moves import legal_moves
from infra.bootstrap import Services, bootstrap
from infra.settings import load_settings
from tests.fakebotapi import FakeBotAPI
from tgbot.delivery.announcer import Announcer
from tgbot.telegram.app import listen
from tgbot.telegram.context import BotServices, compose


@dataclass
class Instance:
    services: Services
    bot_services: BotServices
    announcer: Announcer
    task: asyncio.Task[None]

    async def kill(self) -> None:
        """Stop dead: nothing given back, nothing finished."""
        self.announcer.leave = lambda: None  # type: ignore[method-assign]
        await stop(self.task)


async def stop(task: asyncio.Task[None], timeout: float = 30.0) -> None:
    """Cancel an announcer's task and wait for it to end (its deliveries under way are
    given DRAIN_SECONDS): one that does not stop fails the test here, not at its timeout."""
    task.cancel()
    done, _ = await asyncio.wait({task}, timeout=timeout)
    assert done, f"{task.get_name()} did not stop within {timeout} s"
    with contextlib.suppress(asyncio.CancelledError):
        await task


@contextlib.asynccontextmanager
async def instance(
    api: FakeBotAPI, url: str, name: str, *, base_url: str | None = None, poll: float = 0.05
) -> AsyncIterator[Instance]:
    """A bot instance announcing on database ``url``; its Telegram calls go to ``api``, or
    to ``base_url`` (its address through a proxy)."""
    services = bootstrap(load_settings(telegram_bot_token=api.token, database_url=url))
    bot = Bot(api.token, base_url=base_url or api.base_url, base_file_url=api.base_file_url)
    await bot.initialize()
    own = compose(services, bot)
    announcer = Announcer(own, own.outbox, poll_interval=poll, holder=name)
    heard = listen(own)
    task = asyncio.create_task(announcer.run(), name=f"announcer {name}")
    running = Instance(services, own, announcer, task)
    try:
        yield running
    finally:
        if not task.done():
            await stop(task)
        if heard is not None:
            await asyncio.to_thread(heard.stop)
        with contextlib.suppress(Exception):
            await bot.shutdown()
        services.close()


def seat_players(api: FakeBotAPI, services: BotServices, group: int, players: list[int]) -> None:
    """The group and its players, each of whom opened the private chat."""
    api.group(group, "Mine", admins=(players[0],))
    for player in players:
        api.user(player, f"P{player}")
        services.botstate.save_user(player, f"P{player}", private_chat=True)


def new_game(services: BotServices, game_id: str, group: int, players: list[int]) -> int:
    """A started game; returns the player whose decision is open."""
    handle = services.service.handle
    handle(game_id, CreateGame(players[0], f"P{players[0]}", "base", chat_id=group))
    for player in players[1:]:
        handle(game_id, JoinGame(player, f"P{player}"))
    handle(game_id, StartGame(players[0]), seed=7)
    state, _ = services.load(game_id)
    assert state.pending is not None
    return state.pending.player


def move(services: BotServices, game_id: str) -> int:
    """The player on turn makes their first legal move; returns who decides next."""
    state, _ = services.load(game_id)
    assert state.pending is not None
    services.service.handle(game_id, legal_moves(state, state.pending.player)[0])
    after, _ = services.load(game_id)
    assert after.pending is not None
    return after.pending.player


def prompts(api: FakeBotAPI, player: int) -> list[dict[str, Any]]:
    """The pictures with buttons the player received."""
    return [m for m in api.messages_in(player) if "photo" in m and api.keyboard(m)]


class CutProxy:
    """A TCP proxy in front of ``port`` on this machine that can be cut: from then on
    every connection through it is dropped and new ones are closed at once, until it is
    mended."""

    def __init__(self, port: int) -> None:
        self.target = ("127.0.0.1", port)
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self.cut_off = False
        threading.Thread(target=self._accept, daemon=True).start()

    def cut(self) -> None:
        with self._lock:
            self.cut_off = True
            for s in self._sockets:
                with contextlib.suppress(OSError):
                    s.close()
            self._sockets.clear()

    def mend(self) -> None:
        with self._lock:
            self.cut_off = False

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            with self._lock:
                if self.cut_off:
                    client.close()
                    continue
            server = socket.create_connection(self.target)
            with self._lock:
                self._sockets += [client, server]
            for a, b in ((client, server), (server, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(source: socket.socket, target: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                target.sendall(data)
        except OSError:
            pass
        finally:
            for s in (source, target):
                with contextlib.suppress(OSError):
                    s.close()


async def until(predicate: Callable[[], object], timeout: float = 30.0) -> None:
    """Wait, polling, until ``predicate()`` holds (for what no request to the fake
    signals, such as a row in the database)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError(f"not so after {timeout} s")
        await asyncio.sleep(0.02)
