"""Deadlines: the alarms the clock owes each game (read model of infra.deadlines).

Revision ID: 0003_deadlines
Revises: 0001
Create Date: 2025-01-02
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003_deadlines"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

Moment = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "deadlines",
        sa.Column("game_id", sa.String(200), nullable=False),
        sa.Column("decision", sa.Integer(), nullable=False),
        sa.Column("which", sa.String(16), nullable=False),
        sa.Column("player", sa.BigInteger(), nullable=False),
        sa.Column("kind", sa.String(20), nullable=False),
        sa.Column("fire_at", Moment, nullable=False),
        sa.Column("deadline", Moment, nullable=False),
        sa.Column("leased_until", Moment, nullable=True),
        sa.Column("dispatches", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("game_id", "decision", "which", name="pk_deadlines"),
    )
    op.create_index("ix_deadlines_fire_at", "deadlines", ["fire_at"])


def downgrade() -> None:
    op.drop_index("ix_deadlines_fire_at", table_name="deadlines")
    op.drop_table("deadlines")
    op.execute(sa.text("DELETE FROM projector_positions WHERE name = 'deadlines'"))
