"""Scoring a round and a game (docs/rules.md §6): pure functions of who sat where and who was what.

Seating is the join order: the next seat is "clockwise" / "to the left", the previous seat is
"counter-clockwise" (docs/rules.md §3.1). Nothing here draws at random or asks a player: choices
(which nugget card to keep, whom to rob) belong to the decider; these functions say who
chooses, in which order, and among what.

>>> seating = (10, 20, 30, 40)
>>> previous_seat(seating, 10), next_seat(seating, 40)
(40, 10)
>>> base_saboteur_share(2)
3
>>> saboteur2_share(3)
3
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import Final

from domain.cards import Role

PlayerId = int

#: Most nugget cards drawn under the house rule (docs/rules.md §6.1).
HOUSE_RULE_MAX_NUGGETS: Final = 9
#: Gold each saboteur takes in the base game, by number of saboteurs (docs/rules.md §6.1).
BASE_SABOTEUR_SHARES: Final[Mapping[int, int]] = {0: 0, 1: 4, 2: 3, 3: 3, 4: 2}
#: Gold each winner takes in Saboteur 2, by number of winners; 5 or more take 1 (§6.2).
SABOTEUR2_SHARES: Final[Mapping[int, int]] = {0: 0, 1: 5, 2: 4, 3: 3, 4: 2}
#: How much less than the other winners the boss and the profiteer take (docs/rules.md §6.2).
SABOTEUR2_DISCOUNT: Final[Mapping[Role, int]] = {Role.BOSS: 1, Role.PROFITEER: 2}


# ------------------------------------------------------------------------ seats


def next_seat(seating: Sequence[PlayerId], player: PlayerId) -> PlayerId:
    """The player clockwise (to the left) of ``player``; raises ValueError if not seated.

    >>> next_seat((1, 2, 3), 2), next_seat((1, 2, 3), 3)
    (3, 1)
    """
    return seating[(seating.index(player) + 1) % len(seating)]


def previous_seat(seating: Sequence[PlayerId], player: PlayerId) -> PlayerId:
    """The player counter-clockwise of ``player``; raises ValueError if not seated.

    >>> previous_seat((1, 2, 3), 2), previous_seat((1, 2, 3), 1)
    (1, 3)
    """
    return seating[(seating.index(player) - 1) % len(seating)]


def clockwise_from(seating: Sequence[PlayerId], player: PlayerId) -> tuple[PlayerId, ...]:
    """Every seat once, starting at ``player`` and going clockwise.

    >>> clockwise_from((1, 2, 3, 4), 3)
    (3, 4, 1, 2)
    """
    start = seating.index(player)
    return tuple(seating[start:]) + tuple(seating[:start])


def counter_clockwise_from(seating: Sequence[PlayerId], player: PlayerId) -> tuple[PlayerId, ...]:
    """Every seat once, starting at ``player`` and going counter-clockwise.

    >>> counter_clockwise_from((1, 2, 3, 4), 3)
    (3, 2, 1, 4)
    """
    start = seating.index(player)
    return tuple(seating[(start - k) % len(seating)] for k in range(len(seating)))


# ------------------------------------------------------------------------ base (§6.1)


def base_round_winners(
    seating: Sequence[PlayerId], roles: Mapping[PlayerId, Role], reached: bool
) -> tuple[PlayerId, ...]:
    """The gold-diggers if the treasure was reached, else the saboteurs; in seat order.

    Whoever reached the treasure does not matter: a saboteur who reaches it makes the
    gold-diggers win. With no saboteur in the round and no treasure, nobody wins.

    >>> roles = {1: Role.GOLD_DIGGER, 2: Role.SABOTEUR, 3: Role.GOLD_DIGGER}
    >>> base_round_winners((1, 2, 3), roles, reached=True)
    (1, 3)
    >>> base_round_winners((1, 2, 3), roles, reached=False)
    (2,)
    """
    wanted = Role.GOLD_DIGGER if reached else Role.SABOTEUR
    return tuple(p for p in seating if roles[p] is wanted)


def base_pick_order(
    seating: Sequence[PlayerId],
    roles: Mapping[PlayerId, Role],
    reached_by: PlayerId,
    among: AbstractSet[PlayerId] | None = None,
) -> tuple[PlayerId, ...]:
    """The gold-diggers in the order they keep a nugget card, each once.

    First the player who reached the treasure if a gold-digger, else the first gold-digger
    counter-clockwise from them (the base rulebook: "el primer Minero a la derecha de ese
    Saboteador"); then on counter-clockwise, skipping saboteurs. ``among``: the gold-diggers
    who share the gold, when a variant leaves some out (docs/rules.md §8); by default
    every gold-digger.

    >>> roles = {1: Role.GOLD_DIGGER, 2: Role.SABOTEUR, 3: Role.GOLD_DIGGER, 4: Role.GOLD_DIGGER}
    >>> base_pick_order((1, 2, 3, 4), roles, reached_by=3)
    (3, 1, 4)
    >>> base_pick_order((1, 2, 3, 4), roles, reached_by=2)
    (1, 4, 3)
    >>> base_pick_order((1, 2, 3, 4), roles, reached_by=3, among={1, 4})
    (1, 4)
    """
    return tuple(
        p
        for p in counter_clockwise_from(seating, reached_by)
        if roles[p] is Role.GOLD_DIGGER and (among is None or p in among)
    )


def base_treasure_sharers(
    seating: Sequence[PlayerId],
    roles: Mapping[PlayerId, Role],
    broken: AbstractSet[PlayerId] = frozenset(),
) -> tuple[PlayerId, ...]:
    """The gold-diggers who share the nugget cards of a treasure reached, in seat order:
    every gold-digger but the selfish dwarf (he is paid only for a treasure he reached
    himself) and, under the *greedy dwarf* variant, those in ``broken`` (with a broken
    tool): docs/rules.md §6.1, §8.

    >>> roles = {1: Role.GOLD_DIGGER, 2: Role.SELFISH_DWARF, 3: Role.GOLD_DIGGER}
    >>> base_treasure_sharers((1, 2, 3), roles), base_treasure_sharers((1, 2, 3), roles, {3})
    ((1, 3), (1,))
    """
    return tuple(p for p in seating if roles[p] is Role.GOLD_DIGGER and p not in broken)


def best_nuggets(drawn: Sequence[int], keep: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The ``keep`` most valuable of the nugget cards ``drawn`` (the selfish dwarf's pick,
    docs/rules.md §8), and the others, each in the order drawn.

    >>> best_nuggets((1, 3, 2, 3, 1), 2)
    ((3, 3), (1, 2, 1))
    """
    best = sorted(range(len(drawn)), key=lambda i: (-drawn[i], i))[:keep]
    chosen = set(best)
    return (
        tuple(drawn[i] for i in sorted(chosen)),
        tuple(v for i, v in enumerate(drawn) if i not in chosen),
    )


def base_nuggets_to_draw(players: int, diggers: int, house_rule: bool) -> int:
    """How many nugget cards the treasure finder draws.

    One per gold-digger (the base rulebook); under the house rule one per player, at most 9.

    >>> base_nuggets_to_draw(7, 5, house_rule=False), base_nuggets_to_draw(7, 5, house_rule=True)
    (5, 7)
    >>> base_nuggets_to_draw(10, 7, house_rule=True)
    9
    """
    return min(players, HOUSE_RULE_MAX_NUGGETS) if house_rule else diggers


def base_house_rule_pick_order(
    seating: Sequence[PlayerId],
    roles: Mapping[PlayerId, Role],
    reached_by: PlayerId,
    cards: int,
    among: AbstractSet[PlayerId] | None = None,
) -> tuple[PlayerId, ...]:
    """Who keeps each of ``cards`` drawn nugget cards when they pass round until none remain.

    The gold-diggers take turns in :func:`base_pick_order`, going round again as long as cards
    remain, so the first pickers may keep one more card than the others. Without house rule,
    ``cards`` equals the number of gold-diggers and this is :func:`base_pick_order` itself.

    >>> roles = {1: Role.GOLD_DIGGER, 2: Role.SABOTEUR, 3: Role.GOLD_DIGGER, 4: Role.SABOTEUR}
    >>> base_house_rule_pick_order((1, 2, 3, 4), roles, reached_by=3, cards=4)
    (3, 1, 3, 1)
    >>> base_house_rule_pick_order((1, 2, 3, 4), roles, reached_by=1, cards=5)
    (1, 3, 1, 3, 1)
    """
    order = base_pick_order(seating, roles, reached_by, among)
    if not order:
        return ()
    return tuple(order[i % len(order)] for i in range(cards))


def base_saboteur_share(saboteurs: int) -> int:
    """Gold each saboteur takes when the treasure was not reached (docs/rules.md §6.1).

    >>> [base_saboteur_share(n) for n in range(5)]
    [0, 4, 3, 3, 2]
    """
    if saboteurs not in BASE_SABOTEUR_SHARES:
        raise ValueError(f"the base game has 0 to 4 saboteurs, not {saboteurs}")
    return BASE_SABOTEUR_SHARES[saboteurs]


def take_nuggets(pile: Sequence[int], amount: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Pay ``amount`` gold in nugget cards from ``pile`` (index 0 is the top).

    The rulebook pays a saboteur "the equivalent of" 4, 3 or 2 gold from the nugget pile
    (docs/rules.md §6.1), so the cards are chosen, not blindly drawn. The rule, in order:

    1. pay exactly ``amount`` when some cards add up to it; otherwise the largest sum below
       it that some cards reach (the pile ran short: pay what is left, never more);
    2. with as few cards as possible (so the pile lasts);
    3. among equally few cards, those nearest the top of the pile.

    Returns ``(taken, rest)``, both in pile order.

    >>> take_nuggets((1, 1, 2, 3), 4)
    ((1, 3), (1, 2))
    >>> take_nuggets((2, 2, 1), 3)
    ((2, 1), (2,))
    >>> take_nuggets((3, 3), 2)
    ((), (3, 3))
    """
    if amount < 0:
        raise ValueError(f"cannot pay a negative amount: {amount}")
    if any(value < 1 for value in pile):
        raise ValueError(f"nugget cards are worth at least 1: {tuple(pile)}")
    cards = tuple(pile)
    # fewest[i][s]: fewest cards among cards[i:] adding up to exactly s (None: impossible).
    fewest: list[list[int | None]] = [[None] * (amount + 1) for _ in range(len(cards) + 1)]
    fewest[len(cards)][0] = 0
    for i in range(len(cards) - 1, -1, -1):
        below, here, value = fewest[i + 1], fewest[i], cards[i]
        for s in range(amount + 1):
            best = below[s]
            if s >= value:
                without = below[s - value]
                if without is not None and (best is None or without + 1 < best):
                    best = without + 1
            here[s] = best
    target = max(s for s in range(amount + 1) if fewest[0][s] is not None)
    # Walk from the top, taking a card whenever an optimal payment still includes it: the
    # earliest card taken is then as high in the pile as possible, then the next, and so on.
    taken_at: list[int] = []
    owed = target
    for i, value in enumerate(cards):
        need = fewest[i][owed]
        after = fewest[i + 1][owed - value] if owed >= value else None
        if owed and need is not None and after is not None and after + 1 == need:
            taken_at.append(i)
            owed -= value
    chosen = set(taken_at)
    taken = tuple(cards[i] for i in taken_at)
    left = tuple(value for i, value in enumerate(cards) if i not in chosen)
    return taken, left


# ------------------------------------------------------------------------ saboteur2 (§6.2)


@dataclass(frozen=True, slots=True)
class RoundResult:
    """A Saboteur 2 round's outcome.

    ``winners`` are the players counted as winners, in seat order (never geologists, never
    trapped players). ``payouts`` are the players who receive gold and how much, in seat
    order, only amounts above 0: winners' shares and geologists' crystal gold.
    """

    winners: tuple[PlayerId, ...]
    payouts: tuple[tuple[PlayerId, int], ...]

    def paid(self, player: PlayerId) -> int:
        """Gold ``player`` receives this round (0 if none)."""
        return dict(self.payouts).get(player, 0)


def saboteur2_share(winners: int) -> int:
    """Gold each winner takes, before the boss's and the profiteer's discount.

    >>> [saboteur2_share(n) for n in range(8)]
    [0, 5, 4, 3, 2, 1, 1, 1]
    """
    if winners < 0:
        raise ValueError(f"a negative number of winners: {winners}")
    return SABOTEUR2_SHARES.get(winners, 1)


def winning_teams(
    reached: bool,
    reached_by_role: Role | None,
    blue_can_pass: bool,
    green_can_pass: bool,
) -> frozenset[Role]:
    """Which digger teams (``BLUE_DIGGER``, ``GREEN_DIGGER``) win (docs/rules.md §6.2, Teams).

    A digger who reaches the treasure wins for their own team if it can pass, else for the
    other team if that one can; anyone else reaching it makes every team that can pass win.

    >>> sorted(r.value for r in winning_teams(True, Role.GREEN_DIGGER, True, True))
    ['green_digger']
    >>> sorted(r.value for r in winning_teams(True, Role.GREEN_DIGGER, True, False))
    ['blue_digger']
    >>> sorted(r.value for r in winning_teams(True, Role.BOSS, True, True))
    ['blue_digger', 'green_digger']
    """
    if not reached:
        return frozenset()
    can_pass = {Role.BLUE_DIGGER: blue_can_pass, Role.GREEN_DIGGER: green_can_pass}
    if reached_by_role in can_pass:
        assert reached_by_role is not None
        own = reached_by_role
        other = Role.GREEN_DIGGER if own is Role.BLUE_DIGGER else Role.BLUE_DIGGER
        if can_pass[own]:
            return frozenset({own})
        return frozenset({other}) if can_pass[other] else frozenset()
    return frozenset(team for team, passes in can_pass.items() if passes)


def saboteur2_round(
    seating: Sequence[PlayerId],
    roles: Mapping[PlayerId, Role],
    trapped: AbstractSet[PlayerId],
    reached: bool,
    reached_by: PlayerId | None,
    blue_can_pass: bool,
    green_can_pass: bool,
    crystals: int,
) -> RoundResult:
    """Winners and gold of a Saboteur 2 round (docs/rules.md §6.2), thefts not yet settled.

    ``roles`` are the dwarf cards at round end; ``reached_by`` is who placed the card that
    reached the treasure (ignored when ``reached`` is false); ``crystals`` is the number
    visible on the table.

    Teams win per :func:`winning_teams`; the boss wins whenever the treasure is reached (alone
    if both teams are blocked); the profiteer always wins; saboteurs win when it is not
    reached. Trapped players never win nor get anything. *n* winners take 5/4/3/2/1 (5+ → 1),
    the boss 1 less and the profiteer 2 less, never below 0. Untrapped geologists split the
    crystals evenly, rounded down, and are never counted as winners.

    >>> roles = {1: Role.BLUE_DIGGER, 2: Role.BOSS, 3: Role.SABOTEUR, 4: Role.GEOLOGIST}
    >>> saboteur2_round((1, 2, 3, 4), roles, frozenset(), True, 2, True, False, crystals=3)
    RoundResult(winners=(1, 2), payouts=((1, 4), (2, 3), (4, 3)))
    """
    if crystals < 0:
        raise ValueError(f"a negative number of crystals: {crystals}")
    by_role = roles[reached_by] if reached and reached_by is not None else None
    winning_roles = set(winning_teams(reached, by_role, blue_can_pass, green_can_pass))
    winning_roles.add(Role.PROFITEER)
    winning_roles.add(Role.BOSS if reached else Role.SABOTEUR)
    winners = tuple(p for p in seating if p not in trapped and roles[p] in winning_roles)
    share = saboteur2_share(len(winners))
    geologists = [p for p in seating if p not in trapped and roles[p] is Role.GEOLOGIST]
    crystal_share = crystals // len(geologists) if geologists else 0
    payouts: list[tuple[PlayerId, int]] = []
    for p in seating:
        if p in winners:
            amount = max(0, share - SABOTEUR2_DISCOUNT.get(roles[p], 0))
        elif p in geologists:
            amount = crystal_share
        else:
            continue
        if amount > 0:
            payouts.append((p, amount))
    return RoundResult(winners, tuple(payouts))


# ------------------------------------------------------------------------ theft (§6.3)


def theft_order(
    seating: Sequence[PlayerId],
    thefts_in_play_order: Sequence[PlayerId],
    trapped: AbstractSet[PlayerId],
) -> tuple[PlayerId, ...]:
    """The thieves in the order they steal.

    ``thefts_in_play_order`` lists the players with a theft in front of them, oldest theft
    first. Trapped thieves cannot steal and are left out before anything else, so the first
    to steal is the untrapped player with the most recent theft; the others follow clockwise
    from that player (the Saboteur 2 rulebooks, docs/rules.md §6.3).

    >>> theft_order((1, 2, 3, 4, 5), (4, 2, 5), trapped=frozenset())
    (5, 2, 4)
    >>> theft_order((1, 2, 3, 4, 5), (4, 2, 5), trapped=frozenset({5}))
    (2, 4)
    """
    thieves = [p for p in thefts_in_play_order if p not in trapped]
    if not thieves:
        return ()
    members = set(thieves)
    return tuple(p for p in clockwise_from(seating, thieves[-1]) if p in members)


def theft_victims(
    thief: PlayerId,
    gold: Mapping[PlayerId, int],
    seating: Sequence[PlayerId] | None = None,
) -> tuple[PlayerId, ...]:
    """Whom ``thief`` may rob: every other player who has gold, in seat order.

    Seat order is ``seating`` when given, else the order of ``gold``'s keys (build it in
    seat order). Whether a player has gold is public; how much is not (docs/rules.md §6.3).

    >>> theft_victims(2, {1: 3, 2: 5, 3: 0, 4: 1})
    (1, 4)
    """
    order = seating if seating is not None else tuple(gold)
    return tuple(p for p in order if p != thief and gold.get(p, 0) > 0)


# ------------------------------------------------------------------------ the game


def game_winners(gold: Mapping[PlayerId, int]) -> tuple[PlayerId, ...]:
    """The players with the most gold after the last round; ties share the victory.

    In the order of ``gold``'s keys.

    >>> game_winners({1: 7, 2: 9, 3: 9})
    (2, 3)
    >>> game_winners({})
    ()
    """
    if not gold:
        return ()
    best = max(gold.values())
    return tuple(p for p, amount in gold.items() if amount == best)
