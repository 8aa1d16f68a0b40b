"""A local fake of the Telegram Bot API, served over real HTTP for python-telegram-bot.

It is the offline demo's Telegram and the bot tests' Telegram.

The bot under test is a real ``telegram.ext.Application`` pointed at this server with
``ApplicationBuilder().base_url(...)``; it long-polls ``getUpdates`` and calls methods as
it would against Telegram. Tests inject updates (a user sends text, presses a button) and
read back what the bot did from :attr:`FakeBotAPI.calls`.

It refuses what the Bot API's documentation says Telegram refuses, as Telegram answers
(400 "Bad Request: ..."), each refusal noted in :attr:`FakeBotAPI.refusals`: HTML other
than its documented tags, closed and nested as its entities may be; a text over 4,096,
a caption over 1,024 or an alert over 200 characters, counted after the HTML is parsed, in
UTF-16 code units (:mod:`tgbot.presenter.telegram_html`); an edit that changes nothing ("message is
not modified"); callback data outside 1–64 bytes; a Mini App (``web_app``) button outside
a private chat; a deep link whose ``start`` or ``startgroup`` payload is not 1–64 of
``A–Z a–z 0–9 _ -``; bot commands and descriptions outside their limits; a photo over
10 MB, over 10,000 pixels of width and height together, or 20 times wider than high.

Failure modes Telegram really produces are available on demand: a user who blocked the
bot (403), a private chat the user never opened (403), flood control (429 with
``retry_after``) and a group upgraded to a supergroup (400 with ``migrate_to_chat_id``).

Forum supergroups (:meth:`FakeBotAPI.forum`) have topics, each with its thread id (the id
of its ``forum_topic_created`` service message); "General" has none. A message sent with
``message_thread_id`` goes to that topic, one sent without it to General, and a reply
follows the message it answers. A thread id that is no topic (General's, a reply chain's)
is refused "message thread not found", a deleted topic "TOPIC_DELETED", a closed one
"TOPIC_CLOSED" unless the bot manages topics there (an admin with ``can_manage_topics``);
edits and deletes need no thread id. A user's message in a topic carries
``message_thread_id`` and ``is_topic_message`` (and, as Telegram sends it, the topic's
creation message as ``reply_to_message``); closing, reopening and renaming a topic post
their service messages (``forum_topic_closed``, ``forum_topic_reopened``,
``forum_topic_edited``); deleting one posts none, and its messages go.

>>> api = FakeBotAPI()
>>> alice = api.user(1, "Alice", "es")
>>> alice["language_code"]
'es'
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import re
import socket
import struct
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from aiohttp import BodyPartReader, web

from tgbot.presenter.telegram_html import (
    ALERT_LIMIT,
    CAPTION_LIMIT,
    TEXT_LIMIT,
    HtmlError,
    Parsed,
    parse,
    utf16,
)

# The Mini App serves the offline demo's sign-in beside this token only
# (tgbot.miniapp.api.FAKE_TOKEN).
TOKEN = "123456:TEST-fake-token"
BOT_ID = 123456
BOT_USERNAME = "saboteur_test_bot"

JSON = dict[str, Any]
T = TypeVar("T")

# Parameters python-telegram-bot sends as raw strings (everything else is JSON-encoded).
_STRING_PARAMS = frozenset(
    {
        "text",
        "caption",
        "parse_mode",
        "callback_query_id",
        "url",
        "photo",
        "document",
        "animation",
        "file_id",
        "secret_token",
        "inline_message_id",
        "business_connection_id",
        "message_effect_id",
        "description",
        "short_description",
        "language_code",
    }
)
_SEND_METHODS = frozenset({"sendMessage", "sendPhoto", "sendAnimation", "sendDocument"})
_EDIT_METHODS = frozenset(
    {"editMessageText", "editMessageCaption", "editMessageMedia", "editMessageReplyMarkup"}
)
NOT_MODIFIED = (
    "Bad Request: message is not modified: specified new message content and reply markup "
    "are exactly the same as a current content and reply markup of the message"
)
CALLBACK_DATA_BYTES = 64  # an inline button's callback data: 1–64 bytes
DEEP_LINK = re.compile(r"[A-Za-z0-9_-]{1,64}")  # a start or startgroup payload
BOT_LINK = re.compile(r"https?://(?:t|telegram)\.me/([A-Za-z0-9_]+)/?(?:\?(.*))?$")
COMMAND = re.compile(r"[a-z0-9_]{1,32}")  # a bot command, without its slash
COMMANDS = 100  # at most this many in one setMyCommands
COMMAND_DESCRIPTION = 256
DESCRIPTION = 512  # setMyDescription
SHORT_DESCRIPTION = 120  # setMyShortDescription
PHOTO_BYTES = 10 * 1024 * 1024
PHOTO_SIDES = 10_000  # width and height together
PHOTO_RATIO = 20


@dataclass(frozen=True)
class Call:
    """One request the bot made: method name, decoded parameters, uploaded files."""

    method: str
    params: Mapping[str, Any]
    files: Mapping[str, bytes] = field(default_factory=dict)
    at: float = field(default_factory=time.monotonic, compare=False)  # when it came

    def __getitem__(self, key: str) -> Any:
        return self.params[key]

    def get(self, key: str, default: Any = None) -> Any:
        return self.params.get(key, default)


@dataclass(frozen=True)
class UserAction:
    """Something a user did, in order with the bot's calls: ``at`` is how many calls the
    bot had made by then. A text they sent, or a button they pressed (its label)."""

    at: int
    chat_id: int
    user_id: int
    text: str | None = None
    button: str | None = None
    query_id: str | None = None


@dataclass(frozen=True)
class Button:
    text: str
    callback_data: str | None = None
    url: str | None = None
    web_app: str | None = None  # a Mini App button's page


@dataclass(frozen=True)
class Refusal:
    """A call Telegram would have refused (400): its index in :attr:`FakeBotAPI.calls`,
    its method and what Telegram answered."""

    index: int
    method: str
    description: str


class ApiError(Exception):
    """Raised inside a handler to answer ``{"ok": false, ...}``."""

    def __init__(
        self, code: int, description: str, parameters: Mapping[str, Any] | None = None
    ) -> None:
        super().__init__(description)
        self.code = code
        self.description = description
        self.parameters = dict(parameters or {})


@dataclass
class _StoredFile:
    file_id: str
    unique_id: str
    data: bytes
    width: int
    height: int
    name: str


def png_size(data: bytes) -> tuple[int, int]:
    """Width and height from a PNG header (0, 0 for anything else).

    >>> png_size(b"not a png")
    (0, 0)
    """
    if data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) >= 24:
        width, height = struct.unpack(">II", data[16:24])
        return int(width), int(height)
    if data[:6] in (b"GIF87a", b"GIF89a") and len(data) >= 10:
        width, height = struct.unpack("<HH", data[6:10])
        return int(width), int(height)
    return 0, 0


class FakeBotAPI:
    """An in-memory Telegram: chats, messages, a queue of updates, a log of calls."""

    def __init__(self, token: str = TOKEN) -> None:
        self.token = token
        self.port = 0
        self.calls: list[Call] = []
        self.results: dict[int, Any] = {}  # call index -> what Telegram answered, if ok
        # Calls refused by Telegram's rules (400), not by failures asked for (fail_next).
        self.refusals: list[Refusal] = []
        self.actions: list[UserAction] = []  # what users sent and pressed, in order
        self._labels: dict[str, str] = {}  # callback data -> the text of its button
        self.bot: JSON = {
            "id": BOT_ID,
            "is_bot": True,
            "first_name": "Saboteur",
            "username": BOT_USERNAME,
            "can_join_groups": True,
            "can_read_all_group_messages": False,
            "supports_inline_queries": False,
        }
        self.users: dict[int, JSON] = {}
        self.chats: dict[int, JSON] = {}
        # chat id -> message id -> message (as returned to the bot, kept current on edits)
        self.messages: dict[int, dict[int, JSON]] = {}
        self.commands: dict[str, list[JSON]] = {}
        # The bot's profile texts by language code ("": for every other language).
        self.descriptions: dict[str, str] = {}
        self.short_descriptions: dict[str, str] = {}
        self.webhook: JSON = {"url": ""}
        self.webhook_secret = ""
        self.blocked: set[int] = set()  # users who blocked the bot
        self.opened: set[int] = set()  # users who opened the private chat with the bot
        self.migrated: dict[int, int] = {}  # old group id -> supergroup id
        # Forum supergroups: chat id -> thread id -> the topic (its name, whether closed,
        # its creation message); deleted topics' ids; chats whose General is closed; chats
        # where the bot is an admin with can_manage_topics (it may write to closed topics).
        self.topics: dict[int, dict[int, JSON]] = {}
        self.deleted_topics: dict[int, set[int]] = {}
        self.general_closed: set[int] = set()
        self.topic_managers: set[int] = set()
        self.admins: dict[int, set[int]] = {}  # chat id -> user ids (first one: creator)
        self.members: dict[int, set[int]] = {}
        self.answered: dict[str, JSON] = {}  # callback query id -> answer params
        # method -> failures to answer, each for one chat (or any chat: None)
        self._failures: dict[str, list[tuple[ApiError, int | None]]] = {}
        self._delays: dict[str, float] = {}  # method -> seconds each call takes
        self._updates: list[JSON] = []
        self._update_ids = itertools.count(1)
        self._message_ids: dict[int, itertools.count[int]] = {}
        self._callback_ids = itertools.count(1)
        self._file_ids = itertools.count(1)
        self._files: dict[str, _StoredFile] = {}
        self._clock = itertools.count(1_700_000_000)
        self._changed: asyncio.Condition | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._runner: web.AppRunner | None = None

    # ---------------------------------------------------------------- server lifecycle

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/bot"

    @property
    def base_file_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/file/bot"

    def application_builder(self) -> Any:
        """A ``telegram.ext.ApplicationBuilder`` wired to this server."""
        from telegram.ext import ApplicationBuilder

        return (
            ApplicationBuilder()
            .token(self.token)
            .base_url(self.base_url)
            .base_file_url(self.base_file_url)
        )

    async def start(self) -> None:
        self._changed = asyncio.Condition()
        app = web.Application(client_max_size=50 * 1024 * 1024)
        app.router.add_route("*", "/bot{token}/{method}", self._handle)
        app.router.add_get("/file/bot{token}/{path:.*}", self._download)
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=0.1)
        await self._runner.setup()
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        self.port = sock.getsockname()[1]
        await web.SockSite(self._runner, sock).start()

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> FakeBotAPI:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    # ---------------------------------------------------------------- world building

    def user(
        self,
        user_id: int,
        first_name: str,
        language_code: str | None = "en",
        *,
        username: str | None = None,
        opened: bool = True,
    ) -> JSON:
        """A Telegram user. ``opened=False``: they never started the private chat, so the
        bot cannot write to them until they do (403, as Telegram answers)."""
        user: JSON = {"id": user_id, "is_bot": False, "first_name": first_name}
        if language_code is not None:
            user["language_code"] = language_code
        if username is not None:
            user["username"] = username
        self.users[user_id] = user
        self.chats[user_id] = {"id": user_id, "type": "private", "first_name": first_name}
        if opened:
            self.opened.add(user_id)
        return user

    def group(
        self,
        chat_id: int,
        title: str = "Mine",
        *,
        kind: str = "group",
        admins: tuple[int, ...] = (),
    ) -> JSON:
        """A group (``kind="group"``) or supergroup; ids are negative, as on Telegram."""
        chat: JSON = {"id": chat_id, "type": kind, "title": title}
        self.chats[chat_id] = chat
        self.admins[chat_id] = set(admins)
        self.members.setdefault(chat_id, set()).update(admins)
        return chat

    def supergroup(self, chat_id: int, title: str = "Mine", admins: tuple[int, ...] = ()) -> JSON:
        return self.group(chat_id, title, kind="supergroup", admins=admins)

    def forum(self, chat_id: int, title: str = "Mine", admins: tuple[int, ...] = ()) -> JSON:
        """A forum supergroup (``is_forum``): its messages are in topics (see
        :meth:`create_topic`), or in General, which has no thread id."""
        chat = self.group(chat_id, title, kind="supergroup", admins=admins)
        chat["is_forum"] = True
        self.topics.setdefault(chat_id, {})
        self._next_message_id(chat_id)  # 1: General's, which no thread id names
        return chat

    def _topic_admin(self, chat: JSON, by: JSON | int | None) -> JSON:
        if not chat.get("is_forum"):
            raise ValueError(f"chat {chat['id']} is not a forum")
        if by is not None:
            return self._user(by)
        admins = sorted(self.admins.get(chat["id"], set()))
        return self.users.get(admins[0], self.bot) if admins else self.bot

    def create_topic(
        self,
        chat: JSON | int,
        name: str,
        *,
        by: JSON | int | None = None,
        icon_color: int = 7322096,
    ) -> int:
        """A topic created in forum ``chat`` (by an admin): its ``forum_topic_created``
        service message is delivered; returns its thread id (that message's id)."""
        chat_json = self._chat(chat)
        sender = self._topic_admin(chat_json, by)
        thread = self._next_message_id(chat_json["id"])
        created: JSON = {
            "message_id": thread,
            "message_thread_id": thread,
            "is_topic_message": True,
            "date": next(self._clock),
            "chat": chat_json,
            "from": sender,
            "forum_topic_created": {"name": name, "icon_color": icon_color},
        }
        self.messages.setdefault(chat_json["id"], {})[thread] = created
        self.topics[chat_json["id"]][thread] = {"name": name, "closed": False, "created": created}
        self._push({"message": created})
        return thread

    def _topic_service(
        self, chat: JSON, thread: int, by: JSON | int | None, **content: Any
    ) -> None:
        sender = self._topic_admin(chat, by)
        topic = self.topics[chat["id"]][thread]
        message = self._incoming(
            chat,
            sender,
            message_thread_id=thread,
            is_topic_message=True,
            reply_to_message=topic["created"],
            **content,
        )
        self._push({"message": message})

    def close_topic(self, chat: JSON | int, thread: int, *, by: JSON | int | None = None) -> None:
        """An admin closes a topic (``forum_topic_closed``): only admins who manage topics
        may write there now."""
        chat_json = self._chat(chat)
        self.topics[chat_json["id"]][thread]["closed"] = True
        self._topic_service(chat_json, thread, by, forum_topic_closed={})

    def reopen_topic(self, chat: JSON | int, thread: int, *, by: JSON | int | None = None) -> None:
        """An admin reopens a closed topic (``forum_topic_reopened``)."""
        chat_json = self._chat(chat)
        self.topics[chat_json["id"]][thread]["closed"] = False
        self._topic_service(chat_json, thread, by, forum_topic_reopened={})

    def rename_topic(
        self, chat: JSON | int, thread: int, name: str, *, by: JSON | int | None = None
    ) -> None:
        """An admin renames a topic (``forum_topic_edited`` with its new name)."""
        chat_json = self._chat(chat)
        topic = self.topics[chat_json["id"]][thread]
        topic["name"] = name
        topic["created"] = {
            **topic["created"],
            "forum_topic_created": {**topic["created"]["forum_topic_created"], "name": name},
        }
        self._topic_service(chat_json, thread, by, forum_topic_edited={"name": name})

    def delete_topic(self, chat: JSON | int, thread: int) -> None:
        """An admin deletes a topic with all its messages; no service message tells of it."""
        chat_json = self._chat(chat)
        del self.topics[chat_json["id"]][thread]
        self.deleted_topics.setdefault(chat_json["id"], set()).add(thread)
        kept = self.messages.get(chat_json["id"], {})
        for message_id in [i for i, m in kept.items() if m.get("message_thread_id") == thread]:
            if kept[message_id].get("is_topic_message"):
                del kept[message_id]

    def close_general(self, chat: JSON | int) -> None:
        """An admin closes General: a send without a thread id is refused there too."""
        self.general_closed.add(self._chat(chat)["id"])

    def in_topic(self, chat: JSON | int, thread: int | None) -> list[JSON]:
        """The bot's messages in a forum's topic (``thread`` None: in General), oldest
        first, as edited."""
        return [
            m
            for m in self.messages_in(chat)
            if (m.get("message_thread_id") if m.get("is_topic_message") else None) == thread
        ]

    def block(self, user_id: int) -> None:
        """The user blocked the bot: messages to them fail with 403."""
        self.blocked.add(user_id)

    def unblock(self, user_id: int) -> None:
        self.blocked.discard(user_id)

    def fail_next(
        self,
        method: str,
        code: int = 429,
        description: str | None = None,
        *,
        retry_after: int | None = None,
        times: int = 1,
        chat_id: int | None = None,
    ) -> None:
        """The next ``times`` calls of ``method`` (to ``chat_id`` only, if given) fail.
        429 carries ``retry_after``; a 5xx reaches the bot as a network error."""
        parameters: JSON = {}
        if code == 429:
            retry_after = 1 if retry_after is None else retry_after
            description = description or f"Too Many Requests: retry after {retry_after}"
            parameters["retry_after"] = retry_after
        error = ApiError(code, description or "Bad Request: simulated failure", parameters)
        self._failures.setdefault(method, []).extend([(error, chat_id)] * times)

    def slow(self, method: str, seconds: float) -> None:
        """Every later call of ``method`` takes ``seconds`` before it is answered."""
        self._delays[method] = seconds

    def migrate(self, group_id: int, supergroup_id: int) -> None:
        """Upgrade a group to a supergroup: the old id answers 400 with
        ``migrate_to_chat_id``, and both service messages are delivered."""
        old = self.chats[group_id]
        self.migrated[group_id] = supergroup_id
        new = {"id": supergroup_id, "type": "supergroup", "title": old.get("title", "")}
        self.chats[supergroup_id] = new
        self.admins[supergroup_id] = set(self.admins.get(group_id, set()))
        self.members[supergroup_id] = set(self.members.get(group_id, set()))
        anyone = next(iter(self.admins[group_id] or self.members.get(group_id) or {BOT_ID}))
        sender = self.users.get(anyone, self.bot)
        self._push({"message": self._incoming(old, sender, migrate_to_chat_id=supergroup_id)})
        self._push({"message": self._incoming(new, sender, migrate_from_chat_id=group_id)})

    # ---------------------------------------------------------------- injecting updates

    def send_text(
        self,
        chat: JSON | int,
        user: JSON | int,
        text: str,
        reply_to: JSON | None = None,
        *,
        thread: int | None = None,
    ) -> JSON:
        """The user writes ``text`` in ``chat`` (in reply to message ``reply_to``; in a
        forum, in topic ``thread``, or in General when None); a leading ``/command``
        (optionally ``/command@botname``) gets its ``bot_command`` entity, as Telegram
        sends it."""
        chat_json = self._chat(chat)
        user_json = self._user(user)
        extra: JSON = {"text": text}
        if reply_to is not None:
            extra["reply_to_message"] = reply_to
        extra.update(self._user_thread(chat_json, thread, reply_to))
        if text.startswith("/"):
            command = text.split(maxsplit=1)[0]
            extra["entities"] = [
                {
                    "type": "bot_command",
                    "offset": 0,
                    "length": len(command.encode("utf-16-le")) // 2,
                }
            ]
        if chat_json["type"] == "private":
            self.opened.add(user_json["id"])
            self.blocked.discard(user_json["id"])
        self.members.setdefault(chat_json["id"], set()).add(user_json["id"])
        message = self._incoming(chat_json, user_json, **extra)
        self.actions.append(UserAction(len(self.calls), chat_json["id"], user_json["id"], text))
        self._push({"message": message})
        return message

    def press(self, chat: JSON | int, user: JSON | int, message_id: int, callback_data: str) -> str:
        """The user presses an inline button under message ``message_id``; returns the
        callback query id (see :attr:`answered`)."""
        chat_json = self._chat(chat)
        user_json = self._user(user)
        if chat_json["type"] != "private":  # whoever sees a group's message is in it
            self.members.setdefault(chat_json["id"], set()).add(user_json["id"])
        message = self.messages.get(chat_json["id"], {}).get(message_id)
        if message is None:  # a message the fake never saw: make a plausible one
            message = {
                "message_id": message_id,
                "date": next(self._clock),
                "chat": chat_json,
                "from": self.bot,
                "text": "…",
            }
        query_id = str(next(self._callback_ids))
        label = self._label(message, callback_data)
        self.actions.append(
            UserAction(
                len(self.calls), chat_json["id"], user_json["id"], button=label, query_id=query_id
            )
        )
        self._push(
            {
                "callback_query": {
                    "id": query_id,
                    "from": user_json,
                    "message": message,
                    "chat_instance": str(chat_json["id"]),
                    "data": callback_data,
                }
            }
        )
        return query_id

    def _user_thread(self, chat: JSON, thread: int | None, reply_to: JSON | None) -> JSON:
        """Where a user's message in ``chat`` goes, as its fields say: in a topic, its
        thread id and ``is_topic_message`` (and the topic's creation message as the one it
        answers, unless it answers another); a reply in General, the thread id of the
        reply chain, which is no topic (no ``is_topic_message``)."""
        if not chat.get("is_forum"):
            if thread is not None:
                raise ValueError(f"chat {chat['id']} is not a forum")
            return {}
        if thread is None:
            if reply_to is None:
                return {}
            return {"message_thread_id": reply_to.get("message_thread_id", reply_to["message_id"])}
        topic = self.topics[chat["id"]].get(thread)
        if topic is None:
            raise ValueError(f"no topic {thread} in chat {chat['id']}")
        fields: JSON = {"message_thread_id": thread, "is_topic_message": True}
        if reply_to is None:
            fields["reply_to_message"] = topic["created"]
        return fields

    def _label(self, message: JSON, callback_data: str) -> str:
        """The text of the button carrying ``callback_data``: on the message as it is, else
        as the bot last drew it (a button pressed before an edit reached the user)."""
        for row in self.keyboard(message):
            for button in row:
                if button.callback_data == callback_data:
                    return button.text
        return self._labels.get(callback_data, "?")

    @classmethod
    def _check_markup(cls, chat: JSON, markup: Any) -> None:
        """Telegram refuses a Mini App (``web_app``) button outside private chats, and
        callback data outside 1–64 bytes; a button's deep link must be one (see
        :meth:`_check_link`)."""
        rows = markup.get("inline_keyboard", []) if isinstance(markup, dict) else ()
        for button in (b for row in rows for b in row):
            if "web_app" in button and chat["type"] != "private":
                raise ApiError(400, "Bad Request: BUTTON_TYPE_INVALID")
            data = button.get("callback_data")
            if data is not None and not 0 < len(str(data).encode()) <= CALLBACK_DATA_BYTES:
                raise ApiError(400, "Bad Request: BUTTON_DATA_INVALID")
            if button.get("url"):
                cls._check_link(str(button["url"]))

    @staticmethod
    def _check_link(url: str) -> None:
        """A link to a bot with a ``start`` or ``startgroup`` payload Telegram cannot pass
        on (up to 64 characters of ``A–Z a–z 0–9 _ -``): refused, as the link would not
        start the bot with it."""
        link = BOT_LINK.match(url)
        if link is None or not link.group(2):
            return
        for pair in link.group(2).split("&"):
            key, _, value = pair.partition("=")
            if key in ("start", "startgroup") and value and not DEEP_LINK.fullmatch(value):
                raise ApiError(400, f"Bad Request: invalid {key} parameter in {url}")

    @classmethod
    def _text(
        cls, value: Any, parse_mode: Any, *, limit: int, too_long: str, empty: str | None = None
    ) -> Parsed:
        """A text or caption as Telegram parses it (HTML when ``parse_mode`` says so),
        refused if it does not parse, is longer than ``limit`` UTF-16 code units after
        parsing, or (``empty`` given) is empty then."""
        text = "" if value is None else str(value)
        if str(parse_mode or "").upper() == "HTML":
            try:
                parsed = parse(text)
            except HtmlError as error:
                raise ApiError(400, f"Bad Request: {error.description}") from None
        else:
            parsed = Parsed(text, ())
        if parsed.length > limit:
            raise ApiError(400, f"Bad Request: {too_long}")
        if empty is not None and not parsed.text.strip():
            raise ApiError(400, f"Bad Request: {empty}")
        for entity in parsed.entities:
            if entity.url:
                cls._check_link(entity.url)
        return parsed

    @classmethod
    def _caption(cls, params: Mapping[str, Any]) -> Parsed:
        return cls._text(
            params.get("caption"),
            params.get("parse_mode"),
            limit=CAPTION_LIMIT,
            too_long="message caption is too long",
        )

    @staticmethod
    def _check_photo(stored: _StoredFile) -> None:
        """Telegram's limits for a photo: 10 MB; width and height at most 10,000 together,
        and one at most 20 times the other."""
        if len(stored.data) > PHOTO_BYTES:
            raise ApiError(400, "Bad Request: PHOTO_SAVE_FILE_INVALID")
        width, height = stored.width, stored.height
        if (
            width
            and height
            and (
                width + height > PHOTO_SIDES
                or max(width, height) > PHOTO_RATIO * min(width, height)
            )
        ):
            raise ApiError(400, "Bad Request: PHOTO_INVALID_DIMENSIONS")

    def _learn_labels(self, markup: Any) -> None:
        for row in (markup or {}).get("inline_keyboard", []) if isinstance(markup, dict) else ():
            for button in row:
                if button.get("callback_data"):
                    self._labels[button["callback_data"]] = str(button.get("text", ""))

    def chat_member(
        self,
        chat: JSON | int,
        user: JSON | int,
        old_status: str,
        new_status: str,
        *,
        by: JSON | int | None = None,
    ) -> None:
        """A ``chat_member`` update (someone joined, left, was promoted...)."""
        chat_json = self._chat(chat)
        user_json = self._user(user)
        members = self.members.setdefault(chat_json["id"], set())
        if new_status in ("left", "kicked"):
            members.discard(user_json["id"])
            self.admins.get(chat_json["id"], set()).discard(user_json["id"])
        else:
            members.add(user_json["id"])
            if new_status in ("administrator", "creator"):
                self.admins.setdefault(chat_json["id"], set()).add(user_json["id"])
        self._push(
            {
                "chat_member": {
                    "chat": chat_json,
                    "from": self._user(by) if by is not None else user_json,
                    "date": next(self._clock),
                    "old_chat_member": self._member_json(user_json, old_status),
                    "new_chat_member": self._member_json(user_json, new_status),
                }
            }
        )

    def bot_added(self, chat: JSON | int, by: JSON | int, status: str = "member") -> None:
        """A ``my_chat_member`` update: the bot was added to ``chat``."""
        chat_json = self._chat(chat)
        self._push(
            {
                "my_chat_member": {
                    "chat": chat_json,
                    "from": self._user(by),
                    "date": next(self._clock),
                    "old_chat_member": self._member_json(self.bot, "left"),
                    "new_chat_member": self._member_json(self.bot, status),
                }
            }
        )

    def push_update(self, update: JSON) -> None:
        """Queue any raw update (``update_id`` is added)."""
        self._push(update)

    # ---------------------------------------------------------------- reading results

    def calls_of(self, method: str) -> list[Call]:
        return [call for call in self.calls if call.method == method]

    def messages_in(self, chat: JSON | int) -> list[JSON]:
        """Messages the bot sent to ``chat`` and not deleted, oldest first, as edited."""
        chat_id = chat if isinstance(chat, int) else chat["id"]
        return [
            m
            for _, m in sorted(self.messages.get(chat_id, {}).items())
            if m.get("from", {}).get("id") == BOT_ID
        ]

    def last_message(self, chat: JSON | int) -> JSON:
        messages = self.messages_in(chat)
        if not messages:
            raise AssertionError(f"the bot sent nothing to chat {chat}")
        return messages[-1]

    def texts_in(self, chat: JSON | int) -> list[str]:
        return [m.get("text") or m.get("caption") or "" for m in self.messages_in(chat)]

    def keyboard(self, message: JSON) -> list[list[Button]]:
        rows = message.get("reply_markup", {}).get("inline_keyboard", [])
        return [
            [
                Button(
                    b["text"], b.get("callback_data"), b.get("url"), b.get("web_app", {}).get("url")
                )
                for b in row
            ]
            for row in rows
        ]

    def last_keyboard(self, chat: JSON | int) -> list[Button]:
        """Inline buttons (flattened) of the newest bot message in ``chat`` that has any."""
        for message in reversed(self.messages_in(chat)):
            rows = self.keyboard(message)
            if rows:
                return [button for row in rows for button in row]
        return []

    def file_bytes(self, file_id: str) -> bytes:
        return self._files[file_id].data

    def photo_bytes(self, message: JSON) -> bytes:
        """The uploaded bytes of a photo (largest size), animation or document message."""
        if "photo" in message:
            return self.file_bytes(message["photo"][-1]["file_id"])
        for kind in ("animation", "document"):
            if kind in message:
                return self.file_bytes(message[kind]["file_id"])
        raise AssertionError("message has no file")

    async def wait_for(self, predicate: Callable[[], T | None], timeout: float = 5.0) -> T:
        """Wait until ``predicate()`` is truthy (checked after every request the bot makes
        and every update it fetches); return its value. Fails after ``timeout`` seconds."""
        assert self._changed is not None, "server not started"
        async with self._changed:
            try:
                async with asyncio.timeout(timeout):
                    while not (value := predicate()):
                        await self._changed.wait()
            except TimeoutError:
                recent = [c.method for c in self.calls[-10:]]
                raise AssertionError(
                    f"condition not met in {timeout}s; last calls: {recent}"
                ) from None
        return value

    async def wait_for_call(
        self, method: str, timeout: float = 5.0, *, after: int = 0, **params: Any
    ) -> Call:
        """The first call (index ≥ ``after``) of ``method`` whose params include ``params``."""

        def found() -> Call | None:
            for call in self.calls[after:]:
                if call.method == method and all(
                    call.params.get(k) == v for k, v in params.items()
                ):
                    return call
            return None

        return await self.wait_for(found, timeout)

    async def wait_idle(self, timeout: float = 5.0) -> None:
        """Wait until the bot fetched every queued update."""
        await self.wait_for(lambda: not self._updates, timeout)

    # ---------------------------------------------------------------- HTTP handling

    async def _handle(self, request: web.Request) -> web.Response:
        method = request.match_info["method"]
        if request.match_info["token"] != self.token:
            return self._json({"ok": False, "error_code": 401, "description": "Unauthorized"}, 401)
        params, files = await self._read(request)
        index = len(self.calls)
        if method != "getUpdates":
            self.calls.append(Call(method, params, files))
        if method in self._delays:
            await asyncio.sleep(self._delays[method])
        failure = self._failure(method, params)
        try:
            if failure is not None:
                raise failure
            handler = getattr(self, f"_api_{method}", None)
            if handler is None:
                raise ApiError(404, "Not Found: method not found")
            result = await handler(params, files)
            if method != "getUpdates":
                self.results[index] = result
            body: JSON = {"ok": True, "result": result}
            status = 200
        except ApiError as error:
            if error is not failure and error.code == 400 and method != "getUpdates":
                self.refusals.append(Refusal(index, method, error.description))
            body = {"ok": False, "error_code": error.code, "description": error.description}
            if error.parameters:
                body["parameters"] = error.parameters
            status = error.code
        await self._notify()
        return self._json(body, status)

    def _failure(self, method: str, params: JSON) -> ApiError | None:
        failures = self._failures.get(method) or []
        for index, (error, chat_id) in enumerate(failures):
            if chat_id is None or str(params.get("chat_id")) == str(chat_id):
                del failures[index]
                return error
        return None

    async def _download(self, request: web.Request) -> web.Response:
        stored = self._files.get(request.match_info["path"])
        if stored is None:
            raise web.HTTPNotFound()
        return web.Response(body=stored.data)

    @staticmethod
    def _json(body: JSON, status: int = 200) -> web.Response:
        return web.Response(text=json.dumps(body), status=status, content_type="application/json")

    async def _read(self, request: web.Request) -> tuple[JSON, dict[str, bytes]]:
        params: JSON = {}
        files: dict[str, bytes] = {}
        if request.content_type == "multipart/form-data":
            reader = await request.multipart()
            while (part := await reader.next()) is not None:
                if not isinstance(part, BodyPartReader):
                    continue
                name = part.name or ""
                data = await part.read()
                if part.filename:
                    files[name] = bytes(data)
                else:
                    params[name] = self._decode(name, bytes(data).decode())
        elif request.content_type == "application/json":
            params = dict(await request.json())
        else:
            form = await request.post()
            for name, value in form.items():
                params[name] = self._decode(name, str(value))
        params.update({k: self._decode(k, v) for k, v in request.query.items()})
        return params, files

    @staticmethod
    def _decode(name: str, value: str) -> Any:
        if name in _STRING_PARAMS:
            return value
        try:
            return json.loads(value)
        except ValueError:
            return value

    async def _notify(self) -> None:
        if self._changed is not None:
            async with self._changed:
                self._changed.notify_all()

    def _push(self, update: JSON) -> None:
        self._updates.append({"update_id": next(self._update_ids), **update})
        if self._changed is not None:
            with contextlib.suppress(RuntimeError):  # no running loop: nobody is waiting
                self._tasks.add(asyncio.get_running_loop().create_task(self._notify()))
                self._tasks = {t for t in self._tasks if not t.done()}

    # ---------------------------------------------------------------- helpers

    def _chat(self, chat: JSON | int) -> JSON:
        if isinstance(chat, int):
            if chat not in self.chats:
                raise KeyError(f"unknown chat {chat}: create it with user() or group()")
            return self.chats[chat]
        return chat

    def _user(self, user: JSON | int) -> JSON:
        return self.users[user] if isinstance(user, int) else user

    @staticmethod
    def _member_json(user: JSON, status: str) -> JSON:
        member: JSON = {"status": status, "user": user}
        if status == "administrator":
            member.update(
                {
                    "can_be_edited": False,
                    "is_anonymous": False,
                    "can_manage_chat": True,
                    "can_delete_messages": True,
                    "can_manage_video_chats": True,
                    "can_restrict_members": True,
                    "can_promote_members": False,
                    "can_change_info": True,
                    "can_invite_users": True,
                    "can_post_stories": False,
                    "can_edit_stories": False,
                    "can_delete_stories": False,
                }
            )
        elif status == "creator":
            member["is_anonymous"] = False
        elif status == "restricted":
            member.update({"is_member": True, "until_date": 0})
        elif status == "kicked":
            member["until_date"] = 0
        return member

    def _next_message_id(self, chat_id: int) -> int:
        return next(self._message_ids.setdefault(chat_id, itertools.count(1)))

    def _incoming(self, chat: JSON, sender: JSON, **content: Any) -> JSON:
        message: JSON = {
            "message_id": self._next_message_id(chat["id"]),
            "date": next(self._clock),
            "chat": chat,
            "from": sender,
            **content,
        }
        self.messages.setdefault(chat["id"], {})[message["message_id"]] = message
        return message

    def _target_chat(self, params: JSON) -> JSON:
        chat_id = params.get("chat_id")
        if isinstance(chat_id, str) and chat_id.lstrip("-").isdigit():
            chat_id = int(chat_id)
        if chat_id in self.migrated:
            raise ApiError(
                400,
                "Bad Request: group chat was upgraded to a supergroup chat",
                {"migrate_to_chat_id": self.migrated[chat_id]},
            )
        if not isinstance(chat_id, int) or chat_id not in self.chats:
            raise ApiError(400, "Bad Request: chat not found")
        return self.chats[chat_id]

    def _writable_chat(self, params: JSON) -> JSON:
        chat = self._target_chat(params)
        if chat["type"] == "private":
            if chat["id"] in self.blocked:
                raise ApiError(403, "Forbidden: bot was blocked by the user")
            if chat["id"] not in self.opened:
                raise ApiError(403, "Forbidden: bot can't initiate conversation with a user")
        return chat

    def _message(self, params: JSON) -> JSON:
        chat = self._target_chat(params)
        message = self.messages.get(chat["id"], {}).get(params.get("message_id"))  # type: ignore[arg-type]
        if message is None:
            raise ApiError(400, "Bad Request: message to edit not found")
        return message

    def _store_file(self, data: bytes, name: str) -> _StoredFile:
        number = next(self._file_ids)
        width, height = png_size(data)
        stored = _StoredFile(f"file-{number}", f"u{number}", data, width, height, name)
        self._files[stored.file_id] = stored
        return stored

    def _file(self, value: Any, files: Mapping[str, bytes], field_name: str) -> _StoredFile:
        """Resolve an uploaded file, an ``attach://`` reference or a known file id."""
        if isinstance(value, str) and value.startswith("attach://"):
            key = value.removeprefix("attach://")
            if key not in files:
                raise ApiError(400, f"Bad Request: file {key} not attached")
            return self._store_file(files[key], key)
        if field_name in files:
            return self._store_file(files[field_name], field_name)
        if isinstance(value, str) and value in self._files:
            return self._files[value]
        if isinstance(value, str) and value.startswith("http"):
            return self._store_file(b"", value)
        raise ApiError(400, "Bad Request: wrong file identifier/HTTP URL specified")

    @staticmethod
    def _photo_sizes(stored: _StoredFile) -> list[JSON]:
        sizes = []
        for scale in (4, 1):  # a thumbnail, then the original
            sizes.append(
                {
                    "file_id": stored.file_id if scale == 1 else f"{stored.file_id}-thumb",
                    "file_unique_id": stored.unique_id + ("" if scale == 1 else "t"),
                    "width": stored.width // scale,
                    "height": stored.height // scale,
                    "file_size": len(stored.data) // scale,
                }
            )
        return sizes

    def _media_content(self, kind: str, stored: _StoredFile, params: Mapping[str, Any]) -> JSON:
        content: JSON = {}
        if kind == "photo":
            content["photo"] = self._photo_sizes(stored)
        elif kind == "animation":
            content["animation"] = {
                "file_id": stored.file_id,
                "file_unique_id": stored.unique_id,
                "width": stored.width,
                "height": stored.height,
                "duration": 1,
                "file_size": len(stored.data),
            }
            # Telegram shows an animation as a document too.
            content["document"] = {"file_id": stored.file_id, "file_unique_id": stored.unique_id}
        else:
            content["document"] = {
                "file_id": stored.file_id,
                "file_unique_id": stored.unique_id,
                "file_name": stored.name,
                "file_size": len(stored.data),
            }
        if params.get("caption"):
            content["caption"] = params["caption"]
        return content

    def _thread(self, chat: JSON, params: JSON) -> int | None:
        """The topic a message sent with ``params`` goes to (None: General, or a chat
        without topics), as Telegram decides it; refused when it may not go there."""
        thread = params.get("message_thread_id")
        if thread is None:
            reply = params.get("reply_parameters") or {}
            replied_id = reply.get("message_id") if isinstance(reply, dict) else None
            replied_id = replied_id or params.get("reply_to_message_id")
            replied = self.messages.get(chat["id"], {}).get(replied_id)  # type: ignore[arg-type]
            if replied is not None and replied.get("is_topic_message"):
                thread = replied["message_thread_id"]  # a reply follows what it answers
        else:
            thread = int(thread)
        if not chat.get("is_forum"):
            if thread is not None and thread not in self.messages.get(chat["id"], {}):
                raise ApiError(400, "Bad Request: message thread not found")
            return None
        if thread is None:
            if chat["id"] in self.general_closed and chat["id"] not in self.topic_managers:
                raise ApiError(400, "Bad Request: TOPIC_CLOSED")
            return None
        if thread in self.deleted_topics.get(chat["id"], set()):
            raise ApiError(400, "Bad Request: TOPIC_DELETED")
        topic = self.topics[chat["id"]].get(thread)
        if topic is None:  # General's id, a reply chain's, any other number
            raise ApiError(400, "Bad Request: message thread not found")
        if topic["closed"] and chat["id"] not in self.topic_managers:
            raise ApiError(400, "Bad Request: TOPIC_CLOSED")
        return thread

    def _bot_message(self, chat: JSON, params: JSON, content: JSON) -> JSON:
        self._check_markup(chat, params.get("reply_markup"))
        thread = self._thread(chat, params)
        message: JSON = {
            "message_id": self._next_message_id(chat["id"]),
            "date": next(self._clock),
            "chat": chat,
            "from": self.bot,
            **content,
        }
        if thread is not None:
            message["message_thread_id"] = thread
            message["is_topic_message"] = True
        markup = params.get("reply_markup")
        if isinstance(markup, dict) and any(markup.get("inline_keyboard") or ()):
            message["reply_markup"] = markup
            self._learn_labels(markup)
        self.messages.setdefault(chat["id"], {})[message["message_id"]] = message
        return message

    # ---------------------------------------------------------------- API methods

    async def _api_getMe(self, params: JSON, files: dict[str, bytes]) -> JSON:
        return self.bot

    async def _api_logOut(self, params: JSON, files: dict[str, bytes]) -> bool:
        return True

    async def _api_close(self, params: JSON, files: dict[str, bytes]) -> bool:
        return True

    async def _api_getUpdates(self, params: JSON, files: dict[str, bytes]) -> list[JSON]:
        offset = int(params.get("offset") or 0)
        limit = int(params.get("limit") or 100)
        timeout = float(params.get("timeout") or 0)
        if offset:
            self._updates = [u for u in self._updates if u["update_id"] >= offset]
            await self._notify()
        if not self._updates and timeout > 0:
            assert self._changed is not None
            async with self._changed:
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(timeout):
                        while not self._updates:
                            await self._changed.wait()
        allowed = params.get("allowed_updates")
        batch = [
            u for u in self._updates[:limit] if not allowed or any(key in u for key in allowed)
        ]
        return batch

    async def _api_setWebhook(self, params: JSON, files: dict[str, bytes]) -> bool:
        self.webhook = {"url": params.get("url", "")}
        self.webhook_secret = str(params.get("secret_token") or "")
        return True

    async def deliver_webhook(self, secret: str | None = None) -> list[int]:
        """POST every queued update to the webhook, as Telegram does, with the secret
        token it was set with (or ``secret``); updates answered 200 leave the queue, the
        others stay to be delivered again. Returns the HTTP statuses, in order."""
        import aiohttp

        token = self.webhook_secret if secret is None else secret
        headers = {"X-Telegram-Bot-Api-Secret-Token": token} if token else {}
        statuses: list[int] = []
        async with aiohttp.ClientSession() as session:
            for update in list(self._updates):
                async with session.post(
                    self.webhook["url"], json=update, headers=headers
                ) as response:
                    statuses.append(response.status)
                if response.status == 200:
                    self._updates.remove(update)
        return statuses

    async def _api_deleteWebhook(self, params: JSON, files: dict[str, bytes]) -> bool:
        self.webhook = {"url": ""}
        if params.get("drop_pending_updates"):
            self._updates.clear()
        return True

    async def _api_getWebhookInfo(self, params: JSON, files: dict[str, bytes]) -> JSON:
        return {**self.webhook, "has_custom_certificate": False, "pending_update_count": 0}

    def _commands_key(self, params: JSON) -> str:
        scope = params.get("scope") or {"type": "default"}
        return json.dumps([scope, params.get("language_code") or ""], sort_keys=True)

    async def _api_setMyCommands(self, params: JSON, files: dict[str, bytes]) -> bool:
        commands = list(params.get("commands", []))
        if len(commands) > COMMANDS:
            raise ApiError(400, "Bad Request: BOT_COMMANDS_TOO_MUCH")
        for command in commands:
            if not COMMAND.fullmatch(str(command.get("command", ""))):
                raise ApiError(400, "Bad Request: BOT_COMMAND_INVALID")
            if not 0 < utf16(str(command.get("description", ""))) <= COMMAND_DESCRIPTION:
                raise ApiError(400, "Bad Request: BOT_COMMAND_DESCRIPTION_INVALID")
        self.commands[self._commands_key(params)] = commands
        return True

    async def _api_deleteMyCommands(self, params: JSON, files: dict[str, bytes]) -> bool:
        self.commands.pop(self._commands_key(params), None)
        return True

    async def _api_getMyCommands(self, params: JSON, files: dict[str, bytes]) -> list[JSON]:
        return self.commands.get(self._commands_key(params), [])

    def description_for(self, language: str | None, *, short: bool = False) -> str:
        """The (short) description a user of ``language`` sees: the one set for their
        language, else the default one, else none."""
        texts = self.short_descriptions if short else self.descriptions
        return texts.get(language or "") or texts.get("", "")

    @staticmethod
    def _set_profile_text(texts: dict[str, str], params: JSON, name: str, limit: int) -> bool:
        # An empty text (or none) removes the language's own one, as on Telegram.
        text = str(params.get(name) or "")
        language = str(params.get("language_code") or "")
        if utf16(text) > limit:
            raise ApiError(400, f"Bad Request: {name} is too long")
        if text:
            texts[language] = text
        else:
            texts.pop(language, None)
        return True

    async def _api_setMyDescription(self, params: JSON, files: dict[str, bytes]) -> bool:
        return self._set_profile_text(self.descriptions, params, "description", DESCRIPTION)

    async def _api_getMyDescription(self, params: JSON, files: dict[str, bytes]) -> JSON:
        language = str(params.get("language_code") or "")
        return {"description": self.descriptions.get(language, "")}

    async def _api_setMyShortDescription(self, params: JSON, files: dict[str, bytes]) -> bool:
        texts = self.short_descriptions
        return self._set_profile_text(texts, params, "short_description", SHORT_DESCRIPTION)

    async def _api_getMyShortDescription(self, params: JSON, files: dict[str, bytes]) -> JSON:
        language = str(params.get("language_code") or "")
        return {"short_description": self.short_descriptions.get(language, "")}

    async def _api_sendMessage(self, params: JSON, files: dict[str, bytes]) -> JSON:
        chat = self._writable_chat(params)
        text = params.get("text", "")
        self._text(
            text,
            params.get("parse_mode"),
            limit=TEXT_LIMIT,
            too_long="message is too long",
            empty="message text is empty",
        )
        return self._bot_message(chat, params, {"text": text})

    async def _api_sendChatAction(self, params: JSON, files: dict[str, bytes]) -> bool:
        chat = self._writable_chat(params)
        self._thread(chat, params)
        return True

    async def _send_media(self, kind: str, params: JSON, files: dict[str, bytes]) -> JSON:
        chat = self._writable_chat(params)
        self._caption(params)
        stored = self._file(params.get(kind), files, kind)
        if kind == "photo":
            self._check_photo(stored)
        return self._bot_message(chat, params, self._media_content(kind, stored, params))

    async def _api_sendPhoto(self, params: JSON, files: dict[str, bytes]) -> JSON:
        return await self._send_media("photo", params, files)

    async def _api_sendAnimation(self, params: JSON, files: dict[str, bytes]) -> JSON:
        return await self._send_media("animation", params, files)

    async def _api_sendDocument(self, params: JSON, files: dict[str, bytes]) -> JSON:
        return await self._send_media("document", params, files)

    def _edit(self, params: JSON, changes: JSON, drop: tuple[str, ...] = ()) -> JSON:
        message = self._message(params)
        if message.get("from", {}).get("id") != BOT_ID:
            raise ApiError(400, "Bad Request: message can't be edited")
        markup = params.get("reply_markup")
        new = {k: v for k, v in message.items() if k not in drop} | changes
        if isinstance(markup, dict) and any(markup.get("inline_keyboard") or ()):
            self._check_markup(message["chat"], markup)
            new["reply_markup"] = markup
            self._learn_labels(markup)
        else:  # no keyboard, or one without buttons: none is shown
            new.pop("reply_markup", None)
        if self._content(new) == self._content(message):
            raise ApiError(400, NOT_MODIFIED)
        new["edit_date"] = next(self._clock)
        self.messages[message["chat"]["id"]][message["message_id"]] = new
        return new

    @staticmethod
    def _content(message: JSON) -> tuple[Any, ...]:
        """What a message shows, as Telegram compares it for "message is not modified":
        its text or caption as read (the HTML parsed), its file, its keyboard."""
        shown: list[Any] = []
        for name in ("text", "caption"):
            value = message.get(name)
            try:
                shown.append(parse(value) if value else None)
            except HtmlError:
                shown.append(value)
        media = next((message[k] for k in ("photo", "animation", "document") if k in message), None)
        if isinstance(media, list):
            media = media[-1]
        shown.append(media.get("file_unique_id") if isinstance(media, dict) else None)
        shown.append(json.dumps(message.get("reply_markup"), sort_keys=True))
        return tuple(shown)

    async def _api_editMessageText(self, params: JSON, files: dict[str, bytes]) -> JSON:
        message = self._message(params)
        if "text" not in message:
            raise ApiError(400, "Bad Request: there is no text in the message to edit")
        self._text(
            params.get("text", ""),
            params.get("parse_mode"),
            limit=TEXT_LIMIT,
            too_long="message is too long",
            empty="message text is empty",
        )
        return self._edit(params, {"text": params.get("text", "")})

    async def _api_editMessageCaption(self, params: JSON, files: dict[str, bytes]) -> JSON:
        message = self._message(params)
        if "text" in message:
            raise ApiError(400, "Bad Request: there is no caption in the message to edit")
        self._caption(params)
        caption = params.get("caption")
        if caption:
            return self._edit(params, {"caption": caption})
        return self._edit(params, {}, drop=("caption",))

    async def _api_editMessageMedia(self, params: JSON, files: dict[str, bytes]) -> JSON:
        message = self._message(params)
        if "text" in message:
            raise ApiError(400, "Bad Request: there is no media in the message to edit")
        media = params.get("media")
        if not isinstance(media, dict):
            raise ApiError(400, "Bad Request: can't parse InputMedia")
        kind = media.get("type", "photo")
        self._caption(media)
        stored = self._file(media.get("media"), files, "media")
        if kind == "photo":
            self._check_photo(stored)
        content = self._media_content(kind, stored, media)
        # The same file with the same caption and keyboard: not modified (see _edit).
        return self._edit(params, content, drop=("photo", "animation", "document", "caption"))

    async def _api_editMessageReplyMarkup(self, params: JSON, files: dict[str, bytes]) -> JSON:
        return self._edit(params, {})

    async def _api_deleteMessage(self, params: JSON, files: dict[str, bytes]) -> bool:
        message = self._message(params)
        del self.messages[message["chat"]["id"]][message["message_id"]]
        return True

    async def _api_answerCallbackQuery(self, params: JSON, files: dict[str, bytes]) -> bool:
        query_id = params.get("callback_query_id", "")
        if utf16(str(params.get("text") or "")) > ALERT_LIMIT:
            raise ApiError(400, "Bad Request: MESSAGE_TOO_LONG")
        if query_id in self.answered:
            raise ApiError(
                400,
                "Bad Request: query is too old and response timeout expired or query ID is invalid",
            )
        self.answered[query_id] = params
        return True

    async def _api_getChat(self, params: JSON, files: dict[str, bytes]) -> JSON:
        chat = self._target_chat(params)
        return {"accent_color_id": 0, "max_reaction_count": 11, **chat}

    def _status(self, chat: JSON, user_id: int) -> str:
        if chat["type"] == "private":
            return "member"
        admins = sorted(self.admins.get(chat["id"], set()))
        if admins and user_id == admins[0]:
            return "creator"
        if user_id in admins:
            return "administrator"
        return "member" if user_id in self.members.get(chat["id"], set()) else "left"

    async def _api_getChatMember(self, params: JSON, files: dict[str, bytes]) -> JSON:
        chat = self._target_chat(params)
        user_id = int(params["user_id"])
        user = self.bot if user_id == BOT_ID else self.users.get(user_id)
        if user is None:
            raise ApiError(400, "Bad Request: user not found")
        status = "administrator" if user_id == BOT_ID else self._status(chat, user_id)
        return self._member_json(user, status)

    async def _api_getChatAdministrators(self, params: JSON, files: dict[str, bytes]) -> list[JSON]:
        chat = self._target_chat(params)
        if chat["type"] == "private":
            raise ApiError(400, "Bad Request: there are no administrators in the private chat")
        return [
            self._member_json(self.users[user_id], self._status(chat, user_id))
            for user_id in sorted(self.admins.get(chat["id"], set()))
            if user_id in self.users
        ]

    async def _api_getChatMemberCount(self, params: JSON, files: dict[str, bytes]) -> int:
        chat = self._target_chat(params)
        return len(self.members.get(chat["id"], set())) + 1

    async def _api_getFile(self, params: JSON, files: dict[str, bytes]) -> JSON:
        stored = self._files.get(params.get("file_id", ""))
        if stored is None:
            raise ApiError(400, "Bad Request: invalid file_id")
        return {
            "file_id": stored.file_id,
            "file_unique_id": stored.unique_id,
            "file_size": len(stored.data),
            "file_path": stored.file_id,
        }
