"""The lobby says every setting it was opened with, not the timer alone."""

from __future__ import annotations

import pytest

from domain import events as ev
from domain.evolve import fold
from tgbot.presenter.i18n import LANGUAGES
from tgbot.presenter.lobby import lobby_text
from tgbot.presenter.texts import Texts


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


@pytest.mark.parametrize(
    ("lang", "greta", "ida"),
    [
        ("en", "🤖 Greta · hard", "🤖 Ida · normal"),
        ("es", "🤖 Greta · difícil", "🤖 Ida · normal"),
        ("pl", "🤖 Greta · trudny", "🤖 Ida · normalny"),
        ("de", "🤖 Greta · schwer", "🤖 Ida · normal"),
    ],
)
def test_the_lobby_settings_have_a_level_button_for_each_computer_player(
    lang: str, greta: str, ida: str
) -> None:
    # Each computer player's button reads as the lobby names it and moves that one seat
    # to the next level; its callback data fits Telegram's 64 bytes.
    from domain.commands import LEVELS
    from tgbot.presenter import keyboards as kb
    from tgbot.presenter.audience import Table
    from tgbot.presenter.callback import MAX_LENGTH, MAX_VERSION, decode, encode
    from tgbot.presenter.lobby import lobby

    seated = fold(
        [
            ev.GameCreated(11, "Ana", "base", -1, 180, False),
            ev.ComputerPlayerAdded(-1, "🤖 Greta", "hard"),
            ev.ComputerPlayerAdded(-2, "🤖 Ida"),
        ]
    )
    drawn = lobby(seated, 7, Table("g1", -1, 0, group_language=lang))
    labelled = {
        b.label: b.press for row in drawn.settings_keyboard for b in row if b.press is not None
    }
    assert greta in labelled and ida in labelled
    asked = {greta: (-1, "easy"), ida: (-2, "hard")}
    for label, (player, level) in asked.items():
        press = labelled[label]
        assert press is not None and press.player == player
        assert press.value is not None and LEVELS[press.value] == level
        raw = encode(press.data("G" * 12, MAX_VERSION), b"key", chat=-(10**13))
        assert len(raw.encode()) <= MAX_LENGTH
        assert kb.Press.of(decode(raw, b"key", chats=[-(10**13)])) == press
    # A person's seat has no such button, and the lobby's own buttons have none.
    assert not [label for label in labelled if label.startswith("Ana")]
    assert not [b for row in drawn.keyboard for b in row if b.label in (greta, ida)]
    # Once Greta plays easy, her button says so and asks for normal next.
    easy = fold(
        [
            ev.GameCreated(11, "Ana", "base", -1, 180, False),
            ev.ComputerPlayerAdded(-1, "🤖 Greta", "hard"),
            ev.ComputerLevelSet("easy", -1),
        ]
    )
    rows = lobby(easy, 8, Table("g1", -1, 0, group_language=lang)).settings_keyboard
    texts = Texts(lang)
    [redrawn] = [b for row in rows for b in row if b.label == f"🤖 Greta · {texts.t('level.easy')}"]
    assert redrawn.press is not None and redrawn.press.value == LEVELS.index("normal")
    assert f"Ana, 🤖 Greta · {texts.t('level.easy')}" in lobby_text(easy, texts, "bot")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_for_all_level_row_ticks_a_level_only_when_every_computer_plays_it(
    lang: str,
) -> None:
    # The ✅ in the "for all" row says the level every computer player plays, seated and
    # seated next: once one seat is set apart, no level is ticked; "for all" ticks again.
    from tgbot.presenter.audience import Table
    from tgbot.presenter.lobby import lobby

    texts = Texts(lang)
    opened = [
        ev.GameCreated(11, "Ana", "base", -1, 180, False),
        ev.ComputerPlayerAdded(-1, "🤖 Greta"),
        ev.ComputerPlayerAdded(-2, "🤖 Ida"),
    ]

    def ticked(events: list[ev.Event]) -> list[str]:
        rows = lobby(fold(events), 7, Table("g1", -1, 0, group_language=lang)).settings_keyboard
        return [b.label for row in rows for b in row if b.label.startswith("✅ ")]

    def level(name: str) -> str:
        return f"✅ {texts.t(f'settings.button_level_{name}')}"

    assert level("normal") in ticked(opened)
    apart = [*opened, ev.ComputerLevelSet("hard", -1)]
    assert not [t for t in ticked(apart) if t in map(level, ("easy", "normal", "hard"))]
    everyone = [*apart, ev.ComputerLevelSet("easy")]
    assert level("easy") in ticked(everyone) and level("hard") not in ticked(everyone)
