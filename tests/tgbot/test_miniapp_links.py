"""The buttons that open the Mini App, and the settings behind them."""

from __future__ import annotations

import pytest

from infra.settings import ConfigurationError, load_settings
from tgbot.miniapp.links import board_button, prompt_button
from tgbot.texts import Texts


def test_the_group_boards_button_is_the_mini_apps_direct_link_to_the_game() -> None:
    button = board_button("saboteur_bot", "board", "gAb-c_1", Texts("es"))
    assert button is not None
    inline = button.inline()
    assert inline.url == "https://t.me/saboteur_bot/board?startapp=gAb-c_1"
    assert inline.web_app is None
    assert inline.text == Texts("es").t("miniapp.open_board")


def test_the_private_prompts_button_opens_the_page_as_a_web_app() -> None:
    button = prompt_button("https://play.example/miniapp/?v=2", "gAbc", Texts("pl"))
    assert button is not None
    inline = button.inline()
    assert inline.web_app is not None and inline.url is None
    assert inline.web_app.url == "https://play.example/miniapp/?v=2&game=gAbc"
    assert inline.text == Texts("pl").t("miniapp.play_on_board")


def test_without_the_mini_app_set_up_no_button_is_offered() -> None:
    settings = load_settings(telegram_bot_token="1:x")
    assert settings.miniapp_name == "" and settings.miniapp_url == ""
    assert board_button("saboteur_bot", settings.miniapp_name, "gAbc", Texts("en")) is None
    assert prompt_button(settings.miniapp_url, "gAbc", Texts("en")) is None


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
