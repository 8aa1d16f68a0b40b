"""The round's log through the fake Bot API: the board's 📜 posts it as a text message
in the group; its pages and its per-player view are the same message edited (no picture
is sent for them); it names the moves the board no longer shows. A prompt's moves since
its player's last turn stay on top through every step of the decision."""

from __future__ import annotations

import re
from typing import Any

import pytest

from domain import events as ev
from tests.fakebotapi import Button, FakeBotAPI
from tests.tgbot.bot_harness import Table, bot_services, game_running, press_and_wait, settle
from tgbot.presenter.callback import peek
from tgbot.presenter.keyboards import CARD, LOG_PAGE

GROUP = -7027
PLAYERS = [271, 272, 273, 274]

pytestmark = pytest.mark.timeout(180)


def buttons(api: FakeBotAPI, message: dict[str, Any]) -> list[Button]:
    return [b for row in api.keyboard(message) for b in row if b.callback_data]


def log_button(api: FakeBotAPI, message: dict[str, Any], label: str) -> str:
    found = [
        b.callback_data
        for b in buttons(api, message)
        if label in b.text and peek(b.callback_data or "").action == LOG_PAGE
    ]
    assert found, [b.text for b in buttons(api, message)]
    return str(found[0])


async def test_the_boards_log_pages_by_editing_itself_and_shows_one_players_moves(
    db: str,
) -> None:
    async with FakeBotAPI() as api, game_running(api, db, GROUP, PLAYERS) as (app, game_id):
        table = Table(api, app, GROUP, PLAYERS)
        services = bot_services(app)
        moves = 0
        while moves < 16:  # more moves than a page holds
            assert await table.play_one()
            state, _ = services.load(game_id)
            moves = sum(
                isinstance(e, (ev.PathPlaced, *ev.ACTION_EVENTS, ev.CardsDiscarded))
                for e in services.service.events(game_id, state.round_began - 1)
            )
            assert state.round == 1
        board = next(m for m in api.messages_in(GROUP) if m.get("photo"))
        sent_before = len(api.messages_in(GROUP))
        photos_before = len(api.calls_of("sendPhoto")) + len(api.calls_of("editMessageMedia"))

        await press_and_wait(
            api, app, GROUP, PLAYERS[1], board["message_id"], log_button(api, board, "📜")
        )
        log = api.last_message(GROUP)
        assert len(api.messages_in(GROUP)) == sent_before + 1 and "photo" not in log
        assert log["text"].startswith("📜 Round 1 so far · page 2/2")
        numbers = [int(n) for n in re.findall(r"^(\d+)\. ", log["text"], re.M)]
        assert numbers[0] == 13 and numbers == list(range(13, 13 + len(numbers)))

        await press_and_wait(
            api, app, GROUP, PLAYERS[2], log["message_id"], log_button(api, log, "Previous")
        )
        first = next(m for m in api.messages_in(GROUP) if m["message_id"] == log["message_id"])
        assert (
            "page 1/2" in first["text"] and "\n1. " in first["text"] and "\n12. " in first["text"]
        )

        name = f"P{PLAYERS[3]}"
        await press_and_wait(
            api, app, GROUP, PLAYERS[0], log["message_id"], log_button(api, first, name)
        )
        mine = next(m for m in api.messages_in(GROUP) if m["message_id"] == log["message_id"])
        assert mine["text"].startswith(f"📜 Round 1 so far: what {name} did")
        lines = re.findall(r"^\d+\. (.*)$", mine["text"], re.M)
        assert lines and all(name in line for line in lines), lines

        assert len(api.messages_in(GROUP)) == sent_before + 1  # the same message, edited
        photos_after = len(api.calls_of("sendPhoto")) + len(api.calls_of("editMessageMedia"))
        assert photos_after == photos_before


async def test_a_prompts_moves_since_the_last_turn_stay_through_its_steps_and_back(
    db: str,
) -> None:
    async with FakeBotAPI() as api, game_running(api, db, GROUP, PLAYERS) as (app, _):
        table = Table(api, app, GROUP, PLAYERS)
        for _ in range(400):  # until a prompt opens with three moves of the others
            found = table.prompt_owner()
            assert found is not None
            player, prompt = found
            sent = prompt["caption"].split("\n")
            others = [f"P{p}" for p in PLAYERS if p != player]
            moves = [line for line in sent[2:] if any(line.startswith(n) for n in others)]
            if sent[0].startswith("👉 Your turn") and len(moves) >= 3:
                break
            assert await table.play_one()
        else:
            raise AssertionError("no prompt opened with three moves")

        def shown() -> list[str]:
            return str(api.messages[player][prompt["message_id"]]["caption"]).split("\n")

        cards = [b for b in buttons(api, prompt) if peek(b.callback_data or "").action == CARD]
        for picked in cards:  # (a card not playable now only says why)
            answer = await press_and_wait(
                api, app, player, player, prompt["message_id"], picked.callback_data or ""
            )
            if not answer.get("show_alert"):
                break
        else:
            raise AssertionError("no card playable")
        assert shown() != sent and all(line in shown() for line in moves), (moves, shown())

        back = next(
            b
            for b in buttons(api, api.messages[player][prompt["message_id"]])
            if b.text.startswith("«")
        )
        await press_and_wait(
            api, app, player, player, prompt["message_id"], back.callback_data or ""
        )
        again = shown()
        assert again[:1] + again[2:] == sent[:1] + sent[2:]  # (but the time left)

        api.send_text(player, player, "/hand")  # the prompt sent again
        await settle(api, app)
        resent = str(api.last_message(player)["caption"]).split("\n")
        assert resent[:1] + resent[2:] == sent[:1] + sent[2:]
