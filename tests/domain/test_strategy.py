"""The computer player: it decides from what its seat may know, plays legal moves only,
and plays each dwarf the way the rulebooks mean it."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import pytest
from given import T0, action_event, dealt, given, ids
from hypothesis import HealthCheck, settings
from hypothesis import given as examples
from hypothesis import strategies as st

from domain import rng
from domain.board import GOAL_CELLS, without_tile
from domain.cards import deck, dwarf_cards
from domain.commands import (
    ChooseTheftVictim,
    Command,
    Envelope,
    Pass,
    PickGold,
    PlacePath,
    PlayAction,
)
from domain.decide import decide
from domain.events import (
    CardDrawn,
    DecisionOpened,
    Event,
    GoldPaid,
    PathPlaced,
    RoundEnded,
    RoundStarted,
    TheftResolved,
    TheftsStarted,
)
from domain.evolve import evolve
from domain.state import GameState
from domain.strategy import Level, choose_move, random_move, remember
from domain.strategy.actions import refill_chance
from domain.strategy.player import _seat
from domain.strategy.suspicion import suspicion
from domain.tournament import _Game
from domain.view import view_for

CROSS = ids("base", "cross")
EW = ids("base", "straight_ew")
DEAD_EW = ids("base", "dead_straight_ew")
DEAD_CROSS = ids("base", "dead_cross")
MAP = ids("base", "map")
REPAIR_CART = ids("base", "repair_cart")
BREAK_PICK = ids("base", "broken_pickaxe")
BREAK_CART = ids("base", "broken_cart")
ROCKFALL = ids("base", "rockfall")


def _play(edition: str, players: int, seed: int, moves: int) -> tuple[GameState, list[Event]]:
    """A game played ``moves`` moves by the strategy in every seat."""
    game = _Game(edition, players, seed, ("strategy",), None, None)  # type: ignore[arg-type]
    events: list[Event] = []
    for _ in range(moves):
        if game.state.phase != "playing":
            break
        pending = game.state.pending
        assert pending is not None
        move = choose_move(game.state, pending.player, events, seed)
        new = decide(game.state, Envelope(move, seed=seed))
        events += new
        game.run(move, seed=seed)
    return game.state, events


# ------------------------------------------------------------- what the seat may know


def _hidden_changed(
    state: GameState, seat: int, events: list[Event]
) -> tuple[GameState, list[Event]]:
    """The same game with everything ``seat`` cannot see changed: the other players' hands
    and dwarves, the draw pile's order, the face-down goals it has not mapped."""
    others = [p for p in state.seating if p != seat]
    hidden = [c for p in others for c in state.hand(p)] + list(state.draw_pile)
    shuffled = list(rng.shuffle(hidden, 99))
    hands = dict(state.hands)
    for p in others:
        hands[p], shuffled = tuple(shuffled[: len(state.hand(p))]), shuffled[len(state.hand(p)) :]
    roles = dict(state.roles)
    turned = [roles[p] for p in others][::-1]
    roles.update(zip(others, turned, strict=True))
    known = state.known_goals.get(seat, {})
    unseen = [c for c in GOAL_CELLS if not state.board[c].face_up and c not in known]
    board = dict(state.board)
    kinds = [board[c] for c in unseen][::-1]
    board.update(zip(unseen, kinds, strict=True))
    changed = state.update(hands=hands, roles=roles, draw_pile=tuple(shuffled), board=board)
    altered: list[Event] = []
    for event in events:
        if isinstance(event, CardDrawn) and event.player != seat:
            event = replace(event, card=event.card + 1000)
        elif isinstance(event, RoundStarted):
            event = replace(
                event,
                roles=tuple((p, r if p == seat else "saboteur") for p, r in event.roles),
                draw_pile=event.draw_pile[::-1],
                goals=event.goals[::-1],
            )
        altered.append(event)
    return changed, altered


@pytest.mark.parametrize("level", ["easy", "normal", "hard"])
@pytest.mark.parametrize(
    ("edition", "players", "seed", "moves"),
    [("base", 5, 1, 12), ("base", 7, 2, 25), ("saboteur2", 6, 3, 18), ("saboteur2", 4, 4, 30)],
)
def test_two_games_differing_only_in_hidden_information_get_the_same_decision(
    edition: str, players: int, seed: int, moves: int, level: Level
) -> None:
    state, events = _play(edition, players, seed, moves)
    assert state.pending is not None
    seat = state.pending.player
    changed, altered = _hidden_changed(state, seat, events)
    assert changed.roles != state.roles or changed.hands != state.hands
    for decision_seed in range(3 if level == "hard" else 5):
        assert choose_move(state, seat, events, decision_seed, level) == choose_move(
            changed, seat, altered, decision_seed, level
        )


# ---------------------------------------------------------------------- legal moves


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@examples(
    st.one_of(
        st.tuples(st.just("base"), st.integers(3, 10)),
        st.tuples(st.just("saboteur2"), st.integers(2, 12)),
    ),
    st.integers(0, 2**32),
    st.lists(st.sampled_from(("strategy", "random")), min_size=1, max_size=3),
)
def test_the_strategy_never_proposes_an_illegal_move(
    game: tuple[str, int], seed: int, seats: list[str]
) -> None:
    """Whole seeded games; every move goes through decide, which refuses any illegal one."""
    edition, players = game
    played = _Game(edition, players, seed, seats, None, None)  # type: ignore[arg-type]
    played.play()
    assert played.state.phase == "finished"


@pytest.mark.parametrize(
    ("edition", "players", "seed"), [("base", 3, 5), ("base", 6, 6), ("saboteur2", 5, 7)]
)
def test_every_level_plays_a_whole_game_of_legal_moves(
    edition: str, players: int, seed: int
) -> None:
    """Every move goes through decide, which refuses any illegal one."""
    sides = {"diggers": "hard", "saboteurs": "easy"}
    if seed % 2:
        sides = {"diggers": "easy", "saboteurs": "hard"}
    played = _Game(edition, players, seed, (), sides, None)  # type: ignore[arg-type]
    played.play()
    assert played.state.phase == "finished"


def test_the_same_seed_makes_the_same_decision_and_another_may_not() -> None:
    state, events = _play("base", 5, 8, 6)
    assert state.pending is not None
    seat = state.pending.player
    assert len({choose_move(state, seat, events, 3) for _ in range(3)}) == 1
    assert random_move(state, seat, 1) == random_move(state, seat, 1)


# ----------------------------------------------------------------------- the dwarves


def _tunnel(length: int) -> list[Event]:
    """Cards from the start to (length, 0), laid by player 2."""
    cards = [*CROSS, *EW]
    return [PathPlaced(2, cards[x - 1], (x, 0), False) for x in range(1, length + 1)]


def _decide(setup: list[Event], seat: int = 1, seed: int = 0) -> Command:
    return choose_move(given(setup), seat, setup, seed)


def test_a_gold_digger_extends_the_tunnel_toward_the_goals() -> None:
    setup = dealt(hands={1: (EW[0], DEAD_EW[0], MAP[0])}, roles={1: "gold_digger"})
    move = _decide([*setup, *_tunnel(3)])
    assert move == PlacePath(1, EW[0], (4, 0), False) or move == PlacePath(1, EW[0], (4, 0), True)


def test_a_gold_digger_passes_rather_than_lay_a_dead_end() -> None:
    setup = dealt(hands={1: (DEAD_EW[0], DEAD_CROSS[0])}, roles={1: "gold_digger"})
    move = _decide([*setup, *_tunnel(2)])
    assert isinstance(move, Pass)


def test_a_saboteur_lays_a_dead_end_at_the_front_when_the_tunnel_is_near() -> None:
    setup = dealt(hands={1: (DEAD_EW[0], EW[0])}, roles={1: "saboteur"})
    move = _decide([*setup, *_tunnel(6)])
    assert move == PlacePath(1, DEAD_EW[0], (7, 0), False) or move == PlacePath(
        1, DEAD_EW[0], (7, 0), True
    )


def test_a_saboteur_hides_its_dead_end_while_the_tunnel_is_far() -> None:
    setup = dealt(hands={1: (DEAD_EW[0], CROSS[4])}, roles={1: "saboteur"})
    move = _decide([*setup, *_tunnel(1)])
    assert not (isinstance(move, PlacePath) and move.card == DEAD_EW[0])


def test_a_lone_saboteur_blocks_the_tunnel_s_only_way_on_at_half_way() -> None:
    """At a table of three the tunnel half-way to the goals with one way on: the saboteur
    lays its dead end there rather than keep it for later (found out, it would be stopped
    before it lays it)."""
    curve, straight = ids("base", "curve_sw")[0], ids("base", "straight_ns")[0]
    setup = dealt(hands={1: (DEAD_EW[0], curve, straight)}, roles={1: "saboteur"})
    for seed in range(3):
        move = _decide([*setup, *_tunnel(4)], seed=seed)
        assert isinstance(move, PlacePath) and move.card == DEAD_EW[0], move
        assert move.cell == (5, 0), move


def _hemmed_in() -> list[Event]:
    """Crosses from the start to (5, 0), a T (E S W) at (6, 0), and a row of those Ts over
    the crosses at (1..4, 1): all five crosses and all five such Ts lie on the table. The
    treasure is at (8, 0), and player 1 looked at it."""
    t_esw = ids("base", "t_esw")
    tunnel = [PathPlaced(2, CROSS[x - 1], (x, 0), False) for x in range(1, 6)]
    tunnel.append(PathPlaced(3, t_esw[4], (6, 0), False))
    tunnel += [PathPlaced(2 + x % 2, t_esw[x - 1], (x, 1), False) for x in range(1, 5)]
    peek = action_event(1, MAP[1], "map", target_cell=(8, 0), result="goal_treasure")
    return [*tunnel, peek, DecisionOpened(2, 1, "turn", T0)]


def test_a_saboteur_s_rockfall_makes_a_hole_that_no_card_left_can_fill() -> None:
    """A hole with cards on three sides takes a card open on those three sides: here a
    cross or a T, and every one of them lies on the table. Cut there (beside the start),
    the tunnel must be dug again another way; a hole at the tunnel's end, which almost any
    card fills, would cost the diggers one card."""
    curves = tuple(ids("base", "curve_se")[:2])
    setup = dealt(hands={1: (ROCKFALL[0], *curves)}, roles={1: "saboteur"})
    events = [*setup, *_hemmed_in()]
    for seed in range(4):
        move = _decide(events, seed=seed)
        assert move == PlayAction(1, ROCKFALL[0], target_cell=(1, 0)), move


def test_the_chance_a_hole_is_filled_counts_the_cards_the_seat_has_not_seen() -> None:
    setup = dealt(hands={1: (ROCKFALL[0],)}, roles={1: "saboteur"})
    events = [*setup, *_hemmed_in()]
    state = given(events)
    seat = _seat(view_for(state, 1), remember(events, state))
    board = state.board
    assert refill_chance(seat, without_tile(board, (1, 0)), (1, 0)) == 0.0
    assert refill_chance(seat, without_tile(board, (6, 0)), (6, 0)) > 0.9


def test_a_gold_digger_mends_its_own_broken_tool_first() -> None:
    setup = dealt(hands={1: (REPAIR_CART[0], CROSS[4])}, roles={1: "gold_digger"})
    broken = action_event(3, BREAK_CART[0], "broken_cart", target_player=1)
    move = _decide([*setup, *_tunnel(2), broken])
    assert move == PlayAction(1, REPAIR_CART[0], target_player=1, tool=move.tool)  # type: ignore[union-attr]


def test_a_gold_digger_breaks_the_tools_of_whoever_cut_the_tunnel() -> None:
    setup = dealt(
        players=4, hands={1: (BREAK_PICK[0], DEAD_EW[0])}, roles={1: "gold_digger"}, first=1
    )
    cut = action_event(3, ROCKFALL[0], "rockfall", target_cell=(4, 0))
    move = _decide([*setup, *_tunnel(5), cut])
    assert move == PlayAction(1, BREAK_PICK[0], target_player=3)


def test_an_easy_gold_digger_does_not_follow_who_cut_the_tunnel() -> None:
    """The beginner's mistake: the easy player does not read the table's conduct, so it
    seldom breaks the tools of whoever cut the tunnel, which the normal player always does."""
    setup = dealt(
        players=4, hands={1: (BREAK_PICK[0], DEAD_EW[0])}, roles={1: "gold_digger"}, first=1
    )
    cut = action_event(3, ROCKFALL[0], "rockfall", target_cell=(4, 0))
    events = [*setup, *_tunnel(5), cut]
    state = given(events)
    stop = PlayAction(1, BREAK_PICK[0], target_player=3)
    assert all(choose_move(state, 1, events, seed) == stop for seed in range(12))
    easy = [choose_move(state, 1, events, seed, "easy") for seed in range(12)]
    assert easy.count(stop) < len(easy) / 2, easy


def test_suspicion_rises_for_whoever_cut_the_tunnel_and_falls_for_whoever_built_it() -> None:
    setup = [*dealt(players=4, roles={1: "gold_digger"}), *_tunnel(5)]
    cut = action_event(3, ROCKFALL[0], "rockfall", target_cell=(4, 0))
    state = given(setup, cut)
    odds = suspicion(state.seating, 1, "gold_digger", "base", remember([*setup, cut], state), {})
    assert odds[3] > 0.8 and odds[2] < 0.1 and odds[4] == pytest.approx(0.25)


def test_a_gold_digger_who_mapped_the_treasure_tunnels_toward_it() -> None:
    setup = dealt(hands={1: (*CROSS[3:5], MAP[0])}, roles={1: "gold_digger"})
    peek = action_event(1, MAP[1], "map", target_cell=(8, 0), result="goal_treasure")
    # The treasure is at (8, 0) (given.GOALS); the tunnel's end is two cards away.
    move = _decide([*setup, *_tunnel(5), peek, DecisionOpened(2, 1, "turn", T0)])
    assert isinstance(move, PlacePath) and move.cell == (6, 0)


def test_a_gold_digger_looks_at_a_goal_when_none_is_known() -> None:
    setup = dealt(hands={1: (MAP[0], DEAD_EW[0])}, roles={1: "gold_digger"})
    move = _decide([*setup, *_tunnel(4)])
    assert isinstance(move, PlayAction) and move.card == MAP[0]


def test_the_gold_pick_takes_the_largest_nugget() -> None:
    from domain.queries import pick_values

    state = given(dealt()).update(gold_pick_offer=(1, 3, 2))
    pending = DecisionOpened(5, 1, "gold_pick", T0)
    state = evolve(state, pending)
    assert pick_values(state) == (1, 2, 3)
    assert choose_move(state, 1, [], 0) == PickGold(1, 3)


def test_a_thief_robs_whoever_won_the_most_gold() -> None:
    setup = dealt("saboteur2", players=4)
    won = RoundEnded(1, True, 2, ((1, "saboteur"), (2, "blue_digger"), (3, "boss"),
                                   (4, "green_digger")), (2, 3))  # fmt: skip
    events = [*setup, won, GoldPaid(((2, 4), (3, 3), (4, 1))), TheftsStarted((1,))]
    state = given(events).update(thieves_pending=(1,))
    state = evolve(state, DecisionOpened(9, 1, "theft", T0))
    assert choose_move(state, 1, events, 0) == ChooseTheftVictim(1, 2)


SAB2_CROSS = ids("saboteur2", "cross")
SAB2_EW = ids("saboteur2", "straight_ew")
BLUE_EW = ids("saboteur2", "blue_door_ew")
GREEN_EW = ids("saboteur2", "green_door_ew")
CRYSTAL = ids("saboteur2", "crystal_cross")


def _sab2_tunnel(length: int) -> list[Event]:
    cards = [*SAB2_CROSS, *SAB2_EW]
    return [PathPlaced(2, cards[x - 1], (x, 0), False) for x in range(1, length + 1)]


def test_a_blue_gold_digger_lays_its_own_door_in_the_tunnel_never_the_other_teams() -> None:
    setup = dealt("saboteur2", hands={1: (GREEN_EW[0], BLUE_EW[0])}, roles={1: "blue_digger"})
    move = _decide([*setup, *_sab2_tunnel(3)])
    assert isinstance(move, PlacePath) and move.card == BLUE_EW[0]


def test_a_green_gold_digger_does_not_count_a_tunnel_behind_a_blue_door() -> None:
    setup = dealt("saboteur2", hands={1: (SAB2_CROSS[4],)}, roles={1: "green_digger"})
    door = PathPlaced(2, BLUE_EW[0], (1, 0), False)
    state = given([*setup, door])
    view = view_for(state, 1)
    from domain.strategy.player import _seat

    assert _seat(view, remember([*setup, door], state)).expected == 9.0


def test_a_geologist_lays_crystals() -> None:
    setup = dealt("saboteur2", hands={1: (SAB2_EW[2], CRYSTAL[0])}, roles={1: "geologist"})
    move = _decide([*setup, *_sab2_tunnel(2)])
    assert isinstance(move, PlacePath) and move.card == CRYSTAL[0]


def _two_ways_in() -> list[Event]:
    """A tunnel whose two open ends nearest the treasure, (7, 0) and (8, 1), are each
    one card from it."""
    return [
        *_tunnel(6),  # crosses to (5, 0), a straight at (6, 0)
        PathPlaced(2, CROSS[-1], (5, 1), False),
        PathPlaced(3, EW[1], (6, 1), False),
        PathPlaced(2, ids("base", "t_esw")[0], (7, 1), False),
    ]


def test_a_saboteur_closes_one_of_two_ways_into_the_treasure_though_the_other_stays_open() -> None:
    setup = dealt(hands={1: (DEAD_CROSS[0], CROSS[4])}, roles={1: "saboteur"})
    peek = action_event(1, MAP[1], "map", target_cell=(8, 0), result="goal_treasure")
    move = _decide([*setup, *_two_ways_in(), peek, DecisionOpened(2, 1, "turn", T0)])
    assert isinstance(move, PlacePath) and move.card == DEAD_CROSS[0]
    assert move.cell in ((7, 0), (8, 1))


GREEN_NS = ids("saboteur2", "green_door_ns_w")
SAB2_DEAD = ids("saboteur2", "dead_cross")


@pytest.mark.parametrize(("door", "extends"), [(False, False), (True, True)])
def test_a_blue_gold_digger_leaves_no_treasure_one_card_away_for_the_green_team(
    door: bool, extends: bool
) -> None:
    """The next seat laid a green door: ending the tunnel at the treasure (at (8, 0), the
    seat mapped it) would most likely win it for the green team alone. A blue door on the
    way in bars that team, so with one in hand the blue gold-digger does go on."""
    straight = BLUE_EW[0] if door else SAB2_EW[2]
    setup = dealt(
        "saboteur2",
        players=4,
        hands={1: (straight, SAB2_DEAD[0])},
        roles={1: "blue_digger", 3: "boss", 4: "geologist"},
    )
    peek = action_event(1, ids("saboteur2", "map")[0], "map", target_cell=(8, 0),
                        result="goal_treasure")  # fmt: skip
    green = PathPlaced(2, GREEN_NS[0], (1, 1), False)
    move = _decide([*setup, *_sab2_tunnel(5), green, peek, DecisionOpened(2, 1, "turn", T0)])
    assert (isinstance(move, PlacePath) and move.cell == (6, 0)) is extends


def test_a_saboteur_bars_the_blue_team_with_a_green_door_where_a_blue_door_bars_the_green() -> None:
    """The tunnel runs through a blue door (the green team cannot pass it): a green door at
    its end stops the blue team too, and with it every gold-digger but the boss."""
    setup = dealt(
        "saboteur2", hands={1: (GREEN_EW[0], SAB2_EW[2], SAB2_CROSS[4])}, roles={1: "saboteur"}
    )
    tunnel = [*_sab2_tunnel(2), PathPlaced(2, BLUE_EW[0], (3, 0), False)]
    tunnel += [PathPlaced(3, SAB2_EW[0], (4, 0), False), PathPlaced(2, SAB2_EW[1], (5, 0), False)]
    move = _decide([*setup, *tunnel])
    assert isinstance(move, PlacePath) and move.card == GREEN_EW[0] and move.cell == (6, 0)


def test_a_geologist_does_not_end_the_round_that_pays_it_for_crystals_laid() -> None:
    setup = dealt("saboteur2", hands={1: (SAB2_EW[2], CRYSTAL[0])}, roles={1: "geologist"})
    peek = action_event(1, ids("saboteur2", "map")[0], "map", target_cell=(8, 0),
                        result="goal_treasure")  # fmt: skip
    tunnel = [*_sab2_tunnel(5), PathPlaced(3, SAB2_EW[0], (6, 0), False)]
    events = [*setup, *tunnel, peek, DecisionOpened(2, 1, "turn", T0)]
    for seed in range(6):
        move = _decide(events, seed=seed)
        assert not (isinstance(move, PlacePath) and move.cell == (7, 0))


# ----------------------------------------------------------------------- the tournament


@pytest.mark.parametrize(
    ("doors", "side"),
    [((), "diggers"), ((BLUE_EW[0],), "diggers"), ((BLUE_EW[0], GREEN_EW[0]), None)],
)
def test_the_tournament_counts_a_treasure_behind_both_teams_doors_as_no_side_s_win(
    doors: tuple[int, ...], side: str | None
) -> None:
    """The boss reaches the treasure at (8, 0). Behind a blue and a green door neither
    team can pass and the boss wins alone (docs/rules.md §6.2): the gold-diggers did not win."""
    from domain.tournament import winning_side

    setup = dealt("saboteur2", players=4, hands={1: (SAB2_EW[2],)}, roles={1: "boss"})
    plain = [*SAB2_CROSS, *SAB2_EW[:2]]
    cards = [plain[0], plain[1], *doors, *plain[2 : 6 - len(doors)]]
    tunnel = [PathPlaced(2, card, (x, 0), False) for x, card in enumerate(cards, start=1)]
    state = given([*setup, *tunnel])
    events = decide(state, Envelope(PlacePath(1, SAB2_EW[2], (7, 0), False), at=T0))
    ended = next(e for e in events if isinstance(e, RoundEnded))
    for event in events[: events.index(ended)]:
        state = evolve(state, event)
    assert ended.treasure_reached and ended.reached_by == 1
    assert winning_side(state, ended) == side
    diggers = [p for p, role in ended.roles if role in ("blue_digger", "green_digger")]
    assert 1 in ended.winners
    assert any(p in ended.winners for p in diggers) == (side == "diggers")


SAB2_ROCKFALL = ids("saboteur2", "rockfall")


def test_a_saboteur_lays_a_dead_end_at_the_treasure_rather_than_cut_the_tunnel_behind() -> None:
    """A rockfall on the tunnel behind its end cuts the cards beyond off, but they still
    lie there: one card in the hole joins them again, and at a table of six someone
    almost surely holds one that fits. A dead end before the treasure costs the diggers
    more."""
    setup = dealt(
        "saboteur2", players=6, hands={1: (SAB2_ROCKFALL[0], SAB2_DEAD[0])}, roles={1: "saboteur"}
    )
    tunnel = [*_sab2_tunnel(5), PathPlaced(3, BLUE_EW[0], (6, 0), False)]
    peek = action_event(1, ids("saboteur2", "map")[0], "map", target_cell=(8, 0),
                        result="goal_treasure")  # fmt: skip
    events = [*setup, *tunnel, peek, DecisionOpened(2, 1, "turn", T0)]
    for seed in range(4):
        move = _decide(events, seed=seed)
        assert isinstance(move, PlacePath) and move.cell == (7, 0), move


def test_a_saboteur_in_saboteur_2_passes_three_cards_to_run_the_draw_pile_down() -> None:
    """A pass draws as many cards as it gives up, and the saboteurs win when the pile runs
    out first: with the tunnel far and nobody to harm, the saboteur gives up three cards,
    its blocks (and its theft) kept."""
    blocks = (SAB2_DEAD[0], ids("saboteur2", "theft")[0], SAB2_ROCKFALL[0])
    spare = tuple(ids("saboteur2", kind)[0] for kind in ("curve_sw", "straight_ns", "free_at_last"))
    setup = dealt("saboteur2", hands={1: (*spare, *blocks)}, roles={1: "saboteur"})
    move = _decide([*setup, *_sab2_tunnel(2)])
    assert isinstance(move, Pass) and sorted(move.cards) == sorted(spare)


def test_a_stopped_saboteur_near_the_treasure_gives_up_its_mending_cards_not_its_dead_end() -> None:
    """Broken, with the tunnel near, the saboteur passes; what it gives up are the cards it
    has no use for, not the dead end it will lay once mended."""
    dead = SAB2_DEAD[0]
    others = tuple(ids("saboteur2", k)[0] for k in ("repair_lantern", "free_at_last", "hands_off"))
    setup = dealt("saboteur2", players=6, hands={1: (dead, *others)}, roles={1: "saboteur"})
    broken = action_event(
        3, ids("saboteur2", "broken_pickaxe")[0], "broken_pickaxe", target_player=1
    )
    events = [*setup, *_sab2_tunnel(6), broken, DecisionOpened(2, 1, "turn", T0)]
    for seed in range(3):
        move = _decide(events, seed=seed)
        assert isinstance(move, Pass) and dead not in move.cards, move


SAB2_BREAKS = {k: ids("saboteur2", k) for k in ("broken_pickaxe", "broken_lantern")}


def test_a_saboteur_in_saboteur_2_breaks_whoever_digs_while_the_tunnel_is_still_far() -> None:
    """Saboteur 2's saboteur wins when the draw pile runs out first: the turn the digger
    spends mending a break brings that nearer now as much as later, so the saboteur does
    not keep its break for the end (nor hide it) and breaks the tunnel's builder at once."""
    spare = tuple(ids("saboteur2", kind)[0] for kind in ("curve_sw", "straight_ns", "theft"))
    hand = (*spare, SAB2_DEAD[0], SAB2_BREAKS["broken_pickaxe"][0], SAB2_ROCKFALL[0])
    setup = dealt("saboteur2", hands={1: hand}, roles={1: "saboteur"})
    for seed in range(3):
        move = _decide([*setup, *_sab2_tunnel(3)], seed=seed)
        assert move == PlayAction(1, SAB2_BREAKS["broken_pickaxe"][0], target_player=2), move


def test_a_stopped_saboteur_near_the_treasure_breaks_the_next_digger_rather_than_pass() -> None:
    """Its own pickaxe broken and the tunnel two cards from the goals, the saboteur does
    not give cards up while the next seat, who dug the tunnel, is free to finish it: it
    breaks that seat's lantern."""
    paths = tuple(ids("saboteur2", k)[0] for k in ("straight_ns", "curve_sw", "t_esw"))
    setup = dealt(
        "saboteur2",
        players=4,
        hands={1: (SAB2_BREAKS["broken_lantern"][0], *paths)},
        roles={1: "saboteur", 2: "blue_digger", 3: "green_digger", 4: "blue_digger"},
    )
    broken = action_event(3, SAB2_BREAKS["broken_pickaxe"][0], "broken_pickaxe", target_player=1)
    events = [*setup, *_sab2_tunnel(6), broken, DecisionOpened(2, 1, "turn", T0)]
    for seed in range(3):
        move = _decide(events, seed=seed)
        assert move == PlayAction(1, SAB2_BREAKS["broken_lantern"][0], target_player=2), move


def test_a_saboteur_in_saboteur_2_gives_up_even_a_rockfall_to_run_the_draw_pile_down() -> None:
    """Before any tunnel is laid a rockfall has nothing to hit, and each card more a pass
    gives up brings the pile's end a turn nearer: with two spare path cards beside it, the
    saboteur passes all three rather than keep it."""
    spare = tuple(ids("saboteur2", kind)[0] for kind in ("curve_sw", "straight_ns"))
    setup = dealt("saboteur2", hands={1: (*spare, SAB2_ROCKFALL[0])}, roles={1: "saboteur"})
    for seed in range(3):
        move = _decide(setup, seed=seed)
        assert isinstance(move, Pass) and len(move.cards) == 3, move


@pytest.mark.parametrize("players", [3, 5, 7])
def test_a_saboteur_in_saboteur_2_cuts_a_tunnel_one_card_from_the_treasure_rather_than_pass(
    players: int,
) -> None:
    """The tunnel is one card from the treasure the saboteur mapped, 12 cards still in the
    pile: three cards passed would bring the pile's end three turns nearer, but the next
    digger needs one. At any table the saboteur plays its rockfall."""
    spare = tuple(ids("saboteur2", k)[0] for k in ("curve_sw", "straight_ns", "t_esw"))
    hand = (*spare, SAB2_ROCKFALL[0])
    cards = [*SAB2_EW, *SAB2_CROSS]
    tunnel = [PathPlaced(2 + x % 2, cards[x - 1], (x, 0), False) for x in range(1, 8)]
    used = {*hand, *cards}
    pile = tuple(c.id for c in deck("saboteur2") if c.id not in used)[-12:]
    setup = dealt(
        "saboteur2", players=players, hands={1: hand}, roles={1: "saboteur"}, draw_pile=pile
    )
    peek = action_event(1, ids("saboteur2", "map")[0], "map", target_cell=(8, 0),
                        result="goal_treasure")  # fmt: skip
    events = [*setup, *tunnel, peek, DecisionOpened(2, 1, "turn", T0)]
    assert len(given(events).draw_pile) == 12
    for seed in range(3):
        move = _decide(events, seed=seed)
        assert isinstance(move, PlayAction) and move.card == SAB2_ROCKFALL[0], move


def test_a_thief_robs_whoever_is_richest_after_the_thefts_made_before_it() -> None:
    """Players 1 and 4 won the round's 4 gold each; player 4, the first thief, has just
    robbed player 1, so 4 now holds 5 and 1 holds 3. The next thief robs player 4."""
    setup = dealt("saboteur2", players=4)
    won = RoundEnded(1, True, 1, ((1, "blue_digger"), (2, "saboteur"), (3, "green_digger"),
                                   (4, "blue_digger")), (1, 4))  # fmt: skip
    events = [*setup, won, GoldPaid(((1, 4), (4, 4))), TheftsStarted((4, 2)), TheftResolved(4, 1)]
    state = given(events).update(thieves_pending=(2,))
    state = evolve(state, DecisionOpened(9, 2, "theft", T0))
    assert state.gold[4] == 5 and state.gold[1] == 3
    for seed in range(6):
        assert choose_move(state, 2, events, seed) == ChooseTheftVictim(2, 4)


# ---------------------------------------------------------------------- the hard level


@pytest.mark.parametrize(
    ("edition", "players", "seed", "moves"),
    [("base", 5, 1, 12), ("base", 7, 2, 25), ("saboteur2", 6, 3, 18), ("saboteur2", 4, 4, 30)],
)
def test_the_worlds_the_hard_player_searches_look_to_its_seat_like_the_game_it_plays(
    edition: str, players: int, seed: int, moves: int
) -> None:
    """Each world drawn for the seat shows it what the real game shows it (its hand, its
    dwarf, its maps, the table, every hand's size, the pile's), deals every card once, and
    every dwarf card of the edition."""
    from domain.strategy.search import _world

    state, events = _play(edition, players, seed, moves)
    assert state.pending is not None
    seat = state.pending.player
    view = view_for(state, seat)
    memory = remember(events, state)
    public = ("hand", "role", "known_goals", "inspected", "seats", "board", "draw_pile")
    for world_seed in range(4):
        world = _world(view, memory, _seat(view, memory), world_seed)
        seen = view_for(world, seat)
        for name in public:
            assert getattr(seen, name) == getattr(view, name), name
        dealt_cards = [c for p in world.seating for c in world.hand(p)]
        dealt_cards += [*world.draw_pile, *(t.card for t in world.board.values() if t.card)]
        assert len(dealt_cards) == len(set(dealt_cards))
        dwarves = Counter(world.roles.values()) + Counter(world.dwarf_pile)
        assert dwarves == Counter(dwarf_cards(edition, players))  # type: ignore[arg-type]
