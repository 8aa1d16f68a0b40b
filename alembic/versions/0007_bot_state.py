"""Telegram adapter state: users, group languages and migrations, message ids, the
notifier's position (infra.botstate).

Revision ID: 0007_bot_state
Revises: 0006_history
Create Date: 2025-01-04
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007_bot_state"
down_revision: str | None = "0006_history"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

Moment = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "bot_users",
        sa.Column("user_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("language", sa.String(10), nullable=True),
        sa.Column("private_chat", sa.Boolean(), nullable=False),
        sa.Column("updated_at", Moment, nullable=False),
        sa.PrimaryKeyConstraint("user_id", name="pk_bot_users"),
    )
    op.create_table(
        "bot_chats",
        sa.Column("chat_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("language", sa.String(10), nullable=True),
        sa.Column("migrated_to", sa.BigInteger(), nullable=True),
        sa.Column("updated_at", Moment, nullable=False),
        sa.PrimaryKeyConstraint("chat_id", name="pk_bot_chats"),
    )
    op.create_table(
        "bot_messages",
        sa.Column("stream_id", sa.String(200), nullable=False),
        sa.Column("chat_id", sa.BigInteger(), nullable=False),
        sa.Column("role", sa.String(20), nullable=False),
        sa.Column("message_id", sa.BigInteger(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("stream_id", "chat_id", "role", name="pk_bot_messages"),
    )
    op.create_table(
        "notifier_positions",
        sa.Column("name", sa.String(100), nullable=False),
        sa.Column("position", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("name", name="pk_notifier_positions"),
    )


def downgrade() -> None:
    op.drop_table("notifier_positions")
    op.drop_table("bot_messages")
    op.drop_table("bot_chats")
    op.drop_table("bot_users")
