"""Inline-button callback data: our own compact, signed codec (Telegram allows 64 bytes).

A button carries what the bot needs to act on a press without any server-side session:
an action code, the game's id, the game version the keyboard was drawn for (so a stale
button is recognised) and a few optional arguments. The bytes are packed with varints,
signed with a 6-byte HMAC keyed by a secret (derived from ``SECRET_KEY``, see
:func:`keys_from_secrets`) over the bytes and the id of the chat the button is sent to
(which is not written: the press's chat supplies it, so a button copied to another chat
is refused), and written in URL-safe base64 — at most 64 characters for every value the
fields allow. Buttons are signed with the current key and accepted with
any key still in use, so rotating ``SECRET_KEY`` invalidates no live button.

>>> key = b"secret"
>>> data = CallbackData("pl", "g1a", 7, card=12, cell=(3, -1), rotated=True)
>>> raw = encode(data, key)
>>> len(raw) <= 64 and decode(raw, key) == data
True
>>> decode(raw[:-1] + ("A" if raw[-1] != "A" else "B"), key)
Traceback (most recent call last):
...
tgbot.presenter.callback.BadCallback: forged or garbled callback data
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final

Cell = tuple[int, int]

MAX_LENGTH: Final = 64
MAC_BYTES: Final = 6
TOOLS: Final = ("pickaxe", "lantern", "cart")  # domain.cards.Tool values, in a fixed order

ACTION_RE: Final = re.compile(r"[a-z0-9_]{1,3}")
GAME_RE: Final = re.compile(r"[A-Za-z0-9_-]{1,12}")
MAX_VERSION: Final = 2**32 - 1
MAX_SMALL: Final = 2**14 - 1  # card, page, value: two varint bytes
MAX_COORD: Final = 2**13 - 1  # |x|, |y|: two zigzag varint bytes
MAX_PLAYER: Final = 2**53  # Telegram ids fit in 52 bits; eight zigzag varint bytes

_CARD, _CELL, _PLAYER, _PAGE, _VALUE, _ROTATED = (1 << i for i in range(6))
_TOOL_SHIFT: Final = 6  # two bits: 0 no tool, 1 + index in TOOLS


class BadCallback(ValueError):
    """Callback data that this bot did not write: garbled, truncated or forged."""

    def __init__(self, message: str = "forged or garbled callback data") -> None:
        super().__init__(message)


@dataclass(frozen=True, slots=True)
class CallbackData:
    """What one button means.

    ``action`` is a short code (1–3 of ``a-z0-9_``), ``game`` the game's id (1–12 of
    ``A-Za-z0-9_-``), ``version`` the game version the keyboard was drawn for. The rest
    are optional arguments: a card id, a cell, the 180° orientation, a target player
    (a Telegram id), a tool (a :data:`TOOLS` name), a page and a small value.
    """

    action: str
    game: str
    version: int
    card: int | None = None
    cell: Cell | None = None
    rotated: bool = False
    player: int | None = None
    tool: str | None = None
    page: int | None = None
    value: int | None = None

    def __post_init__(self) -> None:
        if not ACTION_RE.fullmatch(self.action):
            raise ValueError(f"action code must match {ACTION_RE.pattern}: {self.action!r}")
        if not GAME_RE.fullmatch(self.game):
            raise ValueError(f"game id must match {GAME_RE.pattern}: {self.game!r}")
        if not 0 <= self.version <= MAX_VERSION:
            raise ValueError(f"version out of range: {self.version}")
        for name in ("card", "page", "value"):
            number = getattr(self, name)
            if number is not None and not 0 <= number <= MAX_SMALL:
                raise ValueError(f"{name} out of range: {number}")
        if self.cell is not None and not all(abs(c) <= MAX_COORD for c in self.cell):
            raise ValueError(f"cell out of range: {self.cell}")
        if self.player is not None and abs(self.player) > MAX_PLAYER:
            raise ValueError(f"player id out of range: {self.player}")
        if self.tool is not None and self.tool not in TOOLS:
            raise ValueError(f"unknown tool: {self.tool!r}")


def key_from_token(token: str) -> bytes:
    """The signing key for a secret (``SECRET_KEY``, or the bot token when none is set)."""
    return hmac.new(token.encode(), b"saboteur-bot callback data", hashlib.sha256).digest()


def keys_from_secrets(secrets: Iterable[str]) -> tuple[bytes, ...]:
    """The signing keys of the secrets (see ``Settings.secrets``), the current one first:
    buttons are signed with the first and accepted with any.

    >>> current, previous = keys_from_secrets(["new-secret", "old-secret"])
    >>> raw = encode(CallbackData("j", "g1", 3), previous)
    >>> decode(raw, (current, previous)) == CallbackData("j", "g1", 3)
    True
    """
    return tuple(key_from_token(secret) for secret in secrets)


def encode(data: CallbackData, key: bytes, chat: int | None = None) -> str:
    """The button's ``callback_data``: at most 64 ASCII characters. ``chat``: the chat the
    message carrying the button is sent to; the signature covers it (at no cost in
    length), so the button is good in that chat only (see :func:`decode`).

    >>> raw = encode(CallbackData("vs", "g1", 9), b"k", chat=-100)
    >>> decode(raw, b"k", chats=[-100]).action
    'vs'
    >>> decode(raw, b"k", chats=[-200])
    Traceback (most recent call last):
    ...
    tgbot.presenter.callback.BadCallback: forged or garbled callback data
    """
    flags = 0
    body = bytearray()
    _put_text(body, data.action)
    _put_text(body, data.game)
    _put_varint(body, data.version)
    if data.card is not None:
        flags |= _CARD
        _put_varint(body, data.card)
    if data.cell is not None:
        flags |= _CELL
        _put_varint(body, _zigzag(data.cell[0]))
        _put_varint(body, _zigzag(data.cell[1]))
    if data.player is not None:
        flags |= _PLAYER
        _put_varint(body, _zigzag(data.player))
    if data.page is not None:
        flags |= _PAGE
        _put_varint(body, data.page)
    if data.value is not None:
        flags |= _VALUE
        _put_varint(body, data.value)
    if data.rotated:
        flags |= _ROTATED
    if data.tool is not None:
        flags |= (TOOLS.index(data.tool) + 1) << _TOOL_SHIFT
    payload = bytes([flags]) + bytes(body)
    raw = base64.urlsafe_b64encode(_mac(key, payload, chat) + payload).rstrip(b"=").decode()
    assert len(raw) <= MAX_LENGTH, raw  # guaranteed by the field limits
    return raw


def decode(
    raw: str, key: bytes | Sequence[bytes], chats: Iterable[int] | None = None
) -> CallbackData:
    """Read back :func:`encode`'s output, signed with ``key`` (or any of several keys) for
    one of ``chats`` (the chat a press came from, and the ids it had before a migration;
    None: a button bound to no chat); anything else raises :class:`BadCallback`."""
    if not raw or len(raw) > MAX_LENGTH or not raw.isascii():
        raise BadCallback()
    try:
        blob = base64.urlsafe_b64decode(raw + "=" * (-len(raw) % 4))
    except (binascii.Error, ValueError):
        raise BadCallback() from None
    mac, payload = blob[:MAC_BYTES], blob[MAC_BYTES:]
    keys = (key,) if isinstance(key, bytes) else key
    bound: tuple[int | None, ...] = (None,) if chats is None else tuple(chats)
    if not payload or not any(
        hmac.compare_digest(mac, _mac(k, payload, chat)) for k in keys for chat in bound
    ):
        raise BadCallback()
    # Canonical form only: one string, one meaning.
    if base64.urlsafe_b64encode(blob).rstrip(b"=").decode() != raw:
        raise BadCallback()
    try:
        return _parse(payload)
    except (IndexError, ValueError, UnicodeDecodeError) as error:
        raise BadCallback() from error


def peek(raw: str) -> CallbackData | None:
    """What ``raw`` says, unchecked (None: not our codec's): to route a press to its
    handler, which then checks it with :func:`decode`. Never to act on.

    >>> peek(encode(CallbackData("vs", "g1", 9), b"k", chat=-100)).action
    'vs'
    """
    try:
        blob = base64.urlsafe_b64decode(raw + "=" * (-len(raw) % 4))
        return _parse(blob[MAC_BYTES:])
    except (binascii.Error, IndexError, ValueError, UnicodeDecodeError):
        return None


def _parse(payload: bytes) -> CallbackData:
    flags = payload[0]
    reader = _Reader(payload, 1)
    action = reader.text()
    game = reader.text()
    version = reader.varint()
    card = reader.varint() if flags & _CARD else None
    cell = (_unzigzag(reader.varint()), _unzigzag(reader.varint())) if flags & _CELL else None
    player = _unzigzag(reader.varint()) if flags & _PLAYER else None
    page = reader.varint() if flags & _PAGE else None
    value = reader.varint() if flags & _VALUE else None
    tool_bits = flags >> _TOOL_SHIFT
    if reader.pos != len(payload) or tool_bits > len(TOOLS):
        raise ValueError("trailing bytes or unknown tool")
    return CallbackData(
        action,
        game,
        version,
        card=card,
        cell=cell,
        rotated=bool(flags & _ROTATED),
        player=player,
        tool=TOOLS[tool_bits - 1] if tool_bits else None,
        page=page,
        value=value,
    )


def _mac(key: bytes, payload: bytes, chat: int | None = None) -> bytes:
    bound = bytearray()
    if chat is not None:  # signed, never sent: the press's chat supplies it
        bound.append(0)
        _put_varint(bound, _zigzag(chat))
    return hmac.new(key, bytes(bound) + payload, hashlib.sha256).digest()[:MAC_BYTES]


def _zigzag(n: int) -> int:
    return n * 2 if n >= 0 else -n * 2 - 1


def _unzigzag(n: int) -> int:
    return n // 2 if n % 2 == 0 else -(n + 1) // 2


def _put_varint(out: bytearray, n: int) -> None:
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)


def _put_text(out: bytearray, text: str) -> None:
    data = text.encode("ascii")
    out.append(len(data))
    out.extend(data)


class _Reader:
    def __init__(self, data: bytes, pos: int) -> None:
        self.data = data
        self.pos = pos

    def varint(self) -> int:
        result = shift = 0
        while True:
            byte = self.data[self.pos]
            self.pos += 1
            result |= (byte & 0x7F) << shift
            if byte < 0x80:
                return result
            shift += 7
            if shift > 63:
                raise ValueError("varint too long")

    def text(self) -> str:
        length = self.data[self.pos]
        end = self.pos + 1 + length
        if end > len(self.data):
            raise ValueError("truncated text")
        text = self.data[self.pos + 1 : end].decode("ascii")
        self.pos = end
        return text
