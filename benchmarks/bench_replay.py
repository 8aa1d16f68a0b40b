"""How fast a replay answers: one step, and the whole game's GIF.

Plays a three-round, 6-player base game with random legal moves (fixed seed) and stores
it in a SQLite event store. A replay is folded from the event log alone, keeping the state
every ``CHECKPOINT_EVERY`` events in memory. Then it times:

- a replay step as the bot serves a press on an open replay: fold from the nearest
  in-memory checkpoint, render the board (PNG), write the caption and the keyboard — for
  steps spread over the game (target: every one < 100 ms);
- opening a replay nobody opened before: load and decode the events, fold, render
  (reported, no target);
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
from pathlib import Path

from domain import codec
from domain.commands import CreateGame, Envelope, JoinGame, StartGame, TimeOut
from domain.decide import decide
from domain.events import Event
from domain.evolve import evolve, initial_state
from domain.moves import legal_moves
from domain.queries import is_terminal
from domain.state import GameState
from infra.db import make_engine
from infra.event_store import EventStore, NewEvent
from infra.migrations import upgrade
from tgbot.delivery.sending import draw
from tgbot.replay.gif import replay_gif
from tgbot.replay.steps import CHECKPOINT_EVERY, Replay
from tgbot.telegram.handlers.replays import replay_view


def play(seed: int, players: int) -> tuple[list[Event], list[GameState]]:
    rng = random.Random(seed)
    state = initial_state()
    events: list[Event] = []
    states: list[GameState] = []

    def run(command: object, at: int = 0, seed: int = 0) -> None:
        nonlocal state
        for event in decide(state, Envelope(command, at, seed)):  # type: ignore[arg-type]
            state = evolve(state, event)
            events.append(event)
            states.append(state)

    run(CreateGame(1, "P1", "base", chat_id=-1))
    for player in range(2, players + 1):
        run(JoinGame(player, f"P{player}"))
    run(StartGame(1), seed=rng.getrandbits(48))
    while not is_terminal(state):
        pending = state.pending
        assert pending is not None
        if rng.random() < 0.03:
            run(TimeOut(pending.id), at=pending.deadline, seed=rng.getrandbits(48))
        else:
            move = rng.choice(legal_moves(state, pending.player))
            run(move, seed=rng.getrandbits(48))
    return events, states


def verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


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

        def load() -> Replay:
            stored = store.load("bench")
            return Replay(
                "bench", [codec.decode(e.type, e.payload, e.schema_version) for e in stored]
            )

        replay = load()
        rounds = max(b.round for b in replay.boundaries)
        print(
            f"game: {args.players} players, {rounds} rounds, {len(events)} events, "
            f"{len(replay)} steps, a checkpoint every {CHECKPOINT_EVERY} events"
        )
        picks = [round(i * (len(replay) - 1) / (args.steps - 1)) for i in range(args.steps)]
        draw(replay_view(replay, 0, "en").picture)  # warm the renderer's font and tile caches

        opens = []
        for index in picks[:5]:
            start = time.perf_counter()
            view = replay_view(load(), index, "en")
            photo = draw(view.picture)
            opens.append((time.perf_counter() - start) * 1000)
            assert photo and view.caption

        replay.state_at(len(events))  # the replay is open: its checkpoints are in memory
        steps = []
        for index in picks:
            start = time.perf_counter()
            view = replay_view(replay, index, "en")
            photo = draw(view.picture)
            steps.append((time.perf_counter() - start) * 1000)
            end = replay.boundaries[index].end
            assert photo and view.caption and replay.step(index).state == states[end - 1]
        worst = max(steps)
        print(
            f"replay step (fold from the nearest in-memory checkpoint + render + caption): "
            f"median {statistics.median(steps):.1f} ms, max {worst:.1f} ms over {len(steps)} "
            f"steps; target every step < 100 ms: {verdict(worst < 100)}"
        )
        print(
            f"opening a replay not in memory (load, decode and fold {len(events)} events + "
            f"render): median {statistics.median(opens):.1f} ms, max {max(opens):.1f} ms"
        )

        start = time.perf_counter()
        gif = replay_gif(replay)
        seconds = time.perf_counter() - start
        print(
            f"GIF of the whole game: {len(replay)} frames, {len(gif) / 1e6:.1f} MB, "
            f"{seconds:.2f} s; target < 10 s: {verdict(seconds < 10)}"
        )
    return 0 if worst < 100 and seconds < 10 else 1


if __name__ == "__main__":
    sys.exit(main())
