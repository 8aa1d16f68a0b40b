"""Which stored games were imported from an export file, not played here.

Every event :func:`infra.archive.import_game` stores carries :data:`IMPORTED_FROM` in
its metadata. The read models that make a game live (deadlines, the group's history and
figures, the group's running game) skip such streams. Apart from the archive, so those
read models need nothing of the archive's file format or command line.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlalchemy import Connection, select

from infra.schema import events

IMPORTED_FROM = "imported_from"
"""The metadata key every imported event carries: the stream id it was exported from."""


def is_imported(metadata: dict[str, Any] | None) -> bool:
    """Whether an event with this metadata was loaded by :func:`infra.archive.import_game`.

    >>> is_imported({"imported_from": "g1", "command": "Pass"}), is_imported({})
    (True, False)
    """
    return bool(metadata and metadata.get(IMPORTED_FROM))


def imported_streams(conn: Connection, stream_ids: Iterable[str]) -> set[str]:
    """Those of ``stream_ids`` that are imported games (their first event says so), so an
    event appended to one later is recognised too."""
    wanted = sorted(set(stream_ids))
    found: set[str] = set()
    for start in range(0, len(wanted), 500):
        rows = conn.execute(
            select(events.c.stream_id, events.c.metadata).where(
                events.c.version == 1, events.c.stream_id.in_(wanted[start : start + 500])
            )
        )
        found.update(stream for stream, metadata in rows if is_imported(metadata))
    return found
