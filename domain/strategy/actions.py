"""The computer player's action cards, passes and theft: what each is worth to the seat, in
the unit :mod:`domain.strategy.player` scores every move in (cards of distance the tunnel
gains toward the treasure)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Final, Protocol

from domain import board as geo
from domain.cards import BREAKS, PATHS, REPAIRS, Action, Card, Edition, Role, card
from domain.commands import PlayAction
from domain.scoring import SABOTEUR2_DISCOUNT, saboteur2_share
from domain.strategy.maze import Maze, Outcome
from domain.strategy.memory import Memory, is_dead_end
from domain.strategy.values import Profile
from domain.view import View

PlayerId = int


class Seat(Protocol):
    """What these scores read of the seat deciding (:mod:`domain.strategy.player` works
    it out once per decision): described here, so this module needs nothing of that one."""

    view: View
    memory: Memory
    me: PlayerId
    edition: Edition
    who: Profile
    maze: Maze
    odds: Mapping[PlayerId, float]
    exposed: float
    treasure: Mapping[geo.Cell, float]
    wait: float
    expected: float  # expected distance to the treasure now
    caution: float
    fronts: Mapping[PlayerId, tuple[str, ...]]
    seating: tuple[PlayerId, ...]

    def keep(self, held: Card, discarded: bool = False) -> float: ...
    def worth(self, outcome: Outcome, before: float | None = None) -> float: ...
    def near_front(self) -> frozenset[geo.Cell]: ...
    def unseen_paths(self) -> Counter[str]: ...


HIDE_HARM: Final = 0.5  # how much of a saboteur's caution holds back its attacks on players
# Saboteur 2: a pass draws as many cards as it discards, so each card more a saboteur
# passes brings the round's end (the draw pile empty) a turn nearer for someone: worth this
# much (about half of a digger's turn), while the tunnel is far (see NEAR).
BURN: Final = 0.5
NEAR: Final = 2.0  # cards from the treasure within which burning the pile counts less
NEVER: Final = -100.0
# The greedy dwarf: what mending itself is worth more to a gold-digger with the treasure
# one card away (a share of its gold), down to nothing this many cards away.
GREEDY_SHARE: Final = 1.5
GREEDY_NEAR: Final = 6.0


def action_worth(seat: Seat, move: PlayAction, held: Card) -> float:
    action = held.action
    assert action is not None
    target = move.target_player
    who = seat.who
    if action is Action.ROCKFALL and move.target_cell is not None:
        return _rockfall(seat, move.target_cell)
    if action is Action.MAP and move.target_cell is not None:
        chance = seat.treasure.get(move.target_cell, 0.0)
        unknown = sum(1 for p in seat.treasure.values() if 0 < p < 1)
        if not 0 < chance < 1:
            return -0.5
        return (0.45 if who.saboteur else 0.55) + 0.15 * (unknown - 2) + 0.1 * chance
    if target is None:
        return NEVER
    suspect = seat.odds.get(target, 0.5)
    if action in BREAKS or action is Action.TRAPPED:
        return _harm(seat, target, suspect, action)
    if action in REPAIRS or action is Action.FREE_AT_LAST:
        return _help(seat, target, suspect)
    match action:
        case Action.THEFT:
            return 0.6
        case Action.HANDS_OFF:
            return -1.0 if target == seat.me else 0.2
        case Action.INSPECTION:
            if target in seat.view.inspected:
                return -1.0
            return 0.5 * (1.0 - abs(2.0 * suspect - 1.0)) * max(who.attack, 0.5)
        case Action.SWAP_HATS:
            if target == seat.me:
                return 0.4 if who.saboteur and seat.exposed > 0.8 else -0.5
            if who.saboteur:
                return 0.3 * (1.0 - suspect) - 0.2
            return (1.0 if suspect >= 1.0 else 0.8 * (2.0 * suspect - 1.0)) * who.attack
        case Action.SWAP_HAND:
            if who.saboteur:
                return 0.35 * (1.0 - suspect) - 0.1
            return -0.3
    return NEVER


def _harm(seat: Seat, target: PlayerId, suspect: float, action: Action) -> float:
    """Break a tool of, or trap, ``target``."""
    who = seat.who
    if target == seat.me or target in seat.view.allies:
        return NEVER  # nor a saboteur it knows (docs/rules.md §8)
    front = seat.fronts.get(target, ())
    stopped = any(k.startswith("broken_") for k in front) or "trapped" in front
    strength = 0.35 if stopped else 1.0
    if action is Action.TRAPPED:
        strength *= 1.15  # also costs them the round's gold
    if who.saboteur:
        busy = min(seat.memory.conduct(target).progress / 2.0, 1.0)
        value = (1.0 - suspect) * (0.6 + 0.5 * busy) - suspect * 0.8
        # Late in the round, whoever plays next matters most: they could get there first.
        seating = seat.seating
        ahead = (seating.index(target) - seating.index(seat.me)) % len(seating)
        soon = 1.0 + 0.5 * (1.0 - seat.caution) * (1.0 - (ahead - 1) / max(len(seating) - 1, 1))
        # In Saboteur 2 two cards discarded mend anything: a harm far from the end is
        # mended long before it matters, so it waits like a block (for those who wait:
        # the saboteur itself strikes at once, see player._seat).
        later = 1.0 - seat.wait if seat.edition == "saboteur2" else 1.0
        return who.attack * value * strength * soon * later * (1.0 - HIDE_HARM * seat.caution)
    return who.attack * 0.9 * (2.0 * suspect - 1.0) * strength


def _help(seat: Seat, target: PlayerId, suspect: float) -> float:
    """Repair a tool of, or free, ``target`` (the move is legal: they need it)."""
    who = seat.who
    front = seat.fronts.get(target, ())
    still = sum(1 for k in front if k.startswith("broken_") or k == "trapped") - 1
    freed = 1.0 if still == 0 else 0.45
    if target == seat.me:
        value = (0.6 if who.saboteur else 0.4 + 0.7 * abs(who.dig)) * freed
        if not who.saboteur and "greedy_dwarf" in seat.view.variants:
            # The greedy dwarf (docs/rules.md §8): a gold-digger with a broken tool when the
            # treasure is reached gets nothing. The nearer the treasure, the sooner it mends.
            near = min(max((GREEDY_NEAR - seat.expected) / (GREEDY_NEAR - 1.0), 0.0), 1.0)
            value += GREEDY_SHARE * near * (1.0 if still == 0 else 0.5)
        return value
    if who.saboteur:
        return who.attack * 0.6 * (2.0 * suspect - 1.0) * freed
    return who.attack * 0.8 * (1.0 - 2.0 * suspect) * freed


def _rockfall(seat: Seat, cell: geo.Cell) -> float:
    if cell not in seat.near_front():
        return -0.5  # far from where the tunnel goes on: it changes nothing
    board = seat.maze.board
    tile = board[cell]
    without = geo.without_tile(board, cell)
    cut = seat.maze.after(without)
    gained = seat.worth(_refillable(seat.maze, cut))
    who = seat.who
    if who.saboteur:
        # The hole is mended at once only if a digger holds a card that fits it; until
        # then the cards beyond it are cut off.
        mended = refill_chance(seat, without, cell)
        gained = mended * gained + (1.0 - mended) * min(seat.worth(cut), gained)
    value = who.dig * gained
    value = value * (1.0 - seat.wait) if who.saboteur and value > 0 else value - 0.05
    spec = tile.spec
    if spec.door is not None and who.door is not None and spec.door is not who.door:
        value += 0.5
    value -= who.crystals * spec.crystals
    return value


def refill_chance(seat: Seat, board: geo.Board, cell: geo.Cell) -> float:
    """The chance that the other players (the diggers among them, as far as the seat can
    tell) hold a card that fills the hole a rockfall left at ``cell`` and joins through
    it: a card the seat has not seen (neither on the table nor in its hand), no dead end,
    that the fit rule lets lie there. A hole beside cards on several sides takes few.
    """
    unseen = seat.unseen_paths()
    total = sum(unseen.values())
    if total == 0:
        return 0.0
    fitting = sum(
        copies
        for kind, copies in unseen.items()
        if not is_dead_end(kind)
        and any(geo.placement_error(board, kind, cell, turned) is None for turned in (False, True))
    )
    held = sum(
        (1.0 - seat.odds.get(s.player, 0.0)) * s.hand_count
        for s in seat.view.seats
        if s.player != seat.me
    )
    return 1.0 - (1.0 - fitting / total) ** held


def _refillable(before: Maze, outcome: Outcome) -> Outcome:
    """A rockfall's outcome as the table can mend it: the cards it cuts off the tunnel
    still lie there, and one card laid in the hole joins them again, so no goal ends up
    more than one card farther than it was (the maze alone counts them as rock)."""
    soft = {g: min(d, before.soft.get(g, d) + 1.0) for g, d in outcome.soft.items()}
    distance = {g: min(d, before.distance.get(g, d) + 1.0) for g, d in outcome.distance.items()}
    return Outcome(distance, outcome.reached, outcome.ends, soft)


_PLAIN: Final = PATHS["cross"]


def pass_worth(seat: Seat, cards: tuple[int, ...]) -> float:
    kept = [seat.keep(card(seat.edition, c), discarded=True) for c in cards]
    # Each card beyond the first is worth giving up only if it is worth little.
    value = -sum(kept) + 0.12 * (len(cards) - 1) + (0.05 if seat.who.saboteur else 0.0)
    if seat.edition == "saboteur2" and seat.view.role == Role.SABOTEUR.value:
        # The saboteur wins when the draw pile runs out first: it burns it.
        # A door is kept out of that count: across the one team's way in, it is a block.
        # Only cards the pile still has to give back are burnt.
        burnt = sum(1 for c in cards if (card(seat.edition, c).path or _PLAIN).door is None)
        burnt = min(burnt, seat.view.draw_pile)
        # Near the gold a digger needs a card or two, not the pile's end: the pile burnt
        # matters less the nearer the tunnel (nothing, one card from the treasure).
        near = min(max((seat.expected - 1.0) / NEAR, 0.0), 1.0)
        value += BURN * max(burnt - 1, 0) * near
    return value


def removal_worth(seat: Seat, removed: str) -> float:
    if removed == "theft":
        return NEVER
    front = seat.fronts.get(seat.me, ())
    still = sum(1 for k in front if k.startswith("broken_") or k == "trapped") - 1
    return (0.6 if seat.who.saboteur else 1.0) * (1.0 if still == 0 else 0.45)


def riches(seat: Seat, victim: PlayerId) -> float:
    """Saboteur 2: the gold ``victim`` holds, as far as the seat can tell: what the round
    results show they won, and the thefts settled since this round ended (one gold each
    from the victim to the thief)."""
    total = 0.0
    for thief, robbed in seat.memory.thefts:
        total += (thief == victim) - (robbed == victim)
    for result in seat.view.round_results:
        roles = dict(result.roles)
        share = saboteur2_share(len(result.winners))
        for winner in result.winners:
            if winner == victim:
                role = Role(roles.get(winner, Role.BLUE_DIGGER.value))
                total += max(0, share - SABOTEUR2_DISCOUNT.get(role, 0))
    return total
