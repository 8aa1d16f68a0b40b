"""History: finished games, per-group player figures, rounds won by role
(read models of infra.history).

Revision ID: 0006_history
Revises: 0003_deadlines
Create Date: 2025-01-03
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0006_history"
down_revision: str | None = "0003_deadlines"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

Json = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")
Moment = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "finished_games",
        sa.Column("stream_id", sa.String(200), nullable=False),
        sa.Column("chat_id", sa.BigInteger(), nullable=False),
        sa.Column("edition", sa.String(20), nullable=False),
        sa.Column("players", Json, nullable=False),
        sa.Column("winners", Json, nullable=False),
        sa.Column("gold", Json, nullable=False),
        sa.Column("rounds", sa.Integer(), nullable=False),
        sa.Column("started_at", Moment, nullable=False),
        sa.Column("finished_at", Moment, nullable=False),
        sa.PrimaryKeyConstraint("stream_id", name="pk_finished_games"),
    )
    op.create_index("ix_finished_games_chat_finished", "finished_games", ["chat_id", "finished_at"])
    op.create_table(
        "chat_player_stats",
        sa.Column("chat_id", sa.BigInteger(), nullable=False),
        sa.Column("player_id", sa.BigInteger(), nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("wins", sa.Integer(), nullable=False),
        sa.Column("gold", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("chat_id", "player_id", name="pk_chat_player_stats"),
    )
    op.create_table(
        "role_wins",
        sa.Column("chat_id", sa.BigInteger(), nullable=False),
        sa.Column("player_id", sa.BigInteger(), nullable=False),
        sa.Column("role", sa.String(30), nullable=False),
        sa.Column("rounds_won", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("chat_id", "player_id", "role", name="pk_role_wins"),
    )


def downgrade() -> None:
    op.drop_table("role_wins")
    op.drop_table("chat_player_stats")
    op.drop_index("ix_finished_games_chat_finished", table_name="finished_games")
    op.drop_table("finished_games")
    op.execute(sa.text("DELETE FROM projector_positions WHERE name = 'history'"))
