"""Achievements earned, a read model built from the log (the rules: :mod:`domain.achievements`).

At each ``game_ended`` the game's stream is read back and every person seated in it (no
computer player; no practice game, no imported one) is given the achievements the game
meets and they did not hold yet, recorded under that game. A person's earlier results
(their finished games and wins) are kept beside, so a rebuild replays the same games in
the same order and awards the same set; the games played before achievements existed
award theirs the first time the projector runs, and nothing announces those: only the
game whose end is being announced is told (:mod:`tgbot.game_over`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Final

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
    func,
    insert,
    select,
    update,
)

from domain import achievements as rules
from domain import codec
from infra.db import reader
from infra.event_store import EventStore, StoredEvent
from infra.projector import Projector
from infra.schema import metadata

ACHIEVEMENTS_PROJECTOR: Final = "achievements"
# The stored types the achievements read a game from (the moves on the board, the
# decisions and the cards drawn are never read).
READ_TYPES: Final = frozenset(
    {
        "game_created",
        "player_joined",
        "computer_player_added",
        "settings_changed",
        "game_started",
        "round_started",
        "action_played",
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
    """The game a stream tells, if it finished and counts (no practice game)."""
    if not stored:
        return None
    created = stored[0].payload if stored[0].type == "game_created" else {}
    if created.get("practice"):
        return None
    events = [codec.decode(e.type, e.payload, e.schema_version) for e in stored]
    game = rules.game_of(events)
    if game is None:
        return None
    names: dict[int, str] = {}
    computers: set[int] = set()
    for event in stored:
        p = event.payload
        if event.type == "game_created":
            names[int(p["creator"])] = str(p.get("creator_name", ""))
        elif event.type in ("player_joined", "computer_player_added"):
            names[int(p["player"])] = str(p.get("name", ""))
            if event.type == "computer_player_added":
                computers.add(int(p["player"]))
    people = tuple((p, names.get(p, "")) for p in game.seating if p not in computers)
    return FinishedGame(stored[-1].stream_id, stored[-1].recorded_at, game, people)


def award(conn: Connection, finished: FinishedGame) -> None:
    """Record what one finished game earned its people (once: a game seen is skipped)."""
    seen = conn.execute(
        select(player_achievements.c.stream_id)
        .where(player_achievements.c.stream_id == finished.stream_id)
        .limit(1)
    ).first()
    if seen is not None:
        return
    ids = [p for p, _ in finished.people]
    a, t = achievement_players.c, player_achievements.c
    results = {
        row.player_id: (row.games, row.wins)
        for row in conn.execute(select(achievement_players).where(a.player_id.in_(ids)))
    }
    held: dict[int, set[str]] = {}
    for row in conn.execute(select(t.player_id, t.achievement).where(t.player_id.in_(ids))):
        held.setdefault(int(row.player_id), set()).add(str(row.achievement))
    new: list[dict[str, object]] = []
    game = finished.game
    for player, name in finished.people:
        games, wins = results.get(player, (0, 0))
        earlier = rules.Earlier(games, wins)
        for achievement in rules.earned(game, player, earlier):
            if achievement not in held.get(player, set()):
                new.append(
                    {
                        "player_id": player,
                        "achievement": achievement,
                        "stream_id": finished.stream_id,
                        "earned_at": finished.finished_at,
                    }
                )
        won = int(player in game.winners)
        if player in results:
            conn.execute(
                update(achievement_players)
                .where(a.player_id == player)
                .values(name=name, games=games + 1, wins=wins + won)
            )
        else:
            conn.execute(
                insert(achievement_players).values(player_id=player, name=name, games=1, wins=won)
            )
    if new:
        conn.execute(insert(player_achievements), new)


@dataclass(frozen=True)
class _Achievements:
    store: EventStore
    name: str = ACHIEVEMENTS_PROJECTOR
    tables: Sequence[Table] = ACHIEVEMENT_TABLES
    types: frozenset[str] = frozenset({"game_ended"})

    def prepare(self, events: Sequence[StoredEvent]) -> list[FinishedGame]:
        ended = [e.stream_id for e in events if e.type == "game_ended"]
        loaded = (
            finished_game(self.store.load(g, with_metadata=False, types=READ_TYPES)) for g in ended
        )
        return [game for game in loaded if game is not None]

    def apply(
        self, conn: Connection, events: Sequence[StoredEvent], prepared: list[FinishedGame]
    ) -> None:
        for finished in prepared:
            award(conn, finished)


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
