"""Every text the bot answers a pressed button with (an alert, or a toast: Telegram's
``answerCallbackQuery`` text) fits Telegram's 200 characters, counted in UTF-16 units, in
every language and with the longest arguments it can be given: a name as long as an
answer lets one be (``ALERT_NAME_LIMIT``: a stored name holds up to 128 characters, Telegram's
64 + 64, and is shortened for an answer), the longest edition's name, numbers of five
digits. A join pressed by someone with the longest name Telegram allows is answered
(``test_a_join_by_the_longest_name_is_answered_and_told_to_the_group``).

Which catalog messages are such answers is read from the code: the keys written inside
an ``answer_press(...)`` call or a press's ``Reply(...)``/``Alert(...)``; every ``error.*``
message (``error_text`` answers a refused command with any of them); and the keys of the
functions whose result a handler answers with (:data:`REFUSERS`).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from string import Formatter

import pytest

from infra.settings import LANGUAGES
from tests.fakebotapi import FakeBotAPI
from tests.tgbot.bot_harness import press_and_wait, running_bot, seat, settle
from tgbot.presenter import i18n
from tgbot.presenter.telegram_html import ALERT_LIMIT, TEXT_LIMIT, length, utf16
from tgbot.presenter.texts import ALERT_NAME_LIMIT, esc

GROUP = -5134
PLAYERS = [151, 152, 153]
TGBOT = Path(__file__).parents[2] / "tgbot"
# Functions whose result a handler answers a press with (module, function).
REFUSERS = (
    ("telegram/handlers/language.py", "choose"),
    ("telegram/handlers/seats.py", "can_leave"),
    ("telegram/handlers/seats.py", "hand_over"),
    ("telegram/handlers/history.py", "refusal_key"),
    ("telegram/handlers/practice.py", "start_practice"),
    ("telegram/handlers/history.py", "find_replay"),
    ("telegram/handlers/group.py", "too_many_games"),
)
ANSWERS = ("answer_press", "Reply", "Alert")
NAME = "W" * ALERT_NAME_LIMIT
NUMBER = 99_999
NUMBERS = frozenset({*i18n.COUNTS, "max", "min", "seconds", "minutes"})
EDITIONS = ("edition.base", "edition.saboteur2")
KEY = re.compile(r"^[a-z_0-9]+(\.[a-z_0-9]+)+$")


def keys_in(node: ast.AST) -> set[str]:
    return {
        n.value
        for n in ast.walk(node)
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and KEY.match(n.value)
    }


def called(node: ast.Call) -> str:
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def assigned(function: ast.AST, name: str) -> set[str]:
    """The keys in what ``function`` assigns to the variable ``name``."""
    return {
        key
        for n in ast.walk(function)
        if isinstance(n, ast.Assign | ast.AnnAssign)
        for target in (n.targets if isinstance(n, ast.Assign) else [n.target])
        if isinstance(target, ast.Name) and target.id == name and n.value is not None
        for key in keys_in(n.value)
    }


def answer_keys() -> set[str]:
    found: set[str] = set()
    for path in TGBOT.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for function in ast.walk(tree):
            if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for node in ast.walk(function):
                if isinstance(node, ast.Call) and called(node) in ANSWERS:
                    found |= keys_in(node)  # written in the answer, or in a variable:
                    for arg in [*node.args, *(k.value for k in node.keywords)]:
                        if isinstance(arg, ast.Name):
                            found |= assigned(function, arg.id)
    for module, function in REFUSERS:
        tree = ast.parse((TGBOT / module).read_text(encoding="utf-8"))
        bodies = [
            n
            for n in ast.walk(tree)
            if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name == function
        ]
        assert bodies, f"{module} has no {function}: update REFUSERS"
        found |= {k for body in bodies for k in keys_in(body)}
    english = i18n.catalog("en")
    found |= {key for key in english if key.startswith("error.")}
    return {key for key in found if key in english}


def longest(lang: str, key: str) -> list[str]:
    """Every form of the message, its fields filled with the longest plausible values."""
    texts = []
    for form in i18n.forms(lang, key):
        fields = {name for _, name, _, _ in Formatter().parse(form) if name}
        values: dict[str, object] = {}
        for name in fields:
            base = name.split(".")[0].split("[")[0]
            if base in NUMBERS:
                values[base] = NUMBER
            elif base == "edition":
                values[base] = max((i18n.t(lang, e) for e in EDITIONS), key=utf16)
            else:  # a name, or anything else a person could make long
                values[base] = NAME
        texts.append(form.format(**values))
    return texts


ALERTS = sorted(answer_keys())


def test_the_answers_are_found() -> None:
    assert {"error.stale_button", "lobby.only_creator", "bot.slow_down"} <= set(ALERTS)
    assert {"handseat.already", "replay.tampered", "bot.admins_only"} <= set(ALERTS)
    assert "help.text" not in ALERTS


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_answer_to_a_press_fits_an_alert(lang: str) -> None:
    too_long = {
        key: max(utf16(text) for text in longest(lang, key))
        for key in ALERTS
        if max(utf16(text) for text in longest(lang, key)) > ALERT_LIMIT
    }
    assert too_long == {}


async def test_a_join_by_the_longest_name_is_answered_and_told_to_the_group(db: str) -> None:
    """Someone named as long as Telegram allows (64 + 64 characters, with HTML's special
    characters) presses Join before opening the private chat: the group's notice reads
    the name as written (``running_bot`` fails on a refused call: HTML Telegram cannot
    parse, as the name was once put in unescaped)."""
    stranger = 159
    first, last = "<Wil & Co>" + "W" * 54, "V" * 64
    async with FakeBotAPI() as api:
        seat(api, GROUP, PLAYERS)
        api.user(stranger, first, "de", opened=False)["last_name"] = last
        async with running_bot(api, db) as app:
            await settle(api, app)
            api.send_text(GROUP, PLAYERS[0], "/newgame")
            await settle(api, app)
            lobby = next(m for m in api.messages_in(GROUP) if api.keyboard(m))
            join = api.keyboard(lobby)[0][0].callback_data
            assert join is not None
            answer = await press_and_wait(api, app, GROUP, stranger, lobby["message_id"], join)

            assert answer.get("url")  # the private chat opens
            told = api.last_message(GROUP)["text"]
            assert f"{esc(first)} {last[:20]}" in told  # read as written once parsed


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_catalog_message_alone_fits_a_message(lang: str) -> None:
    """Whatever is sent whole (a rules page, the help, a lobby's text) is at least not
    over a message's 4,096 units by itself, as Telegram counts it once parsed."""
    too_long = {
        key: max(length(text) for text in longest(lang, key))
        for key in i18n.catalog("en")
        if max(length(text) for text in longest(lang, key)) > TEXT_LIMIT
    }
    assert too_long == {}
