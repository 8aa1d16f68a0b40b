"""Every message key the bot's code names exists in every language."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from domain.cards import Action, Role, deck
from domain.commands import LEVELS
from domain.errors import DomainError
from tgbot.presenter import i18n
from tgbot.presenter.i18n import pick_language
from tgbot.presenter.texts import TIMER_PRESETS, Texts
from tgbot.telegram.handlers.common import error_text

ROOT = Path(__file__).resolve().parents[2]
SOURCES = (
    [
        ROOT / "tgbot" / name
        for name in (
            "telegram/app.py",
            "presenter/texts.py",
            "presenter/rules.py",
            "presenter/invitations.py",
        )
    ]
    + sorted((ROOT / "tgbot" / "presenter").glob("*.py"))
    + sorted((ROOT / "tgbot" / "presenter" / "keyboards").glob("*.py"))
    + sorted((ROOT / "tgbot" / "telegram" / "handlers").glob("*.py"))
)
LITERAL = re.compile(r"""\.t\(\s*f?["']([a-z_.{}]+)["']""")


def keys_in_code() -> set[str]:
    keys: set[str] = set()
    for path in SOURCES:
        keys.update(LITERAL.findall(path.read_text("utf-8")))
    return keys


def expand(key: str) -> list[str]:
    """A key with a ``{placeholder}`` stands for every value the code puts there."""
    values = {
        "{e}": ["base", "saboteur2"],
        "{state.edition}": ["base", "saboteur2"],
        "{unit}": ["days", "hours", "minutes", "seconds"],
        "{name}": [
            "newgame",
            "join",
            "leave",
            "cancel",
            "settings",
            "rules",
            "help",
            "language",
            "start",
            "hand",
            "back",
        ],
        "{role}": [r.value for r in Role],
        "{kind}": [],
        "{tool}": ["pickaxe", "lantern", "cart"],
        "{which}": ["half", "soon"],
        "{preset}": [name for name, _ in TIMER_PRESETS],
        "{d['action']}": [a.value for a in Action],
        "{code}": [],
        "{level}": list(LEVELS),
        "{chosen}": list(LEVELS),
    }
    for placeholder, options in values.items():
        if placeholder in key:
            return [key.replace(placeholder, option) for option in options]
    return [key]


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_every_key_the_bot_uses_exists_in_every_language(lang: str) -> None:
    keys = [k for key in keys_in_code() for k in expand(key) if "{" not in k]
    assert len(keys) > 60
    missing = sorted(k for k in keys if k not in i18n.catalog(lang))
    assert missing == []


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_every_card_role_and_front_card_has_a_name_in_every_language(lang: str) -> None:
    catalog = i18n.catalog(lang)
    for card in deck("saboteur2"):
        key = f"path.{card.kind}" if card.path is not None else f"action.{card.kind}"
        assert key in catalog, key
    for role in Role:
        assert f"role.{role.value}" in catalog
    assert Texts(lang).card_name("base", 0) != "path.cross"


def test_the_language_is_the_users_telegram_language_unless_unknown() -> None:
    assert pick_language("es-ES", "en") == "es"
    assert pick_language("pl", "en") == "pl"
    assert pick_language("pt-BR", "en") == "en"
    assert pick_language(None, "pl") == "pl"


def domain_error_codes() -> set[str]:
    """Every refusal code the rules can answer with (the subclasses of DomainError)."""
    codes: set[str] = set()
    pending = list(DomainError.__subclasses__())
    while pending:
        cls = pending.pop()
        codes.add(cls.code)
        pending.extend(cls.__subclasses__())
    return codes


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_every_refusal_is_explained_with_its_own_message(lang: str) -> None:
    texts = Texts(lang)
    generic = texts.t("error.domain_error")
    codes = domain_error_codes() | {"busy"}
    assert len(codes) > 15
    vague = sorted(code for code in codes if error_text(texts, code) == generic)
    assert vague == []
    assert error_text(texts, "not_your_turn") == i18n.t(lang, "error.not_your_turn")
