"""``decide`` about who plays a seat (docs/rules.md §7.3–§7.5): an away player coming
back, the computer taking a person's seat over, and the computer's move on a seat it
plays, checked like anyone's.
"""

from __future__ import annotations

from typing import assert_never

from domain import errors
from domain.commands import (
    ChooseTheftVictim,
    ComeBack,
    DiscardToRemove,
    HandSeatToComputer,
    MakeComputerMove,
    Pass,
    PickGold,
    PlacePath,
    PlayAction,
)
from domain.decide.base import Log, acting, open_decision, require_person, require_phase
from domain.decide.round_end import choose_victim, pick_gold
from domain.decide.turn import discard_to_remove, pass_turn, place_path, play_action
from domain.events import GameCancelled, SeatHandedOver
from domain.state import GameState


def come_back(state: GameState, cmd: ComeBack, at: int) -> Log:
    """An away player is back (§7.3). Their decision still pending was opened with a deadline
    already due: it is opened again, under a new id, with the whole timer, so the old
    deadline's ``TimeOut`` is stale and decides nothing."""
    require_phase(state, "playing")
    if not state.is_player(cmd.actor):
        raise errors.NotAPlayer()
    require_person(state, cmd.actor)
    if cmd.actor not in state.away and cmd.actor not in state.handed_over:
        raise errors.NotAway()
    log = acting(state, cmd.actor)
    pending = state.pending
    if pending is not None and pending.player == cmd.actor:
        open_decision(log, cmd.actor, pending.kind, at)
    return log


def hand_over(state: GameState, cmd: HandSeatToComputer, at: int) -> Log:
    """The computer takes a human seat over (docs/rules.md §7.4): the player leaves, or the creator
    or an admin hands an absent player's seat over. A decision of theirs still pending is
    opened again, for the computer to make."""
    require_phase(state, "playing")
    player = cmd.player
    if not state.is_player(player):
        raise errors.NotAPlayer()
    if state.is_computer(player):
        raise errors.ComputerSeat()
    reason = state.handed_over.get(player)
    if reason == "left":
        raise errors.LeftTheGame()
    leaving = cmd.actor == player
    if reason is not None and not leaving:
        raise errors.AlreadyHandedOver()
    log = Log(state)
    if leaving:
        log.emit(SeatHandedOver(player, "left"))
    else:
        log.emit(SeatHandedOver(player, "kicked", cmd.actor))
    after = log.state
    if all(after.handed_over.get(p) == "left" for p in after.humans()):
        log.emit(GameCancelled(cmd.actor))  # every person left: nobody to play for
        return log
    pending = after.pending
    if pending is not None and pending.player == player and not pending.computer:
        open_decision(log, player, pending.kind, at)
    return log


def computer_move(state: GameState, cmd: MakeComputerMove, at: int, seed: int) -> Log:
    """The computer's move on a seat it plays, checked like anyone's move."""
    pending = state.pending
    if state.phase != "playing" or pending is None or pending.id != cmd.decision:
        return Log(state)  # decided already: a late or repeated move decides nothing
    move = cmd.move  # decided with the envelope's clock and chance (at, seed)
    if not pending.computer or move.actor != pending.player:
        raise errors.NotYourTurn("the computer does not make this decision")
    match move:
        case PlacePath():
            return place_path(state, move, at, seed, by_computer=True)
        case PlayAction():
            return play_action(state, move, at, seed, by_computer=True)
        case Pass():
            return pass_turn(state, move, at, seed, by_computer=True)
        case DiscardToRemove():
            return discard_to_remove(state, move, at, seed, by_computer=True)
        case PickGold():
            return pick_gold(state, move, at, seed, by_computer=True)
        case ChooseTheftVictim():
            return choose_victim(state, move, at, seed, by_computer=True)
        case _:
            assert_never(move)
