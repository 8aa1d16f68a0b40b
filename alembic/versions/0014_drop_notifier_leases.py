"""Drop notifier_leases: one instance no longer announces everything under one lease; each
game is announced by the instance holding its claim (game_claims, migration 0010).

Revision ID: 0014_drop_notifier_leases
Revises: 0013_event_hash_chain
"""

from __future__ import annotations

import sqlalchemy as sa

from alembic import op

revision: str = "0014_drop_notifier_leases"
down_revision: str | None = "0013_event_hash_chain"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.drop_table("notifier_leases")


def downgrade() -> None:
    op.create_table(
        "notifier_leases",
        sa.Column("name", sa.String(100), nullable=False),
        sa.Column("holder", sa.String(100), nullable=False),
        sa.Column("expires_at", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("name", name="pk_notifier_leases"),
    )
