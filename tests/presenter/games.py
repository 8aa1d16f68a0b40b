"""Games for the presenter's tests: random legal moves (seeded), kept command by command,
so each command's events can be announced as the batch a bot would announce."""

from __future__ import annotations

import random
from dataclasses import dataclass

from domain.cards import Edition
from domain.commands import (
    Command,
    CreateGame,
    Envelope,
    JoinGame,
    RemindPlayer,
    StartGame,
    TimeOut,
)
from domain.decide import decide
from domain.events import Event
from domain.evolve import evolve, initial_state
from domain.moves import legal_moves
from domain.queries import is_terminal
from domain.state import GameState
from tgbot.presenter.audience import Table

GROUP = -5005
TITLE = "Deep <Mine> & Co"


@dataclass(frozen=True, slots=True)
class Batch:
    """One command's events and the state before them (the version before is ``version``)."""

    before: GameState
    version: int
    events: tuple[Event, ...]


def play(
    seed: int,
    players: int = 3,
    edition: Edition = "base",
    *,
    reminders: float = 0.05,
    timeouts: float = 0.05,
) -> list[Batch]:
    rng = random.Random(seed)
    state = initial_state()
    version = 0
    batches: list[Batch] = []

    def run(command: Command, at: int = 0, seed: int = 0) -> None:
        nonlocal state, version
        events = decide(state, Envelope(command, at, seed))
        batches.append(Batch(state, version, tuple(events)))
        for event in events:
            state = evolve(state, event)
        version += len(events)

    ids = [11 + i for i in range(players)]
    run(CreateGame(ids[0], f"P{ids[0]}", edition, chat_id=GROUP), at=1_000)
    for player in ids[1:]:
        run(JoinGame(player, f"P{player}"), at=2_000)
    run(StartGame(ids[0]), at=3_000, seed=rng.getrandbits(48))
    at = 4_000
    while not is_terminal(state):
        pending = state.pending
        assert pending is not None
        at += 1_000
        roll = rng.random()
        if roll < reminders and pending.kind == "turn":
            run(RemindPlayer(pending.id, rng.choice(("half", "soon"))), at=at)
        elif roll < reminders + timeouts:
            run(TimeOut(pending.id), at=pending.deadline, seed=rng.getrandbits(48))
        else:
            move = rng.choice(legal_moves(state, pending.player))
            run(move, at=at, seed=rng.getrandbits(48))  # type: ignore[type-var]
    return batches


def table(state: GameState, lang: str = "en", game: str = "g1", now_ms: int = 5_000) -> Table:
    """The game as the presenter addresses it: everyone speaks ``lang``."""
    return Table(
        game,
        GROUP,
        now_ms,
        title=TITLE,
        group_language=lang,
        languages={p: lang for p in state.seating},
        bot_username="saboteur_test_bot",
    )
