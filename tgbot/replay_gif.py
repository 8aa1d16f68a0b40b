"""An animated GIF of a finished game: one frame per move, its caption drawn under the board.

Every frame shares one canvas (the largest board of the game) and one fixed palette, so
the GIF encoder never has to quantize colours frame by frame.
"""

from __future__ import annotations

import io
import textwrap
from collections.abc import Callable, Iterable
from functools import cache
from pathlib import Path
from typing import Final

from PIL import Image, ImageDraw, ImageFont

from domain.board import Board, Cell
from tgbot.replay import Replay, Step, caption

BoardRenderer = Callable[[Board, "Cell | None"], bytes]
"""Draws a board (highlighting a cell) as PNG bytes."""

FRAME_MS: Final = 1200
LAST_FRAME_MS: Final = 5000
FONT_SIZE: Final = 15
LINE_HEIGHT: Final = 19
MARGIN: Final = 8
MAX_CAPTION_LINES: Final = 14
BACKGROUND: Final = (250, 248, 240)
INK: Final = (20, 20, 20)
_FONT_CANDIDATES: Final = (
    Path(__file__).parent / "fonts" / "DejaVuSans.ttf",
    Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"),
)


@cache
def _font() -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    for path in _FONT_CANDIDATES:
        if path.exists():
            return ImageFont.truetype(str(path), FONT_SIZE)
    return ImageFont.load_default()


def default_renderer(board: Board, highlight: Cell | None) -> bytes:
    from tgbot.render import render_board

    return render_board(board, highlight=highlight)


def _wrap(text: str, width_px: int) -> list[str]:
    font = _font()
    average = max(1.0, font.getlength("abcdefghijklmnopqrstuvwxyz") / 26)
    columns = max(20, int(width_px / average))
    lines: list[str] = []
    for paragraph in text.splitlines():
        lines.extend(textwrap.wrap(paragraph, columns) or [""])
    if len(lines) > MAX_CAPTION_LINES:
        lines = [*lines[: MAX_CAPTION_LINES - 1], lines[MAX_CAPTION_LINES - 1] + " …"]
    return lines


def frames(
    steps: Iterable[Step],
    *,
    lang: str = "en",
    renderer: BoardRenderer = default_renderer,
    min_width: int = 480,
) -> list[Image.Image]:
    """One RGB image per step: the board after the move, its caption underneath."""
    boards: list[Image.Image] = []
    captions: list[str] = []
    for step in steps:
        png = renderer(step.state.board, step.highlight)
        boards.append(Image.open(io.BytesIO(png)).convert("RGB"))
        captions.append(caption(step, lang))
    if not boards:
        return []
    width = max(min_width, *(b.width for b in boards))
    board_height = max(b.height for b in boards)
    wrapped = [_wrap(c, width - 2 * MARGIN) for c in captions]
    caption_height = 2 * MARGIN + LINE_HEIGHT * max(len(w) for w in wrapped)
    font = _font()
    result = []
    for number, (board, lines) in enumerate(zip(boards, wrapped, strict=True), start=1):
        canvas = Image.new("RGB", (width, board_height + caption_height), BACKGROUND)
        canvas.paste(board, ((width - board.width) // 2, (board_height - board.height) // 2))
        draw = ImageDraw.Draw(canvas)
        # The move number also keeps two look-alike frames distinct, so none is merged.
        draw.text((MARGIN, MARGIN), f"{number}/{len(boards)}", fill=INK, font=font)
        y = board_height + MARGIN
        for line in lines:
            draw.text((MARGIN, y), line, fill=INK, font=font)
            y += LINE_HEIGHT
        result.append(canvas)
    return result


def encode_gif(images: list[Image.Image], frame_ms: int = FRAME_MS) -> bytes:
    """The images as a looping GIF; the last frame stays longer."""
    if not images:
        raise ValueError("a GIF needs at least one frame")
    # One adaptive palette from a sample of frames, applied to all without dithering:
    # far faster than quantizing each frame, and the pictures are flat colours anyway.
    sample = Image.new("RGB", (images[0].width, images[0].height * 3))
    for i, picked in enumerate((images[0], images[len(images) // 2], images[-1])):
        sample.paste(picked, (0, i * images[0].height))
    palette = sample.quantize(colors=255, method=Image.Quantize.MEDIANCUT)
    indexed = [im.quantize(palette=palette, dither=Image.Dither.NONE) for im in images]
    durations = [frame_ms] * (len(indexed) - 1) + [LAST_FRAME_MS]
    out = io.BytesIO()
    indexed[0].save(
        out,
        format="GIF",
        save_all=True,
        append_images=indexed[1:],
        duration=durations,
        loop=0,
        optimize=False,
        disposal=1,
    )
    return out.getvalue()


def replay_gif(
    replay: Replay, *, lang: str = "en", renderer: BoardRenderer = default_renderer
) -> bytes:
    """The whole game as an animated GIF, one frame per move."""
    return encode_gif(frames(replay, lang=lang, renderer=renderer))
