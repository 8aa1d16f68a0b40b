"""Maze geometry (docs/rules.md §4.1–§4.4): given a board, when a card or a question, then
an answer.

Boards are written as ``{cell: "kind"}``; a trailing ``@`` means the card is turned 180°.
Goals lie face down at (8, 2) stone A, (8, 0) treasure, (8, -2) stone B unless a test says
otherwise.
"""

from __future__ import annotations

import doctest
import random
from types import ModuleType

import pytest

from domain import ascii as ascii_module
from domain import board as board_module
from domain import cards as cards_module
from domain.ascii import render
from domain.board import (
    GOAL_CELLS,
    START_CELL,
    Board,
    Cell,
    Tile,
    can_remove,
    connected_segments,
    crystals,
    frozen,
    initial_board,
    legal_placements,
    neighbour,
    placement_error,
    reached_goals,
    reveal,
    teams_can_pass,
    with_tile,
    without_tile,
)
from domain.cards import EXPANSION_PATHS, E, N, S, W

GOALS = ("goal_stone_a", "goal_treasure", "goal_stone_b")
TREASURE: Cell = (8, 0)
STONE_A: Cell = (8, 2)
STONE_B: Cell = (8, -2)


def maze(cards: dict[Cell, str], goals: tuple[str, str, str] = GOALS) -> Board:
    board = initial_board(goals)
    for cell, name in cards.items():
        kind = name.rstrip("@")
        board = with_tile(board, cell, Tile(kind, card=0, rotated=name.endswith("@")))
    return board


def row(y: int, first: int, last: int, kind: str = "straight_ew") -> dict[Cell, str]:
    return {(x, y): kind for x in range(first, last + 1)}


def place(board: Board, cell: Cell, name: str) -> Board:
    kind, rotated = name.rstrip("@"), name.endswith("@")
    assert placement_error(board, kind, cell, rotated) is None
    return with_tile(board, cell, Tile(kind, card=0, rotated=rotated))


def connected_cells(board: Board) -> set[Cell]:
    return {cell for cell, _ in connected_segments(board)}


def to_treasure(cards: dict[Cell, str]) -> Board:
    """The treasure at (8, 0), revealed, with ``cards`` on the table."""
    board = maze(cards)
    return with_tile(board, TREASURE, Tile("goal_treasure"))


# -- cells and tiles ---------------------------------------------------------------------


def test_north_is_y_plus_one_and_east_is_x_plus_one() -> None:
    assert neighbour((3, 4), N) == (3, 5)
    assert neighbour((3, 4), E) == (4, 4)
    assert neighbour((3, 4), S) == (3, 3)
    assert neighbour((3, 4), W) == (2, 4)


def test_a_turned_card_swaps_north_with_south_and_east_with_west() -> None:
    assert Tile("curve_se").openings == E | S
    assert Tile("curve_se", rotated=True).openings == N | W
    assert Tile("green_door_ns_w", rotated=True).segments == (N | S, E)


def test_a_round_starts_with_the_start_and_three_goals_face_down() -> None:
    board = initial_board(GOALS)

    assert board[START_CELL] == Tile("start")
    assert [board[c] for c in GOAL_CELLS] == [Tile(k, face_up=False) for k in GOALS]
    assert connected_segments(board) == {(START_CELL, 0)}


def test_placing_and_removing_return_new_boards_and_leave_the_old_one_alone() -> None:
    board = initial_board(GOALS)

    more = with_tile(board, (1, 0), Tile("cross", card=3))
    fewer = without_tile(more, (1, 0))

    assert (1, 0) not in board and (1, 0) in more and (1, 0) not in fewer
    with pytest.raises(TypeError):
        more[(2, 0)] = Tile("cross")  # type: ignore[index]


# -- §4.1 rule 2: an empty cell next to the maze -----------------------------------------


def test_a_card_cannot_go_on_an_occupied_cell() -> None:
    assert placement_error(initial_board(GOALS), "cross", START_CELL, False) == "occupied"


def test_a_card_must_share_an_edge_with_a_card_on_the_table() -> None:
    assert placement_error(initial_board(GOALS), "cross", (2, 0), False) == "not_adjacent"
    assert placement_error(initial_board(GOALS), "cross", (1, 1), False) == "not_adjacent"


# -- §4.1 rule 3: fit --------------------------------------------------------------------


def test_a_tunnel_meeting_a_wall_does_not_fit() -> None:
    board = initial_board(GOALS)

    assert placement_error(board, "straight_ns", (1, 0), False) == "does_not_fit"
    assert placement_error(board, "straight_ew", (1, 0), False) is None


def test_a_wall_meeting_a_tunnel_does_not_fit_but_the_turned_card_does() -> None:
    board = initial_board(GOALS)

    # The start is open on all four sides: a curve's wall may not face it.
    assert placement_error(board, "curve_sw", (-1, 0), False) == "does_not_fit"
    assert placement_error(board, "curve_sw", (-1, 0), True) is None
    assert placement_error(board, "curve_se", (1, 0), False) == "does_not_fit"
    assert placement_error(board, "curve_se", (1, 0), True) is None


def test_every_face_up_neighbour_must_fit_not_only_one() -> None:
    board = maze({(1, 0): "straight_ew", (2, 1): "straight_ew"})

    # (2, 0) touches (1, 0) to the west (open) and (2, 1) to the north (closed).
    assert placement_error(board, "cross", (2, 0), False) == "does_not_fit"
    assert placement_error(board, "straight_ew", (2, 0), False) is None


def test_a_face_down_goal_imposes_nothing_on_fit() -> None:
    board = maze(row(0, 1, 6))

    # curve_sw is closed to the east, where the face-down treasure lies; cross is open.
    assert placement_error(board, "curve_sw", (7, 0), False) is None
    assert placement_error(board, "cross", (7, 0), False) is None


# -- §4.1 rule 4 and §4.2: connection ----------------------------------------------------


def test_a_card_touching_only_closed_edges_is_not_connected() -> None:
    board = maze({(1, 0): "straight_ew"})

    assert placement_error(board, "straight_ew", (1, 1), False) == "not_connected"


def test_a_dead_end_does_not_connect_onward() -> None:
    board = maze({(1, 0): "dead_straight_ew"})

    assert connected_segments(board) == {(START_CELL, 0), ((1, 0), 1)}
    assert placement_error(board, "straight_ew", (2, 0), False) == "not_connected"


def test_a_bridge_needs_only_one_of_its_two_segments_connected() -> None:
    board = initial_board(GOALS)

    # The bridge's N–S half faces empty cells; its E–W half meets the start.
    board = place(board, (1, 0), "bridge")

    assert ((1, 0), 1) in connected_segments(board)
    assert ((1, 0), 0) not in connected_segments(board)


def test_the_unconnected_half_of_a_bridge_connects_nothing() -> None:
    board = maze({(1, 0): "bridge"})

    assert placement_error(board, "straight_ns", (1, 1), False) == "not_connected"
    assert placement_error(board, "straight_ew", (2, 0), False) is None


def test_a_double_curve_joins_only_the_openings_of_each_curve() -> None:
    # double_curve_b: N–E and S–W. Reached from the start on its W side.
    board = maze({(1, 0): "double_curve_b"})

    assert placement_error(board, "straight_ns", (1, -1), False) is None
    assert placement_error(board, "straight_ns", (1, 1), False) == "not_connected"


def test_a_card_reaching_only_a_face_down_goal_is_not_connected() -> None:
    board = maze(row(0, 1, 7))

    # (9, 0) touches nothing but the face-down treasure: nothing passes through it.
    assert placement_error(board, "straight_ew", (9, 0), False) == "not_connected"
    assert not any(cell == TREASURE for cell, _ in connected_segments(board))


# -- §4.1 rule 5: ladders ----------------------------------------------------------------


def test_a_ladder_joins_the_start_to_a_far_card_it_touches() -> None:
    board = without_tile(maze(row(0, 1, 3)), (1, 0))  # (2, 0)–(3, 0) cut off
    assert (3, 0) not in connected_cells(board)

    board = place(board, (4, 0), "ladder_stub_w")

    assert {(2, 0), (3, 0), (4, 0)} <= connected_cells(board)
    assert placement_error(board, "straight_ew", (1, 0), False) is None


def test_a_ladder_is_exempt_from_the_connection_rule_but_not_from_fit() -> None:
    board = maze({(1, 0): "dead_straight_ew"})

    assert placement_error(board, "straight_ew", (2, 0), False) == "not_connected"
    assert placement_error(board, "ladder_stub_w", (2, 0), False) is None
    assert placement_error(board, "ladder_stub_n", (2, 0), False) == "does_not_fit"


def test_every_ladder_is_connected_even_when_its_tunnel_leads_nowhere() -> None:
    board = maze({(1, 0): "straight_ew", (1, 1): "ladder_stub_n"})

    assert ((1, 1), 0) in connected_segments(board)
    assert placement_error(board, "straight_ns", (1, 2), False) is None


def test_the_start_counts_as_a_path_card_a_ladder_may_touch() -> None:
    """Decision: docs/rules.md §4.1 rule 5 says a ladder "must touch at least one path card".

    The start is one of the 44 base path cards (docs/rules.md §2.1; the base rulebook: "una carta
    de Recorrido ... incluyendo la carta de Inicio"), and Saboteur 2's rulebook lets a
    ladder lie next to "any path card except a goal card". So a ladder touching only the
    start is legal; ``ladder_needs_path`` is the refusal for a ladder touching only goals.
    """
    board = initial_board(GOALS)

    assert placement_error(board, "ladder_stub_w", (1, 0), False) is None
    assert placement_error(board, "ladder_stub_w", (9, 0), False) == "ladder_needs_path"


def test_a_ladder_may_not_touch_a_face_down_goal() -> None:
    board = maze(row(0, 1, 6))

    assert placement_error(board, "ladder_stub_w", (7, 0), False) == "ladder_touches_goal"


def test_a_ladder_may_not_touch_a_revealed_goal() -> None:
    board = maze({**row(0, 1, 7), (9, 1): "cross"})
    board = reveal(board, TREASURE, (7, 0))

    # (9, 0) touches the revealed treasure (west) and a cross (north).
    assert placement_error(board, "ladder_curve_wn", (9, 0), False) == "ladder_touches_goal"
    assert placement_error(board, "curve_se", (9, 0), True) is None


# -- §4.3: reaching goals ----------------------------------------------------------------


def test_a_goal_is_reached_when_a_connected_opening_faces_it() -> None:
    board = maze(row(0, 1, 6))
    assert reached_goals(board) == []

    board = place(board, (7, 0), "straight_ew")

    assert reached_goals(board) == [TREASURE]


def test_a_wall_facing_a_goal_does_not_reach_it() -> None:
    board = maze({**row(0, 1, 6), (7, 0): "curve_sw"})

    assert reached_goals(board) == []


def test_an_unconnected_opening_facing_a_goal_does_not_reach_it() -> None:
    board = maze({**row(0, 1, 6), (7, 0): "dead_straight_ew"})

    assert reached_goals(board) == []


def test_one_card_may_reach_two_goals() -> None:
    board = maze({(0, 1): "curve_se", **row(1, 1, 7)})

    board = place(board, (8, 1), "t_nse@")  # open N, S and W

    assert reached_goals(board) == [TREASURE, STONE_A]


def test_a_revealed_treasure_is_face_up_and_a_normal_card() -> None:
    board = maze({**row(0, 1, 7)})

    board = reveal(board, TREASURE, (7, 0))

    assert board[TREASURE] == Tile("goal_treasure", face_up=True)
    assert reached_goals(board) == []
    assert (TREASURE, 0) in connected_segments(board)
    assert placement_error(board, "straight_ew", (9, 0), False) is None


@pytest.mark.parametrize(
    ("goal", "stone", "reached_from", "rotated", "openings"),
    [
        (TREASURE, "goal_stone_a", (7, 0), False, S | W),  # from the west: as printed
        (TREASURE, "goal_stone_a", (8, 1), True, N | E),  # from the north: turned
        (TREASURE, "goal_stone_a", (8, -1), False, S | W),  # from the south: as printed
        (TREASURE, "goal_stone_b", (7, 0), False, N | W),
        (TREASURE, "goal_stone_b", (8, 1), False, N | W),
        (TREASURE, "goal_stone_b", (8, -1), True, S | E),
        (TREASURE, "goal_stone_a", (9, 0), True, N | E),  # from the east: turned
        (TREASURE, "goal_stone_b", (9, 0), True, S | E),  # from the east: turned
    ],
)
def test_a_revealed_stone_opens_towards_the_card_that_reached_it(
    goal: Cell, stone: str, reached_from: Cell, rotated: bool, openings: int
) -> None:
    board = maze({reached_from: "cross"}, goals=("goal_treasure", stone, "goal_stone_a"))

    revealed = reveal(board, goal, reached_from)[goal]

    assert revealed == Tile(stone, rotated=rotated, face_up=True)
    assert revealed.openings == openings


def test_a_stone_reached_from_the_north_then_leads_on_east() -> None:
    board = maze(
        {(0, 1): "curve_se", **row(1, 1, 7), (8, 1): "curve_sw"},
        goals=("goal_treasure", "goal_stone_a", "goal_stone_b"),
    )
    assert reached_goals(board) == [(8, 0)]

    board = reveal(board, (8, 0), (8, 1))

    assert ((8, 0), 0) in connected_segments(board)
    assert placement_error(board, "straight_ew", (9, 0), False) is None
    assert placement_error(board, "straight_ns", (8, -1), False) == "does_not_fit"


# -- rockfall ----------------------------------------------------------------------------


def test_rockfall_may_remove_a_path_card_but_not_the_start_nor_a_goal() -> None:
    board = reveal(maze(row(0, 1, 7)), TREASURE, (7, 0))

    assert can_remove(board, (3, 0))
    assert not can_remove(board, START_CELL)
    assert not can_remove(board, TREASURE)
    assert not can_remove(board, STONE_A)
    assert not can_remove(board, (3, 3))


def test_rockfall_cuts_a_path_and_a_later_card_reconnects_it() -> None:
    board = maze(row(0, 1, 4))

    board = without_tile(board, (2, 0))

    assert connected_cells(board) == {START_CELL, (1, 0)}
    assert placement_error(board, "straight_ew", (5, 0), False) == "not_connected"

    board = place(board, (2, 0), "cross")

    assert {(3, 0), (4, 0)} <= connected_cells(board)
    assert placement_error(board, "straight_ew", (5, 0), False) is None


# -- §4.4: doors -------------------------------------------------------------------------


def test_with_no_door_on_the_way_both_teams_pass() -> None:
    assert teams_can_pass(to_treasure(row(0, 1, 7))) == (True, True)


def test_a_blue_door_on_the_only_path_lets_only_blue_pass() -> None:
    board = to_treasure({**row(0, 1, 7), (4, 0): "blue_door_ew"})

    assert teams_can_pass(board) == (True, False)


def test_a_green_door_on_the_only_path_lets_only_green_pass() -> None:
    board = to_treasure({**row(0, 1, 7), (4, 0): "green_door_ew"})

    assert teams_can_pass(board) == (False, True)


def test_a_blue_and_a_green_door_in_series_let_nobody_pass() -> None:
    board = to_treasure({**row(0, 1, 7), (3, 0): "blue_door_ew", (5, 0): "green_door_ew"})

    assert teams_can_pass(board) == (False, False)


def test_a_parallel_route_around_a_door_lets_both_teams_pass() -> None:
    # Main row through a blue door at (4, 0); a loop over y = 1 from (2, 0) to (6, 0).
    cards = {
        **row(0, 1, 7),
        (2, 0): "t_esw@",  # open N, E, W
        (4, 0): "blue_door_ew",
        (6, 0): "t_esw@",
        (2, 1): "curve_se",
        **row(1, 3, 5),
        (6, 1): "curve_sw",
    }

    assert teams_can_pass(to_treasure(cards)) == (True, True)


def test_two_parallel_routes_each_through_one_colour_let_each_team_pass() -> None:
    cards = {
        **row(0, 1, 7),
        (2, 0): "t_esw@",
        (4, 0): "blue_door_ew",
        (6, 0): "t_esw@",
        (2, 1): "curve_se",
        **row(1, 3, 5),
        (4, 1): "green_door_ew",
        (6, 1): "curve_sw",
    }

    assert teams_can_pass(to_treasure(cards)) == (True, True)


def test_a_door_on_a_branch_off_the_path_stops_nobody() -> None:
    cards = {**row(0, 1, 7), (3, 0): "t_esw", (3, -1): "blue_door_ns"}

    assert teams_can_pass(to_treasure(cards)) == (True, True)


def test_the_stub_beside_the_green_doors_tunnel_is_a_dead_end() -> None:
    # green_door_ns_w turned: the door on N–S, the stub opening east, alone.
    board = maze({(0, 1): "green_door_ns_w@"})

    assert ((0, 1), 0) in connected_segments(board)
    assert placement_error(board, "straight_ew", (1, 1), False) == "not_connected"


def test_nobody_passes_while_the_treasure_is_face_down_or_cut_off() -> None:
    assert teams_can_pass(maze(row(0, 1, 7))) == (False, False)
    cut = without_tile(to_treasure(row(0, 1, 7)), (4, 0))
    assert teams_can_pass(cut) == (False, False)


# -- crystals ----------------------------------------------------------------------------


def test_crystals_count_every_crystal_on_the_table_connected_or_not() -> None:
    board = maze(
        {
            (1, 0): "crystal_cross",
            (2, 0): "crystal_t_wne",
            (1, 1): "crystal_stub_n",
            (5, 5): "crystal_stub_w",
            (1, -1): "cross",
        }
    )

    assert crystals(board) == 4
    assert crystals(initial_board(GOALS)) == 0


# -- generation agrees with legality ----------------------------------------------------


def test_legal_placements_lists_exactly_the_placements_that_are_allowed() -> None:
    chance = random.Random(7)
    kinds = [spec.kind for spec, _ in EXPANSION_PATHS] + ["cross", "dead_t_nse", "curve_sw"]
    board = initial_board(GOALS)
    for _ in range(30):
        kind = chance.choice(kinds)
        options = legal_placements(board, kind)
        xs = [x for x, _ in board]
        ys = [y for _, y in board]
        every = [
            ((x, y), rotated)
            for x in range(min(xs) - 2, max(xs) + 3)
            for y in range(min(ys) - 2, max(ys) + 3)
            for rotated in (False, True)
            if placement_error(board, kind, (x, y), rotated) is None
        ]
        assert options == sorted(every)
        if options:
            cell, rotated = chance.choice(options)
            board = with_tile(board, cell, Tile(kind, card=0, rotated=rotated))


def test_results_for_a_plain_dict_board_are_not_remembered_across_changes() -> None:
    cells = dict(initial_board(GOALS))
    assert placement_error(cells, "straight_ew", (2, 0), False) == "not_adjacent"

    cells[(1, 0)] = Tile("straight_ew")

    assert placement_error(cells, "straight_ew", (2, 0), False) is None


# -- the maze as text --------------------------------------------------------------------


def test_the_maze_draws_as_text_with_every_mark_of_the_legend() -> None:
    board = maze(
        {
            (1, 0): "bridge",
            (2, 0): "dead_cross",
            (0, 1): "double_curve_a",
            (-1, 0): "ladder_stub_n",
            (0, -1): "green_door_ns_w",
            (3, 0): "crystal_t_nes_w",
            (1, 1): "blue_door_ns",
            **row(0, 4, 7),
        }
    )
    board = reveal(board, TREASURE, (7, 0))

    text = render(board)

    assert text.splitlines()[0].split() == [str(x) for x in range(-2, 10)]
    assert text.count("???") == 6  # two goals face down, three lines each
    for mark in "SH╬╳xg*b$":
        assert mark in text, mark
    (middle,) = [line for line in text.splitlines() if line.startswith(" 0 ")]
    assert middle.startswith(" 0  ·  H ─S──╬─╌x╌╌*─")
    assert middle.endswith("───$─ ·")


def test_an_empty_board_draws_as_nothing() -> None:
    assert render(frozen({})) == ""


@pytest.mark.parametrize("module", [board_module, ascii_module, cards_module])
def test_the_docstring_examples_hold(module: ModuleType) -> None:
    failures, _ = doctest.testmod(module)

    assert failures == 0


# -- connectivity against an independent model -----------------------------------------


def reference_components(board: Board, avoid: str | None = None) -> set[tuple[Cell, int]]:
    """Union-find over every segment pair §4.2 joins, skipping door segments of ``avoid``."""
    parent: dict[tuple[Cell, int], tuple[Cell, int]] = {}

    def root(node: tuple[Cell, int]) -> tuple[Cell, int]:
        while parent.setdefault(node, node) != node:
            node = parent[node]
        return node

    def kept(cell: Cell, index: int) -> bool:
        spec = board[cell].spec
        if spec.door is None or spec.door.value != avoid:
            return True
        return spec.door_segment != index

    up = {c: t for c, t in board.items() if t.face_up}
    nodes = [(c, i) for c, t in up.items() for i in range(len(t.segments)) if kept(c, i)]
    for node in nodes:
        root(node)
    ladders = [(c, i) for c, i in nodes if up[c].spec.ladder]
    for node in ladders[1:]:
        parent[root(node)] = root(ladders[0])
    for (cell, i), (other, j) in ((a, b) for a in nodes for b in nodes):
        side = next((s for s in (N, E, S, W) if neighbour(cell, s) == other), None)
        if side is None:
            continue
        back = {N: S, S: N, E: W, W: E}[side]
        if up[cell].segments[i] & side and up[other].segments[j] & back:
            parent[root((cell, i))] = root((other, j))
    start = (START_CELL, 0)
    return {n for n in nodes if root(n) == root(start)} if start in parent else set()


def random_mazes(seed: int, count: int) -> list[Board]:
    chance = random.Random(seed)
    kinds = [spec.kind for spec, copies in EXPANSION_PATHS for _ in range(copies)]
    kinds += ["cross", "t_nse", "straight_ew", "dead_t_esw", "curve_se"] * 3
    boards = []
    for _ in range(count):
        board = initial_board(GOALS)
        for _ in range(25):
            kind = chance.choice(kinds)
            options = legal_placements(board, kind)
            if options:
                cell, rotated = chance.choice(options)
                board = with_tile(board, cell, Tile(kind, card=0, rotated=rotated))
            if chance.random() < 0.15:
                removable = [c for c in board if can_remove(board, c)]
                if removable:
                    board = without_tile(board, chance.choice(sorted(removable)))
        boards.append(board)
    return boards


def test_connected_segments_agree_with_a_union_find_model_on_random_mazes() -> None:
    for board in random_mazes(seed=11, count=12):
        assert connected_segments(board) == reference_components(board), render(board)


def test_door_verdicts_agree_with_a_union_find_model_on_random_mazes() -> None:
    verdicts = set()
    for board in random_mazes(seed=12, count=20):
        # The treasure, face up, on the cell farthest east where a cross would join the maze.
        options = legal_placements(board, "cross")
        if not options:
            continue  # a maze closed on every side
        cell = max(options)[0]
        board = with_tile(board, cell, Tile("goal_treasure"))
        blue = cell in {c for c, _ in reference_components(board, avoid="green")}
        green = cell in {c for c, _ in reference_components(board, avoid="blue")}

        assert teams_can_pass(board) == (blue, green), render(board)
        verdicts.add((blue, green))

    assert len(verdicts) >= 3  # the mazes try more than one door situation
