"""Computer players' levels (docs/rules.md §7.5): recorded in the event that seats the
computer, chosen in the lobby for one seat or for all, and the strategy a seat plays."""

from __future__ import annotations

import pytest
from given import TURN, then_raises, when

from domain import codec, errors
from domain.commands import (
    AddComputerPlayer,
    CreateGame,
    Envelope,
    JoinGame,
    SetComputerLevel,
    StartGame,
)
from domain.decide import execute
from domain.events import ComputerLevelSet, ComputerPlayerAdded, Event
from domain.evolve import fold
from domain.state import GameState
from domain.strategy import choose_move


def _run(*commands: object) -> tuple[GameState, list[Event]]:
    state, events = fold([]), []
    for command in commands:
        new, state = execute(state, _enveloped(command))
        events += new
    return state, events


def test_the_level_asked_for_is_recorded_in_the_event_that_seats_the_computer() -> None:
    state, _ = _run(CreateGame(1, "Ann", "base", -100, TURN))
    events = when(state, AddComputerPlayer(1, level="hard"), seed=3)
    assert isinstance(events[0], ComputerPlayerAdded) and events[0].level == "hard"
    assert fold(events, state).level_of(events[0].player) == "hard"


def test_a_computer_seated_without_a_level_plays_normal() -> None:
    state, events = _run(CreateGame(1, "Ann", "base", -100, TURN), AddComputerPlayer(1))
    assert isinstance(events[-1], ComputerPlayerAdded) and events[-1].level == "normal"
    assert state.level_of(-1) == "normal"


def test_a_seating_event_stored_before_levels_loads_as_a_normal_computer() -> None:
    event = codec.decode("computer_player_added", {"player": -1, "name": "🤖 Greta"})
    assert event == ComputerPlayerAdded(-1, "🤖 Greta", "normal")
    assert fold([*_run(CreateGame(1, "Ann", "base", -100, TURN))[1], event]).level_of(-1) == (
        "normal"
    )


def test_the_level_for_all_changes_every_seated_computer_and_the_next_ones() -> None:
    state, _ = _run(
        CreateGame(1, "Ann", "base", -100, TURN),
        Envelope(AddComputerPlayer(1), seed=1),
        Envelope(AddComputerPlayer(1, level="easy"), seed=2),
    )
    events = when(state, SetComputerLevel(1, "hard"))
    assert events == [ComputerLevelSet("hard")]
    state = fold(events, state)
    assert (state.level_of(-1), state.level_of(-2)) == ("hard", "hard")
    state, added = _run_on(state, Envelope(AddComputerPlayer(1), seed=3))
    assert isinstance(added[0], ComputerPlayerAdded) and added[0].level == "hard"


def test_one_seats_level_changes_that_seat_alone() -> None:
    state, _ = _run(
        CreateGame(1, "Ann", "base", -100, TURN),
        Envelope(AddComputerPlayer(1), seed=1),
        Envelope(AddComputerPlayer(1), seed=2),
    )
    state = fold(when(state, SetComputerLevel(1, "easy", player=-2)), state)
    assert (state.level_of(-1), state.level_of(-2), state.computer_level) == (
        "normal",
        "easy",
        "normal",
    )


@pytest.mark.parametrize(
    ("command", "error"),
    [
        (SetComputerLevel(1, "hard", player=2), errors.NotAComputerPlayer),  # a person's
        (SetComputerLevel(1, "hard", player=-7), errors.NotAComputerPlayer),  # nobody's
        (SetComputerLevel(2, "hard"), errors.NotTheCreator),
        (SetComputerLevel(1, "godlike"), errors.InvalidSettings),  # type: ignore[arg-type]
        (AddComputerPlayer(1, level="godlike"), errors.InvalidSettings),  # type: ignore[arg-type]
    ],
)
def test_a_level_that_cannot_be_set_is_refused(command: object, error: type) -> None:
    state, _ = _run(
        CreateGame(1, "Ann", "base", -100, TURN), JoinGame(2, "Bo"), AddComputerPlayer(1)
    )
    then_raises(state, command, error)  # type: ignore[arg-type]


def test_a_level_is_not_changed_once_the_game_runs() -> None:
    state, _ = _run(
        CreateGame(1, "Ann", "base", -100, TURN),
        JoinGame(2, "Bo"),
        AddComputerPlayer(1),
        Envelope(StartGame(1), seed=5),
    )
    then_raises(state, SetComputerLevel(1, "hard"), errors.NotInLobby)


@pytest.mark.parametrize("level", ["easy", "normal", "hard"])
def test_the_computer_plays_its_seat_at_the_seats_level(
    level: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import domain.strategy as strategy

    state, events = _run(
        CreateGame(1, "Ann", "base", -100, TURN),
        Envelope(AddComputerPlayer(1, level=level), seed=1),  # type: ignore[arg-type]
        Envelope(AddComputerPlayer(1, level=level), seed=2),  # type: ignore[arg-type]
        Envelope(StartGame(1), seed=11),
    )
    # Whoever owes the first decision, seated at ``level`` (a computer's seat, as the
    # seating event records it).
    assert state.pending is not None
    seat = state.pending.player
    state = state.update(levels={seat: level})
    asked: list[str] = []
    real = strategy.choose

    def spy(view, memory, moves, seed, chosen="normal"):  # type: ignore[no-untyped-def]
        asked.append(chosen)
        return real(view, memory, moves, seed, chosen)

    monkeypatch.setattr(strategy, "choose", spy)
    choose_move(state, seat, events, seed=1)
    assert asked == [level]


def _enveloped(command: object) -> Envelope:
    """``command`` (an Envelope, or a bare command decided at 0 with seed 0) in its envelope."""
    return command if isinstance(command, Envelope) else Envelope(command)  # type: ignore[arg-type]


def _run_on(state: GameState, *commands: object) -> tuple[GameState, list[Event]]:
    events: list[Event] = []
    for command in commands:
        new, state = execute(state, _enveloped(command))
        events += new
    return state, events
