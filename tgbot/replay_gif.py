"""An animated GIF of a finished game: one frame per move, its caption drawn under the board.

Every frame shares one canvas (the largest board of the game) and one fixed palette, so
the GIF encoder never has to quantize colours frame by frame.
"""

from __future__ import annotations

import argparse
import io
import sys
from collections.abc import Callable, Iterable, Sequence
from functools import cache
from pathlib import Path
from typing import Final

from PIL import Image, ImageDraw, ImageFont

from domain.board import GOAL_CELLS, Cell
from domain.codec import decode
from tgbot.replay import (
    LANGUAGES,
    GameCancelledError,
    GameNotFinishedError,
    Replay,
    ReplayError,
    Step,
    caption,
)

StepRenderer = Callable[[Step], Image.Image]
"""Draws the board after a step."""

FRAME_MS: Final = 1200
LAST_FRAME_MS: Final = 5000
FONT_SIZE: Final = 15
LINE_HEIGHT: Final = 19
MARGIN: Final = 8
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


GIF_CELL: Final = 48  # pixels per card in the animation (the photo uses the full size)


def hidden_goals(step: Step) -> dict[Cell, str]:
    """Every face-down goal's kind: nothing is secret in a finished game's replay."""
    state = step.state
    return {
        cell: kind
        for cell, kind in zip(GOAL_CELLS, state.goals, strict=False)
        if cell in state.board and not state.board[cell].face_up
    }


def step_image(step: Step, cell_size: int = GIF_CELL) -> Image.Image:
    """The board after ``step``, the move's cell framed, the goals' kinds shown."""
    from tgbot.render import render_image

    return render_image(
        step.state.board,
        highlight=step.highlight,
        show_goal_kinds=hidden_goals(step),
        cell_size=cell_size,
    )


def step_png(step: Step) -> bytes:
    """The board after ``step`` as PNG bytes, at full size (the replay message's photo)."""
    from tgbot.render import CELL, png_bytes

    return png_bytes(step_image(step, CELL))


def caption_lines(text: str, width_px: int) -> list[str]:
    """``text`` wrapped to ``width_px`` as drawn, every line kept: the caption area of the
    frames grows to the longest caption of the game."""
    font = _font()
    lines: list[str] = []
    for paragraph in text.splitlines():
        line = ""
        for word in paragraph.split(" "):
            candidate = f"{line} {word}" if line else word
            if line and font.getlength(candidate) > width_px:
                lines.append(line)
                candidate = word
            while font.getlength(candidate) > width_px and len(candidate) > 1:
                # A word wider than the frame: cut it where it fills the line.
                fits = (
                    n for n in range(1, len(candidate)) if font.getlength(candidate[:n]) <= width_px
                )
                cut = max(fits, default=1)
                lines.append(candidate[:cut])
                candidate = candidate[cut:]
            line = candidate
        lines.append(line)
    return lines


def frames(
    steps: Iterable[Step],
    *,
    lang: str = "en",
    renderer: StepRenderer = step_image,
    min_width: int = 480,
) -> list[Image.Image]:
    """One palette image per step: the board after the move, its caption underneath.

    Every frame shares one palette. A board is drawn and quantized once however many
    steps leave it unchanged (passes, actions on players), and the captions are drawn
    straight in palette colours, so the cost grows with the boards, not the frames.
    """
    steps = list(steps)
    if not steps:
        return []
    keys = [_board_key(step) for step in steps]
    drawn: dict[tuple[object, ...], Image.Image] = {}
    for key, step in zip(keys, steps, strict=True):
        if key not in drawn:
            image = renderer(step)
            drawn[key] = image if image.mode == "RGB" else image.convert("RGB")
    unique = list(drawn.values())
    width = max(min_width, *(b.width for b in unique))
    board_height = max(b.height for b in unique)
    palette = _palette([unique[0], unique[len(unique) // 2], unique[-1]])
    indexed = {k: im.quantize(palette=palette, dither=Image.Dither.NONE) for k, im in drawn.items()}
    background, ink = _indices(palette, BACKGROUND, INK)
    wrapped = [caption_lines(caption(step, lang), width - 2 * MARGIN) for step in steps]
    caption_height = 2 * MARGIN + LINE_HEIGHT * max(len(w) for w in wrapped)
    font = _font()
    colours = palette.getpalette()
    result = []
    for number, (key, lines) in enumerate(zip(keys, wrapped, strict=True), start=1):
        board = indexed[key]
        canvas = Image.new("P", (width, board_height + caption_height), background)
        if colours is not None:
            canvas.putpalette(colours)
        canvas.paste(board, ((width - board.width) // 2, (board_height - board.height) // 2))
        draw = ImageDraw.Draw(canvas)
        # The move number also keeps two look-alike frames distinct, so none is merged.
        draw.text((MARGIN, MARGIN), f"{number}/{len(steps)}", fill=ink, font=font)
        y = board_height + MARGIN
        for line in lines:
            draw.text((MARGIN, y), line, fill=ink, font=font)
            y += LINE_HEIGHT
        result.append(canvas)
    return result


def _board_key(step: Step) -> tuple[object, ...]:
    # States share an unchanged board, so its identity tells which steps look alike.
    return (id(step.state.board), step.highlight, tuple(sorted(hidden_goals(step).items())))


def _palette(samples: list[Image.Image]) -> Image.Image:
    """One adaptive palette for a whole animation, from a few boards and the text colours."""
    width = max(im.width for im in samples)
    height = sum(im.height for im in samples) + 8
    sheet = Image.new("RGB", (width, height), BACKGROUND)
    y = 0
    for im in samples:
        sheet.paste(im, (0, y))
        y += im.height
    sheet.paste(INK, (0, y, width, y + 4))
    return sheet.quantize(colors=255, method=Image.Quantize.MEDIANCUT)


def _indices(palette: Image.Image, *colours: tuple[int, int, int]) -> list[int]:
    probe = Image.new("RGB", (len(colours), 1))
    for x, colour in enumerate(colours):
        probe.putpixel((x, 0), colour)
    mapped = probe.quantize(palette=palette, dither=Image.Dither.NONE)
    return [int(mapped.getpixel((x, 0))) for x in range(len(colours))]  # type: ignore[arg-type]


def encode_gif(images: list[Image.Image], frame_ms: int = FRAME_MS) -> bytes:
    """The frames (palette images sharing one palette) as a looping GIF; the last frame
    stays longer."""
    if not images:
        raise ValueError("a GIF needs at least one frame")
    durations = [frame_ms] * (len(images) - 1) + [LAST_FRAME_MS]
    out = io.BytesIO()
    images[0].save(
        out,
        format="GIF",
        save_all=True,
        append_images=images[1:],
        duration=durations,
        loop=0,
        optimize=False,
        disposal=1,
    )
    return out.getvalue()


def replay_gif(replay: Replay, *, lang: str = "en", renderer: StepRenderer = step_image) -> bytes:
    """The whole game as an animated GIF (GIF bytes, never another format), one frame per
    move."""
    return encode_gif(frames(replay, lang=lang, renderer=renderer))


GIF_SUFFIX: Final = ".gif"


class NotAGifFileError(ValueError):
    """A file name that does not end in ``.gif``: the replay is written as a GIF only."""


def write_gif(replay: Replay, path: Path, *, lang: str = "en") -> int:
    """Write the whole game as an animated GIF to ``path``, which must end in ``.gif``
    (raises :class:`NotAGifFileError` otherwise, writing nothing); returns the frames."""
    if path.suffix.lower() != GIF_SUFFIX:
        raise NotAGifFileError(f"{path}: a replay is written as a GIF; name the file *.gif")
    path.write_bytes(replay_gif(replay, lang=lang))
    return len(replay)


def main_replay(argv: Sequence[str] | None = None) -> int:
    """``replay GAME_ID --out FILE [--lang en|es|pl] [--database-url URL]``: the game's GIF."""
    parser = argparse.ArgumentParser(prog="saboteur-bot replay", description=main_replay.__doc__)
    parser.add_argument("game_id")
    parser.add_argument("--out", type=Path, required=True, help="the GIF file to write (*.gif)")
    parser.add_argument("--lang", default="en", choices=LANGUAGES)
    parser.add_argument("--database-url", help="default: the configured database")
    args = parser.parse_args(argv)
    if args.out.suffix.lower() != GIF_SUFFIX:
        print(f"{args.out}: the replay is written as a GIF; name the file *.gif", file=sys.stderr)
        return 2

    from infra.bootstrap import event_store
    from infra.db import make_engine
    from infra.migrations import require_current

    if args.database_url is None:
        from infra.settings import load_settings

        args.database_url = load_settings().database_url
    engine = make_engine(args.database_url)
    try:
        require_current(engine)
        stored = event_store(engine).load(args.game_id)
        events = [decode(e.type, e.payload, e.schema_version) for e in stored]
        replay = Replay(args.game_id, events)
    except ReplayError as error:
        reason = (
            "was cancelled"
            if isinstance(error, GameCancelledError)
            else "is still running"
            if isinstance(error, GameNotFinishedError)
            else "not found"
        )
        print(f"game {args.game_id!r} {reason}: nothing to replay", file=sys.stderr)
        return 1
    finally:
        engine.dispose()
    frames_written = write_gif(replay, args.out, lang=args.lang)
    print(f"{args.out}: {frames_written} frames", file=sys.stderr)
    return 0
