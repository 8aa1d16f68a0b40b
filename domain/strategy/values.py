"""What each dwarf wants, and what a card in hand is worth keeping for later.

Scores across the strategy share one unit: one card of distance the tunnel gains toward
the treasure is worth 1. A card kept is worth a fraction of that, so a move that gains
something now beats keeping the card, and a pass gives up the card worth least.

>>> profile("saboteur").dig, profile("blue_digger").door
(-1.0, <Door.BLUE: 'blue'>)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from domain.cards import BREAKS, REPAIRS, Action, Card, Door, Role, Tool
from domain.strategy.memory import is_dead_end


@dataclass(frozen=True, slots=True)
class Profile:
    """How a dwarf plays.

    ``dig``: the weight of the tunnel's progress (negative: the dwarf wants it blocked);
    ``attack``: how readily it breaks, traps or repairs others; ``door``: its team's door
    colour; ``crystals``: what a crystal on the table is worth to it.
    """

    dig: float
    attack: float = 1.0
    door: Door | None = None
    crystals: float = 0.0

    @property
    def saboteur(self) -> bool:
        return self.dig < 0


PROFILES: Final[dict[str, Profile]] = {
    Role.GOLD_DIGGER.value: Profile(1.0),
    Role.BLUE_DIGGER.value: Profile(1.0, door=Door.BLUE),
    Role.GREEN_DIGGER.value: Profile(1.0, door=Door.GREEN),
    # The boss wins whenever the treasure is reached, whichever team passes: builds for both.
    Role.BOSS.value: Profile(1.0),
    # The profiteer always wins, 2 gold less than the others: the fewer the winners, the
    # more it gets, and they are fewest when the treasure is not reached (the saboteurs
    # and itself). It plays safe: it leans against the tunnel and attacks hardly anyone.
    Role.PROFITEER.value: Profile(-0.4, attack=0.25),
    # Geologists are paid in crystals on the table, whoever wins: they place crystals and
    # keep them there. The treasure reached ends the round, and the laying of crystals with
    # it, so they lean a little against the tunnel.
    Role.GEOLOGIST.value: Profile(-0.2, attack=0.3, crystals=0.7),
    Role.SABOTEUR.value: Profile(-1.0),
    # The selfish dwarf (docs/rules.md §8) digs like a gold-digger, but is paid only for a
    # treasure he reaches himself: see domain.strategy.player's "selfish".
    Role.SELFISH_DWARF.value: Profile(1.0),
}


def profile(role: str | None) -> Profile:
    return PROFILES.get(role or "", PROFILES[Role.GOLD_DIGGER.value])


# What an action card in hand is worth keeping, to a digger and to a saboteur.
_KEEP: Final[dict[Action, tuple[float, float]]] = {
    Action.BROKEN_PICKAXE: (0.22, 0.45),
    Action.BROKEN_LANTERN: (0.22, 0.45),
    Action.BROKEN_CART: (0.22, 0.45),
    Action.ROCKFALL: (0.2, 0.45),
    Action.MAP: (0.3, 0.2),
    Action.THEFT: (0.3, 0.3),
    Action.HANDS_OFF: (0.1, 0.1),
    Action.SWAP_HAND: (0.05, 0.15),
    Action.INSPECTION: (0.2, 0.1),
    Action.SWAP_HATS: (0.1, 0.1),
    Action.TRAPPED: (0.28, 0.45),
    Action.FREE_AT_LAST: (0.25, 0.2),
}
_REPAIR_KEEP: Final = (0.28, 0.2)
_MINE: Final = 0.5  # more, for a card that mends what lies in front of the holder


def card_family(held: Card) -> str:
    """Cards that do the same job: every repair, every broken tool, every dead end; each
    other path card is a family of its own ("path": no two tunnels are alike).

    >>> from domain.cards import deck
    >>> sorted({card_family(c) for c in deck("base")})[:4]
    ['break', 'dead_end', 'map', 'path']
    """
    if held.path is not None:
        return "dead_end" if is_dead_end(held.kind) else "path"
    action = held.action
    assert action is not None
    if action in REPAIRS:
        return "repair"
    if action in BREAKS:
        return "break"
    return action.value


def keep_value(
    held: Card, who: Profile, broken: frozenset[Tool], trapped: bool, goals_unknown: int
) -> float:
    """What ``held`` is worth keeping for a later turn."""
    column = 1 if who.saboteur else 0
    if held.path is not None:
        spec = held.path
        if who.saboteur:
            return 0.4 if is_dead_end(held.kind) else 0.05
        if is_dead_end(held.kind):
            return 0.02
        widest = max(bin(s).count("1") for s in spec.segments)
        value = 0.08 * widest + who.crystals * 0.4 * spec.crystals
        if spec.door is not None and who.door is not None:
            value += 0.1 if spec.door is who.door else -0.1
        return max(value, 0.02)
    action = held.action
    assert action is not None
    if action in REPAIRS:
        return _REPAIR_KEEP[column] + (_MINE if REPAIRS[action] & broken else 0.0)
    if action is Action.FREE_AT_LAST and trapped:
        return _KEEP[action][column] + _MINE
    if action is Action.MAP and goals_unknown < 2:
        return 0.02
    if action in BREAKS or action is Action.TRAPPED:
        return _KEEP[action][column] * (0.5 + 0.5 * who.attack)
    return _KEEP[action][column]
