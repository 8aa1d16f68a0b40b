"""The bot's own state on SQLite and PostgreSQL: the notifier's lease and its per-game
claims, which keep two bot instances from announcing anything twice."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from infra.botstate import BotState
from infra.db import make_engine


@pytest.fixture
def states(fresh_db_url: str) -> Iterator[tuple[BotState, BotState]]:
    """Two instances' views of one database."""
    engine = make_engine(fresh_db_url)
    yield BotState(engine), BotState(engine)
    engine.dispose()


def test_one_instance_holds_the_lease_until_it_expires_or_is_released(
    states: tuple[BotState, BotState],
) -> None:
    first, second = states
    assert first.hold_lease("a", now_ms=1_000, ttl_ms=15_000)
    assert not second.hold_lease("b", now_ms=1_001, ttl_ms=15_000)
    assert first.hold_lease("a", now_ms=10_000, ttl_ms=15_000)  # renewed
    assert not second.hold_lease("b", now_ms=20_000, ttl_ms=15_000)
    assert second.hold_lease("b", now_ms=25_001, ttl_ms=15_000)  # expired: taken over
    assert not first.hold_lease("a", now_ms=25_002, ttl_ms=15_000)
    second.release_lease("b")
    assert first.hold_lease("a", now_ms=25_003, ttl_ms=15_000)


def test_a_game_is_claimed_by_one_writer_only(states: tuple[BotState, BotState]) -> None:
    first, second = states
    assert first.claim_game("g1", None, 5)
    assert not second.claim_game("g1", None, 5)
    assert not second.claim_game("g1", 4, 6)
    assert second.claim_game("g1", 5, 8)
    assert not first.claim_game("g1", 5, 9)
    assert first.game_versions(["g1", "g2"]) == {"g1": 8}


def test_the_position_only_moves_forward(states: tuple[BotState, BotState]) -> None:
    first, second = states
    first.save_position(10)
    second.save_position(7)  # a late writer
    assert first.position() == 10
    second.save_position(12)
    assert first.position() == 12
