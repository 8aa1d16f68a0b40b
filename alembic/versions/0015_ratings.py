"""Ratings: each player's openskill rating per group, season and edition
(player_ratings), and each rated game's changes (rating_changes), built from the log by
infra.ratings.

Revision ID: 0015_ratings
Revises: 0014_drop_notifier_leases
"""

from __future__ import annotations

import sqlalchemy as sa

from alembic import op

revision: str = "0015_ratings"
down_revision: str | None = "0014_drop_notifier_leases"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "player_ratings",
        sa.Column("chat_id", sa.BigInteger(), nullable=False),
        sa.Column("season", sa.String(8), nullable=False),
        sa.Column("edition", sa.String(20), nullable=False),
        sa.Column("player_id", sa.BigInteger(), nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("computer", sa.Boolean(), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("last_change", sa.Integer(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint(
            "chat_id", "season", "edition", "player_id", name="pk_player_ratings"
        ),
    )
    op.create_index("ix_player_ratings_player", "player_ratings", ["player_id"])
    op.create_table(
        "rating_changes",
        sa.Column("stream_id", sa.String(200), nullable=False),
        sa.Column("player_id", sa.BigInteger(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("computer", sa.Boolean(), nullable=False),
        sa.Column("before", sa.Integer(), nullable=False),
        sa.Column("after", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("stream_id", "player_id", name="pk_rating_changes"),
    )


def downgrade() -> None:
    op.drop_table("rating_changes")
    op.drop_index("ix_player_ratings_player", table_name="player_ratings")
    op.drop_table("player_ratings")
