"""Pictures sent once: a PNG Telegram already has is sent again by its ``file_id``.

The group's board and the next player's prompt usually show the same picture; uploading
it once saves a second upload of the same bytes (Telegram lets a bot send any file it
uploaded before, to any chat, by its ``file_id``).

>>> photos = PhotoCache()
>>> photos.media(b"png") == b"png"
True
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from typing import Any

from telegram import Message

SIZE = 512  # pictures remembered (the boards and previews of the last moves)


class PhotoCache:
    """The ``file_id`` of recently uploaded pictures, by the digest of their bytes."""

    def __init__(self, size: int = SIZE) -> None:
        self.size = size
        self._ids: OrderedDict[bytes, str] = OrderedDict()

    def media(self, png: bytes) -> str | bytes:
        """What to send: the ``file_id`` when Telegram has the picture, else the bytes."""
        return self._ids.get(_digest(png), png)

    def remember(self, png: bytes, sent: Any) -> None:
        """Note the ``file_id`` of a message that carried ``png`` (as sent or edited)."""
        if not isinstance(sent, Message) or not sent.photo:
            return
        key = _digest(png)
        self._ids[key] = sent.photo[-1].file_id
        self._ids.move_to_end(key)
        while len(self._ids) > self.size:
            self._ids.popitem(last=False)


def _digest(png: bytes) -> bytes:
    return hashlib.blake2b(png, digest_size=16).digest()
