"""After a game and between games: "Play again" on the game-over message, and the private
notice to whoever asked to be told when a new game opens in their group."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest

from infra.deliveries import Deliveries
from tests.fakebotapi import FakeBotAPI
from tests.replay.games import play
from tests.replay.test_history_figures import store_game
from tests.tgbot.bot_harness import bot_services, press_and_wait, running_bot, seat, settle
from tgbot.telegram.app import BotApplication

GROUP = -11016
PLAYERS = [101, 102, 103]  # the finished game's players (tests.replay.games names them P…)
OUTSIDER = 104

pytestmark = pytest.mark.timeout(180)


@asynccontextmanager
async def game_over(api: FakeBotAPI, db: str) -> AsyncIterator[tuple[BotApplication, str]]:
    """The bot running after a game in the group ended and was announced: (the bot, the
    finished game's id)."""
    seat(api, GROUP, [*PLAYERS, OUTSIDER])
    for player in PLAYERS:
        api.user(player, f"P{player}")
    async with running_bot(api, db) as app:
        await settle(api, app)
        services = bot_services(app)
        finished = play(16, players=3, edition="saboteur2", chat_id=GROUP)
        game_id = store_game(services.store, finished.events, 0)
        services.wake.set()
        await settle(api, app, timeout=60)
        yield app, game_id


def game_over_message(api: FakeBotAPI) -> dict[str, Any]:
    return next(m for m in api.messages_in(GROUP) if "Game over" in m.get("text", ""))


def button(api: FakeBotAPI, message: dict[str, Any], label: str) -> str:
    found = next(b for row in api.keyboard(message) for b in row if label in b.text)
    assert found.callback_data is not None
    return found.callback_data


async def test_play_again_opens_a_new_lobby_inviting_the_last_players(db: str) -> None:
    async with FakeBotAPI() as api, game_over(api, db) as (app, finished_id):
        over = game_over_message(api)
        assert [[b.text for b in row] for row in api.keyboard(over)][1:] == [
            ["🔁 Play again"],
            ["🔔 Notify me of new games here"],
        ]
        opener = PLAYERS[1]
        answer = await press_and_wait(
            api, app, GROUP, opener, over["message_id"], button(api, over, "Play again")
        )
        assert not answer.get("text")

        services = bot_services(app)
        new_id = services.active_game(GROUP)
        assert new_id is not None and new_id != finished_id
        state, _ = services.load(new_id)
        assert (state.phase, state.edition, state.creator) == ("lobby", "saboteur2", opener)
        lobby = next(m for m in api.messages_in(GROUP) if "— new game by" in m.get("text", ""))
        assert "Saboteur 2 — new game by P102" in lobby["text"] and api.keyboard(lobby)
        invitation = next(t for t in api.texts_in(GROUP) if t.startswith("🔁"))
        assert invitation == (
            "🔁 P102 opened a new game of Saboteur 2. "
            '<a href="tg://user?id=101">P101</a>, <a href="tg://user?id=103">P103</a>: '
            "you are invited — press ✋ Join in the lobby."
        )

        # A second press opens nothing more and says, quietly, where the lobby is.
        sent = len(api.messages_in(GROUP))
        answer = await press_and_wait(
            api, app, GROUP, PLAYERS[0], over["message_id"], button(api, over, "Play again")
        )
        assert not answer.get("show_alert")
        assert answer["text"] == "A new game is already open here: press ✋ Join in its lobby."
        assert len(api.messages_in(GROUP)) == sent
        assert services.active_game(GROUP) == new_id


async def test_notify_me_sends_a_private_notice_when_a_new_game_opens_in_the_group(
    db: str,
) -> None:
    async with FakeBotAPI() as api, game_over(api, db) as (app, _):
        over = game_over_message(api)
        notify = button(api, over, "Notify me")
        answer = await press_and_wait(api, app, GROUP, OUTSIDER, over["message_id"], notify)
        assert answer["text"].startswith("🔔 I will tell you in private")
        # Pressed twice: off again; and /notify subscribes once more.
        answer = await press_and_wait(api, app, GROUP, PLAYERS[2], over["message_id"], notify)
        answer = await press_and_wait(api, app, GROUP, PLAYERS[2], over["message_id"], notify)
        assert answer["text"].startswith("🔕 I will no longer tell you")
        api.send_text(GROUP, PLAYERS[0], "/notify")
        await settle(api, app)
        assert api.last_message(GROUP)["text"].startswith("🔔 I will tell you in private")

        private = {p: len(api.messages_in(p)) for p in [*PLAYERS, OUTSIDER]}
        api.send_text(GROUP, PLAYERS[0], "/newgame")
        await settle(api, app)
        told = {p: api.messages_in(p)[private[p] :] for p in private}
        notice = "⛏ P101 opened a new game of Saboteur in Mine. Go to the group and press ✋ Join"
        assert [m["text"] for m in told[OUTSIDER]] == [notice + " to play."]
        # The creator subscribed but needs no notice; who unsubscribed gets none.
        assert told[PLAYERS[0]] == told[PLAYERS[1]] == told[PLAYERS[2]] == []
        assert bot_services(app).botstate.subscribers(GROUP) == [OUTSIDER, PLAYERS[0]]


async def test_notify_in_private_says_where_to_send_it(db: str) -> None:
    async with FakeBotAPI() as api:
        seat(api, GROUP, [OUTSIDER])
        async with running_bot(api, db) as app:
            await settle(api, app)
            api.send_text(OUTSIDER, OUTSIDER, "/notify")
            await settle(api, app)
            assert api.last_message(OUTSIDER)["text"].startswith("Send /notify in the group")
            assert bot_services(app).botstate.subscribers(GROUP) == []


async def test_a_subscribers_notice_is_recorded_with_the_lobby_and_tried_again_until_it_goes(
    db: str,
) -> None:
    """The notice of a new game is owed like any announcement: recorded with the lobby's
    batch before anything is sent (an instance that dies before sending it leaves it to
    the next one), and a send that fails is tried again, not dropped."""
    async with FakeBotAPI() as api, game_over(api, db) as (app, _):
        api.send_text(GROUP, OUTSIDER, "/notify")
        await settle(api, app)
        before = len(api.messages_in(OUTSIDER))
        # Telegram is flooded for that chat: every try of the first send is refused.
        api.fail_next("sendMessage", 429, retry_after=1, times=4, chat_id=OUTSIDER)

        api.send_text(GROUP, PLAYERS[0], "/newgame")
        await settle(api, app)
        await api.wait_for(lambda: len(api.messages_in(OUTSIDER)) > before, timeout=20)

        told = [m["text"] for m in api.messages_in(OUTSIDER)[before:]]
        assert told == [
            "⛏ P101 opened a new game of Saboteur in Mine. Go to the group and press ✋ Join"
            " to play."
        ]
        game_id = bot_services(app).active_game(GROUP)
        assert game_id is not None
        owed = Deliveries(bot_services(app).store.engine).unsettled(game_id, OUTSIDER)
        assert owed == []  # recorded, and recorded as sent
