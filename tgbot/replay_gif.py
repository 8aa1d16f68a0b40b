"""An animated GIF of a finished game: one frame per move, its caption drawn under the board.

Every frame shares one canvas (the largest board of the game) and one fixed palette, so
the GIF encoder never has to quantize colours frame by frame. Readable on a phone: the
move counter has a band of its own above the board, the captions are drawn in the bundled
DejaVu Sans with each line's icon as a drawn badge (no emoji font needed, no missing
glyph), and a whole game plays in at most :data:`GAME_MS`.
"""

from __future__ import annotations

import argparse
import html
import io
import re
import sys
from collections.abc import Callable, Iterable, Sequence
from functools import cache
from pathlib import Path
from typing import Final

from PIL import Image, ImageDraw, ImageFont

from domain.board import Cell
from domain.codec import decode
from tgbot.presenter.icons import Icon, Line
from tgbot.render import FONT_FILE
from tgbot.replay import (
    LANGUAGES,
    GameCancelledError,
    GameNotFinishedError,
    Replay,
    ReplayError,
    Step,
    lines,
)

StepRenderer = Callable[[Step], Image.Image]
"""Draws the board after a step."""

FRAME_MS: Final = 1200
LAST_FRAME_MS: Final = 5000
GAME_MS: Final = 60_000  # a whole game plays in at most this long
MIN_FRAME_MS: Final = 20  # shorter frames are slowed down by most viewers
FONT_SIZE: Final = 15
LINE_HEIGHT: Final = 19
MARGIN: Final = 8
BADGE: Final = 14  # a line's icon, drawn as a round badge
INDENT: Final = BADGE + 6  # every caption line starts after the badge's room
HEADER: Final = LINE_HEIGHT + 2 * MARGIN  # the band above the board with the move counter
BACKGROUND: Final = (250, 248, 240)
INK: Final = (20, 20, 20)
TAG: Final = re.compile(r"<[^>]*>")


@cache
def _font() -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(str(FONT_FILE), FONT_SIZE)


def plain(line: Line) -> str:
    """A narrated line's text as drawn: no tags, entities read back, no emoji icon."""
    return html.unescape(TAG.sub("", line.text))


GIF_CELL: Final = 48  # pixels per card in the animation (the photo uses the full size)


def hidden_goals(step: Step) -> dict[Cell, str]:
    """Every face-down goal's kind: nothing is secret in a finished game's replay."""
    state = step.state
    return {
        cell: kind
        for cell, kind in zip(state.goal_cells, state.goals, strict=False)
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


def wrapped(step: Step, lang: str, width_px: int) -> list[tuple[Icon | None, str]]:
    """The step's caption as drawn lines, each told line's icon beside its first row."""
    rows: list[tuple[Icon | None, str]] = []
    for told in lines(step, lang):
        for n, row in enumerate(caption_lines(plain(told), width_px - INDENT)):
            rows.append((told.icon if n == 0 else None, row))
    return rows


def frames(
    steps: Iterable[Step],
    *,
    lang: str = "en",
    renderer: StepRenderer = step_image,
    min_width: int = 480,
) -> list[Image.Image]:
    """One palette image per step: the move counter, the board after the move, its
    caption underneath.

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
    badges = {icon: _indices(palette, icon.colour)[0] for icon in Icon}
    captions = [wrapped(step, lang, width - 2 * MARGIN) for step in steps]
    caption_height = 2 * MARGIN + LINE_HEIGHT * max(len(w) for w in captions)
    font = _font()
    colours = palette.getpalette()
    result = []
    for number, (key, rows) in enumerate(zip(keys, captions, strict=True), start=1):
        board = indexed[key]
        canvas = Image.new("P", (width, HEADER + board_height + caption_height), background)
        if colours is not None:
            canvas.putpalette(colours)
        top = HEADER + (board_height - board.height) // 2
        canvas.paste(board, ((width - board.width) // 2, top))
        draw = ImageDraw.Draw(canvas)
        # The move number, in its own band: it never lies on the board. It also keeps
        # two look-alike frames distinct, so none is merged.
        draw.text((MARGIN, MARGIN), f"{number}/{len(steps)}", fill=ink, font=font)
        y = HEADER + board_height + MARGIN
        for icon, row in rows:
            if icon is not None:
                _badge(draw, (MARGIN, y + (LINE_HEIGHT - BADGE) // 2), icon, badges[icon], ink)
            draw.text((MARGIN + INDENT, y), row, fill=ink, font=font)
            y += LINE_HEIGHT
        result.append(canvas)
    return result


def _badge(draw: ImageDraw.ImageDraw, at: tuple[int, int], icon: Icon, fill: int, ink: int) -> None:
    """A line's icon: a disc of its colour with its symbol."""
    x, y = at
    draw.ellipse([x, y, x + BADGE, y + BADGE], fill=fill)
    small = _symbol_font()
    draw.text((x + BADGE / 2, y + BADGE / 2), icon.symbol, fill=ink, font=small, anchor="mm")


@cache
def _symbol_font() -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(str(FONT_FILE), BADGE - 4)


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


def durations(frames: int, frame_ms: int = FRAME_MS) -> list[int]:
    """How long each frame shows: ``frame_ms``, shortened so the whole game lasts at most
    :data:`GAME_MS`; the last frame stays longer.

    >>> sum(durations(400)) <= GAME_MS, durations(3)
    (True, [1200, 1200, 5000])
    """
    last = min(LAST_FRAME_MS, GAME_MS // 4)
    if frames > 1:
        room = (GAME_MS - last) // (frames - 1) // 10 * 10  # GIF times are in 10 ms
        frame_ms = max(MIN_FRAME_MS, min(frame_ms, room))
        last = min(last, max(MIN_FRAME_MS, GAME_MS - frame_ms * (frames - 1)))
    return [frame_ms] * (frames - 1) + [last]


def encode_gif(images: list[Image.Image], frame_ms: int = FRAME_MS) -> bytes:
    """The frames (palette images sharing one palette) as a looping GIF, at most
    :data:`GAME_MS` long; the last frame stays longer."""
    if not images:
        raise ValueError("a GIF needs at least one frame")
    times = durations(len(images), frame_ms)
    out = io.BytesIO()
    images[0].save(
        out,
        format="GIF",
        save_all=True,
        append_images=images[1:],
        duration=times,
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
    from infra.event_store import BrokenChain
    from infra.migrations import require_current

    if args.database_url is None:
        from infra.settings import load_settings

        args.database_url = load_settings().database_url
    engine = make_engine(args.database_url)
    try:
        require_current(engine)
        stored = event_store(engine).load(args.game_id, verified=True)
        events = [decode(e.type, e.payload, e.schema_version) for e in stored]
        replay = Replay(args.game_id, events)
    except BrokenChain as error:
        print(f"game {args.game_id!r} not replayed: {error}", file=sys.stderr)
        return 1
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
