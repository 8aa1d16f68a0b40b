"""Run the real bot against the fake Bot API, and play it by pressing its buttons.

:func:`running_bot` starts the production :class:`telegram.ext.Application` (long polling,
announcer and all) on a database; :class:`Table` seats fake users and presses buttons the
bot sent, chosen by a seeded random generator, until the game ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import random
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from domain.commands import ChangeSettings
from domain.moves import legal_moves
from infra.computer import computer_move, move_key
from infra.memory import FreeMemory
from infra.settings import load_settings
from tests.fakebotapi import Button, FakeBotAPI
from tgbot.delivery.announcer import Announcer
from tgbot.presenter.callback import peek
from tgbot.presenter.keyboards import COMMAND_ACTIONS, LEGEND, UNPLAYABLE
from tgbot.telegram.app import ANNOUNCER_KEY, BotApplication, polling_bot
from tgbot.telegram.context import SERVICES_KEY, BotServices


def counter_seeds(start: int = 1) -> Callable[[], int]:
    numbers = itertools.count(start)
    return lambda: next(numbers)


@contextlib.asynccontextmanager
async def running_bot(
    api: FakeBotAPI,
    url: str,
    *,
    seed: int = 1,
    clock_ms: Callable[[], int] | None = None,
    rate_limit: bool = False,
    env: Mapping[str, Any] | None = None,
    memory: FreeMemory | None = None,
) -> AsyncIterator[BotApplication]:
    """The bot, polling ``api``, on the migrated database ``url`` (``env``: more settings,
    as the environment would give them; ``memory``: what gives free memory back). A test
    it ran to its end made no call Telegram would refuse (failures the test asked for
    aside)."""
    # The tests' users press as fast as the bot answers: throttled far above that, unless
    # a test asks for the real limits.
    fast = {"throttle_presses": 10_000, "throttle_chat_presses": 10_000}
    settings = load_settings(
        telegram_bot_token=api.token, database_url=url, **{**fast, **(env or {})}
    )
    extra: dict[str, Any] = {"seeds": counter_seeds(seed), "memory": memory}
    if clock_ms is not None:
        extra["clock_ms"] = clock_ms
    async with polling_bot(
        settings,
        base_url=api.base_url,
        base_file_url=api.base_file_url,
        poll_interval=0.05,
        rate_limit=rate_limit,
        **extra,
    ) as app:
        yield app
        # A chat the test never made is the test's world, not a call Telegram would refuse.
        refused = [r for r in api.refusals if not r.description.endswith("chat not found")]
        assert not refused, f"Telegram would refuse: {refused}"


@contextlib.asynccontextmanager
async def game_running(
    api: FakeBotAPI,
    url: str,
    group: int,
    players: list[int],
    edition: str = "base",
    settings: dict[str, Any] | None = None,
    **bot_options: Any,
) -> AsyncIterator[tuple[BotApplication, str]]:
    """The group seated (every player opened the private chat), the bot running on
    ``url`` and their game started: (the bot, the game's id). ``settings``: the game's
    (ChangeSettings), changed in the lobby through the game service."""
    seat(api, group, players)
    async with running_bot(api, url, **bot_options) as app:
        await settle(api, app)
        yield app, await start_game(api, app, group, players, edition, settings)


def bot_services(app: BotApplication) -> BotServices:
    services: BotServices = app.bot_data[SERVICES_KEY]
    return services


def announcer_of(app: BotApplication) -> Announcer:
    announcer: Announcer = app.bot_data[ANNOUNCER_KEY]
    return announcer


# How long settle() waits by default: a bound for a busy machine (a slow database: longer).
SETTLE_SECONDS = 120.0


async def settle(api: FakeBotAPI, app: BotApplication, timeout: float | None = None) -> None:
    """Wait until every update was fetched and handled and the announcer announced every
    event and delivered what it called for (polled: the announcer may finish without
    another request to the fake)."""
    services = bot_services(app)
    announcer = announcer_of(app)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + (timeout if timeout is not None else SETTLE_SECONDS)
    while True:
        idle = not api._updates and app.update_queue.empty() and not busy(app)
        # (read in a thread: the bot's event loop is never kept waiting on the database)
        if idle and await asyncio.to_thread(announcer.settled):
            return
        if loop.time() > deadline:
            raise AssertionError(
                f"the bot did not settle: updates {len(api._updates)}, busy {busy(app)}, "
                f"announced {announcer.position} of {services.store.last_position()}, "
                f"delivering {sorted(announcer.delivering)}, "
                f"owed {sorted(announcer.deliveries.owing())}"
            )
        await asyncio.sleep(0.002)


def busy(app: BotApplication) -> bool:
    """Whether a handler is still running (updates are handled concurrently)."""
    return app.update_processor.current_concurrent_updates > 0


async def press_and_wait(
    api: FakeBotAPI, app: BotApplication, chat: int, user: int, message_id: int, data: str
) -> dict[str, Any]:
    """Press a button and wait for the bot's answer (and the announcer). Returns the answer."""
    query_id = api.press(chat, user, message_id, data)
    # (answered in milliseconds; the bound is for a machine busy with other work)
    answer: dict[str, Any] = await api.wait_for(lambda: api.answered.get(query_id), 120.0)
    await settle(api, app)
    return answer


@dataclass
class Table:
    """A group and its players, driving a game only through the buttons the bot sent."""

    api: FakeBotAPI
    app: BotApplication
    group: int
    players: list[int]
    rng: random.Random = field(default_factory=lambda: random.Random(7))
    presses: int = 0
    # Players who get on with the game: a move pressed as soon as one is offered (mostly),
    # and no card opened that cannot be played. A whole game in a few hundred presses
    # rather than a thousand, for the tests that need one played to its end, not the
    # side trips on the way (those are tested on their own).
    brisk: bool = False

    def prompt_owner(self) -> tuple[int, dict[str, Any]] | None:
        """The player whose newest private message has buttons (their decision)."""
        for player in self.players:
            messages = self.api.messages_in(player)
            for message in reversed(messages):
                if self.api.keyboard(message):
                    return player, message
        return None

    async def play_one(self) -> bool:
        found = self.prompt_owner()
        if found is None:
            return False
        player, message = found
        buttons = [b for row in self.api.keyboard(message) for b in row if b.callback_data]
        # Going back and reading the icons' legend are side trips: taken now and then, so
        # a turn is mostly spent getting on with the game (Saboteur 2's legend has pages,
        # and a walk to and fro among them took most of a game's presses).
        forward = [
            b
            for b in buttons
            if not b.text.startswith("«") and peek(b.callback_data or "").action != LEGEND
        ]
        confirm = [b for b in buttons if "Confirm" in b.text]
        moves = [
            b
            for b in buttons
            if (data := peek(b.callback_data or "")) is not None and data.action in COMMAND_ACTIONS
        ]
        playable = [b for b in forward if not b.text.startswith(UNPLAYABLE)]
        if self.brisk and moves and self.rng.random() < 0.9:
            choice = self.rng.choice(moves)
        elif self.brisk and playable:
            choice = self.rng.choice(playable)
        elif confirm and self.rng.random() < 0.7:  # do not wander in the toggle menus
            choice = confirm[0]
        else:
            choice = self.rng.choice(forward if forward and self.rng.random() < 0.9 else buttons)
        assert choice.callback_data is not None
        await press_and_wait(
            self.api, self.app, player, player, message["message_id"], choice.callback_data
        )
        self.presses += 1
        return True

    async def play_to_end(self, max_presses: int = 20_000) -> None:
        for _ in range(max_presses):
            if not await self.play_one():
                return
        raise AssertionError("the game did not end")

    async def play_with_computers(self, game_id: str, max_moves: int = 20_000) -> int:
        """Play to the end: the computer's decisions made as the worker makes them, the
        people's by pressing buttons. Returns the computer's moves."""
        made = 0
        services = bot_services(self.app)
        for _ in range(max_moves):
            state, _ = await asyncio.to_thread(services.load, game_id)
            if state.phase != "playing":
                return made  # (the game-over message's buttons are nobody's decision)
            if await computer_moves_once(self.app, game_id):
                await settle(self.api, self.app)
                made += 1
            elif not await self.play_one():
                return made
        raise AssertionError("the game did not end")


async def computer_moves_once(app: BotApplication, game_id: str) -> bool:
    """Make the decision the computer owes now, as the worker's task does (the strategy's
    move, under the decision's idempotency key); False when it owes none."""
    services = bot_services(app)
    state, _ = await asyncio.to_thread(services.load, game_id)
    pending = state.pending
    if state.phase != "playing" or pending is None or not pending.computer:
        return False
    command = await asyncio.to_thread(computer_move, services.service, game_id, pending.id)
    assert command is not None
    key = move_key(game_id, pending.id)
    await asyncio.to_thread(services.service.handle, game_id, command, idempotency_key=key)
    services.wake.set()
    return True


async def finish_outside_the_bot(
    api: FakeBotAPI, app: BotApplication, games: list[str], seed: int = 5, every: int = 8
) -> None:
    """Play ``games`` to their end: a legal move (seeded) of each in turn, made through
    the game service as another instance would; the bot announces and delivers them,
    settled every ``every`` rounds of moves (fewer pictures drawn). For a test that needs
    a game ended, not pressed through: a whole game of presses costs tens of CPU seconds."""
    services = bot_services(app)
    rng = random.Random(seed)
    going = list(games)
    for moves in range(20_000):
        for game in list(going):
            state, _ = await asyncio.to_thread(services.load, game)
            if state.phase != "playing":
                going.remove(game)
                continue
            assert state.pending is not None
            move = rng.choice(legal_moves(state, state.pending.player))
            await asyncio.to_thread(services.service.handle, game, move)
        services.wake.set()
        if moves % every == 0 or not going:
            await settle(api, app)
        if not going:
            return
    raise AssertionError("the games did not end")


def move_outside_the_bot(app: BotApplication, game_id: str) -> int:
    """The player on turn makes their first legal move through the game service (as
    another instance would); returns the player whose decision opens next."""
    services = bot_services(app)
    state, _ = services.load(game_id)
    assert state.pending is not None
    services.service.handle(game_id, legal_moves(state, state.pending.player)[0])
    after, _ = services.load(game_id)
    assert after.pending is not None
    return after.pending.player


def seat(api: FakeBotAPI, group: int, players: list[int], *, lang: str = "en") -> None:
    """A group whose first player is its admin; every player opened the private chat."""
    api.group(group, "Mine", admins=(players[0],))
    for p in players:
        api.user(p, f"P{p}", lang)
        api.send_text(p, p, "/start")


def lobby_button(api: FakeBotAPI, message: dict[str, Any], index: int) -> str:
    """The callback data of the lobby's ``index``-th button (0 Join, 1 Leave, 2 Start, ...)."""
    buttons = [b for row in api.keyboard(message) for b in row if b.callback_data]
    data = buttons[index].callback_data
    assert data is not None
    return data


async def open_game(
    api: FakeBotAPI, app: BotApplication, group: int, players: list[int], edition: str = "base"
) -> dict[str, Any]:
    """The first player sends /newgame, the others press Join; returns the lobby message."""
    # Updates are handled concurrently: the players' /start must be done first, or the
    # creator is told to open the private chat.
    await settle(api, app)
    api.send_text(group, players[0], f"/newgame {edition}")
    await settle(api, app)
    lobby = next(m for m in api.messages_in(group) if api.keyboard(m))
    for player in players[1:]:
        await press_and_wait(
            api, app, group, player, lobby["message_id"], lobby_button(api, lobby, 0)
        )
    return lobby


async def start_game(
    api: FakeBotAPI,
    app: BotApplication,
    group: int,
    players: list[int],
    edition: str = "base",
    settings: dict[str, Any] | None = None,
) -> str:
    """A game opened, joined and started by its creator; returns the game id."""
    lobby = await open_game(api, app, group, players, edition)
    if settings:
        services = bot_services(app)
        opened = services.active_game(group)
        assert opened is not None
        services.service.handle(opened, ChangeSettings(players[0], **settings))
    await press_and_wait(
        api, app, group, players[0], lobby["message_id"], lobby_button(api, lobby, 2)
    )
    game_id = bot_services(app).active_game(group)
    assert game_id is not None
    return game_id


def buttons(api: FakeBotAPI, message: dict[str, object]) -> list[Button]:
    """The message's buttons that carry callback data."""
    return [b for row in api.keyboard(message) for b in row if b.callback_data]


def button(api: FakeBotAPI, message: dict[str, object], label: str) -> str:
    """The callback data of the message's first button whose text holds ``label``."""
    found = next(b for b in buttons(api, message) if label in b.text)
    assert found.callback_data is not None
    return found.callback_data
