"""One card's picture, drawn from its geometry (:attr:`domain.board.Tile.segments`) and
cached per size: tunnels, rocks, bridges and double curves, ladders, doors, crystals, the
goals and a face-down card's back (with what a map showed under it). The crystals' count
drawn in a board's corner is here too.
"""

from __future__ import annotations

from functools import cache
from typing import Final

from PIL import Image, ImageDraw

from domain.board import Tile
from domain.cards import SIDES, E, N, S, W
from tgbot.presenter.palette import (
    BACKGROUND,
    CARD,
    CARD_BACK,
    CARD_BACK_EDGE,
    CARD_EDGE,
    CRYSTAL,
    CRYSTAL_EDGE,
    DOORS,
    GOLD,
    GOLD_EDGE,
    KEYHOLE,
    LADDER,
    QUESTION,
    ROCK,
    ROCK_EDGE,
    START_CARD,
    STONE,
    TUNNEL,
    TUNNEL_EDGE,
    TUNNEL_UNDER,
    WHITE,
    Color,
    font_of,
)

# Image-space direction of each side: y grows downwards in the picture, north is up.
_VECTOR: Final = {N: (0, -1), E: (1, 0), S: (0, 1), W: (-1, 0)}


@cache
def tile_image(kind: str, rotated: bool, face_up: bool, peek: str | None, size: int) -> Image.Image:
    """One card, drawn once per size and cached: boards reuse a few dozen pictures."""
    image = Image.new("RGB", (size, size), BACKGROUND)
    draw = ImageDraw.Draw(image)
    inset = max(1, size // 32)
    box = [inset, inset, size - 1 - inset, size - 1 - inset]
    radius = size // 10
    if not face_up:
        _draw_card_back(draw, box, radius, size, peek)
        return image
    tile = Tile(kind, rotated=rotated)
    spec = tile.spec
    fill = START_CARD if kind == "start" else CARD
    edge = GOLD if kind == "goal_treasure" else CRYSTAL if spec.crystals else CARD_EDGE
    draw.rounded_rectangle(box, radius=radius, fill=fill, outline=edge, width=max(2, size // 24))
    stub = len(tile.segments) == 1 and _count(tile.segments[0]) == 1
    _draw_tunnels(draw, tile.segments, size, stub_mark=not (spec.ladder or spec.crystals))
    c = size / 2
    if spec.door is not None:
        pivot = _pivot(tile.segments, spec.door_segment, size)
        _draw_door(draw, pivot, size, DOORS[spec.door])
    if spec.ladder:
        _draw_ladder(draw, (c, c), size)
    if kind == "goal_treasure":
        _draw_treasure(draw, (c, c), size)
    elif kind.startswith("goal_stone"):
        segment = tile.segments[0]
        _draw_stone(draw, _corner_point(segment, size, 0.0), size)
    if spec.crystals:
        _draw_crystals(draw, spec.crystals, size, tile.segments, at_end=stub)
    return image


def _through(segments: tuple[int, ...]) -> int:
    return sum(1 for s in segments if _count(s) > 1)


def _count(mask: int) -> int:
    return bin(mask).count("1")


def _corner_point(segment: int, size: int, shift: float) -> tuple[float, float]:
    """The card's middle, moved ``shift`` cells towards the sides of ``segment``."""
    dx = sum(_VECTOR[side][0] for side in SIDES if segment & side)
    dy = sum(_VECTOR[side][1] for side in SIDES if segment & side)
    return size / 2 + dx * shift * size, size / 2 + dy * shift * size


def _pivot(segments: tuple[int, ...], index: int, size: int) -> tuple[float, float]:
    """Where a segment's tunnels meet. Two bends on one card (a double curve) meet
    off-centre, in their own corner, so they stay visibly apart."""
    segment = segments[index]
    if _through(segments) >= 2 and _count(segment) == 2 and segment not in (N | S, E | W):
        return _corner_point(segment, size, 0.2)
    if _count(segment) == 1 and len(segments) > 1:
        return _stub_end(segment, size)
    return size / 2, size / 2


def _stub_end(side: int, size: int) -> tuple[float, float]:
    vx, vy = _VECTOR[side]
    return size / 2 + vx * size * 0.27, size / 2 + vy * size * 0.27


def _edge_point(side: int, size: int) -> tuple[float, float]:
    vx, vy = _VECTOR[side]
    return size / 2 + vx * size / 2, size / 2 + vy * size / 2


def _draw_tunnels(
    draw: ImageDraw.ImageDraw, segments: tuple[int, ...], size: int, *, stub_mark: bool
) -> None:
    band = max(6, int(size * 0.28))
    outline = max(2, size // 22)
    bridge = N | S in segments and E | W in segments
    # A bridge: the E–W tunnel first, the N–S one drawn over it with a heavier outline.
    order = sorted(range(len(segments)), key=lambda i: segments[i] == N | S)
    for index in order:
        segment = segments[index]
        pivot = _pivot(segments, index, size)
        legs = [(_edge_point(side, size), pivot) for side in SIDES if segment & side]
        dead = _count(segment) == 1 and len(segments) > 1
        over = bridge and segment == N | S
        under = bridge and segment == E | W
        edge = outline * 2 if over else outline
        fill = TUNNEL_UNDER if under else TUNNEL
        for width, color in ((band + 2 * edge, TUNNEL_EDGE), (band, fill)):
            for start, end in legs:
                draw.line([start, end], fill=color, width=width)
                if not dead:
                    r = width / 2
                    draw.ellipse([end[0] - r, end[1] - r, end[0] + r, end[1] + r], fill=color)
        # The outline must not cut across the tunnel where it leaves the card.
        for start, end in legs:
            _open_edge(draw, start, end, band, size, fill)
        if bridge and segment == N | S:
            _draw_planks(draw, size, band)
        if dead or (stub_mark and len(segments) == 1 and _count(segment) == 1):
            # Big enough to read on a phone; smaller where three or four share a card.
            _draw_rock(draw, pivot, band * (0.82 if len(segments) <= 2 else 0.64))


def _draw_planks(draw: ImageDraw.ImageDraw, size: int, band: int) -> None:
    """Cross planks on the upper tunnel of a bridge, where it passes over the other."""
    c = size / 2
    half = band / 2
    for k in (-1, 0, 1):
        y = c + k * band * 0.4
        draw.line([(c - half, y), (c + half, y)], fill=CARD_EDGE, width=max(1, size // 40))


def _open_edge(
    draw: ImageDraw.ImageDraw,
    start: tuple[float, float],
    end: tuple[float, float],
    band: int,
    size: int,
    fill: Color,
) -> None:
    x0, y0 = start
    half = band / 2
    depth = max(2, size // 20)
    if x0 in (0, size):  # west or east edge
        xa, xb = (0, depth) if x0 == 0 else (size - depth, size)
        draw.rectangle([xa, y0 - half, xb, y0 + half], fill=fill)
    else:
        ya, yb = (0, depth) if y0 == 0 else (size - depth, size)
        draw.rectangle([x0 - half, ya, x0 + half, yb], fill=fill)


def _draw_rock(draw: ImageDraw.ImageDraw, at: tuple[float, float], r: float) -> None:
    x, y = at
    points = [
        (x - r, y + r * 0.2),
        (x - r * 0.5, y - r * 0.8),
        (x + r * 0.3, y - r * 0.9),
        (x + r, y - r * 0.1),
        (x + r * 0.7, y + r * 0.8),
        (x - r * 0.4, y + r * 0.9),
    ]
    draw.polygon(points, fill=ROCK, outline=ROCK_EDGE, width=2)
    draw.line([(x - r * 0.4, y - r * 0.2), (x + r * 0.3, y + r * 0.3)], fill=ROCK_EDGE, width=2)


def _draw_ladder(draw: ImageDraw.ImageDraw, at: tuple[float, float], size: int) -> None:
    x, y = at
    half_h, half_w = size * 0.22, size * 0.19
    line = max(2, size // 18)
    for rail in (x - half_w, x + half_w):
        draw.line([(rail, y - half_h), (rail, y + half_h)], fill=LADDER, width=line)
    steps = 4
    for i in range(steps):
        ry = y - half_h + (i + 0.5) * (2 * half_h / steps)
        draw.line([(x - half_w, ry), (x + half_w, ry)], fill=LADDER, width=max(1, line - 1))


def _draw_door(draw: ImageDraw.ImageDraw, at: tuple[float, float], size: int, color: Color) -> None:
    x, y = at
    r = size * 0.21
    draw.rounded_rectangle(
        [x - r, y - r, x + r, y + r], radius=r / 3, fill=color, outline=WHITE, width=2
    )
    k = r * 0.28  # a keyhole
    draw.ellipse([x - k, y - k * 1.6, x + k, y + k * 0.4], fill=KEYHOLE)
    draw.polygon([(x - k * 0.6, y), (x + k * 0.6, y), (x, y + r * 0.65)], fill=KEYHOLE)


def _draw_treasure(draw: ImageDraw.ImageDraw, at: tuple[float, float], size: int) -> None:
    x, y = at
    r = size * 0.17
    for dx, dy in ((-0.7, 0.35), (0.7, 0.35), (0.0, -0.35)):
        cx, cy = x + dx * r, y + dy * r
        draw.ellipse(
            [cx - r * 0.7, cy - r * 0.7, cx + r * 0.7, cy + r * 0.7],
            fill=GOLD,
            outline=GOLD_EDGE,
            width=2,
        )


def _draw_stone(draw: ImageDraw.ImageDraw, at: tuple[float, float], size: float) -> None:
    x, y = at
    rx, ry = size * 0.17, size * 0.12
    draw.ellipse([x - rx, y - ry, x + rx, y + ry], fill=STONE, outline=ROCK_EDGE, width=2)


def _draw_crystals(
    draw: ImageDraw.ImageDraw, count: int, size: int, segments: tuple[int, ...], *, at_end: bool
) -> None:
    """Diamonds big enough to see on a phone: where a stub's tunnel ends, else in a
    corner no tunnel reaches, away from the card's dead ends (their rocks)."""
    r = size * (0.22 if at_end else 0.19)
    x, y = (size / 2, size / 2) if at_end else _free_corner(segments, size)
    step = 2.2 * r if x < size / 2 else -2.2 * r
    for i in range(count):
        _draw_diamond(draw, (x + i * step, y), r, max(2, size // 30))


def _free_corner(segments: tuple[int, ...], size: int) -> tuple[float, float]:
    """A corner whose two sides hold no dead end (top-left first)."""
    stubs = 0
    if len(segments) > 1:
        stubs = sum(s for s in segments if _count(s) == 1)
    for sides, (fx, fy) in (
        (N | W, (0.19, 0.23)),
        (N | E, (0.81, 0.23)),
        (S | W, (0.19, 0.77)),
        (S | E, (0.81, 0.77)),
    ):
        if not stubs & sides:
            return size * fx, size * fy
    return size * 0.19, size * 0.23


def draw_crystal_count(
    draw: ImageDraw.ImageDraw, origin: tuple[int, int], size: int, count: int
) -> None:
    """The crystals on the table (what geologists share), in the top-left cell, kept
    empty for them: a gem and the number."""
    x0, y0 = origin
    _draw_diamond(draw, (x0 + size * 0.3, y0 + size * 0.5), size * 0.16, max(2, size // 30))
    draw.text(
        (x0 + size * 0.68, y0 + size * 0.5),
        str(count),
        fill=CRYSTAL,
        font=font_of(max(10, size * 2 // 5)),
        anchor="mm",
        stroke_width=max(1, size // 40),
        stroke_fill=CRYSTAL_EDGE,
    )


def _draw_diamond(
    draw: ImageDraw.ImageDraw, at: tuple[float, float], r: float, width: int = 2
) -> None:
    x, y = at
    draw.polygon(
        [(x, y - r * 1.3), (x + r, y), (x, y + r * 1.3), (x - r, y)],
        fill=CRYSTAL,
        outline=CRYSTAL_EDGE,
        width=width,
    )
    # A facet line, so the shape reads as a gem and not as a blob.
    draw.line([(x - r * 0.5, y - r * 0.25), (x + r * 0.5, y - r * 0.25)], fill=WHITE, width=1)


def _draw_card_back(
    draw: ImageDraw.ImageDraw, box: list[int], radius: int, size: int, peek: str | None
) -> None:
    c = size / 2
    if peek is None:
        draw.rounded_rectangle(box, radius=radius, fill=CARD_BACK, outline=CARD_BACK_EDGE, width=2)
        draw.text((c, c), "?", fill=QUESTION, font=font_of(size // 2), anchor="mm")
        return
    # What this player's map showed: still face down (the back's colour), with what lies
    # under it drawn large, framed in gold for the treasure.
    edge = GOLD if peek == "goal_treasure" else CARD_BACK_EDGE
    draw.rounded_rectangle(
        box, radius=radius, fill=CARD_BACK, outline=edge, width=max(3, size // 16)
    )
    if peek == "goal_treasure":
        _draw_treasure(draw, (c, c), size)
    else:
        _draw_stone(draw, (c, c), size * 1.6)
    draw.text((size * 0.8, size * 0.2), "?", fill=QUESTION, font=font_of(size // 4), anchor="mm")
