"""Move generation: every concrete command a player may send now (docs/rules.md §3–§6).

:func:`legal_moves` is the one generator the bot draws buttons from, timeouts and the
simulator pick from, and :func:`domain.decide.decide` agrees with: a command is accepted
exactly when it is listed (whatever its envelope's ``at`` and ``seed``). Card ids in a
pass or a discard are listed in increasing order, the only order ``decide`` accepts.
"""

from __future__ import annotations

from itertools import combinations

from domain import board as geo
from domain.cards import Card, card
from domain.commands import (
    ChooseTheftVictim,
    ComeBack,
    Command,
    DiscardToRemove,
    Envelope,
    Pass,
    PickGold,
    PlacePath,
    PlayAction,
)
from domain.decide import decide
from domain.errors import DomainError
from domain.queries import action_targets, pick_values, theft_victims, tools_broken
from domain.state import GameState, PlayerId


def legal_moves(state: GameState, player: PlayerId) -> list[Command]:
    """The commands that ``decide`` accepts from ``player`` now.

    The moves of the decision ``player`` owes come first; a player who is away or whose
    seat was handed to the computer (docs/rules.md §7.4) also finds
    :class:`~domain.commands.ComeBack` last, whether they owe a decision or not. A
    computer player, and a player who left, send nothing: the computer makes their seat's
    decisions (:func:`computer_moves`).
    """
    if state.phase != "playing" or state.is_computer(player):
        return []
    if state.handed_over.get(player) == "left":
        return []
    returning = player in state.away or player in state.handed_over
    back: list[Command] = [ComeBack(player)] if returning else []
    return decision_moves(state, player) + back


def computer_moves(state: GameState) -> list[Command]:
    """The moves :class:`~domain.commands.MakeComputerMove` accepts for the pending
    decision (empty unless the computer makes it)."""
    pending = state.pending
    if state.phase != "playing" or pending is None or not pending.computer:
        return []
    return decision_moves(state, pending.player)


def decision_moves(state: GameState, player: PlayerId) -> list[Command]:
    """The moves of the decision ``player`` owes now, whoever makes it (empty if none)."""
    pending = state.pending
    if state.phase != "playing" or pending is None or pending.player != player:
        return []
    moves: list[Command]
    if pending.kind == "gold_pick":
        moves = [PickGold(player, value) for value in pick_values(state)]
    elif pending.kind == "theft":
        moves = [ChooseTheftVictim(player, victim) for victim in theft_victims(state, player)]
    else:
        moves = _turn_moves(state, player)
    return moves


def _turn_moves(state: GameState, player: PlayerId) -> list[Command]:
    hand = tuple(sorted(state.hand(player)))
    cards: list[Card] = [card(state.edition, c) for c in hand]
    moves: list[Command] = []
    can_dig = not tools_broken(state, player) and "trapped" not in state.front_of(player)
    placements: dict[str, list[tuple[geo.Cell, bool]]] = {}
    for played in cards:
        if played.path is not None:
            if not can_dig:
                continue
            if played.kind not in placements:
                placements[played.kind] = geo.legal_placements(state.board, played.kind)
            moves.extend(
                PlacePath(player, played.id, cell, rotated)
                for cell, rotated in placements[played.kind]
            )
        elif played.action is not None:
            moves.extend(
                PlayAction(player, played.id, target, cell, tool)
                for target, cell, tool in action_targets(state, player, played.action)
            )
    most = 1 if state.edition == "base" else 3
    for size in range(1, min(most, len(hand)) + 1):
        moves.extend(Pass(player, combo) for combo in combinations(hand, size))
    if state.edition == "saboteur2" and len(hand) >= 2:
        kinds = dict.fromkeys(state.front_of(player))
        for first, second in combinations(hand, 2):
            moves.extend(DiscardToRemove(player, (first, second), kind) for kind in kinds)
    return moves


def is_legal(state: GameState, command: Command) -> bool:
    """Whether ``decide`` accepts ``command`` (it is then one of :func:`legal_moves`)."""
    try:
        decide(state, Envelope(command))
    except DomainError:
        return False
    return True
