"""The worker's computer move plays the seat's level, as the stored seating event recorded
it (docs/rules.md §7.5): through the game service, on SQLite and PostgreSQL."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import Engine

import domain.strategy as strategy
from domain.commands import (
    AddComputerPlayer,
    CreateGame,
    MakeComputerMove,
    SetComputerLevel,
    StartGame,
)
from domain.moves import legal_moves
from infra.bootstrap import domain_modules, event_store
from infra.computer import computer_move
from infra.db import make_engine
from infra.game_service import GameService


@pytest.fixture
def engine(db_url: str) -> Iterator[Engine]:
    engine = make_engine(db_url)
    yield engine
    engine.dispose()


def _service(engine: Engine) -> GameService:
    decider, codec = domain_modules()
    return GameService(event_store(engine), decider, codec, seeds=lambda: 3)


def _until_the_computer_owes(service: GameService, game: str) -> tuple[int, int]:
    """The person plays their first legal move until a computer seat owes a decision:
    (the decision, the seat)."""
    for _ in range(20):
        state = service.load(game).state
        pending = state.pending
        assert pending is not None
        if pending.computer:
            return pending.id, pending.player
        service.handle(game, legal_moves(state, pending.player)[0])
    raise AssertionError("no computer seat ever owed a decision")


@pytest.mark.parametrize(
    ("seated", "lobby", "searches"),
    [
        ("hard", None, True),
        ("normal", None, False),
        (None, "hard", True),  # seated at the lobby's level for all
        ("hard", "easy", False),  # the level for all changed it afterwards
    ],
)
def test_the_worker_plays_a_computer_seat_at_its_recorded_level(
    engine: Engine,
    monkeypatch: pytest.MonkeyPatch,
    seated: Any,
    lobby: Any,
    searches: bool,
) -> None:
    service = _service(engine)
    game = f"game-{uuid.uuid4().hex[:8]}"
    service.handle(game, CreateGame(1, "Ann", "base", -100))
    if lobby is not None and seated is None:
        service.handle(game, SetComputerLevel(1, lobby))
    service.handle(game, AddComputerPlayer(1, level=seated), seed=1)
    service.handle(game, AddComputerPlayer(1, level=seated), seed=2)
    if lobby is not None and seated is not None:
        service.handle(game, SetComputerLevel(1, lobby))
    service.handle(game, StartGame(1))
    decision, seat = _until_the_computer_owes(service, game)
    searched: list[int] = []
    real = strategy.choose_hard

    def spy(*args: Any, **kwargs: Any) -> Any:
        searched.append(seat)
        return real(*args, **kwargs)

    monkeypatch.setattr(strategy, "choose_hard", spy)
    move = computer_move(service, game, decision)
    assert isinstance(move, MakeComputerMove)
    assert bool(searched) is searches
    service.handle(game, move)  # and the rules take it
    assert service.load(game).state.pending.id != decision  # type: ignore[union-attr]
