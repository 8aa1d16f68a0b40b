"""``decide`` in the lobby: opening a game, taking and leaving seats, seating computer
players, choosing the settings, cancelling and starting (docs/rules.md §7.5, §8).

>>> from domain.commands import AddComputerPlayer, CreateGame
>>> from domain.state import GameState
>>> state = create(GameState(), CreateGame(1, "Ida", "base", chat_id=5)).state
>>> add_computer(state, AddComputerPlayer(1), seed=3).events[0].name.startswith("🤖")
True
"""

from __future__ import annotations

from typing import Final

from domain import errors, rng
from domain.cards import (
    EDITIONS,
    PLAYER_LIMITS,
    VARIANT_EDITIONS,
    VARIANTS,
    nugget_cards,
    variants_in_order,
)
from domain.commands import (
    AWAY_PLAY,
    GOLD_PICKS,
    LEVELS,
    TURN_SECONDS,
    AddComputerPlayer,
    CancelGame,
    ChangeSettings,
    CreateGame,
    JoinGame,
    LeaveGame,
    RemoveComputerPlayer,
    SetComputerLevel,
    StartGame,
)
from domain.decide.base import (
    SEED_FIRST,
    SEED_NUGGETS,
    Log,
    emitted,
    require_creator,
    require_phase,
)
from domain.decide.deal import deal_round
from domain.events import (
    ComputerLevelSet,
    ComputerPlayerAdded,
    ComputerPlayerRemoved,
    GameCancelled,
    GameCreated,
    GameStarted,
    PlayerJoined,
    PlayerLeft,
    SettingsChanged,
)
from domain.state import GameState

# Computer players' names: one is drawn for each computer seated, never two alike, nor
# one a person at the table goes by.
COMPUTER_NAMES: Final = (
    "Greta", "Bruno", "Ida", "Otto", "Hilda", "Rune", "Sigrid", "Tove",
    "Ulla", "Vidar", "Astrid", "Finn", "Liv", "Magnus", "Nora", "Sven",
)  # fmt: skip
COMPUTER_MARK: Final = "🤖"


def _check_turn_seconds(seconds: int) -> None:
    if not TURN_SECONDS[0] <= seconds <= TURN_SECONDS[1]:
        raise errors.InvalidSettings(f"turn_seconds must be within {TURN_SECONDS}")


def create(state: GameState, cmd: CreateGame) -> Log:
    if state.phase != "new":
        raise errors.GameAlreadyCreated()
    if cmd.edition not in EDITIONS:
        raise errors.InvalidSettings(f"unknown edition {cmd.edition!r}")
    _check_turn_seconds(cmd.turn_seconds)
    _check_play_settings(cmd.away_play, cmd.gold_pick)
    variants = _check_variants(cmd.edition, cmd.variants)
    return emitted(
        state,
        GameCreated(
            cmd.actor,
            cmd.name,
            cmd.edition,
            cmd.chat_id,
            cmd.turn_seconds,
            cmd.gold_house_rule,
            practice=cmd.practice,
            away_play=cmd.away_play,
            gold_pick=cmd.gold_pick,
            variants=variants,
            topic=cmd.topic,
        ),
    )


def _check_variants(edition: str, variants: tuple[str, ...]) -> tuple[str, ...]:
    """The variants asked for, as stored (docs/rules.md §8): known names, each once, and
    none outside the base edition."""
    unknown = [v for v in variants if v not in VARIANTS]
    if unknown:
        raise errors.InvalidSettings(f"unknown variants {unknown}")
    if len(set(variants)) != len(variants):
        raise errors.InvalidSettings("a variant named twice")
    if variants and edition not in VARIANT_EDITIONS:
        raise errors.InvalidSettings(f"variants are played in {VARIANT_EDITIONS} only")
    return variants_in_order(variants)


def _check_play_settings(away_play: str | None, gold_pick: str | None) -> None:
    if away_play is not None and away_play not in AWAY_PLAY:
        raise errors.InvalidSettings(f"away_play must be one of {AWAY_PLAY}")
    if gold_pick is not None and gold_pick not in GOLD_PICKS:
        raise errors.InvalidSettings(f"gold_pick must be one of {GOLD_PICKS}")


def join(state: GameState, cmd: JoinGame) -> Log:
    require_phase(state, "lobby")
    if state.is_player(cmd.actor):
        raise errors.AlreadyJoined()
    if state.practice:
        raise errors.PracticeGame()
    _require_free_seat(state)
    return emitted(state, PlayerJoined(cmd.actor, cmd.name))


def _require_free_seat(state: GameState) -> None:
    if len(state.seating) >= PLAYER_LIMITS[state.edition][1]:
        raise errors.GameFull()


def leave(state: GameState, cmd: LeaveGame) -> Log:
    require_phase(state, "lobby")
    if not state.is_player(cmd.actor):
        raise errors.NotAPlayer()
    if state.is_computer(cmd.actor):
        raise errors.ComputerSeat()
    if state.humans() == (cmd.actor,):  # computer players alone make no game
        return emitted(state, PlayerLeft(cmd.actor), GameCancelled(cmd.actor))
    return emitted(state, PlayerLeft(cmd.actor))


def computer_name(name: str) -> str:
    """How a computer player is named at the table.

    >>> computer_name("Greta")
    '🤖 Greta'
    """
    return f"{COMPUTER_MARK} {name}"


def add_computer(state: GameState, cmd: AddComputerPlayer, seed: int) -> Log:
    require_phase(state, "lobby")
    _require_free_seat(state)
    # Small negative ids: no Telegram user has one.
    player = min(state.computers, default=0) - 1
    taken = set(state.names.values())
    # Nor one a person at the table goes by ("🤖 Ida" beside Ida): their first names.
    people = {name.split()[0].casefold() for name in taken if name.split()}
    free = [
        computer_name(n)
        for n in COMPUTER_NAMES
        if computer_name(n) not in taken and n.casefold() not in people
    ]
    name = rng.choice(free, seed) if free else computer_name(str(-player))
    level = cmd.level if cmd.level is not None else state.computer_level
    _check_level(level)
    return emitted(state, ComputerPlayerAdded(player, name, level))


def _check_level(level: str) -> None:
    if level not in LEVELS:
        raise errors.InvalidSettings(f"unknown level {level!r}")


def set_computer_level(state: GameState, cmd: SetComputerLevel) -> Log:
    """docs/rules.md §7.5: a computer player's level is chosen in the lobby, for one seat
    or for them all (and those seated later)."""
    require_phase(state, "lobby")
    require_creator(state, cmd.actor)
    _check_level(cmd.level)
    if cmd.player is not None and not state.is_computer(cmd.player):
        raise errors.NotAComputerPlayer()
    return emitted(state, ComputerLevelSet(cmd.level, cmd.player))


def remove_computer(state: GameState, cmd: RemoveComputerPlayer) -> Log:
    require_phase(state, "lobby")
    seated = [p for p in state.seating if state.is_computer(p)]
    player = cmd.player if cmd.player is not None else (seated[-1] if seated else None)
    if player is None or player not in seated:
        raise errors.NotAComputerPlayer()
    return emitted(state, ComputerPlayerRemoved(player))


def change_settings(state: GameState, cmd: ChangeSettings) -> Log:
    require_phase(state, "lobby")
    require_creator(state, cmd.actor)
    edition = cmd.edition if cmd.edition is not None else state.edition
    seconds = cmd.turn_seconds if cmd.turn_seconds is not None else state.turn_seconds
    if edition not in EDITIONS:
        raise errors.InvalidSettings(f"unknown edition {edition!r}")
    _check_turn_seconds(seconds)
    _check_play_settings(cmd.away_play, cmd.gold_pick)
    if len(state.seating) > PLAYER_LIMITS[edition][1]:
        raise errors.GameFull()
    variants = None if cmd.variants is None else _check_variants(edition, cmd.variants)
    if variants is None and state.variants and edition not in VARIANT_EDITIONS:
        variants = ()  # another edition: its variants are switched off (docs/rules.md §8)
    return emitted(state, SettingsChanged(edition, seconds, cmd.away_play, cmd.gold_pick, variants))


def cancel(state: GameState, cmd: CancelGame) -> Log:
    require_phase(state, "lobby", "playing")
    require_creator(state, cmd.actor)
    return emitted(state, GameCancelled(cmd.actor))


def start(state: GameState, cmd: StartGame, at: int, seed: int) -> Log:
    require_phase(state, "lobby")
    require_creator(state, cmd.actor)
    low, high = PLAYER_LIMITS[state.edition]
    if not state.humans():
        raise errors.NoHumanPlayer()
    if len(state.seating) < low:
        raise errors.NotEnoughPlayers(f"{state.edition} needs {low} players")
    if len(state.seating) > high:
        raise errors.GameFull()
    log = Log(state)
    pile = (
        rng.shuffle(nugget_cards(), rng.derive(seed, SEED_NUGGETS))
        if state.edition == "base"
        else ()
    )
    log.emit(GameStarted(state.seating, pile))
    first = rng.choice(state.seating, rng.derive(seed, SEED_FIRST))
    deal_round(log, 1, first, at, seed)
    return log
