"""Maze geometry: cells, tiles, fit, connectivity, goals, doors (docs/rules.md §1, §4).

A board is an immutable mapping ``Cell -> Tile``. Functions here never mutate a board;
:func:`with_tile` and :func:`without_tile` return new ones.

Connectivity is a search over ``(cell, segment index)`` nodes. Its result, and the
analysis of the empty cells around the maze that :func:`legal_placements` needs, are
remembered for the last few boards seen (by identity: boards are never mutated), so the
several calls a turn makes on one board pay for the search once.

>>> board = initial_board(("goal_stone_a", "goal_treasure", "goal_stone_b"))
>>> placement_error(board, "straight_ew", (1, 0), False) is None
True
>>> placement_error(board, "straight_ns", (1, 0), False)
'does_not_fit'
>>> board = with_tile(board, (1, 0), Tile("straight_ew", card=18))
>>> sorted(connected_segments(board))
[((0, 0), 0), ((1, 0), 0)]
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final

from domain.cards import PATHS, Door, E, N, PathSpec, S, W, rotate

Cell = tuple[int, int]
Node = tuple[Cell, int]
START_CELL: Final[Cell] = (0, 0)
GOAL_CELLS: Final[tuple[Cell, Cell, Cell]] = ((8, 2), (8, 0), (8, -2))
# The *middle treasure* variant (docs/rules.md §8): the middle goal one cell farther east.
MIDDLE_TREASURE_CELLS: Final[tuple[Cell, Cell, Cell]] = ((8, 2), (9, 0), (8, -2))

START_KIND: Final = "start"
TREASURE_KIND: Final = "goal_treasure"

# (side, dx, dy, the side facing back from the neighbour)
_STEPS: Final[tuple[tuple[int, int, int, int], ...]] = (
    (N, 0, 1, S),
    (E, 1, 0, W),
    (S, 0, -1, N),
    (W, -1, 0, E),
)

# Segments of every kind in both orientations, computed once: Tile.segments is hot.
_SEGMENTS: Final[dict[str, tuple[tuple[int, ...], tuple[int, ...]]]] = {
    kind: (spec.segments, tuple(rotate(s) for s in spec.segments)) for kind, spec in PATHS.items()
}
_OPENINGS: Final[dict[str, tuple[int, int]]] = {
    kind: (spec.openings, rotate(spec.openings)) for kind, spec in PATHS.items()
}
_LADDERS: Final[dict[str, bool]] = {kind: spec.ladder for kind, spec in PATHS.items()}


@dataclass(frozen=True, slots=True)
class Tile:
    """A card lying in the maze.

    ``kind`` names a :data:`domain.cards.PATHS` entry (start, goals, path cards);
    ``card`` is the deck id of a path card (None for start and goals); ``rotated`` is
    the 180° orientation; ``face_up`` is False only for unrevealed goals.

    >>> Tile("curve_se", rotated=True).segments == (N | W,)
    True
    """

    kind: str
    card: int | None = None
    rotated: bool = False
    face_up: bool = True

    @property
    def spec(self) -> PathSpec:
        return PATHS[self.kind]

    @property
    def is_goal(self) -> bool:
        return self.kind.startswith("goal_")

    @property
    def segments(self) -> tuple[int, ...]:
        """Openings of each segment, after rotation."""
        return _SEGMENTS[self.kind][self.rotated]

    @property
    def openings(self) -> int:
        return _OPENINGS[self.kind][self.rotated]


Board = Mapping[Cell, Tile]


def neighbour(cell: Cell, side: int) -> Cell:
    """The cell across edge ``side`` (N is y+1, E is x+1).

    >>> neighbour((0, 0), N), neighbour((0, 0), W)
    ((0, 1), (-1, 0))
    """
    x, y = cell
    for step, dx, dy, _ in _STEPS:
        if step == side:
            return (x + dx, y + dy)
    raise ValueError(f"not a side: {side}")


def side_towards(cell: Cell, other: Cell) -> int | None:
    """The edge of ``cell`` shared with ``other``, or None when they are not neighbours."""
    dx, dy = other[0] - cell[0], other[1] - cell[1]
    for side, sx, sy, _ in _STEPS:
        if (sx, sy) == (dx, dy):
            return side
    return None


def goal_cells(variants: tuple[str, ...] = ()) -> tuple[Cell, Cell, Cell]:
    """Where the three goals lie, top to bottom: :data:`GOAL_CELLS`, or with the *middle
    treasure* variant (docs/rules.md §8) :data:`MIDDLE_TREASURE_CELLS`.

    >>> goal_cells(("middle_treasure",))[1]
    (9, 0)
    """
    return MIDDLE_TREASURE_CELLS if "middle_treasure" in variants else GOAL_CELLS


def goals_on(board: Mapping[Cell, Tile]) -> tuple[Cell, ...]:
    """The cells of the goal cards on ``board`` (face up or down), top to bottom.

    >>> goals_on(initial_board(("goal_stone_a", "goal_treasure", "goal_stone_b")))
    ((8, 2), (8, 0), (8, -2))
    """
    return tuple(sorted((c for c, t in board.items() if t.is_goal), key=lambda c: -c[1]))


def initial_board(
    goal_kinds: tuple[str, str, str], cells: tuple[Cell, Cell, Cell] = GOAL_CELLS
) -> Board:
    """Start at (0, 0) and the three goals face down at ``cells`` (:data:`GOAL_CELLS`
    unless a variant moves them) in the given order."""
    cells_of: dict[Cell, Tile] = {START_CELL: Tile(START_KIND)}
    for cell, kind in zip(cells, goal_kinds, strict=True):
        cells_of[cell] = Tile(kind, face_up=False)
    return MappingProxyType(cells_of)


def with_tile(board: Board, cell: Cell, tile: Tile) -> Board:
    """A new board with ``tile`` at ``cell`` (replacing what lay there)."""
    cells = dict(board)
    cells[cell] = tile
    return MappingProxyType(cells)


def without_tile(board: Board, cell: Cell) -> Board:
    """A new board without the card at ``cell`` (rockfall)."""
    cells = dict(board)
    cells.pop(cell, None)
    return MappingProxyType(cells)


def _reach(
    segments: Mapping[Cell, tuple[int, ...]], seeds: list[Node], blocked: frozenset[Node]
) -> set[Node]:
    """Every node joined to ``seeds`` through face-up ``segments``, never entering ``blocked``."""
    seen: set[Node] = set(seeds)
    stack = list(seeds)
    get = segments.get
    while stack:
        node = stack.pop()
        cell = node[0]
        segment = segments[cell][node[1]]
        x, y = cell
        for side, dx, dy, back in _STEPS:
            if segment & side:
                there = (x + dx, y + dy)
                theirs = get(there)
                if theirs is None:
                    continue
                for j, other in enumerate(theirs):
                    if other & back:
                        found = (there, j)
                        if found not in seen and found not in blocked:
                            seen.add(found)
                            stack.append(found)
                        break  # an opening belongs to one segment only
    return seen


# Per empty cell next to the maze: sides with a face-up neighbour, sides where that
# neighbour is open, sides where it is open on a connected segment, sides with a goal
# (face up or down), sides with a card that is not a goal.
_Masks = tuple[int, int, int, int, int]


class _Analysis:
    """What every question about one board starts from, worked out once."""

    __slots__ = ("_frontier", "_listed", "board", "connected", "live", "seeds", "segments")

    def __init__(self, board: Board) -> None:
        self.board = board
        self.segments: dict[Cell, tuple[int, ...]] = {}
        self.seeds: list[Node] = []
        has_start = False
        for cell, tile in board.items():
            if not tile.face_up:
                continue  # a face-down goal is not part of the graph
            kind = tile.kind
            segments = _SEGMENTS[kind][tile.rotated]
            self.segments[cell] = segments
            has_start = has_start or kind == START_KIND
            # The ladder network: the start and every ladder segment are one node.
            if _LADDERS[kind]:
                self.seeds.extend((cell, i) for i in range(len(segments)))
        if not has_start:
            self.seeds = []
        reached = _reach(self.segments, self.seeds, frozenset())
        self.connected = frozenset(reached)
        self.live: dict[Cell, int] = {}
        for cell, index in reached:
            self.live[cell] = self.live.get(cell, 0) | self.segments[cell][index]
        self._frontier: dict[Cell, _Masks] | None = None
        self._listed: dict[tuple[int, int, bool], tuple[tuple[Cell, bool], ...]] = {}

    @property
    def frontier(self) -> dict[Cell, _Masks]:
        if self._frontier is None:
            self._frontier = self._scan()
        return self._frontier

    def _scan(self) -> dict[Cell, _Masks]:
        live = self.live
        # cell -> (face up, openings, openings on connected segments, is a goal)
        near: dict[Cell, tuple[int, int, int, bool]] = {}
        for cell, tile in self.board.items():
            kind = tile.kind
            if tile.face_up:
                openings = _OPENINGS[kind][tile.rotated]
                near[cell] = (15, openings, live.get(cell, 0), kind.startswith("goal_"))
            else:
                near[cell] = (0, 0, 0, True)
        empty: set[Cell] = set()
        for x, y in near:
            empty.update(((x, y + 1), (x + 1, y), (x, y - 1), (x - 1, y)))
        empty.difference_update(near)
        get = near.get
        frontier: dict[Cell, _Masks] = {}
        for cell in sorted(empty):
            x, y = cell
            face_up = open_ = joined = goals = others = 0
            for side, dx, dy, back in _STEPS:
                found = get((x + dx, y + dy))
                if found is None:
                    continue
                up, openings, connected, goal = found
                face_up |= side & up
                if openings & back:
                    open_ |= side
                    if connected & back:
                        joined |= side
                if goal:
                    goals |= side
                else:
                    others |= side
            frontier[cell] = (face_up, open_, joined, goals, others)
        return frontier

    def placements(self, printed: int, turned: int, ladder: bool) -> tuple[tuple[Cell, bool], ...]:
        key = (printed, turned, ladder)
        listed = self._listed.get(key)
        if listed is None:
            found: list[tuple[Cell, bool]] = []
            for cell, (face_up, open_, joined, goals, others) in self.frontier.items():
                if ladder:
                    if goals or not others:
                        continue
                    if printed & face_up == open_:
                        found.append((cell, False))
                    if turned & face_up == open_:
                        found.append((cell, True))
                else:
                    if printed & face_up == open_ and printed & joined:
                        found.append((cell, False))
                    if turned & face_up == open_ and turned & joined:
                        found.append((cell, True))
            listed = self._listed[key] = tuple(found)
        return listed


_CACHE_SIZE: Final = 16
_cache: dict[int, tuple[Board, _Analysis]] = {}


def _analysis(board: Board) -> _Analysis:
    if not isinstance(board, MappingProxyType):
        return _Analysis(board)  # a plain dict may change under us: never remember it
    hit = _cache.get(id(board))
    if hit is not None and hit[0] is board:
        return hit[1]
    found = _Analysis(board)
    if len(_cache) >= _CACHE_SIZE:
        _cache.clear()  # atomic, unlike evicting one entry, when threads share the cache
    # The entry holds the board itself, so its id cannot be reused while remembered.
    _cache[id(board)] = (board, found)
    return found


def connected_segments(board: Board) -> frozenset[tuple[Cell, int]]:
    """(cell, segment index) of every segment joined to the start (§4.2)."""
    return _analysis(board).connected


def _check(masks: tuple[int, int, int, int, int], openings: int, ladder: bool) -> str | None:
    face_up, open_, live, goals, others = masks
    if openings & face_up != open_:
        return "does_not_fit"
    if ladder:
        if not others:
            return "ladder_needs_path"
        if goals:
            return "ladder_touches_goal"
    elif not openings & live:
        return "not_connected"
    return None


def placement_error(board: Board, kind: str, cell: Cell, rotated: bool) -> str | None:
    """Why placing path card ``kind`` at ``cell`` is illegal (§4.1 rules 2–5), or None.

    Reason codes: "occupied", "not_adjacent", "does_not_fit", "not_connected",
    "ladder_needs_path", "ladder_touches_goal".

    A ladder "touches a path card" when it shares an edge with any card that is not a
    goal; the start counts as a path card (it is one of the 44 base path cards, §2.1).
    """
    if cell in board:
        return "occupied"
    masks = _analysis(board).frontier.get(cell)
    if masks is None:
        return "not_adjacent"
    return _check(masks, _OPENINGS[kind][rotated], PATHS[kind].ladder)


def legal_placements(board: Board, kind: str) -> list[tuple[Cell, bool]]:
    """Every (cell, rotated) where ``kind`` may be placed; sorted, no duplicates.

    Both orientations are listed even when they look alike (a cross): each is a move
    :func:`placement_error` accepts.
    """
    printed, turned = _OPENINGS[kind]
    return list(_analysis(board).placements(printed, turned, PATHS[kind].ladder))


def reached_goals(board: Board) -> list[Cell]:
    """Face-down goals sharing an edge with a connected segment's opening (§4.3)."""
    live = _analysis(board).live
    reached: list[Cell] = []
    for cell, tile in board.items():
        if tile.face_up:
            continue
        x, y = cell
        if any(live.get((x + dx, y + dy), 0) & back for _, dx, dy, back in _STEPS):
            reached.append(cell)
    return sorted(reached)


def _fits(board: Board, cell: Cell, openings: int) -> bool:
    x, y = cell
    for side, dx, dy, back in _STEPS:
        other = board.get((x + dx, y + dy))
        if (
            other is not None
            and other.face_up
            and bool(openings & side) != bool(other.openings & back)
        ):
            return False
    return True


def reveal(board: Board, goal: Cell, reached_from: Cell) -> Board:
    """Turn a reached goal face up, oriented as §4.3 says.

    Its opening faces ``reached_from`` when either orientation allows it (the one that
    also fits its other neighbours first, as printed first); otherwise it lies as printed.
    """
    tile = board[goal]
    side = side_towards(goal, reached_from)
    choices = [
        rotated
        for rotated in (False, True)
        if side is not None and _OPENINGS[tile.kind][rotated] & side
    ]
    fitting = [r for r in choices if _fits(board, goal, _OPENINGS[tile.kind][r])]
    rotated = (fitting or choices or [False])[0]
    return with_tile(board, goal, Tile(tile.kind, tile.card, rotated, face_up=True))


def can_remove(board: Board, cell: Cell) -> bool:
    """Rockfall target: a path card on the table, not start, not a goal."""
    tile = board.get(cell)
    return tile is not None and tile.kind != START_KIND and not tile.is_goal


def teams_can_pass(board: Board) -> tuple[bool, bool]:
    """(blue can pass, green can pass) from start to the treasure (§4.4).

    Blue passes along a path through no green door, green along one through no blue
    door. A treasure face down or not joined to the start lets nobody pass.
    """
    found = _analysis(board)
    treasure = next((c for c, t in board.items() if t.kind == TREASURE_KIND and t.face_up), None)
    if treasure is None or treasure not in found.live:
        return (False, False)

    def passes(door: Door) -> bool:
        blocked = frozenset(
            (cell, tile.spec.door_segment)
            for cell, tile in board.items()
            if tile.face_up and tile.spec.door is door
        )
        if not blocked:
            return True
        reached = _reach(found.segments, found.seeds, blocked)
        return any(cell == treasure for cell, _ in reached)

    return (passes(Door.GREEN), passes(Door.BLUE))


def crystals(board: Board) -> int:
    """Crystals visible on all cards on the table."""
    return sum(tile.spec.crystals for tile in board.values() if tile.face_up)


def frozen(cells: dict[Cell, Tile]) -> Board:
    return MappingProxyType(cells)


def cells(board: Board) -> Iterator[Cell]:
    return iter(sorted(board))
