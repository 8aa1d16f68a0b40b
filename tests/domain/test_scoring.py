"""Scoring (docs/rules.md §6): given who sat where and who was what, when a round ends, then
gold."""

from __future__ import annotations

import doctest
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain import scoring
from domain.cards import Role, nugget_cards
from domain.scoring import (
    RoundResult,
    base_house_rule_pick_order,
    base_nuggets_to_draw,
    base_pick_order,
    base_round_winners,
    base_saboteur_share,
    game_winners,
    next_seat,
    previous_seat,
    saboteur2_round,
    saboteur2_share,
    take_nuggets,
    theft_order,
    theft_victims,
)

BLUE, GREEN = Role.BLUE_DIGGER, Role.GREEN_DIGGER
BOSS, PROFITEER, GEOLOGIST = Role.BOSS, Role.PROFITEER, Role.GEOLOGIST
SABOTEUR, DIGGER = Role.SABOTEUR, Role.GOLD_DIGGER
NOBODY: frozenset[int] = frozenset()


def table(*roles: Role) -> tuple[tuple[int, ...], dict[int, Role]]:
    """Seats 1, 2, 3, ... in join order, holding ``roles`` in that order."""
    seating = tuple(range(1, len(roles) + 1))
    return seating, dict(zip(seating, roles, strict=True))


def test_the_module_docstring_examples_hold() -> None:
    failed, tried = doctest.testmod(scoring)
    assert tried > 0
    assert failed == 0


# ------------------------------------------------------------------------ seats


def test_next_seat_is_clockwise_and_wraps_round_the_table() -> None:
    assert next_seat((5, 7, 9), 5) == 7
    assert next_seat((5, 7, 9), 9) == 5


def test_previous_seat_is_counter_clockwise_and_wraps_round_the_table() -> None:
    assert previous_seat((5, 7, 9), 7) == 5
    assert previous_seat((5, 7, 9), 5) == 9


def test_a_player_not_seated_has_no_neighbour() -> None:
    with pytest.raises(ValueError):
        next_seat((1, 2, 3), 4)
    with pytest.raises(ValueError):
        previous_seat((1, 2, 3), 4)


# ------------------------------------------------------------------------ base (§6.1)


def test_base_gold_diggers_win_when_the_treasure_is_reached() -> None:
    seating, roles = table(DIGGER, SABOTEUR, DIGGER, DIGGER)
    assert base_round_winners(seating, roles, reached=True) == (1, 3, 4)


def test_base_saboteurs_win_when_the_treasure_is_not_reached() -> None:
    seating, roles = table(SABOTEUR, DIGGER, DIGGER, SABOTEUR, DIGGER)
    assert base_round_winners(seating, roles, reached=False) == (1, 4)


def test_base_nobody_wins_an_unreached_round_without_a_saboteur() -> None:
    seating, roles = table(DIGGER, DIGGER, DIGGER)
    assert base_round_winners(seating, roles, reached=False) == ()


def test_base_the_digger_who_reached_the_treasure_picks_first_then_counter_clockwise() -> None:
    seating, roles = table(DIGGER, DIGGER, SABOTEUR, DIGGER, DIGGER)
    assert base_pick_order(seating, roles, reached_by=4) == (4, 2, 1, 5)


def test_base_when_a_saboteur_reaches_the_treasure_the_first_digger_ccw_picks_first() -> None:
    # Seat 3 is a saboteur, seat 2 too: the first gold-digger to their right is seat 1.
    seating, roles = table(DIGGER, SABOTEUR, SABOTEUR, DIGGER, DIGGER)
    assert base_pick_order(seating, roles, reached_by=3) == (1, 5, 4)


def test_base_when_a_saboteur_in_the_first_seat_reaches_the_treasure_the_order_wraps() -> None:
    seating, roles = table(SABOTEUR, DIGGER, DIGGER, DIGGER)
    assert base_pick_order(seating, roles, reached_by=1) == (4, 3, 2)


def test_base_every_gold_digger_picks_exactly_once() -> None:
    seating, roles = table(DIGGER, SABOTEUR, DIGGER, SABOTEUR, DIGGER, DIGGER, SABOTEUR)
    for reached_by in seating:
        order = base_pick_order(seating, roles, reached_by)
        assert sorted(order) == [1, 3, 5, 6]


def test_base_draws_one_nugget_card_per_gold_digger() -> None:
    assert base_nuggets_to_draw(players=5, diggers=4, house_rule=False) == 4


def test_base_house_rule_draws_one_nugget_card_per_player_at_most_nine() -> None:
    assert base_nuggets_to_draw(players=5, diggers=4, house_rule=True) == 5
    assert base_nuggets_to_draw(players=9, diggers=7, house_rule=True) == 9
    assert base_nuggets_to_draw(players=10, diggers=7, house_rule=True) == 9


def test_base_house_rule_keeps_passing_round_the_diggers_until_no_card_remains() -> None:
    # 7 players, 3 diggers, 7 cards: the finder and the next digger ccw keep 3 and 2...
    seating, roles = table(DIGGER, SABOTEUR, DIGGER, SABOTEUR, SABOTEUR, DIGGER, SABOTEUR)
    cards = base_nuggets_to_draw(len(seating), 3, house_rule=True)
    order = base_house_rule_pick_order(seating, roles, reached_by=3, cards=cards)
    assert order == (3, 1, 6, 3, 1, 6, 3)
    assert [order.count(p) for p in (3, 1, 6)] == [3, 2, 2]


def test_base_house_rule_order_with_one_card_per_digger_is_the_plain_pick_order() -> None:
    seating, roles = table(DIGGER, SABOTEUR, DIGGER, DIGGER)
    plain = base_pick_order(seating, roles, reached_by=2)
    assert base_house_rule_pick_order(seating, roles, reached_by=2, cards=3) == plain


def test_base_house_rule_order_is_empty_without_gold_diggers() -> None:
    seating, roles = table(SABOTEUR, SABOTEUR, SABOTEUR)
    assert base_house_rule_pick_order(seating, roles, reached_by=1, cards=3) == ()


@pytest.mark.parametrize(("saboteurs", "share"), [(0, 0), (1, 4), (2, 3), (3, 3), (4, 2)])
def test_base_saboteurs_share_depends_on_how_many_they_are(saboteurs: int, share: int) -> None:
    assert base_saboteur_share(saboteurs) == share


def test_base_more_than_four_saboteurs_is_refused() -> None:
    with pytest.raises(ValueError):
        base_saboteur_share(5)
    with pytest.raises(ValueError):
        base_saboteur_share(-1)


# ------------------------------------------------------------------------ paying nugget cards


def test_nuggets_pay_the_exact_amount_with_the_fewest_cards_nearest_the_top() -> None:
    # 4 gold: 1+3 (two cards) beats 1+1+2 (three); of the two 1s the upper one goes.
    assert take_nuggets((1, 1, 2, 3, 2), 4) == ((1, 3), (1, 2, 2))


def test_nuggets_among_equally_few_cards_take_the_one_highest_in_the_pile_first() -> None:
    # 4 gold in two cards: 2+2 at positions 0 and 2, or 1+3 at positions 1 and 3.
    assert take_nuggets((2, 1, 2, 3), 4) == ((2, 2), (1, 3))
    assert take_nuggets((1, 2, 3, 2), 4) == ((1, 3), (2, 2))


def test_nuggets_never_overpay_when_only_big_cards_remain() -> None:
    # 2 gold owed, only 3s left: nothing can be paid without paying more.
    assert take_nuggets((3, 3, 3), 2) == ((), (3, 3, 3))


def test_nuggets_pay_the_closest_amount_below_when_the_pile_runs_short() -> None:
    assert take_nuggets((2, 3), 4) == ((3,), (2,))
    assert take_nuggets((1, 2), 4) == ((1, 2), ())
    assert take_nuggets((), 3) == ((), ())


def test_nuggets_paying_nothing_takes_nothing() -> None:
    assert take_nuggets((1, 2, 3), 0) == ((), (1, 2, 3))


def test_nuggets_refuse_a_negative_amount() -> None:
    with pytest.raises(ValueError):
        take_nuggets((1, 2, 3), -1)


def test_three_saboteurs_are_paid_in_turn_from_the_same_full_pile() -> None:
    pile = nugget_cards()  # 16 ones, then 8 twos, then 4 threes
    paid = []
    for _ in range(3):
        taken, pile = take_nuggets(pile, base_saboteur_share(3))
        paid.append(taken)
    assert paid == [(3,), (3,), (3,)]
    assert len(pile) == 25
    assert sum(pile) == 44 - 9


def _brute_force(pile: tuple[int, ...], amount: int) -> tuple[int, ...]:
    """The positions the documented rule picks, by trying every subset."""
    best: tuple[int, int, tuple[int, ...]] | None = None
    for size in range(len(pile) + 1):
        for positions in combinations(range(len(pile)), size):
            total = sum(pile[i] for i in positions)
            if total > amount:
                continue
            key = (-total, size, positions)
            if best is None or key < best:
                best = key
    assert best is not None
    return best[2]


@settings(max_examples=300, deadline=None)
@given(
    pile=st.lists(st.integers(1, 3), max_size=9).map(tuple),
    amount=st.integers(0, 8),
)
def test_nuggets_agree_with_trying_every_subset(pile: tuple[int, ...], amount: int) -> None:
    taken, rest = take_nuggets(pile, amount)
    positions = _brute_force(pile, amount)
    assert taken == tuple(pile[i] for i in positions)
    assert rest == tuple(v for i, v in enumerate(pile) if i not in positions)


# ------------------------------------------------------------------------ saboteur2 (§6.2)


@pytest.mark.parametrize(
    ("winners", "share"), [(0, 0), (1, 5), (2, 4), (3, 3), (4, 2), (5, 1), (6, 1), (12, 1)]
)
def test_saboteur2_each_winner_takes_less_the_more_winners_there_are(
    winners: int, share: int
) -> None:
    assert saboteur2_share(winners) == share


def test_saboteur2_worked_example_boss_reaches_through_a_blue_door() -> None:
    # docs/rules.md §6.3, its example: 1 blue, 2 green, boss, profiteer, 2 saboteurs, both saboteurs
    # with a theft in front, one of them trapped; the boss reaches the treasure through a
    # blue door, so only the blue team can pass.
    seating, roles = table(BLUE, GREEN, GREEN, BOSS, PROFITEER, SABOTEUR, SABOTEUR)
    trapped = frozenset({7})

    result = saboteur2_round(
        seating,
        roles,
        trapped,
        reached=True,
        reached_by=4,
        blue_can_pass=True,
        green_can_pass=False,
        crystals=0,
    )

    assert result == RoundResult(winners=(1, 4, 5), payouts=((1, 3), (4, 2), (5, 1)))
    thieves = theft_order(seating, thefts_in_play_order=(6, 7), trapped=trapped)
    assert thieves == (6,)
    gold = {p: result.paid(p) for p in seating}
    assert theft_victims(6, gold) == (1, 4, 5)


def test_saboteur2_green_digger_reaching_through_a_blue_door_makes_blue_win_anyway() -> None:
    # Seed 002's aside to the worked example.
    seating, roles = table(BLUE, GREEN, GREEN, BOSS, PROFITEER, SABOTEUR, SABOTEUR)
    result = saboteur2_round(seating, roles, NOBODY, True, 2, True, False, 0)
    assert result.winners == (1, 4, 5)


def test_saboteur2_blue_digger_reaches_but_only_green_can_pass_so_green_wins() -> None:
    seating, roles = table(BLUE, GREEN, BLUE, GREEN, BOSS, SABOTEUR)
    result = saboteur2_round(seating, roles, NOBODY, True, 1, False, True, 0)
    assert result.winners == (2, 4, 5)
    assert result.payouts == ((2, 3), (4, 3), (5, 2))


def test_saboteur2_a_digger_reaching_with_no_door_in_the_way_wins_for_their_team_only() -> None:
    seating, roles = table(BLUE, GREEN, BLUE, GREEN, SABOTEUR)
    result = saboteur2_round(seating, roles, NOBODY, True, 2, True, True, 0)
    assert result.winners == (2, 4)
    assert result.payouts == ((2, 4), (4, 4))


def test_saboteur2_anyone_else_reaching_with_no_door_in_the_way_makes_both_teams_win() -> None:
    seating, roles = table(BLUE, GREEN, SABOTEUR, GEOLOGIST)
    for reached_by in (3, 4):
        result = saboteur2_round(seating, roles, NOBODY, True, reached_by, True, True, 0)
        assert result.winners == (1, 2)


def test_saboteur2_both_teams_blocked_the_boss_wins_alone_and_takes_four() -> None:
    # Seeds 000, 004: the boss is the only winner and takes 4 when no profiteer plays.
    seating, roles = table(BLUE, GREEN, BOSS, SABOTEUR)
    result = saboteur2_round(seating, roles, NOBODY, True, 1, False, False, 0)
    assert result == RoundResult(winners=(3,), payouts=((3, 4),))


def test_saboteur2_both_teams_blocked_with_a_profiteer_boss_and_profiteer_share() -> None:
    seating, roles = table(BLUE, GREEN, BOSS, PROFITEER)
    result = saboteur2_round(seating, roles, NOBODY, True, 3, False, False, 0)
    assert result == RoundResult(winners=(3, 4), payouts=((3, 3), (4, 2)))


def test_saboteur2_profiteer_reaching_with_both_teams_blocked_and_no_boss_wins_alone() -> None:
    # Seed 000: "el Perezoso obtiene 3 pepitas de oro".
    seating, roles = table(BLUE, GREEN, PROFITEER, SABOTEUR)
    result = saboteur2_round(seating, roles, NOBODY, True, 3, False, False, 0)
    assert result == RoundResult(winners=(3,), payouts=((3, 3),))


def test_saboteur2_saboteurs_and_the_profiteer_win_when_the_treasure_is_not_reached() -> None:
    seating, roles = table(BLUE, SABOTEUR, GREEN, BOSS, SABOTEUR, PROFITEER)
    result = saboteur2_round(seating, roles, NOBODY, False, None, True, True, 0)
    assert result == RoundResult(winners=(2, 5, 6), payouts=((2, 3), (5, 3), (6, 1)))


def test_saboteur2_profiteer_alone_takes_three_when_nobody_reaches_and_no_saboteur_plays() -> None:
    seating, roles = table(BLUE, GREEN, PROFITEER)
    result = saboteur2_round(seating, roles, NOBODY, False, None, False, False, 0)
    assert result == RoundResult(winners=(3,), payouts=((3, 3),))


def test_saboteur2_nobody_wins_an_unreached_round_without_saboteur_or_profiteer() -> None:
    seating, roles = table(BLUE, GREEN, BOSS)
    result = saboteur2_round(seating, roles, NOBODY, False, None, False, False, 0)
    assert result == RoundResult(winners=(), payouts=())


@pytest.mark.parametrize(("n", "each"), [(1, 5), (2, 4), (3, 3), (4, 2), (5, 1), (6, 1)])
def test_saboteur2_n_winners_each_take_the_table_amount(n: int, each: int) -> None:
    diggers = (BLUE, BLUE, BLUE, GREEN, GREEN, GREEN)[:n]
    seating, roles = table(*diggers, SABOTEUR)
    saboteur = seating[-1]
    result = saboteur2_round(seating, roles, NOBODY, True, saboteur, True, True, 0)
    assert result.winners == seating[:n]
    assert result.payouts == tuple((p, each) for p in seating[:n])


@pytest.mark.parametrize(
    ("n", "boss", "profiteer"), [(2, 3, 2), (3, 2, 1), (4, 1, 0), (5, 0, 0), (6, 0, 0)]
)
def test_saboteur2_boss_takes_one_less_and_profiteer_two_less_never_below_zero(
    n: int, boss: int, profiteer: int
) -> None:
    diggers = (BLUE, BLUE, GREEN, GREEN)[: n - 2]
    seating, roles = table(BOSS, *diggers, PROFITEER, SABOTEUR)
    result = saboteur2_round(seating, roles, NOBODY, True, seating[-1], True, True, 0)
    assert len(result.winners) == n
    assert result.paid(1) == boss
    assert result.paid(seating[-2]) == profiteer
    assert all(amount > 0 for _, amount in result.payouts)


def test_saboteur2_trapped_players_never_win_nor_count_nor_get_anything() -> None:
    # Blue wins; one blue digger and the profiteer are trapped: winners are 2 (4 each).
    seating, roles = table(BLUE, BLUE, BOSS, PROFITEER, GREEN, GEOLOGIST)
    trapped = frozenset({2, 4, 6})
    result = saboteur2_round(seating, roles, trapped, True, 1, True, False, crystals=5)
    assert result.winners == (1, 3)
    assert result.payouts == ((1, 4), (3, 3))


def test_saboteur2_a_trapped_saboteur_gets_nothing_when_saboteurs_win() -> None:
    seating, roles = table(SABOTEUR, SABOTEUR, BLUE)
    result = saboteur2_round(seating, roles, frozenset({1}), False, None, False, False, 0)
    assert result == RoundResult(winners=(2,), payouts=((2, 5),))


def test_saboteur2_geologists_split_the_crystals_rounded_down_and_are_never_winners() -> None:
    seating, roles = table(GEOLOGIST, BLUE, GEOLOGIST, SABOTEUR)
    result = saboteur2_round(seating, roles, NOBODY, True, 1, True, False, crystals=7)
    assert result.winners == (2,)
    assert result.payouts == ((1, 3), (2, 5), (3, 3))


def test_saboteur2_a_lone_untrapped_geologist_takes_every_crystal() -> None:
    seating, roles = table(GEOLOGIST, BLUE, GEOLOGIST, SABOTEUR)
    result = saboteur2_round(seating, roles, frozenset({3}), False, None, False, False, 7)
    assert result.payouts == ((1, 7), (4, 5))


def test_saboteur2_one_crystal_between_two_geologists_pays_nobody() -> None:
    seating, roles = table(GEOLOGIST, GEOLOGIST, SABOTEUR)
    result = saboteur2_round(seating, roles, NOBODY, True, 1, False, False, crystals=1)
    assert result == RoundResult(winners=(), payouts=())


def test_saboteur2_refuses_a_negative_crystal_count() -> None:
    seating, roles = table(GEOLOGIST, SABOTEUR)
    with pytest.raises(ValueError):
        saboteur2_round(seating, roles, NOBODY, False, None, False, False, crystals=-1)


ROLES = st.sampled_from([BLUE, GREEN, BOSS, PROFITEER, GEOLOGIST, SABOTEUR])


@settings(max_examples=200, deadline=None)
@given(
    roles=st.lists(ROLES, min_size=2, max_size=12),
    data=st.data(),
    reached=st.booleans(),
    blue=st.booleans(),
    green=st.booleans(),
    crystals=st.integers(0, 10),
)
def test_saboteur2_any_round_pays_only_untrapped_players_in_seat_order(
    roles: list[Role],
    data: st.DataObject,
    reached: bool,
    blue: bool,
    green: bool,
    crystals: int,
) -> None:
    seating, by_seat = table(*roles)
    trapped = frozenset(data.draw(st.sets(st.sampled_from(seating))))
    reached_by = data.draw(st.sampled_from(seating)) if reached else None
    result = saboteur2_round(seating, by_seat, trapped, reached, reached_by, blue, green, crystals)
    paid = [p for p, _ in result.payouts]
    assert paid == sorted(paid)
    assert all(amount > 0 for _, amount in result.payouts)
    assert not (set(paid) | set(result.winners)) & trapped
    assert all(by_seat[p] is not GEOLOGIST for p in result.winners)
    assert set(paid) <= set(result.winners) | {p for p in seating if by_seat[p] is GEOLOGIST}
    if any(by_seat[p] is PROFITEER for p in seating if p not in trapped):
        assert any(by_seat[p] is PROFITEER for p in result.winners)


# ------------------------------------------------------------------------ theft (§6.3)


def test_theft_the_most_recent_theft_goes_first_then_clockwise() -> None:
    seating = (1, 2, 3, 4, 5, 6)
    assert theft_order(seating, (2, 6, 4), NOBODY) == (4, 6, 2)


def test_theft_trapped_thieves_are_left_out_before_choosing_who_goes_first() -> None:
    seating = (1, 2, 3, 4, 5, 6)
    assert theft_order(seating, (2, 6, 4), frozenset({4})) == (6, 2)


def test_theft_no_untrapped_thief_means_no_theft() -> None:
    assert theft_order((1, 2, 3), (), NOBODY) == ()
    assert theft_order((1, 2, 3), (2,), frozenset({2})) == ()


def test_theft_victims_are_the_other_players_with_gold_in_seat_order() -> None:
    gold = {1: 0, 2: 4, 3: 1, 4: 2}
    assert theft_victims(4, gold) == (2, 3)
    assert theft_victims(2, gold, seating=(4, 3, 2, 1)) == (4, 3)


def test_theft_a_thief_with_no_one_to_rob_has_no_victim() -> None:
    assert theft_victims(1, {1: 5, 2: 0, 3: 0}) == ()


# ------------------------------------------------------------------------ the game


def test_the_player_with_the_most_gold_wins_the_game() -> None:
    assert game_winners({1: 4, 2: 11, 3: 9}) == (2,)


def test_players_tied_for_the_most_gold_share_the_victory() -> None:
    assert game_winners({1: 9, 2: 4, 3: 9, 4: 9}) == (1, 3, 4)


def test_nobody_with_gold_still_ties_everyone_for_the_victory() -> None:
    assert game_winners({1: 0, 2: 0}) == (1, 2)
