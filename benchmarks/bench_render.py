"""Board rendering speed and PNG size on a 40-card board.

Targets: mean and p99 under 50 ms, PNG under 150 KB. Run:
``python -m benchmarks.bench_render`` (``--save PATH`` also writes the picture).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from pathlib import Path

from domain.board import (
    Board,
    Tile,
    initial_board,
    legal_placements,
    reached_goals,
    reveal,
    with_tile,
)
from domain.cards import deck
from tgbot.presenter.render import render_board
from tgbot.presenter.tiles import tile_image


def sample_board(cards: int = 40, seed: int = 7) -> Board:
    """A plausible mid-game maze: ``cards`` legal placements of saboteur2 path cards."""
    rng = random.Random(seed)
    board = initial_board(("goal_stone_a", "goal_treasure", "goal_stone_b"))
    pile = [card for card in deck("saboteur2") if card.is_path]
    rng.shuffle(pile)
    placed = 0
    for card in pile:
        if placed == cards:
            break
        options = legal_placements(board, card.kind)
        if not options:
            continue
        # Lean eastwards, towards the goals, like players do.
        options.sort(key=lambda option: option[0][0] + rng.random() * 4, reverse=True)
        cell, rotated = options[0]
        if any(goal == "goal_treasure" for goal in _reached_kinds(board, cell, card.kind, rotated)):
            continue
        board = with_tile(board, cell, Tile(card.kind, card.id, rotated))
        for goal in reached_goals(board):
            board = reveal(board, goal, cell)
        placed += 1
    return board


def _reached_kinds(board: Board, cell: tuple[int, int], kind: str, rotated: bool) -> list[str]:
    after = with_tile(board, cell, Tile(kind, None, rotated))
    return [board[goal].kind for goal in reached_goals(after)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--cards", type=int, default=40)
    parser.add_argument("--save", type=Path)
    args = parser.parse_args()

    board = sample_board(args.cards)
    cells = sorted(
        {
            cell
            for kind in ("cross", "t_nse", "curve_se")
            for cell, _ in legal_placements(board, kind)
        }
    )
    labels = {cell: chr(ord("A") + i) for i, cell in enumerate(cells[:8])}
    cold_start = time.perf_counter()
    render_board(board, highlight=labels)
    cold = time.perf_counter() - cold_start

    times = []
    cpu = []
    png = b""
    for _ in range(args.runs):
        start, start_cpu = time.perf_counter(), time.process_time()
        png = render_board(board, highlight=labels)
        times.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    times.sort()
    p99 = times[min(len(times) - 1, int(len(times) * 0.99))]
    previews = []  # a placement preview also draws the card both ways below the board
    preview = b""
    for _ in range(args.runs):
        start = time.perf_counter()
        preview = render_board(board, highlight=labels, orientations="crystal_t_wne_s")
        previews.append(time.perf_counter() - start)
    previews.sort()
    preview_p99 = previews[min(len(previews) - 1, int(len(previews) * 0.99))]
    uncached = []
    for _ in range(20):
        tile_image.cache_clear()
        start = time.perf_counter()
        render_board(board, highlight=labels)
        uncached.append(time.perf_counter() - start)
    print(f"board: {len(board) - 4} path cards + start + 3 goals")
    print(f"first render (cold caches): {cold * 1000:.1f} ms")
    print(
        f"render: mean {statistics.mean(times) * 1000:.1f} ms, "
        f"p99 {p99 * 1000:.1f} ms over {args.runs} runs (target < 50 ms)"
    )
    print(f"render CPU time: mean {statistics.mean(cpu) * 1000:.1f} ms")
    print(f"render with an empty card cache: mean {statistics.mean(uncached) * 1000:.1f} ms")
    print(f"PNG: {len(png) / 1024:.1f} KB (target < 150 KB)")
    print(
        f"placement preview: mean {statistics.mean(previews) * 1000:.1f} ms, "
        f"p99 {preview_p99 * 1000:.1f} ms, PNG {len(preview) / 1024:.1f} KB"
    )
    slowest = max(p99, preview_p99) * 1000
    largest = max(len(png), len(preview)) / 1024
    print(f"{'PASS' if slowest < 50 else 'FAIL'} render p99 {slowest:.1f} ms < 50 ms")
    print(f"{'PASS' if largest < 150 else 'FAIL'} PNG {largest:.1f} KB < 150 KB")
    if args.save:
        args.save.write_bytes(png)


if __name__ == "__main__":
    main()
