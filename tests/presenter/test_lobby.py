"""The lobby says every setting it was opened with, not the timer alone."""

from __future__ import annotations

import pytest

from domain import events as ev
from domain.decider import fold
from tgbot.i18n import LANGUAGES
from tgbot.presenter.lobby import lobby_text
from tgbot.texts import Texts


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_lobby_shows_the_away_and_gold_settings(lang: str) -> None:
    texts = Texts(lang)
    created = ev.GameCreated(
        11, "Ana", "base", -1, 180, False, away_play="computer", gold_pick="auto"
    )
    base = fold([created])
    shown = lobby_text(base, texts, "bot")
    assert texts.t("lobby.away_computer") in shown
    assert texts.t("lobby.gold_auto") in shown
    manual = fold([ev.GameCreated(11, "Ana", "base", -1, 180, False, gold_pick="manual")])
    assert texts.t("lobby.gold_manual") in lobby_text(manual, texts, "bot")
    assert texts.t("lobby.away_pass") in lobby_text(manual, texts, "bot")
    second = fold([ev.GameCreated(11, "Ana", "saboteur2", -1, 180, False)])
    said = lobby_text(second, texts, "bot")
    assert texts.t("lobby.gold_auto") not in said and texts.t("lobby.gold_manual") not in said


@pytest.mark.parametrize(
    ("lang", "hard", "old"),
    [
        ("en", "🤖 Greta · hard", "🤖 Ida · normal"),
        ("es", "🤖 Greta · difícil", "🤖 Ida · normal"),
        ("pl", "🤖 Greta · trudny", "🤖 Ida · normalny"),
        ("de", "🤖 Greta · schwer", "🤖 Ida · normal"),
    ],
)
def test_the_lobby_names_each_computer_player_with_its_level(
    lang: str, hard: str, old: str
) -> None:
    seated = fold(
        [
            ev.GameCreated(11, "Ana", "base", -1, 180, False),
            ev.ComputerPlayerAdded(-1, "🤖 Greta", "hard"),
            ev.ComputerPlayerAdded(-2, "🤖 Ida"),  # as stored before levels: normal
        ]
    )
    shown = lobby_text(seated, Texts(lang), "bot")
    assert f"Ana, {hard}, {old}" in shown


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_lobby_names_last_seasons_champion_of_its_edition(lang: str) -> None:
    from tgbot.presenter.audience import Table
    from tgbot.presenter.lobby import lobby

    state = fold([ev.GameCreated(11, "Ana", "base", -1, 180, False)])
    crowned = Table(
        "g1", -1, 0, group_language=lang, last_season="2026Q3", champions={"base": "Bo <3"}
    )
    text = lobby(state, 1, crowned).text
    line = text.split("\n")[1]
    assert line.startswith("🏆 ") and "Bo &lt;3" in line and "2026" in line and "3" in line
    assert "lobby." not in line
    # Another edition's champion, or none: no line.
    other = Table("g1", -1, 0, group_language=lang, champions={"saboteur2": "Bo"})
    assert "🏆" not in lobby(state, 1, other).text
