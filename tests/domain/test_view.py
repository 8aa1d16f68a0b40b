"""What a player, and the public, may see (docs/rules.md §6.3, §7.7)."""

from __future__ import annotations

from given import T0, dealt, given, ids, when

from domain.commands import PlayAction
from domain.events import (
    CardDrawn,
    CardsDiscarded,
    GameEnded,
    GoldPicked,
    HatsSwapped,
    MapLooked,
    RoleInspected,
)
from domain.evolve import fold
from domain.view import HIDDEN_GOAL, describe, view_for

MAP = ids("base", "map")


def test_a_player_sees_their_own_hand_and_dwarf_and_only_counts_of_others() -> None:
    state = given(dealt(hands={1: (0, 1, 2), 2: (3, 4)}, roles={1: "saboteur"}))
    mine = view_for(state, 1)
    assert mine.hand == (0, 1, 2) and mine.role == "saboteur"
    assert [s.hand_count for s in mine.seats] == [3, 2, 4]
    assert not mine.hands and not mine.roles
    public = view_for(state, None)
    assert public.hand == () and public.role is None and public.gold is None


def test_face_down_goals_are_hidden_from_everyone() -> None:
    state = given(dealt())
    for viewer in (None, 1, 2):
        goals = [t for c, t in view_for(state, viewer).board.items() if not t.face_up]
        assert len(goals) == 3 and {t.kind for t in goals} == {HIDDEN_GOAL}


def test_a_mapped_goal_is_known_to_the_mapper_alone() -> None:
    setup = dealt(hands={1: (MAP[0],)})
    state = given(setup, when(given(setup), PlayAction(1, MAP[0], target_cell=(8, 0)), at=T0))
    assert dict(view_for(state, 1).known_goals) == {(8, 0): "goal_treasure"}
    assert dict(view_for(state, 2).known_goals) == {}


def test_saboteur2_shows_who_has_gold_but_base_shows_nothing() -> None:
    from domain.events import GoldPaid

    sab2 = given(dealt("saboteur2"), GoldPaid(((2, 3),)))
    assert [s.has_gold for s in view_for(sab2, None).seats] == [False, True, False]
    assert view_for(sab2, 2).gold == 3 and view_for(sab2, 1).gold == 0
    base = given(dealt("base"))
    assert {s.has_gold for s in view_for(base, None).seats} == {None}


def test_once_finished_everything_is_public() -> None:
    state = given(
        dealt(hands={1: (0,), 2: (1,), 3: (2,)}), GameEnded(((1, 5), (2, 1), (3, 0)), (1,))
    )
    public = view_for(state, None)
    assert dict(public.hands) == {1: (0,), 2: (1,), 3: (2,)}
    assert len(public.roles) == 3 and dict(public.final_gold) == {1: 0, 2: 0, 3: 0}
    assert public.winners == (1,)
    assert all(t.kind != HIDDEN_GOAL for t in public.board.values())


def test_describe_tells_each_viewer_only_their_share_of_an_event() -> None:
    assert describe(CardDrawn(1, 17), 1)["card"] == 17
    assert describe(CardDrawn(1, 17), 2)["card"] is None
    assert describe(CardDrawn(1, 17), None, finished=True)["card"] == 17
    seen = MapLooked(1, 61, (8, 0), "goal_treasure")
    assert describe(seen, 1)["kind"] == "goal_treasure"
    assert describe(seen, 2)["kind"] is None and describe(seen, 2)["cell"] == [8, 0]
    hats = HatsSwapped(1, 108, 3, "boss")
    assert describe(hats, 3)["role"] == "boss" and describe(hats, 1)["role"] is None
    other = describe(CardsDiscarded(1, (4, 5)), 2)
    assert other["cards"] is None and other["count"] == 2
    assert describe(GoldPicked(2, 3), 1)["value"] is None


def test_describe_keeps_a_new_rounds_deal_private() -> None:
    from domain.events import RoundStarted

    started = next(e for e in dealt() if isinstance(e, RoundStarted))
    shown = describe(started, 2)
    assert [p for p, _ in shown["hands"]] == [2] and [p for p, _ in shown["roles"]] == [2]
    assert shown["goals"] is None and isinstance(shown["draw_pile"], int)
    public = describe(started, None)
    assert public["hands"] == [] and public["roles"] == []


def test_base_gold_pick_shows_the_nuggets_only_to_the_player_choosing_now() -> None:
    from domain.commands import PickGold, PlacePath
    from domain.events import Event, GoldPickStarted, PathPlaced

    cross, ew = ids("base", "cross"), ids("base", "straight_ew")
    roles = {1: "gold_digger", 2: "saboteur", 3: "gold_digger", 4: "gold_digger"}
    path = [PathPlaced(2, c, (x, 0), False) for x, c in enumerate([*cross[:3], *ew], start=1)]
    setup: list[Event] = [
        *dealt(players=4, roles=roles, hands={3: (cross[4],)}, first=3),
        *path,
    ]
    reached = when(given(setup), PlacePath(3, cross[4], (7, 0), False), at=T0)
    started = GoldPickStarted((3, 2, 1), (3, 1, 4))  # player 3 picks first, then 1, then 4
    assert started in reached
    assert describe(started, 3)["nuggets"] == [3, 2, 1]
    for other in (1, 4, 2, None):
        shown = describe(started, other)
        assert shown["nuggets"] is None and shown["count"] == 3
    state = given(setup, reached)
    assert view_for(state, 3).gold_pick_offer == (3, 2, 1)
    assert view_for(state, 1).gold_pick_offer == () == view_for(state, None).gold_pick_offer

    kept = when(state, PickGold(3, 3), at=T0)
    state = given(setup, reached, kept)
    # Player 1 now sees what was passed to them, and never what player 3 kept.
    assert view_for(state, 1).gold_pick_offer == (2, 1)
    assert view_for(state, 4).gold_pick_offer == ()
    told_1 = [describe(e, 1) for e in [*reached, *kept]]
    assert not any(d["type"] == "gold_pick_started" and d["nuggets"] for d in told_1)
    assert all(d["value"] is None for d in told_1 if d["type"] == "gold_picked")

    # Once the game is over, the replay shows everything.
    assert describe(started, 1, finished=True)["nuggets"] == [3, 2, 1]
    assert describe(GoldPicked(3, 3), 1, finished=True)["value"] == 3


def test_no_other_player_ever_sees_a_maps_goal_or_an_inspected_role() -> None:
    look, inspect = ids("saboteur2", "map")[0], ids("saboteur2", "inspection")[0]
    start = given(dealt("saboteur2", players=4, hands={1: (look, inspect)}, roles={2: "boss"}))
    mapped = when(start, PlayAction(1, look, target_cell=(8, 0)), at=T0)
    inspected = when(start, PlayAction(1, inspect, target_player=2), at=T0)
    assert isinstance(mapped[0], MapLooked) and isinstance(inspected[0], RoleInspected)
    goal, role = mapped[0].kind, inspected[0].role
    for events in (mapped, inspected):
        after = fold(events, start)
        mine = view_for(after, 1)
        assert dict(mine.known_goals) or dict(mine.inspected)  # the actor learnt it
        for viewer in (None, 2, 3, 4):
            view = view_for(after, viewer)
            assert not view.known_goals and not view.inspected, viewer
            assert all(t.kind == HIDDEN_GOAL for t in view.board.values() if not t.face_up)
            told = [describe(e, viewer) for e in events]
            assert told[0].get("kind") is None and told[0].get("role") is None, viewer
            assert goal not in repr(told) and (viewer == 2 or role not in repr(told)), viewer
