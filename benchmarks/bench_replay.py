"""How fast a replay answers: one step, and the whole game's GIF.

Plays a three-round, 6-player base game with random legal moves (fixed seed), stores it in
a SQLite event store with a snapshot every 50 events (as the game service keeps them),
then times:

- a replay step as the bot serves a button press on a replay nobody opened before: load
  the stored events, fold from the nearest snapshot at or before the step, render the
  board (PNG) and write the caption — for steps spread over the game (target < 100 ms);
- the animated GIF of the whole game, one frame per move (target < 10 s).

Run: ``.venv/bin/python benchmarks/bench_replay.py [--seed 5] [--players 6] [--steps 20]``
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from domain import codec
from domain.commands import CreateGame, JoinGame, StartGame, TimeOut
from domain.decider import decide, evolve, initial_state, is_terminal
from domain.events import Event
from domain.moves import legal_moves
from domain.state import GameState
from infra.db import make_engine
from infra.event_store import EventStore, NewEvent
from infra.migrations import upgrade
from tgbot.replay import Replay, caption
from tgbot.replay_gif import replay_gif, step_png

SNAPSHOT_EVERY = 50


def play(seed: int, players: int) -> tuple[list[Event], list[GameState]]:
    rng = random.Random(seed)
    state = initial_state()
    events: list[Event] = []
    states: list[GameState] = []

    def run(command: object) -> None:
        nonlocal state
        for event in decide(state, command):  # type: ignore[arg-type]
            state = evolve(state, event)
            events.append(event)
            states.append(state)

    run(CreateGame(1, "P1", "base", chat_id=-1))
    for player in range(2, players + 1):
        run(JoinGame(player, f"P{player}"))
    run(StartGame(1, seed=rng.getrandbits(48)))
    while not is_terminal(state):
        pending = state.pending
        assert pending is not None
        if rng.random() < 0.03:
            run(TimeOut(pending.id, at=pending.deadline, seed=rng.getrandbits(48)))
        else:
            move = rng.choice(legal_moves(state, pending.player))
            run(replace(move, seed=rng.getrandbits(48)))
    return events, states


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--players", type=int, default=6)
    parser.add_argument("--steps", type=int, default=20, help="steps timed")
    args = parser.parse_args(argv)

    events, states = play(args.seed, args.players)
    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite:///{Path(folder) / 'bench.db'}"
        upgrade(url)
        store = EventStore(make_engine(url), upcasters=codec.UPCASTERS)
        store.append("bench", 0, [NewEvent(*codec.encode(e)) for e in events])
        replay = Replay("bench", events)
        print(f"game: {args.players} players, {len(events)} events, {len(replay)} steps")

        picks = [round(i * (len(replay) - 1) / (args.steps - 1)) for i in range(args.steps)]
        step_png(replay.step(0))  # warm the renderer's font and tile caches
        steps, opens = [], []
        for index in picks:
            end = replay.boundaries[index].end
            nearest = end - end % SNAPSHOT_EVERY

            def snapshots(count: int, nearest: int = nearest) -> tuple[int, GameState] | None:
                return (nearest, states[nearest - 1]) if 0 < nearest <= count else None

            start = time.perf_counter()
            stored = store.load("bench")
            decoded = [codec.decode(e.type, e.payload, e.schema_version) for e in stored]
            loaded = time.perf_counter()
            fresh = Replay("bench", decoded, snapshots=snapshots)
            step = fresh.step(index)
            png = step_png(step)
            text = caption(step)
            done = time.perf_counter()
            steps.append((done - loaded) * 1000)
            opens.append((done - start) * 1000)
            assert png and text and step.state == states[end - 1]
        median = statistics.median(steps)
        print(
            f"replay step (fold from the nearest snapshot + render + caption): "
            f"median {median:.1f} ms, max {max(steps):.1f} ms "
            f"(target < 100 ms) {'OK' if median < 100 else 'SLOW'}"
        )
        print(
            f"first step of a replay not in memory (+ load and decode {len(events)} events): "
            f"median {statistics.median(opens):.1f} ms, max {max(opens):.1f} ms"
        )

        start = time.perf_counter()
        gif = replay_gif(replay)
        seconds = time.perf_counter() - start
        print(
            f"GIF of the whole game: {len(replay)} frames, {len(gif) / 1e6:.1f} MB, "
            f"{seconds:.2f} s (target < 10 s) {'OK' if seconds < 10 else 'SLOW'}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
