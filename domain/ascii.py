"""The maze as text: each cell a 3×3 block of characters, with x and y labels.

Legend:

- ``│ ─`` a tunnel reaching that edge; ``╎ ╌`` an opening that leads nowhere inside the
  card (its segment holds that opening alone, a dead end);
- centre: the tunnels' junction (``┼ ├ ┐ …``), ``╬`` a bridge, ``╳`` a double curve,
  ``x`` a card whose openings are all dead ends, ``S`` the start, ``H`` a ladder,
  ``b``/``g`` a blue/green door, ``*`` a crystal, ``$`` the treasure, ``o`` a stone;
- ``???`` a goal face down; ``·`` an empty cell.

The drawing covers the cards on the table plus one empty cell all around; north is up.

>>> from domain.board import Tile, frozen
>>> print(render(frozen({(0, 0): Tile("start"), (1, 0): Tile("curve_sw", rotated=True)})))
   -1  0  1  2
<BLANKLINE>
 1  ·  ·  ·  ·
<BLANKLINE>
       │  │
 0  · ─S─ └─ ·
       │
<BLANKLINE>
-1  ·  ·  ·  ·
<BLANKLINE>
"""

from __future__ import annotations

from functools import lru_cache
from typing import Final

from domain.board import Board, Tile
from domain.cards import PATHS, E, N, S, W, rotate
from domain.state import GameState

Block = tuple[str, str, str]

EMPTY: Final[Block] = ("", " · ", "")
FACE_DOWN: Final[Block] = ("???", "???", "???")

GLYPHS: Final[dict[int, str]] = {
    0: "·",
    N: "╵",
    E: "╶",
    S: "╷",
    W: "╴",
    N | S: "│",
    E | W: "─",
    N | E: "└",
    N | W: "┘",
    S | E: "┌",
    S | W: "┐",
    N | E | S: "├",
    N | S | W: "┤",
    N | E | W: "┴",
    E | S | W: "┬",
    N | E | S | W: "┼",
}
"""Openings (side bits) as one box-drawing character, e.g. ``GLYPHS[N | E] == "└"``."""
_MARKS: Final[dict[str, str]] = {"start": "S", "goal_treasure": "$"}


def render(board: Board) -> str:
    """The board as lines of text, rows from north to south (see the module's legend)."""
    if not board:
        return ""
    xs = [x for x, _ in board]
    ys = [y for _, y in board]
    columns = range(min(xs) - 1, max(xs) + 2)
    rows = range(max(ys) + 1, min(ys) - 2, -1)
    width = max(len(str(y)) for y in rows)
    lines = [(" " * (width + 1) + "".join(f"{x:^3}" for x in columns)).rstrip()]
    for y in rows:
        blocks = [_block(board.get((x, y))) for x in columns]
        for line in range(3):
            prefix = f"{y:>{width}} " if line == 1 else " " * (width + 1)
            text = "".join(f"{block[line]:<3}" for block in blocks)
            lines.append((prefix + text).rstrip())
    return "\n".join(lines)


def render_round(state: GameState) -> str:
    """The round of ``state``, a title line then its maze: for logs and the command line
    (``simulate --show`` prints one per round as it ended). It shows the whole state, goals
    face down as ``???``: never hand it to a player (that is :mod:`domain.view`'s job).

    >>> from domain.board import initial_board
    >>> board = initial_board(("goal_stone_a", "goal_treasure", "goal_stone_b"))
    >>> print(render_round(GameState().update(round=2, board=board)).splitlines()[0])
    round 2
    """
    ended = [r for r in state.round_results if r.round == state.round]
    title = f"round {state.round}"
    if ended and ended[-1].treasure_reached:
        who = ended[-1].reached_by
        name = "?" if who is None else state.names.get(who, str(who))
        title += f": treasure reached by {name}"
    elif ended:
        title += ": treasure not reached"
    return f"{title}\n{render(state.board)}"


def _block(tile: Tile | None) -> Block:
    if tile is None:
        return EMPTY
    if not tile.face_up:
        return FACE_DOWN
    return _drawn(tile.kind, tile.rotated)


@lru_cache(maxsize=256)
def _drawn(kind: str, rotated: bool) -> Block:
    spec = PATHS[kind]
    segments = [rotate(s) if rotated else s for s in spec.segments]
    joined = [s for s in segments if bin(s).count("1") > 1]
    alone = 0 if len(segments) == 1 else sum(s for s in segments if s not in joined)

    def edge(side: int, solid: str, dashed: str) -> str:
        if not any(s & side for s in segments):
            return " "
        return dashed if alone & side else solid

    if kind in _MARKS:
        centre = _MARKS[kind]
    elif kind.startswith("goal_"):
        centre = "o"
    elif spec.ladder:
        centre = "H"
    elif spec.door is not None:
        centre = spec.door.value[0]
    elif spec.crystals:
        centre = "*"
    elif len(joined) == 2:
        centre = "╬" if segments[0] in (N | S, E | W) else "╳"
    elif joined:
        centre = GLYPHS[joined[0]]
    else:
        centre = "x"
    return (
        f" {edge(N, '│', '╎')} ",
        f"{edge(W, '─', '╌')}{centre}{edge(E, '─', '╌')}",
        f" {edge(S, '│', '╎')} ",
    )
