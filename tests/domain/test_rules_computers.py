"""Computer players (docs/rules.md §7.3–§7.6): seats in the lobby, seats handed over in a
running game, the away setting, the automatic gold pick and practice games."""

from __future__ import annotations

from dataclasses import replace

import pytest
from given import T0, TURN, dealt, given, ids, then_raises, when

from domain import errors
from domain.commands import (
    AddComputerPlayer,
    ChangeSettings,
    ComeBack,
    Command,
    CreateGame,
    Envelope,
    HandSeatToComputer,
    JoinGame,
    LeaveGame,
    MakeComputerMove,
    Pass,
    PlacePath,
    RemindPlayer,
    RemoveComputerPlayer,
    StartGame,
    TimeOut,
)
from domain.decide.lobby import COMPUTER_NAMES, computer_name
from domain.events import (
    CardsDiscarded,
    ComputerPlayerAdded,
    ComputerPlayerRemoved,
    DecisionOpened,
    DecisionTimedOut,
    Event,
    GameCancelled,
    GameCreated,
    GoldPicked,
    GoldPickStarted,
    PathPlaced,
    PlayerCameBack,
    PlayerLeft,
    PlayerWentAway,
    SeatHandedOver,
)
from domain.evolve import fold
from domain.moves import computer_moves, decision_moves, legal_moves
from domain.state import GameState
from domain.view import describe, view_for

EW = ids("base", "straight_ew")
CROSS = ids("base", "cross")
LATE = T0 + TURN * 1000


def _run(*commands: object) -> tuple[GameState, list[Event]]:
    """Fold the events of ``commands`` run one after another from nothing."""
    return _run_on(fold([]), *commands)


def _with_computers(count: int, edition: str = "base", **settings: object) -> GameState:
    state, _ = _run(
        CreateGame(1, "Ann", edition, -100, TURN, **settings),  # type: ignore[arg-type]
        *[Envelope(AddComputerPlayer(1), seed=n) for n in range(count)],
    )
    return state


# ------------------------------------------------------------------------ the lobby


def test_a_computer_player_takes_a_seat_with_a_robot_name_and_a_negative_id() -> None:
    state = _with_computers(0)
    events = when(state, AddComputerPlayer(1), seed=4)
    assert len(events) == 1 and isinstance(events[0], ComputerPlayerAdded)
    added = events[0]
    assert added.player == -1 and added.name.startswith("🤖 ")
    after = fold(events, state)
    assert after.seating == (1, -1) and after.computers == {-1} and after.is_computer(-1)
    assert after.humans() == (1,)


def test_computer_players_have_names_from_the_list_never_two_alike() -> None:
    state = _with_computers(9)
    names = [state.names[p] for p in state.seating if state.is_computer(p)]
    assert len(set(names)) == 9
    assert set(names) <= {computer_name(n) for n in COMPUTER_NAMES}
    assert sorted(p for p in state.seating if p < 0) == list(range(-9, 0))


def test_a_computer_player_is_never_named_like_a_person_at_the_table() -> None:
    # "🤖 Ida" beside a person called Ida would leave the table guessing who is who.
    for first in range(0, 100, 10):
        state, _ = _run(
            CreateGame(1, "ida", "saboteur2", -100, TURN),
            JoinGame(2, "Greta Berg"),
            *[Envelope(AddComputerPlayer(1), seed=n) for n in range(first, first + 10)],
        )
        names = {state.names[p] for p in state.seating if state.is_computer(p)}
        assert len(names) == 10
        assert not names & {computer_name("Ida"), computer_name("Greta")}


def test_the_seed_decides_a_computer_players_name() -> None:
    state = _with_computers(0)
    assert when(state, AddComputerPlayer(1), seed=7) == when(state, AddComputerPlayer(1), seed=7)
    assert len({when(state, AddComputerPlayer(1), seed=s)[0] for s in range(30)}) > 1


def test_a_full_lobby_refuses_a_computer_player() -> None:
    then_raises(_with_computers(9), AddComputerPlayer(1), errors.GameFull)
    assert len(_with_computers(11, "saboteur2").seating) == 12


def test_removing_a_computer_player_frees_its_seat() -> None:
    state = _with_computers(3)
    assert when(state, RemoveComputerPlayer(1)) == [ComputerPlayerRemoved(-3)]
    assert when(state, RemoveComputerPlayer(1, -2)) == [ComputerPlayerRemoved(-2)]
    after = fold([ComputerPlayerRemoved(-2)], state)
    assert after.seating == (1, -1, -3) and -2 not in after.names and -2 not in after.computers
    assert when(after, AddComputerPlayer(1))[0].player == -4  # type: ignore[union-attr]


def test_only_a_computer_player_can_be_removed() -> None:
    then_raises(_with_computers(0), RemoveComputerPlayer(1), errors.NotAComputerPlayer)
    then_raises(_with_computers(2), RemoveComputerPlayer(1, 1), errors.NotAComputerPlayer)
    then_raises(_with_computers(2), RemoveComputerPlayer(1, -7), errors.NotAComputerPlayer)


def test_a_computer_seat_cannot_leave_as_a_person() -> None:
    then_raises(_with_computers(2), LeaveGame(-1), errors.ComputerSeat)


def test_the_last_person_leaving_cancels_the_lobby_of_computer_players() -> None:
    state = _with_computers(2)
    assert when(state, LeaveGame(1)) == [PlayerLeft(1), GameCancelled(1)]


def test_a_creator_who_leaves_hands_the_lobby_to_a_person_not_a_computer() -> None:
    state, _ = _run(
        CreateGame(1, "Ann", "base", -100, TURN),
        AddComputerPlayer(1),
        JoinGame(2, "Bo"),
        LeaveGame(1),
    )
    assert state.creator == 2 and state.seating == (-1, 2)


def test_the_play_settings_are_checked_and_changed_in_the_lobby() -> None:
    state = _with_computers(2)
    assert (state.away_play, state.gold_pick) == ("computer", "auto")
    then_raises(state, ChangeSettings(1, away_play="sleep"), errors.InvalidSettings)  # type: ignore[arg-type]
    then_raises(state, ChangeSettings(1, gold_pick="some"), errors.InvalidSettings)  # type: ignore[arg-type]
    changed = fold(when(state, ChangeSettings(1, away_play="pass", gold_pick="manual")), state)
    assert (changed.away_play, changed.gold_pick) == ("pass", "manual")
    assert fold(when(changed, ChangeSettings(1, turn_seconds=30)), changed).away_play == "pass"


def test_a_practice_game_is_its_creators_alone_with_computer_players() -> None:
    state = _with_computers(4, "saboteur2", practice=True)
    then_raises(state, JoinGame(2, "Bo"), errors.PracticeGame)
    started = fold(when(state, StartGame(1), at=T0, seed=3), state)
    assert started.phase == "playing" and started.practice and started.humans() == (1,)
    assert view_for(started, None).practice


def test_computer_players_fill_seats_up_to_the_editions_minimum() -> None:
    state = _with_computers(2)
    assert fold(when(state, StartGame(1), at=T0, seed=1), state).phase == "playing"
    then_raises(_with_computers(1), StartGame(1), errors.NotEnoughPlayers)


# ------------------------------------------------------------------- a running game


def _running(computers: int = 2, seed: int = 5, **settings: object) -> GameState:
    state = _with_computers(computers, **settings)
    state, _ = _run_on(state, JoinGame(2, "Bo"), Envelope(StartGame(1), at=T0, seed=seed))
    return state


def _run_on(state: GameState, *commands: object) -> tuple[GameState, list[Event]]:
    """The state after ``commands`` run one after another on ``state``, and their events."""
    events: list[Event] = []
    for command in commands:
        envelope = command if isinstance(command, Envelope) else Envelope(command)  # type: ignore[arg-type]
        new = when(state, envelope.command, envelope.at, envelope.seed)
        events += new
        state = fold(new, state)
    return state, events


def _until_owed_by(state: GameState, player: int) -> GameState:
    """Play (first legal move; a computer's through MakeComputerMove) until ``player``
    owes the decision."""
    for _ in range(50):
        pending = state.pending
        assert pending is not None
        if pending.player == player:
            return state
        if pending.computer:
            command: Command = MakeComputerMove(pending.id, computer_moves(state)[0])  # type: ignore[arg-type]
        else:
            command = legal_moves(state, pending.player)[0]
        state, _ = _run_on(state, Envelope(command, at=T0))
    raise AssertionError(f"{player} never owes a decision")


def test_a_computer_seats_decisions_are_the_computers_with_the_whole_timer() -> None:
    state = _until_owed_by(_running(), 1)  # seating: 1, -1, -2, 2
    move = legal_moves(state, 1)[0]
    opened = [e for e in when(state, move, at=T0) if isinstance(e, DecisionOpened)]
    assert [(e.player, e.computer, e.deadline) for e in opened] == [(-1, True, LATE)]
    state = _until_owed_by(state, -1)
    assert state.pending is not None and state.pending.computer
    assert view_for(state, None).pending == state.pending


def test_the_computers_move_goes_through_the_rules_like_anyones() -> None:
    state = _until_owed_by(_running(), -1)
    assert state.pending is not None
    decision = state.pending.id
    move = computer_moves(state)[0]
    as_computer = when(state, MakeComputerMove(decision, move), at=T0, seed=9)
    as_person = when(replace(state, computers=frozenset()), move, at=T0, seed=9)
    assert [replace(e, computer=False) if isinstance(e, DecisionOpened) else e
            for e in as_computer] == as_person  # fmt: skip
    illegal = Pass(-1, (999,))
    then_raises(state, MakeComputerMove(decision, illegal), errors.CardNotInHand)


def test_a_computer_seat_cannot_move_as_a_person() -> None:
    state = _until_owed_by(_running(), -1)
    assert legal_moves(state, -1) == [] and computer_moves(state) == decision_moves(state, -1)
    then_raises(state, decision_moves(state, -1)[0], errors.ComputerSeat)


def test_a_late_computer_move_decides_nothing() -> None:
    state = _until_owed_by(_running(), -1)
    assert state.pending is not None
    move = computer_moves(state)[0]
    done, _ = _run_on(state, Envelope(MakeComputerMove(state.pending.id, move), at=T0))
    assert when(done, MakeComputerMove(state.pending.id, move), at=T0) == []


def test_the_computer_cannot_make_a_persons_decision() -> None:
    state = _until_owed_by(_running(), 2)
    assert state.pending is not None
    move = legal_moves(state, 2)[0]
    then_raises(state, MakeComputerMove(state.pending.id, move), errors.NotYourTurn)


def test_leaving_a_running_game_hands_the_seat_to_the_computer_with_its_cards_and_gold() -> None:
    state = _until_owed_by(_running(), 1)
    before = state
    state, events = _run_on(state, Envelope(HandSeatToComputer(2, 2), at=T0))
    assert events == [SeatHandedOver(2, "left")]
    assert state.handed_over == {2: "left"} and state.computer_plays(2)
    assert (state.hand(2), state.role(2), state.gold[2]) == (
        before.hand(2),
        before.role(2),
        before.gold[2],
    )
    seat = next(s for s in view_for(state, None).seats if s.player == 2)
    assert seat.handed_over == "left" and seat.computer_plays and not seat.computer


def test_a_seat_handed_over_on_its_turn_is_opened_again_for_the_computer() -> None:
    state = _until_owed_by(_running(), 2)
    assert state.pending is not None and not state.pending.computer
    owed = state.pending
    events = when(state, HandSeatToComputer(1, 2), at=T0 + 5)
    assert events == [
        SeatHandedOver(2, "kicked", by=1),
        DecisionOpened(owed.id + 1, 2, "turn", T0 + 5 + TURN * 1000, computer=True),
    ]


def test_open_rule_a_player_who_left_does_not_come_back() -> None:
    """docs/rules.md §7.4: a leaver's seat "is played by the computer until the end". Leaving is
    confirmed, and a return would let a player drop out and in at will (sitting out the
    dull turns, coming back to the decisive ones); the rulebooks' table has no such move.
    Their own moves and ComeBack are refused; the computer plays on."""
    state = _until_owed_by(_running(), 1)
    state, _ = _run_on(state, Envelope(HandSeatToComputer(2, 2), at=T0))
    then_raises(state, ComeBack(2), errors.LeftTheGame)
    then_raises(state, HandSeatToComputer(2, 2), errors.LeftTheGame)
    then_raises(state, HandSeatToComputer(1, 2), errors.LeftTheGame)
    state = _until_owed_by(state, 2)
    assert state.pending is not None and state.pending.computer
    assert legal_moves(state, 2) == []
    then_raises(state, decision_moves(state, 2)[0], errors.LeftTheGame)


def test_a_kicked_player_takes_the_seat_back_with_their_own_next_action() -> None:
    state = _until_owed_by(_running(), 1)
    state, _ = _run_on(state, Envelope(HandSeatToComputer(1, 2), at=T0))
    then_raises(state, HandSeatToComputer(1, 2), errors.AlreadyHandedOver)
    back = when(state, ComeBack(2), at=T0)
    assert back == [PlayerCameBack(2)]
    assert not fold(back, state).computer_plays(2)
    owed = _until_owed_by(state, 2)
    assert owed.pending is not None and owed.pending.computer
    assert legal_moves(owed, 2)[-1] == ComeBack(2)  # the person may still act
    move = legal_moves(owed, 2)[0]
    events = when(owed, move)
    assert events[0] == PlayerCameBack(2)
    assert 2 not in fold(events, owed).handed_over


def test_a_kicked_player_may_still_leave() -> None:
    state = _until_owed_by(_running(), 1)
    state, _ = _run_on(state, Envelope(HandSeatToComputer(1, 2), at=T0))
    assert when(state, HandSeatToComputer(2, 2)) == [SeatHandedOver(2, "left")]


def test_a_computer_players_seat_is_not_handed_over() -> None:
    then_raises(_running(), HandSeatToComputer(1, -1), errors.ComputerSeat)
    then_raises(_running(), HandSeatToComputer(1, 9), errors.NotAPlayer)
    then_raises(_with_computers(2), HandSeatToComputer(1, 1), errors.NotStarted)


def test_a_game_every_person_left_is_cancelled() -> None:
    state = _until_owed_by(_running(), 1)
    state, _ = _run_on(state, Envelope(HandSeatToComputer(1, 1), at=T0))
    assert when(state, HandSeatToComputer(2, 2), at=T0) == [
        SeatHandedOver(2, "left"),
        GameCancelled(2),
    ]


def _three_timeouts(**settings: object) -> tuple[GameState, list[Event]]:
    """Player 2 lets their third turn in a row time out."""
    state = _running(**settings)
    for n in range(3):
        state = _until_owed_by(state, 2)
        assert state.pending is not None
        state, events = _run_on(state, Envelope(TimeOut(state.pending.id), at=LATE, seed=n))
    return state, events


def test_a_player_away_after_three_timeouts_is_played_by_the_computer_by_default() -> None:
    state, events = _three_timeouts()
    assert events[:3] == [DecisionTimedOut(events[0].decision, 2), PlayerWentAway(2),  # type: ignore[union-attr]
                          SeatHandedOver(2, "away")]  # fmt: skip
    assert isinstance(events[3], CardsDiscarded)  # the turn that timed out still passes
    state = _until_owed_by(state, 2)
    assert state.pending is not None and state.pending.computer
    assert state.pending.deadline > T0  # the computer has the whole timer


def test_with_the_away_setting_pass_an_away_player_passes_at_once() -> None:
    state, events = _three_timeouts(away_play="pass")
    assert PlayerWentAway(2) in events and not any(isinstance(e, SeatHandedOver) for e in events)
    state = _until_owed_by(state, 2)
    assert state.pending is not None and not state.pending.computer
    assert state.pending.deadline == T0


def test_an_away_player_played_by_the_computer_comes_back_with_comeback() -> None:
    state, _ = _three_timeouts()
    events = when(state, ComeBack(2), at=T0)
    assert events == [PlayerCameBack(2)]
    back = fold(events, state)
    assert 2 not in back.away and 2 not in back.handed_over


def test_a_computer_decision_timing_out_never_makes_the_seat_away() -> None:
    state = _running()
    for n in range(4):
        state = _until_owed_by(state, -1)
        assert state.pending is not None
        state, events = _run_on(state, Envelope(TimeOut(state.pending.id), at=LATE, seed=n))
        assert not any(isinstance(e, PlayerWentAway | SeatHandedOver) for e in events)


def test_nobody_reminds_the_computer() -> None:
    state = _until_owed_by(_running(), -1)
    assert state.pending is not None
    assert when(state, RemindPlayer(state.pending.id, "half")) == []


# -------------------------------------------------------------------- the gold pick


def _treasure_in_reach(gold_pick: str) -> list[Event]:
    roles = {1: "gold_digger", 2: "saboteur", 3: "gold_digger", 4: "gold_digger"}
    setup = dealt(players=4, roles=roles, hands={3: (CROSS[4],)}, first=3)
    created = setup[0]
    assert isinstance(created, GameCreated)
    setup[0] = replace(created, gold_pick=gold_pick)
    path = [PathPlaced(1, c, (x, 0), False) for x, c in enumerate([*CROSS[:3], *EW], start=1)]
    return [*setup, *path]


def test_the_automatic_gold_pick_gives_each_gold_digger_the_largest_nugget_left() -> None:
    setup = _treasure_in_reach("auto")
    events = when(given(setup), PlacePath(3, CROSS[4], (7, 0), False), at=T0, seed=2)
    assert GoldPickStarted((3, 2, 1), (3, 1, 4)) in events
    picks = [e for e in events if isinstance(e, GoldPicked)]
    assert picks == [GoldPicked(3, 3), GoldPicked(1, 2), GoldPicked(4, 1)]
    assert not any(isinstance(e, DecisionOpened) and e.kind == "gold_pick" for e in events)


def test_manual_gold_picks_are_still_each_gold_diggers_decision() -> None:
    setup = _treasure_in_reach("manual")
    events = when(given(setup), PlacePath(3, CROSS[4], (7, 0), False), at=T0)
    assert events[-1] == DecisionOpened(2, 3, "gold_pick", LATE)


# ------------------------------------------------------------------- what is public


@pytest.mark.parametrize(
    "event",
    [ComputerPlayerAdded(-1, "🤖 Ida"), ComputerPlayerRemoved(-1), SeatHandedOver(2, "away")],
)
def test_computer_events_are_public_and_hint_at_no_dwarf(event: Event) -> None:
    public = describe(event, None)
    assert public == describe(event, 2) and "role" not in public
    assert set(public) - {"type"} <= {"player", "name", "reason", "by", "level"}


def test_an_old_game_created_before_computer_players_keeps_its_rules() -> None:
    old = GameCreated(1, "Ann", "base", -100, TURN, False)
    state = fold([old])
    assert (state.away_play, state.gold_pick, state.practice) == ("pass", "manual", False)
