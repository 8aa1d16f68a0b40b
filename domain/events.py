"""Events: facts the game recorded, named in the past tense.

Events carry every outcome (deck order, deals, goal layout, first player, what a map
showed, the card a timeout discarded), so :func:`domain.evolve.evolve` needs no chance.
They hold secrets too: the log is the server's. What a chat may see is decided by
:func:`domain.view.view_for` and :func:`domain.view.describe`, never by reading events
raw.

Each class's ``TYPE`` is its stable stored name; renaming a class never changes it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from domain.cards import Edition

PlayerId = int
Cell = tuple[int, int]


@dataclass(frozen=True, slots=True)
class GameCreated:
    TYPE: ClassVar[str] = "game_created"
    creator: PlayerId
    creator_name: str
    edition: Edition
    chat_id: int
    turn_seconds: int
    gold_house_rule: bool
    # Fields added later default to what a game created before them played by.
    practice: bool = False  # one human with computer players only; statistics ignore it
    away_play: str = "pass"  # "computer": an away player's seat is played by the computer
    gold_pick: str = "manual"  # base: "auto", every gold-digger takes the largest nugget
    # base: the variants switched on (docs/rules.md §8), names of domain.cards.Variant in
    # its order; () in games created before them
    variants: tuple[str, ...] = ()
    topic: int | None = None  # the forum topic (thread id) it was opened in; None: none


@dataclass(frozen=True, slots=True)
class PlayerJoined:
    TYPE: ClassVar[str] = "player_joined"
    player: PlayerId
    name: str


@dataclass(frozen=True, slots=True)
class PlayerLeft:
    TYPE: ClassVar[str] = "player_left"
    player: PlayerId


@dataclass(frozen=True, slots=True)
class ComputerPlayerAdded:
    """A computer player took a seat in the lobby; ``player`` is a small negative id, never
    a Telegram chat's."""

    TYPE: ClassVar[str] = "computer_player_added"
    player: PlayerId
    name: str
    level: str = "normal"  # how it plays; events older than levels seated a normal one


@dataclass(frozen=True, slots=True)
class ComputerLevelSet:
    """How computer player ``player`` plays from now on; None: every computer player
    seated, and the level of those seated later."""

    TYPE: ClassVar[str] = "computer_level_set"
    level: str
    player: PlayerId | None = None


@dataclass(frozen=True, slots=True)
class ComputerPlayerRemoved:
    TYPE: ClassVar[str] = "computer_player_removed"
    player: PlayerId


@dataclass(frozen=True, slots=True)
class SettingsChanged:
    TYPE: ClassVar[str] = "settings_changed"
    edition: Edition
    turn_seconds: int
    away_play: str | None = None  # None: unchanged (and in events older than the field)
    gold_pick: str | None = None
    variants: tuple[str, ...] | None = None  # every variant on after the change; None: unchanged


@dataclass(frozen=True, slots=True)
class GameCancelled:
    TYPE: ClassVar[str] = "game_cancelled"
    by: PlayerId


@dataclass(frozen=True, slots=True)
class GameStarted:
    TYPE: ClassVar[str] = "game_started"
    seating: tuple[PlayerId, ...]
    nugget_pile: tuple[int, ...]  # base: shuffled nugget values, top first; saboteur2: ()


@dataclass(frozen=True, slots=True)
class RoundStarted:
    TYPE: ClassVar[str] = "round_started"
    round: int  # 1..3
    roles: tuple[tuple[PlayerId, str], ...]  # (player, Role value) in seat order
    dwarf_pile: tuple[str, ...]  # base: hidden spare; saboteur2: face-down pile, top first
    hands: tuple[tuple[PlayerId, tuple[int, ...]], ...]
    draw_pile: tuple[int, ...]  # top first
    set_aside: tuple[int, ...]  # saboteur2: 10 cards out of this round
    goals: tuple[str, str, str]  # goal kinds at GOAL_CELLS, in order
    first_player: PlayerId


@dataclass(frozen=True, slots=True)
class DecisionOpened:
    """A player owes a decision: kind is "turn", "gold_pick" or "theft"."""

    TYPE: ClassVar[str] = "decision_opened"
    decision: int  # increasing within a game
    player: PlayerId
    kind: str
    deadline: int  # Unix ms
    computer: bool = False  # the computer makes it: the seat is a computer's or handed over


@dataclass(frozen=True, slots=True)
class PathPlaced:
    TYPE: ClassVar[str] = "path_placed"
    player: PlayerId
    card: int
    cell: Cell
    rotated: bool


@dataclass(frozen=True, slots=True)
class GoalRevealed:
    TYPE: ClassVar[str] = "goal_revealed"
    cell: Cell
    kind: str
    rotated: bool


# Action cards (docs/rules.md §5): one event per kind of card, each naming the card played
# (``card``, gone from the player's hand to the discards) and what it did. What only one
# player learns (a goal a map showed, a role inspected, the dwarf card swap hats dealt) is
# in the event; :func:`domain.view.describe` shows it to that player alone.


@dataclass(frozen=True, slots=True)
class ToolBroken:
    """A broken tool card laid in front of ``target``."""

    TYPE: ClassVar[str] = "tool_broken"
    player: PlayerId
    card: int
    target: PlayerId
    tool: str  # a Tool value: the card is "broken_<tool>"


@dataclass(frozen=True, slots=True)
class ToolRepaired:
    """``target``'s broken ``tool`` repaired: the card in front of them goes to the
    discards with the repair card (a two-tool card repairs one of its tools)."""

    TYPE: ClassVar[str] = "tool_repaired"
    player: PlayerId
    card: int
    target: PlayerId
    tool: str


@dataclass(frozen=True, slots=True)
class RockfallPlayed:
    """The path card at ``cell`` removed from the maze, to the discards."""

    TYPE: ClassVar[str] = "rockfall_played"
    player: PlayerId
    card: int
    cell: Cell


@dataclass(frozen=True, slots=True)
class MapLooked:
    """The player looked at the goal card at ``cell``: it is ``kind`` (theirs alone)."""

    TYPE: ClassVar[str] = "map_looked"
    player: PlayerId
    card: int
    cell: Cell
    kind: str


@dataclass(frozen=True, slots=True)
class RoleInspected:
    """saboteur2: the player looked at ``target``'s dwarf card: ``role`` (theirs alone)."""

    TYPE: ClassVar[str] = "role_inspected"
    player: PlayerId
    card: int
    target: PlayerId
    role: str


@dataclass(frozen=True, slots=True)
class HandsSwapped:
    """saboteur2: the player's hand and ``target``'s traded (then ``target`` draws)."""

    TYPE: ClassVar[str] = "hands_swapped"
    player: PlayerId
    card: int
    target: PlayerId


@dataclass(frozen=True, slots=True)
class HatsSwapped:
    """saboteur2: ``target``'s dwarf card went under the dwarf pile and they took its top
    one, ``role`` (``target``'s alone)."""

    TYPE: ClassVar[str] = "hats_swapped"
    player: PlayerId
    card: int
    target: PlayerId
    role: str


@dataclass(frozen=True, slots=True)
class TheftPlanned:
    """saboteur2: a theft card laid in front of the player who played it."""

    TYPE: ClassVar[str] = "theft_planned"
    player: PlayerId
    card: int


@dataclass(frozen=True, slots=True)
class TheftStopped:
    """saboteur2: hands off! ``target``'s theft card goes to the discards with it."""

    TYPE: ClassVar[str] = "theft_stopped"
    player: PlayerId
    card: int
    target: PlayerId


@dataclass(frozen=True, slots=True)
class PlayerImprisoned:
    """saboteur2: a trapped! card laid in front of ``target``."""

    TYPE: ClassVar[str] = "player_imprisoned"
    player: PlayerId
    card: int
    target: PlayerId


@dataclass(frozen=True, slots=True)
class PlayerFreed:
    """saboteur2: free at last! ``target``'s trapped! card goes to the discards with it."""

    TYPE: ClassVar[str] = "player_freed"
    player: PlayerId
    card: int
    target: PlayerId


@dataclass(frozen=True, slots=True)
class CardsDiscarded:
    """A pass: cards discarded face down."""

    TYPE: ClassVar[str] = "cards_discarded"
    player: PlayerId
    cards: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class FrontCardRemoved:
    """saboteur2: two cards discarded to remove one card in front of the player."""

    TYPE: ClassVar[str] = "front_card_removed"
    player: PlayerId
    cards: tuple[int, ...]
    removed: str


@dataclass(frozen=True, slots=True)
class CardDrawn:
    TYPE: ClassVar[str] = "card_drawn"
    player: PlayerId
    card: int


@dataclass(frozen=True, slots=True)
class DecisionTimedOut:
    """Followed by the recorded default action's events."""

    TYPE: ClassVar[str] = "decision_timed_out"
    decision: int
    player: PlayerId


@dataclass(frozen=True, slots=True)
class PlayerReminded:
    """The player on a decision was reminded of its deadline ("half" or "soon")."""

    TYPE: ClassVar[str] = "player_reminded"
    decision: int
    player: PlayerId
    which: str


@dataclass(frozen=True, slots=True)
class PlayerWentAway:
    TYPE: ClassVar[str] = "player_went_away"
    player: PlayerId


@dataclass(frozen=True, slots=True)
class PlayerCameBack:
    TYPE: ClassVar[str] = "player_came_back"
    player: PlayerId


@dataclass(frozen=True, slots=True)
class SeatHandedOver:
    """From now on the computer plays a human player's seat; its dwarf, hand and gold stay.

    ``reason``: "left" (the player left after confirming: they do not come back),
    "kicked" (``by`` the creator or an admin) or "away" (three timeouts in a row, when the
    game's away setting says "computer"). A kicked or away player's own next action takes
    the seat back (:class:`PlayerCameBack`).
    """

    TYPE: ClassVar[str] = "seat_handed_over"
    player: PlayerId
    reason: str
    by: PlayerId | None = None


@dataclass(frozen=True, slots=True)
class RoundEnded:
    """Every dwarf card is turned face up: each player's, and (base) the spare set aside
    for the round (the base rulebook: "todas las cartas de enano son reveladas"). The saboteur2
    dwarf pile stays face down."""

    TYPE: ClassVar[str] = "round_ended"
    round: int
    treasure_reached: bool
    reached_by: PlayerId | None
    roles: tuple[tuple[PlayerId, str], ...]  # every player's role, revealed
    winners: tuple[PlayerId, ...]
    spare: tuple[str, ...] = ()  # base: the spare dwarf card(s), revealed; saboteur2: ()


@dataclass(frozen=True, slots=True)
class GoldPaid:
    """Gold paid at a round's end. base: paid in nugget cards, ``nuggets`` lists each
    player's cards and ``nugget_pile`` is the pile left (top first); saboteur2: tokens."""

    TYPE: ClassVar[str] = "gold_paid"
    payouts: tuple[tuple[PlayerId, int], ...]
    nuggets: tuple[tuple[PlayerId, tuple[int, ...]], ...] = ()
    nugget_pile: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class GoldPickStarted:
    """base: nugget cards drawn for the gold-diggers to pick from, and the pick order."""

    TYPE: ClassVar[str] = "gold_pick_started"
    nuggets: tuple[int, ...]
    order: tuple[PlayerId, ...]


@dataclass(frozen=True, slots=True)
class GoldPicked:
    TYPE: ClassVar[str] = "gold_picked"
    player: PlayerId
    value: int


@dataclass(frozen=True, slots=True)
class TheftsStarted:
    """saboteur2: the untrapped thieves will steal in this order (docs/rules.md §6.3)."""

    TYPE: ClassVar[str] = "thefts_started"
    order: tuple[PlayerId, ...]


@dataclass(frozen=True, slots=True)
class TheftResolved:
    TYPE: ClassVar[str] = "theft_resolved"
    thief: PlayerId
    victim: PlayerId | None  # None: nobody had gold


@dataclass(frozen=True, slots=True)
class GameEnded:
    TYPE: ClassVar[str] = "game_ended"
    gold: tuple[tuple[PlayerId, int], ...]
    winners: tuple[PlayerId, ...]


Event = (
    GameCreated
    | PlayerJoined
    | PlayerLeft
    | ComputerPlayerAdded
    | ComputerPlayerRemoved
    | ComputerLevelSet
    | SettingsChanged
    | GameCancelled
    | GameStarted
    | RoundStarted
    | DecisionOpened
    | PathPlaced
    | GoalRevealed
    | ToolBroken
    | ToolRepaired
    | RockfallPlayed
    | MapLooked
    | RoleInspected
    | HandsSwapped
    | HatsSwapped
    | TheftPlanned
    | TheftStopped
    | PlayerImprisoned
    | PlayerFreed
    | CardsDiscarded
    | FrontCardRemoved
    | CardDrawn
    | DecisionTimedOut
    | PlayerReminded
    | PlayerWentAway
    | PlayerCameBack
    | SeatHandedOver
    | RoundEnded
    | GoldPaid
    | GoldPickStarted
    | GoldPicked
    | TheftsStarted
    | TheftResolved
    | GameEnded
)

# An action card played: one of these.
ActionEvent = (
    ToolBroken
    | ToolRepaired
    | RockfallPlayed
    | MapLooked
    | RoleInspected
    | HandsSwapped
    | HatsSwapped
    | TheftPlanned
    | TheftStopped
    | PlayerImprisoned
    | PlayerFreed
)
ACTION_EVENTS: tuple[type[ActionEvent], ...] = (
    ToolBroken,
    ToolRepaired,
    RockfallPlayed,
    MapLooked,
    RoleInspected,
    HandsSwapped,
    HatsSwapped,
    TheftPlanned,
    TheftStopped,
    PlayerImprisoned,
    PlayerFreed,
)
"""The action events' classes, for ``isinstance``."""
