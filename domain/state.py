"""The state of one game, rebuilt from its events by :func:`domain.evolve.evolve`.

Everything is immutable: tuples, frozensets and read-only mappings. A state holds every
secret (hands, roles, gold); :func:`domain.view.view_for` decides what a player may see.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import Final, Literal, TypeVar

from domain.board import GOAL_CELLS, Board, Cell
from domain.cards import Edition, Role
from domain.events import RoundEnded

PlayerId = int
Phase = Literal["new", "lobby", "playing", "finished", "cancelled"]
DecisionKind = Literal["turn", "gold_pick", "theft"]

K = TypeVar("K")
V = TypeVar("V")

EMPTY: Final[Mapping[object, object]] = MappingProxyType({})


def frozen_map(items: Mapping[K, V] | None = None) -> Mapping[K, V]:
    """A read-only copy of ``items``."""
    return MappingProxyType(dict(items or {}))


def assoc(mapping: Mapping[K, V], key: K, value: V) -> Mapping[K, V]:
    """A read-only copy of ``mapping`` with ``key`` set to ``value``.

    >>> dict(assoc(frozen_map({1: "a"}), 2, "b"))
    {1: 'a', 2: 'b'}
    """
    copy = dict(mapping)
    copy[key] = value
    return MappingProxyType(copy)


def dissoc(mapping: Mapping[K, V], key: K) -> Mapping[K, V]:
    copy = dict(mapping)
    copy.pop(key, None)
    return MappingProxyType(copy)


def _empty() -> Mapping[object, object]:
    return EMPTY


@dataclass(frozen=True, slots=True)
class Decision:
    """A decision a player owes, with its deadline (Unix ms)."""

    id: int
    player: PlayerId
    kind: DecisionKind
    deadline: int
    computer: bool = False  # the computer makes it (see GameState.computer_plays)


@dataclass(frozen=True, slots=True)
class LastMove:
    """The last card move of the round, public: who, what and where."""

    player: PlayerId
    kind: str  # "path", "action", "pass", "discard_to_remove"
    card: int | None = None
    cell: Cell | None = None
    action: str | None = None
    target_player: PlayerId | None = None


@dataclass(frozen=True)
class GameState:
    phase: Phase = "new"
    edition: Edition = "base"
    chat_id: int = 0
    # The forum topic (its thread id) the game was opened in; None: the chat itself.
    topic: int | None = None
    creator: PlayerId | None = None
    turn_seconds: int = 180
    gold_house_rule: bool = False
    practice: bool = False  # one human and computer players; statistics ignore it
    away_play: str = "pass"  # "computer" or "pass": what an away player's seat does
    gold_pick: str = "manual"  # base: "auto" (the largest nugget left) or "manual"
    variants: tuple[str, ...] = ()  # base: the variants on (docs/rules.md §8)
    goal_cells: tuple[Cell, Cell, Cell] = (
        GOAL_CELLS  # where the goals lie (middle treasure: (9, 0))
    )
    names: Mapping[PlayerId, str] = field(default_factory=_empty)  # type: ignore[arg-type]
    seating: tuple[PlayerId, ...] = ()  # join order
    round: int = 0
    round_began: int = 0  # the version (1-based) of this round's RoundStarted event
    board: Board = field(default_factory=_empty)  # type: ignore[arg-type]
    goals: tuple[str, ...] = ()  # goal kinds at GOAL_CELLS this round
    hands: Mapping[PlayerId, tuple[int, ...]] = field(default_factory=_empty)  # type: ignore[arg-type]
    roles: Mapping[PlayerId, Role] = field(default_factory=_empty)  # type: ignore[arg-type]
    draw_pile: tuple[int, ...] = ()  # top first
    discards: tuple[int, ...] = ()
    set_aside: tuple[int, ...] = ()
    dwarf_pile: tuple[Role, ...] = ()  # top first
    # Kinds of the cards lying in front of each player, in play order, and their card ids.
    front: Mapping[PlayerId, tuple[str, ...]] = field(default_factory=_empty)  # type: ignore[arg-type]
    front_cards: Mapping[PlayerId, tuple[int, ...]] = field(default_factory=_empty)  # type: ignore[arg-type]
    thefts: tuple[PlayerId, ...] = ()  # players with a theft in front, in play order
    gold: Mapping[PlayerId, int] = field(default_factory=_empty)  # type: ignore[arg-type]
    nugget_pile: tuple[int, ...] = ()  # base: values, top first
    pending: Decision | None = None
    decisions_opened: int = 0
    reminders: frozenset[str] = frozenset()  # reminders given for the pending decision
    timeouts_in_a_row: Mapping[PlayerId, int] = field(default_factory=_empty)  # type: ignore[arg-type]
    away: frozenset[PlayerId] = frozenset()
    computers: frozenset[PlayerId] = frozenset()  # computer players' seats (negative ids)
    # Computer players' levels ("easy", "normal", "hard"); a seat not there plays normal.
    levels: Mapping[PlayerId, str] = field(default_factory=_empty)  # type: ignore[arg-type]
    computer_level: str = "normal"  # the lobby's level for computer players seated next
    # Human seats the computer plays now, and why: "left", "kicked" or "away".
    handed_over: Mapping[PlayerId, str] = field(default_factory=_empty)  # type: ignore[arg-type]
    known_goals: Mapping[PlayerId, Mapping[Cell, str]] = field(default_factory=_empty)  # type: ignore[arg-type]
    inspected: Mapping[PlayerId, Mapping[PlayerId, str]] = field(default_factory=_empty)  # type: ignore[arg-type]
    last_move: LastMove | None = None
    first_player: PlayerId | None = None  # of this round
    last_path_player: PlayerId | None = None  # this round
    last_card_player: PlayerId | None = None  # this round
    treasure_reached_by: PlayerId | None = None
    gold_pick_offer: tuple[int, ...] = ()  # base: nugget values still being passed round
    gold_pick_order: tuple[PlayerId, ...] = ()  # base: pickers still to pick, in order
    thieves_pending: tuple[PlayerId, ...] = ()  # saboteur2: thieves still to steal, in order
    round_results: tuple[RoundEnded, ...] = ()
    winners: tuple[PlayerId, ...] = ()  # of the game, once finished
    events_applied: int = 0

    def update(self, **changes: object) -> GameState:
        """A copy with ``changes``: :func:`dataclasses.replace`, minus its cost.

        ``evolve`` runs this for every event (twice per event while deciding), and
        ``replace`` re-runs ``__init__`` over every field; copying the instance dict is
        some 20 times cheaper. Field names are still checked.

        >>> GameState().update(round=2).round
        2
        """
        unknown = changes.keys() - _FIELDS
        if unknown:
            raise TypeError(f"GameState has no field {sorted(unknown)}")
        new = _NEW(GameState)
        fields = new.__dict__
        fields.update(self.__dict__)
        fields.update(changes)
        return new

    def has(self, variant: str) -> bool:
        """Whether the game plays the variant named ``variant`` (docs/rules.md §8)."""
        return variant in self.variants

    def role(self, player: PlayerId) -> Role:
        return self.roles[player]

    def hand(self, player: PlayerId) -> tuple[int, ...]:
        return self.hands.get(player, ())

    def front_of(self, player: PlayerId) -> tuple[str, ...]:
        return self.front.get(player, ())

    def is_player(self, player: PlayerId) -> bool:
        return player in self.names

    def is_computer(self, player: PlayerId) -> bool:
        """A computer player's seat: nobody reads its messages."""
        return player in self.computers

    def level_of(self, player: PlayerId) -> str:
        """How the computer plays ``player``'s seat: a computer player's level; a person's
        seat handed over is played at ``normal``.

        >>> GameState(levels={-1: "hard"}).level_of(-1), GameState().level_of(-2)
        ('hard', 'normal')
        """
        return self.levels.get(player, "normal")

    def computer_plays(self, player: PlayerId) -> bool:
        """Whether the computer makes this seat's decisions now: a computer player's seat,
        or a human's handed over (left, kicked, or away with the away setting "computer")."""
        return player in self.computers or player in self.handed_over

    def humans(self) -> tuple[PlayerId, ...]:
        """The seats of people, in seating order."""
        return tuple(p for p in self.seating if p not in self.computers)


_NEW: Final = object.__new__
_FIELDS: Final = frozenset(f.name for f in fields(GameState))
