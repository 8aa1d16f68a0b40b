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
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Final

from openskill.models import PlackettLuce, PlackettLuceRating
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
    delete,
    desc,
    exists,
    insert,
    select,
)
from sqlalchemy.dialects import postgresql, sqlite

from domain.decide.lobby import COMPUTER_MARK, COMPUTER_NAMES
from infra.botstate import group_chats
from infra.db import reader, writer
from infra.event_store import EventStore, StoredEvent
from infra.projector import Projector, Streams, ended_games
from infra.schema import metadata

RATINGS_PROJECTOR: Final = "ratings"
ALL_TIME: Final = "all"
# The global tables' "group": every group's games rated together (no Telegram chat is 0).
GLOBAL: Final = 0
RANKED_AFTER: Final = 5  # rated games before a player is ranked in a table
TOP: Final = 10
# The rating shown: the conservative estimate mu - 3 sigma, scaled so the prior is 1000.
SHOWN_BASE: Final = 1000
SHOWN_SCALE: Final = 40

MODEL: Final = PlackettLuce()

# A computer player's level: its rating key's place (normal: its name's key itself).
DEFAULT_LEVEL: Final = "normal"
LEVEL_STRIDE: Final = 10_000_000  # beyond every name's key (at most 1,000,999)
_LEVEL_RANKS: Final = {"normal": 0, "easy": 1, "hard": 2}

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

rating_listed = Table(
    "rating_listed",
    metadata,
    Column("player_id", BigInteger, primary_key=True, autoincrement=False),
    Column("listed_at", DateTime(timezone=True), nullable=False),
)
"""The people who chose to be named in the global tables (``/privacy``): a choice, not a
read model (a rebuild keeps it). Nobody is there by default."""


# -- what a finished game rates ---------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Match:
    """One openskill match: the teams (player ids) and their ranks (1 best)."""

    teams: tuple[tuple[int, ...], ...]
    ranks: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class RatedGame:
    stream_id: str
    chat_id: int
    edition: str
    finished_at: datetime
    seating: tuple[int, ...]
    names: dict[int, str]
    computers: frozenset[int]
    matches: tuple[Match, ...]
    levels: dict[int, str] = field(default_factory=dict)  # each computer seat's level


# The stored types a game's rating is read from (its other events never are).
RATED_TYPES: Final = frozenset(
    {
        "game_created",
        "player_joined",
        "computer_player_added",
        "computer_player_removed",
        "computer_level_set",
        "settings_changed",
        "game_started",
        "round_started",
        "round_ended",
        "gold_paid",
        "gold_picked",
        "game_ended",
    }
)

# The Saboteur 2 roles that are a side each, alone: they are paid by what they did.
SOLO_ROLES: Final = frozenset({"boss", "profiteer", "geologist"})


def season_of(moment: datetime) -> str:
    """The season (a calendar quarter, UTC) a moment falls in.

    >>> from datetime import UTC, datetime
    >>> season_of(datetime(2026, 3, 31, 23, 59, tzinfo=UTC))
    '2026Q1'
    >>> season_of(datetime(2026, 4, 1, tzinfo=UTC))
    '2026Q2'
    """
    return f"{moment.year}Q{(moment.month - 1) // 3 + 1}"


def round_match(
    roles: Sequence[tuple[int, str]], winners: Iterable[int], paid: Iterable[int]
) -> Match | None:
    """A round's match: its sides, those that won or were paid first. None when every
    side ranks alike (nobody won, say).

    >>> round_match([(1, "gold_digger"), (2, "saboteur"), (3, "gold_digger")], [2], [2])
    Match(teams=((1, 3), (2,)), ranks=(2, 1))
    """
    sides: dict[str, list[int]] = {}
    for player, role in roles:
        side = f"{role}:{player}" if role in SOLO_ROLES else role
        sides.setdefault(side, []).append(player)
    ahead = set(winners) | set(paid)
    teams = tuple(tuple(members) for members in sides.values())
    ranks = tuple(1 if ahead & set(team) else 2 for team in teams)
    if len(teams) < 2 or len(set(ranks)) < 2:
        return None
    return Match(teams, ranks)


def gold_match(gold: Sequence[tuple[int, int]]) -> Match | None:
    """The final ranking by gold, every player alone (a tie is a tie).

    >>> gold_match([(1, 5), (2, 9), (3, 5)])
    Match(teams=((1,), (2,), (3,)), ranks=(2, 1, 2))
    """
    if len(gold) < 2:
        return None
    ranks = tuple(1 + sum(1 for _, other in gold if other > g) for _, g in gold)
    return Match(tuple((p,) for p, _ in gold), ranks)


def rated_game(stored: Sequence[StoredEvent]) -> RatedGame | None:
    """What a finished game rates, or None: it did not finish, it was a practice game,
    or it was played with a variant (rated nowhere: its odds are another game's)."""
    names: dict[int, str] = {}
    computers: set[int] = set()
    levels: dict[int, str] = {}
    seating: tuple[int, ...] = ()
    chat_id, edition, practice, variant = 0, "base", False, False
    matches: list[Match] = []
    pending: tuple[list[tuple[int, str]], list[int]] | None = None
    paid: list[int] = []

    def close_round() -> None:
        nonlocal pending, paid
        if pending is not None:
            match = round_match(pending[0], pending[1], paid)
            if match is not None:
                matches.append(match)
        pending, paid = None, []

    for event in stored:
        p: dict[str, Any] = event.payload
        match event.type:
            case "game_created":
                chat_id, edition = int(p["chat_id"]), str(p["edition"])
                names[int(p["creator"])] = str(p.get("creator_name", ""))
                practice = bool(p.get("practice", False))
                variant = variant or _has_variant(p)
            case "player_joined" | "computer_player_added":
                names[int(p["player"])] = str(p.get("name", ""))
                if event.type == "computer_player_added":
                    computers.add(int(p["player"]))
                    # Events older than levels seated a normal computer player.
                    levels[int(p["player"])] = str(p.get("level") or DEFAULT_LEVEL)
            case "computer_player_removed":
                computers.discard(int(p["player"]))
            case "computer_level_set":
                # One seat's level, or (no player) every computer player's seated so far.
                chosen = [int(p["player"])] if p.get("player") is not None else computers
                levels.update(dict.fromkeys(chosen, str(p["level"])))
            case "settings_changed":
                edition = str(p.get("edition", edition))
                # None (or no field): the change left the variants as they were.
                variant = _has_variant(p) if p.get("variants") is not None else variant
            case "game_started":
                seating = tuple(int(x) for x in p["seating"])
            case "round_ended":
                close_round()
                roles = [(int(player), str(role)) for player, role in p.get("roles", [])]
                pending = (roles, [int(w) for w in p.get("winners", [])])
            case "gold_paid":
                paid.extend(int(player) for player, amount in p.get("payouts", []) if amount)
            case "gold_picked":
                paid.append(int(p["player"]))
            case "round_started":
                close_round()
            case "game_ended":
                close_round()
                if practice or variant:
                    return None
                final = gold_match([(int(pid), int(g)) for pid, g in p.get("gold", [])])
                if final is not None:
                    matches.append(final)
                return RatedGame(
                    stream_id=event.stream_id,
                    chat_id=chat_id,
                    edition=edition,
                    finished_at=event.recorded_at,
                    seating=seating,
                    names={pid: names.get(pid, "") for pid in seating},
                    computers=frozenset(pid for pid in seating if pid in computers),
                    matches=tuple(matches),
                    levels={
                        pid: levels.get(pid, DEFAULT_LEVEL) for pid in seating if pid in computers
                    },
                )
    return None


def _has_variant(payload: dict[str, Any]) -> bool:
    """Whether a game's settings switch a variant on (docs/rules.md §8: ``variants``, the
    options on, in the creation or a settings event)."""
    return bool(payload.get("variants"))


def rating_key(player: int, name: str, computer: bool, level: str = DEFAULT_LEVEL) -> int:
    """Whom a seat's rating belongs to: a person's own id; a computer player's name at its
    level (each of the computer's names is rated apart at each level, whatever seat it sat
    in), as a negative key: a normal one's is its name's, the other levels' lie
    :data:`LEVEL_STRIDE` further down each (:func:`key_level` reads the level back).

    >>> rating_key(42, "Ann", False), rating_key(-2, "🤖 Greta", True)
    (42, -1)
    >>> rating_key(-2, "🤖 Greta", True, "hard"), rating_key(-3, "🤖 Greta", True, "easy")
    (-20000001, -10000001)
    """
    if not computer:
        return player
    bare = name.removeprefix(COMPUTER_MARK).strip()
    if bare in COMPUTER_NAMES:
        key = 1 + COMPUTER_NAMES.index(bare)
    else:
        key = 1000 + zlib.crc32(bare.encode()) % 1_000_000
    return -(key + LEVEL_STRIDE * _LEVEL_RANKS.get(level, 0))


def key_level(key: int) -> str | None:
    """The level of the computer player a rating key belongs to (None: a person's).

    >>> key_level(42), key_level(-1), key_level(-20000001), key_level(-10001000)
    (None, 'normal', 'hard', 'easy')
    """
    if key >= 0:
        return None
    rank = (-key) // LEVEL_STRIDE
    return next((level for level, r in _LEVEL_RANKS.items() if r == rank), DEFAULT_LEVEL)


def shown(mu: float, sigma: float) -> int:
    """The rating players see: the conservative ``mu - 3 sigma``, scaled.

    >>> shown(25.0, 25.0 / 3), shown(30.0, 2.0)
    (1000, 1960)
    """
    return round(SHOWN_BASE + SHOWN_SCALE * (mu - 3 * sigma))


def rate(
    ratings: dict[int, tuple[float, float]], matches: Sequence[Match]
) -> dict[int, tuple[float, float]]:
    """``ratings`` (mu, sigma per player; the prior for one not there) after ``matches``,
    played in order: openskill's ``rate`` on each."""
    now = dict(ratings)
    for match in matches:
        teams = [
            [MODEL.rating(*now[p]) if p in now else MODEL.rating() for p in team]
            for team in match.teams
        ]
        after = MODEL.rate(teams, ranks=list(match.ranks))
        for team, rated in zip(match.teams, after, strict=True):
            for player, rating in zip(team, rated, strict=True):
                now[player] = _pair(rating)
    return now


def _pair(rating: PlackettLuceRating) -> tuple[float, float]:
    return float(rating.mu), float(rating.sigma)


def _keys(game: RatedGame) -> dict[int, int]:
    """Each seat's rating key (:func:`rating_key`)."""
    return {
        p: rating_key(
            p, game.names.get(p, ""), p in game.computers, game.levels.get(p, DEFAULT_LEVEL)
        )
        for p in game.seating
    }


def _keyed(key: dict[int, int], match: Match) -> Match:
    """``match`` with each seat replaced by whom its rating belongs to (``key``)."""
    return Match(tuple(tuple(key[p] for p in team) for team in match.teams), match.ranks)


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


def _save_statement(dialect: str) -> Any:
    """The rating rows, inserted or updated in one statement."""
    upsert = (postgresql.insert if dialect == "postgresql" else sqlite.insert)(player_ratings)
    return upsert.on_conflict_do_update(
        index_elements=[player_ratings.c[k] for k in _KEY],
        set_={k: upsert.excluded[k] for k in _VALUES},
    )


_SAVE = {dialect: _save_statement(dialect) for dialect in ("postgresql", "sqlite")}


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
        if saved:
            self.conn.execute(_SAVE[self.conn.dialect.name], saved)
        if self.changes:
            self.conn.execute(_CHANGES, self.changes)


def apply_game(batch: _Batch, game: RatedGame) -> bool:
    """Rate one finished game in its group's season and all-time tables, and record its
    season changes; or, when its rows say it was rated already, leave it (False)."""
    key = _keys(game)
    keyed = [_keyed(key, m) for m in game.matches]
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
            now = rated[alike] = rate(prior, keyed)
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
