"""What a finished game rates, and how: its matches read from the stored events, whom each
seat's rating belongs to, openskill's Plackett-Luce model run on them, and the rating
shown (the rules: ``docs/ratings.md``; the read model: :mod:`infra.rating_projection`).
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Final

from openskill.models import PlackettLuce, PlackettLuceRating

from domain.decide.lobby import COMPUTER_MARK, COMPUTER_NAMES
from infra.event_store import StoredEvent

ALL_TIME: Final = "all"
# The global tables' "group": every group's games rated together (no Telegram chat is 0).
GLOBAL: Final = 0
# The rating shown: the conservative estimate mu - 3 sigma, scaled so the prior is 1000.
SHOWN_BASE: Final = 1000
SHOWN_SCALE: Final = 40

MODEL: Final = PlackettLuce()

# A computer player's level: its rating key's place (normal: its name's key itself).
DEFAULT_LEVEL: Final = "normal"
LEVEL_STRIDE: Final = 10_000_000  # beyond every name's key (at most 1,000,999)
_LEVEL_RANKS: Final = {"normal": 0, "easy": 1, "hard": 2}


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


def seat_keys(game: RatedGame) -> dict[int, int]:
    """Each seat's rating key (:func:`rating_key`)."""
    return {
        p: rating_key(
            p, game.names.get(p, ""), p in game.computers, game.levels.get(p, DEFAULT_LEVEL)
        )
        for p in game.seating
    }


def keyed(key: dict[int, int], match: Match) -> Match:
    """``match`` with each seat replaced by whom its rating belongs to (``key``)."""
    return Match(tuple(tuple(key[p] for p in team) for team in match.teams), match.ranks)
