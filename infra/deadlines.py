"""Deadlines: the read model of what the clock owes each game, and the sweeper's claim.

Every decision a player owes is opened by a ``DecisionOpened`` event carrying its deadline.
The projection here turns the event log into *alarms*, one row each, in the ``deadlines``
table: the deadline itself (``timeout``) and the two reminders (``half`` time and ``soon``
before the deadline); a decision the computer makes gets no reminder but a ``computer``
alarm, a short pause (``COMPUTER_PAUSE_SECONDS``) after it opened, when its move is made
(:mod:`infra.computer`), with the deadline kept as a safety net.

The broker holds nothing that matters: a sweeper claims the alarms that are due, leases
them, commits, and only then sends the tasks that fire them. A task that is lost (worker
killed, Redis flushed) leaves its alarm leased; once the lease runs out the next sweep
sends it again. Firing twice is harmless: the rules engine answers a ``TimeOut``,
``RemindPlayer`` or ``MakeComputerMove`` for a decision already made with no events (and
the command's idempotency key makes a second delivery append nothing), and the task
deletes its alarm when it is done.

The lease is short (a task takes milliseconds), so a killed worker's alarms fire again
within a sweep interval and a few seconds; each time an alarm is sent again its lease
doubles (:func:`lease_for`), so a backlog of slow tasks is not flooded with copies.

Reminder times (docs/rules.md §7.1, scaled to the turn timer ``t`` = deadline - opening time):

>>> [a.which for a in alarms_for(decision=4, player=7, kind="turn", opened_at=0,
...                              deadline=60_000)]
['half', 'soon', 'timeout']
>>> [a.fire_at for a in alarms_for(4, 7, "turn", opened_at=0, deadline=60_000)]
[30000, 50000, 60000]
>>> soon_before(86_400_000), soon_before(3_600_000), soon_before(180_000)
(3600000, 600000, 30000)

A decision opened with its deadline already reached (an away player's turn) gets no
reminder:

>>> [a.which for a in alarms_for(5, 7, "turn", opened_at=1_000, deadline=1_000)]
['timeout']

The computer's decision: its move after the pause, and the deadline:

>>> [(a.which, a.fire_at) for a in alarms_for(6, -1, "turn", 0, 60_000, computer_ms=1_500)]
[('computer', 1500), ('timeout', 60000)]
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Final

from sqlalchemy import (
    BigInteger,
    Column,
    DateTime,
    Index,
    Integer,
    PrimaryKeyConstraint,
    String,
    Table,
    delete,
    insert,
    select,
    tuple_,
    update,
)
from sqlalchemy.engine import Connection, Engine, RowMapping

from domain.events import (
    DecisionOpened,
    DecisionTimedOut,
    GameCancelled,
    GameEnded,
    PlayerReminded,
    RoundEnded,
)
from infra.db import writer
from infra.event_store import EventStore, StoredEvent
from infra.projector import EachEvent, Projector
from infra.schema import metadata

log = logging.getLogger(__name__)

Payload = dict[str, Any]

TIMEOUT: Final = "timeout"
COMPUTER: Final = "computer"
HALF: Final = "half"
SOON: Final = "soon"
REMINDERS: Final = (HALF, SOON)
SOON_AT_MOST_MS: Final = 3_600_000
DEFAULT_LEASE: Final = timedelta(seconds=5)
# A lease grows at most this many times over as an alarm is sent again and again.
MAX_LEASE_FACTOR: Final = 16
DEFAULT_COMPUTER_PAUSE: Final = timedelta(seconds=1.5)
PROJECTION: Final = "deadlines"

Moment = DateTime(timezone=True)

deadlines = Table(
    "deadlines",
    metadata,
    Column("game_id", String(200), nullable=False),
    Column("decision", Integer, nullable=False),
    Column("which", String(16), nullable=False),  # "timeout", "computer", "half" or "soon"
    Column("player", BigInteger, nullable=False),
    Column("kind", String(20), nullable=False),
    Column("fire_at", Moment, nullable=False),
    Column("deadline", Moment, nullable=False),
    # Set when a sweep sent the task; past it, the task counts as lost and is sent again.
    Column("leased_until", Moment, nullable=True),
    Column("dispatches", Integer, nullable=False),
    PrimaryKeyConstraint("game_id", "decision", "which", name="pk_deadlines"),
    Index("ix_deadlines_fire_at", "fire_at"),
)
"""One row per alarm the clock owes a game: a decision's deadline or one of its reminders."""


# ------------------------------------------------------------------------ pure part


@dataclass(frozen=True, slots=True)
class Alarm:
    """What the clock owes: ``which`` of ``decision`` at ``fire_at`` (Unix ms)."""

    decision: int
    player: int
    kind: str
    which: str
    fire_at: int
    deadline: int


@dataclass(frozen=True, slots=True)
class Due:
    """A claimed alarm: the task to send."""

    game_id: str
    decision: int
    which: str
    fire_at: datetime
    deadline: datetime


def soon_before(turn_ms: int) -> int:
    """How long before the deadline the "soon" reminder goes: a sixth of the turn, at most
    an hour (blitz 10 s, normal 30 s, relaxed 10 min, async 1 h)."""
    return min(turn_ms // 6, SOON_AT_MOST_MS)


def alarms_for(
    decision: int,
    player: int,
    kind: str,
    opened_at: int,
    deadline: int,
    computer_ms: int | None = None,
) -> list[Alarm]:
    """The alarms of a decision opened at ``opened_at`` (ms) with ``deadline`` (ms), in
    firing order. A reminder that would fire before the decision opened is dropped. With
    ``computer_ms``, the computer makes the decision that long after it opened (and no
    reminder goes to a seat nobody reads)."""
    # Whole seconds: the opening time is when the event was recorded, a few ms after the
    # command's clock reading the deadline was computed from.
    turn = round((deadline - opened_at) / 1000) * 1000
    alarms: list[Alarm] = []
    if computer_ms is not None:
        at = min(opened_at + computer_ms, deadline)
        alarms.append(Alarm(decision, player, kind, COMPUTER, at, deadline))
    elif turn > 0:
        for which, at in ((HALF, deadline - turn // 2), (SOON, deadline - soon_before(turn))):
            if opened_at < at < deadline and (not alarms or at > alarms[-1].fire_at):
                alarms.append(Alarm(decision, player, kind, which, at, deadline))
    alarms.append(Alarm(decision, player, kind, TIMEOUT, deadline, deadline))
    return alarms


def to_datetime(ms: int) -> datetime:
    return datetime.fromtimestamp(ms / 1000, tz=UTC)


def to_ms(moment: datetime) -> int:
    return round(_aware(moment).timestamp() * 1000)


# ------------------------------------------------------------------------- projection


def apply(
    conn: Connection,
    game_id: str,
    type_: str,
    payload: Payload,
    recorded_at: datetime,
    computer_pause: timedelta = DEFAULT_COMPUTER_PAUSE,
) -> None:
    """Bring the ``deadlines`` rows of ``game_id`` up to date with one recorded event
    (its stored type and payload: the projection needs no rules engine)."""
    game = delete(deadlines).where(deadlines.c.game_id == game_id)
    if type_ == DecisionOpened.TYPE:
        # One decision is owed at a time: a new one means the last was made.
        conn.execute(game)
        opened = to_ms(recorded_at)
        pause = round(computer_pause.total_seconds() * 1000)
        alarms = alarms_for(
            int(payload["decision"]),
            int(payload["player"]),
            str(payload["kind"]),
            opened,
            int(payload["deadline"]),
            pause if payload.get("computer") else None,
        )
        conn.execute(
            insert(deadlines),
            [
                {
                    "game_id": game_id,
                    "decision": a.decision,
                    "which": a.which,
                    "player": a.player,
                    "kind": a.kind,
                    "fire_at": to_datetime(a.fire_at),
                    "deadline": to_datetime(a.deadline),
                    "leased_until": None,
                    "dispatches": 0,
                }
                for a in alarms
            ],
        )
    elif type_ == DecisionTimedOut.TYPE:
        conn.execute(game.where(deadlines.c.decision == payload["decision"]))
    elif type_ == PlayerReminded.TYPE:
        conn.execute(
            game.where(
                deadlines.c.decision == payload["decision"], deadlines.c.which == payload["which"]
            )
        )
    elif type_ in (RoundEnded.TYPE, GameEnded.TYPE, GameCancelled.TYPE):
        conn.execute(game)


WATCHED: Final = frozenset(
    cls.TYPE
    for cls in (
        DecisionOpened,
        DecisionTimedOut,
        PlayerReminded,
        RoundEnded,
        GameEnded,
        GameCancelled,
    )
)


def projector(
    engine: Engine, store: EventStore, computer_pause: timedelta = DEFAULT_COMPUTER_PAUSE
) -> Projector:
    """The deadlines' projector. Several sweepers may run it: one finding another at work
    leaves the log to it rather than queueing."""

    def project_one(conn: Connection, record: StoredEvent) -> None:
        if record.type in WATCHED:
            apply(
                conn,
                record.stream_id,
                record.type,
                record.payload,
                record.recorded_at,
                computer_pause,
            )

    return Projector(engine, store, EachEvent(PROJECTION, (deadlines,), project_one), wait=False)


def project(
    engine: Engine,
    store: EventStore,
    batch: int = 1000,
    computer_pause: timedelta = DEFAULT_COMPUTER_PAUSE,
) -> int:
    """Apply the event log from where this projection stopped; return how many events."""
    return projector(engine, store, computer_pause).catch_up(batch)


def rebuild(
    engine: Engine, store: EventStore, computer_pause: timedelta = DEFAULT_COMPUTER_PAUSE
) -> int:
    """Empty the deadlines (never the events) and project the whole log again."""
    return projector(engine, store, computer_pause).rebuild()


# ----------------------------------------------------------------------------- sweeper


def lease_for(lease: timedelta, dispatches: int) -> timedelta:
    """The lease of an alarm sent ``dispatches`` times before: doubled each time, up to
    :data:`MAX_LEASE_FACTOR` times ``lease``.

    >>> [lease_for(timedelta(seconds=5), n).seconds for n in (0, 1, 2, 3, 4, 9)]
    [5, 10, 20, 40, 80, 80]
    """
    return lease * min(1 << min(dispatches, 30), MAX_LEASE_FACTOR)


def claim_due(
    conn: Connection,
    now: datetime,
    lease: timedelta = DEFAULT_LEASE,
    lookahead: timedelta = timedelta(0),
    limit: int = 1000,
) -> list[Due]:
    """Lease the alarms due by ``now + lookahead`` that no live task holds, earliest first.

    Call inside a transaction; commit, then send one task per :class:`Due` (to run at its
    ``fire_at``). A reminder is sent for as long as its row is here, that is while its
    decision is open, even when it comes late (its worker died, its deadline passed
    meanwhile): the rules engine reminds only a player who still owes the decision, and
    the reminder says how much time is left, or that none is.
    """
    c = deadlines.c
    query = (
        select(deadlines)
        .where(c.fire_at <= now + lookahead, c.leased_until.is_(None) | (c.leased_until <= now))
        .order_by(c.fire_at)
        .limit(limit)
    )
    if conn.dialect.name == "postgresql":
        # Concurrent sweepers each take different rows and never wait on each other.
        query = query.with_for_update(skip_locked=True)
    rows = conn.execute(query).mappings().all()
    key = tuple_(c.game_id, c.decision, c.which)
    by_dispatches: dict[int, list[tuple[str, int, str]]] = {}
    for r in rows:
        by_dispatches.setdefault(r["dispatches"], []).append(_key(r))
    for dispatches, keys in by_dispatches.items():
        # Every claimed alarm fires by now + lookahead: its task has its lease after that.
        conn.execute(
            update(deadlines)
            .where(key.in_(keys))
            .values(
                leased_until=now + lookahead + lease_for(lease, dispatches),
                dispatches=c.dispatches + 1,
            )
        )
    return [
        Due(r["game_id"], r["decision"], r["which"], _aware(r["fire_at"]), _aware(r["deadline"]))
        for r in rows
    ]


def sweep(
    engine: Engine,
    store: EventStore,
    send: Callable[[Due], None],
    now: datetime,
    lease: timedelta = DEFAULT_LEASE,
    lookahead: timedelta = timedelta(0),
    computer_pause: timedelta = DEFAULT_COMPUTER_PAUSE,
) -> list[Due]:
    """Catch the projection up, claim what is due, commit, then ``send`` each claim.

    Sending only after the commit means a task never runs before its lease is visible; a
    send that fails (or a message the broker loses) leaves the lease to run out, and a
    later sweep sends it again. One failed send is logged and the others still go: the
    claims returned are those sent.
    """
    project(engine, store, computer_pause=computer_pause)
    with writer(engine) as conn:
        claimed = claim_due(conn, now, lease, lookahead)
    sent: list[Due] = []
    for due in claimed:
        try:
            send(due)
        except Exception:
            # Its lease stays: once it runs out, a later sweep claims and sends it again.
            log.exception("sending %s of %s/%s failed", due.which, due.game_id, due.decision)
        else:
            sent.append(due)
    return sent


def complete(conn: Connection, game_id: str, decision: int, which: str) -> None:
    """The task of an alarm ran, whatever it appended: the alarm is done."""
    c = deadlines.c
    conn.execute(
        delete(deadlines).where(c.game_id == game_id, c.decision == decision, c.which == which)
    )


def pending(conn: Connection, game_ids: Iterable[str] | None = None) -> Sequence[RowMapping]:
    """The alarms not fired yet, earliest first (for tests, the benchmark and operators)."""
    query = select(deadlines).order_by(deadlines.c.fire_at)
    if game_ids is not None:
        query = query.where(deadlines.c.game_id.in_(list(game_ids)))
    return conn.execute(query).mappings().all()


def _key(row: RowMapping) -> tuple[str, int, str]:
    return (row["game_id"], row["decision"], row["which"])


def _aware(moment: datetime) -> datetime:
    # SQLite hands back naive datetimes; they were stored in UTC.
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
