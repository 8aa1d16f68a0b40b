"""Per-game claims: which bot instance announces which game, kept in the database.

Every instance registers itself (``instances``) and claims games (``game_claims``) for a
short time (:data:`CLAIM_TTL_MS`), renewing both every :data:`RENEW_EVERY_MS`. An
instance announces only the games it holds. One that dies stops renewing: its games are
free once their claims lapsed, and the others take them at their next step, within 1.8 s
(``CLAIM_TTL_MS + RENEW_EVERY_MS``). An instance may give games up at any time (it stops,
or its calls to Telegram keep failing), and another takes them at its next step; one that
stops leaves the live instances at once (:meth:`Claims.drain`), keeping only the games it
still delivers for.

:meth:`Claims.step` spreads the games over the live instances: each aims at its fair
share (the games divided by the live instances, rounded up), takes free games up to it
and gives up what is over it, so a new instance gets games within two steps.

Times are Unix milliseconds from the caller's clock (the instances' clocks are assumed
synchronised, as NTP keeps them, far within a second). Every change is one short
transaction; a claim is taken or renewed by a compare-and-set on its row, so two
instances never both hold a game.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable
from typing import Final

from sqlalchemy import (
    BigInteger,
    Column,
    Engine,
    Index,
    String,
    Table,
    delete,
    func,
    select,
    update,
)
from sqlalchemy.engine import Connection

from infra.db import insert_for, reader, writer
from infra.schema import metadata

CLAIM_TTL_MS: Final = 1_500
RENEW_EVERY_MS: Final = 300

instances = Table(
    "instances",
    metadata,
    Column("holder", String(100), primary_key=True),
    Column("expires_at", BigInteger, nullable=False),  # Unix ms
)
"""The bot instances alive: each renews its row while it runs."""

game_claims = Table(
    "game_claims",
    metadata,
    Column("stream_id", String(200), primary_key=True),
    Column("holder", String(100), nullable=False),
    Column("expires_at", BigInteger, nullable=False),  # Unix ms
    Index("ix_game_claims_holder", "holder"),
)
"""Which instance announces which game, until when."""


class Claims:
    """The claims of one instance, ``holder`` (a name unique among the instances)."""

    def __init__(self, engine: Engine, holder: str, ttl_ms: int = CLAIM_TTL_MS) -> None:
        self.engine = engine
        self.holder = holder
        self.ttl_ms = ttl_ms

    def heartbeat(self, now_ms: int) -> frozenset[str]:
        """Renew this instance and every claim it still holds; return the games held.

        A claim that lapsed and was taken by another instance is no longer held; one that
        lapsed but nobody took is renewed.
        """
        expires = now_ms + self.ttl_ms
        with writer(self.engine) as conn:
            conn.execute(
                insert_for(conn, instances)
                .values(holder=self.holder, expires_at=expires)
                .on_conflict_do_update(index_elements=["holder"], set_={"expires_at": expires})
            )
            conn.execute(
                update(game_claims)
                .where(game_claims.c.holder == self.holder)
                .values(expires_at=expires)
            )
            return self._held(conn)

    def take(self, game_ids: Iterable[str], now_ms: int) -> frozenset[str]:
        """Claim those of ``game_ids`` that nobody holds or whose holder's claim lapsed;
        return those of them this instance holds now (taken, or held already)."""
        ids = sorted(set(game_ids))
        if not ids:
            return frozenset()
        expires = now_ms + self.ttl_ms
        with writer(self.engine) as conn:
            statement = insert_for(conn, game_claims).values(
                [{"stream_id": g, "holder": self.holder, "expires_at": expires} for g in ids]
            )
            statement = statement.on_conflict_do_update(
                index_elements=["stream_id"],
                set_={"holder": self.holder, "expires_at": expires},
                where=(game_claims.c.holder == self.holder) | (game_claims.c.expires_at < now_ms),
            ).returning(game_claims.c.stream_id)
            return frozenset(conn.execute(statement).scalars())

    def give_up(self, game_ids: Iterable[str] | None = None) -> None:
        """Release ``game_ids`` (every game, without it) so another instance takes them
        at once; games held by others are left alone."""
        query = delete(game_claims).where(game_claims.c.holder == self.holder)
        if game_ids is not None:
            ids = list(game_ids)
            if not ids:
                return
            query = query.where(game_claims.c.stream_id.in_(ids))
        with writer(self.engine) as conn:
            conn.execute(query)

    def drain(self, keep: Collection[str], now_ms: int) -> frozenset[str]:
        """Stopping: leave the live instances (the others' fair shares grow at once),
        give up every game but ``keep`` (games whose deliveries are under way here), renew
        those; return the games still held."""
        expires = now_ms + self.ttl_ms
        mine = game_claims.c.holder == self.holder
        with writer(self.engine) as conn:
            conn.execute(delete(instances).where(instances.c.holder == self.holder))
            conn.execute(delete(game_claims).where(mine, game_claims.c.stream_id.not_in(keep)))
            conn.execute(update(game_claims).where(mine).values(expires_at=expires))
            return self._held(conn)

    def leave(self) -> None:
        """Stop: give every game up and leave the live instances (a clean shutdown)."""
        with writer(self.engine) as conn:
            conn.execute(delete(game_claims).where(game_claims.c.holder == self.holder))
            conn.execute(delete(instances).where(instances.c.holder == self.holder))

    def held(self) -> frozenset[str]:
        with reader(self.engine) as conn:
            return self._held(conn)

    def holders(self, game_ids: Iterable[str], now_ms: int) -> dict[str, str]:
        """The live holder of each of ``game_ids`` that has one."""
        ids = list(game_ids)
        if not ids:
            return {}
        with reader(self.engine) as conn:
            rows = conn.execute(
                select(game_claims.c.stream_id, game_claims.c.holder).where(
                    game_claims.c.stream_id.in_(ids), game_claims.c.expires_at >= now_ms
                )
            ).all()
        return {row.stream_id: row.holder for row in rows}

    def live_instances(self, now_ms: int) -> list[str]:
        with reader(self.engine) as conn:
            return list(
                conn.execute(
                    select(instances.c.holder)
                    .where(instances.c.expires_at >= now_ms)
                    .order_by(instances.c.holder)
                ).scalars()
            )

    def step(
        self, candidates: Collection[str], now_ms: int, busy: Collection[str] = ()
    ) -> frozenset[str]:
        """One round of the claim loop, every :data:`RENEW_EVERY_MS`: renew, then take
        free games among ``candidates`` (the games that need an announcer) up to this
        instance's fair share, or give up what is over it. Returns the games held.

        The share counts every game claimed by any live instance, and the free ones: an
        instance holding games it already announced still takes its part of the new ones
        (counting only its own would leave new games to nobody). ``busy``: games never
        given up in this step (deliveries of theirs are under way)."""
        held = self.heartbeat(now_ms)
        live = max(1, len(self.live_instances(now_ms)))
        others = {
            game: holder
            for game, holder in self.holders(candidates, now_ms).items()
            if holder != self.holder
        }
        free = sorted(g for g in candidates if g not in held and g not in others)
        share = fair_share(self.claimed(now_ms) + len(free), live)
        if len(held) > share:
            # Games with deliveries under way here are kept until those end: given up
            # mid-send, the next holder could send again what is on its way.
            idle = sorted(g for g in held if g not in busy)
            surplus = idle[: len(held) - share]
            self.give_up(surplus)
            return held - set(surplus)
        wanted = free[: share - len(held)]
        return held | self.take(wanted, now_ms) if wanted else held

    def claimed(self, now_ms: int) -> int:
        """How many games the live instances hold."""
        with reader(self.engine) as conn:
            return int(
                conn.execute(
                    select(func.count())
                    .select_from(game_claims)
                    .where(game_claims.c.expires_at >= now_ms)
                ).scalar_one()
            )

    def _held(self, conn: Connection) -> frozenset[str]:
        return frozenset(
            conn.execute(
                select(game_claims.c.stream_id).where(game_claims.c.holder == self.holder)
            ).scalars()
        )


def fair_share(games: int, live_instances: int) -> int:
    """How many games one of ``live_instances`` instances aims to hold.

    >>> fair_share(10, 3), fair_share(0, 2), fair_share(5, 1)
    (4, 0, 5)
    """
    return math.ceil(games / max(1, live_instances))
