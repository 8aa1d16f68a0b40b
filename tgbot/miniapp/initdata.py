"""Telegram's ``initData``: who opened the Mini App, checked as Telegram documents it.

Telegram hands the Mini App a query string (``Telegram.WebApp.initData``) signed with a
key only Telegram and the bot know: the secret key is HMAC-SHA256 of the bot's token with
the constant ``WebAppData`` as the key; ``hash`` is the hex HMAC-SHA256, under that secret
key, of the data-check-string — every other field as ``key=value`` (value URL-decoded),
sorted by key, joined with ``\\n``. ``auth_date`` (Unix seconds) says when Telegram issued
it; data older than the allowed age is refused, so a copied link stops working.

>>> token = "123456:TEST-fake-token"
>>> raw = sign({"auth_date": "1700000000", "user": '{"id": 7, "first_name": "Ann"}'}, token)
>>> validate(raw, token, now=1700000060).user.id
7
>>> validate(raw.replace("Ann", "Bob"), token, now=1700000060)
Traceback (most recent call last):
...
tgbot.miniapp.initdata.InvalidInitData: forged
>>> validate(raw, token, now=1700000000 + 2 * DAY)
Traceback (most recent call last):
...
tgbot.miniapp.initdata.InvalidInitData: expired
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final
from urllib.parse import parse_qsl, urlencode

DAY: Final = 86_400
MAX_AGE: Final = DAY  # seconds an initData stays good: a Mini App may stay open for hours
CLOCK_SKEW: Final = 300  # an auth_date this far in the future is still believed
MAX_LENGTH: Final = 8192


class InvalidInitData(ValueError):
    """initData that is not Telegram's, or no longer good. ``reason`` is one of
    ``missing``, ``malformed``, ``forged`` and ``expired``."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True, slots=True)
class WebAppUser:
    id: int
    first_name: str
    last_name: str = ""
    username: str = ""
    language_code: str | None = None

    @property
    def name(self) -> str:
        full = f"{self.first_name} {self.last_name}".strip()
        return full or self.username or str(self.id)


@dataclass(frozen=True, slots=True)
class InitData:
    """The checked fields the Mini App uses."""

    user: WebAppUser
    auth_date: int
    start_param: str = ""  # ``startapp`` of a direct link: the game's id
    chat_type: str = ""


def secret_key(token: str) -> bytes:
    """HMAC-SHA256 of the bot's token, keyed with ``WebAppData``."""
    return hmac.new(b"WebAppData", token.encode(), hashlib.sha256).digest()


def data_check_string(fields: Mapping[str, str]) -> str:
    """Every field but ``hash``, sorted by key, as ``key=value`` lines.

    >>> data_check_string({"user": "{}", "auth_date": "1", "hash": "ab"})
    'auth_date=1\\nuser={}'
    """
    return "\n".join(f"{key}={fields[key]}" for key in sorted(fields) if key != "hash")


def signature(fields: Mapping[str, str], token: str) -> str:
    """The ``hash`` Telegram would send with ``fields``."""
    check = data_check_string(fields).encode()
    return hmac.new(secret_key(token), check, hashlib.sha256).hexdigest()


def sign(fields: Mapping[str, str], token: str) -> str:
    """``fields`` as a signed initData query string, as Telegram issues it (the offline
    demo signs for its players with the fake Bot API's token; nothing else signs)."""
    return urlencode({**fields, "hash": signature(fields, token)})


def validate(raw: str, token: str, *, now: float, max_age: int = MAX_AGE) -> InitData:
    """The checked initData ``raw`` for the bot with ``token``, at Unix time ``now``.

    Raises :class:`InvalidInitData`.
    """
    if not raw:
        raise InvalidInitData("missing")
    if len(raw) > MAX_LENGTH:
        raise InvalidInitData("malformed")
    try:
        pairs = parse_qsl(raw, keep_blank_values=True, strict_parsing=True)
    except ValueError:
        raise InvalidInitData("malformed") from None
    fields = dict(pairs)
    if len(fields) != len(pairs) or "hash" not in fields:
        raise InvalidInitData("malformed")  # a repeated field could mean two things
    if not hmac.compare_digest(fields["hash"].lower(), signature(fields, token)):
        raise InvalidInitData("forged")
    try:
        auth_date = int(fields["auth_date"])
        user = _user(json.loads(fields["user"]))
    except (KeyError, ValueError, TypeError):
        raise InvalidInitData("malformed") from None
    if not now - max_age <= auth_date <= now + CLOCK_SKEW:
        raise InvalidInitData("expired")
    return InitData(
        user=user,
        auth_date=auth_date,
        start_param=fields.get("start_param", ""),
        chat_type=fields.get("chat_type", ""),
    )


def _user(data: object) -> WebAppUser:
    if not isinstance(data, dict) or not isinstance(data.get("id"), int):
        raise ValueError("no user id")
    language = data.get("language_code")
    return WebAppUser(
        id=data["id"],
        first_name=str(data.get("first_name") or ""),
        last_name=str(data.get("last_name") or ""),
        username=str(data.get("username") or ""),
        language_code=language if isinstance(language, str) else None,
    )
