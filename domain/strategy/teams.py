"""Saboteur 2's two teams: a blue gold-digger wins a reached treasure only when its own
team can pass, and, when a green gold-digger reaches it and the green team can pass, the
green team alone wins (docs/rules.md §6.2). So a team's digger does not leave the treasure one
card away for a digger of the other team to take, unless a door of its own colour bars
that team's way in.

Who is on which team is hidden: the other players' doors laid so far (a digger lays its
own colour) and the seat's inspections say what the table has shown.

>>> from domain.strategy.memory import Memory
>>> round(rival_chance(2, Door.BLUE, {2: 0.2}, Memory.start("saboteur2"), {}), 3)
0.291
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

from domain.cards import EXPANSION_DWARVES, Door, Role
from domain.strategy.memory import Memory

PlayerId = int

TEAM: Final = {Door.BLUE: Role.BLUE_DIGGER, Door.GREEN: Role.GREEN_DIGGER}
OTHER: Final = {Door.BLUE: Door.GREEN, Door.GREEN: Door.BLUE}
DOOR_SAYS: Final = 3.0  # odds a door laid gives its layer's team being that colour


def rival_first(
    seating: Sequence[PlayerId],
    me: PlayerId,
    door: Door,
    odds: Mapping[PlayerId, float],
    memory: Memory,
    inspected: Mapping[PlayerId, str],
    free: Mapping[PlayerId, bool],
    finish: float,
) -> float:
    """The chance that, of the seats after ``me`` in turn, the first to end a tunnel left
    one card from the treasure is a gold-digger of the other team than ``door``'s: each
    seat free to place ends it with chance ``finish``.

    >>> from domain.strategy.memory import Memory
    >>> start = Memory.start("saboteur2")
    >>> free = {2: True, 3: False}
    >>> round(rival_first((1, 2, 3), 1, Door.BLUE, {}, start, {}, free, 0.5), 3)
    0.182
    """
    chance, still = 0.0, 1.0
    at = seating.index(me)
    for step in range(1, len(seating)):
        player = seating[(at + step) % len(seating)]
        if not free.get(player, False):
            continue
        chance += still * finish * rival_chance(player, door, odds, memory, inspected)
        still *= 1.0 - finish
    return chance


def rival_chance(
    player: PlayerId,
    door: Door,
    odds: Mapping[PlayerId, float],
    memory: Memory,
    inspected: Mapping[PlayerId, str],
) -> float:
    """The chance ``player`` is a gold-digger of the other team than ``door``'s."""
    other = TEAM[OTHER[door]]
    if player in inspected:
        return 1.0 if inspected[player] == other.value else 0.0
    # Among the dwarf cards left once the seat's own is taken, those not a saboteur.
    cards: dict[Role, int] = {r: n for r, n in EXPANSION_DWARVES if r is not Role.SABOTEUR}
    cards[TEAM[door]] -= 1
    theirs = cards[other] / sum(cards.values())
    done = memory.conduct(player)
    mine_laid = done.blue_doors if door is Door.BLUE else done.green_doors
    theirs_laid = done.green_doors if door is Door.BLUE else done.blue_doors
    ratio = theirs / (1.0 - theirs) * DOOR_SAYS ** (theirs_laid - mine_laid)
    return (1.0 - odds.get(player, 0.0)) * ratio / (1.0 + ratio)
