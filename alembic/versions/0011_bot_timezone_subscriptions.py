"""A group's time zone, and who asked to be told when a new game opens in a group
(infra.botstate).

Revision ID: 0011_bot_timezone_subscriptions
Revises: 0010_delivery
Create Date: 2025-01-12
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011_bot_timezone_subscriptions"
down_revision: str | None = "0010_delivery"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("bot_chats") as batch:
        batch.add_column(sa.Column("timezone", sa.String(64), nullable=True))
    op.create_table(
        "bot_subscriptions",
        sa.Column("chat_id", sa.BigInteger(), nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("chat_id", "user_id", name="pk_bot_subscriptions"),
    )


def downgrade() -> None:
    op.drop_table("bot_subscriptions")
    with op.batch_alter_table("bot_chats") as batch:
        batch.drop_column("timezone")
