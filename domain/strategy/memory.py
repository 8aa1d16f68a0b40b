"""What the table saw this round: every public move folded into each player's conduct.

A :class:`Memory` is built from the public descriptions of a round's events
(``describe(event, None)``, :mod:`domain.view`): who placed which card where, who played
which action card on whom, who passed. It keeps the maze as the public sees it, move by
move, so it can say what each move did to the tunnel: how many cards nearer to (or further
from) the goals still face down it left the network. It knows nothing a seat could not
know. The computer player (:mod:`domain.strategy.player`) judges the others by it.

>>> memory = Memory.start("base")
>>> memory = memory.observe({"type": "path_placed", "player": 2, "card": 0,
...                          "cell": [1, 0], "rotated": False})
>>> round(memory.conduct(2).progress, 3)
1.0
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any, Final

from domain import board as geo
from domain.cards import PATHS, Action, Door, E, Edition, N, S, W, card
from domain.events import ACTION_EVENTS
from domain.view import HIDDEN_GOAL

PlayerId = int

# The stored types of the action cards played (domain.events.ACTION_EVENTS).
ACTION_TYPES: Final = frozenset(cls.TYPE for cls in ACTION_EVENTS)
# Action cards that lie in front of a player and harm them, and those that help them.
HARMS: Final = frozenset(
    {Action.BROKEN_PICKAXE.value, Action.BROKEN_LANTERN.value, Action.BROKEN_CART.value}
    | {Action.TRAPPED.value}
)
HELPS: Final = frozenset(
    {a.value for a in Action if a.value.startswith("repair_")} | {Action.FREE_AT_LAST.value}
)


@dataclass(frozen=True, slots=True)
class Conduct:
    """One player's public moves this round, as the maze judged them."""

    progress: float = 0.0  # cards of distance their path cards and rockfalls gained
    setback: float = 0.0  # cards of distance they lost (dead ends at the front, cuts)
    dead_ends: int = 0  # dead-end cards laid
    paths: int = 0  # path cards laid
    passes: int = 0
    blue_doors: int = 0
    green_doors: int = 0


@dataclass(frozen=True, slots=True)
class Deed:
    """An action card one player played on another (or on themselves)."""

    actor: PlayerId
    action: str
    target: PlayerId


def _blank() -> Mapping[PlayerId, Conduct]:
    return MappingProxyType({})


@dataclass(frozen=True, slots=True)
class Memory:
    """The public history of the current round, folded. Immutable: :meth:`observe` gives
    the next one."""

    edition: Edition
    board: geo.Board
    distance: float  # the public distance of ``board`` (see :func:`public_distance`)
    conducts: Mapping[PlayerId, Conduct] = field(default_factory=_blank)
    deeds: tuple[Deed, ...] = ()
    maps: tuple[tuple[PlayerId, geo.Cell], ...] = ()  # who looked at which goal, in order
    moves: int = 0  # card moves this round
    # saboteur2: the thefts settled since the round ended, (thief, victim), in order.
    thefts: tuple[tuple[PlayerId, PlayerId], ...] = ()
    # Cards seen leaving play this round: action cards played, path cards a rockfall took.
    spent: frozenset[int] = frozenset()

    @classmethod
    def start(cls, edition: Edition, goal_cells: tuple[geo.Cell, ...] = geo.GOAL_CELLS) -> Memory:
        """A round's memory before its first move; ``goal_cells``: where its goals lie
        (a variant may move them, docs/rules.md §8)."""
        cells = (goal_cells[0], goal_cells[1], goal_cells[2])
        board = geo.initial_board((HIDDEN_GOAL,) * 3, cells)
        return cls(edition, board, public_distance(board))

    def conduct(self, player: PlayerId) -> Conduct:
        return self.conducts.get(player, _NOTHING)

    def observe(self, described: Mapping[str, Any]) -> Memory:
        """The memory after one more event, given as ``describe(event, None)``."""
        kind = described.get("type")
        if kind == "round_started":
            return Memory.start(self.edition, geo.goals_on(self.board))
        if kind == "path_placed":
            return self._placed(described)
        if kind == "goal_revealed":
            cell = _cell(described["cell"])
            tile = geo.Tile(str(described["kind"]), None, bool(described["rotated"]), True)
            board = geo.with_tile(self.board, cell, tile)
            return replace(self, board=board, distance=public_distance(board))
        if kind in ACTION_TYPES:
            return self._action(described)
        if kind == "theft_resolved" and described.get("victim") is not None:
            theft = (int(described["thief"]), int(described["victim"]))
            return replace(self, thefts=(*self.thefts, theft))
        if kind in ("cards_discarded", "front_card_removed"):
            player = int(described["player"])
            done = self.conduct(player)
            return self._with(player, replace(done, passes=done.passes + 1))
        return self

    def _with(self, player: PlayerId, conduct: Conduct, **changes: Any) -> Memory:
        conducts = dict(self.conducts)
        conducts[player] = conduct
        return replace(self, conducts=MappingProxyType(conducts), moves=self.moves + 1, **changes)

    def _placed(self, d: Mapping[str, Any]) -> Memory:
        player = int(d["player"])
        played = card(self.edition, int(d["card"]))
        cell = _cell(d["cell"])
        board = geo.with_tile(
            self.board, cell, geo.Tile(played.kind, played.id, bool(d["rotated"]))
        )
        after = public_distance(board)
        done = _judged(self.conduct(player), self.distance - after)
        spec = played.path
        assert spec is not None
        done = replace(
            done,
            paths=done.paths + 1,
            dead_ends=done.dead_ends + int(is_dead_end(played.kind)),
            blue_doors=done.blue_doors + int(spec.door is Door.BLUE),
            green_doors=done.green_doors + int(spec.door is Door.GREEN),
        )
        return self._with(player, done, board=board, distance=after)

    def _action(self, d: Mapping[str, Any]) -> Memory:
        player = int(d["player"])
        played = card(self.edition, int(d["card"])).action
        assert played is not None
        action = played.value
        target = player if action == Action.THEFT.value else d.get("target")
        if action == Action.ROCKFALL.value:
            cell = _cell(d["cell"])
            board = geo.without_tile(self.board, cell)
            after = public_distance(board)
            done = _judged(self.conduct(player), self.distance - after)
            taken = self.board[cell].card if cell in self.board else None
            spent = self._spent(d, taken)
            return self._with(player, done, board=board, distance=after, spent=spent)
        if action == Action.MAP.value:
            seen = (*self.maps, (player, _cell(d["cell"])))
            return self._with(player, self.conduct(player), maps=seen, spent=self._spent(d))
        deeds = self.deeds
        if target is not None:
            deeds = (*deeds, Deed(player, action, int(target)))
        return self._with(player, self.conduct(player), deeds=deeds, spent=self._spent(d))

    def _spent(self, d: Mapping[str, Any], taken: int | None = None) -> frozenset[int]:
        played = {int(d["card"])} if d.get("card") is not None else set()
        if taken is not None:
            played.add(taken)
        return self.spent | played


_NOTHING: Final = Conduct()


def _judged(conduct: Conduct, gained: float) -> Conduct:
    if gained > 0:
        return replace(conduct, progress=conduct.progress + gained)
    if gained < 0:
        return replace(conduct, setback=conduct.setback - gained)
    return conduct


def _cell(value: Any) -> geo.Cell:
    return (int(value[0]), int(value[1]))


def is_dead_end(kind: str) -> bool:
    """A card whose every opening ends inside it (a ladder is no dead end).

    >>> is_dead_end("dead_t_nse"), is_dead_end("dead_stub_n"), is_dead_end("cross")
    (True, True, False)
    """
    spec = PATHS[kind]
    return not spec.ladder and all(bin(s).count("1") == 1 for s in spec.segments)


def live_openings(board: geo.Board, avoid: Door | None = None) -> dict[geo.Cell, int]:
    """Per card, the openings of its segments joined to the start; with ``avoid``, joined
    without crossing a door of that colour (the way a team can pass, docs/rules.md §4.4)."""
    nodes = geo.connected_segments(board) if avoid is None else _passable(board, avoid)
    live: dict[geo.Cell, int] = {}
    for cell, index in nodes:
        live[cell] = live.get(cell, 0) | board[cell].segments[index]
    return live


def _passable(board: geo.Board, avoid: Door) -> set[tuple[geo.Cell, int]]:
    """The segments joined to the start through no door of colour ``avoid``."""

    def open_(cell: geo.Cell, index: int) -> bool:
        spec = board[cell].spec
        return not (spec.door is avoid and spec.door_segment == index)

    stack = [
        (cell, i)
        for cell, tile in board.items()
        if tile.face_up and (tile.spec.ladder or tile.kind == geo.START_KIND)
        for i in range(len(tile.segments))
        if open_(cell, i)
    ]
    seen = set(stack)
    while stack:
        (x, y), index = stack.pop()
        mask = board[(x, y)].segments[index]
        for side, dx, dy in _SIDES:
            if not mask & side:
                continue
            there = (x + dx, y + dy)
            tile = board.get(there)
            if tile is None or not tile.face_up:
                continue
            back = ((side << 2) | (side >> 2)) & 0xF
            for j, segment in enumerate(tile.segments):
                if segment & back:
                    if (there, j) not in seen and open_(there, j):
                        seen.add((there, j))
                        stack.append((there, j))
                    break
    return seen


_SIDES: Final = ((N, 0, 1), (E, 1, 0), (S, 0, -1), (W, -1, 0))


def frontier(board: geo.Board) -> dict[geo.Cell, int]:
    """Empty cells an opening joined to the start faces, and those openings' count.

    Also face-down goals such an opening faces (they are reached).
    """
    found: dict[geo.Cell, int] = {}
    for (x, y), mask in live_openings(board).items():
        for side, dx, dy in _SIDES:
            if mask & side:
                there = (x + dx, y + dy)
                tile = board.get(there)
                if tile is None or not tile.face_up:
                    found[there] = found.get(there, 0) + 1
    return found


def public_distance(board: geo.Board) -> float:
    """How far the network is from the goals still face down, as anyone can judge it: the
    mean over those goals of the fewest cards (counted on the grid, ignoring what is in the
    way) from an open end to the goal. 0 once a goal is reached; 0 with none face down."""
    goals = [c for c in geo.goals_on(board) if not board[c].face_up]
    if not goals:
        return 0.0
    ends = list(frontier(board))
    if not ends:
        return float(CAP)
    total = 0
    for gx, gy in goals:
        total += min(min(abs(x - gx) + abs(y - gy) for x, y in ends), CAP)
    return round(total / len(goals), 6)


CAP: Final = 20  # a distance no round lasts long enough to cover
