"""A group's learned language: that of its last game's creator, when it chose none
(infra.botstate).

Revision ID: 0009_bot_chat_default_language
Revises: 0008_bot_notifier_games
Create Date: 2025-01-05
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009_bot_chat_default_language"
down_revision: str | None = "0008_bot_notifier_games"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("bot_chats") as batch:
        batch.add_column(sa.Column("default_language", sa.String(10), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("bot_chats") as batch:
        batch.drop_column("default_language")
