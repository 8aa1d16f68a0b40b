"""Computer players: a strategy that decides from what its seat may know (docs/rules.md §7.5).

:func:`choose` takes the seat's view (:func:`domain.view.view_for`), the round's public
history folded into a :class:`~domain.strategy.memory.Memory`, the seat's legal moves
(:func:`domain.moves.decision_moves`) and a seed, and returns one of those moves; the caller
runs it through :func:`domain.decide.decide` like anyone's. :func:`choose_move` does all
that from a game's state and events: it reads the state only through ``view_for`` and
``decision_moves``, and the events only through ``describe(event, None)``.

A computer player has a level: ``normal`` is that strategy; ``easy`` scores the same moves
sloppily (a beginner's game: a plausible card, often not the best); ``hard`` searches,
near the treasure and where a rockfall or a harm is among its best moves, the worlds its
seat cannot tell apart (:mod:`domain.strategy.search`).

>>> from domain.commands import CreateGame, Envelope, JoinGame, StartGame
>>> from domain.decide import execute
>>> from domain.evolve import initial_state
>>> from domain.moves import legal_moves
>>> events, state = [], initial_state()
>>> for envelope in (Envelope(CreateGame(1, "Ann", "base", -1)), Envelope(JoinGame(2, "Bo")),
...                  Envelope(JoinGame(3, "Cy")), Envelope(StartGame(1), seed=7)):
...     new, state = execute(state, envelope)
...     events += new
>>> move = choose_move(state, state.pending.player, events, seed=1)
>>> move in legal_moves(state, state.pending.player)
True
>>> choose_move(state, state.pending.player, events, 1, "hard") in legal_moves(
...     state, state.pending.player)
True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Final

from domain import board as geo
from domain import rng
from domain.commands import LEVELS, Command, Level
from domain.events import Event, RoundStarted
from domain.moves import decision_moves
from domain.state import GameState, PlayerId
from domain.strategy.memory import Memory
from domain.strategy.player import choose as choose_normal
from domain.strategy.player import ranked
from domain.strategy.search import choose_hard
from domain.view import View, describe, view_for

__all__ = [
    "LEVELS",
    "Level",
    "Memory",
    "choose",
    "choose_move",
    "random_move",
    "remember",
    "seat_moves",
]

# The easy player scores moves as the normal one does, but sloppily: each score moved by
# up to this much chance (in cards of distance), no placement looked at twice, and the
# table's conduct this round not followed (who cut the tunnel, who built it, who mapped
# what). It plays a plausible card, often not the best: the beginner's mistakes (a dead
# end laid too early, a tool broken on a friend, a saboteur trusted, a map played late).
EASY_NOISE: Final = 0.9


def choose(
    view: View, memory: Memory, moves: Sequence[Command], seed: int, level: Level = "normal"
) -> Command:
    """The move a computer player of ``level`` plays, one of ``moves`` (the seat's legal
    moves)."""
    if level == "hard":
        return choose_hard(view, memory, moves, seed)
    if level == "easy" and len(moves) > 1:
        # What it does remember: the gold the thefts moved since the round ended.
        heedless = replace(
            Memory.start(memory.edition, geo.goals_on(memory.board)), thefts=memory.thefts
        )
        best = ranked(view, heedless, moves, seed, noise=EASY_NOISE, look_again=0)[0][1]
        return moves[best]
    return choose_normal(view, memory, moves, seed)


def seat_moves(state: GameState, seat: PlayerId) -> list[Command]:
    """The seat's legal moves for the decision it owes: what its player may send, or what
    the computer may make in its place (never ComeBack)."""
    return decision_moves(state, seat)


def remember(events: Sequence[Event], state: GameState) -> Memory:
    """The public memory of the current round, from a game's events (older rounds'
    events are skipped)."""
    start = 0
    for index, event in enumerate(events):
        if isinstance(event, RoundStarted):
            start = index
    memory = Memory.start("saboteur2" if state.edition == "saboteur2" else "base", state.goal_cells)
    for event in events[start:]:
        memory = memory.observe(describe(event, None))
    return memory


def choose_move(
    state: GameState,
    seat: PlayerId,
    events: Sequence[Event],
    seed: int,
    level: Level | None = None,
) -> Command:
    """The computer's move for ``seat``, which owes the pending decision, at ``level``
    (None: the seat's own, :meth:`GameState.level_of`)."""
    if level is None:
        level = _level(state.level_of(seat))
    view = view_for(state, seat)
    return choose(view, remember(events, state), seat_moves(state, seat), seed, level)


def _level(name: str) -> Level:
    """A recorded level as a :data:`Level` (an unknown one plays normal)."""
    for level in LEVELS:
        if level == name:
            return level
    return "normal"


def random_move(state: GameState, seat: PlayerId, seed: int) -> Command:
    """A legal move drawn uniformly by ``seed``: the baseline the strategy is measured by."""
    return rng.choice(seat_moves(state, seat), seed)
