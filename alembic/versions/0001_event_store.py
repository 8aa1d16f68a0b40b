"""Event store: events (immutable), snapshots, processed commands, read models.

Revision ID: 0001
Revises:
Create Date: 2025-01-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

Position = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
Json = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")
Moment = sa.DateTime(timezone=True)

PG_IMMUTABLE = """
CREATE OR REPLACE FUNCTION events_are_immutable() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'events are immutable: % on events rejected', TG_OP
        USING ERRCODE = 'restrict_violation';
END
$$;
CREATE TRIGGER events_no_update_or_delete BEFORE UPDATE OR DELETE ON events
    FOR EACH ROW EXECUTE FUNCTION events_are_immutable();
CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON events
    FOR EACH STATEMENT EXECUTE FUNCTION events_are_immutable();
"""

SQLITE_IMMUTABLE = (
    """CREATE TRIGGER events_no_update BEFORE UPDATE ON events
    BEGIN SELECT RAISE(ABORT, 'events are immutable: UPDATE on events rejected'); END""",
    """CREATE TRIGGER events_no_delete BEFORE DELETE ON events
    BEGIN SELECT RAISE(ABORT, 'events are immutable: DELETE on events rejected'); END""",
)


def upgrade() -> None:
    op.create_table(
        "events",
        sa.Column("position", Position, primary_key=True, autoincrement=True),
        sa.Column("stream_id", sa.String(200), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("type", sa.String(100), nullable=False),
        sa.Column("schema_version", sa.Integer(), nullable=False),
        sa.Column("payload", Json, nullable=False),
        sa.Column("metadata", Json, nullable=False),
        sa.Column("recorded_at", Moment, nullable=False),
        sa.PrimaryKeyConstraint("position", name="pk_events"),
        sa.UniqueConstraint("stream_id", "version", name="uq_events_stream_version"),
    )
    op.create_table(
        "snapshots",
        sa.Column("stream_id", sa.String(200), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("state_kind", sa.String(200), nullable=False),
        sa.Column("state", sa.LargeBinary(), nullable=False),
        sa.Column("taken_at", Moment, nullable=False),
        sa.PrimaryKeyConstraint("stream_id", name="pk_snapshots"),
    )
    op.create_table(
        "processed_commands",
        sa.Column("stream_id", sa.String(200), nullable=False),
        sa.Column("idempotency_key", sa.String(200), nullable=False),
        sa.Column("first_version", sa.Integer(), nullable=False),
        sa.Column("last_version", sa.Integer(), nullable=False),
        sa.Column("processed_at", Moment, nullable=False),
        sa.PrimaryKeyConstraint("stream_id", "idempotency_key", name="pk_processed_commands"),
    )
    op.create_table(
        "projector_positions",
        sa.Column("name", sa.String(100), nullable=False),
        sa.Column("position", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("name", name="pk_projector_positions"),
    )
    op.create_table(
        "games",
        sa.Column("stream_id", sa.String(200), nullable=False),
        sa.Column("chat_id", sa.BigInteger(), nullable=True),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("edition", sa.String(20), nullable=True),
        sa.Column("players", Json, nullable=False),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("current_player", sa.BigInteger(), nullable=True),
        sa.Column("decision_id", sa.Integer(), nullable=True),
        sa.Column("decision_kind", sa.String(20), nullable=True),
        sa.Column("deadline", Moment, nullable=True),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("created_at", Moment, nullable=False),
        sa.Column("updated_at", Moment, nullable=False),
        sa.PrimaryKeyConstraint("stream_id", name="pk_games"),
    )
    op.create_index("ix_games_chat_status", "games", ["chat_id", "status"])
    op.create_index("ix_games_deadline", "games", ["deadline"])
    op.create_table(
        "player_stats",
        sa.Column("player_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("wins", sa.Integer(), nullable=False),
        sa.Column("rounds_won", sa.Integer(), nullable=False),
        sa.Column("gold", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("player_id", name="pk_player_stats"),
    )
    if op.get_bind().dialect.name == "postgresql":
        op.execute(PG_IMMUTABLE)
    else:
        for statement in SQLITE_IMMUTABLE:
            op.execute(statement)


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP TRIGGER IF EXISTS events_no_truncate ON events")
        op.execute("DROP TRIGGER IF EXISTS events_no_update_or_delete ON events")
        op.execute("DROP FUNCTION IF EXISTS events_are_immutable()")
    else:
        op.execute("DROP TRIGGER IF EXISTS events_no_update")
        op.execute("DROP TRIGGER IF EXISTS events_no_delete")
    for table in ("player_stats", "games", "projector_positions", "processed_commands",
                  "snapshots", "events"):
        op.drop_table(table)
