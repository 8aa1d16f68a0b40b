"""Temporary stand-in for :mod:`domain.scoring` (same API) until that module lands."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from domain.cards import Role

PlayerId = int


@dataclass(frozen=True, slots=True)
class RoundResult:
    winners: tuple[PlayerId, ...]
    payouts: tuple[tuple[PlayerId, int], ...]


def next_seat(seating: Sequence[PlayerId], player: PlayerId) -> PlayerId:
    return seating[(seating.index(player) + 1) % len(seating)]


def previous_seat(seating: Sequence[PlayerId], player: PlayerId) -> PlayerId:
    return seating[(seating.index(player) - 1) % len(seating)]


def base_round_winners(
    seating: Sequence[PlayerId], roles: Mapping[PlayerId, Role], reached: bool
) -> tuple[PlayerId, ...]:
    want = Role.GOLD_DIGGER if reached else Role.SABOTEUR
    return tuple(p for p in seating if roles[p] is want)


def base_pick_order(
    seating: Sequence[PlayerId], roles: Mapping[PlayerId, Role], reached_by: PlayerId
) -> tuple[PlayerId, ...]:
    order: list[PlayerId] = []
    player = reached_by
    for _ in seating:
        if roles[player] is Role.GOLD_DIGGER:
            order.append(player)
        player = previous_seat(seating, player)
    return tuple(order)


def base_nuggets_to_draw(players: int, diggers: int, house_rule: bool) -> int:
    return min(players, 9) if house_rule else diggers


def base_saboteur_share(saboteurs: int) -> int:
    return {0: 0, 1: 4, 2: 3, 3: 3}.get(saboteurs, 2)


def take_nuggets(pile: Sequence[int], amount: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    rest = list(pile)
    taken: list[int] = []
    left = amount
    while left > 0:
        fitting = [v for v in rest if v <= left]
        if not fitting:
            break
        value = max(fitting)
        rest.remove(value)
        taken.append(value)
        left -= value
    return tuple(taken), tuple(rest)


def saboteur2_round(
    seating: Sequence[PlayerId],
    roles: Mapping[PlayerId, Role],
    trapped: frozenset[PlayerId],
    reached: bool,
    reached_by: PlayerId | None,
    blue_can_pass: bool,
    green_can_pass: bool,
    crystals: int,
) -> RoundResult:
    winning_roles: set[Role] = {Role.PROFITEER}
    if reached:
        winning_roles.add(Role.BOSS)
        by = roles[reached_by] if reached_by is not None else None
        if by is Role.BLUE_DIGGER:
            blue, green = blue_can_pass, (not blue_can_pass) and green_can_pass
        elif by is Role.GREEN_DIGGER:
            green, blue = green_can_pass, (not green_can_pass) and blue_can_pass
        else:
            blue, green = blue_can_pass, green_can_pass
        if blue:
            winning_roles.add(Role.BLUE_DIGGER)
        if green:
            winning_roles.add(Role.GREEN_DIGGER)
    else:
        winning_roles.add(Role.SABOTEUR)
    winners = tuple(p for p in seating if roles[p] in winning_roles and p not in trapped)
    n = len(winners)
    share = {0: 0, 1: 5, 2: 4, 3: 3, 4: 2}.get(n, 1)
    payouts: list[tuple[PlayerId, int]] = []
    for p in winners:
        less = {Role.BOSS: 1, Role.PROFITEER: 2}.get(roles[p], 0)
        payouts.append((p, max(0, share - less)))
    geologists = [p for p in seating if roles[p] is Role.GEOLOGIST and p not in trapped]
    for p in geologists:
        payouts.append((p, crystals // len(geologists)))
    return RoundResult(winners, tuple(payouts))


def theft_order(
    seating: Sequence[PlayerId],
    thefts_in_play_order: Sequence[PlayerId],
    trapped: frozenset[PlayerId],
) -> tuple[PlayerId, ...]:
    thieves = [p for p in thefts_in_play_order if p not in trapped]
    if not thieves:
        return ()
    first = thieves[-1]
    i = seating.index(first)
    ring = [seating[(i + k) % len(seating)] for k in range(len(seating))]
    return tuple(p for p in ring if p in thieves)


def theft_victims(thief: PlayerId, gold: Mapping[PlayerId, int]) -> tuple[PlayerId, ...]:
    return tuple(p for p, g in gold.items() if p != thief and g > 0)


def game_winners(gold: Mapping[PlayerId, int]) -> tuple[PlayerId, ...]:
    if not gold:
        return ()
    best = max(gold.values())
    return tuple(p for p, g in gold.items() if g == best)
