"""How far the tunnel is from each goal, and what a card placed or removed would change.

For every goal still face down, a breadth-first search over the empty cells around the
maze counts the fewest cards that would join an open end of the network to that goal
(cards and face-down goals are in the way; the shapes a cell would need are not checked).
With a door colour to avoid, the network is the part a team can pass (docs/rules.md §4.4).
A placement is judged from those fields at once: the open ends it closes, the ones it
opens, and the goals it reaches. That is an estimate (a card also lengthens the way round
itself), so :meth:`Maze.after` recomputes the few placements worth a closer look.

>>> from domain.board import initial_board
>>> maze = Maze(initial_board(("goal_stone_a", "goal_treasure", "goal_stone_b")))
>>> maze.distance[(8, 0)], maze.distance[(8, 2)]
(7, 9)
>>> maze.placement("straight_ew", (1, 0), False).distance[(8, 0)]
6
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Final

from domain import board as geo
from domain.cards import PATHS, Door, E, N, S, W, rotate
from domain.strategy.memory import CAP, live_openings

Cell = geo.Cell

TREASURE: Final = "goal_treasure"


def _faced(board: geo.Board, cell: Cell, mask: int, empty: set[Cell], goals: set[Cell]) -> None:
    """Sort the cells the openings ``mask`` of ``cell`` face: empty ones into ``empty``,
    face-down goals (which such an opening reaches) into ``goals``."""
    x, y = cell
    for side, dx, dy in _STEPS:
        if mask & side:
            there = (x + dx, y + dy)
            tile = board.get(there)
            if tile is None:
                empty.add(there)
            elif not tile.face_up:
                goals.add(there)


def _inside(grid: _Grid, cell: Cell) -> bool:
    return grid.low_x <= cell[0] <= grid.high_x and grid.low_y <= cell[1] <= grid.high_y


STONES: Final = ("goal_stone_a", "goal_stone_b")
_NONE: Final[Mapping[Cell, str]] = {}
_STEPS: Final = ((N, 0, 1), (E, 1, 0), (S, 0, -1), (W, -1, 0))
MARGIN: Final = 2  # empty rows and columns searched around the maze
# How much a second open end as near as the first counts: the soft distance to a goal is
# -SOFT * ln(sum over the open ends of exp(-distance / SOFT)), so two ends one card away
# are SOFT * ln 2 nearer than one. Closing one of two ways in is a setback the diggers'
# next turns feel (they need a card that fits the one left), though the nearest end stays.
SOFT: Final = 0.5


def _weight(d: float) -> float:
    return math.exp(-d / SOFT) if d < CAP else 0.0


def soft(weights: float) -> float:
    """The soft distance of a goal whose open ends weigh ``weights`` in all."""
    return -SOFT * math.log(weights) if weights > _FLOOR else float(CAP)


_FLOOR: Final = math.exp(-CAP / SOFT)


def _weights(found: Field, ends: Iterable[Cell]) -> float:
    return sum(_weight(found.get(end, CAP)) for end in ends)


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a move leaves: the distance to each face-down goal (0: reached now)."""

    distance: Mapping[Cell, float]
    reached: tuple[Cell, ...]  # face-down goals the move reaches
    ends: int  # open ends left: the more, the harder the tunnel is to block
    soft: Mapping[Cell, float]  # the soft distance to each face-down goal (0: reached now)


class Maze:
    """The board from one seat: its open ends and the distance fields of the goals."""

    __slots__ = (
        "_best",
        "_ends",
        "_weights",
        "avoid",
        "board",
        "distance",
        "fields",
        "goals",
        "live",
        "reached",
        "soft",
    )

    def __init__(self, board: geo.Board, avoid: Door | None = None) -> None:
        self.board = board
        self.avoid = avoid
        self.goals = tuple(c for c in geo.goals_on(board) if not board[c].face_up)
        self.live = live_openings(board, avoid)
        # Empty cells faced by a connected opening (the open ends), with the goals they reach.
        ends: set[Cell] = set()
        reached: set[Cell] = set()
        for cell, mask in self.live.items():
            _faced(board, cell, mask, ends, reached)
        self._ends = ends
        # Face-down goals an open end touches: on a real board they were turned at once.
        self.reached = tuple(sorted(reached))
        # Only the open ends and the cells beside them are ever asked about.
        wanted = set(ends)
        for x, y in ends:
            wanted.update(((x, y + 1), (x + 1, y), (x, y - 1), (x - 1, y)))
        grid = _Grid(board)
        indexes = [grid.index(c) for c in wanted if c not in board and _inside(grid, c)]
        self.fields = {goal: grid.field(goal, indexes) for goal in self.goals}
        self._best: dict[Cell, tuple[int, Cell | None, int]] = {}
        self.distance: dict[Cell, int] = {}
        self._weights = {goal: _weights(found, ends) for goal, found in self.fields.items()}
        self.soft = {goal: soft(w) for goal, w in self._weights.items()}
        for goal, found in self.fields.items():
            first, where, second = CAP, None, CAP
            for end in ends:
                d = found.get(end, CAP)
                if d < first:
                    first, where, second = d, end, first
                elif d < second:
                    second = d
            self._best[goal] = (first, where, second)
            self.distance[goal] = first

    @property
    def ends(self) -> frozenset[Cell]:
        return frozenset(self._ends)

    def placement(self, kind: str, cell: Cell, rotated: bool) -> Outcome:
        """The estimated outcome of placing ``kind`` at ``cell`` (a legal placement)."""
        board = self.board
        live = self.live
        spec = PATHS[kind]
        segments = geo.Tile(kind, None, rotated).segments
        ladder = spec.ladder
        x, y = cell
        opened: set[Cell] = set()
        reached: set[Cell] = set()
        for index, segment in enumerate(segments):
            if spec.door is not None and spec.door is self.avoid and index == spec.door_segment:
                continue  # a door this maze's team cannot pass
            joined = ladder
            if not joined:
                for side, dx, dy in _STEPS:
                    if segment & side and live.get((x + dx, y + dy), 0) & rotate(side):
                        joined = True
                        break
            if joined:
                _faced(board, cell, segment, opened, reached)
        distance: dict[Cell, float] = {}
        softened: dict[Cell, float] = {}
        new = opened.difference(self._ends)
        for goal, found in self.fields.items():
            if goal in reached:
                distance[goal] = softened[goal] = 0
                continue
            first, where, second = self._best[goal]
            best = second if where == cell else first
            weights = self._weights[goal]
            if cell in self._ends:
                weights -= _weight(found.get(cell, CAP))
            for there in new:
                d = found.get(there, CAP)
                weights += _weight(d)
                if d < best:
                    best = d
            distance[goal] = best
            softened[goal] = min(soft(weights), best)
        ends = len(self._ends.union(opened)) - (cell in self._ends)
        return Outcome(distance, tuple(sorted(reached)), ends, softened)

    def after(
        self, board: geo.Board, placed: Cell | None = None, kinds: Mapping[Cell, str] = _NONE
    ) -> Outcome:
        """The exact outcome of a move that leaves ``board`` (a card ``placed`` there).

        A goal the move reaches is turned as the rules turn it when it is a stone: as
        ``kinds`` says (what the seat's maps showed), else either stone, half and half.
        The treasure itself is left to the caller (its distance is 0).
        """
        maze = Maze(board, self.avoid)
        reached = maze.reached
        distance: dict[Cell, float] = {g: 0.0 for g in reached}
        softened: dict[Cell, float] = dict(distance)
        stones = [g for g in reached if kinds.get(g) != TREASURE]
        if placed is None or not stones:
            for goal in self.goals:
                distance.setdefault(goal, maze.distance.get(goal, CAP))
                softened.setdefault(goal, maze.soft.get(goal, CAP))
            return Outcome(distance, reached, len(maze._ends), softened)
        # Each stone turned opens the maze on; average over what the unknown ones are.
        options: list[geo.Board] = [board]
        for goal in stones:
            known = kinds.get(goal)
            shapes = (known,) if known else STONES
            options = [
                geo.reveal(
                    geo.with_tile(b, goal, geo.Tile(shape, None, False, False)), goal, placed
                )
                for b in options
                for shape in shapes
            ]
        mazes = [Maze(b, self.avoid) for b in options]
        for goal in self.goals:
            if goal not in distance:
                distance[goal] = sum(m.distance.get(goal, CAP) for m in mazes) / len(mazes)
                softened[goal] = sum(m.soft.get(goal, CAP) for m in mazes) / len(mazes)
        return Outcome(distance, reached, len(maze._ends), softened)


class Field:
    """The distances of one goal's search, on the grid around the maze."""

    __slots__ = ("_dist", "_high_x", "_high_y", "_low_x", "_low_y", "_width")

    def __init__(self, grid: _Grid, dist: list[int]) -> None:
        self._low_x, self._low_y = grid.low_x, grid.low_y
        self._high_x, self._high_y = grid.high_x, grid.high_y
        self._width = grid.width
        self._dist = dist

    def get(self, cell: Cell, default: int = CAP) -> int:
        x, y = cell
        if not (self._low_x <= x <= self._high_x and self._low_y <= y <= self._high_y):
            return default
        found = self._dist[(x - self._low_x + 1) + (y - self._low_y + 1) * self._width]
        return found if found < CAP else default


class _Grid:
    """The cells around the maze as one list, bordered by a wall: searching it is a walk
    over indexes rather than over tuples."""

    __slots__ = ("free", "high_x", "high_y", "low_x", "low_y", "width")

    def __init__(self, board: geo.Board) -> None:
        xs = [c[0] for c in board]
        ys = [c[1] for c in board]
        self.low_x, self.high_x = min(xs) - MARGIN, max(xs) + MARGIN
        self.low_y, self.high_y = min(ys) - MARGIN, max(ys) + MARGIN
        self.width = self.high_x - self.low_x + 3
        height = self.high_y - self.low_y + 3
        free = bytearray(self.width * height)
        for y in range(1, height - 1):
            row = y * self.width
            free[row + 1 : row + self.width - 1] = b"\x01" * (self.width - 2)
        for cell in board:
            free[self.index(cell)] = 0
        self.free = free

    def index(self, cell: Cell) -> int:
        return (cell[0] - self.low_x + 1) + (cell[1] - self.low_y + 1) * self.width

    def field(self, goal: Cell, wanted: list[int]) -> Field:
        """The fewest cards, that one included, from each empty cell to a cell beside
        ``goal`` (1 beside the goal). The search stops once every ``wanted`` index is
        found: cells further out are left at the cap (they are at least that far)."""
        free = self.free
        width = self.width
        dist = [CAP] * len(free)
        at = self.index(goal)
        layer = [i for i in (at + 1, at - 1, at + width, at - width) if free[i]]
        for i in layer:
            dist[i] = 1
        left = set(wanted).difference(layer)
        depth = 1
        while layer and left and depth < CAP:
            depth += 1
            following: list[int] = []
            for i in layer:
                for j in (i + 1, i - 1, i + width, i - width):
                    if free[j] and dist[j] == CAP:
                        dist[j] = depth
                        following.append(j)
            layer = following
            left.difference_update(following)
        return Field(self, dist)
