"""Commands: what a player (or the clock) asks the game to do. Named as orders.

A command says only what is asked. It reaches ``decide`` in an :class:`Envelope` that
carries ``at`` (the caller's clock, Unix milliseconds) and ``seed`` (the caller's chance,
any int): the domain has neither a clock nor a random generator of its own, so whatever a
command shuffles or times is decided from these and written into the resulting events.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from domain.cards import Edition, Tool

PlayerId = int
Cell = tuple[int, int]
AwayPlay = Literal["computer", "pass"]
GoldPick = Literal["auto", "manual"]
# How well a computer player plays (docs/rules.md §7.5): ``normal`` is the strategy every
# computer player had before levels, and what a seat recorded without one plays.
Level = Literal["easy", "normal", "hard"]
LEVELS: tuple[Level, ...] = ("easy", "normal", "hard")
# The settings' allowed values: the turn timer's bounds in seconds, and the choices of
# ``away_play`` and ``gold_pick``; the reminders a ``RemindPlayer`` may name.
TURN_SECONDS: Final = (10, 7 * 24 * 3600)
AWAY_PLAY: Final = ("computer", "pass")
GOLD_PICKS: Final = ("auto", "manual")
REMINDERS: Final = ("half", "soon")


@dataclass(frozen=True, slots=True)
class CreateGame:
    actor: PlayerId
    name: str
    edition: Edition
    chat_id: int
    turn_seconds: int = 180
    # House rule of docs/rules.md §6.1: one nugget card per player (at most 9), passed round.
    gold_house_rule: bool = False
    # A practice game: its creator alone with computer players; statistics ignore it.
    practice: bool = False
    # An away player's seat: played by the computer ("computer") or passing ("pass").
    away_play: AwayPlay = "computer"
    # base: every gold-digger takes the largest nugget left ("auto"), or picks ("manual").
    gold_pick: GoldPick = "auto"
    # base: the variants switched on (docs/rules.md §8), names of domain.cards.Variant.
    variants: tuple[str, ...] = ()
    # The forum topic (thread id) of the chat the game is opened in; None: no topic.
    topic: int | None = None


@dataclass(frozen=True, slots=True)
class JoinGame:
    actor: PlayerId
    name: str


@dataclass(frozen=True, slots=True)
class LeaveGame:
    actor: PlayerId


@dataclass(frozen=True, slots=True)
class AddComputerPlayer:
    """Lobby only: seat a computer player. Who may ask (the creator, a group admin) is the
    adapter's to check; the rules check the edition's maximum. ``level``: how it plays
    (None: the lobby's level for its computer players, :class:`SetComputerLevel`)."""

    actor: PlayerId
    level: Level | None = None


@dataclass(frozen=True, slots=True)
class SetComputerLevel:
    """Lobby only: how computer player ``player`` plays, or (None) every computer player
    seated and every one seated later."""

    actor: PlayerId
    level: Level
    player: PlayerId | None = None


@dataclass(frozen=True, slots=True)
class RemoveComputerPlayer:
    """Lobby only: unseat computer player ``player`` (None: the last one seated)."""

    actor: PlayerId
    player: PlayerId | None = None


@dataclass(frozen=True, slots=True)
class ChangeSettings:
    """Lobby only: edition, turn timer, what an away player's seat does, the gold pick,
    the variants (base)."""

    actor: PlayerId
    edition: Edition | None = None
    turn_seconds: int | None = None
    away_play: AwayPlay | None = None
    gold_pick: GoldPick | None = None
    # Every variant on after the change (docs/rules.md §8); None: unchanged.
    variants: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class StartGame:
    actor: PlayerId


@dataclass(frozen=True, slots=True)
class CancelGame:
    actor: PlayerId


@dataclass(frozen=True, slots=True)
class PlacePath:
    actor: PlayerId
    card: int
    cell: Cell
    rotated: bool


@dataclass(frozen=True, slots=True)
class PlayAction:
    """Play an action card on a player (``target_player``) or a cell (``target_cell``).

    ``tool`` says which tool a double repair fixes.
    """

    actor: PlayerId
    card: int
    target_player: PlayerId | None = None
    target_cell: Cell | None = None
    tool: Tool | None = None


@dataclass(frozen=True, slots=True)
class Pass:
    """Discard face down: exactly 1 card (base) or 1 to 3 (saboteur2)."""

    actor: PlayerId
    cards: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class DiscardToRemove:
    """saboteur2: discard 2 cards to remove one card lying in front of yourself."""

    actor: PlayerId
    cards: tuple[int, int]
    removed: str  # the front card's kind, e.g. "broken_cart", "trapped", "theft"


@dataclass(frozen=True, slots=True)
class PickGold:
    """base: keep one of the nugget cards being passed round (by value)."""

    actor: PlayerId
    value: int


@dataclass(frozen=True, slots=True)
class ChooseTheftVictim:
    actor: PlayerId
    victim: PlayerId


@dataclass(frozen=True, slots=True)
class ComeBack:
    """An away player (docs/rules.md §7.3) is back: their decisions get the whole timer again.

    Allowed at any time while the game runs, to a seated player who is away. A decision of
    theirs still pending (opened, while they were away, already due) is opened again with
    a full deadline; its old deadline then decides nothing.
    """

    actor: PlayerId


@dataclass(frozen=True, slots=True)
class HandSeatToComputer:
    """A running game: the computer plays ``player``'s seat from now on (docs/rules.md §7.4).

    ``actor == player``: the player leaves (the adapter asked them to confirm); they do not
    come back. Otherwise the creator or a group admin (the adapter checks which) hands an
    absent player's seat over; that player's own next action takes it back.
    """

    actor: PlayerId
    player: PlayerId


@dataclass(frozen=True, slots=True)
class MakeComputerMove:
    """The computer makes decision ``decision`` of a seat it plays: ``move`` is one of the
    seat's legal moves. A decision no longer pending decides nothing (no events)."""

    decision: int
    move: SeatMove


@dataclass(frozen=True, slots=True)
class TimeOut:
    """The deadline of decision ``decision`` passed. A decision already made: no events."""

    decision: int


@dataclass(frozen=True, slots=True)
class RemindPlayer:
    """The reminder time of decision ``decision`` came: ``which`` is "half" or "soon".

    A decision already made, or a reminder already given: no events.
    """

    decision: int
    which: str


SeatMove = PlacePath | PlayAction | Pass | DiscardToRemove | PickGold | ChooseTheftVictim
"""A decision a seat makes: a turn, a gold pick or a theft."""

Command = (
    CreateGame
    | JoinGame
    | LeaveGame
    | AddComputerPlayer
    | RemoveComputerPlayer
    | SetComputerLevel
    | ChangeSettings
    | StartGame
    | CancelGame
    | PlacePath
    | PlayAction
    | Pass
    | DiscardToRemove
    | PickGold
    | ChooseTheftVictim
    | ComeBack
    | HandSeatToComputer
    | MakeComputerMove
    | TimeOut
    | RemindPlayer
)


@dataclass(frozen=True, slots=True)
class Envelope:
    """``command`` as ``decide`` gets it: with the caller's clock ``at`` (Unix
    milliseconds) and chance ``seed``, the only time and chance the rules know.

    A computer's move (:class:`MakeComputerMove`) is decided with its envelope's.
    """

    command: Command
    at: int = 0
    seed: int = 0
