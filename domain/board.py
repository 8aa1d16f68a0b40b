"""Maze geometry: cells, tiles, fit, connectivity, goals, doors (RULES.md §1, §4).

A board is an immutable mapping ``Cell -> Tile``. Functions here never mutate a board;
:func:`with_tile` and :func:`without_tile` return new ones.

CONTRACT (implementation pending): the signatures below are fixed; other modules code
against them.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final

from domain.cards import PATHS, PathSpec

Cell = tuple[int, int]
START_CELL: Final[Cell] = (0, 0)
GOAL_CELLS: Final[tuple[Cell, Cell, Cell]] = ((8, 2), (8, 0), (8, -2))


@dataclass(frozen=True, slots=True)
class Tile:
    """A card lying in the maze.

    ``kind`` names a :data:`domain.cards.PATHS` entry (start, goals, path cards);
    ``card`` is the deck id of a path card (None for start and goals); ``rotated`` is
    the 180° orientation; ``face_up`` is False only for unrevealed goals.
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
        raise NotImplementedError

    @property
    def openings(self) -> int:
        raise NotImplementedError


Board = Mapping[Cell, Tile]


def neighbour(cell: Cell, side: int) -> Cell:
    """The cell across edge ``side`` (N is y+1, E is x+1)."""
    raise NotImplementedError


def initial_board(goal_kinds: tuple[str, str, str]) -> Board:
    """Start at (0, 0) and the three goals face down at GOAL_CELLS in the given order."""
    raise NotImplementedError


def with_tile(board: Board, cell: Cell, tile: Tile) -> Board: ...
def without_tile(board: Board, cell: Cell) -> Board: ...


def connected_segments(board: Board) -> frozenset[tuple[Cell, int]]:
    """(cell, segment index) of every segment joined to the start (§4.2)."""
    raise NotImplementedError


def placement_error(board: Board, kind: str, cell: Cell, rotated: bool) -> str | None:
    """Why placing path card ``kind`` at ``cell`` is illegal (§4.1 rules 2–5), or None.

    Reason codes: "occupied", "not_adjacent", "does_not_fit", "not_connected",
    "ladder_needs_path", "ladder_touches_goal".
    """
    raise NotImplementedError


def legal_placements(board: Board, kind: str) -> list[tuple[Cell, bool]]:
    """Every (cell, rotated) where ``kind`` may be placed; sorted, no duplicates."""
    raise NotImplementedError


def reached_goals(board: Board) -> list[Cell]:
    """Face-down goals sharing an edge with a connected segment's opening (§4.3)."""
    raise NotImplementedError


def reveal(board: Board, goal: Cell, reached_from: Cell) -> Board:
    """Turn a reached goal face up, oriented as §4.3 says."""
    raise NotImplementedError


def can_remove(board: Board, cell: Cell) -> bool:
    """Rockfall target: a path card on the table, not start, not a goal."""
    raise NotImplementedError


def teams_can_pass(board: Board) -> tuple[bool, bool]:
    """(blue can pass, green can pass) from start to the treasure (§4.4)."""
    raise NotImplementedError


def crystals(board: Board) -> int:
    """Crystals visible on all cards on the table."""
    raise NotImplementedError


def frozen(cells: dict[Cell, Tile]) -> Board:
    return MappingProxyType(cells)


def cells(board: Board) -> Iterator[Cell]:
    return iter(sorted(board))
