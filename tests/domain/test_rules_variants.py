"""The base game's variants (docs/rules.md §8): each recorded in the game's creation event,
each rule, and their combinations."""

from __future__ import annotations

import pytest
from given import T0, TURN, action_event, dealt, given, ids, lobby, then_raises, when

from domain import codec, errors
from domain.cards import VARIANTS
from domain.commands import (
    ChangeSettings,
    CreateGame,
    Envelope,
    Pass,
    PickGold,
    PlacePath,
    PlayAction,
)
from domain.decide import decide
from domain.events import (
    DecisionOpened,
    Event,
    GameCreated,
    GoalRevealed,
    GoldPaid,
    GoldPicked,
    GoldPickStarted,
    MapLooked,
    PathPlaced,
    RoundEnded,
    RoundStarted,
    SettingsChanged,
)
from domain.evolve import fold
from domain.view import view_for

CROSS = ids("base", "cross")
EW = ids("base", "straight_ew")
MAP = ids("base", "map")
DEADLINE = T0 + TURN * 1000
NUGGETS = (3, 2, 1, 1, 2, 3, 1, 1, 1, 1, 2, 2, 3, 1, 1)


def _of(events: list[Event], kind: type) -> list[Event]:
    return [e for e in events if isinstance(e, kind)]


def _tunnel_to_six(
    *variants: str,
    roles: dict[int, str],
    broken: dict[int, str] | None = None,
    last: int = 3,
    players: int = 4,
) -> list[Event]:
    """Base, ``players`` players: a tunnel from the start to (6, 0), player ``last`` on turn
    holding the cross that reaches the treasure at (8, 0); ``broken``: a tool broken in
    front of a player (by player 2's cards, before the tunnel)."""
    path = [PathPlaced(1, c, (x, 0), False) for x, c in enumerate([*CROSS[:3], *EW], start=1)]
    breaks = ids("base", "broken_pickaxe") + ids("base", "broken_lantern")
    front = [
        action_event(2, breaks[i], f"broken_{tool}", target_player=p)
        for i, (p, tool) in enumerate((broken or {}).items())
    ]
    return [
        *dealt(
            players=players,
            roles=roles,
            hands={last: (CROSS[4],)},
            first=last,
            variants=tuple(variants),
        ),
        *front,
        *path,
    ]


def _reach(setup: list[Event], player: int = 3) -> list[Event]:
    return when(given(setup), PlacePath(player, CROSS[4], (7, 0), False), at=T0)


# ----------------------------------------------------------------- the settings


def test_variants_are_recorded_in_the_creation_event_in_the_catalog_order() -> None:
    events = decide(
        fold([]),
        Envelope(CreateGame(1, "Ann", "base", -5, variants=("selfish_dwarf", "greedy_dwarf"))),
    )
    created = events[0]
    assert isinstance(created, GameCreated)
    assert created.variants == ("greedy_dwarf", "selfish_dwarf")
    assert fold(events).variants == ("greedy_dwarf", "selfish_dwarf")


def test_a_game_created_before_the_variants_loads_with_none() -> None:
    old = {
        "creator": 1,
        "creator_name": "Ann",
        "edition": "base",
        "chat_id": -5,
        "turn_seconds": 60,
        "gold_house_rule": False,
    }
    created = codec.decode("game_created", old)
    assert isinstance(created, GameCreated) and created.variants == ()
    settings = codec.decode("settings_changed", {"edition": "base", "turn_seconds": 60})
    assert isinstance(settings, SettingsChanged) and settings.variants is None
    assert fold([created, settings]).variants == ()


def test_unknown_repeated_or_saboteur2_variants_are_refused() -> None:
    for command in (
        CreateGame(1, "Ann", "base", -5, variants=("double_gold",)),
        CreateGame(1, "Ann", "base", -5, variants=("greedy_dwarf", "greedy_dwarf")),
        CreateGame(1, "Ann", "saboteur2", -5, variants=("greedy_dwarf",)),
    ):
        then_raises(fold([]), command, errors.InvalidSettings)
    then_raises(
        given(lobby("saboteur2")),
        ChangeSettings(1, variants=("selfish_dwarf",)),
        errors.InvalidSettings,
    )


def test_the_creator_switches_variants_in_the_lobby_and_another_change_keeps_them() -> None:
    state = given(lobby())
    events = when(state, ChangeSettings(1, variants=("middle_treasure", "maximum_saboteurs")))
    assert events == [
        SettingsChanged("base", TURN, variants=("maximum_saboteurs", "middle_treasure"))
    ]
    state = given(lobby(), events)
    kept = when(state, ChangeSettings(1, turn_seconds=90))
    assert kept == [SettingsChanged("base", 90)]
    assert given(lobby(), events, kept).variants == ("maximum_saboteurs", "middle_treasure")
    then_raises(state, ChangeSettings(2, variants=()), errors.NotTheCreator)


def test_switching_to_saboteur2_switches_the_variants_off() -> None:
    setup = lobby(variants=("greedy_dwarf",))
    events = when(given(setup), ChangeSettings(1, edition="saboteur2"))
    assert events == [SettingsChanged("saboteur2", TURN, variants=())]
    back = when(given(setup, events), ChangeSettings(1, edition="base"))
    assert given(setup, events, back).variants == ()


# ----------------------------------------------------------- maximum saboteurs


@pytest.mark.parametrize("players", range(3, 11))
def test_maximum_saboteurs_deals_every_saboteur_and_hides_no_dwarf_card(players: int) -> None:
    from domain.cards import BASE_DWARVES
    from domain.commands import StartGame

    setup = lobby(players=players, variants=("maximum_saboteurs",))
    for seed in range(4):
        started = _of(when(given(setup), StartGame(1), seed=seed), RoundStarted)[0]
        assert isinstance(started, RoundStarted)
        dealt_roles = [r for _, r in started.roles]
        assert dealt_roles.count("saboteur") == BASE_DWARVES[players][0]
        assert started.dwarf_pile == ()
    with_four = _of(
        when(given(lobby(players=4, variants=("maximum_saboteurs",))), StartGame(1), seed=3),
        RoundStarted,
    )[0]
    assert isinstance(with_four, RoundStarted)
    assert sorted(r for _, r in with_four.roles) == ["gold_digger"] * 3 + ["saboteur"]


# ------------------------------------------------------ saboteurs know each other


def test_saboteurs_who_know_each_other_are_told_the_others_at_the_rounds_start() -> None:
    roles = {1: "saboteur", 2: "gold_digger", 3: "saboteur", 4: "gold_digger", 5: "gold_digger"}
    state = given(dealt(players=5, roles=roles, variants=("saboteurs_know_each_other",)))
    assert view_for(state, 1).allies == (3,)
    assert view_for(state, 3).allies == (1,)
    assert view_for(state, 2).allies == ()
    assert view_for(state, None).allies == ()
    plain = given(dealt(players=5, roles=roles))
    assert view_for(plain, 1).allies == ()


# ------------------------------------------------------------- greedy dwarf


def test_a_greedy_gold_digger_with_a_broken_tool_shares_no_gold() -> None:
    roles = {1: "gold_digger", 2: "saboteur", 3: "gold_digger", 4: "gold_digger"}
    setup = _tunnel_to_six("greedy_dwarf", roles=roles, broken={4: "pickaxe"})
    events = _reach(setup)
    ended = _of(events, RoundEnded)[0]
    assert isinstance(ended, RoundEnded) and ended.winners == (1, 3)
    # One nugget card per gold-digger who shares, passed counter-clockwise from the finder.
    assert _of(events, GoldPickStarted) == [GoldPickStarted((3, 2), (3, 1))]


def test_without_the_greedy_dwarf_a_broken_tool_still_shares_the_gold() -> None:
    roles = {1: "gold_digger", 2: "saboteur", 3: "gold_digger", 4: "gold_digger"}
    events = _reach(_tunnel_to_six(roles=roles, broken={4: "pickaxe"}))
    assert _of(events, GoldPickStarted) == [GoldPickStarted((3, 2, 1), (3, 1, 4))]


def test_greedy_dwarves_all_with_a_broken_tool_but_the_finder_leave_him_the_one_card() -> None:
    roles = {1: "gold_digger", 2: "saboteur", 3: "gold_digger", 4: "gold_digger"}
    setup = _tunnel_to_six("greedy_dwarf", roles=roles, broken={1: "pickaxe", 4: "lantern"})
    events = _reach(setup)
    ended = _of(events, RoundEnded)[0]
    assert isinstance(ended, RoundEnded) and ended.winners == (3,)
    assert GoldPicked(3, 3) in events  # one card drawn: no choice, taken at once


def test_when_every_greedy_gold_digger_has_a_broken_tool_nobody_scores() -> None:
    # The saboteur reaches the treasure; both gold-diggers have a broken tool.
    roles = {1: "gold_digger", 2: "gold_digger", 3: "saboteur"}
    setup = _tunnel_to_six(
        "greedy_dwarf", roles=roles, broken={1: "pickaxe", 2: "lantern"}, players=3
    )
    events = _reach(setup)
    ended = _of(events, RoundEnded)[0]
    assert isinstance(ended, RoundEnded) and ended.treasure_reached and ended.winners == ()
    assert not _of(events, GoldPickStarted) and not _of(events, GoldPaid)
    assert not _of(events, GoldPicked)
    after = given(setup, events)
    assert after.round == 2 and sum(after.gold.values()) == 0
    assert after.nugget_pile == NUGGETS  # no card drawn


# ---------------------------------------------------------- middle treasure


def test_the_middle_treasure_lies_one_cell_farther_and_the_side_goals_stay() -> None:
    roles = {1: "gold_digger", 2: "saboteur", 3: "gold_digger", 4: "gold_digger"}
    setup = _tunnel_to_six("middle_treasure", roles=roles)
    state = given(setup)
    goals = sorted(c for c, t in state.board.items() if t.is_goal)
    assert goals == [(8, -2), (8, 2), (9, 0)]
    assert state.board[(9, 0)].kind == "goal_treasure"  # the middle goal of GOALS
    # The cross at (7, 0) reaches nothing: the treasure is one card farther.
    events = _reach(setup)
    assert not _of(events, GoalRevealed) and not _of(events, RoundEnded)
    assert events[-1] == DecisionOpened(2, 4, "turn", DEADLINE)


def test_a_card_at_8_0_reaches_the_middle_treasure_and_a_map_shows_it() -> None:
    roles = {1: "gold_digger", 2: "saboteur", 3: "gold_digger", 4: "gold_digger"}
    setup = [
        *_tunnel_to_six("middle_treasure", roles=roles),
        PathPlaced(3, CROSS[4], (7, 0), False),
        DecisionOpened(2, 4, "turn", DEADLINE),
    ]
    state = given(setup)
    state = state.update(hands={**state.hands, 4: (EW[2], MAP[0])})
    events = when(state, PlacePath(4, EW[2], (8, 0), False), at=T0)
    assert GoalRevealed((9, 0), "goal_treasure", False) in events
    ended = _of(events, RoundEnded)[0]
    assert isinstance(ended, RoundEnded) and ended.reached_by == 4
    looked = when(state, PlayAction(4, MAP[0], target_cell=(9, 0)), at=T0)
    assert looked[0] == MapLooked(4, MAP[0], (9, 0), "goal_treasure")
    then_raises(state, PlayAction(4, MAP[0], target_cell=(8, 0)), errors.InvalidTarget)


# ------------------------------------------------------------- selfish dwarf


def test_the_selfish_dwarf_is_dealt_among_the_dwarf_cards_and_two_may_stay_hidden() -> None:
    from domain.commands import StartGame

    for players in range(3, 11):
        setup = lobby(players=players, variants=("selfish_dwarf",))
        started = _of(when(given(setup), StartGame(1), seed=players), RoundStarted)[0]
        assert isinstance(started, RoundStarted)
        cards = [r for _, r in started.roles] + list(started.dwarf_pile)
        assert cards.count("selfish_dwarf") == 1 and len(started.dwarf_pile) == 2


def test_the_selfish_dwarf_who_reaches_the_treasure_alone_keeps_the_best_two() -> None:
    roles = {1: "gold_digger", 2: "saboteur", 3: "selfish_dwarf", 4: "gold_digger"}
    setup = _tunnel_to_six("selfish_dwarf", roles=roles)
    events = _reach(setup)
    ended = _of(events, RoundEnded)[0]
    assert isinstance(ended, RoundEnded) and ended.winners == (3,) and ended.reached_by == 3
    # Three gold-diggers, himself included: three cards drawn (3, 2, 1); he keeps 3 and 2,
    # the 1 goes back under the nugget pile.
    assert _of(events, GoldPaid) == [
        GoldPaid(((3, 5),), nuggets=((3, (3, 2)),), nugget_pile=(*NUGGETS[3:], 1))
    ]
    assert not _of(events, GoldPickStarted)
    after = given(setup, events)
    assert dict(after.gold) == {1: 0, 2: 0, 3: 5, 4: 0} and after.round == 2


def test_when_another_reaches_the_treasure_the_selfish_dwarf_gets_nothing() -> None:
    roles = {1: "gold_digger", 2: "saboteur", 3: "gold_digger", 4: "selfish_dwarf"}
    setup = _tunnel_to_six("selfish_dwarf", roles=roles)
    events = _reach(setup)
    ended = _of(events, RoundEnded)[0]
    assert isinstance(ended, RoundEnded) and ended.winners == (1, 3)
    assert _of(events, GoldPickStarted) == [GoldPickStarted((3, 2), (3, 1))]


def test_when_the_saboteurs_win_the_selfish_dwarf_gets_nothing() -> None:
    roles = {1: "saboteur", 2: "selfish_dwarf", 3: "gold_digger"}
    setup = dealt(
        roles=roles, hands={1: (EW[0],), 2: (), 3: ()}, draw_pile=(), variants=("selfish_dwarf",)
    )
    events = when(given(setup), Pass(1, (EW[0],)), at=T0)
    ended = _of(events, RoundEnded)[0]
    assert isinstance(ended, RoundEnded) and ended.winners == (1,)
    paid = _of(events, GoldPaid)[0]
    assert isinstance(paid, GoldPaid) and paid.payouts == ((1, 4),)


def test_the_selfish_dwarf_is_a_gold_digger_for_the_action_cards() -> None:
    roles = {1: "selfish_dwarf", 2: "saboteur", 3: "gold_digger"}
    pick = ids("base", "broken_pickaxe")[0]
    setup = dealt(roles=roles, hands={2: (pick,)}, first=2, variants=("selfish_dwarf",))
    events = when(given(setup), PlayAction(2, pick, target_player=1), at=T0)
    assert given(setup, events).front_of(1) == ("broken_pickaxe",)


# -------------------------------------------------------------- combinations


def test_selfish_dwarf_with_maximum_saboteurs_keeps_one_card_hidden() -> None:
    from domain.commands import StartGame

    both = ("maximum_saboteurs", "selfish_dwarf")
    hidden: set[str] = set()
    for seed in range(12):
        started = _of(
            when(given(lobby(players=4, variants=both)), StartGame(1), seed=seed), RoundStarted
        )[0]
        assert isinstance(started, RoundStarted)
        cards = sorted([r for _, r in started.roles] + list(started.dwarf_pile))
        assert cards == ["gold_digger"] * 3 + ["saboteur", "selfish_dwarf"]
        assert len(started.dwarf_pile) == 1
        hidden.update(started.dwarf_pile)
    assert "selfish_dwarf" in hidden  # perhaps the selfish dwarf, as docs/rules.md §8 says


def test_greedy_and_selfish_a_broken_gold_digger_is_left_out_and_the_selfish_too() -> None:
    roles = {
        1: "gold_digger",
        2: "saboteur",
        3: "gold_digger",
        4: "selfish_dwarf",
        5: "gold_digger",
    }
    setup = _tunnel_to_six(
        "greedy_dwarf", "selfish_dwarf", roles=roles, broken={5: "pickaxe"}, players=5
    )
    events = _reach(setup)
    ended = _of(events, RoundEnded)[0]
    assert isinstance(ended, RoundEnded) and ended.winners == (1, 3)
    assert _of(events, GoldPickStarted) == [GoldPickStarted((3, 2), (3, 1))]


def test_every_variant_at_once_plays_a_manual_pick_to_the_next_round() -> None:
    roles = {1: "gold_digger", 2: "saboteur", 3: "gold_digger", 4: "gold_digger"}
    path = [PathPlaced(1, c, (x, 0), False) for x, c in enumerate([*CROSS[:4], *EW], start=1)]
    setup = [
        *dealt(players=4, roles=roles, hands={3: (CROSS[4],)}, first=3, variants=VARIANTS),
        *path,
    ]
    state = given(setup).update(gold_pick="manual")
    events = when(state, PlacePath(3, CROSS[4], (8, 0), False), at=T0)
    assert GoalRevealed((9, 0), "goal_treasure", False) in events
    assert _of(events, GoldPickStarted) == [GoldPickStarted((3, 2, 1), (3, 1, 4))]
    after = fold(events, state)
    picked = when(after, PickGold(3, 3), at=T0)
    assert picked[0] == GoldPicked(3, 3)
