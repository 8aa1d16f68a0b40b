"""Random legal games for replay tests: every move drawn from ``legal_moves`` with a seeded
``random.Random``, some turns left to time out. Each event is kept with the live game's
state right after it."""

from __future__ import annotations

import random
from dataclasses import dataclass

from domain.cards import Edition
from domain.commands import (
    AddComputerPlayer,
    Command,
    CreateGame,
    Envelope,
    JoinGame,
    MakeComputerMove,
    StartGame,
    TimeOut,
)
from domain.decide import decide
from domain.events import Event
from domain.evolve import evolve, initial_state
from domain.moves import computer_moves, legal_moves
from domain.queries import is_terminal
from domain.state import GameState

CHAT_ID = -1001


@dataclass(frozen=True, slots=True)
class PlayedGame:
    events: tuple[Event, ...]
    states: tuple[GameState, ...]  # states[i]: the live state after events[: i + 1]

    @property
    def final(self) -> GameState:
        return self.states[-1]


def play(
    seed: int,
    players: int = 4,
    edition: Edition = "base",
    *,
    chat_id: int = CHAT_ID,
    timeouts: float = 0.05,
    finish: bool = True,
    max_commands: int = 5000,
    first_player_id: int = 101,
    name_prefix: str = "P",
    computers: int = 0,
    practice: bool = False,
    variants: tuple[str, ...] = (),
) -> PlayedGame:
    """``players`` people, then ``computers`` computer players (moving at random too);
    ``variants``: the base game's (docs/rules.md §8)."""
    rng = random.Random(seed)
    state = initial_state()
    events: list[Event] = []
    states: list[GameState] = []

    def run(command: Command, at: int = 0, seed: int = 0) -> None:
        nonlocal state
        for event in decide(state, Envelope(command, at, seed)):
            state = evolve(state, event)
            events.append(event)
            states.append(state)

    ids = [first_player_id + i for i in range(players)]
    name = f"{name_prefix}{ids[0]}"
    run(
        CreateGame(ids[0], name, edition, chat_id=chat_id, practice=practice, variants=variants),
        at=1_000,
    )
    for player in ids[1:]:
        run(JoinGame(player, f"{name_prefix}{player}"), at=2_000)
    for _ in range(computers):
        run(AddComputerPlayer(ids[0]), at=2_000, seed=rng.getrandbits(48))
    run(StartGame(ids[0]), at=3_000, seed=rng.getrandbits(48))
    commands = 0
    while not is_terminal(state) and commands < max_commands:
        if not finish and state.round >= 2:
            break
        pending = state.pending
        assert pending is not None, "a running game always waits on someone"
        at = 4_000 + commands
        if rng.random() < timeouts:
            run(TimeOut(pending.id), at=pending.deadline, seed=rng.getrandbits(48))
        elif pending.computer:
            move = rng.choice(computer_moves(state))
            run(MakeComputerMove(pending.id, move), at=at, seed=rng.getrandbits(48))  # type: ignore[arg-type]
        else:
            move = rng.choice(legal_moves(state, pending.player))
            run(move, at=at, seed=rng.getrandbits(48))  # type: ignore[type-var]
        commands += 1
    return PlayedGame(tuple(events), tuple(states))
