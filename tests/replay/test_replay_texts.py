"""Every message of the replay, history and stats exists in English, Spanish and Polish."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from domain.cards import PATHS
from tgbot.presenter.i18n import catalog, placeholders
from tgbot.presenter.keyboards import placement_label
from tgbot.presenter.texts import Texts
from tgbot.replay.steps import LANGUAGES

TGBOT = Path(__file__).resolve().parents[2] / "tgbot"
SOURCES = [
    TGBOT / "replay" / "steps.py",
    TGBOT / "replay" / "gif.py",
    TGBOT / "telegram" / "handlers" / "history.py",
    TGBOT / "telegram" / "handlers" / "history_messages.py",
    TGBOT / "telegram" / "handlers" / "replays.py",
]
LITERAL = re.compile(r"""\btext\(\s*\w+,\s*["']([a-z_.0-9]+)["']""")
CATALOGS = {
    lang: {key: text for key, text in catalog(lang).items() if key.startswith("replay.")}
    for lang in LANGUAGES
}


def keys_in_code() -> set[str]:
    return {key for path in SOURCES for key in LITERAL.findall(path.read_text("utf-8"))}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_replay_key_the_code_names_exists_in_every_language(lang: str) -> None:
    keys = keys_in_code()
    assert len(keys) > 10
    assert sorted(keys - set(catalog(lang))) == []


@pytest.mark.parametrize("lang", ["es", "pl"])
def test_replay_catalogs_have_the_english_keys_and_placeholders(lang: str) -> None:
    english = CATALOGS["en"]
    assert set(CATALOGS[lang]) == set(english)
    different = {
        key: text
        for key, text in CATALOGS[lang].items()
        if placeholders(text) != placeholders(english[key])
    }
    assert different == {}


def test_the_replay_names_a_turned_card_by_the_shape_its_placement_button_showed() -> None:
    kinds = [k for k in PATHS if k != "start" and not k.startswith("goal")]
    assert len(kinds) > 20
    for kind in kinds:
        for rotated in (False, True):
            shape = placement_label("A", kind, rotated).removeprefix("A ").removesuffix(" ↻")
            assert shape in Texts("en").kind_name(kind, rotated), (kind, rotated)
