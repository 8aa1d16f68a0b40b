"""Achievements: what one finished game earned a player, given their earlier results.

Each achievement is a pure function of the game's events and the player's results
before it (:class:`Earlier`); :func:`earned` asks them all. Whether it was earned before
is the read model's business (an achievement is earned once).

Suspicion is public: a player is *suspected* in a round when someone played a broken
tool on them in it (the only move that says "I think you are a saboteur" aloud).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Final

from domain import events as ev
from domain.state import PlayerId

GAMES_MILESTONES: Final = (10, 50, 100)
WINS_MILESTONE: Final = 10
FULL_TABLE: Final = 12
RICH_GOLD: Final = 10
GEOLOGIST_PAY: Final = 5


@dataclass(frozen=True, slots=True)
class Earlier:
    """A player's results before the game: finished games played, and games won."""

    games: int = 0
    wins: int = 0


@dataclass(frozen=True, slots=True)
class Round:
    """One round of the game as the achievements read it."""

    roles: dict[PlayerId, str]
    winners: frozenset[PlayerId]
    reached_by: PlayerId | None
    actions: tuple[ev.ActionEvent, ...]  # the action cards played in it
    paid: dict[PlayerId, int]


@dataclass(frozen=True, slots=True)
class Game:
    """A finished game as the achievements read it."""

    edition: str
    seating: tuple[PlayerId, ...]
    rounds: tuple[Round, ...]
    gold: dict[PlayerId, int]
    winners: frozenset[PlayerId]
    thefts: tuple[ev.TheftResolved, ...] = field(default=())


def game_of(events: Sequence[ev.Event]) -> Game | None:
    """The finished game ``events`` tell (None: it did not finish)."""
    edition = "base"
    seating: tuple[PlayerId, ...] = ()
    rounds: list[Round] = []
    actions: list[ev.ActionEvent] = []
    thefts: list[ev.TheftResolved] = []
    for event in events:
        match event:
            case ev.GameCreated():
                edition = event.edition
            case ev.SettingsChanged():
                edition = event.edition
            case ev.GameStarted():
                seating = tuple(event.seating)
            case ev.RoundStarted():
                actions = []
            case _ if isinstance(event, ev.ACTION_EVENTS):
                actions.append(event)
            case ev.RoundEnded():
                rounds.append(
                    Round(
                        dict(event.roles),
                        frozenset(event.winners),
                        event.reached_by if event.treasure_reached else None,
                        tuple(actions),
                        {},
                    )
                )
            case ev.GoldPaid() if rounds:
                for player, amount in event.payouts:
                    rounds[-1].paid[player] = rounds[-1].paid.get(player, 0) + amount
            case ev.GoldPicked() if rounds:
                paid = rounds[-1].paid
                paid[event.player] = paid.get(event.player, 0) + event.value
            case ev.TheftResolved():
                thefts.append(event)
            case ev.GameEnded():
                return Game(
                    edition,
                    seating,
                    tuple(rounds),
                    dict(event.gold),
                    frozenset(event.winners),
                    tuple(thefts),
                )
            case _:
                pass
    return None


Check = Callable[[Game, PlayerId, Earlier], bool]


def _won_as(role: str) -> Check:
    def check(game: Game, player: PlayerId, earlier: Earlier) -> bool:
        return any(player in r.winners and r.roles.get(player) == role for r in game.rounds)

    return check


def _games(n: int) -> Check:
    return lambda game, player, earlier: earlier.games + 1 >= n


def _suspected(r: Round, player: PlayerId) -> bool:
    return any(isinstance(a, ev.ToolBroken) and a.target == player for a in r.actions)


def _unsuspected_saboteur(game: Game, player: PlayerId, earlier: Earlier) -> bool:
    return any(
        player in r.winners and r.roles.get(player) == "saboteur" and not _suspected(r, player)
        for r in game.rounds
    )


def _cave_in(game: Game, player: PlayerId, earlier: Earlier) -> bool:
    return any(
        player in r.winners
        and r.roles.get(player) == "saboteur"
        and any(isinstance(a, ev.RockfallPlayed) and a.player == player for a in r.actions)
        for r in game.rounds
    )


def _map_to_treasure(game: Game, player: PlayerId, earlier: Earlier) -> bool:
    return any(
        r.reached_by is not None
        and any(
            isinstance(a, ev.MapLooked) and a.player == player and a.kind == "goal_treasure"
            for a in r.actions
        )
        for r in game.rounds
    )


def _repairs(game: Game, player: PlayerId, count: int) -> bool:
    for r in game.rounds:
        helped = {
            a.target
            for a in r.actions
            if isinstance(a, ev.ToolRepaired) and a.player == player and a.target != player
        }
        if len(helped) >= count:
            return True
    return False


def _breaks(game: Game, player: PlayerId, count: int) -> bool:
    for r in game.rounds:
        hit = {
            a.target
            for a in r.actions
            if isinstance(a, ev.ToolBroken) and a.player == player and a.target != player
        }
        if len(hit) >= count:
            return True
    return False


def _rounds_won(game: Game, player: PlayerId) -> int:
    return sum(1 for r in game.rounds if player in r.winners)


def _treasures(game: Game, player: PlayerId) -> int:
    return sum(1 for r in game.rounds if r.reached_by == player)


def _geologist_paid(game: Game, player: PlayerId, earlier: Earlier) -> bool:
    return any(
        r.roles.get(player) == "geologist" and r.paid.get(player, 0) >= GEOLOGIST_PAY
        for r in game.rounds
    )


def _late_win(game: Game, player: PlayerId, earlier: Earlier) -> bool:
    """Won the game though the first two rounds were lost."""
    first = game.rounds[:2]
    return (
        player in game.winners and len(first) == 2 and all(player not in r.winners for r in first)
    )


def _big_nugget(game: Game, player: PlayerId, earlier: Earlier) -> bool:
    return any(r.paid.get(player, 0) >= 3 for r in game.rounds)


# Every achievement, in the order /achievements lists them: its stable name and its check.
ACHIEVEMENTS: Final[tuple[tuple[str, Check], ...]] = (
    ("first_game", lambda game, player, earlier: earlier.games == 0),
    ("first_win", lambda game, player, earlier: player in game.winners),
    ("first_treasure", lambda game, player, earlier: _treasures(game, player) >= 1),
    ("two_treasures", lambda game, player, earlier: _treasures(game, player) >= 2),
    ("saboteur_win", _won_as("saboteur")),
    ("unsuspected", _unsuspected_saboteur),
    ("cave_in", _cave_in),
    ("map_to_treasure", _map_to_treasure),
    ("medic", lambda game, player, earlier: _repairs(game, player, 3)),
    ("breaker", lambda game, player, earlier: _breaks(game, player, 3)),
    ("three_rounds", lambda game, player, earlier: _rounds_won(game, player) >= 3),
    ("late_win", _late_win),
    ("rich", lambda game, player, earlier: game.gold.get(player, 0) >= RICH_GOLD),
    ("big_nugget", _big_nugget),
    (
        "team_win",
        lambda game, player, earlier: (
            _won_as("blue_digger")(game, player, earlier)
            or _won_as("green_digger")(game, player, earlier)
        ),
    ),
    ("boss_win", _won_as("boss")),
    ("profiteer_win", _won_as("profiteer")),
    ("geologist_paid", _geologist_paid),
    (
        "thief",
        lambda game, player, earlier: any(
            t.thief == player and t.victim is not None for t in game.thefts
        ),
    ),
    ("full_table", lambda game, player, earlier: len(game.seating) >= FULL_TABLE),
    (
        "wins_10",
        lambda game, player, earlier: earlier.wins + (player in game.winners) >= WINS_MILESTONE,
    ),
    *((f"games_{n}", _games(n)) for n in GAMES_MILESTONES),
)
NAMES: Final = tuple(name for name, _ in ACHIEVEMENTS)


def earned(game: Game, player: PlayerId, earlier: Earlier) -> tuple[str, ...]:
    """The achievements ``player`` meets in ``game`` (earned before or not), in list order.

    >>> game = Game("base", (1, 2, 3), (), {1: 3, 2: 0, 3: 0}, frozenset({1}))
    >>> earned(game, 1, Earlier())
    ('first_game', 'first_win')
    >>> earned(game, 2, Earlier(games=9, wins=0))
    ('games_10',)
    """
    return tuple(name for name, check in ACHIEVEMENTS if check(game, player, earlier))
