"""The maze as a PNG, drawn by code with Pillow (no image assets; text in the bundled
DejaVu Sans, ``tgbot/fonts``).

Each card is drawn from its geometry (:attr:`domain.board.Tile.segments`) by
:mod:`tgbot.presenter.tiles`, in the colours of :mod:`tgbot.presenter.palette`: tunnels
are light bands from an edge towards the card's middle; a segment that joins nothing ends
in a rock; a bridge's two tunnels pass over and under; a double curve's two bends stay
apart. Ladders, blue and green doors and crystals are drawn on their card. Coordinates
run along the edges so players can name cells, and ``highlight`` writes labels ("A",
"B", ...) into cells so keyboard buttons can refer to them.

Read on a phone: the picture holds the cards and nothing around them (labelled cells
included), so at a display width of 390 px a cell keeps at least 22 px for mazes up to
:data:`PHONE_COLUMNS` columns wide, and every marker on a card (door, ladder, crystal,
dead end) covers at least 0.37 of its cell, 8 px at that size. The coordinates stand
:data:`AXIS_PHONE_PX` px tall at that width whatever the maze's width, a negative one
written with a true minus sign ("−3", never a hyphen that shrinks to a dot); the prompt's
hand keeps six cards to the picture's width (about 55 px each on a phone), action cards
drawn as the Mini App's icons with their names under them.

>>> from domain.board import initial_board
>>> png = render_board(initial_board(("goal_treasure", "goal_stone_a", "goal_stone_b")))
>>> png[:8] == b"\\x89PNG\\r\\n\\x1a\\n"
True
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Final

from PIL import Image, ImageDraw, ImageFont

from domain.board import Board, Cell
from tgbot.presenter import action_icons
from tgbot.presenter.palette import (
    AXIS_TEXT,
    BACKGROUND,
    CARD_EDGE,
    FORBIDDEN,
    GRID,
    LABEL,
    LABEL_EDGE,
    MARK,
    TUNNEL,
    font_of,
    png_bytes,
)
from tgbot.presenter.texts import coordinate, is_symmetric
from tgbot.presenter.tiles import draw_crystal_count, tile_image

if TYPE_CHECKING:
    from tgbot.presenter.messages import HandCard


CELL: Final = 80  # pixels per card at full size
MIN_CELL: Final = 28
MAX_SIDE: Final = 1280  # Telegram shows photos at most 1280 px on the long side
MARGIN_CELLS: Final = 0  # empty cells drawn around the cards (labelled cells are drawn)
PHONE_COLUMNS: Final = 16  # mazes up to this wide keep 22 px cells at 390 px
PHONE: Final = 390  # a phone's display width, in pixels
AXIS_PHONE_PX: Final = 13  # the coordinates' font size as a phone shows the picture
HAND_CELL: Final = 64  # pixels per card of the hand drawn under a prompt's board


def render_board(
    board: Board,
    *,
    highlight: Mapping[Cell, str] | Cell | None = None,
    show_goal_kinds: Mapping[Cell, str] | None = None,
    cell_size: int = CELL,
    orientations: str | None = None,
    hand: Sequence[HandCard] = (),
) -> bytes:
    """The board as PNG bytes.

    ``highlight`` maps cells to short labels drawn in them (legal cells for a card,
    rockfall targets); a single cell instead gets a frame (the last move).
    ``show_goal_kinds`` peeks under face-down goals (what a map showed this player).
    ``orientations``: a path card's kind, drawn below the board both ways — as it is,
    and turned 180° under a ↻ sign, as the placement buttons name them.
    ``hand``: the viewer's cards, drawn small below (those not playable now greyed).
    """
    image = render_image(
        board, highlight=highlight, show_goal_kinds=show_goal_kinds, cell_size=cell_size
    )
    if orientations is not None:
        image = with_orientations(image, orientations)
    if hand:
        image = with_hand(image, hand)
    return png_bytes(image)


HAND_PER_ROW: Final = 6  # the hand's cards share the picture's width six to a row


def hand_card_size(width: int) -> int:
    """The side of a hand's card under a picture ``width`` pixels wide: a sixth of it, so
    on a phone a card keeps about 55 px (at 390 px) however wide the maze is."""
    gap = _hand_gap(width)
    return max(HAND_CELL, (width - gap) // HAND_PER_ROW - gap)


def _hand_gap(width: int) -> int:
    return max(6, width // 96)


def with_hand(board: Image.Image, hand: Sequence[HandCard]) -> Image.Image:
    """``board`` with the hand below it, as the Mini App shows it: path cards by their
    shape, action cards by their icon (:mod:`tgbot.presenter.action_icons`) with their name under
    the card; a card that cannot be played now is greyed and crossed (🚫) on its picture,
    never on its name."""
    width = max(board.width, HAND_PER_ROW * (HAND_CELL + 8) + 8)
    gap = _hand_gap(width)
    size = hand_card_size(width)
    rows = -(-len(hand) // HAND_PER_ROW)
    names = [name_lines(card.label, size) if card.label else None for card in hand]
    font_px = max((n[0] for n in names if n is not None), default=0)
    label_rows = max((len(n[1]) for n in names if n is not None), default=0)
    line = round(font_px * 1.2)
    label = line * label_rows + (gap // 2 if label_rows else 0)
    strip = rows * (size + label + gap) + gap
    image = Image.new("RGB", (width, board.height + strip), BACKGROUND)
    image.paste(board, (0, 0))
    draw = ImageDraw.Draw(image)
    draw.line([(0, board.height + 1), (width, board.height + 1)], fill=GRID, width=2)
    for i, (card, name) in enumerate(zip(hand, names, strict=True)):
        row, col = divmod(i, HAND_PER_ROW)
        left = gap + col * (size + gap)
        top = board.height + gap + row * (size + label + gap)
        image.paste(_hand_card(card.kind, bool(card.label), card.playable, size), (left, top))
        if name is None:
            continue
        colour = TUNNEL if card.playable else AXIS_TEXT
        for n, text in enumerate(name[1]):
            draw.text(
                (left + size / 2, top + size + gap // 2 + n * line),
                text,
                fill=colour,
                font=font_of(font_px),
                anchor="ma",
            )
    return image


@cache
def _hand_card(kind: str, action: bool, playable: bool, size: int) -> Image.Image:
    if not action:  # a path card: its picture
        image = tile_image(kind, False, True, None, size).copy()
    else:
        image = Image.new("RGB", (size, size), BACKGROUND)
        draw = ImageDraw.Draw(image)
        inset = max(1, size // 32)
        box = [inset, inset, size - 1 - inset, size - 1 - inset]
        draw.rounded_rectangle(
            box,
            radius=size // 10,
            fill=action_icons.card_colour(kind),
            outline=CARD_EDGE,
            width=max(2, size // 24),
        )
        action_icons.draw_action_icon(draw, kind, size)
    if not playable:
        veil = Image.new("RGB", image.size, BACKGROUND)
        image = Image.blend(image, veil, 0.55)
        draw = ImageDraw.Draw(image)
        r, c, w = size * 0.3, size / 2, max(2, size // 14)
        draw.ellipse([c - r, c - r, c + r, c + r], outline=FORBIDDEN, width=w)
        draw.line([(c - r * 0.7, c + r * 0.7), (c + r * 0.7, c - r * 0.7)], fill=FORBIDDEN, width=w)
    return image


@cache
def name_lines(label: str, size: int) -> tuple[int, tuple[str, ...]]:
    """An action card's name under a card ``size`` px wide: the font size and its lines
    (at most three), whole words as large as fits; a word longer than the card is split
    with a hyphen, as the Mini App splits it."""
    room = size * 0.94  # a gap between two cards' names
    sizes = range(round(size * 0.19), round(size * 0.15) - 1, -1)
    for split in (False, True):  # whole words at any of these sizes first
        for points in sizes:
            font = font_of(points)
            lines = _wrap(label, font, room, split=split)
            if len(lines) <= 3 and all(font.getlength(x) <= room for x in lines):
                return points, tuple(lines)
    return points, tuple(lines[:3])


def _wrap(label: str, font: ImageFont.FreeTypeFont, room: float, *, split: bool) -> list[str]:
    lines: list[str] = []
    for word in label.split():
        if lines and font.getlength(f"{lines[-1]} {word}") <= room:
            lines[-1] += f" {word}"
            continue
        while split and font.getlength(word) > room and len(word) > 5:
            cut = max(  # at least three letters on each side of the hyphen
                (n for n in range(3, len(word) - 2) if font.getlength(word[:n] + "-") <= room),
                default=3,
            )
            lines.append(word[:cut] + "-")
            word = word[cut:]
        lines.append(word)
    return lines


def with_orientations(board: Image.Image, kind: str, size: int = CELL) -> Image.Image:
    """``board`` with a strip below it: the card ``kind`` as it is, and turned (↻); a
    card that looks the same turned (:func:`tgbot.presenter.texts.is_symmetric`) lies one way only,
    as its buttons offer it, and is drawn once."""
    gap = size // 4
    strip = size + 2 * gap
    width = max(board.width, 5 * size)
    image = Image.new("RGB", (width, board.height + strip), BACKGROUND)
    image.paste(board, (0, 0))
    draw = ImageDraw.Draw(image)
    top = board.height + gap
    draw.line([(0, board.height + 1), (width, board.height + 1)], fill=GRID, width=2)
    left = gap
    image.paste(tile_image(kind, False, True, None, size), (left, top))
    if is_symmetric(kind):
        return image
    turned = left + size + gap * 3
    _draw_turn_sign(draw, (turned + size // 2, top + size // 2), size // 2)
    image.paste(tile_image(kind, True, True, None, size), (turned + size + gap, top))
    return image


def _draw_turn_sign(draw: ImageDraw.ImageDraw, at: tuple[int, int], size: int) -> None:
    """↻: an open circle turning clockwise, its arrowhead at the top."""
    x, y = at
    r = size * 0.7
    line = max(3, size // 8)
    draw.arc([x - r, y - r, x + r, y + r], start=300, end=250, fill=LABEL, width=line)
    tip = (x - r * 0.34, y - r)  # where the arc ends (250°), pointing right
    head = size * 0.32
    draw.polygon(
        [
            (tip[0] + head, tip[1]),
            (tip[0] - head * 0.2, tip[1] - head * 0.75),
            (tip[0] - head * 0.2, tip[1] + head * 0.75),
        ],
        fill=LABEL,
    )


@dataclass(frozen=True, slots=True)
class Layout:
    """Where cells fall in the picture (before any final downscaling, see ``scale``)."""

    min_x: int
    max_x: int
    min_y: int
    max_y: int
    size: int  # pixels per cell
    axis: int  # width of the coordinate strips, top and left
    font: int = 10  # the coordinates' font size

    @property
    def columns(self) -> int:
        return self.max_x - self.min_x + 1

    @property
    def rows(self) -> int:
        return self.max_y - self.min_y + 1

    @property
    def drawn_size(self) -> tuple[int, int]:
        return self.axis + self.columns * self.size, self.axis + self.rows * self.size

    @property
    def scale(self) -> float:
        """The final downscaling factor (1.0 unless the board is huge)."""
        return min(1.0, MAX_SIDE / max(self.drawn_size))

    def origin(self, cell: Cell) -> tuple[int, int]:
        """Top-left pixel of ``cell`` in the drawn picture."""
        return (
            self.axis + (cell[0] - self.min_x) * self.size,
            self.axis + (self.max_y - cell[1]) * self.size,
        )

    def box(self, cell: Cell) -> tuple[int, int, int, int]:
        """(left, top, right, bottom) of ``cell`` in the final picture."""
        x0, y0 = self.origin(cell)
        k = self.scale
        return (
            round(x0 * k),
            round(y0 * k),
            round((x0 + self.size) * k),
            round((y0 + self.size) * k),
        )


def layout(board: Board, extra: Iterable[Cell] = (), cell_size: int = CELL) -> Layout:
    """The grid for ``board``: every card and ``extra`` cell plus a margin of empty cells,
    with the cell size reduced so the long side fits :data:`MAX_SIDE` when it can."""
    cells = [*board, *extra] or [(0, 0)]
    xs = [x for x, _ in cells]
    ys = [y for _, y in cells]
    m = MARGIN_CELLS
    min_x, max_x, min_y, max_y = min(xs) - m, max(xs) + m, min(ys) - m, max(ys) + m
    longest = max(max_x - min_x, max_y - min_y) + 1
    size = max(MIN_CELL, min(cell_size, int(MAX_SIDE / (longest + 0.5))))
    font, axis = _axis_room(min_x, max_x, min_y, max_y, size)
    if axis + longest * size > MAX_SIDE and size > MIN_CELL:  # the strips count too
        size = max(MIN_CELL, (MAX_SIDE - axis) // longest)
        font, axis = _axis_room(min_x, max_x, min_y, max_y, size)
    return Layout(min_x, max_x, min_y, max_y, size, axis, font)


def _axis_room(min_x: int, max_x: int, min_y: int, max_y: int, size: int) -> tuple[int, int]:
    """The coordinates' font size and the strips' width: the figures stand
    :data:`AXIS_PHONE_PX` px tall once the picture is shown :data:`PHONE` px wide, as
    long as a column's number fits its cell (else as large as fits)."""
    columns = max_x - min_x + 1
    columns_label = max((coordinate(x) for x in (min_x, max_x)), key=len)
    rows_label = max((coordinate(y) for y in (min_y, max_y)), key=len)
    # The picture is about columns·size + 2 em wide (the row numbers' strip).
    wanted = math.ceil(AXIS_PHONE_PX * columns * size / (PHONE - 2 * AXIS_PHONE_PX))
    font = max(10, size * 3 // 10, wanted)
    while font > 10 and font_of(font).getlength(columns_label) > size * 0.9:
        font -= 1
    axis = max(
        14,
        size * 2 // 5,
        round(font * 1.35),
        math.ceil(font_of(font).getlength(rows_label) + font * 0.35),
    )
    return font, axis


def render_image(
    board: Board,
    *,
    highlight: Mapping[Cell, str] | Cell | None = None,
    show_goal_kinds: Mapping[Cell, str] | None = None,
    cell_size: int = CELL,
    framed: Iterable[Cell] = (),
) -> Image.Image:
    """The board as a Pillow image (see :func:`render_board`); ``framed``: more cells
    framed as the last move is (the moves a replay's frame shows together)."""
    labels: Mapping[Cell, str] = highlight if isinstance(highlight, Mapping) else {}
    marked = [*framed, *([highlight] if isinstance(highlight, tuple) else [])]
    peeks = show_goal_kinds or {}
    crystals = sum(t.spec.crystals for t in board.values() if t.face_up)
    extra: list[Cell] = list(labels)
    if crystals:  # counted in the top-left cell: one column more when a card lies there
        cells = [*board, *labels]
        corner = (min(x for x, _ in cells), max(y for _, y in cells))
        if corner in board:
            extra.append((corner[0] - 1, corner[1]))
    grid = layout(board, extra, cell_size)
    size, axis = grid.size, grid.axis
    width, height = grid.drawn_size
    image = Image.new("RGB", (width, height), BACKGROUND)
    draw = ImageDraw.Draw(image)

    font_size = grid.font
    for col in range(grid.columns):
        left = axis + col * size
        draw.line([(left, axis), (left, height)], fill=GRID)
        image.paste(_axis_number(grid.min_x + col, size, axis, font_size), (left, 0))
    for row in range(grid.rows):
        top = axis + row * size
        draw.line([(axis, top), (width, top)], fill=GRID)
        image.paste(_axis_number(grid.max_y - row, axis, size, font_size), (0, top))

    for cell, tile in board.items():
        peek = peeks.get(cell) if not tile.face_up else None
        image.paste(
            tile_image(tile.kind, tile.rotated, tile.face_up, peek, size), grid.origin(cell)
        )

    if crystals:
        draw_crystal_count(draw, grid.origin((grid.min_x, grid.max_y)), size, crystals)

    for cell in dict.fromkeys(marked):
        x0, y0 = grid.origin(cell)
        draw.rectangle(
            [x0, y0, x0 + size - 1, y0 + size - 1], outline=MARK, width=max(3, size // 16)
        )
    for cell, label in labels.items():
        _draw_label(draw, grid.origin(cell), size, label, occupied=cell in board)

    if grid.scale < 1.0:
        image = image.resize(
            (max(1, round(width * grid.scale)), max(1, round(height * grid.scale))),
            Image.Resampling.LANCZOS,
        )
    return image


@cache
def _axis_number(number: int, width: int, height: int, font_size: int) -> Image.Image:
    """A coordinate centred in its ``width`` × ``height`` box of the axis strip, drawn once
    (pasting it costs a fraction of drawing the text)."""
    box = Image.new("RGB", (width, height), BACKGROUND)
    ImageDraw.Draw(box).text(
        (width // 2, height // 2),
        coordinate(number),
        fill=AXIS_TEXT,
        font=_font(font_size),
        anchor="mm",
    )
    return box


_font = font_of


def _draw_label(
    draw: ImageDraw.ImageDraw, origin: tuple[int, int], size: int, label: str, *, occupied: bool
) -> None:
    x0, y0 = origin
    cx, cy = x0 + size // 2, y0 + size // 2
    if occupied:  # a badge over the card (rockfall targets)
        r = size // 4
        draw.ellipse([cx - r, cy - r, cx + r, cy + r], fill=LABEL, outline=LABEL_EDGE, width=2)
        draw.text((cx, cy), label, fill=LABEL_EDGE, font=_font(size // 3), anchor="mm")
        return
    inset = max(3, size // 12)
    draw.rounded_rectangle(
        [x0 + inset, y0 + inset, x0 + size - inset, y0 + size - inset],
        radius=size // 8,
        outline=LABEL,
        width=max(2, size // 24),
    )
    draw.text(
        (cx, cy),
        label,
        fill=LABEL,
        font=_font(size // 2 if len(label) <= 2 else size // 3),
        anchor="mm",
        stroke_width=max(1, size // 40),
        stroke_fill=LABEL_EDGE,
    )
