"""How fast the ratings and achievements projectors keep up with finished games.

Plays a few games with random legal moves (fixed seeds; base and Saboteur 2, 3 to 7
players) and stores copies of them, spread over 20 groups, as 1,000 finished games in a
SQLite event store. Then it times:

- the two projectors catching up with all 1,000 games from nothing, as the first run
  after an upgrade does (target < 10 s);
- a rebuild of the same (reported);
- what one more game's end adds: the projectors brought up to a game that just ended,
  1,000 games already counted, as the announcer does before the game-over message
  (target: the median < 5 ms).

Run: ``.venv/bin/python benchmarks/bench_ratings.py [--games 1000] [--ends 30]``
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
import uuid
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

from domain import codec
from domain.cards import Edition
from domain.commands import CreateGame, JoinGame, StartGame, TimeOut
from domain.decider import decide, evolve, initial_state, is_terminal
from domain.events import Event
from domain.moves import legal_moves
from infra.achievements import AchievementsProjector
from infra.db import make_engine
from infra.event_store import EventStore, NewEvent
from infra.migrations import upgrade
from infra.projector import Projector
from infra.ratings import RatingsProjector

CATCH_UP_TARGET_S = 10.0
GAME_END_TARGET_MS = 5.0


def play(seed: int, players: int, edition: Edition) -> list[Event]:
    rng = random.Random(seed)
    state = initial_state()
    events: list[Event] = []

    def run(command: object) -> None:
        nonlocal state
        for event in decide(state, command):  # type: ignore[arg-type]
            state = evolve(state, event)
            events.append(event)

    run(CreateGame(1, "P1", edition, chat_id=-1))
    for player in range(2, players + 1):
        run(JoinGame(player, f"P{player}"))
    run(StartGame(1, seed=rng.getrandbits(48)))
    while not is_terminal(state):
        pending = state.pending
        assert pending is not None
        if rng.random() < 0.05:
            run(TimeOut(pending.id, at=pending.deadline, seed=rng.getrandbits(48)))
        else:
            move = rng.choice(legal_moves(state, pending.player))
            run(replace(move, seed=rng.getrandbits(48)))  # type: ignore[type-var]
    return events


def encoded(events: list[Event], chat_id: int) -> list[NewEvent]:
    stored = [NewEvent(*codec.encode(e)) for e in events]
    first = stored[0]
    return [NewEvent(first.type, {**first.payload, "chat_id": chat_id}), *stored[1:]]


def store_games(store: EventStore, templates: list[list[Event]], count: int) -> None:
    start = datetime(2026, 1, 1, tzinfo=UTC)
    for n in range(count):
        moment = start + timedelta(hours=n)
        writer = EventStore(store.engine, clock=lambda moment=moment: moment)
        events = encoded(templates[n % len(templates)], -100 - n % 20)
        writer.append("b" + uuid.uuid4().hex[:11], 0, events)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--ends", type=int, default=30)
    args = parser.parse_args()
    shapes: list[tuple[int, Edition]] = [(3, "base"), (5, "base"), (7, "base")]
    shapes += [(4, "saboteur2"), (6, "saboteur2")]
    templates = [play(seed, players, edition) for seed, (players, edition) in enumerate(shapes)]
    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite:///{Path(folder) / 'ratings.db'}"
        upgrade(url)
        engine = make_engine(url)
        store = EventStore(engine)
        store_games(store, templates, args.games)
        projectors: list[Projector] = [
            RatingsProjector(engine, store),
            AchievementsProjector(engine, store),
        ]
        began = time.perf_counter()
        for projector in projectors:
            projector.catch_up()
        catch_up = time.perf_counter() - began
        began = time.perf_counter()
        for projector in projectors:
            projector.rebuild()
        rebuild = time.perf_counter() - began
        ends = []
        for _ in range(args.ends):
            store_games(store, templates, 1)
            began = time.perf_counter()
            for projector in projectors:
                projector.catch_up()
            ends.append((time.perf_counter() - began) * 1000)
        engine.dispose()
    end = statistics.median(ends)
    ok_catch_up = catch_up < CATCH_UP_TARGET_S
    ok_end = end < GAME_END_TARGET_MS
    print(f"{args.games} finished games: the projectors catch up in {catch_up:.2f} s", end="")
    print(f" (target < {CATCH_UP_TARGET_S:.0f} s): {'PASS' if ok_catch_up else 'FAIL'}")
    print(f"rebuild of the same: {rebuild:.2f} s")
    print(
        f"one game's end, {args.games} games counted: median {end:.2f} ms, "
        f"max {max(ends):.2f} ms (target: median < {GAME_END_TARGET_MS:.0f} ms): "
        f"{'PASS' if ok_end else 'FAIL'}"
    )
    return 0 if ok_catch_up and ok_end else 1


if __name__ == "__main__":
    sys.exit(main())
