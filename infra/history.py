"""Read models of finished games: a group's history and its players' figures.

``finished_games`` lists each finished game (date, edition, players, winners, gold);
``chat_player_stats`` keeps each player's games, wins and gold per group; ``role_wins``
counts the rounds each player won with each dwarf, per group. A game played with a variant
(docs/rules.md §8: its creation or settings events' ``variants``) is counted apart: in the
``variant_*`` columns of ``chat_player_stats`` only, and in no round won by role. Those
figures are people's:
the computer players' seats are counted apart, all together per group, in
``chat_computer_stats``, and a practice game (one person and computer players) is listed
but counted nowhere. They are rebuilt from the
log by :class:`HistoryProjector`: when a game ends, its stream's stored events are read
back and summarised, so nothing but the log is ever trusted. An imported game
(:func:`infra.archive.is_imported`) never reaches them: it was played elsewhere.
:mod:`infra.history_queries` reads them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import (
    BigInteger,
    Column,
    Connection,
    DateTime,
    Engine,
    Index,
    Integer,
    PrimaryKeyConstraint,
    String,
    Table,
    insert,
    select,
    text,
    update,
)

from infra.event_store import EventStore, StoredEvent
from infra.projector import Projector, Streams, ended_games
from infra.schema import Json, metadata

HISTORY_PROJECTOR = "history"

finished_games = Table(
    "finished_games",
    metadata,
    Column("stream_id", String(200), primary_key=True),
    Column("chat_id", BigInteger, nullable=False),
    Column("edition", String(20), nullable=False),
    Column("players", Json, nullable=False),  # [{"id": …, "name": …}] in seat order
    Column("winners", Json, nullable=False),  # [player id]
    Column("gold", Json, nullable=False),  # [[player id, gold]] in seat order
    Column("rounds", Integer, nullable=False),
    # The variants played (docs/rules.md §8), in their order; [] for a plain game.
    Column("variants", Json, nullable=False, server_default=text("'[]'")),
    Column("started_at", DateTime(timezone=True), nullable=False),
    Column("finished_at", DateTime(timezone=True), nullable=False),
    Index("ix_finished_games_chat_finished", "chat_id", "finished_at"),
)

chat_player_stats = Table(
    "chat_player_stats",
    metadata,
    Column("chat_id", BigInteger, nullable=False),
    Column("player_id", BigInteger, nullable=False),
    Column("name", String(200), nullable=False),
    Column("games", Integer, nullable=False),
    Column("wins", Integer, nullable=False),
    Column("gold", Integer, nullable=False),
    # The same of the games played with a variant (docs/rules.md §8), counted apart.
    Column("variant_games", Integer, nullable=False, server_default=text("0")),
    Column("variant_wins", Integer, nullable=False, server_default=text("0")),
    Column("variant_gold", Integer, nullable=False, server_default=text("0")),
    PrimaryKeyConstraint("chat_id", "player_id", name="pk_chat_player_stats"),
)

role_wins = Table(
    "role_wins",
    metadata,
    Column("chat_id", BigInteger, nullable=False),
    Column("player_id", BigInteger, nullable=False),
    Column("role", String(30), nullable=False),
    Column("rounds_won", Integer, nullable=False),
    PrimaryKeyConstraint("chat_id", "player_id", "role", name="pk_role_wins"),
)

chat_computer_stats = Table(
    "chat_computer_stats",
    metadata,
    Column("chat_id", BigInteger, primary_key=True, autoincrement=False),
    Column("seats", Integer, nullable=False),  # computer seats in the group's games
    Column("wins", Integer, nullable=False),
    Column("rounds_won", Integer, nullable=False),
    Column("gold", Integer, nullable=False),
)
"""The computer players of a group's games, all together: never mixed with people's."""

VARIANT_COUNTS = ("variant_games", "variant_wins", "variant_gold")

HISTORY_TABLES = (finished_games, chat_player_stats, role_wins, chat_computer_stats)


# -- the summary of one finished game ---------------------------------------------------


@dataclass(frozen=True, slots=True)
class GameSummary:
    stream_id: str
    chat_id: int
    edition: str
    players: tuple[tuple[int, str], ...]  # (id, name) in seat order
    winners: tuple[int, ...]
    gold: tuple[tuple[int, int], ...]
    round_wins: tuple[tuple[int, str], ...]  # (player, role) for each round won
    started_at: datetime
    finished_at: datetime
    rounds: int
    computers: tuple[int, ...] = ()  # the computer players' seats
    practice: bool = False
    variants: tuple[str, ...] = ()  # the variants played (docs/rules.md §8)


def _side(role: str) -> str:
    """The role a round won counts for: the selfish dwarf's (docs/rules.md §8) is the
    gold-diggers'.

    >>> _side("selfish_dwarf"), _side("saboteur")
    ('gold_digger', 'saboteur')
    """
    return "gold_digger" if role == "selfish_dwarf" else role


def summarise(stored: Sequence[StoredEvent]) -> GameSummary | None:
    """What a finished game's stored events say, or None if it did not finish."""
    names: dict[int, str] = {}
    seating: list[int] = []
    chat_id, edition = 0, "base"
    computers: set[int] = set()
    practice = False
    variants: tuple[str, ...] = ()
    started_at: datetime | None = None
    round_wins: list[tuple[int, str]] = []
    rounds = 0
    for event in stored:
        p: dict[str, Any] = event.payload
        match event.type:
            case "game_created":
                chat_id, edition = int(p["chat_id"]), str(p["edition"])
                names[int(p["creator"])] = str(p.get("creator_name", ""))
                practice = bool(p.get("practice", False))
                variants = tuple(str(v) for v in p.get("variants") or ())
            case "player_joined":
                names[int(p["player"])] = str(p.get("name", ""))
            case "computer_player_added":
                names[int(p["player"])] = str(p.get("name", ""))
                computers.add(int(p["player"]))
            case "computer_player_removed":
                computers.discard(int(p["player"]))
            case "settings_changed":
                edition = str(p.get("edition", edition))
                if p.get("variants") is not None:  # None: the variants were left as they were
                    variants = tuple(str(v) for v in p["variants"])
            case "game_started":
                seating = [int(x) for x in p["seating"]]
                started_at = event.recorded_at
            case "round_ended":
                rounds += 1
                roles = {int(player): _side(str(role)) for player, role in p.get("roles", [])}
                round_wins.extend((int(w), roles.get(int(w), "")) for w in p.get("winners", []))
            case "game_ended":
                return GameSummary(
                    stream_id=event.stream_id,
                    chat_id=chat_id,
                    edition=edition,
                    players=tuple((pid, names.get(pid, "")) for pid in seating),
                    winners=tuple(int(w) for w in p.get("winners", [])),
                    gold=tuple((int(pid), int(g)) for pid, g in p.get("gold", [])),
                    round_wins=tuple(round_wins),
                    started_at=started_at or event.recorded_at,
                    finished_at=event.recorded_at,
                    rounds=rounds,
                    computers=tuple(pid for pid in seating if pid in computers),
                    practice=practice,
                    variants=variants,
                )
    return None


def record(conn: Connection, game: GameSummary) -> None:
    """Add a finished game to the read models (once: a game already there is skipped)."""
    seen = conn.execute(
        select(finished_games.c.stream_id).where(finished_games.c.stream_id == game.stream_id)
    ).first()
    if seen is not None:
        return
    conn.execute(
        insert(finished_games).values(
            stream_id=game.stream_id,
            chat_id=game.chat_id,
            edition=game.edition,
            players=[_seat(pid, name, pid in game.computers) for pid, name in game.players],
            winners=list(game.winners),
            gold=[[pid, g] for pid, g in game.gold],
            rounds=game.rounds,
            variants=list(game.variants),
            started_at=game.started_at,
            finished_at=game.finished_at,
        )
    )
    if game.practice:
        return  # listed, never counted
    gold = dict(game.gold)
    computers = set(game.computers)
    # A game with a variant is counted apart (docs/rules.md §8), in the variant_* columns.
    prefix = "variant_" if game.variants else ""
    for pid, name in game.players:
        if pid in computers:
            continue
        counts = {"games": 1, "wins": int(pid in game.winners), "gold": gold.get(pid, 0)}
        _bump(
            conn,
            chat_player_stats,
            {"chat_id": game.chat_id, "player_id": pid},
            {prefix + k: v for k, v in counts.items()},
            {"name": name},
        )
    # The dwarves won with: plain games' rounds only (a variant changes who wins them).
    round_wins = () if game.variants else game.round_wins
    for (pid, role), won in Counter(round_wins).items():
        if pid in computers:
            continue
        _bump(
            conn,
            role_wins,
            {"chat_id": game.chat_id, "player_id": pid, "role": role},
            {"rounds_won": won},
        )
    if computers:
        _bump(
            conn,
            chat_computer_stats,
            {"chat_id": game.chat_id},
            {
                "seats": len(computers),
                "wins": sum(1 for pid in game.winners if pid in computers),
                "rounds_won": sum(1 for pid, _ in game.round_wins if pid in computers),
                "gold": sum(gold.get(pid, 0) for pid in computers),
            },
        )


def _seat(player: int, name: str, computer: bool) -> dict[str, Any]:
    seat: dict[str, Any] = {"id": player, "name": name}
    if computer:
        seat["computer"] = True
    return seat


def _bump(
    conn: Connection,
    table: Table,
    key: dict[str, Any],
    deltas: dict[str, int],
    values: dict[str, Any] | None = None,
) -> None:
    where = [table.c[k] == v for k, v in key.items()]
    row = conn.execute(select(table).where(*where)).mappings().first()
    if row is None:
        zeros = {c.name: 0 for c in table.c if isinstance(c.type, Integer) and c.name not in key}
        conn.execute(insert(table).values(**(zeros | key | deltas | (values or {}))))
        return
    changes = {k: row[k] + v for k, v in deltas.items()} | (values or {})
    conn.execute(update(table).where(*where).values(**changes))


# -- the projector ----------------------------------------------------------------------


@dataclass(frozen=True)
class _History:
    """Each ``game_ended`` adds that game's summary, read back from its stream."""

    store: EventStore
    name: str = HISTORY_PROJECTOR
    tables: Sequence[Table] = HISTORY_TABLES
    types: frozenset[str] = frozenset({"game_ended"})
    reads: frozenset[str] | None = None  # every type, with the metadata
    with_metadata: bool = True

    def prepare(
        self, events: Sequence[StoredEvent], streams: Streams | None = None
    ) -> list[GameSummary]:
        """The summaries of the games that ended, read back before the write lock."""
        return ended_games(self.store, events, summarise, streams=streams)

    def apply(
        self, conn: Connection, events: Sequence[StoredEvent], prepared: list[GameSummary]
    ) -> None:
        for game in prepared:
            record(conn, game)


def history_projection(store: EventStore, name: str = HISTORY_PROJECTOR) -> _History:
    """The history read model, for :class:`infra.projector.Projectors`."""
    return _History(store, name)


class HistoryProjector(Projector):
    """Follows the log into the history read models."""

    def __init__(self, engine: Engine, store: EventStore, name: str = HISTORY_PROJECTOR):
        super().__init__(engine, store, _History(store, name))
