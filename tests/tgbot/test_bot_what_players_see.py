"""What players meet in a game, through the fake Bot API: a cancel asked first, double taps
answered quietly, the group named in private, goals turned up at a round's end, reminders
that move the buttons, cards that cannot be played kept and explained, the icons' legend."""

from __future__ import annotations

import io
from typing import Any

import pytest
from PIL import Image

from domain.board import GOAL_CELLS
from domain.commands import RemindPlayer
from domain.moves import legal_moves
from domain.state import GameState
from tests.fakebotapi import FakeBotAPI
from tests.tgbot.bot_harness import (
    bot_services,
    game_running,
    lobby_button,
    open_game,
    press_and_wait,
    running_bot,
    seat,
    settle,
)
from tests.tgbot.test_bot_keyboards import breaks_tools, buttons, drive
from tests.tgbot.test_render import rgb
from tgbot.presenter.callback import peek
from tgbot.presenter.keyboards import CARD, COMMAND_ACTIONS, LEGEND, PLACE
from tgbot.presenter.palette import CARD_BACK
from tgbot.presenter.render import layout
from tgbot.presenter.texts import Texts
from tgbot.telegram.app import BotApplication

GROUP = -8008
PLAYERS = [81, 82, 83]
EN = Texts("en")

pytestmark = pytest.mark.timeout(120)


def photos(api: FakeBotAPI, chat: int) -> list[dict[str, Any]]:
    return [m for m in api.messages_in(chat) if "photo" in m]


def body(message: dict[str, Any]) -> str:
    return str(message.get("text") or message.get("caption") or "")


def action_of(app: BotApplication, data: str | None) -> str:
    return peek(data or "").action


def on_turn(app: BotApplication, game_id: str) -> int:
    """The player whose decision the game waits for."""
    state, _ = bot_services(app).load(game_id)
    assert state.pending is not None
    return state.pending.player


async def test_cancelling_a_running_game_asks_first_names_the_canceller_and_closes_the_prompts(
    db: str,
) -> None:
    async with FakeBotAPI() as api, game_running(api, db, GROUP, PLAYERS) as (app, game_id):
        services = bot_services(app)
        waiting = on_turn(app, game_id)
        prompt = api.last_message(waiting)
        creator = PLAYERS[0]

        api.send_text(GROUP, creator, "/cancel")
        await settle(api, app)
        question = api.last_message(GROUP)
        assert services.load(game_id)[0].phase == "playing"  # nothing yet: it asks first
        yes, no = buttons(api, question)
        assert "Cancel the running game?" in question["text"]

        await press_and_wait(api, app, GROUP, creator, question["message_id"], no.callback_data)
        assert services.load(game_id)[0].phase == "playing"
        assert api.messages[GROUP][question["message_id"]]["text"] == "The game goes on."

        api.send_text(GROUP, creator, "/cancel")
        await settle(api, app)
        question = api.last_message(GROUP)
        yes, no = buttons(api, question)
        await press_and_wait(api, app, GROUP, creator, question["message_id"], yes.callback_data)

        assert services.load(game_id)[0].phase == "cancelled"
        # The question says what was done, not its question again with its buttons gone.
        answered = api.messages[GROUP][question["message_id"]]["text"]
        assert answered == "The game is cancelled: it ended for everyone, with no winner."
        assert any("P81 cancelled the game." in t for t in api.texts_in(GROUP))
        board = photos(api, GROUP)[-1]
        assert "cancelled" in board["caption"]
        assert "your turn" not in board["caption"] and "⏳" not in board["caption"]
        closed = api.messages[waiting][prompt["message_id"]]
        assert "“Mine”: the game was cancelled." in closed["caption"]
        assert not api.keyboard(closed)


async def test_a_second_tap_of_a_button_that_took_effect_is_answered_quietly(db: str) -> None:
    async with FakeBotAPI() as api:
        seat(api, GROUP, PLAYERS)
        async with running_bot(api, db) as app:
            await settle(api, app)
            lobby = await open_game(api, app, GROUP, PLAYERS)
            join, start = lobby_button(api, lobby, 0), lobby_button(api, lobby, 2)
            again = await press_and_wait(api, app, GROUP, PLAYERS[1], lobby["message_id"], join)
            assert not again.get("text") and not again.get("show_alert")  # joined already

            await press_and_wait(api, app, GROUP, PLAYERS[0], lobby["message_id"], start)
            again = await press_and_wait(api, app, GROUP, PLAYERS[0], lobby["message_id"], start)
            assert not again.get("text") and not again.get("show_alert")  # started already
            late = await press_and_wait(api, app, GROUP, PLAYERS[2], lobby["message_id"], join)
            assert not late.get("text") and not late.get("show_alert")  # seated already

            game_id = bot_services(app).active_game(GROUP)
            state, _ = bot_services(app).load(str(game_id))
            assert state.pending is not None
            player = state.pending.player
            prompt = api.last_message(player)
            card = next(b for b in buttons(api, prompt) if action_of(app, b.callback_data) == CARD)
            shown = await press_and_wait(
                api, app, player, player, prompt["message_id"], card.callback_data or ""
            )
            assert not shown.get("show_alert")
            step = api.messages[player][prompt["message_id"]]
            cell = next(
                b for b in buttons(api, step) if action_of(app, b.callback_data) in COMMAND_ACTIONS
            )
            version = bot_services(app).store.version(str(game_id))
            for tap in range(2):  # a double tap on the cell
                answer = await press_and_wait(
                    api, app, player, player, prompt["message_id"], cell.callback_data or ""
                )
                assert not answer.get("text") and not answer.get("show_alert"), (tap, answer)
            moved = bot_services(app).store.version(str(game_id)) - version
            assert 0 < moved < 6  # one move, once


async def test_every_private_message_of_a_game_names_its_group_and_no_first_line_a_role(
    db: str,
) -> None:
    async with FakeBotAPI() as api, game_running(api, db, GROUP, PLAYERS) as (app, game_id):
        services = bot_services(app)
        for _ in range(6):
            state, _ = services.load(game_id)
            assert state.pending is not None
            services.service.handle(game_id, legal_moves(state, state.pending.player)[0])
            services.wake.set()
            await settle(api, app)

        roles = {EN.role_name(r) for r in ("gold_digger", "saboteur")}
        private = [c for c in api.calls if str(c.get("chat_id")) in {str(p) for p in PLAYERS}]
        told = [
            c.get("text") or c.get("caption") or (c.get("media") or {}).get("caption")
            for c in private
            if c.method in ("sendMessage", "sendPhoto", "editMessageCaption")
        ]
        during = [t for t in told if t and "Hello" not in t]
        assert len(during) > 6
        for text in during:
            first = text.split("\n")[0]
            assert "“Mine”" in first, text
            assert not any(role in first for role in roles), first


def goal_pixels(png: bytes, board_cells: list[tuple[int, int]], cell: tuple[int, int]) -> int:
    image = Image.open(io.BytesIO(png)).convert("RGB")
    grid = layout({c: None for c in board_cells})  # type: ignore[misc]
    box = grid.box(cell)
    crop = image.crop(box)
    return sum(1 for pixel in rgb(crop) if pixel == CARD_BACK)


async def test_at_a_rounds_end_the_board_shows_every_goal_face_up_and_where_the_treasure_was(
    db: str,
) -> None:
    async with FakeBotAPI() as api, game_running(api, db, GROUP, PLAYERS) as (app, game_id):
        services = bot_services(app)
        for _ in range(1000):  # the first move each turn, until the round ends
            state, _ = services.load(game_id)
            if state.round > 1 or state.phase != "playing":
                break
            assert state.pending is not None
            services.service.handle(game_id, legal_moves(state, state.pending.player)[0])
        services.wake.set()
        await settle(api, app)

        ended = next(t for t in api.texts_in(GROUP) if "Round 1 is over" in t)
        assert "The treasure lay under the" in ended
        first_board = photos(api, GROUP)[0]  # round 1's board, edited up to its end
        png = api.photo_bytes(first_board)
        cells = _round_one_cells(services.service.events(game_id))
        for goal in GOAL_CELLS:
            assert goal_pixels(png, cells, goal) == 0, goal  # no card back left


def _round_one_cells(events: list[Any]) -> list[tuple[int, int]]:
    from domain.events import RoundEnded
    from domain.evolve import evolve, initial_state

    state: GameState = initial_state()
    for event in events:
        state = evolve(state, event)
        if isinstance(event, RoundEnded):
            return list(state.board)
    raise AssertionError("round 1 never ended")


async def test_a_reminder_moves_the_buttons_to_the_newest_message_without_the_hand_again(
    db: str,
) -> None:
    async with FakeBotAPI() as api, game_running(api, db, GROUP, PLAYERS) as (app, game_id):
        services = bot_services(app)
        player = on_turn(app, game_id)
        prompt = api.last_message(player)
        texts_before = len(api.messages_in(player))
        decision = services.load(game_id)[0].pending

        assert decision is not None
        services.service.handle(game_id, RemindPlayer(decision.id, "half"))
        services.wake.set()
        await settle(api, app)

        new = api.messages_in(player)[texts_before:]
        assert len(new) == 1 and "photo" in new[0] and api.keyboard(new[0])
        assert new[0]["caption"].startswith("⏳ “Mine”: half of your time is gone")
        assert "Your cards" not in new[0]["caption"]
        assert not api.keyboard(api.messages[player][prompt["message_id"]])
        # Its buttons work: a card opens its cells in that newest message.
        card = next(b for b in buttons(api, new[0]) if action_of(app, b.callback_data) == CARD)
        answer = await press_and_wait(
            api, app, player, player, new[0]["message_id"], card.callback_data or ""
        )
        assert not answer.get("show_alert")


async def test_a_card_that_cannot_be_played_stays_in_the_hand_marked_and_says_why(db: str) -> None:
    async with FakeBotAPI() as api, game_running(api, db, GROUP, PLAYERS) as (app, game_id):
        state = drive(app, game_id, _broken_and_holding_a_path, breaks_tools)
        bot_services(app).wake.set()
        await settle(api, app)
        player = state.pending.player  # type: ignore[union-attr]
        prompt = api.last_message(player)
        cards = [b for b in buttons(api, prompt) if action_of(app, b.callback_data) == CARD]
        plays = [
            b
            for b in buttons(api, prompt)
            if action_of(app, b.callback_data) in COMMAND_ACTIONS - {PLACE}
        ]
        assert len(cards) + len(plays) == len(state.hand(player))  # the whole hand
        marked = [b for b in cards if b.text.startswith("🚫")]
        assert marked
        version = bot_services(app).store.version(game_id)

        answer = await press_and_wait(
            api, app, player, player, prompt["message_id"], marked[0].callback_data or ""
        )

        assert answer.get("show_alert") and "broken tool" in answer["text"]
        assert bot_services(app).store.version(game_id) == version
        assert api.keyboard(api.messages[player][prompt["message_id"]]) == api.keyboard(prompt)


def _broken_and_holding_a_path(state: GameState) -> bool:
    from domain.cards import card

    pending = state.pending
    if pending is None or pending.kind != "turn":
        return False
    player = pending.player
    front = state.front_of(player)
    holds_path = any(card(state.edition, c).path is not None for c in state.hand(player))
    return any(k.startswith("broken_") for k in front) and holds_path


async def test_the_icons_are_explained_in_help_and_behind_the_prompts_question_button(
    db: str,
) -> None:
    async with FakeBotAPI() as api, game_running(api, db, GROUP, PLAYERS) as (app, game_id):
        api.send_text(GROUP, PLAYERS[0], "/help")
        await settle(api, app)
        helped = api.last_message(GROUP)["text"]
        assert "What the icons mean:" in helped and "💰 gold" in helped and "⛓ trapped" in helped

        player = on_turn(app, game_id)
        prompt = api.last_message(player)
        legend = next(b for b in buttons(api, prompt) if action_of(app, b.callback_data) == LEGEND)
        await press_and_wait(
            api, app, player, player, prompt["message_id"], legend.callback_data or ""
        )
        shown = api.messages[player][prompt["message_id"]]
        assert shown["caption"].startswith("👉 Your turn in “Mine”!")
        assert "What the icons mean:" in shown["caption"]
        assert [b.text for row in api.keyboard(shown) for b in row] == ["« Back"]
