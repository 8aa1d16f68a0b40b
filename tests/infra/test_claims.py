"""Per-game claims spread games over the live instances, on SQLite and PostgreSQL.

Times are given (Unix ms): the instances are stepped as their claim loops would be."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy import Engine

from infra.claims import CLAIM_TTL_MS, RENEW_EVERY_MS, Claims
from infra.db import make_engine

T0 = 1_800_000_000_000
GAMES = [f"g{i:02}" for i in range(10)]


@pytest.fixture
def engine(fresh_db_url: str) -> Iterator[Engine]:
    engine = make_engine(fresh_db_url)
    yield engine
    engine.dispose()


def test_a_game_is_held_by_one_instance_at_a_time(engine: Engine) -> None:
    a, b = Claims(engine, "a"), Claims(engine, "b")

    assert a.take(["g1", "g2"], T0) == {"g1", "g2"}
    assert b.take(["g2", "g3"], T0 + 100) == {"g3"}
    assert a.holders(["g1", "g2", "g3"], T0 + 100) == {"g1": "a", "g2": "a", "g3": "b"}


def test_an_instance_that_stops_renewing_loses_its_games_within_three_seconds(
    engine: Engine,
) -> None:
    a, b = Claims(engine, "a"), Claims(engine, "b")
    a.step(GAMES, T0)
    b.step(GAMES, T0)
    assert a.held() == set(GAMES) and b.held() == set()

    # a dies at T0. b steps every RENEW_EVERY_MS; the games are free once a's claims
    # lapsed, and b holds them all at its next step.
    now = T0
    while b.held() != set(GAMES):
        now += RENEW_EVERY_MS
        b.step(GAMES, now)
    assert now - T0 <= CLAIM_TTL_MS + RENEW_EVERY_MS < 3_000
    assert a.holders(GAMES, now) == dict.fromkeys(GAMES, "b")


def test_while_it_renews_an_instance_keeps_its_games(engine: Engine) -> None:
    a, b = Claims(engine, "a"), Claims(engine, "b")
    a.take(GAMES[:3], T0)
    for now in range(T0, T0 + 10_000, RENEW_EVERY_MS):
        assert a.heartbeat(now) == set(GAMES[:3])
        assert b.take(GAMES[:3], now + 1) == frozenset()


def test_a_stopping_instance_hands_over_at_once_all_but_the_games_it_still_delivers(
    engine: Engine,
) -> None:
    a, b = Claims(engine, "a"), Claims(engine, "b")
    a.step(GAMES, T0)
    b.step(GAMES, T0)
    a.step(GAMES, T0 + RENEW_EVERY_MS)
    b.step(GAMES, T0 + RENEW_EVERY_MS)
    assert len(a.held()) == len(b.held()) == len(GAMES) // 2
    busy = sorted(a.held())[:1]

    now = T0 + 2 * RENEW_EVERY_MS
    assert a.drain(busy, now) == set(busy)
    # b's next step (not a lapse later) takes the rest: a no longer counts as live.
    assert a.live_instances(now) == ["b"]
    assert b.step(GAMES, now + 1) == set(GAMES) - set(busy)
    # a still renews what it delivers, until it leaves.
    later = now + 10 * CLAIM_TTL_MS
    assert a.drain(busy, later) == set(busy)
    assert a.holders(busy, later + 1) == dict.fromkeys(busy, "a")
    a.leave()
    assert b.step(GAMES, later + 2) == set(GAMES)


def test_a_new_instance_gets_its_share_within_two_steps(engine: Engine) -> None:
    a, b = Claims(engine, "a"), Claims(engine, "b")
    a.step(GAMES, T0)
    assert a.held() == set(GAMES)

    b.step(GAMES, T0 + 500)  # b is live; a gives its surplus up at its next step
    a.step(GAMES, T0 + 500)
    b.step(GAMES, T0 + 1000)

    assert len(a.held()) == len(b.held()) == 5
    assert a.held() | b.held() == set(GAMES)


def test_games_given_up_are_taken_by_another_instance_at_once(engine: Engine) -> None:
    a, b = Claims(engine, "a"), Claims(engine, "b")
    a.take(GAMES, T0)
    b.heartbeat(T0)

    a.give_up(GAMES[:4])  # say, its calls to Telegram keep failing

    assert b.take(GAMES, T0 + 1) == set(GAMES[:4])
    assert a.held() == set(GAMES[4:])


def test_an_instance_that_leaves_frees_everything_and_is_no_longer_counted(
    engine: Engine,
) -> None:
    a, b = Claims(engine, "a"), Claims(engine, "b")
    a.step(GAMES, T0)
    b.heartbeat(T0)
    assert a.live_instances(T0) == ["a", "b"]

    a.leave()

    assert a.live_instances(T0) == ["b"]
    assert b.step(GAMES, T0 + 1) == set(GAMES)


def test_games_waiting_are_taken_while_every_instance_holds_games_already_announced(
    engine: Engine,
) -> None:
    # Three instances hold 4, 5 and 5 games whose events they announced (no longer
    # waiting for an announcer); 6 new games wait, and nobody holds them.
    a, b, c = Claims(engine, "a"), Claims(engine, "b"), Claims(engine, "c")
    held = [f"h{i:02}" for i in range(14)]
    a.take(held[:4], T0)
    b.take(held[4:9], T0)
    c.take(held[9:], T0)
    waiting = [f"w{i}" for i in range(6)]

    now = T0
    for _ in range(6):  # three seconds of claim loops
        now += RENEW_EVERY_MS
        for instance in (a, b, c):
            instance.step(waiting, now)

    taken = a.held() | b.held() | c.held()
    assert set(waiting) <= taken, f"never announced: {sorted(set(waiting) - taken)}"
