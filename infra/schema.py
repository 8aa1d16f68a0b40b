"""Tables: the event log, its helpers (snapshots, processed commands) and read models.

Only ``events`` is the truth. Snapshots and read models can be dropped and rebuilt.
The immutability triggers on ``events`` live in the migrations (see ``alembic/``).
"""

from __future__ import annotations

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Column,
    DateTime,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    PrimaryKeyConstraint,
    String,
    Table,
    UniqueConstraint,
    false,
)
from sqlalchemy.dialects.postgresql import JSONB

metadata = MetaData(
    naming_convention={
        "ix": "ix_%(column_0_label)s",
        "uq": "uq_%(table_name)s_%(column_0_name)s",
        "pk": "pk_%(table_name)s",
    }
)

# SQLite only auto-increments an INTEGER PRIMARY KEY.
Position = BigInteger().with_variant(Integer(), "sqlite")
Json = JSON().with_variant(JSONB(), "postgresql")

events = Table(
    "events",
    metadata,
    Column("position", Position, primary_key=True, autoincrement=True),
    Column("stream_id", String(200), nullable=False),
    Column("version", Integer, nullable=False),
    Column("type", String(100), nullable=False),
    Column("schema_version", Integer, nullable=False),
    Column("payload", Json, nullable=False),
    Column("metadata", Json, nullable=False),
    Column("recorded_at", DateTime(timezone=True), nullable=False),
    # The stream's hash chain (infra.chain): the predecessor's hash and this event's. A row
    # inserted around the event store gets "" and fails `saboteur-bot verify`.
    Column("prev_hash", String(64), nullable=False, server_default=""),
    Column("hash", String(64), nullable=False, server_default=""),
    UniqueConstraint("stream_id", "version", name="uq_events_stream_version"),
)

snapshots = Table(
    "snapshots",
    metadata,
    Column("stream_id", String(200), primary_key=True),
    Column("version", Integer, nullable=False),
    Column("state_kind", String(200), nullable=False),
    Column("state", LargeBinary, nullable=False),
    Column("taken_at", DateTime(timezone=True), nullable=False),
)

processed_commands = Table(
    "processed_commands",
    metadata,
    Column("stream_id", String(200), nullable=False),
    Column("idempotency_key", String(200), nullable=False),
    # The versions the command appended: first..last, or last = first - 1 when none.
    Column("first_version", Integer, nullable=False),
    Column("last_version", Integer, nullable=False),
    Column("processed_at", DateTime(timezone=True), nullable=False),
    PrimaryKeyConstraint("stream_id", "idempotency_key", name="pk_processed_commands"),
)

projector_positions = Table(
    "projector_positions",
    metadata,
    Column("name", String(100), primary_key=True),
    Column("position", BigInteger, nullable=False),
)

games = Table(
    "games",
    metadata,
    Column("stream_id", String(200), primary_key=True),
    Column("chat_id", BigInteger, nullable=True),
    # The forum topic (thread id) the game was opened in; None: the chat itself.
    Column("topic", BigInteger, nullable=True),
    Column("status", String(20), nullable=False),
    Column("edition", String(20), nullable=True),
    Column("players", Json, nullable=False),
    Column("round", Integer, nullable=False),
    Column("current_player", BigInteger, nullable=True),
    Column("decision_id", Integer, nullable=True),
    Column("decision_kind", String(20), nullable=True),
    Column("deadline", DateTime(timezone=True), nullable=True),
    # A practice game (one person, computer players): its players' figures ignore it.
    Column("practice", Boolean, nullable=False, server_default=false()),
    Column("version", Integer, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("updated_at", DateTime(timezone=True), nullable=False),
    Index("ix_games_chat_status", "chat_id", "status"),
    Index("ix_games_deadline", "deadline"),
)

player_stats = Table(
    "player_stats",
    metadata,
    Column("player_id", BigInteger, primary_key=True, autoincrement=False),
    Column("name", String(200), nullable=False),
    Column("games", Integer, nullable=False),
    Column("wins", Integer, nullable=False),
    Column("rounds_won", Integer, nullable=False),
    Column("gold", Integer, nullable=False),
)

READ_MODEL_TABLES = (games, player_stats)
