"""How fast the rules engine plays: whole games, and the move list on a 40-card maze.

1. ``--games`` (1,000) random five-player saboteur2 games through decide/evolve — the
   simulator of ``saboteur-bot simulate``, every move drawn from ``legal_moves`` and the
   computer seats playing random legal moves too (the strategy is timed by
   ``bench_strategy.py``) — timed in CPU seconds on this one process (target: at least 20
   complete three-round games per CPU second), with the mean and worst time of the
   ``legal_moves`` calls they made.
2. ``legal_moves`` for a person on turn with a 6-card hand on a maze of ``--cards`` (40)
   path cards, built as ``bench_board.py`` builds it, on a fresh board object each call so
   nothing is remembered from an earlier one (target: under 1 ms). A hand with no legal
   move would measure nothing: the run fails then.

Each figure is printed with PASS or FAIL against its target. Invariant checks are off
unless ``--check`` (they measure the checks, not the rules). ``--simulate`` instead plays
the long invariant run that the test script once did on every run: 501 games over every
player count of both editions, invariants checked after every event. ``--smoke`` plays a
few games of each part and judges no target (CI runs it so the benchmark cannot rot). Run:
``.venv/bin/python benchmarks/bench_rules.py [--games 1000] [--seed 1] [--cards 40]``
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import timeit
from pathlib import Path
from types import MappingProxyType

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_board import build  # the 40-card maze, built the same way

from domain.cards import Card, deck
from domain.evolve import fold
from domain.moves import legal_moves
from domain.simulate import play_one, simulate
from domain.state import GameState, assoc

GAMES_PER_CPU_S: float = 20.0
LEGAL_MOVES_MS: float = 1.0


def verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def state_on_board(cards: int, seed: int) -> tuple[GameState, int, list[Card]]:
    """A five-player saboteur2 game with a 40-card maze, and the player on turn holding 4
    path cards and 2 action cards (a rockfall, with a target for every card in the maze,
    and a broken tool)."""
    board, _ = build(cards, seed)
    for attempt in range(seed, seed + 100):
        events, _, _ = play_one("saboteur2", 5, attempt, check=False, max_commands=1)
        state = fold(events)
        pending = state.pending
        # A person on turn with nothing in front (a broken tool would leave the path
        # cards unplayable), so the moves listed are the maze's.
        if (
            pending is not None
            and pending.kind == "turn"
            and not pending.computer
            and not state.front_of(pending.player)
        ):
            break
    assert state.pending is not None
    player = state.pending.player
    on_table = {tile.card for tile in board.values()}
    free = [c for c in deck("saboteur2") if c.id not in on_table]
    kinds = {c.kind: c for c in reversed(free) if c.path is not None}  # one card per kind
    paths = [kinds[k] for k in sorted(kinds) if not k.startswith("ladder")][:4]
    actions = [next(c for c in free if c.kind == k) for k in ("rockfall", "broken_cart")]
    hand = paths + actions
    return (
        state.update(board=board, hands=assoc(state.hands, player, tuple(c.id for c in hand))),
        player,
        hand,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cards", type=int, default=40)
    parser.add_argument("--runs", type=int, default=2000, help="legal_moves calls on the maze")
    parser.add_argument("--check", action="store_true", help="also check every invariant")
    parser.add_argument(
        "--simulate", action="store_true", help="the long invariant run: 501 random games"
    )
    parser.add_argument(
        "--smoke", action="store_true", help="a few games and calls; no target judged"
    )
    args = parser.parse_args(argv)
    if args.smoke:
        args.games, args.runs = 5, 20
    if args.simulate:
        return long_simulation(args.seed, args.smoke)

    pace = min(timeit.repeat("sum(range(1000))", number=200, repeat=5, timer=time.process_time))
    print(f"python {sys.version.split()[0]}; seed {args.seed}")
    print(f"machine pace: sum(range(1000)) takes {pace / 200 * 1e6:.1f} µs")

    report = simulate(
        args.games,
        "saboteur2",
        (5, 5),
        args.seed,
        check=args.check,
        clock=time.perf_counter,
        cpu_clock=time.process_time,
        strategy_games=False,
    )
    per_cpu_s = report["games_per_cpu_s"] or 0.0
    if report["finished"] == 0 or not report["legal_moves_calls"]:
        print("FAIL: the games measured nothing")
        return 1
    complete = report["finished"] == args.games and report["violations"] == 0
    print(
        f"{args.games} five-player saboteur2 games ({report['events']} events, "
        f"{report['finished']} finished, {report['violations']} violations, "
        f"invariants {'checked' if args.check else 'not checked'}):"
    )
    print(
        f"  {report['cpu_seconds']} CPU s, {per_cpu_s} games per CPU second "
        f"(wall: {report['games_per_s']} games/s) — target >= {GAMES_PER_CPU_S:g}: "
        f"{verdict(complete and per_cpu_s >= GAMES_PER_CPU_S)}"
    )
    print(
        f"  legal_moves during the games: {report['legal_moves_calls']} calls, "
        f"mean {report['legal_moves_ms_mean']} ms, max {report['legal_moves_ms_max']} ms"
    )

    state, player, hand = state_on_board(args.cards, args.seed)
    boards = [MappingProxyType(dict(state.board)) for _ in range(args.runs)]
    states = [state.update(board=b) for b in boards]
    moves = len(legal_moves(state, player))
    if moves == 0:
        print(f"FAIL: player {player} has no legal move on the maze: it would measure nothing")
        return 1
    cpu_started = time.process_time()
    walls: list[float] = []
    for fresh in states:
        started = time.perf_counter()
        legal_moves(fresh, player)
        walls.append(time.perf_counter() - started)
    cpu_ms = (time.process_time() - cpu_started) / args.runs * 1000
    walls.sort()
    p99 = walls[min(len(walls) - 1, int(len(walls) * 0.99))] * 1000
    print(
        f"legal_moves on a maze of {len(state.board) - 4} path cards, hand "
        f"{', '.join(c.kind for c in hand)}: {moves} moves"
    )
    print(
        f"  mean {cpu_ms:.3f} ms CPU (wall: median {statistics.median(walls) * 1000:.3f} ms, "
        f"p99 {p99:.3f} ms, max {walls[-1] * 1000:.3f} ms) over {args.runs} fresh boards — "
        f"target < {LEGAL_MOVES_MS:g} ms: {verdict(cpu_ms < LEGAL_MOVES_MS)}"
    )
    if args.smoke:
        print("smoke run: no target judged")
        return 0 if complete else 1
    return 0 if complete and per_cpu_s >= GAMES_PER_CPU_S and cpu_ms < LEGAL_MOVES_MS else 1


def long_simulation(seed: int, smoke: bool) -> int:
    """501 random games (base: 248 over 3-10 players, Saboteur 2: 253 over 2-12), every
    invariant checked after every event; a regression check too slow to run in CI."""
    failed = False
    for edition, games, players in (("base", 248, (3, 10)), ("saboteur2", 253, (2, 12))):
        if smoke:
            games = 2
        report = simulate(games, edition, players, seed, check=True, cpu_clock=time.process_time)  # type: ignore[arg-type]
        ok = report["finished"] == games and report["violations"] == 0
        failed = failed or not ok
        print(
            f"{games} {edition} games, {players[0]}-{players[1]} players: "
            f"{report['finished']} finished, {report['violations']} violations, "
            f"{report['cpu_seconds']} CPU s: {verdict(ok)}"
        )
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
