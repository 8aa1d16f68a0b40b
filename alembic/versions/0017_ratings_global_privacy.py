"""The global ratings and who is named in them: rating_listed (the people who chose, with
/privacy, to be named in the global tables), and the ratings read model emptied with its
projector's position, so its next run rates every game again, the global tables (chat 0)
included (infra.ratings).

Revision ID: 0017_ratings_global_privacy
Revises: 0016_achievements
"""

from __future__ import annotations

import sqlalchemy as sa

from alembic import op

revision: str = "0017_ratings_global_privacy"
down_revision: str | None = "0016_achievements"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "rating_listed",
        sa.Column("player_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("listed_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("player_id", name="pk_rating_listed"),
    )
    # A read model, rebuilt from the log: the games rated before the global tables existed
    # are rated again, into them too, the next time the projector runs.
    op.execute("DELETE FROM player_ratings")
    op.execute("DELETE FROM rating_changes")
    op.execute("DELETE FROM projector_positions WHERE name = 'ratings'")


def downgrade() -> None:
    op.drop_table("rating_listed")
    op.execute("DELETE FROM player_ratings WHERE chat_id = 0")
