"""What the rules say about a state: questions ``decide``, the move generator, the
strategy and the adapter all ask, and none of them changes anything.

>>> from domain.state import GameState
>>> is_terminal(GameState()), is_terminal(GameState(phase="finished"))
(False, True)
"""

from __future__ import annotations

from domain import board as geo
from domain import scoring
from domain.cards import BREAKS, REPAIRS, Action, Tool, card
from domain.state import GameState, PlayerId

# A target of an action card: (target_player, target_cell, tool).
Target = tuple[PlayerId | None, geo.Cell | None, Tool | None]


def is_terminal(state: GameState) -> bool:
    return state.phase in ("finished", "cancelled")


def is_path(edition: str, card_id: int) -> bool:
    return card(edition, card_id).path is not None  # type: ignore[arg-type]


def tools_broken(state: GameState, player: PlayerId) -> bool:
    return any(kind.startswith("broken_") for kind in state.front_of(player))


def trapped_players(state: GameState) -> frozenset[PlayerId]:
    return frozenset(p for p in state.seating if "trapped" in state.front_of(p))


def action_targets(state: GameState, actor: PlayerId, action: Action) -> list[Target]:
    """Every legal (target_player, target_cell, tool) for ``action`` played by ``actor``."""
    players = state.seating
    front = state.front_of
    if action in BREAKS:
        return [(p, None, None) for p in players if action.value not in front(p)]
    if action in REPAIRS:
        return [
            (p, None, tool)
            for tool in sorted(REPAIRS[action], key=lambda t: t.value)
            for p in players
            if f"broken_{tool.value}" in front(p)
        ]
    match action:
        case Action.ROCKFALL:
            return [(None, c, None) for c in sorted(state.board) if geo.can_remove(state.board, c)]
        case Action.MAP:
            return [
                (None, c, None)
                for c in state.goal_cells
                if c in state.board and not state.board[c].face_up
            ]
        case Action.THEFT:
            return [] if "theft" in front(actor) else [(actor, None, None)]
        case Action.HANDS_OFF:
            return [(p, None, None) for p in players if "theft" in front(p)]
        case Action.SWAP_HATS:
            return [(p, None, None) for p in players]
        case Action.TRAPPED:
            return [(p, None, None) for p in players if p != actor and "trapped" not in front(p)]
        case Action.FREE_AT_LAST:
            return [(p, None, None) for p in players if "trapped" in front(p)]
        case Action.INSPECTION | Action.SWAP_HAND:
            return [(p, None, None) for p in players if p != actor]
    raise AssertionError(action)


def theft_victims(state: GameState, thief: PlayerId) -> tuple[PlayerId, ...]:
    gold = {p: state.gold.get(p, 0) for p in state.seating}
    return scoring.theft_victims(thief, gold, state.seating)


def pick_values(state: GameState) -> tuple[int, ...]:
    return tuple(sorted(set(state.gold_pick_offer)))
