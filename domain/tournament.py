"""Seeded games between computer players, to measure the strategy (no database, no bot).

Every seat is played by a *kind* of player: a level of the computer player
(:func:`domain.strategy.choose`: ``easy``, ``normal`` or ``hard``; ``strategy`` is another
name for ``normal``) or ``random`` (a legal move drawn uniformly,
:func:`domain.strategy.random_move`). Kinds are given per seat (``--seats normal,random``,
repeated round the table) or per side (``--sides diggers=hard,saboteurs=normal``: a seat's
kind follows its dwarf, so it can change from round to round and, after swap hats, within
one). The report gives each kind's rounds won, gold and decision times.

The sides: the *saboteurs* are the saboteur dwarves; the *diggers* are every other dwarf
(base: the gold-diggers; saboteur2: blue and green gold-diggers, the boss, the profiteer
and the geologists, though the last two lean a little against the tunnel: the profiteer
always wins and takes more when fewer win with it, the geologists are paid in crystals
whoever wins, and a round reached early lays fewer). So a small Saboteur 2 table whose
only gold-digger sits beside a geologist or the profiteer is seldom won by the diggers
whoever plays them. The saboteurs win a round when the treasure is not reached. The
diggers win it when it is reached, in Saboteur 2 only when a team wins it (docs/rules.md
§6.2): a treasure reached behind a door of each colour, which neither team can pass, pays
the boss alone (and the profiteer, who always wins), and that round is won by neither
side. A side's win rate counts only *contested* rounds, those dealt at least one dwarf of
each side: a round without a saboteur has nobody to stop the tunnel.

The domain reads no clock: the caller lends its wall clock (``clock``) for the games per
second and its CPU clock (``cpu_clock``) for the decision times, which other processes
on a shared machine would stretch in wall time; without them those figures are ``None``.

>>> report = tournament(2, "base", 4, seed=3, sides={"diggers": "strategy",
...                                                   "saboteurs": "random"})
>>> report["games"], report["rounds"], sorted(report["side_win_rate"])
(2, 6, ['diggers', 'saboteurs'])
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Final

from domain import rng
from domain.board import teams_can_pass
from domain.cards import PLAYER_LIMITS, Edition, Role
from domain.commands import Command, CreateGame, Envelope, JoinGame, StartGame
from domain.decide import execute
from domain.events import GameEnded, RoundEnded, RoundStarted
from domain.evolve import evolve, initial_state
from domain.scoring import winning_teams
from domain.state import GameState, PlayerId
from domain.strategy import Level, Memory, choose, random_move, seat_moves
from domain.view import describe, view_for

Clock = Callable[[], float]  # seconds, from any origin
KINDS: Final = ("easy", "normal", "hard", "strategy", "random")
LEVEL_OF: Final[dict[str, Level]] = {
    "easy": "easy",
    "normal": "normal",
    "hard": "hard",
    "strategy": "normal",
}
SIDES: Final = ("diggers", "saboteurs")


def side_of(role: str) -> str:
    """The side a dwarf plays for.

    >>> side_of("saboteur"), side_of("geologist")
    ('saboteurs', 'diggers')
    """
    return "saboteurs" if role == Role.SABOTEUR.value else "diggers"


def winning_side(state: GameState, ended: RoundEnded) -> str | None:
    """The side that won the round ``ended`` ends, ``state`` being the game as it ended
    (its board as left): ``None`` when the treasure was reached but no team of gold-diggers
    wins it, the boss then winning alone (docs/rules.md §6.2)."""
    if not ended.treasure_reached:
        return "saboteurs"
    if state.edition != "saboteur2":
        return "diggers"
    blue, green = teams_can_pass(state.board)
    by = state.roles.get(ended.reached_by) if ended.reached_by is not None else None
    return "diggers" if winning_teams(True, by, blue, green) else None


class _Game:
    """One seeded game, its seats played by their kinds."""

    def __init__(
        self,
        edition: Edition,
        players: int,
        seed: int,
        seats: Sequence[str],
        sides: Mapping[str, str] | None,
        clock: Clock | None,
    ) -> None:
        # ``clock`` times each decision: the tournament hands it the CPU clock.
        self.numbers: Iterator[int] = rng.stream(seed)
        self.seats = seats
        self.sides = sides
        self.clock = clock
        self.timings: list[tuple[str, float]] = []  # each decision's kind and time
        self.memory = Memory.start(edition)
        self.state = initial_state()
        # Each round: how it ended, each seat's kind then, and the gold each seat got
        # from it (the treasure, the saboteurs' pay, thefts).
        # and the side that won it (None: neither).
        self.rounds: list[
            tuple[RoundEnded, dict[PlayerId, str], str | None, dict[PlayerId, int]]
        ] = []
        self._ended: tuple[RoundEnded, dict[PlayerId, str], str | None] | None = None
        self._gold: dict[PlayerId, int] = {}
        self.run(CreateGame(1, "P1", edition, chat_id=-1, turn_seconds=60))
        for player in range(2, players + 1):
            self.run(JoinGame(player, f"P{player}"))
        self.run(StartGame(1), seed=self._seed())

    def _seed(self) -> int:
        return next(self.numbers) >> 1

    def kind(self, player: PlayerId, state: GameState) -> str:
        if self.sides is not None:
            return self.sides[side_of(state.roles[player].value)]
        return self.seats[state.seating.index(player) % len(self.seats)]

    def run(self, command: Command, seed: int = 0) -> None:
        current = self.state
        events, self.state = execute(current, Envelope(command, seed=seed))
        for event in events:
            self.memory = self.memory.observe(describe(event, None))
            if isinstance(event, RoundStarted) and self._ended is not None:
                self._settle(current)
            current = evolve(current, event)
            if isinstance(event, RoundEnded):
                kinds = {p: self.kind(p, current) for p in current.seating}
                self._ended = (event, kinds, winning_side(current, event))
            elif isinstance(event, GameEnded) and self._ended is not None:
                self._settle(current)

    def _settle(self, state: GameState) -> None:
        """The round that ended is paid in full: record what each seat got from it."""
        assert self._ended is not None
        gold = {p: state.gold.get(p, 0) - self._gold.get(p, 0) for p in state.seating}
        self._gold = dict(state.gold)
        self.rounds.append((*self._ended, gold))
        self._ended = None

    def play(self) -> None:
        while self.state.phase == "playing":
            pending = self.state.pending
            assert pending is not None, "a running game owes a decision"
            seat = pending.player
            seed = self._seed()
            kind = self.kind(seat, self.state)
            if kind == "random":
                move = random_move(self.state, seat, seed)
            else:
                move = self._decide(seat, seed, kind)
            self.run(move, seed=self._seed())

    def _decide(self, seat: PlayerId, seed: int, kind: str = "normal") -> Command:
        started = self.clock() if self.clock is not None else 0.0
        view = view_for(self.state, seat)
        move = choose(view, self.memory, seat_moves(self.state, seat), seed, LEVEL_OF[kind])
        if self.clock is not None:
            self.timings.append((kind, self.clock() - started))
        return move


def tournament(
    games: int,
    edition: Edition,
    players: int,
    seed: int,
    seats: Sequence[str] = ("strategy",),
    sides: Mapping[str, str] | None = None,
    clock: Clock | None = None,
    cpu_clock: Clock | None = None,
) -> dict[str, Any]:
    """Play ``games`` seeded games and report how each side, dwarf and kind fared."""
    numbers = rng.stream(seed)
    started = clock() if clock is not None else 0.0
    timings: list[tuple[str, float]] = []
    side_rounds: Counter[str] = Counter()
    side_wins: Counter[str] = Counter()
    role_rounds: Counter[str] = Counter()
    role_wins: Counter[str] = Counter()
    kind_rounds: Counter[str] = Counter()
    kind_wins: Counter[str] = Counter()
    kind_gold: Counter[str] = Counter()
    role_gold: Counter[str] = Counter()
    rounds = contested = unwon = 0
    for _ in range(games):
        game = _Game(edition, players, next(numbers) >> 1, seats, sides, cpu_clock)
        game.play()
        timings.extend(game.timings)
        for ended, kinds, winning, gold in game.rounds:
            rounds += 1
            roles = dict(ended.roles)
            present = {side_of(r) for r in roles.values()}
            if len(present) == 2:
                contested += 1
                for side in SIDES:
                    side_rounds[side] += 1
                if winning is None:
                    unwon += 1
                else:
                    side_wins[winning] += 1
            for player, role in roles.items():
                won = player in ended.winners
                role_rounds[role] += 1
                role_wins[role] += won
                kind_rounds[kinds[player]] += 1
                kind_wins[kinds[player]] += won
                kind_gold[kinds[player]] += gold.get(player, 0)
                role_gold[role] += gold.get(player, 0)
    elapsed = clock() - started if clock is not None else None
    ordered = sorted(t for _, t in timings)
    by_kind: dict[str, list[float]] = {}
    for kind, taken in timings:
        by_kind.setdefault(kind, []).append(taken)
    return {
        "games": games,
        "edition": edition,
        "players": players,
        "seed": seed,
        "seats": None if sides is not None else list(seats),
        "sides": dict(sides) if sides is not None else None,
        "rounds": rounds,
        "contested_rounds": contested,
        # Contested rounds won by neither side: the treasure reached, no team passing.
        "unwon_rounds": unwon,
        "side_win_rate": {s: _rate(side_wins[s], side_rounds[s]) for s in SIDES},
        "role_win_rate": {r: _rate(role_wins[r], role_rounds[r]) for r in sorted(role_rounds)},
        "kind_win_rate": {k: _rate(kind_wins[k], kind_rounds[k]) for k in sorted(kind_rounds)},
        # Gold a seat took home from a round, on average (thefts settled).
        "mean_gold": {k: _mean(kind_gold[k], kind_rounds[k]) for k in sorted(kind_rounds)},
        "mean_gold_by_role": {r: _mean(role_gold[r], role_rounds[r]) for r in sorted(role_rounds)},
        "games_per_s": round(games / elapsed, 3) if elapsed else None,
        "decisions": len(ordered),  # the strategy's, timed in CPU time
        "decision_ms_p50": _percentile_ms(ordered, 0.50),
        "decision_ms_p99": _percentile_ms(ordered, 0.99),
        # The same per kind of player: the hard level searches, and takes longer.
        "decision_ms_by_kind": {
            kind: {
                "decisions": len(times),
                "p50": _percentile_ms(sorted(times), 0.50),
                "p99": _percentile_ms(sorted(times), 0.99),
            }
            for kind, times in sorted(by_kind.items())
        },
    }


def _rate(wins: int, total: int) -> float | None:
    return round(wins / total, 4) if total else None


def _mean(total: int, count: int) -> float | None:
    return round(total / count, 3) if count else None


def _percentile_ms(ordered: Sequence[float], q: float) -> float | None:
    if not ordered:
        return None
    return round(1000 * ordered[min(len(ordered) - 1, int(q * len(ordered)))], 3)


def _kinds(text: str) -> tuple[str, ...]:
    """``"normal,random"``: seat kinds, repeated round the table."""
    kinds = tuple(k.strip() for k in text.split(",") if k.strip())
    if not kinds or any(k not in KINDS for k in kinds):
        raise argparse.ArgumentTypeError(f"seat kinds are {', '.join(KINDS)}: {text!r}")
    return kinds


def _sides(text: str) -> dict[str, str]:
    """``"diggers=hard,saboteurs=normal"``: each side's kind.

    >>> _sides("saboteurs=random,diggers=strategy")
    {'diggers': 'strategy', 'saboteurs': 'random'}
    >>> _sides("diggers=hard,saboteurs=normal")
    {'diggers': 'hard', 'saboteurs': 'normal'}
    """
    found: dict[str, str] = {}
    for part in text.split(","):
        side, _, kind = part.partition("=")
        if side.strip() not in SIDES or kind.strip() not in KINDS:
            raise argparse.ArgumentTypeError(f"not SIDE=KIND with {SIDES} and {KINDS}: {part!r}")
        found[side.strip()] = kind.strip()
    if set(found) != set(SIDES):
        raise argparse.ArgumentTypeError("give a kind for both sides: diggers and saboteurs")
    return dict(sorted(found.items()))


def main(
    argv: Sequence[str] | None = None,
    clock: Clock | None = None,
    cpu_clock: Clock | None = None,
) -> int:
    """The ``tournament`` command: prints one JSON line."""
    parser = argparse.ArgumentParser(prog="tournament", description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--edition", choices=("base", "saboteur2"), default="base")
    parser.add_argument("--players", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--seats",
        type=_kinds,
        default=("strategy",),
        help="seat kinds (easy, normal, hard, strategy = normal, random), e.g. normal,random",
    )
    parser.add_argument(
        "--sides",
        type=_sides,
        default=None,
        help="each side's kind, e.g. diggers=hard,saboteurs=normal",
    )
    args = parser.parse_args(argv)
    low, high = PLAYER_LIMITS[args.edition]
    if not low <= args.players <= high:
        parser.error(f"{args.edition} is played by {low} to {high} players")
    if args.games < 1:
        parser.error("--games must be at least 1")
    report = tournament(
        args.games,
        args.edition,
        args.players,
        args.seed,
        args.seats,
        args.sides,
        clock,
        cpu_clock,
    )
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
