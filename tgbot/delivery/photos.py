"""Pictures sent once: a PNG Telegram already has is sent again by its ``file_id``.

The group's board and the next player's prompt usually show the same picture; uploading
it once saves a second upload of the same bytes (Telegram lets a bot send any file it
uploaded before, to any chat, by its ``file_id``).

Telegram may forget a file (or refuse its id); whoever sends by id then drops it
(:meth:`PhotoCache.forget`) and uploads the bytes again (see
:meth:`tgbot.delivery.outbox.Outbox.send_picture`).

>>> photos = PhotoCache()
>>> photos.file_id(b"png") is None
True
"""

from __future__ import annotations

import hashlib
from typing import Any

from telegram import Message

from infra.lru import LRU

SIZE = 512  # pictures remembered (the boards and previews of the last moves)


class PhotoCache:
    """The ``file_id`` of recently uploaded pictures, by the digest of their bytes."""

    def __init__(self, size: int = SIZE) -> None:
        self._ids: LRU[bytes, str] = LRU(size)

    def file_id(self, png: bytes) -> str | None:
        """The ``file_id`` Telegram gave this picture, if it was sent before."""
        return self._ids.get(_digest(png))

    def forget(self, png: bytes) -> None:
        """Drop the picture's ``file_id`` (Telegram refused it): it is uploaded again."""
        self._ids.pop(_digest(png), None)

    def remember(self, png: bytes, sent: Any) -> None:
        """Note the ``file_id`` of a message that carried ``png`` (as sent or edited)."""
        if not isinstance(sent, Message) or not sent.photo:
            return
        self._ids[_digest(png)] = sent.photo[-1].file_id


def _digest(png: bytes) -> bytes:
    return hashlib.blake2b(png, digest_size=16).digest()
