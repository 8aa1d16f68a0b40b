"""Who is probably a saboteur: a small model updated from the round's public moves.

Each other player starts at the chance that a dwarf card dealt to them is a saboteur,
given the seat's own card. Their conduct moves it: tunnels cut or dead ends laid at the
front raise it, progress lowers it; breaking or trapping someone the table trusts raises
it, repairing or freeing them lowers it, and the other way round for someone it suspects.
Trust and suspicion feed each other, so the model is worked out a few times over. What the
seat knows for sure (its own dwarf, an inspection) overrides it.

>>> from domain.strategy.memory import Memory
>>> odds = suspicion((1, 2, 3, 4), 1, "gold_digger", "base", Memory.start("base"), {})
>>> round(odds[2], 3), odds[1]
(0.25, 0.0)
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Final

from domain.cards import BASE_DWARVES, EXPANSION_DWARVES, Edition, Role, dwarf_cards
from domain.strategy.memory import HARMS, HELPS, Memory

PlayerId = int

SETBACK: Final = 1.3  # log-odds per card of distance a player's moves lost
PROGRESS: Final = 0.7  # log-odds per card of distance gained
DEAD_END: Final = 0.5  # log-odds per dead end laid, wherever
DEED: Final = 1.6  # log-odds of harming someone fully trusted (or helping a sure saboteur)
ROUNDS: Final = 3


def prior(
    players: int, edition: Edition, my_role: str | None, variants: tuple[str, ...] = ()
) -> float:
    """The chance another player's dwarf card is a saboteur, given the seat's own (and
    the dwarf cards the variants deal, docs/rules.md §8).

    >>> round(prior(5, "base", "gold_digger"), 3), round(prior(5, "saboteur2", "saboteur"), 3)
    (0.4, 0.143)
    >>> round(prior(5, "base", "gold_digger", ("maximum_saboteurs",)), 3)
    0.5
    """
    mine = 1 if my_role == Role.SABOTEUR.value else 0
    if edition == "base":
        saboteurs = BASE_DWARVES[players][0]
        cards = len(dwarf_cards(edition, players, variants))
    else:
        saboteurs = dict(EXPANSION_DWARVES)[Role.SABOTEUR]
        cards = sum(count for _, count in EXPANSION_DWARVES)
    return max(saboteurs - mine, 0) / (cards - 1)


def suspicion(
    seating: Sequence[PlayerId],
    me: PlayerId,
    my_role: str | None,
    edition: Edition,
    memory: Memory,
    inspected: Mapping[PlayerId, str],
    variants: tuple[str, ...] = (),
) -> dict[PlayerId, float]:
    """Per seat, the chance it is a saboteur now, as ``me`` sees the table. ``inspected``:
    the roles the seat knows (inspections; the saboteurs who know each other, §8)."""
    base = prior(len(seating), edition, my_role, variants)
    start = _logit(min(max(base, 0.02), 0.98))
    evidence: dict[PlayerId, float] = {}
    for player in seating:
        done = memory.conduct(player)
        evidence[player] = (
            start + SETBACK * done.setback - PROGRESS * done.progress + DEAD_END * done.dead_ends
        )
    odds = {p: _sigmoid(evidence[p]) for p in seating}
    for _ in range(ROUNDS):
        weighed = dict(evidence)
        for deed in memory.deeds:
            if deed.target == deed.actor or deed.actor not in weighed or deed.target not in odds:
                continue
            trust = 1.0 - 2.0 * odds[deed.target]  # +1 trusted, -1 a sure saboteur
            if deed.action in HARMS:
                weighed[deed.actor] += DEED * trust
            elif deed.action in HELPS:
                weighed[deed.actor] -= DEED * trust
        odds = {p: _sigmoid(weighed[p]) for p in seating}
    for player, role in inspected.items():
        if player in odds:
            odds[player] = 1.0 if role == Role.SABOTEUR.value else 0.0
    if my_role is not None:
        odds[me] = 1.0 if my_role == Role.SABOTEUR.value else 0.0
    return odds


def _logit(p: float) -> float:
    return math.log(p / (1.0 - p))


def _sigmoid(x: float) -> float:
    if x < -30:
        return 0.0
    if x > 30:
        return 1.0
    return 1.0 / (1.0 + math.exp(-x))
