"""What each message the bot sent shows now, so that an edit that would change nothing is
not sent at all.

Telegram refuses such an edit ("message is not modified"), after spending the chat's and
the bot's rate budget on it: pressing the same button again and again asks for the same
picture again (each edit would upload it again), and a prompt closed without buttons is
later asked to lose its buttons. A message shows three parts — its file (or none: a text),
its text or caption, its keyboard — and an edit sets some of them: the edit is skipped
when every part it sets shows that already.

What a message shows is noted when Telegram confirmed it (the message sent, the edit made
or answered "not modified"), never before the call: an instance killed before its call
leaves the message as it was, and the instance that takes over must still make the edit.
It is kept in Redis when the bot has one, as every instance edits the same messages;
without Redis, in this process (a bounded cache), trusted only for half a minute. An
identical edit already under way in this process is waited for, then skipped if it was
made (a flood of the same press).

>>> import asyncio
>>> shown = ShownEdits()
>>> async def edits() -> list[bool]:
...     skipped = []
...     a, b, keys = fingerprint("a"), fingerprint("b"), fingerprint("keys")
...     for edit in (Shown(body=a), Shown(body=a), Shown(markup=keys), Shown(body=b)):
...         skipped.append(await shown.unchanged((-1, 5), edit))
...         await shown.remember((-1, 5), edit)
...     return skipped
>>> asyncio.run(edits())
[False, True, False, False]
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, fields
from typing import Any, Final

from telegram import InlineKeyboardMarkup

from infra.lru import LRU

log = logging.getLogger(__name__)

SIZE: Final = 4096  # messages whose content is remembered in this process
TTL_SECONDS: Final = 3600  # in Redis: a message older than this is edited again, to be sure
# In this process alone: trusted briefly, in case other instances (with no Redis to tell
# them apart) edited the message since; long enough to absorb a flood of the same press.
LOCAL_TTL_SECONDS: Final = 30.0
PREFIX: Final = "saboteur:content"
DIGEST: Final = 16  # bytes of each part's digest
UNKNOWN: Final = bytes(DIGEST)  # a part not known, as stored

MessageKey = tuple[int, int]  # chat id, message id
# The calls that edit a message (skipped when it shows what they set already), and those
# that send one (what it shows is noted, for later edits).
EDITS: Final = (
    "edit_message_text",
    "edit_message_caption",
    "edit_message_media",
    "edit_message_reply_markup",
)
SENDS: Final = ("send_message", "send_photo")


def fingerprint(*parts: object) -> bytes:
    """A short digest of what a part of a message shows."""
    digest = hashlib.blake2b(digest_size=DIGEST)
    for part in parts:
        digest.update(part if isinstance(part, bytes) else repr(part).encode())
        digest.update(b"\0")
    return digest.digest()


TEXT: Final = fingerprint("a text message: no file")


@dataclass(frozen=True)
class Shown:
    """What a message shows, or what an edit sets: each part's :func:`fingerprint` (None:
    not known, or kept by the edit)."""

    media: bytes | None = None  # its file (TEXT: none)
    body: bytes | None = None  # its text or caption
    markup: bytes | None = None  # its keyboard

    def shows(self, edit: Shown) -> bool:
        """Whether a message showing this shows every part ``edit`` sets already."""
        return all(
            getattr(edit, f.name) is None or getattr(edit, f.name) == getattr(self, f.name)
            for f in fields(self)
        )

    def after(self, edit: Shown) -> Shown:
        """What a message showing this shows once ``edit`` is made."""
        return Shown(
            *(
                getattr(edit, f.name)
                if getattr(edit, f.name) is not None
                else getattr(self, f.name)
                for f in fields(self)
            )
        )

    def encode(self) -> bytes:
        return b"".join(part or UNKNOWN for part in (self.media, self.body, self.markup))

    @staticmethod
    def decode(value: bytes) -> Shown:
        parts = [value[i : i + DIGEST] for i in range(0, 3 * DIGEST, DIGEST)]
        return Shown(*(None if p in (UNKNOWN, b"") else p for p in parts))


def markup_json(markup: Any) -> str:
    """A keyboard as Telegram shows it: one without buttons is none."""
    if isinstance(markup, InlineKeyboardMarkup) and any(markup.inline_keyboard):
        return markup.to_json()
    return "" if markup is None or isinstance(markup, InlineKeyboardMarkup) else repr(markup)


def shows(method: str, kwargs: dict[str, Any], picture: bytes | None = None) -> Shown:
    """What a message sent or edited by ``method`` with ``kwargs`` shows: the parts the
    method sets (``picture``: the digest of the file it sends, if known). A text edited
    without a keyboard loses its keyboard, as on Telegram."""
    markup = fingerprint(markup_json(kwargs.get("reply_markup")))
    match method:
        case "send_message" | "edit_message_text":
            return Shown(TEXT, fingerprint(str(kwargs.get("text") or "")), markup)
        case "send_photo":
            return Shown(picture, fingerprint(str(kwargs.get("caption") or "")), markup)
        case "edit_message_caption":
            return Shown(None, fingerprint(str(kwargs.get("caption") or "")), markup)
        case "edit_message_media":
            media = kwargs.get("media")
            caption = str(getattr(media, "caption", None) or "")
            # A file not known by its digest: the edit is never skipped, its file unknown.
            return Shown(picture or secrets.token_bytes(16), fingerprint(caption), markup)
    return Shown(markup=markup)  # edit_message_reply_markup


class ShownEdits:
    """What each message shows (see the module's docstring). ``skipping`` False: every
    edit is made, as before edits were compared (a benchmark's "before" column)."""

    def __init__(
        self,
        redis_url: str = "",
        size: int = SIZE,
        clock: Callable[[], float] = time.monotonic,
        *,
        skipping: bool = True,
    ) -> None:
        self.clock = clock
        self.skipping = skipping
        self.skipped = 0  # edits not sent in this process: the message showed them
        # message -> (what it shows, until when that is trusted)
        self._local: LRU[MessageKey, tuple[Shown, float]] = LRU(size)
        # message -> an edit under way in this process, and its outcome (made or not)
        self._flights: dict[MessageKey, tuple[Shown, asyncio.Future[bool]]] = {}
        self._redis: Any = None
        if redis_url:
            import redis.asyncio

            self._redis = redis.asyncio.Redis.from_url(redis_url)

    async def once(
        self,
        key: MessageKey,
        edit: Shown,
        make: Callable[[], Awaitable[Any]],
        made: Callable[[Any], bool] = lambda result: result is not None,
    ) -> Any:
        """Make the edit ``edit`` of message ``key`` by awaiting ``make()``, unless the
        message shows it already (then True, and nothing is sent). What it shows is
        noted when ``made(result)`` (Telegram confirmed the edit), else forgotten: the
        one road every edit of the bot takes (:mod:`tgbot.telegram.gateway`)."""
        if await self.unchanged(key, edit):
            self.skipped += 1
            return True  # the message shows this already: nothing to send
        flight = self.begin(key, edit)
        result = None
        try:
            result = await make()
        finally:  # made, or refused, failed or replaced: then what it shows is unknown
            await self.end(key, edit, flight, made(result))
        return result

    async def unchanged(self, key: MessageKey, edit: Shown) -> bool:
        """Whether the message shows what ``edit`` sets already (True: skip the edit).
        The same edit under way in this process is waited for first."""
        if not self.skipping:
            return False
        flight = self._flights.get(key)
        if flight is not None and flight[0] == edit and await asyncio.shield(flight[1]):
            return True
        before = await self.get(key)
        return before is not None and before.shows(edit)

    def begin(self, key: MessageKey, edit: Shown) -> asyncio.Future[bool]:
        """Note ``edit`` under way; :meth:`end` it with its outcome."""
        done: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._flights[key] = (edit, done)
        return done

    async def end(
        self, key: MessageKey, edit: Shown, flight: asyncio.Future[bool], made: bool
    ) -> None:
        """The edit begun as ``flight`` was made (Telegram confirmed it: the message
        shows it), or not (refused, failed, or its answer lost: unknown now)."""
        try:
            if made:
                await self.remember(key, edit)
            else:
                await self.forget(key)
        finally:
            if not flight.done():
                flight.set_result(made)
            if self._flights.get(key, (None, None))[1] is flight:
                del self._flights[key]

    async def get(self, key: MessageKey) -> Shown | None:
        """What the message shows, as far as known (None: nothing known)."""
        if self._redis is None:
            found = self._local.get(key)
            return found[0] if found is not None and found[1] > self.clock() else None
        try:
            value = await self._redis.get(self._name(key))
        except Exception:  # not knowing, the edit is made
            log.warning("could not read what a message shows", exc_info=True)
            return None
        return Shown.decode(value) if value else None

    async def remember(self, key: MessageKey, shown: Shown, *, anew: bool = False) -> None:
        """Telegram confirmed the message shows ``shown`` (the parts it sets; ``anew``: a
        message just sent, nothing else shown)."""
        before = None if anew else await self.get(key)
        now = (before or Shown()).after(shown)
        if self._redis is None:
            self._local[key] = (now, self.clock() + LOCAL_TTL_SECONDS)
            return
        try:
            await self._redis.set(self._name(key), now.encode(), ex=TTL_SECONDS)
        except Exception:
            log.warning("could not note what a message shows", exc_info=True)
            await self.forget(key)

    async def forget(self, key: MessageKey) -> None:
        """The message's content is unknown now (an edit failed halfway, say)."""
        self._local.pop(key, None)
        if self._redis is not None:
            try:
                await self._redis.delete(self._name(key))
            except Exception:
                log.warning("could not forget what a message shows", exc_info=True)

    async def close(self) -> None:
        if self._redis is not None:
            await self._redis.aclose()

    @staticmethod
    def _name(key: MessageKey) -> str:
        return f"{PREFIX}:{key[0]}:{key[1]}"
