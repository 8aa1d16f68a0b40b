"""Every message exists in every language, with the same placeholders as the English."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.plurals import get_plural

from domain import errors
from domain.cards import PATHS, Action, Role, Tool
from infra import settings
from tgbot.presenter import texts
from tgbot.presenter.i18n import (
    LANGUAGES,
    LOCALES,
    catalog,
    catalog_path,
    messages,
    pick_language,
    placeholders,
    t,
)
from tgbot.presenter.keyboards import lobby
from tgbot.replay import steps as replay

OWN = {lang: catalog(lang) for lang in LANGUAGES}
ENGLISH = messages("en").english  # the source texts (msgid, msgid_plural) by key
TRANSLATED = [lang for lang in LANGUAGES if lang != "en"]
BUTTON_ERRORS = ("stale_button", "forged_button", "not_your_button")


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_message_id_is_translated_in_every_language(lang: str) -> None:
    assert sorted(set(ENGLISH) - set(OWN[lang])) == []
    assert sorted(set(OWN[lang]) - set(ENGLISH)) == []


@pytest.mark.parametrize("lang", LANGUAGES)
def test_translations_use_the_same_placeholders_as_english(lang: str) -> None:
    different = {}
    for key, message in messages(lang).messages.items():
        source = set().union(*(placeholders(form) for form in ENGLISH[key].forms))
        for form in message.forms:
            if placeholders(form) != source:
                different[key] = (sorted(source), form)
    assert different == {}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_counted_message_has_its_languages_number_of_forms(lang: str) -> None:
    found = messages(lang)
    expected = get_plural(lang).num_plurals  # Babel's locale data, not the catalog's header
    counted = {key: m for key, m in found.messages.items() if m.plural}
    assert counted
    assert {key: len(m.forms) for key, m in counted.items() if len(m.forms) != expected} == {}
    assert {key for key, m in found.messages.items() if m.plural != ENGLISH[key].plural} == set()


@pytest.mark.parametrize("lang", LANGUAGES)
def test_no_message_is_empty(lang: str) -> None:
    assert [key for key, text in OWN[lang].items() if not text.strip()] == []


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_card_role_and_tool_has_a_name(lang: str) -> None:
    keys = (
        [f"path.{kind}" for kind in PATHS]
        + [f"action.{action.value}" for action in Action]
        + [f"role.{role.value}" for role in Role]
        + [f"tool.{tool.value}" for tool in Tool]
        + [f"move.action.{action.value}" for action in Action]
        + [f"error.{code}" for code in BUTTON_ERRORS]
        + ["rules.base", "rules.saboteur2", "help.text", "edition.base", "edition.saboteur2"]
    )
    assert [key for key in keys if key not in OWN[lang]] == []


def _error_codes() -> set[str]:
    codes: set[str] = set()
    pending = list(errors.DomainError.__subclasses__())
    while pending:
        cls = pending.pop()
        codes.add(cls.code)
        pending.extend(cls.__subclasses__())
    return codes


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_domain_error_code_has_a_message(lang: str) -> None:
    assert sorted(code for code in _error_codes() if f"error.{code}" not in OWN[lang]) == []


def test_rules_summaries_are_about_ten_lines() -> None:
    for lang in LANGUAGES:
        for edition in ("base", "saboteur2"):
            assert 6 <= len(t(lang, f"rules.{edition}").splitlines()) <= 14


def test_messages_are_formatted_with_their_parameters() -> None:
    assert t("en", "move.path_placed", name="Ana", card="cross ┼", cell="B3") == (
        "Ana placed cross ┼ at B3."
    )
    assert t("es", "role.profiteer") == "perezoso"
    assert t("pl", "action.hands_off") == "łapy precz!"


def test_an_unknown_language_falls_back_to_english() -> None:
    assert t("fr", "error.not_your_turn") == t("en", "error.not_your_turn")


def test_a_key_missing_in_a_language_falls_back_to_english() -> None:
    spanish = messages("es").messages
    saved = spanish.pop("error.not_your_turn")
    try:
        assert t("es", "error.not_your_turn") == "It is not your turn."
    finally:
        spanish["error.not_your_turn"] = saved


def test_a_key_missing_everywhere_shows_as_itself() -> None:
    assert t("pl", "no.such.key") == "no.such.key"


@pytest.mark.parametrize(
    ("telegram", "override", "expected"),
    [
        ("es", None, "es"),
        ("es-AR", None, "es"),
        ("pl", None, "pl"),
        ("en-GB", None, "en"),
        ("pt-BR", None, "en"),
        (None, None, "en"),
        ("pl", "es", "es"),
        ("es", "en", "en"),
        ("es", "fr", "es"),
    ],
)
def test_the_group_choice_wins_over_the_users_telegram_language(
    telegram: str | None, override: str | None, expected: str
) -> None:
    assert pick_language(override, telegram) == expected


def test_the_languages_the_settings_accept_are_the_ones_every_part_of_the_bot_offers() -> None:
    # One list: a language added to the settings is offered by the lobby, /language and
    # the replay, and has its catalog, without a second list to forget.
    for module in (lobby, replay, texts):
        assert module.LANGUAGES is settings.LANGUAGES, module.__name__
    assert LANGUAGES is settings.LANGUAGES
    assert all(catalog_path(lang).exists() for lang in settings.LANGUAGES)


# Families of keys the code builds from a value (``f"path.{kind}"``), by what that value
# can be; other families built in the code are taken as used whatever follows the prefix.
BUILT = {
    "path.": set(PATHS),
    "role.": {role.value for role in Role},
    "goal.": {kind for kind in PATHS if kind.startswith("goal_")},
}


def test_every_message_in_the_catalogs_is_one_the_bot_uses() -> None:
    code = "\n".join(
        p.read_text("utf-8")
        for p in Path(LOCALES.parent).rglob("*")
        if p.suffix in (".py", ".js") and p.name not in ("i18n.py", "catalog_keys.py")
    )
    literal = set(re.findall(r"""["']([a-z_0-9]+(?:\.[a-z_0-9]+)+)["']""", code))
    literal |= set(re.findall(r"""`([a-z_0-9]+(?:\.[a-z_0-9]+)+)`""", code))
    prefixes = {p for p in re.findall(r"""f["']([a-z_0-9.]+)\{""", code) if "." in p}
    assert set(BUILT) <= prefixes

    def used(key: str) -> bool:
        if key in literal:
            return True
        for prefix in prefixes:
            if key.startswith(prefix):
                rest = key.removeprefix(prefix)
                return prefix not in BUILT or rest in BUILT[prefix]
        return False

    keys = {key for lang in LANGUAGES for key in catalog(lang)}
    assert sorted(key for key in keys if not used(key)) == []
