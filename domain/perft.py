"""Perft: how many legal move sequences of a given length a position has.

As chess engines do, this counts the leaves of the move tree to a fixed depth, from
fixed positions reached by seeded play, and compares them with counts checked in
(``tests/domain/perft.txt``, written by ``scripts/perft.py``). A change to the rules that
adds or loses a single legal move anywhere in those trees changes a count.

The tree is that of the decisions: at each node the player who owes the pending decision
(a turn, a nugget pick, a theft) has :func:`domain.moves.legal_moves`, and each one is
applied through :func:`domain.decide.decide`, so every move counted is one ``decide``
accepts. A sequence that ends the game before ``depth`` moves is not counted.

>>> position = Position("base", players=3, seed=7, plies=0)
>>> state = reach(position)
>>> perft(state, 1) == len(moves_now(state)) > 0
True
"""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass
from typing import Final

from domain import rng
from domain.board import GOAL_CELLS
from domain.cards import Edition
from domain.commands import (
    ChooseTheftVictim,
    Command,
    CreateGame,
    DiscardToRemove,
    Envelope,
    JoinGame,
    Pass,
    PickGold,
    PlacePath,
    PlayAction,
    StartGame,
)
from domain.decide import decide
from domain.evolve import fold
from domain.moves import legal_moves
from domain.state import GameState

CREATOR: Final = 1
KINDS: Final = ("place", "action", "pass", "discard", "pick", "theft")


@dataclass(frozen=True, slots=True)
class Position:
    """A game of ``players`` people (ids 1, 2, …) started with ``seed``, then ``plies``
    decisions made by seeded random play; with ``until``, play stops earlier, at the first
    decision of that kind ("gold_pick" or "theft"), and ``plies`` only bounds it.

    ``dig``: every path card goes where it brings the maze nearest a goal (random play
    seldom reaches the treasure, and the nugget picks come only after it)."""

    edition: Edition
    players: int
    seed: int
    plies: int
    until: str | None = None
    dig: bool = False

    @property
    def name(self) -> str:
        """The position's id in the perft file.

        >>> Position("saboteur2", 4, 3, 20).name, Position("base", 5, 2, 400, "gold_pick").name
        ('saboteur2-4p-seed3-ply20', 'base-5p-seed2-gold_pick')
        """
        tail = self.until if self.until is not None else f"ply{self.plies}"
        return f"{self.edition}-{self.players}p-seed{self.seed}{'-dig' if self.dig else ''}-{tail}"


def started(edition: Edition, players: int, seed: int) -> GameState:
    """A game just started: ``players`` people joined in id order, nugget picks by hand."""
    state = fold(
        decide(
            GameState(),
            Envelope(CreateGame(CREATOR, "P1", edition, chat_id=1, gold_pick="manual")),
        )
    )
    for player in range(2, players + 1):
        state = fold(decide(state, Envelope(JoinGame(player, f"P{player}"))), state)
    return fold(decide(state, Envelope(StartGame(CREATOR), seed=seed)), state)


def moves_now(state: GameState) -> list[Command]:
    """The moves of the decision pending now (none when the game does not wait on one)."""
    pending = state.pending
    if state.phase != "playing" or pending is None:
        return []
    return legal_moves(state, pending.player)


def play(state: GameState, move: Command) -> GameState:
    return fold(decide(state, Envelope(move)), state)


def reach(position: Position) -> GameState:
    """The position's state: the start, then seeded random legal moves.

    Each move is drawn from :func:`moves_now` with the game's seed and the ply's number,
    so the position depends only on the rules and the seed.
    """
    state = started(position.edition, position.players, position.seed)
    for ply in range(position.plies):
        if position.until is not None and _owes(state, position.until):
            return state
        moves = moves_now(state)
        if not moves:
            break
        if position.dig and any(isinstance(m, PlacePath) for m in moves):
            near = min(_to_goal(m) for m in moves if isinstance(m, PlacePath))
            moves = [m for m in moves if isinstance(m, PlacePath) and _to_goal(m) == near]
        state = play(state, rng.choice(moves, rng.derive(position.seed, ply)))
    if position.until is not None and not _owes(state, position.until):
        raise ValueError(f"{position.name}: no {position.until} decision reached")
    return state


def _to_goal(move: PlacePath) -> int:
    x, y = move.cell
    return min(abs(gx - x) + abs(gy - y) for gx, gy in GOAL_CELLS)


def _owes(state: GameState, kind: str) -> bool:
    return state.pending is not None and state.pending.kind == kind


def perft(state: GameState, depth: int) -> int:
    """The number of legal move sequences of ``depth`` moves from ``state``.

    >>> perft(started("saboteur2", 2, 1), 0)
    1
    """
    if depth == 0:
        return 1
    moves = moves_now(state)
    if depth == 1:
        return len(moves)
    return sum(perft(play(state, move), depth - 1) for move in moves)


def kind_of(move: Command) -> str:
    match move:
        case PlacePath():
            return "place"
        case PlayAction():
            return "action"
        case Pass():
            return "pass"
        case DiscardToRemove():
            return "discard"
        case PickGold():
            return "pick"
        case ChooseTheftVictim():
            return "theft"
    return type(move).__name__


def divide(state: GameState) -> dict[str, int]:
    """The moves pending now, counted by kind (every kind of :data:`KINDS`, 0 included)."""
    counts = Counter(kind_of(m) for m in moves_now(state))
    return {kind: counts.get(kind, 0) for kind in KINDS} | dict(counts)


def fingerprint(state: GameState) -> str:
    """A short hash of what the position is, in the rules' terms: the maze, hands, the
    cards in front of players, the piles, gold and the decision pending. Two runs that
    reach the same position agree on it, so a count that differs is told apart from a
    position that does."""
    board = sorted(
        (cell, tile.kind, tile.rotated, tile.face_up) for cell, tile in state.board.items()
    )
    pending = state.pending
    parts = (
        state.edition,
        state.round,
        sorted((p, r.value) for p, r in state.roles.items()),
        board,
        sorted(state.hands.items()),
        sorted(state.front.items()),
        state.draw_pile,
        sorted(state.gold.items()),
        state.gold_pick_offer,
        state.thieves_pending,
        (pending.player, pending.kind) if pending is not None else None,
    )
    return hashlib.sha256(repr(parts).encode()).hexdigest()[:16]


# ------------------------------------------------------------------------ the perft file


@dataclass(frozen=True, slots=True)
class Record:
    """One position of the perft file and what was counted from it."""

    position: Position
    fingerprint: str
    moves: dict[str, int]
    counts: tuple[int, ...]  # perft 1, 2, …


def measure(position: Position, depth: int) -> Record:
    """Count ``position``'s moves, by kind and to every depth up to ``depth``."""
    state = reach(position)
    counts = tuple(perft(state, d) for d in range(1, depth + 1))
    return Record(position, fingerprint(state), divide(state), counts)


def format_record(record: Record) -> str:
    """A record as the perft file writes it.

    >>> print(format_record(Record(Position("base", 3, 7, 0), "ab12", {"pass": 6}, (23, 647))))
    id base-3p-seed7-ply0
    game base players=3 seed=7 plies=0
    fingerprint ab12
    moves pass=6
    perft 1 23
    perft 2 647
    """
    p = record.position
    game = f"game {p.edition} players={p.players} seed={p.seed} plies={p.plies}"
    if p.until is not None:
        game += f" until={p.until}"
    if p.dig:
        game += " dig=1"
    moves = " ".join(f"{kind}={n}" for kind, n in record.moves.items())
    lines = [f"id {p.name}", game, f"fingerprint {record.fingerprint}", f"moves {moves}"]
    lines += [f"perft {d} {n}" for d, n in enumerate(record.counts, start=1)]
    return "\n".join(lines)


def parse(text: str) -> list[Record]:
    """The records of a perft file (``#`` comments and blank lines between them).

    >>> text = format_record(Record(Position("saboteur2", 5, 4, 900, "theft"), "cd", {}, (2,)))
    >>> parse(text)[0].position
    Position(edition='saboteur2', players=5, seed=4, plies=900, until='theft', dig=False)
    """
    blocks: list[list[str]] = []
    for line in text.splitlines():
        if line.startswith("id "):
            blocks.append([])
        elif blocks and line.strip() and not line.startswith("#"):
            blocks[-1].append(line)
    return [_record(block) for block in blocks]


def _record(lines: list[str]) -> Record:
    fields: dict[str, str] = {}
    counts: list[int] = []
    for line in lines:
        key, _, rest = line.partition(" ")
        if key == "perft":
            depth, count = rest.split()
            if int(depth) != len(counts) + 1:
                raise ValueError(f"perft depths out of order: {line!r}")
            counts.append(int(count))
        else:
            fields[key] = rest
    edition, *options = fields["game"].split()
    game = dict(option.split("=") for option in options)
    position = Position(
        "saboteur2" if edition == "saboteur2" else "base",
        players=int(game["players"]),
        seed=int(game["seed"]),
        plies=int(game["plies"]),
        until=game.get("until"),
        dig=game.get("dig") == "1",
    )
    moves = {kind: int(n) for kind, n in (m.split("=") for m in fields["moves"].split())}
    return Record(position, fields["fingerprint"], moves, tuple(counts))
