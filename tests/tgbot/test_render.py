"""The board picture: every card draws, labels and orientation show, size stays bounded."""

from __future__ import annotations

import io

import pytest
from PIL import Image, ImageChops

from domain.board import Board, Cell, Tile, frozen, initial_board
from domain.cards import BASE_PATHS, EXPANSION_PATHS, Door
from tgbot.presenter import action_icons
from tgbot.presenter.keyboards import placement_label
from tgbot.presenter.messages import HandCard
from tgbot.presenter.palette import (
    BACKGROUND,
    CRYSTAL,
    DOORS,
    FORBIDDEN,
    LADDER,
    ROCK,
    TUNNEL,
    font_of,
)
from tgbot.presenter.render import (
    MAX_SIDE,
    PHONE_COLUMNS,
    layout,
    name_lines,
    render_board,
    render_image,
)
from tgbot.presenter.texts import coordinate

GOALS = ("goal_stone_a", "goal_treasure", "goal_stone_b")
ALL_KINDS = [spec.kind for spec, _ in (*BASE_PATHS, *EXPANSION_PATHS)]


def board_with(cells: dict[Cell, Tile]) -> Board:
    return frozen({**initial_board(GOALS), **cells})


def every_kind(rotated: bool) -> Board:
    return board_with(
        {
            (i % 8, -1 - i // 8): Tile(kind, card=i, rotated=rotated)
            for i, kind in enumerate(ALL_KINDS)
        }
    )


def decode(png: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(png))
    image.load()
    return image.convert("RGB")


def cell_pixels(image: Image.Image, board: Board, cell: Cell, **kwargs: object) -> Image.Image:
    extra = kwargs.get("extra", ())
    return image.crop(layout(board, extra).box(cell))  # type: ignore[arg-type]


def differs(a: Image.Image, b: Image.Image) -> bool:
    return ImageChops.difference(a, b).getbbox() is not None


def test_the_initial_board_is_a_png_of_a_phone_friendly_size() -> None:
    png = render_board(initial_board(GOALS))
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    image = decode(png)
    # Start to goals is 9 columns, goals span 5 rows; no empty border around them.
    assert 9 * 64 <= image.width <= 9 * 96 + 60
    assert 5 * 64 <= image.height <= 5 * 96 + 60
    assert len(png) < 150_000


@pytest.mark.parametrize("rotated", [False, True])
def test_every_path_kind_of_both_editions_is_drawn(rotated: bool) -> None:
    board = every_kind(rotated)
    image = decode(render_board(board))
    empty = cell_pixels(image, board, (-1, 5))
    for cell, tile in board.items():
        assert differs(cell_pixels(image, board, cell), empty), tile.kind


def test_cards_of_different_kinds_look_different() -> None:
    board = every_kind(False)
    image = render_image(board)
    pictures = {
        tile.kind: cell_pixels(image, board, cell).tobytes()
        for cell, tile in board.items()
        if tile.card is not None
    }
    assert len(set(pictures.values())) == len(pictures)


@pytest.mark.parametrize("kind", ["curve_se", "t_nse", "dead_stub_n", "ladder_curve_wn"])
def test_a_rotated_card_differs_from_its_unrotated_picture(kind: str) -> None:
    upright = board_with({(1, 0): Tile(kind, card=0)})
    turned = board_with({(1, 0): Tile(kind, card=0, rotated=True)})
    a = cell_pixels(render_image(upright), upright, (1, 0))
    b = cell_pixels(render_image(turned), turned, (1, 0))
    assert differs(a, b)


def test_highlight_labels_are_drawn_in_their_cells_only() -> None:
    board = initial_board(GOALS)
    labels = {(1, 0): "A", (0, 1): "B"}
    plain = render_image(board)
    labelled = render_image(board, highlight=labels)
    assert plain.size == labelled.size
    for cell in labels:
        assert differs(cell_pixels(plain, board, cell), cell_pixels(labelled, board, cell))
    for cell in [(2, 0), (0, -1), (8, 0)]:
        assert not differs(cell_pixels(plain, board, cell), cell_pixels(labelled, board, cell))


def test_different_labels_look_different() -> None:
    board = initial_board(GOALS)
    a = cell_pixels(render_image(board, highlight={(1, 0): "A"}), board, (1, 0))
    b = cell_pixels(render_image(board, highlight={(1, 0): "B"}), board, (1, 0))
    assert differs(a, b)


def test_a_label_far_away_widens_the_picture_to_include_it() -> None:
    board = initial_board(GOALS)
    labels = {(-3, 0): "A"}
    image = render_image(board, highlight=labels)
    assert image.width > render_image(board).width
    assert differs(
        cell_pixels(image, board, (-3, 0), extra=labels),
        cell_pixels(image, board, (-3, 1), extra=labels),
    )


def test_a_single_highlighted_cell_is_framed() -> None:
    board = board_with({(1, 0): Tile("cross", card=0)})
    plain = cell_pixels(render_image(board), board, (1, 0))
    framed = cell_pixels(render_image(board, highlight=(1, 0)), board, (1, 0))
    assert differs(plain, framed)


def test_a_revealed_goal_and_a_peeked_goal_differ_from_a_face_down_one() -> None:
    board = initial_board(GOALS)
    hidden = cell_pixels(render_image(board), board, (8, 0))
    peeked = render_image(board, show_goal_kinds={(8, 0): "goal_treasure"})
    assert differs(hidden, cell_pixels(peeked, board, (8, 0)))
    revealed = board_with({(8, 0): Tile("goal_treasure")})
    assert differs(hidden, cell_pixels(render_image(revealed), revealed, (8, 0)))
    stone = board_with({(8, 0): Tile("goal_stone_a")})
    assert differs(
        cell_pixels(render_image(revealed), revealed, (8, 0)),
        cell_pixels(render_image(stone), stone, (8, 0)),
    )


def test_a_huge_board_is_scaled_to_fit_telegram() -> None:
    cells = {(x, 0): Tile("straight_ew", card=x) for x in range(1, 60)}
    cells |= {(0, -y): Tile("straight_ns", card=100 + y) for y in range(1, 30)}
    image = decode(render_board(frozen({**initial_board(GOALS), **cells})))
    assert max(image.size) <= MAX_SIDE
    assert min(image.size) > 100


def test_a_board_of_forty_cards_stays_small() -> None:
    cells = {
        (x, y): Tile(ALL_KINDS[(x * 7 + y) % len(ALL_KINDS)], card=x * 10 + y)
        for x in range(1, 9)
        for y in range(-2, 3)
        if (x, y) not in [(8, 2), (8, 0), (8, -2)]
    }
    board = board_with(cells)
    assert len(board) >= 40
    assert len(render_board(board)) < 150_000


@pytest.mark.parametrize("kind", ["t_nse", "crystal_t_wne_s", "green_door_ns_w", "dead_stub_n"])
def test_a_placement_preview_draws_the_card_both_ways_below_the_board(kind: str) -> None:
    board = initial_board(GOALS)
    plain = decode(render_board(board))
    preview = decode(render_board(board, orientations=kind))
    assert preview.height > plain.height
    assert not ImageChops.difference(preview.crop((0, 0, *plain.size)), plain).getbbox()
    strip = preview.crop((0, plain.height, preview.width, preview.height))
    # The card as it is on the left, then the ↻ sign and the card turned round: 80-pixel
    # cards 20 pixels in from the top, at x = 20 and x = 260.
    upright, turned = (strip.crop((x, 20, x + 80, 100)) for x in (20, 260))
    for shown, rotated in ((upright, False), (turned, True)):
        placed = board_with({(1, 0): Tile(kind, card=1, rotated=rotated)})
        on_board = cell_pixels(decode(render_board(placed)), placed, (1, 0))
        assert not ImageChops.difference(shown, on_board).getbbox()
    assert ImageChops.difference(upright, turned).getbbox()


def test_placement_buttons_name_each_orientation_by_its_openings_and_mark_the_turned_one() -> None:
    for kind in ALL_KINDS:
        if kind == "start" or kind.startswith("goal"):
            continue
        upright, turned = (placement_label("B", kind, r) for r in (False, True))
        assert upright != turned and turned.endswith("↻") and not upright.endswith("↻")
        assert "·" not in upright + turned, kind
    assert placement_label("A", "curve_se", False) == "A ┌"
    assert placement_label("A", "curve_se", True) == "A ┘ ↻"


def crystal_pixels(image: Image.Image) -> int:
    colors = image.getcolors(image.width * image.height) or []
    return sum(count for count, color in colors if color == CRYSTAL)


@pytest.mark.parametrize("kind", ["crystal_cross", "crystal_straight_ew_n", "crystal_t_nes_w"])
def test_a_crystal_covers_enough_of_its_card_to_be_seen_on_a_phone(kind: str) -> None:
    board = board_with({(1, 0): Tile(kind, card=1)})
    card = cell_pixels(decode(render_board(board)), board, (1, 0))
    assert crystal_pixels(card) >= 0.05 * card.width * card.height


def test_the_crystals_on_the_table_are_counted_in_the_top_left_corner() -> None:
    plain = board_with({(1, 0): Tile("cross", card=1)})
    gems = board_with({(1, 0): Tile("crystal_cross", card=1), (2, 0): Tile("crystal_t_wne", 2)})
    corner = (0, 2)  # the picture's top-left cell, left empty by the maze here
    assert layout(plain).min_x == 0 and layout(plain).max_y == 2
    assert crystal_pixels(cell_pixels(decode(render_board(plain)), plain, corner)) == 0
    assert crystal_pixels(cell_pixels(decode(render_board(gems)), gems, corner)) > 50


PHONE = 390  # a phone's display width, in pixels


def rgb(image: Image.Image) -> list[tuple[int, ...]]:
    """An RGB picture's pixels, row by row."""
    data = image.convert("RGB").tobytes()
    return [tuple(data[i : i + 3]) for i in range(0, len(data), 3)]


MARKERS = {  # a card whose marker is drawn in this colour
    "blue_door_ew": DOORS[Door.BLUE],
    "green_door_ew": DOORS[Door.GREEN],
    "ladder_stub_w": LADDER,
    "crystal_straight_ew_n": CRYSTAL,
    "dead_straight_ew": ROCK,
}


def marker_size(cell: Image.Image, colour: tuple[int, int, int]) -> tuple[int, int]:
    """The width and height of what is drawn in ``colour`` inside a cell's picture."""
    mask = Image.new("1", cell.size)
    mask.putdata([pixel == colour for pixel in rgb(cell)])
    box = mask.getbbox()
    assert box is not None, colour
    return box[2] - box[0], box[3] - box[1]


def test_on_a_phone_390_px_wide_cells_keep_22_px_and_markers_8_px() -> None:
    # The widest mazes of random games span 16 columns (real play keeps narrower).
    west = -(PHONE_COLUMNS - 9)
    cells: dict[Cell, Tile] = {(x, 0): Tile("straight_ew", card=x) for x in range(west, 0)}
    cells.update({(1 + i, 1): Tile(kind, card=50 + i) for i, kind in enumerate(MARKERS)})
    board = board_with(cells)
    image = decode(render_board(board))
    grid = layout(board)
    assert grid.columns == PHONE_COLUMNS  # nothing but the cards: no empty border
    shown = PHONE / image.width  # the picture as a phone shows it
    left, top, right, bottom = grid.box((0, 0))
    assert min(right - left, bottom - top) * shown >= 22
    for i, (kind, colour) in enumerate(MARKERS.items()):
        width, height = marker_size(image.crop(grid.box((1 + i, 1))), colour)
        assert min(width, height) * shown >= 8, (kind, width, height)
    assert image.width >= 3 * PHONE  # and enough pixels to zoom in


def test_a_prompts_picture_shows_the_hand_as_small_cards_below_the_board() -> None:
    board = board_with({(1, 0): Tile("cross", card=1)})
    alone = decode(render_board(board))
    hand = (HandCard("t_nse", ""), HandCard("map", "map"), HandCard("cross", "", False))
    drawn = decode(render_board(board, hand=hand))
    assert drawn.width == alone.width and drawn.height > alone.height
    assert drawn.crop((0, 0, alone.width, alone.height)).tobytes() == alone.tobytes()
    strip = drawn.crop((0, alone.height, drawn.width, drawn.height))
    assert TUNNEL in set(rgb(strip))  # the path cards, drawn as cards
    greyed = decode(render_board(board, hand=(HandCard("cross", "", False),)))
    shown = decode(render_board(board, hand=(HandCard("cross", ""),)))
    assert differs(greyed, shown)  # a card that cannot be played looks it


def wide_maze(columns: int) -> Board:
    """A maze ``columns`` wide: a tunnel west of the start, the goals east."""
    west = -(columns - 9)
    return board_with({(x, 0): Tile("straight_ew", card=100 + x) for x in range(west, 0)})


def inked_box(image: Image.Image, box: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
    """The bounding box (in ``image``) of what is drawn on the background inside ``box``."""
    part = image.crop(box)
    mask = Image.new("1", part.size)
    mask.putdata([pixel != BACKGROUND for pixel in rgb(part)])
    found = mask.getbbox()
    assert found is not None
    return box[0] + found[0], box[1] + found[1], box[0] + found[2], box[1] + found[3]


@pytest.mark.parametrize("columns", [9, 17])
def test_on_a_phone_a_coordinate_stands_9_px_tall_with_its_minus_sign(columns: int) -> None:
    # A Saboteur 2 maze 17 columns wide used to show its coordinates 5 px tall at 390 px,
    # the hyphen of "-3" a dot; the picture writes a true minus sign, large enough.
    board = wide_maze(columns)
    image = decode(render_board(board))
    grid = layout(board)
    shown = PHONE / image.width
    assert image.width >= 3 * PHONE or columns < 10  # enough pixels to zoom in
    column = -3 if columns > 9 else 3
    left, _, right, _ = grid.box((column, 0))
    top_strip = (left, 0, right, grid.box((column, grid.max_y))[1])
    x0, y0, x1, y1 = inked_box(image, top_strip)
    assert (y1 - y0) * shown >= 9  # the figures' height
    label = coordinate(column)
    assert label == ("\u22123" if column < 0 else "3")
    assert (x1 - x0) * shown >= (14 if column < 0 else 6)  # the minus sign as wide as a digit
    row_strip = (0, *grid.box((grid.min_x, -2))[1::2])
    x0, y0, x1, y1 = inked_box(
        image, (row_strip[0], row_strip[1], grid.box((grid.min_x, 0))[0], row_strip[2])
    )
    assert (y1 - y0) * shown >= 9 and (x1 - x0) * shown >= 14  # "−2" on the left


def card_box(
    image: Image.Image, top: int, colour: tuple[int, int, int]
) -> tuple[int, int, int, int]:
    """Where the hand's card of ``colour`` lies, below row ``top`` of the picture."""
    strip = image.crop((0, top, image.width, image.height))
    mask = Image.new("1", strip.size)
    mask.putdata([pixel == colour for pixel in rgb(strip)])
    box = mask.getbbox()
    assert box is not None, colour
    return box[0], top + box[1], box[2], top + box[3]


@pytest.mark.parametrize("columns", [9, 17])
def test_the_hands_action_cards_keep_50_px_on_a_phone_whatever_the_mazes_width(
    columns: int,
) -> None:
    # The hand's tiles were 64 px under any maze: about 19 px on a phone under a wide one.
    board = wide_maze(columns)
    alone = decode(render_board(board))
    hand = (HandCard("rockfall", "desprendimiento de rocas"), HandCard("map", "mapa", False))
    image = decode(render_board(board, hand=hand))
    shown = PHONE / image.width
    left, top, right, bottom = card_box(image, alone.height, action_icons.OTHER_CARD)
    assert min(right - left, bottom - top) * shown >= 50


def test_an_action_card_is_its_icon_and_its_whole_name_is_written_under_it() -> None:
    board = wide_maze(17)
    top = decode(render_board(board)).height
    name = "desprendimiento de rocas"  # drawn "lesprendimientc" in a clipped tile before
    shown = decode(render_board(board, hand=(HandCard("rockfall", name),)))
    left, card_top, right, bottom = card_box(shown, top, action_icons.OTHER_CARD)
    for playable in (True, False):  # the same place, greyed or not
        image = decode(render_board(board, hand=(HandCard("rockfall", name, playable),)))
        card = image.crop((left, card_top, right, bottom))
        assert action_icons.ORANGE in set(rgb(card)) or not playable  # the 💥 burst
        assert (FORBIDDEN in set(rgb(card))) is not playable  # 🚫 on an unplayable card
        # Under the card: its name, inside the card's width, and no 🚫 over it.
        under = (left - 2, bottom + 2, right + 2, image.height)
        x0, y0, x1, y1 = inked_box(image, under)
        assert x0 >= left - 2 and x1 <= right + 2 and y1 - y0 > 0
        assert FORBIDDEN not in set(rgb(image.crop(under)))
    size = right - left
    assert name_lines("Spitzhacke reparieren", size)[1] == ("Spitzhacke", "reparieren")
    points, lines = name_lines(name, size)
    assert "".join(lines).replace("-", "").replace(" ", "") == name.replace(" ", "")
    assert all(font_of(points).getlength(line) <= 0.94 * size for line in lines)


def test_broken_and_repaired_tools_are_drawn_struck_or_ticked_as_in_the_mini_app() -> None:
    board = wide_maze(9)
    top = decode(render_board(board)).height
    kinds = ["broken_cart", "repair_pickaxe_lantern", "rockfall", "map", "theft", "trapped"]
    pictures = []
    for kind in kinds:
        image = decode(render_board(board, hand=(HandCard(kind, kind),)))
        colour = action_icons.card_colour(kind)
        box = card_box(image, top, colour)
        pictures.append(image.crop(box).resize((60, 60)))
        seen = set(rgb(image.crop(box)))
        if kind.startswith("broken_"):
            assert action_icons.STRIKE in seen
        if kind.startswith("repair_"):
            assert action_icons.TICK in seen
    for i, a in enumerate(pictures):
        for b in pictures[i + 1 :]:
            assert differs(a, b)


@pytest.mark.parametrize("kind", ["cross", "straight_ns", "bridge"])
def test_a_card_that_looks_the_same_turned_is_previewed_once(kind: str) -> None:
    # "as printed ↻ turned" drew a cross twice, though its buttons offer it one way.
    board = initial_board(GOALS)
    plain = decode(render_board(board))
    preview = decode(render_board(board, orientations=kind))
    strip = preview.crop((0, plain.height + 4, preview.width, preview.height))  # under its line
    assert not differs(
        strip.crop((120, 0, strip.width, strip.height)),
        Image.new("RGB", (strip.width - 120, strip.height), BACKGROUND),
    )
    assert differs(strip.crop((20, 20, 100, 100)), Image.new("RGB", (80, 80), BACKGROUND))
