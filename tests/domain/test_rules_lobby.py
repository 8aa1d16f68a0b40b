"""Creating, joining, leaving, settings, cancelling, starting, and the round set-up
(docs/rules.md §3.1, §7.4)."""

from __future__ import annotations

import pytest
from given import T0, TURN, given, lobby, then_raises, when

from domain import errors
from domain.cards import EXPANSION_SET_ASIDE, PLAYER_LIMITS, deck
from domain.commands import (
    CancelGame,
    ChangeSettings,
    CreateGame,
    JoinGame,
    LeaveGame,
    PlacePath,
    StartGame,
)
from domain.events import (
    DecisionOpened,
    GameCancelled,
    GameCreated,
    GameStarted,
    PlayerJoined,
    PlayerLeft,
    RoundStarted,
    SettingsChanged,
)
from domain.evolve import fold


def test_creating_a_game_seats_its_creator() -> None:
    events = when(given(), CreateGame(7, "Ann", "saboteur2", chat_id=-5, turn_seconds=90))
    assert events == [
        GameCreated(7, "Ann", "saboteur2", -5, 90, False, away_play="computer", gold_pick="auto")
    ]
    state = given(events)
    assert state.phase == "lobby" and state.seating == (7,) and state.creator == 7


def test_a_game_is_created_once() -> None:
    then_raises(given(lobby()), CreateGame(9, "X", "base", 1), errors.GameAlreadyCreated)


def test_a_turn_timer_out_of_range_is_refused() -> None:
    then_raises(given(), CreateGame(1, "A", "base", 1, turn_seconds=1), errors.InvalidSettings)


def test_players_join_in_seat_order() -> None:
    state = given(lobby("base", 2))
    assert when(state, JoinGame(3, "Cy")) == [PlayerJoined(3, "Cy")]
    assert given(lobby("base", 3)).seating == (1, 2, 3)


def test_a_player_cannot_join_twice() -> None:
    then_raises(given(lobby()), JoinGame(2, "again"), errors.AlreadyJoined)


def test_a_full_base_lobby_refuses_an_eleventh_player() -> None:
    then_raises(given(lobby("base", 10)), JoinGame(11, "K"), errors.GameFull)


def test_a_full_saboteur2_lobby_refuses_a_thirteenth_player() -> None:
    then_raises(given(lobby("saboteur2", 12)), JoinGame(13, "M"), errors.GameFull)


def test_joining_before_a_game_exists_is_refused() -> None:
    then_raises(given(), JoinGame(1, "A"), errors.NoGame)


def test_leaving_the_lobby_frees_the_seat_and_passes_on_the_creator() -> None:
    state = given(lobby("base", 3))
    assert when(state, LeaveGame(1)) == [PlayerLeft(1)]
    after = given(lobby("base", 3), PlayerLeft(1))
    assert after.seating == (2, 3) and after.creator == 2


def test_the_last_player_leaving_cancels_the_game() -> None:
    assert when(given(lobby("base", 1)), LeaveGame(1)) == [PlayerLeft(1), GameCancelled(1)]


def test_a_stranger_cannot_leave() -> None:
    then_raises(given(lobby()), LeaveGame(99), errors.NotAPlayer)


def test_the_creator_changes_edition_and_timer() -> None:
    events = when(given(lobby()), ChangeSettings(1, edition="saboteur2", turn_seconds=30))
    assert events == [SettingsChanged("saboteur2", 30)]


def test_only_the_creator_changes_settings() -> None:
    then_raises(given(lobby()), ChangeSettings(2, turn_seconds=30), errors.NotTheCreator)


def test_switching_to_base_with_too_many_players_is_refused() -> None:
    then_raises(given(lobby("saboteur2", 11)), ChangeSettings(1, edition="base"), errors.GameFull)


def test_the_creator_cancels_the_game() -> None:
    state = given(lobby())
    assert when(state, CancelGame(1)) == [GameCancelled(1)]
    cancelled = given(lobby(), GameCancelled(1))
    then_raises(cancelled, JoinGame(5, "late"), errors.GameOver)


@pytest.mark.parametrize(
    ("edition", "players", "error"),
    [("base", 2, errors.NotEnoughPlayers), ("saboteur2", 1, errors.NotEnoughPlayers)],
)
def test_starting_with_too_few_players_is_refused(
    edition: str, players: int, error: type[errors.DomainError]
) -> None:
    then_raises(given(lobby(edition, players)), StartGame(1), error)  # type: ignore[arg-type]


def test_only_the_creator_starts() -> None:
    then_raises(given(lobby()), StartGame(2), errors.NotTheCreator)


def test_a_started_game_is_not_a_lobby() -> None:
    state = given(lobby())
    started = fold(when(state, StartGame(1), at=T0, seed=3), state)
    then_raises(started, JoinGame(9, "late"), errors.NotInLobby)
    then_raises(started, StartGame(1), errors.NotInLobby)


def _start(edition: str, players: int, seed: int = 11) -> tuple[list[object], RoundStarted]:
    state = given(lobby(edition, players))  # type: ignore[arg-type]
    events = when(state, StartGame(1), at=T0, seed=seed)
    rounds = [e for e in events if isinstance(e, RoundStarted)]
    return list(events), rounds[0]


@pytest.mark.parametrize(("players", "hand", "saboteurs"), [(3, 6, 1), (10, 4, 4)])
def test_base_set_up_deals_hand_sizes_and_one_spare_dwarf(
    players: int, hand: int, saboteurs: int
) -> None:
    events, started = _start("base", players)
    assert isinstance(events[0], GameStarted)
    assert sorted(events[0].nugget_pile) == sorted([1] * 16 + [2] * 8 + [3] * 4)
    assert all(len(h) == hand for _, h in started.hands)
    assert len(started.dwarf_pile) == 1 and started.set_aside == ()
    roles = [r for _, r in started.roles] + list(started.dwarf_pile)
    assert roles.count("saboteur") == saboteurs
    dealt = [c for _, h in started.hands for c in h] + list(started.draw_pile)
    assert sorted(dealt) == list(range(len(deck("base"))))
    assert sorted(started.goals) == ["goal_stone_a", "goal_stone_b", "goal_treasure"]


@pytest.mark.parametrize("players", [2, 12])
def test_saboteur2_set_up_deals_six_sets_ten_aside_and_keeps_a_dwarf_pile(players: int) -> None:
    _, started = _start("saboteur2", players)
    assert all(len(h) == 6 for _, h in started.hands)
    assert len(started.set_aside) == EXPANSION_SET_ASIDE
    assert len(started.dwarf_pile) == 15 - players
    assert len(started.draw_pile) == 118 - 10 - 6 * players
    assert PLAYER_LIMITS["saboteur2"] == (2, 12)


def test_round_one_opens_the_first_players_turn_with_a_deadline() -> None:
    events, started = _start("base", 4)
    opened = events[-1]
    assert opened == DecisionOpened(1, started.first_player, "turn", T0 + TURN * 1000)


def test_the_first_player_is_chosen_by_the_seed_and_recorded() -> None:
    firsts = {_start("base", 5, seed)[1].first_player for seed in range(40)}
    assert firsts == {1, 2, 3, 4, 5}


def test_a_lobby_accepts_no_turns() -> None:
    then_raises(given(lobby()), PlacePath(1, 0, (1, 0), False), errors.NotStarted)
