"""``decide`` on a turn (docs/rules.md §3.2, §4, §5): laying a path card, playing an
action card, passing or discarding to remove a card in front of you, then the next
player's turn, or the round's end when a path reached the treasure or nobody has cards.
"""

from __future__ import annotations

import itertools

from domain import board as geo
from domain import errors
from domain.cards import BREAKS, REPAIRS, Action
from domain.commands import DiscardToRemove, Pass, PlacePath, PlayAction
from domain.decide.base import Log, acting, card_in_hand, draw, open_decision, require_decision
from domain.decide.round_end import end_round
from domain.events import (
    ActionEvent,
    CardsDiscarded,
    FrontCardRemoved,
    GoalRevealed,
    HandsSwapped,
    HatsSwapped,
    MapLooked,
    PathPlaced,
    PlayerFreed,
    PlayerImprisoned,
    RockfallPlayed,
    RoleInspected,
    TheftPlanned,
    TheftStopped,
    ToolBroken,
    ToolRepaired,
)
from domain.queries import Target, action_targets, tools_broken
from domain.state import GameState, PlayerId


def after_turn(log: Log, player: PlayerId, draws: int, at: int, seed: int) -> None:
    """Draw, then hand the turn to the next player with cards, or end the round."""
    draw(log, player, draws)
    state = log.state
    seating = state.seating
    start = seating.index(player)
    for step in range(1, len(seating) + 1):
        candidate = seating[(start + step) % len(seating)]
        if state.hand(candidate):
            open_decision(log, candidate, "turn", at)
            return
    end_round(log, reached_by=None, at=at, seed=seed)


def place_path(
    state: GameState, cmd: PlacePath, at: int, seed: int, by_computer: bool = False
) -> Log:
    require_decision(state, cmd.actor, "turn", by_computer)
    played = card_in_hand(state, cmd.actor, cmd.card)
    if played.path is None:
        raise errors.WrongCardType("not a path card")
    if tools_broken(state, cmd.actor):
        raise errors.ToolsBroken()
    if "trapped" in state.front_of(cmd.actor):
        raise errors.PlayerTrapped()
    cell = (cmd.cell[0], cmd.cell[1])
    reason = geo.placement_error(state.board, played.kind, cell, cmd.rotated)
    if reason is not None:
        raise errors.IllegalPlacement(reason)
    log = acting(state, cmd.actor, by_computer)
    log.emit(PathPlaced(cmd.actor, cmd.card, cell, cmd.rotated))
    treasure = False
    while reached := geo.reached_goals(log.state.board):
        for goal in reached:
            board = log.state.board
            tile = geo.reveal(board, goal, _reached_from(board, goal, cell))[goal]
            log.emit(GoalRevealed(goal, tile.kind, tile.rotated))
            treasure = treasure or tile.kind == geo.TREASURE_KIND
    if treasure:
        end_round(log, reached_by=cmd.actor, at=at, seed=seed)
    else:
        after_turn(log, cmd.actor, 1, at, seed)
    return log


def _reached_from(board: geo.Board, goal: geo.Cell, placed: geo.Cell) -> geo.Cell:
    """The neighbour whose connected opening reaches ``goal``; the card just placed first."""
    connected = geo.connected_segments(board)
    found: list[geo.Cell] = []
    for side in (1, 2, 4, 8):
        other = geo.neighbour(goal, side)
        tile = board.get(other)
        if tile is None or not tile.face_up:
            continue
        facing = ((side << 2) | (side >> 2)) & 0xF
        for index, segment in enumerate(tile.segments):
            if segment & facing and (other, index) in connected:
                found.append(other)
    if placed in found or not found:
        return placed
    return found[0]


def play_action(
    state: GameState, cmd: PlayAction, at: int, seed: int, by_computer: bool = False
) -> Log:
    require_decision(state, cmd.actor, "turn", by_computer)
    played = card_in_hand(state, cmd.actor, cmd.card)
    action = played.action
    if action is None:
        raise errors.WrongCardType("not an action card")
    target: Target = (cmd.target_player, cmd.target_cell, cmd.tool)
    if cmd.target_cell is not None:
        target = (cmd.target_player, (cmd.target_cell[0], cmd.target_cell[1]), cmd.tool)
    if target not in action_targets(state, cmd.actor, action):
        raise errors.InvalidTarget(f"{action.value} cannot target {target}")
    log = acting(state, cmd.actor, by_computer)
    log.emit(_played(state, cmd.actor, cmd.card, action, target))
    if action is Action.SWAP_HAND and cmd.target_player is not None:
        draw(log, cmd.target_player, 1)
    after_turn(log, cmd.actor, 1, at, seed)
    return log


def _played(
    state: GameState, actor: PlayerId, card_id: int, action: Action, target: Target
) -> ActionEvent:
    """The event of ``action`` played on a legal ``target``: what it did, and what only
    one player learns by it (a map's goal, an inspected role, the dwarf card swap hats
    deals)."""
    player, cell, tool = target
    if action in BREAKS:
        assert player is not None
        return ToolBroken(actor, card_id, player, BREAKS[action].value)
    if action in REPAIRS:
        assert player is not None and tool is not None
        return ToolRepaired(actor, card_id, player, tool.value)
    match action:
        case Action.ROCKFALL:
            assert cell is not None
            return RockfallPlayed(actor, card_id, cell)
        case Action.MAP:
            assert cell is not None
            return MapLooked(actor, card_id, cell, state.board[cell].kind)
        case Action.INSPECTION:
            assert player is not None
            return RoleInspected(actor, card_id, player, state.roles[player].value)
        case Action.SWAP_HAND:
            assert player is not None
            return HandsSwapped(actor, card_id, player)
        case Action.SWAP_HATS:
            assert player is not None
            return HatsSwapped(actor, card_id, player, state.dwarf_pile[0].value)
        case Action.THEFT:
            return TheftPlanned(actor, card_id)
        case Action.HANDS_OFF:
            assert player is not None
            return TheftStopped(actor, card_id, player)
        case Action.TRAPPED:
            assert player is not None
            return PlayerImprisoned(actor, card_id, player)
        case Action.FREE_AT_LAST:
            assert player is not None
            return PlayerFreed(actor, card_id, player)
    raise AssertionError(action)


def _check_discard(state: GameState, actor: PlayerId, cards: tuple[int, ...]) -> None:
    hand = state.hand(actor)
    if any(c not in hand for c in cards):
        raise errors.CardNotInHand(str(cards))
    if any(a >= b for a, b in itertools.pairwise(cards)):
        raise errors.InvalidPass("cards must be distinct, in increasing order")


def pass_turn(state: GameState, cmd: Pass, at: int, seed: int, by_computer: bool = False) -> Log:
    require_decision(state, cmd.actor, "turn", by_computer)
    cards = tuple(cmd.cards)
    most = 1 if state.edition == "base" else 3
    if not 1 <= len(cards) <= most:
        raise errors.InvalidPass(f"discard 1 to {most} cards")
    _check_discard(state, cmd.actor, cards)
    log = acting(state, cmd.actor, by_computer)
    log.emit(CardsDiscarded(cmd.actor, cards))
    after_turn(log, cmd.actor, len(cards), at, seed)
    return log


def discard_to_remove(
    state: GameState, cmd: DiscardToRemove, at: int, seed: int, by_computer: bool = False
) -> Log:
    require_decision(state, cmd.actor, "turn", by_computer)
    if state.edition != "saboteur2":
        raise errors.NotInEdition("discard to remove is a saboteur2 option")
    cards = tuple(cmd.cards)
    if len(cards) != 2:
        raise errors.InvalidPass("discard exactly 2 cards")
    _check_discard(state, cmd.actor, cards)
    if cmd.removed not in state.front_of(cmd.actor):
        raise errors.InvalidTarget(f"no {cmd.removed} in front of you")
    log = acting(state, cmd.actor, by_computer)
    log.emit(FrontCardRemoved(cmd.actor, cards, cmd.removed))
    after_turn(log, cmd.actor, 1, at, seed)
    return log
