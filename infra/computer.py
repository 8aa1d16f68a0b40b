"""The computer players' moves, made by the worker like a deadline fires (docs/rules.md §7.5).

When the computer owes a decision, the deadlines projection schedules a ``computer`` alarm
a short pause after it opened (:mod:`infra.deadlines`); the sweeper sends it to the worker,
which asks :func:`computer_move` for the move and runs it through the game service with an
idempotency key naming the decision, like any player's command. The strategy is seeded
from the game and the decision alone, so a task sent twice decides the same move; the key
makes it count once, and the rules engine answers a move for a decision already made with
nothing.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any, Protocol

from domain import rng
from domain.commands import Command, MakeComputerMove
from domain.state import GameState
from domain.strategy import choose_move

ComputerMove = Callable[[str, int], Command | None]
"""The computer's command for decision ``decision`` of game ``game_id``, or None."""


class Games(Protocol):
    """What the computer reads a game through (:class:`infra.game_service.GameService`)."""

    def load(self, game_id: str) -> Any: ...
    def events(self, game_id: str, after_version: int = 0) -> list[Any]: ...


def move_key(game_id: str, decision: int) -> str:
    """The idempotency key of the computer's move on a decision.

    >>> move_key("g-1", 7)
    'computer:g-1:7'
    """
    return f"computer:{game_id}:{decision}"


def move_seed(game_id: str, decision: int) -> int:
    """The strategy's seed for a decision: the same every time it is asked.

    >>> move_seed("g-1", 7) == move_seed("g-1", 7) != move_seed("g-1", 8)
    True
    """
    game_seed = int.from_bytes(hashlib.sha256(game_id.encode()).digest()[:8], "big")
    return rng.derive(game_seed, decision)


def computer_move(games: Games, game_id: str, decision: int) -> Command | None:
    """The computer's move for ``decision`` of ``game_id``; None when the computer no longer
    owes it (made, timed out, or its player took the seat back)."""
    state: GameState = games.load(game_id).state
    pending = state.pending
    if state.phase != "playing" or pending is None:
        return None
    if pending.id != decision or not pending.computer:
        return None
    # The round's events only: the strategy remembers the round it plays; the seat's level
    # (recorded when it was seated; a person's seat handed over plays normal) says how.
    events = games.events(game_id, after_version=max(state.round_began - 1, 0))
    move = choose_move(state, pending.player, events, move_seed(game_id, decision))
    return MakeComputerMove(decision, move)  # type: ignore[arg-type]


def computer_player(games: Games) -> ComputerMove:
    """:func:`computer_move` on ``games``."""

    def move(game_id: str, decision: int) -> Command | None:
        return computer_move(games, game_id, decision)

    return move
