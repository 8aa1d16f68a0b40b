"""Skill ratings (openskill's Plackett-Luce model), a read model built from the log.

What a finished game rates (see ``docs/ratings.md``):

- each round is one match between the sides of that round: the gold-diggers and the
  saboteurs (base); the blue team, the green team and the saboteurs, each boss, profiteer
  and geologist a side of its own (Saboteur 2). A side that won the round or was paid in
  it ranks first, the others tie second; a round where every side ranks alike tells
  nothing and is left out;
- the final ranking by gold is one match more, every player alone, ties tied.

Ratings are kept per edition, per group (under the chat id the game was played in) and
per season: a calendar quarter of the game's end (``2026Q4``, from the event's recording
time) and ``all`` for all time. Each season starts every player from the model's prior
again; the season's rows stay as its table. Computer players are rated too, each of the
computer's names at each level as a player of its own (a negative key: "🤖 Greta" at
hard is not "🤖 Greta" at normal), and shown apart with their level. Practice
games, imported games (the projector never sees them) and games with a variant are not
rated. A rebuild replays the same games in the same order, so it gives the same numbers.

This module answers the bot's questions (the tables, a game's changes, who is named in
the global tables); what a game rates is :mod:`infra.rating_model`, the read model's rows
are written by :mod:`infra.rating_projection`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final

from sqlalchemy import (
    BigInteger,
    Column,
    DateTime,
    Engine,
    Table,
    delete,
    desc,
    insert,
    select,
)

from infra.botstate import group_chats
from infra.db import reader, writer
from infra.event_store import EventStore

# What a game rates and its read model, named here too: the ratings' one public face.
from infra.rating_model import ALL_TIME as ALL_TIME
from infra.rating_model import GLOBAL as GLOBAL
from infra.rating_model import key_level as key_level
from infra.rating_model import rating_key as rating_key
from infra.rating_model import season_of as season_of
from infra.rating_model import shown as shown
from infra.rating_projection import RATINGS_PROJECTOR as RATINGS_PROJECTOR
from infra.rating_projection import RatingsProjector as RatingsProjector
from infra.rating_projection import player_ratings as player_ratings
from infra.rating_projection import rating_changes as rating_changes
from infra.rating_projection import ratings_projection as ratings_projection
from infra.schema import metadata

RANKED_AFTER: Final = 5  # rated games before a player is ranked in a table
TOP: Final = 10

rating_listed = Table(
    "rating_listed",
    metadata,
    Column("player_id", BigInteger, primary_key=True, autoincrement=False),
    Column("listed_at", DateTime(timezone=True), nullable=False),
)
"""The people who chose to be named in the global tables (``/privacy``): a choice, not a
read model (a rebuild keeps it). Nobody is there by default."""


# -- queries ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Standing:
    player_id: int
    name: str
    rating: int  # as shown
    games: int
    last_change: int
    computer: bool = False

    @property
    def level(self) -> str | None:
        """A computer player's level (None: a person)."""
        return key_level(self.player_id) if self.computer else None


@dataclass(frozen=True, slots=True)
class Change:
    player_id: int
    name: str
    before: int
    after: int
    computer: bool

    @property
    def delta(self) -> int:
        return self.after - self.before


def _standing(row: Any) -> Standing:
    return Standing(
        int(row.player_id),
        str(row.name),
        shown(row.mu, row.sigma),
        int(row.games),
        int(row.last_change),
        bool(row.computer),
    )


def table(
    engine: Engine, chat_ids: Sequence[int], season: str, edition: str, limit: int = TOP
) -> tuple[list[Standing], list[Standing]]:
    """A group's table for a season (or ``all``) and an edition: the people with at
    least :data:`RANKED_AFTER` rated games, best first, and the computer players apart."""
    t = player_ratings.c
    with reader(engine) as conn:
        rows = conn.execute(
            select(player_ratings).where(
                t.chat_id.in_(list(chat_ids)),
                t.season == season,
                t.edition == edition,
                t.games >= RANKED_AFTER,
            )
        ).all()
    standings = sorted(
        (_standing(r) for r in rows), key=lambda s: (-s.rating, -s.games, s.name, s.player_id)
    )
    people = [s for s in standings if not s.computer][:limit]
    computers = [s for s in standings if s.computer][:limit]
    return people, computers


def previous_season(season: str) -> str:
    """The season before ``season``.

    >>> previous_season("2026Q1"), previous_season("2026Q4")
    ('2025Q4', '2026Q3')
    """
    year, _, quarter = season.partition("Q")
    if quarter == "1":
        return f"{int(year) - 1}Q4"
    return f"{year}Q{int(quarter) - 1}"


def champions(engine: Engine, chat_ids: Sequence[int], season: str) -> dict[str, str]:
    """Each edition's champion of a group's ``season``: the name of the person first in
    its table (ranked after :data:`RANKED_AFTER` rated games), where there is one."""
    found: dict[str, str] = {}
    for edition in editions_rated(engine, chat_ids, season):
        people, _ = table(engine, chat_ids, season, edition, limit=1)
        if people:
            found[edition] = people[0].name
    return found


def group_champions(engine: Engine, chat_id: int, season: str) -> dict[str, str]:
    """:func:`champions` of the group ``chat_id`` is now, with the chats it was before a
    migration to a supergroup (a lobby names them: the announcer calls this)."""
    with reader(engine) as conn:
        chats = group_chats(conn, chat_id)
    return champions(engine, chats, season)


def editions_rated(engine: Engine, chat_ids: Sequence[int], season: str) -> list[str]:
    """The editions with rated games in a group's season, base first."""
    t = player_ratings.c
    with reader(engine) as conn:
        found = conn.execute(
            select(t.edition).where(t.chat_id.in_(list(chat_ids)), t.season == season).distinct()
        ).scalars()
        return sorted(found, key=lambda e: (e != "base", e))


def player_standings(
    engine: Engine, player_id: int, chat_ids: Sequence[int], season: str
) -> dict[str, Standing]:
    """A person's season rating per edition in a group, where they have one."""
    t = player_ratings.c
    with reader(engine) as conn:
        rows = conn.execute(
            select(player_ratings)
            .where(
                t.player_id == player_id,
                t.chat_id.in_(list(chat_ids)),
                t.season == season,
            )
            .order_by(desc(t.updated_at))
        ).all()
    found: dict[str, Standing] = {}
    for row in rows:
        found.setdefault(str(row.edition), _standing(row))
    return found


def game_changes(engine: Engine, stream_id: str) -> list[Change]:
    """A rated game's changes to its players' season ratings, in seat order (none: the
    game was not rated, or not yet)."""
    c = rating_changes.c
    with reader(engine) as conn:
        rows = conn.execute(
            select(rating_changes).where(c.stream_id == stream_id).order_by(c.seat)
        ).all()
    return [
        Change(int(r.player_id), str(r.name), int(r.before), int(r.after), bool(r.computer))
        for r in rows
    ]


# -- the global tables and who is named in them ------------------------------------------


def set_listed(engine: Engine, player_id: int, listed: bool, at: datetime) -> None:
    """``/privacy``: whether ``player_id`` is named in the global tables from now on."""
    with writer(engine) as conn:
        conn.execute(delete(rating_listed).where(rating_listed.c.player_id == player_id))
        if listed:
            conn.execute(insert(rating_listed).values(player_id=player_id, listed_at=at))


def is_listed(engine: Engine, player_id: int) -> bool:
    with reader(engine) as conn:
        found = conn.execute(
            select(rating_listed.c.player_id).where(rating_listed.c.player_id == player_id)
        ).first()
    return found is not None


@dataclass(frozen=True, slots=True)
class GlobalTable:
    """An edition's global table: the people named in it with their rank among everyone
    ranked (those who did not choose to be named are counted, not named), and the
    computer players apart."""

    named: list[tuple[int, Standing]]
    unnamed: int
    computers: list[Standing]


def global_table(engine: Engine, season: str, edition: str, limit: int = TOP) -> GlobalTable:
    """The global table of ``season`` (or ``all``) and ``edition``: the ranked people's
    ranks, of which those in the top ``limit`` who chose to be named (``/privacy``) are
    named, the others counted."""
    t = player_ratings.c
    with reader(engine) as conn:
        rows = conn.execute(
            select(player_ratings).where(
                t.chat_id == GLOBAL,
                t.season == season,
                t.edition == edition,
                t.games >= RANKED_AFTER,
            )
        ).all()
        listed = set(conn.execute(select(rating_listed.c.player_id)).scalars())
    standings = sorted(
        (_standing(r) for r in rows), key=lambda s: (-s.rating, -s.games, s.player_id)
    )
    people = [s for s in standings if not s.computer]
    top = list(enumerate(people[:limit], start=1))
    named = [(rank, s) for rank, s in top if s.player_id in listed]
    computers = [s for s in standings if s.computer][:limit]
    return GlobalTable(named, len(top) - len(named), computers)


class Ratings:
    """The ratings read model as its readers ask it, over the event store it follows
    (whose database it reads): each question of a reader that wants it up to date begins
    with :meth:`catch_up`."""

    def __init__(self, store: EventStore) -> None:
        self.store = store

    def catch_up(self) -> None:
        """Follow the log up to its end into the read model."""
        RatingsProjector(self.store.engine, self.store).catch_up()

    def editions_rated(self, chat_ids: Sequence[int], season: str) -> list[str]:
        return editions_rated(self.store.engine, chat_ids, season)

    def table(
        self, chat_ids: Sequence[int], season: str, edition: str, limit: int = TOP
    ) -> tuple[list[Standing], list[Standing]]:
        return table(self.store.engine, chat_ids, season, edition, limit)

    def global_table(self, season: str, edition: str, limit: int = TOP) -> GlobalTable:
        return global_table(self.store.engine, season, edition, limit)

    def player_standings(
        self, player_id: int, chat_ids: Sequence[int], season: str
    ) -> dict[str, Standing]:
        return player_standings(self.store.engine, player_id, chat_ids, season)

    def group_champions(self, chat_id: int, season: str) -> dict[str, str]:
        return group_champions(self.store.engine, chat_id, season)

    def game_changes(self, stream_id: str) -> list[Change]:
        return game_changes(self.store.engine, stream_id)

    def is_listed(self, player_id: int) -> bool:
        return is_listed(self.store.engine, player_id)

    def set_listed(self, player_id: int, listed: bool, at: datetime) -> None:
        set_listed(self.store.engine, player_id, listed, at)
