"""Computer players rated apart at each level: a computer's rating key includes its level
(infra.ratings.rating_key; a normal one keeps its name's key). The ratings read model is
emptied with its projector's position, so its next run rates every game again, the easy
and hard computer players under keys of their own.

Revision ID: 0022_computer_rating_levels
Revises: 0021_variant_stats
"""

from __future__ import annotations

from alembic import op

revision: str = "0022_computer_rating_levels"
down_revision: str | None = "0021_variant_stats"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # A read model, rebuilt from the log: the games rated with every level under one key
    # are rated again the next time the projector runs.
    _empty_ratings()


def downgrade() -> None:
    # The older code rates every level under one key: it rates every game again too.
    _empty_ratings()


def _empty_ratings() -> None:
    op.execute("DELETE FROM player_ratings")
    op.execute("DELETE FROM rating_changes")
    op.execute("DELETE FROM projector_positions WHERE name = 'ratings'")
