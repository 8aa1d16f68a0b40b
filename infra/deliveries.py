"""The durable outbox: what must be sent to Telegram, recorded before it is sent.

Each :class:`Delivery` names its game (``stream_id``), the game version it announces, the
decision it prompts for (if any), the chat, a kind (``prompt``, ``board``, ...) and a
payload the sender understands (this module never reads it). Its ``key`` says what it
is: recording the same key twice keeps the first, so a takeover that announces the same
events again records nothing new.

States:

- ``pending``: to be sent (again, after a failure, from ``next_attempt_at`` on);
- ``sent``: Telegram answered; its message id is kept;
- ``unknown``: the call failed in a way that may have delivered it (a timeout, a dropped
  connection): whoever drives the game next checks it, or sends it again after removing
  the old one's buttons (a prompt), or edits again (an edit is idempotent);
- ``parked``: it failed :data:`MAX_ATTEMPTS` times, retried with backoff
  (:func:`backoff_ms`); logged with its game and decision, kept for an operator;
- ``superseded``: a newer delivery of the same game, chat and kind replaced it (a new
  prompt, a newer board) before it went out.

Nothing is ever deleted here: the outbox is also the record of what reached whom.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from sqlalchemy import (
    BigInteger,
    Column,
    Engine,
    Index,
    Integer,
    String,
    Table,
    exists,
    func,
    select,
    update,
)
from sqlalchemy.engine import Connection

from infra.claims import game_claims
from infra.db import insert_for, reader, writer
from infra.schema import Json, Position, metadata

log = logging.getLogger(__name__)

PENDING: Final = "pending"
SENT: Final = "sent"
UNKNOWN: Final = "unknown"
PARKED: Final = "parked"
SUPERSEDED: Final = "superseded"
UNSETTLED: Final = (PENDING, UNKNOWN)
BEGUN: Final = "sending"  # the error of a delivery whose call began (see mark_unknown)

MAX_ATTEMPTS: Final = 6
FIRST_RETRY_MS: Final = 1_000
LONGEST_RETRY_MS: Final = 60_000

deliveries = Table(
    "deliveries",
    metadata,
    Column("id", Position, primary_key=True, autoincrement=True),
    Column("key", String(200), nullable=False, unique=True),
    Column("stream_id", String(200), nullable=False),
    Column("version", Integer, nullable=False),
    Column("decision", Integer, nullable=True),
    Column("chat_id", BigInteger, nullable=False),
    Column("kind", String(20), nullable=False),
    Column("payload", Json, nullable=False),
    Column("state", String(12), nullable=False),
    Column("attempts", Integer, nullable=False),
    Column("next_attempt_at", BigInteger, nullable=False),  # Unix ms
    Column("message_id", BigInteger, nullable=True),
    Column("last_error", String(500), nullable=True),
    Column("created_at", BigInteger, nullable=False),  # Unix ms
    Column("updated_at", BigInteger, nullable=False),  # Unix ms
    Index("ix_deliveries_stream_id_state", "stream_id", "state"),
)
"""One row per message (or edit, or deletion) owed to a chat."""


@dataclass(frozen=True, slots=True)
class Delivery:
    """Something to send: see the module's docstring."""

    key: str
    stream_id: str
    version: int
    chat_id: int
    kind: str
    payload: Mapping[str, Any] = field(default_factory=dict)
    decision: int | None = None


@dataclass(frozen=True, slots=True)
class Item:
    """A recorded delivery and where it stands."""

    id: int
    delivery: Delivery
    state: str
    attempts: int
    next_attempt_at: int
    message_id: int | None
    last_error: str | None


def backoff_ms(attempts: int) -> int:
    """How long to wait before the next try after ``attempts`` failed ones: doubling
    from a second, at most a minute.

    >>> [backoff_ms(n) // 1000 for n in range(1, 9)]
    [1, 2, 4, 8, 16, 32, 60, 60]
    """
    return min(FIRST_RETRY_MS << min(max(attempts - 1, 0), 30), LONGEST_RETRY_MS)


class Deliveries:
    """The outbox's table, through ``engine``. Each method is one short transaction,
    except :meth:`record` given a connection (the caller's transaction)."""

    def __init__(self, engine: Engine, max_attempts: int = MAX_ATTEMPTS) -> None:
        self.engine = engine
        self.max_attempts = max_attempts

    def record(
        self, batch: Iterable[Delivery], now_ms: int, conn: Connection | None = None
    ) -> list[Item]:
        """Record ``batch`` as pending (a key recorded before keeps its row); return
        the items of the batch's keys, in the batch's order."""
        items = list(batch)
        if not items:
            return []
        if conn is None:
            with writer(self.engine) as own:
                return self.record(items, now_ms, own)
        rows = [
            {
                "key": d.key,
                "stream_id": d.stream_id,
                "version": d.version,
                "decision": d.decision,
                "chat_id": d.chat_id,
                "kind": d.kind,
                "payload": dict(d.payload),
                "state": PENDING,
                "attempts": 0,
                "next_attempt_at": now_ms,
                "created_at": now_ms,
                "updated_at": now_ms,
            }
            for d in items
        ]
        conn.execute(insert_for(conn, deliveries).values(rows).on_conflict_do_nothing())
        found = {
            item.delivery.key: item
            for item in _items(
                conn, select(deliveries).where(deliveries.c.key.in_([d.key for d in items]))
            )
        }
        return [found[d.key] for d in items]

    def due(self, stream_ids: Iterable[str], now_ms: int, limit: int = 100) -> list[Item]:
        """The pending deliveries of ``stream_ids`` whose time has come, oldest first."""
        ids = list(stream_ids)
        if not ids:
            return []
        c = deliveries.c
        with reader(self.engine) as conn:
            return _items(
                conn,
                select(deliveries)
                .where(c.stream_id.in_(ids), c.state == PENDING, c.next_attempt_at <= now_ms)
                .order_by(c.id)
                .limit(limit),
            )

    def unsettled(self, stream_id: str, chat_id: int | None = None) -> list[Item]:
        """What a game still owes (to ``chat_id`` only, with it): pending and unknown
        deliveries, oldest first (what an instance taking the game over drives to an
        end)."""
        c = deliveries.c
        query = select(deliveries).where(c.stream_id == stream_id, c.state.in_(UNSETTLED))
        if chat_id is not None:
            query = query.where(c.chat_id == chat_id)
        with reader(self.engine) as conn:
            return _items(conn, query.order_by(c.id))

    def held(self, stream_id: str, holder: str, until_ms: int) -> bool:
        """Whether ``holder``'s claim on the game lasts until ``until_ms`` at least."""
        c = game_claims.c
        with reader(self.engine) as conn:
            found = conn.execute(
                select(c.stream_id).where(
                    c.stream_id == stream_id, c.holder == holder, c.expires_at >= until_ms
                )
            ).first()
        return found is not None

    def last_message_id(self, chat_id: int, before: int) -> int | None:
        """The highest message id Telegram gave a delivery to ``chat_id`` recorded before
        item ``before``: a message sent after it has a higher id (a chat counts its
        messages)."""
        c = deliveries.c
        with reader(self.engine) as conn:
            found = conn.execute(
                select(func.max(c.message_id)).where(
                    c.chat_id == chat_id, c.id < before, c.state == SENT
                )
            ).scalar()
        return int(found) if found is not None else None

    def doubtful_before(self, item: Item) -> int | None:
        """Whether a delivery of ``item``'s kind to its chat and game, recorded before it
        and after the chat's last message known sent, began and may have arrived unknown
        to anyone (left unknown, or superseded once it was): then the id of that last
        known message (0: none), as its message, if it arrived, lies after it; else None."""
        c = deliveries.c
        d = item.delivery
        with reader(self.engine) as conn:
            last = conn.execute(
                select(c.id, c.message_id)
                .where(c.chat_id == d.chat_id, c.id < item.id, c.message_id.is_not(None))
                .order_by(c.id.desc())
                .limit(1)
            ).first()
            found = conn.execute(
                select(c.id)
                .where(
                    c.stream_id == d.stream_id,
                    c.chat_id == d.chat_id,
                    c.kind == d.kind,
                    c.id < item.id,
                    c.id > (last.id if last is not None else 0),
                    c.state.in_((UNKNOWN, SUPERSEDED)),
                    c.last_error == BEGUN,
                    c.message_id.is_(None),
                )
                .limit(1)
            ).first()
        if found is None:
            return None
        return int(last.message_id) if last is not None else 0

    def owing(self) -> set[str]:
        """The games that still owe a delivery (pending or unknown): each needs an
        instance to drive it."""
        c = deliveries.c
        with reader(self.engine) as conn:
            return set(
                conn.execute(select(c.stream_id).where(c.state.in_(UNSETTLED)).distinct()).scalars()
            )

    def parked(self, stream_ids: Iterable[str] | None = None) -> list[Item]:
        """The deliveries given up on, oldest first (for operators and tests)."""
        query = select(deliveries).where(deliveries.c.state == PARKED)
        if stream_ids is not None:
            query = query.where(deliveries.c.stream_id.in_(list(stream_ids)))
        with reader(self.engine) as conn:
            return _items(conn, query.order_by(deliveries.c.id))

    def get(self, item_id: int) -> Item | None:
        with reader(self.engine) as conn:
            found = _items(conn, select(deliveries).where(deliveries.c.id == item_id))
        return found[0] if found else None

    def mark_sent(self, item_id: int, now_ms: int, message_id: int | None = None) -> bool:
        """Telegram answered: the delivery is done. False when it was no longer pending
        or unknown (superseded meanwhile, or sent by another instance)."""
        return self._move(item_id, now_ms, UNSETTLED, state=SENT, message_id=message_id)

    def mark_unknown(
        self, item_id: int, now_ms: int, error: str, holder: str | None = None, until_ms: int = 0
    ) -> bool:
        """The call is about to be made, or failed after it may have reached Telegram:
        nobody knows whether it arrived. A compare-and-set from ``pending``: False when
        the delivery was no longer pending (another instance began sending it).

        With ``holder``, only while that instance's claim on the game lasts until
        ``until_ms`` at least (a fence: an instance whose claim lapsed, and which another
        may have taken over, does not begin a send)."""
        c = deliveries.c
        fence = []
        if holder is not None:
            fence.append(
                exists().where(
                    game_claims.c.stream_id == c.stream_id,
                    game_claims.c.holder == holder,
                    game_claims.c.expires_at >= until_ms,
                )
            )
        with writer(self.engine) as conn:
            moved = conn.execute(
                update(deliveries)
                .where(c.id == item_id, c.state == PENDING, *fence)
                .values(updated_at=now_ms, state=UNKNOWN, last_error=error[:500])
            ).rowcount
        return bool(moved)

    def mark_failed(
        self, item_id: int, now_ms: int, error: str, *, counted: bool = True
    ) -> Item | None:
        """The call surely did not deliver it: try again after :func:`backoff_ms`, or park
        it after :attr:`max_attempts` tries (logged with its game and decision). Not
        ``counted`` (the sender gave the game up before trying again): pending, due at
        once, its tries as they were. Returns the item as it is now (None: unknown id)."""
        with writer(self.engine) as conn:
            found = _items(conn, select(deliveries).where(deliveries.c.id == item_id))
            if not found or found[0].state not in UNSETTLED:
                return found[0] if found else None
            item = found[0]
            attempts = item.attempts + 1 if counted else item.attempts
            parked = counted and attempts >= self.max_attempts
            conn.execute(
                update(deliveries)
                .where(deliveries.c.id == item_id)
                .values(
                    state=PARKED if parked else PENDING,
                    attempts=attempts,
                    next_attempt_at=now_ms
                    if parked or not counted
                    else now_ms + backoff_ms(attempts),
                    last_error=error[:500],
                    updated_at=now_ms,
                )
            )
            now = _items(conn, select(deliveries).where(deliveries.c.id == item_id))[0]
        if parked:
            d = item.delivery
            log.error(
                "delivery parked after %d attempts: game %s, decision %s, chat %s, %s %s: %s",
                attempts,
                d.stream_id,
                d.decision,
                d.chat_id,
                d.kind,
                d.key,
                error,
            )
        return now

    def supersede(self, stream_id: str, chat_id: int, kind: str, newer_than: int) -> list[Item]:
        """Mark the unsettled deliveries of ``kind`` to ``chat_id`` in the game, older than
        item ``newer_than``, superseded; return them as they were (an unknown prompt among
        them may have arrived: its buttons are to be removed)."""
        c = deliveries.c
        where = (
            (c.stream_id == stream_id)
            & (c.chat_id == chat_id)
            & (c.kind == kind)
            & (c.id < newer_than)
            & c.state.in_(UNSETTLED)
        )
        with writer(self.engine) as conn:
            older = _items(conn, select(deliveries).where(where).order_by(c.id))
            if older:
                conn.execute(
                    update(deliveries)
                    .where(c.id.in_([i.id for i in older]), c.state.in_(UNSETTLED))
                    .values(state=SUPERSEDED)
                )
        return older

    def _move(
        self, item_id: int, now_ms: int, from_states: Sequence[str], **values: object
    ) -> bool:
        c = deliveries.c
        with writer(self.engine) as conn:
            moved = conn.execute(
                update(deliveries)
                .where(c.id == item_id, c.state.in_(list(from_states)))
                .values(updated_at=now_ms, **values)
            ).rowcount
        return bool(moved)


def _items(conn: Connection, query: Any) -> list[Item]:
    return [
        Item(
            row.id,
            Delivery(
                row.key,
                row.stream_id,
                row.version,
                row.chat_id,
                row.kind,
                row.payload,
                row.decision,
            ),
            row.state,
            row.attempts,
            row.next_attempt_at,
            row.message_id,
            row.last_error,
        )
        for row in conn.execute(query)
    ]
