"""The ratings read model: each finished game's ratings in its group's and the global
tables, for its season and all time, and its changes to its players' season ratings in
its group, written as the game's end is projected (what a game rates:
:mod:`infra.rating_model`; the queries: :mod:`infra.ratings`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Connection,
    DateTime,
    Engine,
    Float,
    Index,
    Integer,
    PrimaryKeyConstraint,
    String,
    Table,
    bindparam,
    exists,
    insert,
    select,
)
from sqlalchemy.dialects import sqlite

from infra.bulk import arrays, unnest_inserts
from infra.db import is_postgres
from infra.event_store import EventStore, StoredEvent
from infra.projector import Projector, Streams, ended_games
from infra.rating_model import (
    ALL_TIME,
    GLOBAL,
    MODEL,
    RATED_TYPES,
    RatedGame,
    keyed,
    rate,
    rated_game,
    season_of,
    seat_keys,
    shown,
)
from infra.schema import metadata

RATINGS_PROJECTOR: Final = "ratings"

player_ratings = Table(
    "player_ratings",
    metadata,
    Column("chat_id", BigInteger, nullable=False),
    Column("season", String(8), nullable=False),  # "2026Q4", or "all"
    Column("edition", String(20), nullable=False),
    Column("player_id", BigInteger, nullable=False),  # a computer's name: a negative key
    Column("name", String(200), nullable=False),
    Column("computer", Boolean, nullable=False),
    Column("mu", Float, nullable=False),
    Column("sigma", Float, nullable=False),
    Column("games", Integer, nullable=False),
    Column("last_change", Integer, nullable=False),  # the shown rating's change, last game
    Column("updated_at", DateTime(timezone=True), nullable=False),
    PrimaryKeyConstraint("chat_id", "season", "edition", "player_id", name="pk_player_ratings"),
    Index("ix_player_ratings_player", "player_id"),
)

rating_changes = Table(
    "rating_changes",
    metadata,
    Column("stream_id", String(200), nullable=False),
    Column("player_id", BigInteger, nullable=False),
    Column("seat", Integer, nullable=False),  # the seat order, for the game-over line
    Column("name", String(200), nullable=False),
    Column("computer", Boolean, nullable=False),
    Column("before", Integer, nullable=False),  # the shown season rating before the game
    Column("after", Integer, nullable=False),
    PrimaryKeyConstraint("stream_id", "player_id", name="pk_rating_changes"),
)
"""Each rated game's changes to its players' season ratings in its group."""

RATING_TABLES = (player_ratings, rating_changes)


# -- the projection ---------------------------------------------------------------------


_KEY: Final = ("chat_id", "season", "edition", "player_id")
_VALUES: Final = ("name", "computer", "mu", "sigma", "games", "last_change", "updated_at")


@dataclass
class _Row:
    values: dict[str, Any]
    new: bool
    dirty: bool = False


# A game's end runs these: they are built once.
# Each row says whether the game ``stream`` rated its player already: a game rates every
# one of its players in every scope, so a game rated before finds its rows so marked.
_ROWS = select(
    player_ratings,
    exists()
    .where(
        rating_changes.c.stream_id == bindparam("stream"),
        rating_changes.c.player_id == player_ratings.c.player_id,
    )
    .label("rated"),
).where(
    player_ratings.c.chat_id.in_(bindparam("chats", expanding=True)),
    player_ratings.c.edition == bindparam("edition"),
    player_ratings.c.season.in_(bindparam("seasons", expanding=True)),
    player_ratings.c.player_id.in_(bindparam("ids", expanding=True)),
)
_RATED = (
    select(rating_changes.c.stream_id)
    .where(rating_changes.c.stream_id.in_(bindparam("streams", expanding=True)))
    .distinct()
)
_CHANGES = insert(rating_changes)


def _save_statement() -> Any:
    """SQLite: the rating rows, inserted or updated in one statement."""
    upsert = sqlite.insert(player_ratings)
    return upsert.on_conflict_do_update(
        index_elements=[player_ratings.c[k] for k in _KEY],
        set_={k: upsert.excluded[k] for k in _VALUES},
    )


_SAVE = _save_statement()
# PostgreSQL: the rows and the changes in one statement (one round trip).
_SAVE_ALL = unnest_inserts((player_ratings, _KEY), (rating_changes, ()))


@dataclass
class _Batch:
    """The rating rows one batch reads and writes, kept in memory until it is written."""

    conn: Connection
    rows: dict[tuple[int, str, str, int], _Row] = field(default_factory=dict)
    changes: list[dict[str, Any]] = field(default_factory=list)

    def load(self, keys: Sequence[tuple[int, str, str, int]], stream: str = "") -> bool:
        """Read the rows of ``keys`` not read yet; return whether one of them says the game
        ``stream`` rated its player already."""
        missing = [k for k in keys if k not in self.rows]
        if not missing:
            return False
        wanted = set(missing)
        rated = False
        # One statement per edition (a game's end: one), on plain columns: the rows of
        # those players in those groups and seasons, of which the wanted ones are kept.
        groups: dict[str, list[tuple[int, str, str, int]]] = {}
        for key in missing:
            groups.setdefault(key[2], []).append(key)
        for edition, keys in groups.items():
            found = self.conn.execute(
                _ROWS,
                {
                    "chats": sorted({k[0] for k in keys}),
                    "edition": edition,
                    "seasons": sorted({k[1] for k in keys}),
                    "ids": sorted({k[3] for k in keys}),
                    "stream": stream,
                },
            ).mappings()
            for row in found:
                key = (row["chat_id"], row["season"], row["edition"], row["player_id"])
                if key in wanted:
                    values = dict(row)
                    rated = rated or bool(values.pop("rated"))
                    self.rows[key] = _Row(values, new=False)
        return rated

    def write(self) -> None:
        saved = [row.values for row in self.rows.values() if row.new or row.dirty]
        if is_postgres(self.conn):
            if saved or self.changes:
                wanted = {**arrays(player_ratings, saved), **arrays(rating_changes, self.changes)}
                self.conn.execute(_SAVE_ALL, wanted)
            return
        if saved:
            self.conn.execute(_SAVE, saved)
        if self.changes:
            self.conn.execute(_CHANGES, self.changes)


def apply_game(batch: _Batch, game: RatedGame) -> bool:
    """Rate one finished game in its group's season and all-time tables, and record its
    season changes; or, when its rows say it was rated already, leave it (False)."""
    key = seat_keys(game)
    matches = [keyed(key, m) for m in game.matches]
    seats = {key[p]: p for p in game.seating}
    season = season_of(game.finished_at)
    # The group's season and all-time tables, and the global ones (every group's games).
    scopes = [(chat, scope) for chat in (game.chat_id, GLOBAL) for scope in (season, ALL_TIME)]
    keys = [(chat, scope, game.edition, k) for chat, scope in scopes for k in seats]
    if batch.load(keys, game.stream_id):
        return False
    # Scopes whose ratings stand alike before the game (a group's first season: its
    # season's and all-time's) stand alike after it: openskill is run once for them.
    rated: dict[tuple[tuple[int, float, float], ...], dict[int, tuple[float, float]]] = {}
    for chat, scope in scopes:
        keys = [(chat, scope, game.edition, k) for k in seats]
        before = {k[3]: batch.rows[k].values for k in keys if k in batch.rows}
        prior = {k: (v["mu"], v["sigma"]) for k, v in before.items()}
        alike = tuple(sorted((k, mu, sigma) for k, (mu, sigma) in prior.items()))
        now = rated.get(alike)
        if now is None:
            now = rated[alike] = rate(prior, matches)
        for k in keys:
            player = k[3]
            old = before.get(player)
            mu, sigma = now.get(player, (MODEL.mu, MODEL.sigma))
            was = shown(old["mu"], old["sigma"]) if old else shown(MODEL.mu, MODEL.sigma)
            is_now = shown(mu, sigma)
            seat = seats[player]
            values = {
                "chat_id": k[0],
                "season": k[1],
                "edition": k[2],
                "player_id": player,
                "name": game.names.get(seat, ""),
                "computer": seat in game.computers,
                "mu": mu,
                "sigma": sigma,
                "games": (old["games"] if old else 0) + 1,
                "last_change": is_now - was,
                "updated_at": game.finished_at,
            }
            row = batch.rows.get(k)
            if row is None:
                batch.rows[k] = _Row(values, new=True)
            else:
                row.values, row.dirty = values, True
            if scope == season and chat == game.chat_id:
                batch.changes.append(
                    {
                        "stream_id": game.stream_id,
                        "player_id": player,
                        "seat": game.seating.index(seat),
                        "name": values["name"],
                        "computer": values["computer"],
                        "before": was,
                        "after": is_now,
                    }
                )
    return True


@dataclass(frozen=True)
class _Ratings:
    """Each ``game_ended`` rates that game, read back from its stream."""

    store: EventStore
    name: str = RATINGS_PROJECTOR
    tables: Sequence[Table] = RATING_TABLES
    types: frozenset[str] = frozenset({"game_ended"})
    reads: frozenset[str] = RATED_TYPES
    with_metadata: bool = False

    def prepare(
        self, events: Sequence[StoredEvent], streams: Streams | None = None
    ) -> list[RatedGame]:
        return ended_games(
            self.store, events, rated_game, with_metadata=False, types=RATED_TYPES, streams=streams
        )

    def apply(
        self, conn: Connection, events: Sequence[StoredEvent], prepared: list[RatedGame]
    ) -> None:
        if not prepared:
            return
        # A game is rated once. A game's end (one game) learns whether it was rated from
        # its rows (apply_game); a batch asks first, as a game's rows may all be read by
        # then, for an earlier game of the batch.
        done: set[str] = set()
        if len(prepared) > 1:
            streams = [g.stream_id for g in prepared]
            done = set(conn.execute(_RATED, {"streams": streams}).scalars())
        batch = _Batch(conn)
        for game in prepared:
            if game.stream_id not in done:
                apply_game(batch, game)
                done.add(game.stream_id)
        batch.write()


def ratings_projection(store: EventStore, name: str = RATINGS_PROJECTOR) -> _Ratings:
    """The ratings read model, for :class:`infra.projector.Projectors`."""
    return _Ratings(store, name)


class RatingsProjector(Projector):
    """Follows the log into the ratings read model."""

    def __init__(self, engine: Engine, store: EventStore, name: str = RATINGS_PROJECTOR):
        super().__init__(engine, store, _Ratings(store, name))
