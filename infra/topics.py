"""Forum topics the bot has heard of: their names and whether they are open.

A forum supergroup's messages live in topics (each named by its thread id) or in General.
A game opened in a topic is played there (its id is in the game's creation event); what
the bot learns of the topic from Telegram — its name, from the messages sent in it and
their service messages, and that it was closed, reopened or deleted — is kept here, so
that private messages can name the topic and a game whose topic is closed or gone carries
on in General. A topic may have its own language, set by a group admin's ``/language``
in it (a topic without one speaks the group's). It is no game state: the event log never
depends on it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Final, Literal

from sqlalchemy import (
    BigInteger,
    Column,
    DateTime,
    Engine,
    PrimaryKeyConstraint,
    String,
    Table,
    select,
    update,
)

from infra.db import insert_for, reader, writer
from infra.schema import metadata

TopicState = Literal["open", "closed", "deleted"]
OPEN: Final = "open"
CLOSED: Final = "closed"
DELETED: Final = "deleted"

bot_topics = Table(
    "bot_topics",
    metadata,
    Column("chat_id", BigInteger, nullable=False),
    Column("topic", BigInteger, nullable=False),  # its thread id
    Column("name", String(200), nullable=True),  # None: never heard
    Column("state", String(10), nullable=False),  # "open", "closed" or "deleted"
    # The topic's own language (an admin's /language in it); None: the group's.
    Column("language", String(10), nullable=True),
    Column("updated_at", DateTime(timezone=True), nullable=False),
    PrimaryKeyConstraint("chat_id", "topic", name="pk_bot_topics"),
)


@dataclass(frozen=True, slots=True)
class Topic:
    name: str  # "" when the bot never heard it
    state: str = OPEN

    @property
    def open(self) -> bool:
        return self.state == OPEN


class ForumTopics:
    """Reads and writes :data:`bot_topics`; each write one short transaction."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def topic(self, chat_id: int, topic: int) -> Topic:
        """What the bot knows of the topic (an unknown one: open, with no name)."""
        with reader(self.engine) as conn:
            row = conn.execute(
                select(bot_topics.c.name, bot_topics.c.state).where(
                    bot_topics.c.chat_id == chat_id, bot_topics.c.topic == topic
                )
            ).first()
        return Topic("") if row is None else Topic(row.name or "", row.state)

    def learn(
        self, chat_id: int, topic: int, *, name: str | None = None, state: str | None = None
    ) -> bool:
        """Note the topic's name or state (None: unchanged); whether its state changed."""
        now = datetime.now(UTC)
        with writer(self.engine) as conn:
            row = conn.execute(
                select(bot_topics.c.name, bot_topics.c.state).where(
                    bot_topics.c.chat_id == chat_id, bot_topics.c.topic == topic
                )
            ).first()
            if row is None:
                conn.execute(
                    insert_for(conn, bot_topics)
                    .values(
                        chat_id=chat_id,
                        topic=topic,
                        name=name,
                        state=state or OPEN,
                        updated_at=now,
                    )
                    .on_conflict_do_nothing()
                )
                return state not in (None, OPEN)
            values: dict[str, object] = {"updated_at": now}
            if name is not None and name != row.name:
                values["name"] = name
            if state is not None and state != row.state:
                values["state"] = state
            if len(values) > 1:
                conn.execute(
                    update(bot_topics)
                    .where(bot_topics.c.chat_id == chat_id, bot_topics.c.topic == topic)
                    .values(**values)
                )
            return "state" in values

    def language(self, chat_id: int, topic: int) -> str | None:
        """The topic's own language (None: it follows the group's)."""
        with reader(self.engine) as conn:
            return conn.execute(
                select(bot_topics.c.language).where(
                    bot_topics.c.chat_id == chat_id, bot_topics.c.topic == topic
                )
            ).scalar()

    def set_language(self, chat_id: int, topic: int, language: str | None) -> None:
        """Give the topic its own language (None: back to the group's)."""
        now = datetime.now(UTC)
        with writer(self.engine) as conn:
            conn.execute(
                insert_for(conn, bot_topics)
                .values(chat_id=chat_id, topic=topic, state=OPEN, language=language, updated_at=now)
                .on_conflict_do_update(
                    index_elements=["chat_id", "topic"],
                    set_={"language": language, "updated_at": now},
                )
            )
