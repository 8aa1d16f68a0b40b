"""``decide``: the rules engine checking every rule a command meets.

``decide(state, envelope)`` returns the events the command in an
:class:`~domain.commands.Envelope` (with its clock and chance) causes, or raises a
:class:`~domain.errors.DomainError` (the state is never touched); :func:`domain.evolve.evolve`
applies them. The rules are split by the phase they govern: :mod:`.lobby`, :mod:`.turn`,
:mod:`.round_end` (with the next round's :mod:`.deal`), :mod:`.seats` and
:mod:`.deadlines`; this module only routes a command to its rule.

>>> from domain.commands import CreateGame, Envelope, JoinGame, StartGame
>>> from domain.evolve import fold, initial_state
>>> state = initial_state()
>>> for envelope in (Envelope(CreateGame(1, "Ann", "base", chat_id=5)),
...                  Envelope(JoinGame(2, "Bo")), Envelope(JoinGame(3, "Cy")),
...                  Envelope(StartGame(1), seed=7)):
...     state = fold(decide(state, envelope), state)
>>> state.phase, state.round, len(state.hand(1))
('playing', 1, 6)
"""

from __future__ import annotations

from typing import assert_never

from domain.commands import (
    AddComputerPlayer,
    CancelGame,
    ChangeSettings,
    ChooseTheftVictim,
    ComeBack,
    Command,
    CreateGame,
    DiscardToRemove,
    Envelope,
    HandSeatToComputer,
    JoinGame,
    LeaveGame,
    MakeComputerMove,
    Pass,
    PickGold,
    PlacePath,
    PlayAction,
    RemindPlayer,
    RemoveComputerPlayer,
    SetComputerLevel,
    StartGame,
    TimeOut,
)
from domain.decide import deadlines, lobby, round_end, seats, turn
from domain.decide.base import Log
from domain.events import Event
from domain.state import GameState


def decide(state: GameState, envelope: Envelope) -> list[Event]:
    """The events ``envelope``'s command causes in ``state``; raises a DomainError when
    refused."""
    return _dispatch(state, envelope).events


def execute(state: GameState, envelope: Envelope) -> tuple[list[Event], GameState]:
    """``decide``, and the state its events lead to (``fold(events, state)``, computed once)."""
    log = _dispatch(state, envelope)
    return log.events, log.state


def _dispatch(state: GameState, envelope: Envelope) -> Log:
    command: Command = envelope.command
    at, seed = envelope.at, envelope.seed
    match command:
        case CreateGame():
            return lobby.create(state, command)
        case JoinGame():
            return lobby.join(state, command)
        case LeaveGame():
            return lobby.leave(state, command)
        case AddComputerPlayer():
            return lobby.add_computer(state, command, seed)
        case RemoveComputerPlayer():
            return lobby.remove_computer(state, command)
        case SetComputerLevel():
            return lobby.set_computer_level(state, command)
        case ChangeSettings():
            return lobby.change_settings(state, command)
        case StartGame():
            return lobby.start(state, command, at, seed)
        case CancelGame():
            return lobby.cancel(state, command)
        case PlacePath():
            return turn.place_path(state, command, at, seed)
        case PlayAction():
            return turn.play_action(state, command, at, seed)
        case Pass():
            return turn.pass_turn(state, command, at, seed)
        case DiscardToRemove():
            return turn.discard_to_remove(state, command, at, seed)
        case PickGold():
            return round_end.pick_gold(state, command, at, seed)
        case ChooseTheftVictim():
            return round_end.choose_victim(state, command, at, seed)
        case ComeBack():
            return seats.come_back(state, command, at)
        case HandSeatToComputer():
            return seats.hand_over(state, command, at)
        case MakeComputerMove():
            return seats.computer_move(state, command, at, seed)
        case TimeOut():
            return deadlines.time_out(state, command, at, seed)
        case RemindPlayer():
            return deadlines.remind(state, command)
        case _:
            assert_never(command)
