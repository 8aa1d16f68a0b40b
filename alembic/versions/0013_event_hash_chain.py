"""The hash chain of every stream: each event records its predecessor's hash and its own
(infra.chain). Events already stored are sealed here, stream by stream in version order,
with the immutability triggers set aside for this migration's transaction only (it runs
as the tables' owner).

Revision ID: 0013_event_hash_chain
Revises: 0012_computer_players
Create Date: 2025-01-14
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

from infra.chain import GENESIS, event_hash

revision: str = "0013_event_hash_chain"
down_revision: str | None = "0012_computer_players"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

Json = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")
BATCH = 1000

SQLITE_NO_UPDATE = """CREATE TRIGGER events_no_update BEFORE UPDATE ON events
    BEGIN SELECT RAISE(ABORT, 'events are immutable: UPDATE on events rejected'); END"""

events = sa.table(
    "events",
    sa.column("position", sa.BigInteger()),
    sa.column("stream_id", sa.String()),
    sa.column("version", sa.Integer()),
    sa.column("type", sa.String()),
    sa.column("schema_version", sa.Integer()),
    sa.column("payload", Json),
    sa.column("metadata", Json),
    sa.column("recorded_at", sa.DateTime(timezone=True)),
    sa.column("prev_hash", sa.String()),
    sa.column("hash", sa.String()),
)


def _seal(bind: sa.Connection) -> None:
    """Seal every stored event onto its stream's chain."""
    rows = bind.execute(
        sa.select(
            events.c.position,
            events.c.stream_id,
            events.c.version,
            events.c.type,
            events.c.schema_version,
            events.c.payload,
            events.c.metadata,
            events.c.recorded_at,
        ).order_by(events.c.stream_id, events.c.version)
    ).all()
    update = (
        events.update()
        .where(events.c.position == sa.bindparam("at"))
        .values(prev_hash=sa.bindparam("prev"), hash=sa.bindparam("sealed"))
    )
    stream, previous, pending = None, GENESIS, []
    for row in rows:
        if row.stream_id != stream:
            stream, previous = row.stream_id, GENESIS
        sealed = event_hash(
            previous,
            row.stream_id,
            row.version,
            row.type,
            row.schema_version,
            row.payload,
            row.metadata,
            row.recorded_at,
        )
        pending.append({"at": row.position, "prev": previous, "sealed": sealed})
        previous = sealed
        if len(pending) >= BATCH:
            bind.execute(update, pending)
            pending = []
    if pending:
        bind.execute(update, pending)


def upgrade() -> None:
    with op.batch_alter_table("events") as batch:
        batch.add_column(sa.Column("prev_hash", sa.String(64), nullable=False, server_default=""))
        batch.add_column(sa.Column("hash", sa.String(64), nullable=False, server_default=""))
    bind = op.get_bind()
    if bind.dialect.name == "postgresql":
        op.execute("ALTER TABLE events DISABLE TRIGGER events_no_update_or_delete")
        _seal(bind)
        op.execute("ALTER TABLE events ENABLE TRIGGER events_no_update_or_delete")
    else:
        op.execute("DROP TRIGGER IF EXISTS events_no_update")
        _seal(bind)
        op.execute(SQLITE_NO_UPDATE)


def downgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name == "postgresql":
        op.execute("ALTER TABLE events DROP COLUMN hash, DROP COLUMN prev_hash")
    else:
        # Dropping columns rebuilds the table on SQLite, which drops its triggers.
        with op.batch_alter_table("events") as batch:
            batch.drop_column("hash")
            batch.drop_column("prev_hash")
        op.execute(SQLITE_NO_UPDATE)
        op.execute(
            "CREATE TRIGGER events_no_delete BEFORE DELETE ON events\n"
            "    BEGIN SELECT RAISE(ABORT, 'events are immutable: DELETE on events rejected'); END"
        )
