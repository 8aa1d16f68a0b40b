"""Action cards drawn as the Mini App draws them (``miniapp/static/icons.js``): the tools
as small pictures, struck through in red on a red card when broken, ticked in green on a
green card when repaired; every other action as its legend icon (the emoji of
:data:`tgbot.presenter.icons.ACTION`) drawn in shapes, since the bundled font has no
colour emoji.

Each icon is drawn in the 24 × 24 box of the Mini App's SVG paths, scaled to the card.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Final

from PIL import ImageDraw

Color = tuple[int, int, int]
Point = tuple[float, float]

INK: Final[Color] = (246, 230, 190)  # the tunnels' colour, as the Mini App's tools
BROKEN_CARD: Final[Color] = (122, 42, 34)
REPAIR_CARD: Final[Color] = (42, 106, 58)
OTHER_CARD: Final[Color] = (58, 63, 110)
STRIKE: Final[Color] = (255, 90, 78)
TICK: Final[Color] = (156, 255, 138)
ORANGE: Final[Color] = (236, 130, 40)
GREY: Final[Color] = (150, 150, 156)
DARK: Final[Color] = (30, 26, 24)
GOLDEN: Final[Color] = (246, 196, 36)
COLOURS: Final = (INK, BROKEN_CARD, REPAIR_CARD, OTHER_CARD, STRIKE, TICK, ORANGE, GREY, DARK)

TOOLS: Final = ("pickaxe", "lantern", "cart")


def card_colour(kind: str) -> Color:
    """An action card's colour: red for a broken tool, green for a repair, else blue."""
    if kind.startswith("broken_"):
        return BROKEN_CARD
    if kind.startswith("repair_"):
        return REPAIR_CARD
    return OTHER_CARD


class _Pen:
    """Draws in the icon's 24 × 24 box placed at ``(x, y)`` and scaled ``k`` times."""

    def __init__(self, draw: ImageDraw.ImageDraw, x: float, y: float, k: float) -> None:
        self.draw, self.x, self.y, self.k = draw, x, y, k

    def p(self, px: float, py: float) -> Point:
        return self.x + px * self.k, self.y + py * self.k

    def w(self, width: float) -> int:
        return max(1, round(width * self.k))

    def polygon(self, points: Sequence[Point], fill: Color, outline: Color | None = None) -> None:
        self.draw.polygon(
            [self.p(*q) for q in points], fill=fill, outline=outline, width=self.w(0.8)
        )

    def rect(
        self, x: float, y: float, w: float, h: float, fill: Color | None, line: float = 0
    ) -> None:
        box = [self.p(x, y), self.p(x + w, y + h)]
        if fill is not None:
            self.draw.rounded_rectangle(box, radius=self.k * min(w, h) / 3, fill=fill)
        else:
            self.draw.rounded_rectangle(
                box, radius=self.k * min(w, h) / 6, outline=INK, width=self.w(line)
            )

    def circle(
        self, cx: float, cy: float, r: float, fill: Color | None, line: float = 0, ink: Color = INK
    ) -> None:
        box = [self.p(cx - r, cy - r), self.p(cx + r, cy + r)]
        if fill is not None:
            self.draw.ellipse(box, fill=fill)
        else:
            self.draw.ellipse(box, outline=ink, width=self.w(line))

    def line(self, points: Sequence[Point], colour: Color, width: float) -> None:
        self.draw.line(
            [self.p(*q) for q in points], fill=colour, width=self.w(width), joint="curve"
        )
        r = width * self.k / 2  # round caps
        for q in (points[0], points[-1]):
            cx, cy = self.p(*q)
            self.draw.ellipse([cx - r, cy - r, cx + r, cy + r], fill=colour)

    def arc(
        self, cx: float, cy: float, r: float, start: float, end: float, colour: Color, width: float
    ) -> None:
        box = [self.p(cx - r, cy - r), self.p(cx + r, cy + r)]
        self.draw.arc(box, start, end, fill=colour, width=self.w(width))


def _quad(a: Point, c: Point, b: Point, steps: int = 8) -> list[Point]:
    """A quadratic Bézier curve from ``a`` to ``b`` pulled towards ``c``, as points."""
    out = []
    for i in range(1, steps + 1):
        t = i / steps
        out.append(
            (
                (1 - t) ** 2 * a[0] + 2 * (1 - t) * t * c[0] + t**2 * b[0],
                (1 - t) ** 2 * a[1] + 2 * (1 - t) * t * c[1] + t**2 * b[1],
            )
        )
    return out


def _pickaxe(pen: _Pen) -> None:
    # The handle: a bar 2.4 wide from (12.2, 6.5) to (12.2, 21.5), turned 18° about (12, 14).
    pen.line([(9.9, 7.0), (14.5, 21.1)], INK, 2.4)
    head = [(4.0, 9.0), *_quad((4, 9), (12, 2), (20, 9)), (18.5, 10.5)]
    head += _quad((18.5, 10.5), (12, 6), (5.5, 10.5))
    pen.polygon(head, INK)


def _lantern(pen: _Pen) -> None:
    pen.circle(12, 3.5, 2, None, 1.5)
    pen.rect(7, 5.5, 10, 2.5, INK)
    pen.rect(8, 8, 8, 10, None, 1.8)
    flame = [
        (12.0, 10.0),
        *_quad((12, 10), (14.5, 13), (12, 16)),
        *_quad((12, 16), (9.5, 13), (12, 10)),
    ]
    pen.polygon(flame, INK)
    pen.rect(6.5, 18, 11, 2.5, INK)


def _cart(pen: _Pen) -> None:
    pen.polygon([(3, 8), (21, 8), (18.5, 16), (5.5, 16)], INK)
    pen.circle(8, 19, 2.3, INK)
    pen.circle(16, 19, 2.3, INK)


_TOOL: Final[dict[str, Callable[[_Pen], None]]] = {
    "pickaxe": _pickaxe,
    "lantern": _lantern,
    "cart": _cart,
}


def _rockfall(pen: _Pen) -> None:
    """💥 over falling rocks: a burst, and stones tumbling down."""
    burst = []
    for i in range(16):
        angle = math.pi * 2 * i / 16
        r = 10.5 if i % 2 == 0 else 5.5
        burst.append((12 + r * math.cos(angle), 11 + r * math.sin(angle)))
    pen.polygon(burst, ORANGE)
    pen.polygon([(6, 16), (9, 13.5), (12.5, 14.5), (13, 18.5), (9.5, 21), (6, 19.5)], GREY, DARK)
    pen.polygon([(13.5, 17), (16.5, 15.5), (19.5, 17.5), (18.5, 21), (14.5, 21)], GREY, DARK)
    pen.polygon([(10, 5), (12.5, 4), (14, 6.5), (11.5, 8)], GREY, DARK)


def _map(pen: _Pen) -> None:
    """🗺: a folded map with the way marked to a cross."""
    panels = [
        [(3, 6), (9, 4), (9, 19), (3, 21)],
        [(9, 4), (15, 6), (15, 21), (9, 19)],
        [(15, 6), (21, 4), (21, 19), (15, 21)],
    ]
    for n, panel in enumerate(panels):
        pen.polygon(panel, INK if n != 1 else (214, 200, 160), DARK)
    pen.line([(5, 17), (8, 13), (12, 14), (15, 10)], (40, 116, 236), 1.3)
    pen.line([(16, 7.5), (19.5, 11)], STRIKE, 1.6)
    pen.line([(19.5, 7.5), (16, 11)], STRIKE, 1.6)


def _theft(pen: _Pen) -> None:
    """🦹: a thief's sack of gold."""
    pen.polygon([(9, 3.5), (15, 3.5), (13.5, 7), (10.5, 7)], INK)
    pen.circle(12, 14.5, 7.5, INK)
    pen.line([(9.5, 7.2), (14.5, 7.2)], DARK, 1.2)
    pen.circle(12, 14.5, 3.5, GOLDEN)


def _hands_off(pen: _Pen) -> None:
    """🛡: a shield."""
    shield = [
        (12, 2.5),
        (20, 5.5),
        *_quad((20, 5.5), (20, 17), (12, 21.5)),
        *_quad((12, 21.5), (4, 17), (4, 5.5)),
    ]
    pen.polygon(shield, INK)
    pen.polygon(
        [(12, 5), (17.5, 7), *_quad((17.5, 7), (17.5, 15.5), (12, 19)), (12, 5)], (60, 160, 80)
    )


def _swap_hand(pen: _Pen) -> None:
    """🔄: two arrows turning round."""
    pen.arc(12, 12, 7.5, 200, 340, INK, 2.4)
    pen.arc(12, 12, 7.5, 20, 160, INK, 2.4)
    pen.polygon([(17.5, 5.5), (21.5, 9.5), (16, 10.5)], INK)
    pen.polygon([(6.5, 18.5), (2.5, 14.5), (8, 13.5)], INK)


def _inspection(pen: _Pen) -> None:
    """🔎: a magnifying glass."""
    pen.line([(14.5, 14.5), (20.5, 20.5)], INK, 3.2)
    pen.circle(10, 10, 6.5, None, 2.4)


def _swap_hats(pen: _Pen) -> None:
    """🎩: a top hat."""
    pen.rect(7, 4, 10, 12.5, INK)
    pen.rect(3, 16, 18, 3.2, INK)
    pen.draw.rectangle([pen.p(7, 12.5), pen.p(17, 14.8)], fill=STRIKE)


def _trapped(pen: _Pen) -> None:
    """⛓: three links of a chain."""
    for x, y in ((5.5, 17.5), (12, 12), (18.5, 6.5)):
        pen.draw.ellipse(
            [pen.p(x - 4.2, y - 2.8), pen.p(x + 4.2, y + 2.8)], outline=INK, width=pen.w(2)
        )


def _free(pen: _Pen) -> None:
    """🗝: a key."""
    pen.circle(7, 12, 4.5, None, 2.4)
    pen.line([(11.5, 12), (21, 12)], INK, 2.4)
    pen.line([(18, 12), (18, 16)], INK, 2.2)
    pen.line([(15, 12), (15, 15)], INK, 2.2)


_OTHER: Final[dict[str, Callable[[_Pen], None]]] = {
    "rockfall": _rockfall,
    "map": _map,
    "theft": _theft,
    "hands_off": _hands_off,
    "swap_hand": _swap_hand,
    "inspection": _inspection,
    "swap_hats": _swap_hats,
    "trapped": _trapped,
    "free_at_last": _free,
}


def draw_action_icon(draw: ImageDraw.ImageDraw, kind: str, size: int) -> None:
    """An action card's picture on a ``size`` × ``size`` card already filled: its tools
    (struck through when broken, ticked when repaired), else its legend icon."""
    if kind.startswith(("broken_", "repair_")):
        tools = [tool for tool in TOOLS if tool in kind]
        icon = 0.55 if len(tools) == 1 else 0.4
        spacing = 0.0 if len(tools) == 1 else 0.44
        for i, tool in enumerate(tools):
            left = size / 2 - icon * size / 2 + (i - (len(tools) - 1) / 2) * spacing * size
            _TOOL[tool](
                _Pen(draw, left, size / 2 - icon * size / 2 - size * 0.05, icon * size / 24)
            )
        pen = _Pen(draw, 0, 0, size / 80)  # the Mini App's 80 × 80 card
        if kind.startswith("broken_"):
            pen.line([(16, 66), (64, 14)], STRIKE, 6)
        else:
            pen.line([(26, 62), (36, 72), (56, 50)], TICK, 6)
        return
    drawer = _OTHER.get(kind)
    if drawer is None:  # an action this module does not know: a question mark's badge
        pen = _Pen(draw, 0, 0, size / 24)
        pen.circle(12, 12, 6, GREY)
        return
    icon = 0.66
    drawer(_Pen(draw, size * (1 - icon) / 2, size * (1 - icon) / 2, icon * size / 24))
