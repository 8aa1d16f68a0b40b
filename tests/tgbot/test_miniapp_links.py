"""The two ways into the Mini App, seen through the fake Bot API: the group's board opens
the game by the Mini App's direct link, the private prompt by a ``web_app`` button; both
only when the Mini App is set up, and the chat's own buttons stay."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from infra.settings import ConfigurationError, load_settings
from tests.fakebotapi import Button, FakeBotAPI
from tests.tgbot.bot_harness import (
    bot_services,
    game_running,
    move_outside_the_bot,
    press_and_wait,
    settle,
)
from tgbot.offline.fakeapi import BOT_USERNAME
from tgbot.presenter.texts import Texts
from tgbot.telegram.app import BotApplication

pytestmark = pytest.mark.timeout(120)

GROUP = -1601
PLAYERS = [161, 162, 163]
MINIAPP = {"miniapp_name": "board", "miniapp_url": "https://play.example/miniapp/?v=2"}


def buttons(api: FakeBotAPI, message: dict[str, Any]) -> list[Button]:
    return [b for row in api.keyboard(message) for b in row]


def board(api: FakeBotAPI) -> dict[str, Any]:
    """The group's board: its newest picture."""
    return [m for m in api.messages_in(GROUP) if "photo" in m][-1]


def live_prompt(api: FakeBotAPI, app: BotApplication, game: str) -> tuple[int, dict[str, Any]]:
    """The player on turn and their prompt (their newest message)."""
    state, _ = bot_services(app).load(game)
    assert state.pending is not None
    player = state.pending.player
    return player, api.messages_in(player)[-1]


def game_in_link(url: str, parameter: str) -> str:
    return parse_qs(urlsplit(url).query)[parameter][0]


async def test_the_groups_board_opens_its_game_on_the_mini_app_by_the_direct_link(
    db: str,
) -> None:
    async with (
        FakeBotAPI() as api,
        game_running(api, db, GROUP, PLAYERS, env=MINIAPP) as (app, game),
    ):
        await settle(api, app)
        # (beside the button that hands the awaited seat to the computer)
        [opener] = [b for b in buttons(api, board(api)) if b.url]
        assert opener.text == Texts("en").t("miniapp.open_board")
        assert opener.web_app is None and opener.url is not None
        assert opener.url.startswith(f"https://t.me/{BOT_USERNAME}/board?")
        assert game_in_link(opener.url, "startapp") == game

        move_outside_the_bot(app, game)  # a move: the board is redrawn, the button stays
        await settle(api, app)

        edited = board(api)
        assert edited.get("edit_date") and [b for b in buttons(api, edited) if b.url] == [opener]


async def test_the_private_prompt_opens_its_game_on_the_mini_app_beside_its_buttons(
    db: str,
) -> None:
    async with (
        FakeBotAPI() as api,
        game_running(api, db, GROUP, PLAYERS, env=MINIAPP) as (app, game),
    ):
        await settle(api, app)
        player, prompt = live_prompt(api, app, game)
        shown = buttons(api, prompt)
        opener = shown[-1]
        assert opener.text == Texts("en").t("miniapp.play_on_board")
        assert opener.web_app is not None and opener.url is None
        assert opener.web_app.startswith("https://play.example/miniapp/?v=2&game=")
        assert game_in_link(opener.web_app, "game") == game
        cards = [b for b in shown if b.callback_data]
        assert len(cards) >= 6  # the hand, pass, the icons: the chat's buttons stay

        # A card's screen, then back to the first: the way onto the board is there again.
        hand_card = cards[0].callback_data
        assert hand_card is not None
        await press_and_wait(api, app, player, player, prompt["message_id"], hand_card)
        step = api.messages[player][prompt["message_id"]]
        back = next(b for b in buttons(api, step) if b.text == Texts("en").t("turn.button_back"))
        assert back.callback_data is not None
        await press_and_wait(api, app, player, player, prompt["message_id"], back.callback_data)
        assert buttons(api, api.messages[player][prompt["message_id"]])[-1] == opener


async def test_without_the_mini_app_set_up_no_message_offers_it(db: str) -> None:
    async with FakeBotAPI() as api, game_running(api, db, GROUP, PLAYERS) as (app, game):
        move_outside_the_bot(app, game)
        await settle(api, app)

        assert not [b for row in api.keyboard(board(api)) for b in row if b.url or b.web_app]
        _, prompt = live_prompt(api, app, game)
        shown = buttons(api, prompt)
        assert shown and all(b.callback_data for b in shown)


async def test_a_cancelled_games_board_no_longer_offers_the_mini_app(db: str) -> None:
    async with (
        FakeBotAPI() as api,
        game_running(api, db, GROUP, PLAYERS, env=MINIAPP) as (app, game),
    ):
        await settle(api, app)
        assert buttons(api, board(api))
        api.send_text(GROUP, PLAYERS[0], "/cancel")
        await settle(api, app)
        question = api.last_message(GROUP)
        yes = buttons(api, question)[0].callback_data
        assert yes is not None
        await press_and_wait(api, app, GROUP, PLAYERS[0], question["message_id"], yes)

        assert bot_services(app).load(game)[0].phase == "cancelled"
        assert "cancelled" in board(api)["caption"] and api.keyboard(board(api)) == []


@pytest.mark.parametrize(
    ("setting", "value", "named"),
    [
        ("miniapp_url", "http://play.example/miniapp/", "MINIAPP_URL"),
        ("miniapp_name", "my board!", "MINIAPP_NAME"),
    ],
)
def test_a_mini_app_setting_telegram_cannot_use_stops_the_start(
    setting: str, value: str, named: str
) -> None:
    with pytest.raises(ConfigurationError, match=named):
        load_settings(**{setting: value})
