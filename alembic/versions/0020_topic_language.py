"""A forum topic's own language (bot_topics.language): set by a group admin's /language
in the topic; None, as every topic had until now, follows the group's language.

Revision ID: 0020_topic_language
Revises: 0019_rename_notifier_tables
"""

from __future__ import annotations

import sqlalchemy as sa

from alembic import op

revision: str = "0020_topic_language"
down_revision: str | None = "0019_rename_notifier_tables"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("bot_topics") as batch:
        batch.add_column(sa.Column("language", sa.String(10), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("bot_topics") as batch:
        batch.drop_column("language")
