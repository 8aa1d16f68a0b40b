"""Achievements earned, a read model built from the log (the rules: :mod:`domain.achievements`).

At each ``game_ended`` the game's stream is read back and every person seated in it (no
computer player; no practice game, no imported one) is given the achievements the game
meets and they did not hold yet, recorded under that game. A person's earlier results
(their finished games and wins) are kept beside, so a rebuild replays the same games in
the same order and awards the same set; the games played before achievements existed
award theirs the first time the projector runs, and nothing announces those: only the
game whose end is being announced is told (:mod:`tgbot.delivery.game_over`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final

from sqlalchemy import (
    BigInteger,
    Column,
    Connection,
    DateTime,
    Engine,
    Integer,
    PrimaryKeyConstraint,
    String,
    Table,
    bindparam,
    func,
    insert,
    select,
)
from sqlalchemy.dialects import sqlite

from domain import achievements as rules
from domain import events as ev
from domain.codec import decode
from domain.upcasting import RETIRED
from infra.bulk import arrays, unnest_inserts
from infra.db import is_postgres, reader
from infra.event_store import EventStore, StoredEvent
from infra.projector import Projector, Streams, ended_games
from infra.schema import metadata

ACHIEVEMENTS_PROJECTOR: Final = "achievements"
# The action cards played: today's events, and the retired type stored before them.
ACTION_TYPES: Final = frozenset({cls.TYPE for cls in ev.ACTION_EVENTS} | set(RETIRED))
# The stored types the achievements read a game from (the moves on the board, the
# decisions and the cards drawn are never read).
READ_TYPES: Final = frozenset(
    {
        "game_created",
        "player_joined",
        "computer_player_added",
        "settings_changed",
        "game_started",
        *ACTION_TYPES,
        "round_ended",
        "gold_paid",
        "gold_picked",
        "theft_resolved",
        "game_ended",
    }
)

player_achievements = Table(
    "player_achievements",
    metadata,
    Column("player_id", BigInteger, nullable=False),
    Column("achievement", String(40), nullable=False),
    Column("stream_id", String(200), nullable=False),  # the game that earned it
    Column("earned_at", DateTime(timezone=True), nullable=False),
    PrimaryKeyConstraint("player_id", "achievement", name="pk_player_achievements"),
)

achievement_players = Table(
    "achievement_players",
    metadata,
    Column("player_id", BigInteger, primary_key=True, autoincrement=False),
    Column("name", String(200), nullable=False),
    Column("games", Integer, nullable=False),
    Column("wins", Integer, nullable=False),
)
"""The people's results so far, as the achievements count them."""

ACHIEVEMENT_TABLES = (player_achievements, achievement_players)


@dataclass(frozen=True, slots=True)
class FinishedGame:
    stream_id: str
    finished_at: datetime
    game: rules.Game
    people: tuple[tuple[int, str], ...]  # (id, name) of the people seated, in seat order


def finished_game(stored: Sequence[StoredEvent]) -> FinishedGame | None:
    """The game a stream tells, if it finished and counts (no practice game): read from
    the stored payloads as :func:`domain.achievements.game_of` reads the events (decoding
    every event would cost more than the rest together)."""
    names: dict[int, str] = {}
    computers: set[int] = set()
    edition, practice = "base", False
    seating: tuple[int, ...] = ()
    rounds: list[rules.Round] = []
    actions: list[ev.ActionEvent] = []
    thefts: list[ev.TheftResolved] = []
    for event in stored:
        p: dict[str, Any] = event.payload
        match event.type:
            case "game_created":
                names[int(p["creator"])] = str(p.get("creator_name", ""))
                edition, practice = str(p["edition"]), bool(p.get("practice", False))
            case "player_joined" | "computer_player_added":
                names[int(p["player"])] = str(p.get("name", ""))
                if event.type == "computer_player_added":
                    computers.add(int(p["player"]))
            case "settings_changed":
                edition = str(p.get("edition", edition))
            case "game_started":
                seating = tuple(int(x) for x in p["seating"])
            case kind if kind in ACTION_TYPES:  # few: decoded
                played = decode(kind, p, event.schema_version)
                assert isinstance(played, ev.ACTION_EVENTS)
                actions.append(played)
            case "round_ended":
                reached = p.get("reached_by") if p.get("treasure_reached") else None
                rounds.append(
                    rules.Round(
                        {int(x): str(role) for x, role in p.get("roles", [])},
                        frozenset(int(w) for w in p.get("winners", [])),
                        None if reached is None else int(reached),
                        tuple(actions),
                        {},
                    )
                )
                actions = []
            case "gold_paid" if rounds:
                for player, amount in p.get("payouts", []):
                    paid = rounds[-1].paid
                    paid[int(player)] = paid.get(int(player), 0) + int(amount)
            case "gold_picked" if rounds:
                paid = rounds[-1].paid
                paid[int(p["player"])] = paid.get(int(p["player"]), 0) + int(p["value"])
            case "theft_resolved":
                victim = p.get("victim")
                thefts.append(
                    ev.TheftResolved(int(p["thief"]), None if victim is None else int(victim))
                )
            case "game_ended":
                if practice:
                    return None
                game = rules.Game(
                    edition,
                    seating,
                    tuple(rounds),
                    {int(x): int(g) for x, g in p.get("gold", [])},
                    frozenset(int(w) for w in p.get("winners", [])),
                    tuple(thefts),
                )
                people = tuple((x, names.get(x, "")) for x in seating if x not in computers)
                return FinishedGame(event.stream_id, event.recorded_at, game, people)
    return None


# A game's end runs these: they are built once.
_PEOPLE = (
    select(
        achievement_players.c.player_id,
        achievement_players.c.games,
        achievement_players.c.wins,
        player_achievements.c.achievement,
        player_achievements.c.stream_id,
    )
    .select_from(
        achievement_players.outerjoin(
            player_achievements,
            player_achievements.c.player_id == achievement_players.c.player_id,
        )
    )
    .where(achievement_players.c.player_id.in_(bindparam("ids", expanding=True)))
)
_AWARD = insert(player_achievements)


def _results_statement() -> Any:
    """SQLite: the people's results, inserted or updated in one statement."""
    upsert = sqlite.insert(achievement_players)
    return upsert.on_conflict_do_update(
        index_elements=[achievement_players.c.player_id],
        set_={c: upsert.excluded[c] for c in ("name", "games", "wins")},
    )


_RESULTS = _results_statement()
# PostgreSQL: the awards and the results in one statement (one round trip).
_AWARD_ALL = unnest_inserts((player_achievements, ()), (achievement_players, ("player_id",)))


def award(conn: Connection, games: Sequence[FinishedGame]) -> None:
    """Record what finished games earned their people, in order (once: a game already
    seen is skipped): the batch's people, their results, what they hold and under which
    games are read in one statement, and written in two."""
    ids = sorted({p for g in games for p, _ in g.people})
    batch = {g.stream_id for g in games}
    seen: set[str] = set()
    results: dict[int, tuple[int, int]] = {}
    held: dict[int, set[str]] = {}
    # Every achievement recorded under a game is held by one of its people, and every
    # person holding one has results: a game of the batch seen before shows among them.
    for row in conn.execute(_PEOPLE, {"ids": ids}):
        player = int(row.player_id)
        results[player] = (int(row.games), int(row.wins))
        mine = held.setdefault(player, set())
        if row.achievement is not None:
            mine.add(str(row.achievement))
            if row.stream_id in batch:
                seen.add(str(row.stream_id))
    names: dict[int, str] = {}
    new: list[dict[str, object]] = []
    for finished in games:
        if finished.stream_id in seen:
            continue
        seen.add(finished.stream_id)
        game = finished.game
        for player, name in finished.people:
            games_before, wins = results.get(player, (0, 0))
            mine = held.setdefault(player, set())
            for achievement in rules.earned(game, player, rules.Earlier(games_before, wins)):
                if achievement not in mine:
                    mine.add(achievement)
                    new.append(
                        {
                            "player_id": player,
                            "achievement": achievement,
                            "stream_id": finished.stream_id,
                            "earned_at": finished.finished_at,
                        }
                    )
            results[player] = (games_before + 1, wins + int(player in game.winners))
            names[player] = name
    people = [
        {"player_id": p, "name": name, "games": results[p][0], "wins": results[p][1]}
        for p, name in names.items()
    ]
    if is_postgres(conn):
        if new or people:
            wanted = {**arrays(player_achievements, new), **arrays(achievement_players, people)}
            conn.execute(_AWARD_ALL, wanted)
        return
    if new:
        conn.execute(_AWARD, new)
    if people:
        conn.execute(_RESULTS, people)


@dataclass(frozen=True)
class _Achievements:
    store: EventStore
    name: str = ACHIEVEMENTS_PROJECTOR
    tables: Sequence[Table] = ACHIEVEMENT_TABLES
    types: frozenset[str] = frozenset({"game_ended"})
    reads: frozenset[str] = READ_TYPES
    with_metadata: bool = False

    def prepare(
        self, events: Sequence[StoredEvent], streams: Streams | None = None
    ) -> list[FinishedGame]:
        return ended_games(
            self.store,
            events,
            finished_game,
            with_metadata=False,
            types=READ_TYPES,
            streams=streams,
        )

    def apply(
        self, conn: Connection, events: Sequence[StoredEvent], prepared: list[FinishedGame]
    ) -> None:
        if prepared:
            award(conn, prepared)


def achievements_projection(store: EventStore, name: str = ACHIEVEMENTS_PROJECTOR) -> _Achievements:
    """The achievements read model, for :class:`infra.projector.Projectors`."""
    return _Achievements(store, name)


class AchievementsProjector(Projector):
    """Follows the log into the achievements read model."""

    def __init__(self, engine: Engine, store: EventStore, name: str = ACHIEVEMENTS_PROJECTOR):
        super().__init__(engine, store, _Achievements(store, name))


# -- queries ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Award:
    player_id: int
    achievement: str


def game_awards(engine: Engine, stream_id: str) -> list[Award]:
    """What one game earned, by player, in the list's order."""
    t = player_achievements.c
    with reader(engine) as conn:
        rows = conn.execute(
            select(t.player_id, t.achievement).where(t.stream_id == stream_id)
        ).all()
    order = {name: n for n, name in enumerate(rules.NAMES)}
    found = [Award(int(r.player_id), str(r.achievement)) for r in rows]
    return sorted(found, key=lambda a: (a.player_id, order.get(a.achievement, 99)))


def player_awards(engine: Engine, player_id: int) -> dict[str, datetime]:
    """A person's achievements and when each was earned."""
    t = player_achievements.c
    with reader(engine) as conn:
        rows = conn.execute(
            select(t.achievement, t.earned_at).where(t.player_id == player_id)
        ).all()
    return {str(r.achievement): r.earned_at for r in rows}


def shares(engine: Engine) -> dict[str, float]:
    """The share of the players (people with a finished game) holding each achievement."""
    t = player_achievements.c
    with reader(engine) as conn:
        players = conn.execute(select(func.count()).select_from(achievement_players)).scalar_one()
        counts = conn.execute(select(t.achievement, func.count()).group_by(t.achievement)).all()
    if not players:
        return {}
    return {str(name): int(count) / int(players) for name, count in counts}


class Achievements:
    """The achievements read model as its readers ask it, over the event store it
    follows (whose database it reads): each question of a reader that wants it up to date
    begins with :meth:`catch_up`."""

    def __init__(self, store: EventStore) -> None:
        self.store = store

    def catch_up(self) -> None:
        """Follow the log up to its end into the read model."""
        AchievementsProjector(self.store.engine, self.store).catch_up()

    def game_awards(self, stream_id: str) -> list[Award]:
        return game_awards(self.store.engine, stream_id)

    def player_awards(self, player_id: int) -> dict[str, datetime]:
        return player_awards(self.store.engine, player_id)

    def shares(self) -> dict[str, float]:
        return shares(self.store.engine)
