"""The Telegram adapter's tables (registered on :data:`infra.schema.metadata`), the rows
:class:`infra.botstate.BotState` hands out (:class:`BotUser`, :class:`StoredMessage`), the
reads of one row it caches, and a group's ids across its migrations (:func:`group_chats`).
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    DateTime,
    Integer,
    PrimaryKeyConstraint,
    String,
    Table,
    select,
)
from sqlalchemy.engine import Connection

from infra.schema import metadata

bot_users = Table(
    "bot_users",
    metadata,
    Column("user_id", BigInteger, primary_key=True, autoincrement=False),
    Column("name", String(200), nullable=False),
    # The user's Telegram language (IETF tag as Telegram sends it), or a /language choice.
    Column("language", String(10), nullable=True),
    # Set when the user opened the private chat; cleared when they blocked the bot.
    Column("private_chat", Boolean, nullable=False),
    Column("updated_at", DateTime(timezone=True), nullable=False),
)

bot_chats = Table(
    "bot_chats",
    metadata,
    Column("chat_id", BigInteger, primary_key=True, autoincrement=False),
    Column("language", String(10), nullable=True),  # the group's override
    # Without an override: the Telegram language of whoever opened the group's last game.
    Column("default_language", String(10), nullable=True),
    Column("migrated_to", BigInteger, nullable=True),  # a group turned into a supergroup
    # The group's IANA time zone (``Europe/Warsaw``) for the times it is shown; None: UTC.
    Column("timezone", String(64), nullable=True),
    Column("updated_at", DateTime(timezone=True), nullable=False),
)

bot_messages = Table(
    "bot_messages",
    metadata,
    Column("stream_id", String(200), nullable=False),
    Column("chat_id", BigInteger, nullable=False),
    Column("role", String(20), nullable=False),  # "lobby", "board", "prompt"
    Column("message_id", BigInteger, nullable=False),
    Column("version", Integer, nullable=False),  # the game version it was drawn for
    PrimaryKeyConstraint("stream_id", "chat_id", "role", name="pk_bot_messages"),
)

# Who asked to be told in private when a new game opens in a group ("notify me").
bot_subscriptions = Table(
    "bot_subscriptions",
    metadata,
    Column("chat_id", BigInteger, nullable=False),
    Column("user_id", BigInteger, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    PrimaryKeyConstraint("chat_id", "user_id", name="pk_bot_subscriptions"),
)

# How far along the event log each announcer (by name) announced: every event up to
# ``position`` is announced, or its game is held by another instance.
announced_positions = Table(
    "announced_positions",
    metadata,
    Column("name", String(100), nullable=False),
    Column("position", BigInteger, nullable=False),
    PrimaryKeyConstraint("name", name="pk_announced_positions"),
)

# How far each announcer (by name) announced each game: a game's events up to ``version``
# are told. Claimed (compare-and-set) before its messages go out, so nothing is announced
# twice.
announced_games = Table(
    "announced_games",
    metadata,
    Column("name", String(100), nullable=False),
    Column("stream_id", String(200), nullable=False),
    Column("version", Integer, nullable=False),
    PrimaryKeyConstraint("name", "stream_id", name="pk_announced_games"),
)

BOT_TABLES = (
    bot_users,
    bot_chats,
    bot_messages,
    bot_subscriptions,
    announced_positions,
    announced_games,
)


@dataclass(frozen=True, slots=True)
class BotUser:
    user_id: int
    name: str
    language: str | None
    private_chat: bool


@dataclass(frozen=True, slots=True)
class StoredMessage:
    message_id: int
    version: int


def message_row(conn: Connection, key: tuple[str, int, str]) -> StoredMessage | None:
    stream_id, chat_id, role = key
    row = conn.execute(
        select(bot_messages.c.message_id, bot_messages.c.version).where(
            bot_messages.c.stream_id == stream_id,
            bot_messages.c.chat_id == chat_id,
            bot_messages.c.role == role,
        )
    ).first()
    return None if row is None else StoredMessage(row.message_id, row.version)


def user_row(conn: Connection, user_id: int) -> BotUser | None:
    row = conn.execute(select(bot_users).where(bot_users.c.user_id == user_id)).first()
    return None if row is None else BotUser(row.user_id, row.name, row.language, row.private_chat)


def chat_languages_row(conn: Connection, chat_id: int) -> tuple[str | None, str | None]:
    row = conn.execute(
        select(bot_chats.c.language, bot_chats.c.default_language).where(
            bot_chats.c.chat_id == chat_id
        )
    ).first()
    return (row[0], row[1]) if row is not None else (None, None)


def timezone_row(conn: Connection, chat_id: int) -> str | None:
    return conn.execute(select(bot_chats.c.timezone).where(bot_chats.c.chat_id == chat_id)).scalar()


def resolve(conn: Connection, chat_id: int) -> int:
    """The chat's current id, following its migrations (a loop stops where it closes)."""
    seen = {chat_id}
    while True:
        target = conn.execute(
            select(bot_chats.c.migrated_to).where(bot_chats.c.chat_id == chat_id)
        ).scalar()
        if target is None or target in seen:
            return chat_id
        seen.add(target)
        chat_id = target


def group_chats(conn: Connection, chat_id: int) -> list[int]:
    """The ids one group had: ``chat_id`` first, then the chats it migrated from or to
    (a group that became a supergroup changes id; its history and ratings go with it)."""
    found = [chat_id]
    frontier = [chat_id]
    c = bot_chats.c
    while frontier:
        rows = conn.execute(
            select(c.chat_id, c.migrated_to).where(
                c.chat_id.in_(frontier) | c.migrated_to.in_(frontier)
            )
        ).all()
        linked = {x for row in rows for x in row if x is not None}
        frontier = sorted(linked - set(found))
        found.extend(frontier)
    return found
