"""The private keyboards, pressed through the bot: pass, discard-to-remove, gold pick and
theft. Turns that do not matter are played through the game service (as another
instance or the deadline worker would), the decision under test by pressing buttons."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from domain.board import GOAL_CELLS
from domain.cards import card
from domain.commands import Command, DiscardToRemove, Pass, PlacePath, PlayAction
from domain.events import CardsDiscarded, FrontCardRemoved, GoldPicked, TheftResolved
from domain.moves import legal_moves
from domain.queries import theft_victims
from domain.state import GameState
from tests.fakebotapi import Button, FakeBotAPI
from tests.tgbot.bot_harness import (
    bot_services,
    game_running,
    press_and_wait,
    settle,
)
from tgbot.presenter.texts import Texts
from tgbot.telegram.app import BotApplication

GROUP = -6006
PLAYERS = [61, 62, 63]

pytestmark = pytest.mark.timeout(120)

Policy = Callable[[GameState, list[Command]], Command]


def toward_treasure(state: GameState, moves: list[Command]) -> Command:
    """Dig towards the treasure with anything but dead ends; else the first move."""
    treasure = GOAL_CELLS[state.goals.index("goal_treasure")]
    digs = [
        m
        for m in moves
        if isinstance(m, PlacePath) and not card(state.edition, m.card).kind.startswith("dead")
    ]
    if digs:
        return min(digs, key=lambda m: abs(m.cell[0] - treasure[0]) + abs(m.cell[1] - treasure[1]))
    passes = [m for m in moves if isinstance(m, Pass)]
    return passes[0] if passes else moves[0]


def drive(
    app: BotApplication, game_id: str, until: Callable[[GameState], bool], policy: Policy
) -> GameState:
    """Play turns through the game service until ``until(state)``."""
    service = bot_services(app).service
    for _ in range(3000):
        state = service.load(game_id).state
        if until(state):
            return state
        assert state.phase == "playing" and state.pending is not None, state.phase
        service.handle(game_id, policy(state, legal_moves(state, state.pending.player)))
    raise AssertionError("the position was never reached")


def buttons(api: FakeBotAPI, message: dict[str, Any]) -> list[Button]:
    return [b for row in api.keyboard(message) for b in row if b.callback_data]


async def press(
    api: FakeBotAPI, app: BotApplication, player: int, message: dict[str, Any], label: str
) -> dict[str, Any]:
    """Press the button whose text is (or starts with) ``label``; the message as edited."""
    found = next(b for b in buttons(api, message) if b.text == label or b.text.startswith(label))
    assert found.callback_data is not None
    answer = await press_and_wait(
        api, app, player, player, message["message_id"], found.callback_data
    )
    assert not answer.get("show_alert"), answer
    return api.messages[player].get(message["message_id"], message)


def last_events(app: BotApplication, game_id: str, version: int) -> list[Any]:
    return bot_services(app).service.events(game_id, after_version=version)


@contextlib.asynccontextmanager
async def playing(
    api: FakeBotAPI,
    db: str,
    edition: str,
    settings: dict[str, Any] | None = None,
    **bot_options: Any,
) -> AsyncIterator[tuple[BotApplication, str, GameState, dict[str, Any]]]:
    """A game of ``edition`` started on a running bot: the bot, the game's id, its state
    and the prompt of the player on turn."""
    running = game_running(api, db, GROUP, PLAYERS, edition, settings, **bot_options)
    async with running as (app, game_id):
        state = bot_services(app).service.load(game_id).state
        assert state.pending is not None
        yield app, game_id, state, api.last_message(state.pending.player)


async def test_a_base_pass_discards_exactly_the_one_card_pressed(db: str) -> None:
    async with FakeBotAPI() as api, playing(api, db, "base") as (app, game_id, state, prompt):
        player = state.pending.player  # type: ignore[union-attr]
        version = bot_services(app).store.version(game_id)

        menu = await press(api, app, player, prompt, "🂠 Pass")
        offered = [b.text for b in buttons(api, menu) if not b.text.startswith("«")]
        assert len(offered) == len(state.hand(player))  # any one card, no confirming
        await press(api, app, player, menu, offered[-1])

        discarded = [e for e in last_events(app, game_id, version) if isinstance(e, CardsDiscarded)]
        assert [len(e.cards) for e in discarded] == [1]
        assert discarded[0].cards == (sorted(state.hand(player))[-1],)


async def test_a_saboteur2_pass_takes_one_to_three_toggled_cards(db: str) -> None:
    async with FakeBotAPI() as api, playing(api, db, "saboteur2") as (app, game_id, state, prompt):
        player = state.pending.player  # type: ignore[union-attr]
        hand = sorted(state.hand(player))
        version = bot_services(app).store.version(game_id)

        menu = await press(api, app, player, prompt, "🂠 Pass")
        names = [b.text for b in buttons(api, menu)][: len(hand)]
        assert not any("Confirm" in b.text for b in buttons(api, menu))
        for count, name in enumerate(names[:3], start=1):
            menu = await press(api, app, player, menu, name)
            assert any("Confirm" in b.text for b in buttons(api, menu)), count
        # A fourth is refused, saying why; the three stay ticked, Confirm with them.
        fourth = next(b for b in buttons(api, menu) if b.text == names[3])
        answer = await press_and_wait(
            api, app, player, player, menu["message_id"], fourth.callback_data or ""
        )
        assert answer.get("show_alert") and "Three cards at most" in answer["text"]
        assert any("Confirm" in b.text for b in buttons(api, menu))
        menu = await press(api, app, player, menu, "✅ ")  # untoggle the first again
        menu = await press(api, app, player, menu, "✅ Confirm")

        discarded = [e for e in last_events(app, game_id, version) if isinstance(e, CardsDiscarded)]
        assert [e.cards for e in discarded] == [tuple(hand[1:3])]


def breaks_tools(state: GameState, moves: list[Command]) -> Command:
    """Break someone's tool when possible; else pass."""
    breaking = [
        m
        for m in moves
        if isinstance(m, PlayAction)
        and m.tool is None
        and m.target_player
        and card(state.edition, m.card).kind.startswith("broken")
    ]
    if breaking:
        return breaking[0]
    passes = [m for m in moves if isinstance(m, Pass) and len(m.cards) == 1]
    return passes[0] if passes else moves[0]


def can_remove(state: GameState) -> bool:
    pending = state.pending
    return (
        pending is not None
        and pending.kind == "turn"
        and any(isinstance(m, DiscardToRemove) for m in legal_moves(state, pending.player))
    )


async def test_discarding_two_cards_removes_the_card_chosen_from_in_front(db: str) -> None:
    async with FakeBotAPI() as api, playing(api, db, "saboteur2") as (app, game_id, _, _):
        state = drive(app, game_id, can_remove, breaks_tools)
        await settle(api, app)
        player = state.pending.player  # type: ignore[union-attr]
        front = state.front_of(player)[0]
        version = bot_services(app).store.version(game_id)
        prompt = api.last_message(player)

        menu = await press(api, app, player, prompt, "🗑 Discard 2, remove 1")
        fronts = [Texts("en").front_name(k) for k in dict.fromkeys(state.front_of(player))]
        if len(fronts) > 1:  # which card to remove; with one, the menu goes straight on
            menu = await press(api, app, player, menu, fronts[0])
        cards = [b.text for b in buttons(api, menu)][:2]
        for name in cards:
            menu = await press(api, app, player, menu, name)
        await press(api, app, player, menu, "✅ Confirm")

        removed = [e for e in last_events(app, game_id, version) if isinstance(e, FrontCardRemoved)]
        assert [(e.player, e.removed, len(e.cards)) for e in removed] == [(player, front, 2)]


async def test_the_gold_pick_offers_the_nuggets_left_and_keeps_the_one_pressed(db: str) -> None:
    """When the group asks for manual picks (the default is the automatic pick)."""
    manual = {"gold_pick": "manual"}
    async with (
        FakeBotAPI() as api,
        playing(api, db, "base", settings=manual, seed=2) as (app, game_id, _, _),
    ):
        state = drive(
            app,
            game_id,
            lambda s: s.pending is not None and s.pending.kind == "gold_pick",
            toward_treasure,
        )
        await settle(api, app)
        picker = state.pending.player  # type: ignore[union-attr]
        prompt = api.last_message(picker)
        offer = sorted(set(state.gold_pick_offer), reverse=True)  # the largest first
        assert [b.text for b in buttons(api, prompt)] == [f"Take {v} gold" for v in offer]
        version = bot_services(app).store.version(game_id)

        await press(api, app, picker, prompt, f"Take {offer[0]} gold")

        picked = [e for e in last_events(app, game_id, version) if isinstance(e, GoldPicked)]
        assert picked[0].player == picker and picked[0].value == offer[0]


def steals(state: GameState, moves: list[Command]) -> Command:
    """Lay a theft when possible, else dig towards the treasure."""
    thefts = [
        m
        for m in moves
        if isinstance(m, PlayAction) and card(state.edition, m.card).kind == "theft"
    ]
    return thefts[0] if thefts else toward_treasure(state, moves)


async def test_a_thief_chooses_the_victim_by_pressing_their_name(db: str) -> None:
    async with FakeBotAPI() as api, playing(api, db, "saboteur2", seed=1) as (app, game_id, _, _):
        state = drive(
            app, game_id, lambda s: s.pending is not None and s.pending.kind == "theft", steals
        )
        await settle(api, app)
        thief = state.pending.player  # type: ignore[union-attr]
        victims = theft_victims(state, thief)
        prompt = api.last_message(thief)
        assert [b.text for b in buttons(api, prompt)] == [f"P{v}" for v in victims]
        version = bot_services(app).store.version(game_id)

        await press(api, app, thief, prompt, f"P{victims[-1]}")

        stolen = [e for e in last_events(app, game_id, version) if isinstance(e, TheftResolved)]
        assert [(e.thief, e.victim) for e in stolen][:1] == [(thief, victims[-1])]
