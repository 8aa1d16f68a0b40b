"""A running game's seats handed to the computer: /leave (asked first), the board's chooser
and /kick (the creator's or an admin's), three timeouts in a row; and taken back."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest

from domain.commands import CancelGame, TimeOut
from domain.events import SeatHandedOver
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
from tgbot.presenter import callback as cb
from tgbot.presenter import keyboards as kb
from tgbot.telegram.context import BotServices

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


@asynccontextmanager
async def a_person_awaited(db: str) -> AsyncIterator[tuple[FakeBotAPI, Any, BotServices, str, int]]:
    """A running game waiting for a person other than its creator, its board drawn."""
    async with FakeBotAPI() as api, game_running(api, db, GROUP, PLAYERS) as (app, game_id):
        services = bot_services(app)
        absent = await until_a_person_other_than_the_creator_is_on_turn(app, services, game_id)
        await settle(api, app)
        yield api, app, services, game_id, absent


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
        api.send_text(GROUP, leaver, "/back")  # not "You are not away"
        await settle(api, app)
        assert api.last_message(GROUP)["text"].startswith(
            "You left this game: a computer player plays your seat to the end, and /back "
            "cannot undo that."
        )
        told_so_far = len(api.messages_in(leaver))

        table = Table(api, app, GROUP, [PLAYERS[0], PLAYERS[2]])
        await table.play_with_computers(game_id)
        assert services.load(game_id)[0].phase == "finished"
        # Who left hears nothing more of the seat (its hand, its maps' secrets) and
        # does not come back: no "I'm back" for them.
        assert len(api.messages_in(leaver)) == told_so_far
        assert not [b for m in api.messages_in(leaver) for b in buttons(api, m) if "back" in b.text]


HAND_SEAT = "Hand a seat to the computer"
CHOOSER = "Hand whose seat to a computer player?"
ONLY_CREATOR = "Only the game's creator or a group admin may do that."


def board_message(api: FakeBotAPI) -> dict[str, Any]:
    return [m for m in api.messages_in(GROUP) if "caption" in m][-1]


def chooser(api: FakeBotAPI) -> dict[str, Any]:
    """The newest seat chooser posted in the group."""
    return [m for m in api.messages_in(GROUP) if CHOOSER in m.get("text", "")][-1]


async def open_chooser(api: FakeBotAPI, app: Any, user: int) -> dict[str, Any]:
    """``user`` presses the board's hand-over button; the bot's answer."""
    board = board_message(api)
    [opener] = [b for b in buttons(api, board) if HAND_SEAT in b.text]
    assert opener.callback_data is not None
    return await press_and_wait(api, app, GROUP, user, board["message_id"], opener.callback_data)


async def choose(api: FakeBotAPI, app: Any, user: int, label: str) -> dict[str, Any]:
    """``user`` presses the chooser's button whose label ends with ``label``."""
    shown = chooser(api)
    [chosen] = [b for b in buttons(api, shown) if b.text.endswith(label)]
    assert chosen.callback_data is not None
    return await press_and_wait(api, app, GROUP, user, shown["message_id"], chosen.callback_data)


async def test_the_creator_hands_the_awaited_seat_over_from_the_board_and_its_player_takes_it_back(
    db: str,
) -> None:
    async with a_person_awaited(db) as (api, app, services, game_id, absent):
        assert not (await open_chooser(api, app, CREATOR)).get("show_alert")
        # The player the game waits for comes first, marked.
        assert buttons(api, chooser(api))[0].text == f"⏳ P{absent}"
        await choose(api, app, CREATOR, f"P{absent}")
        state, _ = services.load(game_id)
        assert state.handed_over == {absent: "kicked"}
        assert state.pending is not None and state.pending.computer
        assert f"P{CREATOR} handed P{absent}'s seat to a computer player" in board_caption(api)
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


async def test_the_creator_hands_a_seat_the_game_does_not_wait_for_over_with_the_boards_chooser(
    db: str,
) -> None:
    async with FakeBotAPI() as api, game_running(api, db, GROUP, PLAYERS) as (app, game_id):
        services = bot_services(app)
        await settle(api, app)
        before, _ = services.load(game_id)
        assert before.pending is not None
        awaited = before.pending.player
        target = next(p for p in PLAYERS if p not in (CREATOR, awaited))
        # One button on the board, whoever the game waits for; no name on it.
        labels = [b.text for b in buttons(api, board_message(api))]
        assert labels == ["📜 Round so far", f"🤖 {HAND_SEAT}"]  # (and the round's log)
        events = len(services.service.events(game_id))

        answer = await open_chooser(api, app, CREATOR)
        assert not answer.get("show_alert")
        shown = chooser(api)
        assert "Only the game's creator or a group admin may choose." in shown["text"]
        names = [b.text for b in buttons(api, shown)]
        assert names[0] == f"⏳ P{awaited}" and names[-1] == "✖️ Cancel"
        assert sorted(names[1:-1]) == sorted(f"P{p}" for p in PLAYERS if p != awaited)
        assert len(services.service.events(game_id)) == events  # opening it changes nothing

        await choose(api, app, CREATOR, f"P{target}")
        new = services.service.events(game_id)[events:]
        assert new == [SeatHandedOver(target, "kicked", CREATOR)]  # as /kick hands it over
        state, _ = services.load(game_id)
        assert state.pending == before.pending  # the awaited player still decides
        done = api.messages[GROUP][shown["message_id"]]
        assert done["text"] == f"A computer player plays P{target}'s seat until P{target} is back."
        assert not api.keyboard(done)
        assert (
            f"P{CREATOR} handed P{target}'s seat to a computer player until P{target} is back."
            in board_caption(api)
        )
        assert f"P{target} 🃏{len(state.hand(target))} 🤖" in board_caption(api)
        told = api.last_message(target)
        assert "Your seat was handed to a computer player while you were away." in told["text"]
        assert [b.text for b in buttons(api, told)] == ["👋 I'm back"]

        # Chosen again, the seat is no longer offered; closed, the chooser goes.
        await open_chooser(api, app, CREATOR)
        again = chooser(api)
        assert f"P{target}" not in [b.text for b in buttons(api, again)]
        await choose(api, app, CREATOR, "Cancel")
        assert again["message_id"] not in [m["message_id"] for m in api.messages_in(GROUP)]
        assert len(services.service.events(game_id)) == events + 1


async def test_a_player_neither_creator_nor_admin_is_refused_the_chooser_and_nothing_changes(
    db: str,
) -> None:
    other = PLAYERS[1]
    async with FakeBotAPI() as api, game_running(api, db, GROUP, PLAYERS) as (app, game_id):
        services = bot_services(app)
        await settle(api, app)
        events = len(services.service.events(game_id))
        posted = len(api.messages_in(GROUP))

        refused = await open_chooser(api, app, other)
        assert refused["text"] == ONLY_CREATOR and refused["show_alert"]
        assert len(api.messages_in(GROUP)) == posted  # no chooser for them

        await open_chooser(api, app, CREATOR)
        shown = chooser(api)
        for label in (f"P{PLAYERS[2]}", "Cancel"):
            refused = await choose(api, app, other, label)
            assert refused["text"] == ONLY_CREATOR and refused["show_alert"]
        assert api.messages[GROUP][shown["message_id"]] == shown  # untouched
        assert len(services.service.events(game_id)) == events
        assert services.load(game_id)[0].handed_over == {}

        # A group admin who does not play may choose (in the creator's name).
        admin = 149
        api.user(admin, f"P{admin}")
        api.admins[GROUP].add(admin)
        await choose(api, app, admin, f"P{PLAYERS[2]}")
        assert services.load(game_id)[0].handed_over == {PLAYERS[2]: "kicked"}
        caption = board_caption(api)
        assert f"P{admin} handed P{PLAYERS[2]}'s seat to a computer player" in caption


@pytest.mark.parametrize("meanwhile", ["the game ended", "the seat was handed over"])
async def test_a_chooser_pressed_after_things_changed_says_so_and_changes_nothing(
    db: str, meanwhile: str
) -> None:
    target = PLAYERS[2]
    async with FakeBotAPI() as api, game_running(api, db, GROUP, PLAYERS) as (app, game_id):
        services = bot_services(app)
        await settle(api, app)
        await open_chooser(api, app, CREATOR)
        shown = chooser(api)
        if meanwhile == "the game ended":
            services.service.handle(game_id, CancelGame(CREATOR))
            services.wake.set()
        else:
            said = api.send_text(GROUP, target, "brb")
            api.send_text(GROUP, CREATOR, "/kick", reply_to=said)
        await settle(api, app)
        events = len(services.service.events(game_id))

        answer = await choose(api, app, CREATOR, f"P{target}")
        assert answer["show_alert"]
        assert len(services.service.events(game_id)) == events
        after = api.messages[GROUP][shown["message_id"]]
        if meanwhile == "the game ended":
            assert answer["text"] == "That game is over: there is no seat to hand over."
            assert services.load(game_id)[0].handed_over == {}
            assert not api.keyboard(after)  # its buttons, which can do nothing more, are gone
        else:
            assert answer["text"] == f"The computer already plays P{target}'s seat."
            assert CHOOSER in after["text"]  # drawn again without that seat
            assert f"P{target}" not in [b.text for b in buttons(api, after)]


async def test_a_board_drawn_before_the_chooser_still_hands_its_named_seat_over_for_the_creator(
    db: str,
) -> None:
    # Boards drawn before the chooser carried one button naming the awaited player ("ho").
    async with a_person_awaited(db) as (api, app, services, game_id, absent):
        _, version = services.load(game_id)
        old = cb.encode(
            kb.Press(kb.HAND_OVER, player=absent).data(game_id, version),
            services.callback_key,
            GROUP,
        )
        board = board_message(api)["message_id"]

        refused = await press_and_wait(api, app, GROUP, PLAYERS[2], board, old)
        assert refused["show_alert"] and refused["text"] == ONLY_CREATOR
        assert services.load(game_id)[0].handed_over == {}

        answer = await press_and_wait(api, app, GROUP, CREATOR, board, old)
        assert not answer.get("show_alert")
        assert services.load(game_id)[0].handed_over == {absent: "kicked"}
        assert f"P{CREATOR} handed P{absent}'s seat to a computer player" in board_caption(api)


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


async def test_a_leave_answer_pressed_on_the_admins_cancel_question_changes_nothing_there(
    db: str,
) -> None:
    leaver = PLAYERS[1]
    async with FakeBotAPI() as api, game_running(api, db, GROUP, PLAYERS) as (app, game_id):
        api.send_text(GROUP, CREATOR, "/cancel")
        await settle(api, app)
        cancel_question, _ = labelled(api, GROUP, "No, play on")
        api.send_text(GROUP, leaver, "/leave")
        await settle(api, app)
        _, stay = labelled(api, GROUP, "No, I stay")
        before = bot_services(app).store.last_position()

        answer = await press_and_wait(api, app, GROUP, leaver, cancel_question["message_id"], stay)

        assert answer.get("show_alert") and "another message" in answer["text"]
        assert api.messages[GROUP][cancel_question["message_id"]] == cancel_question
        assert bot_services(app).store.last_position() == before
        _, leave = labelled(api, GROUP, "Yes, leave")  # on another message: nothing either
        await press_and_wait(api, app, GROUP, leaver, cancel_question["message_id"], leave)
        assert bot_services(app).load(game_id)[0].handed_over == {}
