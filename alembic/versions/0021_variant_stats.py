"""Games played with a variant counted apart in the statistics (docs/rules.md §8):
finished_games.variants (the variants played, [] for a plain game) and chat_player_stats'
variant_games, variant_wins and variant_gold. The history read model is emptied with its
projector's position, so its next run counts every game again, the variant games apart
(infra.history).

Revision ID: 0021_variant_stats
Revises: 0020_topic_language
"""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

from alembic import op

revision: str = "0021_variant_stats"
down_revision: str | None = "0020_topic_language"
branch_labels = None
depends_on = None

COUNTS = ("variant_games", "variant_wins", "variant_gold")


def upgrade() -> None:
    op.add_column(
        "finished_games",
        sa.Column(
            "variants",
            sa.JSON().with_variant(postgresql.JSONB(), "postgresql"),
            nullable=False,
            server_default=sa.text("'[]'"),
        ),
    )
    for name in COUNTS:
        op.add_column(
            "chat_player_stats",
            sa.Column(name, sa.Integer(), nullable=False, server_default=sa.text("0")),
        )
    _rebuild()


def downgrade() -> None:
    for name in COUNTS:
        op.drop_column("chat_player_stats", name)
    op.drop_column("finished_games", "variants")
    _rebuild()


def _rebuild() -> None:
    """A read model, rebuilt from the log the next time its projector runs."""
    for table in ("finished_games", "chat_player_stats", "role_wins", "chat_computer_stats"):
        op.execute(f"DELETE FROM {table}")
    op.execute("DELETE FROM projector_positions WHERE name = 'history'")
