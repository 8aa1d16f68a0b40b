"""Each achievement: a game that earns it, and one that just misses it."""

from __future__ import annotations

from typing import Any

import pytest

from domain import achievements as ach
from domain import events as ev
from domain.achievements import Earlier, Game, Round
from tests.domain.given import action_event
from tests.replay.games import play

ME = 1
DIGGERS = {1: "gold_digger", 2: "gold_digger", 3: "saboteur"}
SABOTEUR = {1: "saboteur", 2: "gold_digger", 3: "gold_digger"}


def act(player: int, action: str, target: int | None = None, result: str | None = None) -> Any:
    cell = (8, 0) if action in ("rockfall", "map") else None
    tool = action.removeprefix("repair_") if action.startswith("repair_") else None
    return action_event(player, 0, action, target, cell, tool, result)


def rnd(
    roles: dict[int, str] = DIGGERS,
    winners: tuple[int, ...] = (),
    reached_by: int | None = None,
    actions: tuple[Any, ...] = (),
    paid: dict[int, int] | None = None,
) -> Round:
    return Round(dict(roles), frozenset(winners), reached_by, actions, dict(paid or {}))


def game(
    *rounds: Round,
    gold: dict[int, int] | None = None,
    winners: tuple[int, ...] = (),
    seating: tuple[int, ...] = (1, 2, 3),
    thefts: tuple[Any, ...] = (),
) -> Game:
    return Game("base", seating, rounds, gold or {}, frozenset(winners), thefts)


LOST = rnd(winners=(3,))
WON = rnd(winners=(1, 2))
S2 = {1: "blue_digger", 2: "green_digger", 3: "saboteur"}

# name: (earning game, earlier results), (missing game, earlier results)
CASES: dict[str, tuple[tuple[Game, Earlier], tuple[Game, Earlier]]] = {
    "first_game": ((game(), Earlier()), (game(), Earlier(games=1))),
    "first_win": ((game(winners=(1,)), Earlier()), (game(winners=(2,)), Earlier())),
    "first_treasure": (
        (game(rnd(winners=(1, 2), reached_by=1)), Earlier()),
        (game(rnd(winners=(1, 2), reached_by=2)), Earlier()),
    ),
    "two_treasures": (
        (game(rnd(reached_by=1), rnd(reached_by=1)), Earlier()),
        (game(rnd(reached_by=1), rnd(reached_by=2)), Earlier()),
    ),
    "saboteur_win": (
        (game(rnd(SABOTEUR, winners=(1,))), Earlier()),
        (game(rnd(SABOTEUR, winners=(2, 3))), Earlier()),
    ),
    "unsuspected": (
        (game(rnd(SABOTEUR, winners=(1,), actions=(act(2, "broken_cart", 3),))), Earlier()),
        (game(rnd(SABOTEUR, winners=(1,), actions=(act(2, "broken_cart", 1),))), Earlier()),
    ),
    "cave_in": (
        (game(rnd(SABOTEUR, winners=(1,), actions=(act(1, "rockfall"),))), Earlier()),
        (game(rnd(SABOTEUR, winners=(1,), actions=(act(2, "rockfall"),))), Earlier()),
    ),
    "map_to_treasure": (
        (game(rnd(reached_by=2, actions=(act(1, "map", result="goal_treasure"),))), Earlier()),
        (game(rnd(reached_by=2, actions=(act(1, "map", result="goal_stone_a"),))), Earlier()),
    ),
    "medic": (
        (
            game(
                rnd(actions=tuple(act(1, "repair_cart", t) for t in (2, 3, 4))),
                seating=(1, 2, 3, 4),
            ),
            Earlier(),
        ),
        (
            game(
                rnd(actions=tuple(act(1, "repair_cart", t) for t in (2, 3, 1))),
                seating=(1, 2, 3, 4),
            ),
            Earlier(),
        ),
    ),
    "breaker": (
        (
            game(rnd(actions=tuple(act(1, "broken_cart", t) for t in (2, 3, 4)))),
            Earlier(),
        ),
        (
            game(
                rnd(actions=tuple(act(1, "broken_cart", t) for t in (2, 3))),
                rnd(actions=(act(1, "broken_cart", 4),)),
            ),
            Earlier(),
        ),
    ),
    "three_rounds": ((game(WON, WON, WON), Earlier()), (game(WON, WON, LOST), Earlier())),
    "late_win": (
        (game(LOST, LOST, WON, winners=(1,)), Earlier()),
        (game(LOST, WON, WON, winners=(1,)), Earlier()),
    ),
    "rich": ((game(gold={1: 10}), Earlier()), (game(gold={1: 9}), Earlier())),
    "big_nugget": (
        (game(rnd(paid={1: 3})), Earlier()),
        (game(rnd(paid={1: 2}), rnd(paid={1: 2})), Earlier()),
    ),
    "team_win": (
        (game(rnd(S2, winners=(1,))), Earlier()),
        (game(rnd(S2, winners=(3,))), Earlier()),
    ),
    "boss_win": (
        (game(rnd({1: "boss", 2: "saboteur"}, winners=(1,))), Earlier()),
        (game(rnd({1: "boss", 2: "saboteur"}, winners=(2,))), Earlier()),
    ),
    "profiteer_win": (
        (game(rnd({1: "profiteer", 2: "saboteur"}, winners=(1,))), Earlier()),
        (game(rnd({1: "profiteer", 2: "saboteur"}, winners=(2,))), Earlier()),
    ),
    "geologist_paid": (
        (game(rnd({1: "geologist", 2: "saboteur"}, paid={1: 5})), Earlier()),
        (game(rnd({1: "geologist", 2: "saboteur"}, paid={1: 4})), Earlier()),
    ),
    "thief": (
        (game(thefts=(ev.TheftResolved(1, 2),)), Earlier()),
        (game(thefts=(ev.TheftResolved(1, None), ev.TheftResolved(2, 1))), Earlier()),
    ),
    "full_table": (
        (game(seating=tuple(range(1, 13))), Earlier()),
        (game(seating=tuple(range(1, 12))), Earlier()),
    ),
    "wins_10": (
        (game(winners=(1,)), Earlier(games=20, wins=9)),
        (game(winners=(2,)), Earlier(games=20, wins=9)),
    ),
    "games_10": ((game(), Earlier(games=9)), (game(), Earlier(games=8))),
    "games_50": ((game(), Earlier(games=49)), (game(), Earlier(games=48))),
    "games_100": ((game(), Earlier(games=99)), (game(), Earlier(games=98))),
}


def test_there_are_at_least_twenty_achievements_each_with_its_cases() -> None:
    assert len(ach.NAMES) >= 20
    assert set(CASES) == set(ach.NAMES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_game_earns_the_achievement(name: str) -> None:
    (earning, earlier), _ = CASES[name]
    assert name in ach.earned(earning, ME, earlier)


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_game_that_just_misses_the_achievement_does_not_earn_it(name: str) -> None:
    _, (missing, earlier) = CASES[name]
    assert name not in ach.earned(missing, ME, earlier)


def test_a_played_game_is_read_with_its_rounds_winners_and_gold() -> None:
    played = play(91, players=5, edition="saboteur2")
    found = ach.game_of(played.events)
    assert found is not None
    final = played.final
    assert found.seating == final.seating
    assert found.gold == final.gold
    assert found.winners == frozenset(final.winners)
    ended = [e for e in played.events if isinstance(e, ev.RoundEnded)]
    assert [r.winners for r in found.rounds] == [frozenset(e.winners) for e in ended]
    assert ach.game_of(played.events[:-1]) is None
