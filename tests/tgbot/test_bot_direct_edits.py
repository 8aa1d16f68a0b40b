"""The edits a handler makes itself (a /history page, /language chosen, /practice's
edition), not through the outbox, are skipped as the outbox's are when the message shows
them already: the same button pressed twice sends one edit, never one Telegram refuses as
"message is not modified" (``running_bot`` fails on any refused call)."""

from __future__ import annotations

from typing import Any

from infra.botstate import BotState
from infra.db import make_engine
from infra.event_store import EventStore
from tests.fakebotapi import FakeBotAPI
from tests.replay.games import play
from tests.replay.test_history_figures import store_game
from tests.tgbot.bot_harness import press_and_wait, running_bot, seat, settle
from tgbot.presenter.i18n import t

GROUP = -5133
PLAYERS = [141, 142, 143]


def edits_of(api: FakeBotAPI, chat: int, message_id: int) -> list[dict[str, Any]]:
    return [
        c
        for method in ("editMessageText", "editMessageReplyMarkup")
        for c in api.calls_of(method)
        if int(c["chat_id"]) == chat and int(c["message_id"]) == message_id
    ]


def button(api: FakeBotAPI, message: dict[str, Any], label: str) -> str:
    found = next(b for row in api.keyboard(message) for b in row if b.text.strip("·") == label)
    assert found.callback_data is not None
    return found.callback_data


async def test_a_language_pressed_twice_edits_the_question_once(db: str) -> None:
    player = PLAYERS[1]
    async with FakeBotAPI() as api:
        seat(api, GROUP, PLAYERS)
        async with running_bot(api, db) as app:
            await settle(api, app)
            api.send_text(player, player, "/language")
            await settle(api, app)
            asked = api.last_message(player)
            polish = button(api, asked, t("pl", "language.button"))
            for _ in range(2):
                await press_and_wait(api, app, player, player, asked["message_id"], polish)

            assert api.messages[player][asked["message_id"]]["text"] == t("pl", "language.chosen")
            assert len(edits_of(api, player, asked["message_id"])) == 1


async def test_a_practice_edition_pressed_twice_edits_the_choice_once(db: str) -> None:
    player = PLAYERS[0]
    async with FakeBotAPI() as api:
        seat(api, GROUP, PLAYERS)
        async with running_bot(api, db) as app:
            await settle(api, app)
            api.send_text(player, player, "/practice")
            await settle(api, app)
            chosen = api.last_message(player)
            base = api.keyboard(chosen)[0][0].callback_data
            assert base is not None
            for _ in range(2):
                await press_and_wait(api, app, player, player, chosen["message_id"], base)

            shown = api.messages[player][chosen["message_id"]]
            assert shown["text"] == (
                "Saboteur: how many players, you included?\n"
                "Computer players: normal. Change it below."
            )
            assert len(edits_of(api, player, chosen["message_id"])) == 1


async def test_a_history_page_pressed_twice_edits_the_message_once(db: str) -> None:
    store = EventStore(make_engine(db))
    finished = play(43, 3, chat_id=GROUP, first_player_id=PLAYERS[0]).events
    for day in range(11):  # more than a page
        store_game(store, finished, day)
    BotState(store.engine).save_position(store.last_position())
    store.engine.dispose()
    async with FakeBotAPI() as api:
        seat(api, GROUP, PLAYERS)
        async with running_bot(api, db) as app:
            await settle(api, app)
            api.send_text(GROUP, PLAYERS[0], "/history")
            await settle(api, app, timeout=60)
            listed = api.last_message(GROUP)
            older = button(api, listed, "Older ▶")
            for _ in range(2):  # the old message's button, pressed again
                await press_and_wait(api, app, GROUP, PLAYERS[0], listed["message_id"], older)

            assert api.messages[GROUP][listed["message_id"]]["text"] != listed["text"]
            assert len(edits_of(api, GROUP, listed["message_id"])) == 1
