"""Achievements: the ones each person earned and the game that earned each
(player_achievements), and the results they are counted from (achievement_players),
built from the log by infra.achievements.

Revision ID: 0016_achievements
Revises: 0015_ratings
"""

from __future__ import annotations

import sqlalchemy as sa

from alembic import op

revision: str = "0016_achievements"
down_revision: str | None = "0015_ratings"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "player_achievements",
        sa.Column("player_id", sa.BigInteger(), nullable=False),
        sa.Column("achievement", sa.String(40), nullable=False),
        sa.Column("stream_id", sa.String(200), nullable=False),
        sa.Column("earned_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("player_id", "achievement", name="pk_player_achievements"),
    )
    op.create_table(
        "achievement_players",
        sa.Column("player_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("wins", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("player_id", name="pk_achievement_players"),
    )


def downgrade() -> None:
    op.drop_table("achievement_players")
    op.drop_table("player_achievements")
