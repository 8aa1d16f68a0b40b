"""The gateway is the one way out to Telegram: no other module of the bot calls the Bot
API, so a rule every call must follow has one place to go."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import telegram

import tgbot

PACKAGE = Path(tgbot.__file__).parent
# The gateway calls the Bot API; the offline fake serves it (and calls nothing).
EXEMPT = frozenset({PACKAGE / "telegram" / "gateway.py", PACKAGE / "offline" / "fakeapi.py"})
# What the Bot API's methods are called on: the bot, and the objects of an update whose
# shortcuts call it (``message.reply_text``, ``query.answer``).
API_OBJECTS = (
    telegram.Bot,
    telegram.Message,
    telegram.CallbackQuery,
    telegram.Chat,
    telegram.User,
    telegram.ChatFullInfo,
    telegram.File,
    telegram.InlineQuery,
    telegram.ChatJoinRequest,
)
# A one-word method (``answer``, ``delete``, ``close``) is a Bot API call only on
# something named as a Telegram object is; other names (``send_message``) anywhere.
TELEGRAM_NAMES = frozenset(
    {"bot", "query", "callback_query", "message", "effective_message", "chat", "user"}
    | {"effective_chat", "effective_user", "reply_to_message", "pinned_message"}
)


def api_methods() -> frozenset[str]:
    """The names of every coroutine the Bot API's objects have."""
    return frozenset(
        name
        for cls in API_OBJECTS
        for name, member in inspect.getmembers(cls)
        if not name.startswith("_") and inspect.iscoroutinefunction(member)
    )


def _last_name(node: ast.expr) -> str:
    match node:
        case ast.Name(id=name) | ast.Attribute(attr=name):
            return name
    return ""


def bot_api_calls(source: str) -> list[tuple[int, str]]:
    """The calls to the Bot API in ``source``: (line, the call), by their names.

    >>> bot_api_calls("await query.answer()\\nawait self._redis.delete(key)")
    [(1, 'query.answer()')]
    >>> bot_api_calls("await context.bot.send_message(1, 'hi')\\nawait gateway.reply(m, 'hi')")
    [(1, "context.bot.send_message(1, 'hi')")]
    >>> bot_api_calls("await getattr(self.bot, method)(chat_id=1)")
    [(1, 'getattr(self.bot, method)')]
    """
    methods = api_methods()
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Name) and func.id == "getattr" and node.args:
            if _last_name(node.args[0]) == "bot":  # a method named at run time
                found.append((node.lineno, ast.unparse(node)))
            continue
        if not isinstance(func, ast.Attribute) or func.attr not in methods:
            continue
        one_word = "_" not in func.attr and func.attr.islower()
        if not one_word or _last_name(func.value) in TELEGRAM_NAMES:
            found.append((node.lineno, ast.unparse(node)))
    return found


def test_no_module_of_the_bot_but_the_gateway_calls_the_bot_api() -> None:
    calls = [
        f"{path.relative_to(PACKAGE.parent)}:{line}: {call}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if path not in EXEMPT
        for line, call in bot_api_calls(path.read_text(encoding="utf-8"))
    ]
    assert calls == []
