"""How far the tunnel is from each goal, and what a card placed or removed would change.

For every goal still face down, a breadth-first search over the empty cells around the
maze counts the fewest cards that would join an open end of the network to that goal
(cards and face-down goals are in the way; the shapes a cell would need are not checked).
With a door colour to avoid, the network is the part a team can pass (RULES.md §4.4).
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

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from domain import board as geo
from domain.cards import PATHS, Door, E, N, S, W, rotate
from domain.strategy.memory import CAP, live_openings

Cell = geo.Cell

TREASURE: Final = "goal_treasure"
STONES: Final = ("goal_stone_a", "goal_stone_b")
_NONE: Final[Mapping[Cell, str]] = {}
_STEPS: Final = ((N, 0, 1), (E, 1, 0), (S, 0, -1), (W, -1, 0))
MARGIN: Final = 2  # empty rows and columns searched around the maze


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a move leaves: the distance to each face-down goal (0: reached now)."""

    distance: Mapping[Cell, float]
    reached: tuple[Cell, ...]  # face-down goals the move reaches


class Maze:
    """The board from one seat: its open ends and the distance fields of the goals."""

    __slots__ = (
        "_best",
        "_ends",
        "avoid",
        "board",
        "distance",
        "fields",
        "goals",
        "live",
        "reached",
    )

    def __init__(self, board: geo.Board, avoid: Door | None = None) -> None:
        self.board = board
        self.avoid = avoid
        self.goals = tuple(c for c in geo.GOAL_CELLS if c in board and not board[c].face_up)
        self.live = live_openings(board, avoid)
        # Empty cells faced by a connected opening (the open ends), with the goals they reach.
        ends: set[Cell] = set()
        reached: set[Cell] = set()
        for (x, y), mask in self.live.items():
            for side, dx, dy in _STEPS:
                if mask & side:
                    there = (x + dx, y + dy)
                    tile = board.get(there)
                    if tile is None:
                        ends.add(there)
                    elif not tile.face_up:
                        reached.add(there)
        self._ends = ends
        # Face-down goals an open end touches: on a real board they were turned at once.
        self.reached = tuple(sorted(reached))
        self.fields = {goal: _field(board, goal) for goal in self.goals}
        self._best: dict[Cell, tuple[int, Cell | None, int]] = {}
        self.distance: dict[Cell, int] = {}
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
        opened: list[Cell] = []
        reached: list[Cell] = []
        for index, segment in enumerate(segments):
            if spec.door is not None and spec.door is self.avoid and index == spec.door_segment:
                continue  # a door this maze's team cannot pass
            joined = ladder
            if not joined:
                for side, dx, dy in _STEPS:
                    if segment & side and live.get((x + dx, y + dy), 0) & rotate(side):
                        joined = True
                        break
            if not joined:
                continue
            for side, dx, dy in _STEPS:
                if segment & side:
                    there = (x + dx, y + dy)
                    tile = board.get(there)
                    if tile is None:
                        opened.append(there)
                    elif not tile.face_up:
                        reached.append(there)
        distance: dict[Cell, float] = {}
        for goal, found in self.fields.items():
            if goal in reached:
                distance[goal] = 0
                continue
            first, where, second = self._best[goal]
            best = second if where == cell else first
            for there in opened:
                d = found.get(there, CAP)
                if d < best:
                    best = d
            distance[goal] = best
        return Outcome(distance, tuple(reached))

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
        stones = [g for g in reached if kinds.get(g) != TREASURE]
        if placed is None or not stones:
            for goal in self.goals:
                distance.setdefault(goal, maze.distance.get(goal, CAP))
            return Outcome(distance, reached)
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
        return Outcome(distance, reached)


def _field(board: geo.Board, goal: Cell) -> dict[Cell, int]:
    """Per empty cell near the maze: the fewest cards, that one included, from it to a cell
    beside ``goal`` (1 beside the goal)."""
    xs = [c[0] for c in board]
    ys = [c[1] for c in board]
    low_x, high_x = min(xs) - MARGIN, max(xs) + MARGIN
    low_y, high_y = min(ys) - MARGIN, max(ys) + MARGIN
    found: dict[Cell, int] = {}
    layer: list[Cell] = []
    gx, gy = goal
    for _, dx, dy in _STEPS:
        start = (gx + dx, gy + dy)
        if start not in board:
            found[start] = 1
            layer.append(start)
    depth = 1
    while layer:
        depth += 1
        following: list[Cell] = []
        for x, y in layer:
            for _, dx, dy in _STEPS:
                there = (x + dx, y + dy)
                if (
                    there in found
                    or there in board
                    or not (low_x <= there[0] <= high_x and low_y <= there[1] <= high_y)
                ):
                    continue
                found[there] = depth
                following.append(there)
        layer = following
    return found
