"""Every event and command survives encode → JSON → decode unchanged."""

from __future__ import annotations

import json

import pytest

from domain.cards import Action, Tool
from domain.codec import (
    COMMAND_TYPES,
    EVENT_TYPES,
    UPCASTERS,
    decode,
    decode_command,
    decode_envelope,
    encode,
    encode_command,
    encode_envelope,
)
from domain.commands import (
    AddComputerPlayer,
    CancelGame,
    ChangeSettings,
    ChooseTheftVictim,
    ComeBack,
    Command,
    CreateGame,
    DiscardToRemove,
    Envelope,
    HandSeatToComputer,
    JoinGame,
    LeaveGame,
    MakeComputerMove,
    Pass,
    PickGold,
    PlacePath,
    PlayAction,
    RemindPlayer,
    RemoveComputerPlayer,
    SetComputerLevel,
    StartGame,
    TimeOut,
)
from domain.events import (
    ACTION_EVENTS,
    ComputerLevelSet,
    ComputerPlayerAdded,
    ComputerPlayerRemoved,
    DecisionOpened,
    Event,
    GameCancelled,
    GoalRevealed,
    GoldPaid,
    GoldPicked,
    GoldPickStarted,
    HandsSwapped,
    HatsSwapped,
    MapLooked,
    PlayerCameBack,
    PlayerFreed,
    PlayerImprisoned,
    PlayerLeft,
    PlayerReminded,
    PlayerWentAway,
    RockfallPlayed,
    RoleInspected,
    RoundEnded,
    SeatHandedOver,
    SettingsChanged,
    TheftPlanned,
    TheftResolved,
    TheftsStarted,
    TheftStopped,
    ToolBroken,
    ToolRepaired,
)
from domain.simulate import play_one

RARE: list[Event] = [
    PlayerLeft(3),
    ComputerPlayerAdded(-1, "🤖 Greta"),
    ComputerPlayerAdded(-2, "🤖 Ida", "hard"),
    ComputerLevelSet("easy"),
    ComputerLevelSet("hard", -2),
    ComputerPlayerRemoved(-1),
    SettingsChanged("saboteur2", 45),
    SettingsChanged("base", 45, away_play="pass", gold_pick="manual"),
    SeatHandedOver(2, "kicked", by=1),
    GameCancelled(1),
    PlayerReminded(4, 2, "soon"),
    PlayerWentAway(2),
    PlayerCameBack(2),
    GoldPickStarted((3, 2, 1), (2, 1, 3)),
    GoldPaid(((1, 3),), nuggets=((1, (2, 1)),), nugget_pile=(1, 1, 3)),
    TheftResolved(2, None),
    TheftsStarted((2, 4)),
    GoalRevealed((8, -2), "goal_stone_b", True),
    GoldPicked(3, 2),
    ToolBroken(1, 30, 2, "cart"),
    ToolRepaired(2, 44, 2, "lantern"),
    RockfallPlayed(3, 60, (3, -1)),
    MapLooked(1, 62, (8, 2), "goal_treasure"),
    RoleInspected(4, 70, 1, "saboteur"),
    HandsSwapped(4, 71, 2),
    HatsSwapped(4, 72, 3, "blue_digger"),
    TheftPlanned(5, 73),
    TheftStopped(2, 74, 5),
    PlayerImprisoned(1, 75, 3),
    PlayerFreed(3, 76, 3),
]


def _sample_events() -> list[Event]:
    events = list(RARE)
    for edition, players, seed in (("base", 4, 1), ("saboteur2", 5, 2)):
        events += play_one(edition, players, seed, check=False)[0]  # type: ignore[arg-type]
    return events


SAMPLES = _sample_events()


def _through_json(payload: dict[str, object]) -> dict[str, object]:
    loaded: dict[str, object] = json.loads(json.dumps(payload))
    return loaded


def test_the_samples_cover_every_event_type() -> None:
    assert {type(e).TYPE for e in SAMPLES} == set(EVENT_TYPES)


@pytest.mark.parametrize("name", sorted(EVENT_TYPES))
def test_every_event_type_round_trips_through_json(name: str) -> None:
    for event in [e for e in SAMPLES if name == type(e).TYPE][:200]:
        type_name, payload = encode(event)
        assert type_name == name
        assert decode(type_name, _through_json(payload)) == event


COMMANDS: list[Command] = [
    CreateGame(1, "Ann", "base", -5, 60, True),
    CreateGame(1, "Ann", "base", -5, practice=True, away_play="pass", gold_pick="manual"),
    JoinGame(2, "Bo"),
    LeaveGame(2),
    AddComputerPlayer(1),
    RemoveComputerPlayer(1, -2),
    SetComputerLevel(1, "hard", -2),
    ChangeSettings(1, edition=None, turn_seconds=30),
    ChangeSettings(1, away_play="computer", gold_pick="auto"),
    StartGame(1),
    CancelGame(1),
    PlacePath(1, 4, (3, -2), True),
    PlayAction(1, 55, target_player=2, tool=Tool.LANTERN),
    PlayAction(1, 61, target_cell=(8, -2)),
    Pass(1, (3, 7, 9)),
    DiscardToRemove(1, (3, 4), "broken_cart"),
    PickGold(1, 3),
    ChooseTheftVictim(1, 4),
    ComeBack(2),
    HandSeatToComputer(1, 2),
    MakeComputerMove(7, PlacePath(-1, 4, (3, -2), True)),
    MakeComputerMove(8, PlayAction(-2, 55, target_player=2, tool=Tool.CART)),
    MakeComputerMove(9, Pass(-2, (3, 7))),
    TimeOut(12),
    RemindPlayer(12, "half"),
]


def test_every_command_type_round_trips_through_json() -> None:
    assert {type(c).__name__ for c in COMMANDS} == set(COMMAND_TYPES)
    for command in COMMANDS:
        name, payload = encode_command(command)
        assert decode_command(name, _through_json(payload)) == command


ENVELOPES = [
    Envelope(CreateGame(1, "Ann", "base", -5, 60, True), at=3, seed=4),
    Envelope(AddComputerPlayer(1), seed=3),
    Envelope(StartGame(1), at=5, seed=-7),
    Envelope(PlacePath(1, 4, (3, -2), True), at=9),
    Envelope(ComeBack(2), at=8, seed=1),
    Envelope(TimeOut(12), at=100, seed=3),
    Envelope(MakeComputerMove(7, PlacePath(-1, 4, (3, -2), True)), at=9, seed=2),
    Envelope(PickGold(1, 3)),
]


def test_commands_in_their_envelopes_round_trip_through_json() -> None:
    for envelope in ENVELOPES:
        name, payload = encode_envelope(envelope)
        assert decode_envelope(name, _through_json(payload)) == envelope


def test_commands_encoded_with_their_own_at_and_seed_decode_into_envelopes() -> None:
    old = {"actor": 1, "at": 5, "seed": -7}
    assert decode_envelope("StartGame", old) == Envelope(StartGame(1), at=5, seed=-7)
    move = {"command": "PlacePath", "actor": -1, "card": 4, "cell": [3, -2], "rotated": True}
    old = {"decision": 7, "move": {**move, "at": 0, "seed": 0}, "at": 9, "seed": 2}
    computer = MakeComputerMove(7, PlacePath(-1, 4, (3, -2), True))
    assert decode_envelope("MakeComputerMove", old) == Envelope(computer, at=9, seed=2)
    assert decode_envelope("PickGold", {"actor": 1, "value": 3}) == Envelope(PickGold(1, 3))


def test_an_upcaster_brings_an_old_payload_up_to_date(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("domain.codec.SCHEMA_VERSION", 2)
    monkeypatch.setitem(UPCASTERS, ("player_left", 1), lambda p: {"player": p["who"]})
    assert decode("player_left", {"who": 5}, schema_version=1) == PlayerLeft(5)
    assert decode("player_left", {"player": 5}, schema_version=2) == PlayerLeft(5)


def test_an_unknown_type_or_field_is_refused() -> None:
    with pytest.raises(ValueError):
        decode("no_such_event", {})
    with pytest.raises(ValueError):
        decode("player_left", {"player": 1, "extra": 2})


def test_a_round_ended_stored_before_the_spare_dwarf_was_recorded_still_decodes() -> None:
    old = {"round": 1, "treasure_reached": False, "reached_by": None, "roles": [[1, "saboteur"]]}
    event = decode("round_ended", {**old, "winners": [1]})
    assert event == RoundEnded(1, False, None, ((1, "saboteur"),), (1,), spare=())


def test_events_stored_before_computer_players_still_decode_to_the_old_rules() -> None:
    created = {
        "creator": 1,
        "creator_name": "Ann",
        "edition": "base",
        "chat_id": -5,
        "turn_seconds": 60,
        "gold_house_rule": False,
    }
    game = decode("game_created", created)
    assert (game.practice, game.away_play, game.gold_pick) == (False, "pass", "manual")  # type: ignore[union-attr]
    opened = decode("decision_opened", {"decision": 3, "player": 2, "kind": "turn", "deadline": 9})
    assert opened == DecisionOpened(3, 2, "turn", 9, computer=False)
    changed = decode("settings_changed", {"edition": "base", "turn_seconds": 30})
    assert changed == SettingsChanged("base", 30, away_play=None, gold_pick=None)


def _played(action: str, **fields: object) -> dict[str, object]:
    """An ``action_played`` payload as the codec stored it before the finer events."""
    stored = {"target_player": None, "target_cell": None, "tool": None, "result": None}
    return {"player": 1, "card": 9, "action": action, **stored, **fields}


@pytest.mark.parametrize(
    ("payload", "event"),
    [
        (_played("broken_cart", target_player=2), ToolBroken(1, 9, 2, "cart")),
        (_played("broken_pickaxe", target_player=1), ToolBroken(1, 9, 1, "pickaxe")),
        (_played("broken_lantern", target_player=3), ToolBroken(1, 9, 3, "lantern")),
        (
            _played("repair_lantern", target_player=2, tool="lantern"),
            ToolRepaired(1, 9, 2, "lantern"),
        ),
        (
            _played("repair_pickaxe_cart", target_player=1, tool="cart"),
            ToolRepaired(1, 9, 1, "cart"),
        ),
        (_played("rockfall", target_cell=[3, -1]), RockfallPlayed(1, 9, (3, -1))),
        (
            _played("map", target_cell=[8, -2], result="goal_stone_a"),
            MapLooked(1, 9, (8, -2), "goal_stone_a"),
        ),
        (_played("inspection", target_player=4, result="boss"), RoleInspected(1, 9, 4, "boss")),
        (_played("swap_hand", target_player=4), HandsSwapped(1, 9, 4)),
        (
            _played("swap_hats", target_player=4, result="geologist"),
            HatsSwapped(1, 9, 4, "geologist"),
        ),
        (_played("theft", target_player=1), TheftPlanned(1, 9)),
        (_played("hands_off", target_player=5), TheftStopped(1, 9, 5)),
        (_played("trapped", target_player=5), PlayerImprisoned(1, 9, 5)),
        (_played("free_at_last", target_player=1), PlayerFreed(1, 9, 1)),
    ],
)
def test_an_action_played_stored_before_the_finer_events_decodes_as_its_kind(
    payload: dict[str, object], event: Event
) -> None:
    stored = _through_json(payload)
    assert decode("action_played", stored) == event
    assert stored == _through_json(payload)  # read, never rewritten


def test_every_action_card_played_decodes_and_a_retired_name_is_never_reused() -> None:
    assert "action_played" not in EVENT_TYPES
    told = set()
    for action in Action:
        fields = {"target_player": 2, "target_cell": [1, 0], "tool": "cart", "result": "x"}
        event = decode("action_played", _played(action.value, **fields))
        assert isinstance(event, ACTION_EVENTS)
        told.add(type(event))
    assert told == set(ACTION_EVENTS)
