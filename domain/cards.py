"""The card catalog of Saboteur and Saboteur 2, as data (docs/rules.md §2).

Edges are bit masks: ``N | E`` is a card open to the north and east. A path card's
``segments`` are the groups of openings joined inside the card; a dead end has one
segment per opening. Everything is given as printed (orientation 0); a card turned
180° swaps N↔S and E↔W (:func:`rotate`).

Provenance: base cards and counts from the base rulebook; Saboteur 2 bridges, double
curves, ladders and doors by count from its rulebooks; the remaining Saboteur 2 shapes
from a photo of the complete expansion, as docs/rules.md §2.4 records. A correction is a
one-line change to a table below.

>>> PATHS["cross"].openings == N | E | S | W
True
>>> len(deck("base")), len(deck("saboteur2"))
(67, 118)
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Final, Literal

N: Final = 1
E: Final = 2
S: Final = 4
W: Final = 8
SIDES: Final = (N, E, S, W)
SIDE_NAMES: Final = {N: "N", E: "E", S: "S", W: "W"}

Edition = Literal["base", "saboteur2"]
EDITIONS: Final[tuple[Edition, ...]] = ("base", "saboteur2")


def rotate(mask: int) -> int:
    """Turn an edge mask 180°: N↔S, E↔W.

    >>> rotate(N | E) == S | W
    True
    """
    return ((mask << 2) | (mask >> 2)) & 0xF


def opposite(side: int) -> int:
    """The edge that faces ``side`` on the neighbouring card."""
    return rotate(side)


class Door(Enum):
    BLUE = "blue"
    GREEN = "green"


@dataclass(frozen=True, slots=True)
class PathSpec:
    """One kind of path card (or the start, or a goal), as printed."""

    kind: str
    segments: tuple[int, ...]
    ladder: bool = False
    door: Door | None = None
    door_segment: int = 0
    crystals: int = 0

    @property
    def openings(self) -> int:
        mask = 0
        for segment in self.segments:
            mask |= segment
        return mask

    @property
    def is_dead_end(self) -> bool:
        return all(bin(s).count("1") == 1 for s in self.segments) and len(self.segments) > 1


class Action(Enum):
    """Action card kinds; the value is the stable name used in events and catalogs."""

    BROKEN_PICKAXE = "broken_pickaxe"
    BROKEN_LANTERN = "broken_lantern"
    BROKEN_CART = "broken_cart"
    REPAIR_PICKAXE = "repair_pickaxe"
    REPAIR_LANTERN = "repair_lantern"
    REPAIR_CART = "repair_cart"
    REPAIR_PICKAXE_LANTERN = "repair_pickaxe_lantern"
    REPAIR_PICKAXE_CART = "repair_pickaxe_cart"
    REPAIR_CART_LANTERN = "repair_cart_lantern"
    ROCKFALL = "rockfall"
    MAP = "map"
    THEFT = "theft"
    HANDS_OFF = "hands_off"
    SWAP_HAND = "swap_hand"
    INSPECTION = "inspection"
    SWAP_HATS = "swap_hats"
    TRAPPED = "trapped"
    FREE_AT_LAST = "free_at_last"


class Tool(Enum):
    PICKAXE = "pickaxe"
    LANTERN = "lantern"
    CART = "cart"


BREAKS: Final[dict[Action, Tool]] = {
    Action.BROKEN_PICKAXE: Tool.PICKAXE,
    Action.BROKEN_LANTERN: Tool.LANTERN,
    Action.BROKEN_CART: Tool.CART,
}
REPAIRS: Final[dict[Action, frozenset[Tool]]] = {
    Action.REPAIR_PICKAXE: frozenset({Tool.PICKAXE}),
    Action.REPAIR_LANTERN: frozenset({Tool.LANTERN}),
    Action.REPAIR_CART: frozenset({Tool.CART}),
    Action.REPAIR_PICKAXE_LANTERN: frozenset({Tool.PICKAXE, Tool.LANTERN}),
    Action.REPAIR_PICKAXE_CART: frozenset({Tool.PICKAXE, Tool.CART}),
    Action.REPAIR_CART_LANTERN: frozenset({Tool.CART, Tool.LANTERN}),
}


class Variant(Enum):
    """The base edition's variants, lobby settings (docs/rules.md §8); the value is the
    stable name in the game's creation and settings events."""

    MAXIMUM_SABOTEURS = "maximum_saboteurs"
    SABOTEURS_KNOW_EACH_OTHER = "saboteurs_know_each_other"
    GREEDY_DWARF = "greedy_dwarf"
    MIDDLE_TREASURE = "middle_treasure"
    SELFISH_DWARF = "selfish_dwarf"


#: Every variant's name, in the order they are listed and stored.
VARIANTS: Final[tuple[str, ...]] = tuple(v.value for v in Variant)
#: The editions a variant may be played in.
VARIANT_EDITIONS: Final[tuple[Edition, ...]] = ("base",)


def variants_in_order(names: tuple[str, ...] | list[str] | frozenset[str]) -> tuple[str, ...]:
    """``names`` as stored: each once, in :data:`VARIANTS` order (unknown names dropped).

    >>> variants_in_order(["selfish_dwarf", "greedy_dwarf", "selfish_dwarf"])
    ('greedy_dwarf', 'selfish_dwarf')
    """
    return tuple(v for v in VARIANTS if v in names)


class Role(Enum):
    """Dwarf cards; the value is the stable name used in events and catalogs."""

    GOLD_DIGGER = "gold_digger"
    SABOTEUR = "saboteur"
    BLUE_DIGGER = "blue_digger"
    GREEN_DIGGER = "green_digger"
    BOSS = "boss"
    PROFITEER = "profiteer"
    GEOLOGIST = "geologist"
    # The selfish dwarf variant's extra gold-digger (docs/rules.md §8): a gold-digger for
    # every rule but the treasure's gold.
    SELFISH_DWARF = "selfish_dwarf"


def _path(kind: str, *segments: int, **extra: object) -> PathSpec:
    return PathSpec(kind, tuple(segments), **extra)  # type: ignore[arg-type]


START: Final = _path("start", N | E | S | W, ladder=True)
GOAL_TREASURE: Final = _path("goal_treasure", N | E | S | W)
GOAL_STONE_A: Final = _path("goal_stone_a", S | W)
GOAL_STONE_B: Final = _path("goal_stone_b", N | W)
GOALS: Final = (GOAL_TREASURE, GOAL_STONE_A, GOAL_STONE_B)

# (spec, copies) — base path cards in the deck (docs/rules.md §2.1): 40.
BASE_PATHS: Final[tuple[tuple[PathSpec, int], ...]] = (
    (_path("cross", N | E | S | W), 5),
    (_path("t_nse", N | E | S), 5),
    (_path("t_esw", E | S | W), 5),
    (_path("straight_ns", N | S), 4),
    (_path("straight_ew", E | W), 3),
    (_path("curve_se", E | S), 4),
    (_path("curve_sw", S | W), 5),
    (_path("dead_cross", N, E, S, W), 1),
    (_path("dead_t_nse", N, E, S), 1),
    (_path("dead_t_esw", E, S, W), 1),
    (_path("dead_straight_ns", N, S), 1),
    (_path("dead_straight_ew", E, W), 1),
    (_path("dead_curve_se", E, S), 1),
    (_path("dead_curve_sw", S, W), 1),
    (_path("dead_stub_n", N), 1),
    (_path("dead_stub_e", E), 1),
)

# Saboteur 2 path cards (docs/rules.md §2.4): 30, 10 crystals.
EXPANSION_PATHS: Final[tuple[tuple[PathSpec, int], ...]] = (
    (_path("bridge", N | S, E | W), 2),
    (_path("double_curve_a", N | W, E | S), 1),
    (_path("double_curve_b", N | E, S | W), 1),
    (_path("ladder_stub_n", N, ladder=True), 1),
    (_path("ladder_stub_w", W, ladder=True), 1),
    (_path("ladder_curve_wn", N | W, ladder=True), 1),
    (_path("ladder_curve_ws", S | W, ladder=True), 1),
    (_path("blue_door_ns", N | S, door=Door.BLUE), 1),
    (_path("blue_door_ew", E | W, door=Door.BLUE), 1),
    (_path("blue_door_ws", S | W, door=Door.BLUE), 1),
    (_path("green_door_ns_w", N | S, W, door=Door.GREEN), 1),
    (_path("green_door_ew", E | W, door=Door.GREEN), 1),
    (_path("green_door_wn", N | W, door=Door.GREEN), 1),
    (_path("crystal_cross", N | E | S | W, crystals=1), 1),
    (_path("crystal_t_wne", N | E | W, crystals=1), 3),
    (_path("crystal_t_nes", N | E | S, crystals=1), 1),
    (_path("crystal_t_nes_w", N | E | S, W, crystals=1), 1),
    (_path("crystal_t_wne_s", N | E | W, S, crystals=1), 1),
    (_path("crystal_straight_ew_n", E | W, N, crystals=1), 1),
    (_path("crystal_stub_n", N, crystals=1), 1),
    (_path("crystal_stub_w", W, crystals=1), 1),
    (_path("straight_ns_e", N | S, E), 1),
    (_path("straight_ns_we", N | S, W, E), 1),
    (_path("straight_ew_ns", E | W, N, S), 1),
    (_path("curve_es_n", E | S, N), 2),
    (_path("curve_sw_n", S | W, N), 1),
)

BASE_ACTIONS: Final[tuple[tuple[Action, int], ...]] = (
    (Action.BROKEN_PICKAXE, 3),
    (Action.BROKEN_LANTERN, 3),
    (Action.BROKEN_CART, 3),
    (Action.REPAIR_PICKAXE, 2),
    (Action.REPAIR_LANTERN, 2),
    (Action.REPAIR_CART, 2),
    (Action.REPAIR_PICKAXE_LANTERN, 1),
    (Action.REPAIR_PICKAXE_CART, 1),
    (Action.REPAIR_CART_LANTERN, 1),
    (Action.ROCKFALL, 3),
    (Action.MAP, 6),
)

EXPANSION_ACTIONS: Final[tuple[tuple[Action, int], ...]] = (
    (Action.THEFT, 4),
    (Action.HANDS_OFF, 3),
    (Action.SWAP_HAND, 2),
    (Action.INSPECTION, 2),
    (Action.SWAP_HATS, 2),
    (Action.TRAPPED, 3),
    (Action.FREE_AT_LAST, 4),
    (Action.ROCKFALL, 1),
)

PATHS: Final[dict[str, PathSpec]] = {
    spec.kind: spec for spec, _ in (*BASE_PATHS, *EXPANSION_PATHS)
} | {spec.kind: spec for spec in (START, *GOALS)}

# Base dwarves by player count (docs/rules.md §2.3): saboteurs, gold-diggers, hand size.
BASE_DWARVES: Final[dict[int, tuple[int, int, int]]] = {
    3: (1, 3, 6),
    4: (1, 4, 6),
    5: (2, 4, 6),
    6: (2, 5, 5),
    7: (3, 5, 5),
    8: (3, 6, 4),
    9: (3, 7, 4),
    10: (4, 7, 4),
}
EXPANSION_DWARVES: Final[tuple[tuple[Role, int], ...]] = (
    (Role.BLUE_DIGGER, 4),
    (Role.GREEN_DIGGER, 4),
    (Role.BOSS, 1),
    (Role.PROFITEER, 1),
    (Role.GEOLOGIST, 2),
    (Role.SABOTEUR, 3),
)
PLAYER_LIMITS: Final[dict[Edition, tuple[int, int]]] = {"base": (3, 10), "saboteur2": (2, 12)}
EXPANSION_HAND_SIZE: Final = 6
EXPANSION_SET_ASIDE: Final = 10

# Gold nugget cards (base): value -> copies. 28 cards, 44 gold.
NUGGETS: Final[tuple[tuple[int, int], ...]] = ((1, 16), (2, 8), (3, 4))


@dataclass(frozen=True, slots=True)
class Card:
    """One physical card of a deck. ``id`` is its index in :func:`deck`."""

    id: int
    kind: str
    path: PathSpec | None
    action: Action | None

    @property
    def is_path(self) -> bool:
        return self.path is not None


def _build(edition: Edition) -> tuple[Card, ...]:
    paths = BASE_PATHS + (EXPANSION_PATHS if edition == "saboteur2" else ())
    actions = BASE_ACTIONS + (EXPANSION_ACTIONS if edition == "saboteur2" else ())
    cards: list[Card] = []
    for spec, copies in paths:
        for _ in range(copies):
            cards.append(Card(len(cards), spec.kind, spec, None))
    for action, copies in actions:
        for _ in range(copies):
            cards.append(Card(len(cards), action.value, None, action))
    return tuple(cards)


_DECKS: Final[dict[Edition, tuple[Card, ...]]] = {e: _build(e) for e in EDITIONS}


def deck(edition: Edition) -> tuple[Card, ...]:
    """Every path and action card of an edition, in catalog order; a card's id is its index."""
    return _DECKS[edition]


def card(edition: Edition, card_id: int) -> Card:
    return _DECKS[edition][card_id]


def dwarf_cards(edition: Edition, players: int, variants: tuple[str, ...] = ()) -> tuple[Role, ...]:
    """The dwarf cards shuffled for a round, before shuffling (docs/rules.md §2.3, §2.6),
    with the base edition's variants (§8): *maximum saboteurs* takes one gold-digger out
    (no spare: every saboteur is dealt), *selfish dwarf* adds his card.

    >>> [r.value for r in dwarf_cards("base", 4, ("maximum_saboteurs", "selfish_dwarf"))]
    ['saboteur', 'gold_digger', 'gold_digger', 'gold_digger', 'selfish_dwarf']
    """
    if edition == "base":
        saboteurs, diggers, _ = BASE_DWARVES[players]
        if Variant.MAXIMUM_SABOTEURS.value in variants:
            diggers -= 1
        selfish = (Role.SELFISH_DWARF,) if Variant.SELFISH_DWARF.value in variants else ()
        return (Role.SABOTEUR,) * saboteurs + (Role.GOLD_DIGGER,) * diggers + selfish
    return tuple(role for role, copies in EXPANSION_DWARVES for _ in range(copies))


def is_gold_digger(role: Role) -> bool:
    """A base gold-digger: the selfish dwarf is one too, for every rule but the treasure's
    gold (docs/rules.md §8)."""
    return role is Role.GOLD_DIGGER or role is Role.SELFISH_DWARF


def hand_size(edition: Edition, players: int) -> int:
    if edition == "base":
        return BASE_DWARVES[players][2]
    return EXPANSION_HAND_SIZE


def nugget_cards() -> tuple[int, ...]:
    """Values of the 28 gold nugget cards, in catalog order."""
    return tuple(value for value, copies in NUGGETS for _ in range(copies))
