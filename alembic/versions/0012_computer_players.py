"""Computer players: the games read model marks practice games, and a group's computer
players are counted apart from its people (infra.history's chat_computer_stats).

Revision ID: 0012_computer_players
Revises: 0011_bot_timezone_subscriptions
Create Date: 2025-01-07
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012_computer_players"
down_revision: str | None = "0011_bot_timezone_subscriptions"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.add_column(
            sa.Column("practice", sa.Boolean(), nullable=False, server_default=sa.false())
        )
    op.create_table(
        "chat_computer_stats",
        sa.Column("chat_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("seats", sa.Integer(), nullable=False),
        sa.Column("wins", sa.Integer(), nullable=False),
        sa.Column("rounds_won", sa.Integer(), nullable=False),
        sa.Column("gold", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("chat_id", name="pk_chat_computer_stats"),
    )


def downgrade() -> None:
    op.drop_table("chat_computer_stats")
    with op.batch_alter_table("games") as batch:
        batch.drop_column("practice")
