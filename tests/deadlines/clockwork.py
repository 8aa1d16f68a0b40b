"""Clockwork: a game with no cards, only turns and their clock, for the deadline tests.

It speaks the project's commands and events and keeps docs/rules.md §7.1–§7.3 exactly as the rules
engine does (a turn that times out passes, three timeouts in a row make a player away,
an away player's turn ends at once, acting again brings them back, a reminder is given
once per decision), so the Celery machinery can be tested without a board.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType

from domain import errors
from domain.commands import (
    CancelGame,
    Command,
    CreateGame,
    Envelope,
    JoinGame,
    Pass,
    RemindPlayer,
    StartGame,
    TimeOut,
)
from domain.events import (
    CardsDiscarded,
    DecisionOpened,
    DecisionTimedOut,
    Event,
    GameCancelled,
    GameCreated,
    GameStarted,
    PlayerCameBack,
    PlayerJoined,
    PlayerReminded,
    PlayerWentAway,
)

AWAY_AFTER = 3


@dataclass(frozen=True)
class Clockwork:
    players: tuple[int, ...] = ()
    turn_seconds: int = 180
    phase: str = "new"
    pending: DecisionOpened | None = None
    opened: int = 0
    reminders: frozenset[str] = frozenset()
    timeouts_in_a_row: Mapping[int, int] = field(default_factory=lambda: MappingProxyType({}))
    away: frozenset[int] = frozenset()


def initial_state() -> Clockwork:
    return Clockwork()


def evolve(state: Clockwork, event: Event) -> Clockwork:
    match event:
        case GameCreated():
            return replace(state, players=(event.creator,), turn_seconds=event.turn_seconds)
        case PlayerJoined():
            return replace(state, players=(*state.players, event.player))
        case GameStarted():
            return replace(state, phase="playing")
        case GameCancelled():
            return replace(state, phase="cancelled", pending=None)
        case DecisionOpened():
            return replace(state, pending=event, opened=event.decision, reminders=frozenset())
        case PlayerReminded():
            return replace(state, reminders=state.reminders | {event.which})
        case DecisionTimedOut():
            counts = dict(state.timeouts_in_a_row)
            counts[event.player] = counts.get(event.player, 0) + 1
            return replace(state, pending=None, timeouts_in_a_row=MappingProxyType(counts))
        case PlayerWentAway():
            return replace(state, away=state.away | {event.player})
        case PlayerCameBack():
            return replace(state, away=state.away - {event.player})
        case CardsDiscarded():
            if state.pending is None or state.pending.player != event.player:
                return state  # the default after a timeout
            counts = dict(state.timeouts_in_a_row)
            counts[event.player] = 0
            return replace(state, pending=None, timeouts_in_a_row=MappingProxyType(counts))
        case _:
            return state


def fold(events: Iterable[Event], state: Clockwork | None = None) -> Clockwork:
    current = state or Clockwork()
    for event in events:
        current = evolve(current, event)
    return current


def decide(state: Clockwork, envelope: Envelope) -> list[Event]:
    command: Command = envelope.command
    at = envelope.at
    match command:
        case CreateGame():
            return [
                GameCreated(
                    command.actor,
                    command.name,
                    command.edition,
                    command.chat_id,
                    command.turn_seconds,
                    False,
                )
            ]
        case JoinGame():
            return [PlayerJoined(command.actor, command.name)]
        case StartGame():
            started = fold([GameStarted(state.players, ())], state)
            return [GameStarted(state.players, ()), _open(started, state.players[0], at)]
        case CancelGame():
            return [GameCancelled(command.actor)]
        case Pass():
            pending = state.pending
            if state.phase != "playing" or pending is None or pending.player != command.actor:
                raise errors.NotYourTurn(f"{command.actor} owes no decision")
            events: list[Event] = []
            if command.actor in state.away:
                events.append(PlayerCameBack(command.actor))
            events.append(CardsDiscarded(command.actor, command.cards))
            after = fold(events, state)
            return [*events, _open(after, _next(state, command.actor), at)]
        case TimeOut():
            pending = state.pending
            if state.phase != "playing" or pending is None or pending.decision != command.decision:
                return []
            player = pending.player
            timed_out: list[Event] = [DecisionTimedOut(pending.decision, player)]
            again = fold(timed_out, state).timeouts_in_a_row[player]
            if again >= AWAY_AFTER and player not in state.away:
                timed_out.append(PlayerWentAway(player))
            timed_out.append(CardsDiscarded(player, ()))
            after = fold(timed_out, state)
            return [*timed_out, _open(after, _next(state, player), at)]
        case RemindPlayer():
            pending = state.pending
            if (
                state.phase != "playing"
                or pending is None
                or pending.decision != command.decision
                or command.which in state.reminders
                or pending.player in state.away
            ):
                return []
            return [PlayerReminded(pending.decision, pending.player, command.which)]
        case _:
            raise errors.DomainError(f"clockwork has no {type(command).__name__}")


def _next(state: Clockwork, player: int) -> int:
    seats = state.players
    return seats[(seats.index(player) + 1) % len(seats)]


def _open(state: Clockwork, player: int, at: int) -> DecisionOpened:
    deadline = at if player in state.away else at + state.turn_seconds * 1000
    return DecisionOpened(state.opened + 1, player, "turn", deadline)
