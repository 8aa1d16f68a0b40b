"""The pictures' materials: the colours every picture is drawn in, the fixed 8-bit
palette their PNGs are encoded with (:func:`png_bytes`), and the bundled DejaVu Sans
(``tgbot/fonts``) they write with.
"""

from __future__ import annotations

import io
from functools import cache
from pathlib import Path
from typing import Final

from PIL import Image, ImageFont

from domain.cards import Door
from tgbot.presenter import action_icons

Color = tuple[int, int, int]

FONT_FILE: Final = Path(__file__).parents[1] / "fonts" / "DejaVuSans.ttf"

BACKGROUND: Final[Color] = (28, 24, 22)
GRID: Final[Color] = (52, 45, 40)
AXIS_TEXT: Final[Color] = (214, 204, 186)
CARD: Final[Color] = (116, 80, 52)
CARD_EDGE: Final[Color] = (62, 42, 28)
START_CARD: Final[Color] = (48, 104, 132)
TUNNEL: Final[Color] = (246, 230, 190)
TUNNEL_UNDER: Final[Color] = (196, 176, 132)  # the lower tunnel of a bridge, in shadow
TUNNEL_EDGE: Final[Color] = (36, 26, 20)
ROCK: Final[Color] = (104, 104, 112)
ROCK_EDGE: Final[Color] = (26, 26, 30)
CARD_BACK: Final[Color] = (50, 58, 104)
CARD_BACK_EDGE: Final[Color] = (150, 160, 220)
GOLD: Final[Color] = (246, 196, 36)
GOLD_EDGE: Final[Color] = (120, 80, 0)
STONE: Final[Color] = (150, 150, 156)
LADDER: Final[Color] = (232, 162, 60)
DOORS: Final[dict[Door, Color]] = {Door.BLUE: (40, 116, 236), Door.GREEN: (36, 176, 72)}
CRYSTAL: Final[Color] = (120, 236, 252)
CRYSTAL_EDGE: Final[Color] = (20, 90, 120)
LABEL: Final[Color] = (255, 221, 0)
LABEL_EDGE: Final[Color] = (0, 0, 0)
MARK: Final[Color] = (255, 221, 0)
WHITE: Final[Color] = (255, 255, 255)
QUESTION: Final[Color] = (235, 235, 250)
KEYHOLE: Final[Color] = (20, 20, 20)
FORBIDDEN: Final[Color] = (220, 40, 40)


def png_bytes(image: Image.Image) -> bytes:
    """PNG of an RGB picture, mapped onto the fixed palette: 8-bit PNGs of flat colours
    encode several times faster and smaller than 24-bit ones."""
    out = io.BytesIO()
    indexed = image.quantize(palette=_palette(), dither=Image.Dither.NONE)
    indexed.save(out, "PNG", compress_level=3)  # half the time of level 6, still small
    return out.getvalue()


@cache
def _palette() -> Image.Image:
    """Every colour drawn, plus ramps for the antialiased edges of text and of scaling."""
    base = [
        BACKGROUND,
        GRID,
        AXIS_TEXT,
        CARD,
        CARD_EDGE,
        START_CARD,
        TUNNEL,
        TUNNEL_UNDER,
        TUNNEL_EDGE,
        ROCK,
        ROCK_EDGE,
        CARD_BACK,
        CARD_BACK_EDGE,
        GOLD,
        GOLD_EDGE,
        STONE,
        LADDER,
        *DOORS.values(),
        CRYSTAL,
        CRYSTAL_EDGE,
        LABEL,
        LABEL_EDGE,
        MARK,
        WHITE,
        QUESTION,
        KEYHOLE,
        FORBIDDEN,
        *action_icons.COLOURS,
    ]
    pairs = [
        (AXIS_TEXT, BACKGROUND),
        (LABEL, BACKGROUND),
        (LABEL, LABEL_EDGE),
        (WHITE, CARD_BACK),
        (TUNNEL, TUNNEL_EDGE),
        (CARD, TUNNEL_EDGE),
        (CARD, BACKGROUND),
        (TUNNEL, CARD),
        (GOLD, GOLD_EDGE),
        (CRYSTAL, CRYSTAL_EDGE),
        (ROCK, ROCK_EDGE),
        (LADDER, CARD),
        (LABEL, CARD),
        (START_CARD, TUNNEL),
        (CARD_BACK, BACKGROUND),
        (TUNNEL_UNDER, CARD),
        (TUNNEL, action_icons.BROKEN_CARD),
        (TUNNEL, action_icons.REPAIR_CARD),
        (TUNNEL, action_icons.OTHER_CARD),
        (FORBIDDEN, BACKGROUND),
    ]
    colors = list(dict.fromkeys(base))
    for a, b in pairs:
        for step in range(1, 6):
            f = step / 6
            mixed = tuple(round(x * (1 - f) + y * f) for x, y in zip(a, b, strict=True))
            if mixed not in colors:
                colors.append(mixed)  # type: ignore[arg-type]
    assert len(colors) <= 256, len(colors)
    palette = Image.new("P", (1, 1))
    palette.putpalette([channel for color in colors for channel in color])
    return palette


@cache
def font_of(size: int) -> ImageFont.FreeTypeFont:
    """The bundled DejaVu Sans at ``size`` points: every letter of the bot's languages,
    the box-drawing shapes and the symbols the pictures use."""
    return ImageFont.truetype(str(FONT_FILE), size)
