"""Forum topics: the topic a game was opened in (games.topic, from its creation event)
and what the bot heard of each topic, its name and whether it is open (bot_topics).

Revision ID: 0018_forum_topics
Revises: 0017_ratings_global_privacy
"""

from __future__ import annotations

import sqlalchemy as sa

from alembic import op

revision: str = "0018_forum_topics"
down_revision: str | None = "0017_ratings_global_privacy"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("topic", sa.BigInteger(), nullable=True))
    op.create_table(
        "bot_topics",
        sa.Column("chat_id", sa.BigInteger(), nullable=False),
        sa.Column("topic", sa.BigInteger(), nullable=False),
        sa.Column("name", sa.String(200), nullable=True),
        sa.Column("state", sa.String(10), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("chat_id", "topic", name="pk_bot_topics"),
    )


def downgrade() -> None:
    op.drop_table("bot_topics")
    with op.batch_alter_table("games") as batch:
        batch.drop_column("topic")
