"""State of the Telegram adapter: who opened the private chat, languages, message ids.

None of this is game state (the event log is the only truth): it is what the bot needs to
talk to Telegram — whether it may message a user, in which language, which message holds a
game's board or a player's prompt, and how far the notifier has announced the event log.
Every table is registered on :data:`infra.schema.metadata` so one migration chain covers all;
the tables, their rows and the one-row reads are in :mod:`infra.bot_tables`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager, contextmanager
from datetime import UTC, datetime
from typing import Any, TypeVar

from sqlalchemy import Engine, delete, insert, select, update
from sqlalchemy.engine import Connection

from infra.bot_tables import (
    BotUser,
    StoredMessage,
    announced_games,
    announced_positions,
    bot_chats,
    bot_messages,
    bot_subscriptions,
    bot_users,
    chat_languages_row,
    group_chats,
    message_row,
    resolve,
    timezone_row,
    user_row,
)
from infra.db import insert_for, reader, writer
from infra.lru import LRU
from infra.notifications import RESET, Notice, notify

log = logging.getLogger(__name__)

# The rows it hands out, and a group's ids, are read from here too.
__all__ = ["BotState", "BotUser", "StoredMessage", "group_chats"]


def _now() -> datetime:
    return datetime.now(UTC)


K = TypeVar("K")
V = TypeVar("V")

# How many of each the process keeps in memory: enough for every game running at once on
# one instance, however many users and games went before.
CACHED_USERS = 20_000
CACHED_CHATS = 5_000
CACHED_MESSAGES = 20_000


class BotState:
    """Reads and writes the adapter's tables. Each write is one short transaction.

    Reads are cached in memory and written through. Other instances write these rows too:
    on PostgreSQL each write notifies them in its transaction (:mod:`infra.notifications`)
    and their listener hands the notice to :meth:`invalidate`, which drops the cached row;
    a read that was under way meanwhile answers with what it read but caches nothing.

    Reads and writes run in threads side by side. A write puts the new value in the cache
    as the last step of its transaction (writers of one row take turns, so the cache ends
    with the last one's value) and drops it again if the transaction fails; a read only
    fills a key nobody set meanwhile, so a row read just before a write committed never
    replaces the written value. Nothing is read back from a dict another thread may clear.
    """

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        # Bounded: the users, chats and messages used last (the rest is read again).
        self._users: LRU[int, BotUser | None] = LRU(CACHED_USERS)
        self._chat_languages: LRU[int, tuple[str | None, str | None]] = LRU(CACHED_CHATS)
        self._timezones: LRU[int, str | None] = LRU(CACHED_CHATS)
        self._resolved: LRU[int, int] = LRU(CACHED_CHATS)
        self._messages: LRU[tuple[str, int, str], StoredMessage | None] = LRU(CACHED_MESSAGES)
        # Bumped by every invalidation: a read that saw it change does not cache.
        self._generation = 0

    def _write(self) -> AbstractContextManager[Connection]:
        # Writes may run in threads side by side: on SQLite each takes the write lock at
        # once (BEGIN IMMEDIATE), so a read-then-write never fails on a stale snapshot.
        return writer(self.engine)

    def _cached(self, cache: dict[K, V], key: K, read: Callable[[Connection, K], V]) -> V:
        """The cached value, else the one read now, kept unless a writer set the key
        meanwhile (then the writer's, which is newer)."""
        try:
            return cache[key]
        except KeyError:
            pass
        generation = self._generation
        with reader(self.engine) as conn:
            found = read(conn, key)
        if generation != self._generation:  # another instance changed something meanwhile
            return found
        return cache.setdefault(key, found)

    def invalidate(self, notice: Notice) -> None:
        """Drop what ``notice`` (from another instance, or this one) says changed; a
        :data:`~infra.notifications.RESET` drops every cache. Thread-safe."""
        self._generation += 1
        topic, key = notice.topic, notice.key
        try:
            if topic == "user":
                self._users.pop(int(key), None)
            elif topic == "chat":
                self._chat_languages.pop(int(key), None)
                self._timezones.pop(int(key), None)
                self._resolved.clear()
            elif topic == "message":
                stream_id, chat_id, role = key.rsplit(":", 2)
                self._messages.pop((stream_id, int(chat_id), role), None)
            elif topic == RESET.topic:
                self._users.clear()
                self._chat_languages.clear()
                self._timezones.clear()
                self._resolved.clear()
                self._messages.clear()
        except ValueError:
            log.warning("unreadable notice %s", notice)

    @staticmethod
    @contextmanager
    def _caching(cache: dict[Any, Any], key: object) -> Iterator[None]:
        """Around a write that caches its new value: a failed write leaves no value."""
        try:
            yield
        except BaseException:
            cache.pop(key, None)
            raise

    # Users ---------------------------------------------------------------------------
    def user(self, user_id: int) -> BotUser | None:
        return self._cached(self._users, user_id, user_row)

    def users(self, user_ids: Iterable[int]) -> dict[int, BotUser]:
        ids = list(user_ids)
        if not ids:
            return {}
        with reader(self.engine) as conn:
            rows = conn.execute(select(bot_users).where(bot_users.c.user_id.in_(ids))).all()
        return {r.user_id: BotUser(r.user_id, r.name, r.language, r.private_chat) for r in rows}

    def save_user(
        self,
        user_id: int,
        name: str,
        *,
        language: str | None = None,
        private_chat: bool | None = None,
        keep_language: bool = True,
    ) -> None:
        """Create or update a user. ``keep_language`` keeps a language chosen earlier."""
        known = self.user(user_id)
        if (
            known is not None
            and known.name == name
            and (private_chat is None or known.private_chat == private_chat)
            and (
                language is None or known.language == language or (keep_language and known.language)
            )
        ):
            return  # nothing changes: no write
        with self._caching(self._users, user_id), self._write() as conn:
            row = conn.execute(select(bot_users).where(bot_users.c.user_id == user_id)).first()
            if row is None:
                conn.execute(
                    insert(bot_users).values(
                        user_id=user_id,
                        name=name,
                        language=language,
                        private_chat=bool(private_chat),
                        updated_at=_now(),
                    )
                )
            else:
                values: dict[str, object] = {"name": name, "updated_at": _now()}
                if language is not None and not (keep_language and row.language):
                    values["language"] = language
                if private_chat is not None:
                    values["private_chat"] = private_chat
                conn.execute(update(bot_users).where(bot_users.c.user_id == user_id).values(values))
            notify(conn, "user", user_id)
            self._users[user_id] = user_row(conn, user_id)

    def set_user_language(self, user_id: int, name: str, language: str) -> None:
        self.save_user(user_id, name, language=language, keep_language=False)

    def set_private_chat(self, user_id: int, opened: bool) -> None:
        with self._caching(self._users, user_id), self._write() as conn:
            conn.execute(
                update(bot_users)
                .where(bot_users.c.user_id == user_id)
                .values(private_chat=opened, updated_at=_now())
            )
            notify(conn, "user", user_id)
            self._users[user_id] = user_row(conn, user_id)

    # Chats ---------------------------------------------------------------------------
    def chat_language(self, chat_id: int) -> str | None:
        """The group's chosen language (``/language``, the lobby's settings), if any."""
        return self.chat_languages(chat_id)[0]

    def chat_languages(self, chat_id: int) -> tuple[str | None, str | None]:
        """The group's chosen language and the one learned from its last game's creator."""
        return self._cached(self._chat_languages, chat_id, chat_languages_row)

    def set_chat_default_language(self, chat_id: int, language: str) -> None:
        """The language the group speaks when it chose none (its last game's creator's)."""
        if self.chat_languages(chat_id)[1] != language:
            self._upsert_chat(chat_id, default_language=language)

    def _upsert_chat(self, chat_id: int, **values: object) -> None:
        with (
            self._caching(self._chat_languages, chat_id),
            self._caching(self._timezones, chat_id),
            self._write() as conn,
        ):
            found = conn.execute(
                select(bot_chats.c.chat_id).where(bot_chats.c.chat_id == chat_id)
            ).first()
            if found is None:
                conn.execute(insert(bot_chats).values(chat_id=chat_id, updated_at=_now(), **values))
            else:
                conn.execute(
                    update(bot_chats)
                    .where(bot_chats.c.chat_id == chat_id)
                    .values(updated_at=_now(), **values)
                )
            notify(conn, "chat", chat_id)
            self._chat_languages[chat_id] = chat_languages_row(conn, chat_id)
            self._timezones[chat_id] = timezone_row(conn, chat_id)

    def set_chat_language(self, chat_id: int, language: str | None) -> None:
        self._upsert_chat(chat_id, language=language)

    def chat_timezone(self, chat_id: int) -> str | None:
        """The group's time zone (an IANA name such as ``Europe/Warsaw``); None: UTC."""
        return self._cached(self._timezones, chat_id, timezone_row)

    def set_chat_timezone(self, chat_id: int, zone: str | None) -> None:
        self._upsert_chat(chat_id, timezone=zone)

    def set_migrated(self, old_chat_id: int, new_chat_id: int) -> None:
        """Remember that a group became a supergroup; its language, time zone and
        subscribers go with it."""
        language, learned = self.chat_languages(old_chat_id)
        zone = self.chat_timezone(old_chat_id)
        self._upsert_chat(old_chat_id, migrated_to=new_chat_id)
        # Every chat that led to the old id now leads where the new one does.
        with reader(self.engine) as conn:
            target = resolve(conn, new_chat_id)
        for chat_id, resolved in list(self._resolved.items()):
            if resolved == old_chat_id:
                self._resolved[chat_id] = target
        self._resolved[old_chat_id] = target
        if language is not None or learned is not None or zone is not None:
            self._upsert_chat(
                new_chat_id, language=language, default_language=learned, timezone=zone
            )

    def resolve_chat(self, chat_id: int) -> int:
        """The chat's current id, following group-to-supergroup migrations."""
        return self._cached(self._resolved, chat_id, resolve)

    def chats_migrated_to(self, chat_id: int) -> list[int]:
        """Earlier ids of a chat (groups that became this supergroup)."""
        found: list[int] = []
        frontier = [chat_id]
        with reader(self.engine) as conn:
            while frontier:
                rows = conn.execute(
                    select(bot_chats.c.chat_id).where(bot_chats.c.migrated_to.in_(frontier))
                ).scalars()
                frontier = [r for r in rows if r not in found and r != chat_id]
                found.extend(frontier)
        return found

    # Subscriptions -------------------------------------------------------------------
    def subscribed(self, chat_id: int, user_id: int) -> bool:
        """Whether the user asked to be told when a new game opens in the group."""
        with reader(self.engine) as conn:
            found = conn.execute(
                select(bot_subscriptions.c.user_id).where(
                    bot_subscriptions.c.chat_id.in_(self.chat_ids(chat_id)),
                    bot_subscriptions.c.user_id == user_id,
                )
            ).first()
        return found is not None

    def subscribe(self, chat_id: int, user_id: int, on: bool) -> None:
        """Tell the user of the group's new games (``on``), or stop telling them."""
        chats = self.chat_ids(chat_id)
        with self._write() as conn:
            conn.execute(
                delete(bot_subscriptions).where(
                    bot_subscriptions.c.chat_id.in_(chats), bot_subscriptions.c.user_id == user_id
                )
            )
            if on:
                conn.execute(
                    insert(bot_subscriptions).values(
                        chat_id=chats[0], user_id=user_id, created_at=_now()
                    )
                )

    def subscribers(self, chat_id: int) -> list[int]:
        """Who asked to be told of the group's new games, in the order they asked."""
        with reader(self.engine) as conn:
            rows = conn.execute(
                select(bot_subscriptions.c.user_id)
                .where(bot_subscriptions.c.chat_id.in_(self.chat_ids(chat_id)))
                .order_by(bot_subscriptions.c.created_at, bot_subscriptions.c.user_id)
            ).scalars()
            return list(dict.fromkeys(int(user) for user in rows))

    def chat_ids(self, chat_id: int) -> list[int]:
        """The group's current id first, then every id it had before."""
        current = self.resolve_chat(chat_id)
        return [current, *self.chats_migrated_to(current)]

    # Messages ------------------------------------------------------------------------
    def message(self, stream_id: str, chat_id: int, role: str) -> StoredMessage | None:
        return self._cached(self._messages, (stream_id, chat_id, role), message_row)

    def fresh_message(self, stream_id: str, chat_id: int, role: str) -> StoredMessage | None:
        """:meth:`message` read from the database, not the cache (under a lock another
        instance held just before, its notice may not have arrived yet)."""
        self._messages.pop((stream_id, chat_id, role), None)
        return self.message(stream_id, chat_id, role)

    def forget_game(self, stream_id: str) -> None:
        """Drop the game's message ids from memory (it ended: they are read again from
        the database if ever asked)."""
        for key in [k for k in list(self._messages) if k[0] == stream_id]:
            self._messages.pop(key, None)

    def forget_cached_messages(self) -> None:
        """Read every message id from the database again (another instance may have
        posted and recorded new ones while this one was not announcing)."""
        self._messages.clear()

    def save_message(
        self, stream_id: str, chat_id: int, role: str, message_id: int, version: int
    ) -> None:
        key = (stream_id, chat_id, role)
        with self._caching(self._messages, key), self._write() as conn:
            conn.execute(
                delete(bot_messages).where(
                    bot_messages.c.stream_id == stream_id,
                    bot_messages.c.chat_id == chat_id,
                    bot_messages.c.role == role,
                )
            )
            conn.execute(
                insert(bot_messages).values(
                    stream_id=stream_id,
                    chat_id=chat_id,
                    role=role,
                    message_id=message_id,
                    version=version,
                )
            )
            notify(conn, "message", f"{stream_id}:{chat_id}:{role}")
            self._messages[key] = StoredMessage(message_id, version)

    def forget_message(self, stream_id: str, chat_id: int, role: str) -> None:
        key = (stream_id, chat_id, role)
        with self._caching(self._messages, key), self._write() as conn:
            conn.execute(
                delete(bot_messages).where(
                    bot_messages.c.stream_id == stream_id,
                    bot_messages.c.chat_id == chat_id,
                    bot_messages.c.role == role,
                )
            )
            notify(conn, "message", f"{stream_id}:{chat_id}:{role}")
            self._messages[key] = None

    # How far along the log ----------------------------------------------------------
    def position(self, name: str = "notifier") -> int:
        with reader(self.engine) as conn:
            value = conn.execute(
                select(announced_positions.c.position).where(announced_positions.c.name == name)
            ).scalar()
        return int(value or 0)

    def save_position(self, position: int, name: str = "notifier") -> None:
        """Record the position; it only moves forward (a late writer cannot move it back)."""
        with self._write() as conn:
            conn.execute(
                insert_for(conn, announced_positions)
                .values(name=name, position=position)
                .on_conflict_do_nothing(index_elements=["name"])
            )
            conn.execute(
                update(announced_positions)
                .where(
                    announced_positions.c.name == name,
                    announced_positions.c.position < position,
                )
                .values(position=position)
            )

    # Per game -----------------------------------------------------------------------
    def game_versions(self, stream_ids: Iterable[str], name: str = "notifier") -> dict[str, int]:
        """How far each game was announced (games never announced are absent)."""
        ids = list(stream_ids)
        if not ids:
            return {}
        with reader(self.engine) as conn:
            rows = conn.execute(
                select(announced_games.c.stream_id, announced_games.c.version).where(
                    announced_games.c.name == name, announced_games.c.stream_id.in_(ids)
                )
            ).all()
        return {row.stream_id: int(row.version) for row in rows}

    def claim_game(
        self,
        stream_id: str,
        old: int | None,
        new: int,
        name: str = "notifier",
        then: Callable[[Connection], object] | None = None,
    ) -> bool:
        """Compare-and-set a game's announced version from ``old`` (None: never announced)
        to ``new``; False when another writer changed it first. ``then`` runs in the same
        transaction once the claim succeeded (the durable outbox records what the claimed
        events call for: both commit, or neither)."""
        with self._write() as conn:
            if old is None:  # RETURNING: an insert's rowcount is not reliable everywhere
                inserted = conn.execute(
                    insert_for(conn, announced_games)
                    .values(name=name, stream_id=stream_id, version=new)
                    .on_conflict_do_nothing(index_elements=["name", "stream_id"])
                    .returning(announced_games.c.version)
                ).first()
                claimed = inserted is not None
            else:
                claimed = bool(
                    conn.execute(
                        update(announced_games)
                        .where(
                            announced_games.c.name == name,
                            announced_games.c.stream_id == stream_id,
                            announced_games.c.version == old,
                        )
                        .values(version=new)
                    ).rowcount
                )
            if claimed and then is not None:
                then(conn)
            return claimed
