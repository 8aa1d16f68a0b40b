"""The gettext catalogs: extracted from the code, counted in each language's plural forms,
worded in each language's grammar, and one name for each card, role and tool."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from fnmatch import fnmatch
from pathlib import Path

import pytest
from babel.core import Locale
from babel.messages.plurals import get_plural
from babel.messages.pofile import read_po

from tgbot.presenter.i18n import LANGUAGES, LOCALES, catalog_path, messages, t

ROOT = Path(__file__).resolve().parents[2]
COUNTS = (0, 1, 2, 4, 5, 12, 21, 22, 25, 101)
CLDR_ORDER = ("zero", "one", "two", "few", "many", "other")


def form_of(lang: str, n: int) -> int:
    """The form a count takes by CLDR's rule (Babel's locale data, not the catalog's
    Plural-Forms header): gettext orders a language's forms as CLDR orders the categories
    whole numbers fall in (Polish: one, few, many; "other" is for fractions).

    >>> [form_of("pl", n) for n in (1, 2, 5)], form_of("en", 2)
    ([0, 1, 2], 1)
    """
    rule = Locale.parse(lang).plural_form
    used = {rule(k) for k in (*range(1000), 10**6)}
    ordered = [c for c in CLDR_ORDER if c in used]
    return min(ordered.index(rule(n)), get_plural(lang).num_plurals - 1)


def counted(lang: str) -> dict[str, tuple[str, ...]]:
    return {key: m.forms for key, m in messages(lang).messages.items() if m.plural}


def test_every_language_has_a_catalog() -> None:
    for lang in LANGUAGES:
        assert catalog_path(lang).is_file()


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("n", COUNTS)
def test_every_counted_message_takes_the_form_its_language_uses_for_n(lang: str, n: int) -> None:
    found = counted(lang)
    assert {"bot.duration_days", "turn.round_pile", "count.games_played", "count.wins"} <= set(
        found
    )
    for key, forms in found.items():
        params = {"n": n, "count": n, "round": 1, "total": 9, "name": "Ana", "winners": 2}
        params |= {"edition": "Saboteur", "names": "Ana", "crystals": 3}
        expected = forms[form_of(lang, n)].format(**params)
        assert t(lang, key, **params) == expected, (key, n)
        assert str(n) in expected, (key, n)


# The counted nouns as a Polish reader expects them, for n = 0, 1, 2, 4, 5, 12, 21, 22,
# 25, 101 (one: 1; few: 2–4, 22–24 …; many: the rest, 12–14 and 21 among them).
POLISH = {
    "count.games_played": ("rozegranych gier", "rozegrana gra", "rozegrane gry"),
    "count.games_finished": ("zakończonych gier", "zakończona gra", "zakończone gry"),
    "count.wins": ("wygranych", "wygrana", "wygrane"),
    "count.winners": ("zwycięzców", "zwycięzca", "zwycięzców"),
    "count.gold": ("bryłek złota", "bryłka złota", "bryłki złota"),
    "count.rounds": ("rund", "runda", "rundy"),
    "bot.duration_days": ("dni", "dzień", "dni"),
}
POLISH_FORM = {0: 0, 1: 1, 2: 2, 4: 2, 5: 0, 12: 0, 21: 0, 22: 2, 25: 0, 101: 0}


@pytest.mark.parametrize("key", sorted(POLISH))
def test_polish_counts_its_nouns_in_three_forms(key: str) -> None:
    for n, form in POLISH_FORM.items():
        assert t("pl", key, n=n) == f"{n} {POLISH[key][form]}", n


def test_the_draw_pile_is_counted_in_cards_in_every_language() -> None:
    # "Draw pile: 1 cards", "Mazo: 1 cartas", "Talia: 1 kart / 2 kart / 22 kart" were read.
    pile = {
        lang: [t(lang, "turn.round_pile", round=2, count=n) for n in (1, 2, 5, 22)]
        for lang in LANGUAGES
    }
    assert pile["en"][0] == "Round 2/3 · draw pile: 1 card"
    assert pile["en"][1] == "Round 2/3 · draw pile: 2 cards"
    assert pile["es"][:2] == ["Ronda 2/3 · mazo: 1 carta", "Ronda 2/3 · mazo: 2 cartas"]
    assert [p.split(": ")[1] for p in pile["pl"]] == ["1 karta", "2 karty", "5 kart", "22 karty"]
    assert pile["de"][:2] == [
        "Runde 2/3 · Nachziehstapel: 1 Karte",
        "Runde 2/3 · Nachziehstapel: 2 Karten",
    ]
    assert t("pl", "miniapp.draw_pile", count=1) == "Talia: 1 karta"


def test_one_game_and_one_win_are_singular_in_spanish_stats() -> None:
    # "1 partidas, 1 victorias" was read.
    games, wins = t("es", "count.games_played", n=1), t("es", "count.wins", n=1)
    line = t("es", "stats.player", name="Ana", games=games, wins=wins, gold="3 de oro")
    assert line == "Ana — 1 partida jugada, 1 victoria, 3 de oro."
    assert t("es", "count.wins", n=2) == "2 victorias"


def test_one_day_is_one_day_in_polish() -> None:
    assert t("pl", "bot.duration_days", n=1) == "1 dzień"
    assert t("pl", "bot.duration_days", n=3) == "3 dni"


def test_polish_keeps_a_players_name_and_a_cards_name_in_the_nominative() -> None:
    # "psuje wózek gracza Łucja": the name would need the genitive ("Łucji"); each name is
    # the subject of its own clause instead (no arrow either: "Łucja → zepsuty wózek").
    broke = t("pl", "move.action.broken_cart", name="Łucja", target="Bob")
    assert broke == "Łucja psuje wózek: Bob nie może kłaść kart korytarza."
    declined = re.compile(r"\b(gracza|graczowi|graczem|graczu)\s*\{(name|target|victim)\}")
    placed_as_object = re.compile(r"\b(kładzie|dobiera|zagrać|położyć)\s+\{card\}")
    for key, message in messages("pl").messages.items():
        for form in message.forms:
            assert not declined.search(form), (key, form)
            assert not placed_as_object.search(form), (key, form)


def test_no_message_speaks_of_a_player_in_a_gendered_form() -> None:
    # "Byłem nieobecny" speaks as a man; the reader (or the player named) may not be one.
    gendered = {
        # Past tense in the first or second person (byłem, opuściłeś …), and adjectives.
        "pl": re.compile(r"\b\w+(łem|łeś|łbym|łabym)\b|\b(gotowy|gotowa|nieobecny|nieobecna)\b"),
        "es": re.compile(r"\b(estoy|estaba|he sido) (listo|lista|ausente[s]?|seguro|segura)\b"),
    }
    for lang, pattern in gendered.items():
        for key, message in messages(lang).messages.items():
            for form in message.forms:
                assert not pattern.search(form), (lang, key, form)


TITLE_CASE = ("Minero Verde", "Minero Azul", "Doble Curva", "Manos Fuera", "Cambiar Manos")


def test_spanish_and_polish_names_are_in_sentence_case() -> None:
    for lang in ("es", "pl"):
        for key, message in messages(lang).messages.items():
            for form in message.forms:
                assert not any(name in form for name in TITLE_CASE), (key, form)
            if key.startswith(("role.", "action.", "tool.", "path.")) and len(message.forms[0]) > 1:
                assert message.forms[0][0].islower(), (lang, key)
    assert t("es", "role.green_digger") == "minero verde"
    assert t("es", "path.double_curve_a") == "doble curva"


GLOSSARY = {
    "de": {
        "role.gold_digger": "Goldsucher",
        "role.saboteur": "Saboteur",
        "tool.pickaxe": "Spitzhacke",
        "tool.lantern": "Lampe",
        "tool.cart": "Lore",
        "action.rockfall": "Steinschlag",
        "action.map": "Schatzkarte",
    },
    "es": {"role.gold_digger": "minero", "action.rockfall": "desprendimiento de rocas"},
    "pl": {"role.gold_digger": "górnik", "tool.cart": "wózek", "action.rockfall": "zawał"},
}


@pytest.mark.parametrize("lang", sorted(GLOSSARY))
def test_cards_roles_and_tools_go_by_the_rulebooks_names(lang: str) -> None:
    assert {key: t(lang, key) for key in GLOSSARY[lang]} == GLOSSARY[lang]


def _entries(path: Path) -> dict[str, object]:
    with path.open("rb") as po:
        return {m.context: m.id for m in read_po(po) if m.context}


def test_the_template_is_what_pybabel_extracts_from_the_code(tmp_path: Path) -> None:
    extracted = tmp_path / "messages.pot"
    options = [
        "-F",
        "babel.cfg",
        "-o",
        str(extracted),
        "--no-location",
        "--width=0",
        "--omit-header",
    ]
    subprocess.run(
        [
            sys.executable,
            "-m",
            "babel.messages.frontend",
            "-q",
            "extract",
            *options,
            "--omit-header",
            ".",
        ],
        cwd=ROOT,
        check=True,
        capture_output=True,
        timeout=120,
    )
    assert extracted.read_text("utf-8") == (LOCALES / "messages.pot").read_text("utf-8")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_catalog_holds_the_templates_messages_and_no_others(lang: str) -> None:
    # Every message the code uses is in every catalog, and no catalog keeps an unused one.
    assert _entries(catalog_path(lang)) == _entries(LOCALES / "messages.pot")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_message_is_translated_none_left_to_english(lang: str) -> None:
    # An empty or fuzzy translation falls back to English in a chat of another language
    # (what a whole game over HTTP in each language used to catch, at tens of CPU seconds).
    found = messages(lang)
    assert len(found.english) > 500
    assert sorted(set(found.english) - set(found.messages)) == []


def test_the_catalogs_are_package_data() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
    patterns = config["tool"]["setuptools"]["package-data"]["tgbot"]
    files = [p.relative_to(ROOT / "tgbot").as_posix() for p in LOCALES.rglob("*") if p.is_file()]
    assert len(files) == len(LANGUAGES) + 1
    assert [f for f in files if not any(fnmatch(f, pattern) for pattern in patterns)] == []


def test_german_says_drück_one_way_and_its_sentences_read_whole() -> None:
    # "Drück" and "drücke" were mixed; "Um gefangen zu entfernen", "Der Schatz lag unter:
    # das obere Ziel (8,2)." and "Wer das Spiel eröffnet hat, oder ein Gruppenadmin
    # startet es." were read.
    german = [form for m in messages("de").messages.values() for form in m.forms]
    assert not any(re.search(r"\bdrücke\b", form, re.IGNORECASE) for form in german)
    trapped = t("de", "action.trapped")
    assert t("de", "turn.remove_cards", card=trapped).startswith(f"Um die Karte „{trapped}“ ")
    assert t("de", "results.treasure_was", goal="das obere Ziel (8,2)") == (
        "Den Schatz barg das obere Ziel (8,2)."
    )
    assert "eröffnet hat oder die Gruppe verwaltet, startet es." in t("de", "lobby.hint")


def test_spanish_names_a_front_card_to_remove_with_its_article() -> None:
    # "Para quitarte pico roto" and "para quitarse atrapado" were read.
    broken = t("es", "action.broken_pickaxe")
    assert t("es", "turn.remove_cards", card=broken).startswith(
        f"Para quitarte la carta «{broken}»"
    )
