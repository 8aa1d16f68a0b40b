"""Pictures sent by the id Telegram gave them, and uploaded again when Telegram refuses
the id, checked through the fake Bot API."""

from __future__ import annotations

from typing import Any

import pytest

from tests.fakebotapi import Button, FakeBotAPI
from tests.tgbot.bot_harness import (
    bot_services,
    game_running,
    press_and_wait,
    settle,
)
from tgbot.presenter.callback import peek
from tgbot.presenter.keyboards import CARD, MENU
from tgbot.telegram.app import BotApplication

GROUP = -7007
PLAYERS = [71, 72, 73]
REFUSED = "Bad Request: wrong file identifier/HTTP URL specified"

pytestmark = pytest.mark.timeout(120)


def by_id(call: Any) -> bool:
    return isinstance(call.get("photo"), str) and not call.files


async def test_a_prompt_whose_picture_id_telegram_refuses_is_uploaded_and_arrives(
    db: str,
) -> None:
    async with FakeBotAPI() as api, game_running(api, db, GROUP, PLAYERS) as (app, game_id):
        state = bot_services(app).service.load(game_id).state
        assert state.pending is not None
        player = state.pending.player
        calls = len(api.calls)
        api.fail_next("sendPhoto", 400, REFUSED)

        # /hand sends the prompt again: the same picture, by the id Telegram gave it.
        before = len(api.messages_in(player))
        api.send_text(player, player, "/hand")
        await settle(api, app)

        sends = [c for c in api.calls[calls:] if c.method == "sendPhoto"]
        assert [by_id(c) for c in sends] == [True, False]  # refused by id, then uploaded
        new = [m for m in api.messages_in(player)[before:] if "photo" in m]
        assert len(new) == 1 and api.keyboard(new[0])


def pressed(app: BotApplication, buttons: list[Button], action: str) -> str:
    for button in buttons:
        if button.callback_data and peek(button.callback_data).action == action:
            return button.callback_data
    raise AssertionError(f"no {action} button")


async def test_a_preview_whose_picture_id_telegram_refuses_is_uploaded_and_shown(
    db: str,
) -> None:
    async with FakeBotAPI() as api, game_running(api, db, GROUP, PLAYERS) as (app, game_id):
        state = bot_services(app).service.load(game_id).state
        assert state.pending is not None
        player = state.pending.player
        prompt = api.last_message(player)
        root = [[b.text for b in row] for row in api.keyboard(prompt)]
        flat = [b for row in api.keyboard(prompt) for b in row]
        await press_and_wait(
            api, app, player, player, prompt["message_id"], pressed(app, flat, CARD)
        )
        shown = api.messages[player][prompt["message_id"]]
        assert [[b.text for b in row] for row in api.keyboard(shown)] != root

        # Back to the first step: the same picture as the prompt's, sent by its id.
        calls = len(api.calls)
        api.fail_next("editMessageMedia", 400, REFUSED, chat_id=player)
        back = [b for row in api.keyboard(shown) for b in row]
        await press_and_wait(
            api, app, player, player, prompt["message_id"], pressed(app, back, MENU)
        )

        edits = [c for c in api.calls[calls:] if c.method == "editMessageMedia"]
        assert len(edits) == 2 and edits[1].files  # refused by id, then uploaded
        shown = api.messages[player][prompt["message_id"]]
        assert [[b.text for b in row] for row in api.keyboard(shown)] == root
