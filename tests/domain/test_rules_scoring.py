"""Scoring a round (docs/rules.md §6), the next round's first player (§3.1) and the game's end."""

from __future__ import annotations

from given import T0, TURN, action_event, dealt, given, ids, then_raises, when

from domain import errors
from domain.commands import ChooseTheftVictim, Pass, PickGold, PlacePath, PlayAction
from domain.events import (
    DecisionOpened,
    Event,
    GameEnded,
    GoldPaid,
    GoldPicked,
    GoldPickStarted,
    PathPlaced,
    RoundEnded,
    RoundStarted,
    TheftResolved,
    TheftsStarted,
)

CROSS = ids("base", "cross")
EW = ids("base", "straight_ew")
DEADLINE = T0 + TURN * 1000
BASE_ROLES = {1: "gold_digger", 2: "saboteur", 3: "gold_digger", 4: "gold_digger"}


def _treasure_in_reach(house_rule: bool = False) -> list[Event]:
    """Base, 4 players; a tunnel from the start to (6, 0); player 3 holds the last cross."""
    path = [PathPlaced(1, c, (x, 0), False) for x, c in enumerate([*CROSS[:3], *EW], start=1)]
    return [
        *dealt(players=4, roles=BASE_ROLES, hands={3: (CROSS[4],)}, first=3, house_rule=house_rule),
        *path,
    ]


def _of(events: list[Event], kind: type) -> list[Event]:
    return [e for e in events if isinstance(e, kind)]


def test_gold_diggers_pick_nuggets_one_at_a_time_from_whoever_reached_the_treasure() -> None:
    setup = _treasure_in_reach()
    events = when(given(setup), PlacePath(3, CROSS[4], (7, 0), False), at=T0)
    ended = _of(events, RoundEnded)[0]
    assert isinstance(ended, RoundEnded) and ended.winners == (1, 3, 4) and ended.reached_by == 3
    assert _of(events, GoldPickStarted) == [GoldPickStarted((3, 2, 1), (3, 1, 4))]
    assert events[-1] == DecisionOpened(2, 3, "gold_pick", DEADLINE)
    state = given(setup, events)
    then_raises(state, PickGold(1, 2), errors.NotYourTurn)
    then_raises(state, PickGold(3, 5), errors.InvalidTarget)
    then_raises(state, Pass(3, (0,)), errors.WrongDecision)
    picked = when(state, PickGold(3, 3), at=T0)
    assert picked == [GoldPicked(3, 3), DecisionOpened(3, 1, "gold_pick", DEADLINE)]
    state = given(setup, events, picked)
    last = when(state, PickGold(1, 1), at=T0, seed=5)
    assert last[:2] == [GoldPicked(1, 1), GoldPicked(4, 2)]  # no choice left: taken at once
    started = _of(last, RoundStarted)[0]
    assert isinstance(started, RoundStarted) and started.round == 2
    assert started.first_player == 4  # left of the last path card's player
    after = given(setup, events, picked, last)
    assert dict(after.gold) == {1: 1, 2: 0, 3: 3, 4: 2}
    assert after.nugget_pile[:1] == (1,) and len(after.nugget_pile) == 15 - 3


def test_the_house_rule_draws_one_nugget_per_player_and_passes_them_round() -> None:
    events = when(given(_treasure_in_reach(True)), PlacePath(3, CROSS[4], (7, 0), False), at=T0)
    assert _of(events, GoldPickStarted) == [GoldPickStarted((3, 2, 1, 1), (3, 1, 4, 3))]


def test_saboteurs_share_gold_when_the_treasure_is_not_reached() -> None:
    roles = {1: "saboteur", 2: "gold_digger", 3: "gold_digger"}
    setup = dealt(roles=roles, hands={1: (EW[0],), 2: (), 3: ()}, draw_pile=())
    events = when(given(setup), Pass(1, (EW[0],)), at=T0)
    ended = _of(events, RoundEnded)[0]
    assert isinstance(ended, RoundEnded) and not ended.treasure_reached and ended.winners == (1,)
    paid = _of(events, GoldPaid)[0]
    assert isinstance(paid, GoldPaid) and paid.payouts == ((1, 4),)
    assert sum(v for _, cards in paid.nuggets for v in cards) == 4
    assert given(setup, events).gold[1] == 4


S2_ROLES = {1: "blue_digger", 2: "saboteur", 3: "saboteur", 4: "boss"}
THEFT = ids("saboteur2", "theft")


def _saboteur2_end(front: list[tuple[int, str, int]], roles: dict[int, str]) -> list[Event]:
    """saboteur2, 4 players: the pile and hands are empty but for player 1's last card."""
    setup: list[Event] = [
        *dealt(
            "saboteur2", players=4, roles=roles, hands={1: (0,), 2: (), 3: (), 4: ()}, draw_pile=()
        )
    ]
    setup += [action_event(t, c, kind, target_player=t) for c, kind, t in front]
    setup.append(DecisionOpened(2, 1, "turn", DEADLINE))
    return setup


def test_saboteur2_pays_winners_then_thieves_steal_most_recent_first_then_clockwise() -> None:
    setup = _saboteur2_end([(THEFT[0], "theft", 1), (THEFT[1], "theft", 4)], S2_ROLES)
    events = when(given(setup), Pass(1, (0,)), at=T0)
    assert _of(events, GoldPaid) == [GoldPaid(((2, 4), (3, 4)))]
    assert _of(events, TheftsStarted) == [TheftsStarted((4, 1))]
    assert events[-1] == DecisionOpened(3, 4, "theft", DEADLINE)
    state = given(setup, events)
    then_raises(state, ChooseTheftVictim(4, 1), errors.InvalidTarget)  # player 1 has no gold
    stolen = when(state, ChooseTheftVictim(4, 2), at=T0)
    assert stolen == [TheftResolved(4, 2), DecisionOpened(4, 1, "theft", DEADLINE)]
    state = given(setup, events, stolen)
    assert dict(state.gold) == {1: 0, 2: 3, 3: 4, 4: 1}
    done = when(state, ChooseTheftVictim(1, 4), at=T0)
    assert done[0] == TheftResolved(1, 4)
    assert _of(done, RoundStarted)


def test_a_trapped_thief_cannot_steal() -> None:
    trap = ids("saboteur2", "trapped")[0]
    front = [(THEFT[0], "theft", 1), (THEFT[1], "theft", 4), (trap, "trapped", 4)]
    events = when(given(_saboteur2_end(front, S2_ROLES)), Pass(1, (0,)), at=T0)
    assert _of(events, TheftsStarted) == [TheftsStarted((1,))]


def test_a_thief_with_nobody_to_rob_steals_nothing() -> None:
    roles = {1: "blue_digger", 2: "green_digger", 3: "geologist", 4: "blue_digger"}
    events = when(given(_saboteur2_end([(THEFT[0], "theft", 1)], roles)), Pass(1, (0,)), at=T0)
    assert TheftResolved(1, None) in events and not _of(events, GoldPaid)


def test_saboteur2_round_two_starts_left_of_whoever_played_the_last_card() -> None:
    setup = _saboteur2_end([(THEFT[0], "theft", 3)], {1: "blue_digger", 2: "green_digger"})
    events = when(given(setup), Pass(1, (0,)), at=T0)
    started = _of(events, RoundStarted)[0]
    assert isinstance(started, RoundStarted) and started.first_player == 4  # player 3 played it


def test_the_game_ends_after_round_three_and_ties_share_the_victory() -> None:
    roles = {1: "blue_digger", 2: "green_digger", 3: "geologist"}
    setup: list[Event] = [
        *dealt(
            "saboteur2",
            players=3,
            roles=roles,
            hands={1: (0,), 2: (), 3: ()},
            draw_pile=(),
            round=3,
        ),
        GoldPaid(((1, 5), (2, 5), (3, 2))),
    ]
    events = when(given(setup), Pass(1, (0,)), at=T0)
    assert events[-1] == GameEnded(((1, 5), (2, 5), (3, 2)), (1, 2))
    state = given(setup, events)
    assert state.phase == "finished" and state.winners == (1, 2)
    then_raises(state, Pass(1, (0,)), errors.GameOver)


def test_worked_example_6_3_boss_reaches_through_a_blue_door_untrapped_thief_steals() -> None:
    # Seed 002: 1 blue, 2 green, boss, profiteer, 2 saboteurs, both saboteurs with a theft
    # in front of them, one of them trapped; the boss reaches the treasure through a blue
    # door → blue wins → the blue digger, boss and profiteer (n = 3) get 3, 2, 1 gold; the
    # untrapped saboteur steals 1; the trapped one cannot.
    roles = {
        1: "blue_digger",
        2: "green_digger",
        3: "green_digger",
        4: "boss",
        5: "profiteer",
        6: "saboteur",
        7: "saboteur",
    }
    cross = ids("saboteur2", "cross")
    ew = ids("saboteur2", "straight_ew")
    door = ids("saboteur2", "blue_door_ew")[0]
    trap = ids("saboteur2", "trapped")[0]
    route = [cross[0], cross[1], door, *ew]  # (1, 0) .. (6, 0), the blue door at (3, 0)
    setup: list[Event] = [
        *dealt("saboteur2", players=7, roles=roles, hands={4: (cross[2],)}),
        *[PathPlaced(1 + x % 3, c, (x, 0), False) for x, c in enumerate(route, start=1)],
        action_event(6, THEFT[0], "theft", target_player=6),
        action_event(7, THEFT[1], "theft", target_player=7),
        action_event(2, trap, "trapped", target_player=7),
        DecisionOpened(2, 4, "turn", DEADLINE),
    ]

    events = when(given(setup), PlacePath(4, cross[2], (7, 0), False), at=T0)

    ended = _of(events, RoundEnded)[0]
    assert isinstance(ended, RoundEnded) and ended.treasure_reached and ended.reached_by == 4
    assert ended.winners == (1, 4, 5)
    assert _of(events, GoldPaid) == [GoldPaid(((1, 3), (4, 2), (5, 1)))]
    assert _of(events, TheftsStarted) == [TheftsStarted((6,))]  # the trapped thief is left out
    assert events[-1] == DecisionOpened(3, 6, "theft", DEADLINE)
    state = given(setup, events)
    then_raises(state, ChooseTheftVictim(7, 1), errors.NotYourTurn)
    then_raises(state, ChooseTheftVictim(6, 2), errors.InvalidTarget)  # 2 has no gold

    stolen = when(state, ChooseTheftVictim(6, 1), at=T0)

    assert stolen[0] == TheftResolved(6, 1)
    assert not [e for e in stolen if isinstance(e, TheftResolved) and e.thief == 7]
    assert _of(stolen, RoundStarted)  # nobody else steals: the next round starts
    after = given(setup, events, stolen)
    assert dict(after.gold) == {1: 2, 2: 0, 3: 0, 4: 2, 5: 1, 6: 1, 7: 0}


def test_open_rule_next_round_starts_left_of_first_player_when_no_path_card_was_played() -> None:
    # base: only path cards count (§3.1), so an action card changes nothing.
    map_card = ids("base", "map")[0]
    setup = dealt(hands={1: (EW[0],), 2: (map_card,), 3: (EW[1],)}, draw_pile=(), first=2)
    state = given(setup)
    events = when(state, PlayAction(2, map_card, target_cell=(8, 0)), at=T0)
    for player in (3, 1):
        state = given(setup, events)
        events += when(state, Pass(player, state.hand(player)), at=T0)
    started = _of(events, RoundStarted)
    assert started and isinstance(started[0], RoundStarted) and started[0].round == 2
    assert started[0].first_player == 3  # left of player 2, who started round 1


def test_open_rule_saboteur2_next_round_starts_left_of_first_player_when_no_card_played() -> None:
    setup = dealt("saboteur2", hands={1: (1,), 2: (2,), 3: (3,)}, draw_pile=(), first=3)
    events: list[Event] = []
    for player in (3, 1, 2):
        events += when(given(setup, events), Pass(player, (player,)), at=T0)
    started = _of(events, RoundStarted)
    assert started and isinstance(started[0], RoundStarted) and started[0].first_player == 1


def test_open_rule_a_thief_with_exactly_one_possible_victim_robs_them_without_a_choice() -> None:
    roles = {1: "blue_digger", 2: "saboteur", 3: "green_digger", 4: "geologist"}
    events = when(given(_saboteur2_end([(THEFT[0], "theft", 1)], roles)), Pass(1, (0,)), at=T0)
    assert _of(events, GoldPaid) == [GoldPaid(((2, 5),))]  # the lone saboteur wins
    assert TheftResolved(1, 2) in events
    assert not [e for e in events if isinstance(e, DecisionOpened) and e.kind == "theft"]
    assert dict(given(_saboteur2_end([(THEFT[0], "theft", 1)], roles), events).gold)[1] == 1


def test_open_rule_the_base_spare_dwarf_is_revealed_at_round_end() -> None:
    # Seed 001: the spare lies face down "hasta el final de la ronda"; when the round ends
    # "todas las cartas de enano son reveladas".
    setup = dealt(hands={1: (EW[0],), 2: (), 3: ()}, draw_pile=())
    spare = given(setup).dwarf_pile
    assert len(spare) == 1
    events = when(given(setup), Pass(1, (EW[0],)), at=T0)
    ended = _of(events, RoundEnded)[0]
    assert isinstance(ended, RoundEnded) and ended.spare == (spare[0].value,)


def test_the_saboteur2_dwarf_pile_stays_face_down_at_round_end() -> None:
    setup = _saboteur2_end([], S2_ROLES)
    events = when(given(setup), Pass(1, (0,)), at=T0)
    ended = _of(events, RoundEnded)[0]
    assert isinstance(ended, RoundEnded) and ended.spare == ()
