"""The notifier's progress per game and its single-instance lease (infra.botstate).

Revision ID: 0008_bot_notifier_games
Revises: 0007_bot_state
Create Date: 2025-01-05
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008_bot_notifier_games"
down_revision: str | None = "0007_bot_state"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "notifier_games",
        sa.Column("name", sa.String(100), nullable=False),
        sa.Column("stream_id", sa.String(200), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("name", "stream_id", name="pk_notifier_games"),
    )
    op.create_table(
        "notifier_leases",
        sa.Column("name", sa.String(100), nullable=False),
        sa.Column("holder", sa.String(100), nullable=False),
        sa.Column("expires_at", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("name", name="pk_notifier_leases"),
    )


def downgrade() -> None:
    op.drop_table("notifier_leases")
    op.drop_table("notifier_games")
