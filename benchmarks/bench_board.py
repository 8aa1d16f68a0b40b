"""How fast the maze geometry answers on a realistic board.

Builds a 40-card maze by placing random legal path cards (fixed seed), then times, on
fresh board objects (nothing remembered from an earlier call):

- ``legal_placements`` for every path card of a 6-card hand, the work of one turn;
- ``connected_segments``;
- ``reached_goals`` and ``teams_can_pass`` (after a placement, at scoring).

Target: a turn's ``legal_placements`` on a fresh board under 1 ms (PASS or FAIL; the
other figures have none). A hand with no placement would measure nothing: it fails.

Run: ``.venv/bin/python benchmarks/bench_board.py [--cards 40] [--seed 1] [--runs 2000]``
"""

from __future__ import annotations

import argparse
import random
import sys
import time
import timeit
from collections.abc import Callable
from types import MappingProxyType

from domain.ascii import render
from domain.board import (
    Board,
    Cell,
    Tile,
    connected_segments,
    initial_board,
    legal_placements,
    reached_goals,
    reveal,
    side_towards,
    teams_can_pass,
    with_tile,
)
from domain.cards import deck

GOALS = ("goal_stone_a", "goal_stone_b", "goal_treasure")


def build(cards: int, seed: int) -> tuple[Board, list[str]]:
    """A maze of ``cards`` path cards and a 6-card hand of path cards not on the table."""
    chance = random.Random(seed)
    pile = [c for c in deck("saboteur2") if c.path is not None]
    chance.shuffle(pile)
    board = initial_board(GOALS)
    placed = 0
    while placed < cards:
        if not pile:
            raise SystemExit(f"the deck ran out after {placed} cards; try another seed")
        drawn = pile.pop()
        options = legal_placements(board, drawn.kind)
        if not options:
            continue
        cell, rotated = chance.choice(options)
        board = with_tile(board, cell, Tile(drawn.kind, drawn.id, rotated))
        placed += 1
        for goal in reached_goals(board):
            if board[goal].kind == "goal_treasure":
                continue  # keep the round going: a live maze, not a finished one
            board = reveal(board, goal, _reacher(goal, cell))
    on_table = {tile.card for tile in board.values()}
    unplayed = [c.kind for c in deck("saboteur2") if c.path is not None and c.id not in on_table]
    hand = chance.sample(unplayed, 6)
    return board, hand


def _reacher(goal: Cell, placed: Cell) -> Cell:
    return placed if side_towards(goal, placed) is not None else goal


TURN_MS: float = 1.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--cards", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--runs", type=int, default=2000)
    parser.add_argument("--show", action="store_true", help="print the maze")
    args = parser.parse_args(argv)
    runs: int = args.runs

    board, hand = build(args.cards, args.seed)
    if args.show:
        print(render(board))
    copies: list[Board] = []
    current: list[Board] = [board]

    def turn() -> None:
        for kind in hand:
            legal_placements(current[0], kind)

    def timed(body: Callable[[], object], fresh: bool = True) -> tuple[float, float]:
        """Mean and best-batch mean CPU seconds of ``body``, on a new board object each
        call when ``fresh`` (so nothing is remembered from an earlier call)."""
        batches = 5
        size = max(1, runs // batches)
        copies[:] = [MappingProxyType(dict(board)) for _ in range(size * batches)]
        current[0] = board

        def once() -> None:
            if fresh:
                current[0] = copies.pop()
            body()

        body()
        spent = timeit.repeat(once, number=size, repeat=batches, timer=time.process_time)
        return sum(spent) / (size * batches), min(spent) / size

    def show(label: str, figures: tuple[float, float]) -> None:
        mean, best = figures
        print(f"{label:<46}{mean * 1e6:8.1f} µs (best batch {best * 1e6:.1f} µs)")

    # The machine's pace, to compare figures taken on different machines.
    pace = min(timeit.repeat("sum(range(1000))", number=200, repeat=5, timer=time.process_time))

    options = sum(len(legal_placements(board, kind)) for kind in hand)
    print(f"python {sys.version.split()[0]}; seed {args.seed}; {runs} runs each")
    print(f"machine pace: sum(range(1000)) takes {pace / 200 * 1e6:.1f} µs")
    print(f"board: {len(board) - 4} path cards + start + 3 goals; hand: {', '.join(hand)}")
    print(f"legal placements for the hand: {options}")
    print("mean CPU time per call:")
    if options == 0:
        print("FAIL: the hand has no placement: the benchmark measured nothing")
        return 1
    per_turn = timed(turn)
    show("legal_placements, 6-card hand, fresh board", per_turn)
    show("legal_placements, 6-card hand, same board", timed(turn, fresh=False))
    show("connected_segments, fresh board", timed(lambda: connected_segments(current[0])))
    show("reached_goals, fresh board", timed(lambda: reached_goals(current[0])))
    show("teams_can_pass, fresh board", timed(lambda: teams_can_pass(current[0])))
    ok = per_turn[0] * 1000 < TURN_MS
    print(
        f"a turn's legal_placements: {per_turn[0] * 1000:.3f} ms — target < {TURN_MS:g} ms: "
        f"{'PASS' if ok else 'FAIL'}"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
