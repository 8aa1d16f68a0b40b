"""Delivery on several instances: per-game claims and live instances (infra.claims), the
durable outbox (infra.deliveries) and, on PostgreSQL, a NOTIFY per append
(infra.notifications).

Revision ID: 0010_delivery
Revises: 0009_bot_chat_default_language
Create Date: 2025-01-12
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision: str = "0010_delivery"
down_revision: str | None = "0009_bot_chat_default_language"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Every statement appending events notifies the channel "saboteur" once per game it
# wrote to, with the game's new version: "event:<game>:<version>". It runs in the
# append's transaction, so the notice goes out when the append commits, and only then.
NOTIFY_FUNCTION = """
CREATE OR REPLACE FUNCTION events_notify() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('saboteur', 'event:' || appended.stream_id || ':' || appended.version)
    FROM (SELECT stream_id, max(version) AS version FROM new_rows GROUP BY stream_id) appended;
    RETURN NULL;
END
$$
"""
NOTIFY_TRIGGER = """
CREATE TRIGGER events_notify AFTER INSERT ON events
REFERENCING NEW TABLE AS new_rows
FOR EACH STATEMENT EXECUTE FUNCTION events_notify()
"""


def upgrade() -> None:
    op.create_table(
        "instances",
        sa.Column("holder", sa.String(100), nullable=False),
        sa.Column("expires_at", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("holder", name="pk_instances"),
    )
    op.create_table(
        "game_claims",
        sa.Column("stream_id", sa.String(200), nullable=False),
        sa.Column("holder", sa.String(100), nullable=False),
        sa.Column("expires_at", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("stream_id", name="pk_game_claims"),
    )
    op.create_index("ix_game_claims_holder", "game_claims", ["holder"])
    op.create_table(
        "deliveries",
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            autoincrement=True,
            nullable=False,
        ),
        sa.Column("key", sa.String(200), nullable=False),
        sa.Column("stream_id", sa.String(200), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("decision", sa.Integer(), nullable=True),
        sa.Column("chat_id", sa.BigInteger(), nullable=False),
        sa.Column("kind", sa.String(20), nullable=False),
        sa.Column("payload", sa.JSON().with_variant(JSONB(), "postgresql"), nullable=False),
        sa.Column("state", sa.String(12), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("next_attempt_at", sa.BigInteger(), nullable=False),
        sa.Column("message_id", sa.BigInteger(), nullable=True),
        sa.Column("last_error", sa.String(500), nullable=True),
        sa.Column("created_at", sa.BigInteger(), nullable=False),
        sa.Column("updated_at", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_deliveries"),
        sa.UniqueConstraint("key", name="uq_deliveries_key"),
    )
    op.create_index("ix_deliveries_stream_id_state", "deliveries", ["stream_id", "state"])
    if op.get_bind().dialect.name == "postgresql":
        op.execute(NOTIFY_FUNCTION)
        op.execute(NOTIFY_TRIGGER)


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP TRIGGER IF EXISTS events_notify ON events")
        op.execute("DROP FUNCTION IF EXISTS events_notify()")
    op.drop_index("ix_deliveries_stream_id_state", table_name="deliveries")
    op.drop_table("deliveries")
    op.drop_index("ix_game_claims_holder", table_name="game_claims")
    op.drop_table("game_claims")
    op.drop_table("instances")
