"""A running game's seats handed to the computer: /leave (asked first), the board's button
and /kick (the creator's or an admin's), three timeouts in a row; and taken back."""

from __future__ import annotations

from typing import Any

import pytest

from domain.commands import TimeOut
from tests.fakebotapi import Button, FakeBotAPI
from tests.tgbot.bot_harness import (
    Table,
    bot_services,
    computer_moves_once,
    game_running,
    move_outside_the_bot,
    press_and_wait,
    settle,
)
from tgbot.context import BotServices

GROUP = -7014
PLAYERS = [141, 142, 143]
CREATOR = PLAYERS[0]  # also the group's admin

pytestmark = pytest.mark.timeout(120)


def buttons(api: FakeBotAPI, message: dict[str, Any]) -> list[Button]:
    return [b for row in api.keyboard(message) for b in row if b.callback_data]


def labelled(api: FakeBotAPI, chat: int, label: str) -> tuple[dict[str, Any], str]:
    """The bot's newest message in ``chat`` with a button labelled ``label``, and its data."""
    for message in reversed(api.messages_in(chat)):
        for b in buttons(api, message):
            if label in b.text and b.callback_data is not None:
                return message, b.callback_data
    raise AssertionError(f"no {label!r} button in chat {chat}")


async def press(api: FakeBotAPI, app: Any, chat: int, user: int, label: str) -> dict[str, Any]:
    message, data = labelled(api, chat, label)
    return await press_and_wait(api, app, chat, user, message["message_id"], data)


def board_caption(api: FakeBotAPI) -> str:
    return str([m for m in api.messages_in(GROUP) if "caption" in m][-1]["caption"])


async def until_a_person_other_than_the_creator_is_on_turn(
    app: Any, services: BotServices, game_id: str
) -> int:
    for _ in range(50):
        state, _ = services.load(game_id)
        assert state.pending is not None
        if state.pending.player != CREATOR and not state.pending.computer:
            return state.pending.player
        move_outside_the_bot(app, game_id)
    raise AssertionError("nobody but the creator plays")


async def test_leave_in_a_running_game_asks_first_then_the_computer_plays_the_seat(
    db: str,
) -> None:
    leaver = PLAYERS[1]
    async with FakeBotAPI() as api, game_running(api, db, GROUP, PLAYERS) as (app, game_id):
        services = bot_services(app)
        before, _ = services.load(game_id)

        api.send_text(GROUP, leaver, "/leave")
        await settle(api, app)
        assert (
            "leave the running game? A computer player takes your seat"
            in (api.last_message(GROUP)["text"])
        )
        refused = await press(api, app, GROUP, PLAYERS[2], "Yes, leave")
        assert refused["text"] == "That button is not meant for you."
        await press(api, app, GROUP, leaver, "No, I stay")
        assert api.last_message(GROUP)["text"] == f"P{leaver} plays on."
        assert services.load(game_id)[0].handed_over == {}

        api.send_text(GROUP, leaver, "/leave")
        await settle(api, app)
        await press(api, app, GROUP, leaver, "Yes, leave")
        after, _ = services.load(game_id)
        assert after.handed_over == {leaver: "left"}
        assert after.roles[leaver] == before.roles[leaver]
        assert after.gold.get(leaver, 0) == before.gold.get(leaver, 0)
        assert after.hand(leaver) == before.hand(leaver)
        caption = board_caption(api)
        assert f"P{leaver} left the game: a computer player plays the seat to the end." in (caption)
        assert f"P{leaver} 🃏{len(after.hand(leaver))} 🤖" in caption
        private = api.texts_in(leaver)
        assert any("You left the game: a computer player plays your seat" in t for t in private)

        api.send_text(GROUP, leaver, "/leave")
        await settle(api, app)
        assert api.last_message(GROUP)["text"].startswith("You left this game")
        told_so_far = len(api.messages_in(leaver))

        table = Table(api, app, GROUP, [PLAYERS[0], PLAYERS[2]])
        await table.play_with_computers(game_id)
        assert services.load(game_id)[0].phase == "finished"
        # Who left hears nothing more of the seat (its hand, its maps' secrets) and
        # does not come back: no "I'm back" for them.
        assert len(api.messages_in(leaver)) == told_so_far
        assert not [b for m in api.messages_in(leaver) for b in buttons(api, m) if "back" in b.text]


async def test_the_creator_hands_the_awaited_seat_over_on_the_board_and_its_player_takes_it_back(
    db: str,
) -> None:
    async with FakeBotAPI() as api, game_running(api, db, GROUP, PLAYERS) as (app, game_id):
        services = bot_services(app)
        absent = await until_a_person_other_than_the_creator_is_on_turn(app, services, game_id)
        await settle(api, app)
        other = next(p for p in PLAYERS if p not in (CREATOR, absent))
        label = f"The computer plays for P{absent}"
        _, version = services.load(game_id)

        refused = await press(api, app, GROUP, other, label)
        assert refused["text"] == "Only the game's creator or a group admin may do that."
        assert services.load(game_id)[1] == version

        await press(api, app, GROUP, CREATOR, label)
        state, _ = services.load(game_id)
        assert state.handed_over == {absent: "kicked"}
        assert state.pending is not None and state.pending.computer
        assert f"P{CREATOR} handed P{absent}'s seat to a computer player" in board_caption(api)
        # The board waits for the computer now: no button to hand its seat over again.
        board = [m for m in api.messages_in(GROUP) if "caption" in m][-1]
        assert not [b for b in buttons(api, board) if "The computer plays for" in b.text]
        told = api.last_message(absent)
        assert "Your seat was handed to a computer player" in (
            told.get("text") or told.get("caption", "")
        )

        await press(api, app, absent, absent, "I'm back")
        state, _ = services.load(game_id)
        assert state.handed_over == {}
        assert state.pending is not None and not state.pending.computer
        assert state.pending.player == absent  # their decision is theirs again
        assert buttons(api, api.last_message(absent))  # with its prompt


async def test_kick_in_reply_hands_the_seat_over_for_the_creator_only(db: str) -> None:
    target, other = PLAYERS[1], PLAYERS[2]
    async with FakeBotAPI() as api, game_running(api, db, GROUP, PLAYERS) as (app, game_id):
        services = bot_services(app)
        said = api.send_text(GROUP, target, "brb")
        api.send_text(GROUP, CREATOR, "/kick")
        await settle(api, app)
        assert api.last_message(GROUP)["text"] == (
            "Reply to a player's message with /kick to hand their seat to a computer player."
        )
        api.send_text(GROUP, other, "/kick", reply_to=said)
        await settle(api, app)
        assert api.last_message(GROUP)["text"] == (
            "Only the game's creator or a group admin may do that."
        )
        assert services.load(game_id)[0].handed_over == {}

        api.send_text(GROUP, CREATOR, "/kick", reply_to=said)
        await settle(api, app)
        assert services.load(game_id)[0].handed_over == {target: "kicked"}
        assert f"A computer player plays P{target}'s seat until P{target} is back." in (
            api.texts_in(GROUP)
        )
        api.send_text(GROUP, CREATOR, "/kick", reply_to=said)
        await settle(api, app)
        assert api.last_message(GROUP)["text"] == "The computer already plays that seat."


async def test_a_player_away_three_times_is_played_by_the_computer_until_they_press(
    db: str,
) -> None:
    absent = PLAYERS[2]
    async with FakeBotAPI() as api, game_running(api, db, GROUP, PLAYERS) as (app, game_id):
        services = bot_services(app)
        state, _ = services.load(game_id)
        while absent not in state.handed_over:
            pending = state.pending
            assert pending is not None
            if pending.player == absent:
                services.service.handle(game_id, TimeOut(pending.id))
            else:
                move_outside_the_bot(app, game_id)
            state, _ = services.load(game_id)
        await settle(api, app)
        assert state.handed_over == {absent: "away"} and absent in state.away
        labelled(api, absent, "I'm back")  # the button is there
        told = "\n".join(api.texts_in(absent))
        assert "so a computer player plays your seat meanwhile" in told
        assert "your turns now pass at once" not in told

        # The computer plays their turns meanwhile, with the whole timer as a safety net.
        for _ in range(30):
            state, _ = services.load(game_id)
            assert state.pending is not None
            if state.pending.player == absent:
                break
            move_outside_the_bot(app, game_id)
        assert state.pending is not None and state.pending.computer
        assert await computer_moves_once(app, game_id)
        await settle(api, app)

        await press(api, app, absent, absent, "I'm back")
        state, _ = services.load(game_id)
        assert state.handed_over == {} and absent not in state.away
