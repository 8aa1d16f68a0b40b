"""Name the announcer's progress tables after what they hold: notifier_positions, how far
along the event log each announcer announced, becomes announced_positions; notifier_games,
how far each announcer announced each game, becomes announced_games. Rows and primary keys
go along (infra.botstate).

Revision ID: 0019_rename_notifier_tables
Revises: 0018_forum_topics
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from alembic import op

revision: str = "0019_rename_notifier_tables"
down_revision: str | None = "0018_forum_topics"
branch_labels = None
depends_on = None

RENAMED = {"notifier_positions": "announced_positions", "notifier_games": "announced_games"}


def _columns(table: str) -> tuple[list[sa.Column[Any]], list[str]]:
    """The columns of either name of a table, and its primary key's."""
    columns: list[sa.Column[Any]]
    if table in ("notifier_positions", "announced_positions"):
        columns = [
            sa.Column("name", sa.String(100), nullable=False),
            sa.Column("position", sa.BigInteger(), nullable=False),
        ]
        return columns, ["name"]
    columns = [
        sa.Column("name", sa.String(100), nullable=False),
        sa.Column("stream_id", sa.String(200), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
    ]
    return columns, ["name", "stream_id"]


def _rename(old: str, new: str) -> None:
    if op.get_bind().dialect.name == "postgresql":
        # In place; the primary key's index is renamed with its constraint.
        op.rename_table(old, new)
        op.execute(f"ALTER TABLE {new} RENAME CONSTRAINT pk_{old} TO pk_{new}")
        return
    # SQLite keeps a renamed table's constraint names in its CREATE statement and cannot
    # rename a constraint: build the new table and move the rows over.
    columns, key = _columns(new)
    op.create_table(new, *columns, sa.PrimaryKeyConstraint(*key, name=f"pk_{new}"))
    names = ", ".join(column.name for column in columns)
    op.execute(f"INSERT INTO {new} ({names}) SELECT {names} FROM {old}")
    op.drop_table(old)


def upgrade() -> None:
    for old, new in RENAMED.items():
        _rename(old, new)


def downgrade() -> None:
    for old, new in RENAMED.items():
        _rename(new, old)
