"""An animated GIF of a finished game: its path cards and actions, a few consecutive
moves to a frame, each round's start and end, the lines that tell them under the board.

Readable on a phone: every frame stays at least :data:`READ_MS` and a whole game plays
in at most :data:`GAME_MS`, so a game's moves are grouped as few to a frame as that
allows (the cells they touched framed together); passes, which change nothing anyone
sees, are left out, and a round's start and end are told in a few lines (the replay's
pages tell the hands and every draw). The frame is the maze: the boards are drawn to
fill :data:`FRAME_WIDTH` (another round's smaller maze drawn larger), on the board's own
dark background. Every frame shares one canvas and one fixed palette, so the GIF encoder
never has to quantize colours frame by frame; the frame counter has a band of its own
above the board, the captions are drawn in the bundled DejaVu Sans with each line's
icon as a drawn badge (no emoji font needed, no missing glyph).
"""

from __future__ import annotations

import argparse
import html
import io
import re
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import Any, Final

from PIL import Image, ImageDraw, ImageFont

from domain import events as ev
from domain.board import Cell
from domain.codec import decode
from tgbot.presenter.icons import Icon, Line
from tgbot.presenter.palette import FONT_FILE
from tgbot.replay.steps import (
    LANGUAGES,
    MOVE,
    ROUND_START,
    GameCancelledError,
    GameNotFinishedError,
    Replay,
    ReplayError,
    Step,
    lines,
)

StepRenderer = Callable[[Step, Sequence[Cell]], Image.Image]
"""Draws the board after a step, the cells of the moves a frame shows framed."""

READ_MS: Final = 1000  # a frame stays at least this long: time to read its lines
MOVE_MS: Final = 1500  # a move's time when the game is short enough
ROUND_MS: Final = 2000  # a round's start and a round's end
LAST_FRAME_MS: Final = 5000
GAME_MS: Final = 60_000  # a whole game plays in at most this long
FRAME_WIDTH: Final = 520  # shown 390 px wide, the captions' 16 px letters stand 12 px
FONT_SIZE: Final = 16
LINE_HEIGHT: Final = 20
MARGIN: Final = 8
BADGE: Final = 14  # a line's icon, drawn as a round badge
INDENT: Final = BADGE + 6  # every caption line starts after the badge's room
HEADER: Final = LINE_HEIGHT + 2 * MARGIN  # the band above the board with the move counter
BACKGROUND: Final = (28, 24, 22)  # the board's own background: one picture, no frame
INK: Final = (240, 232, 216)
SYMBOL_INK: Final = (20, 20, 20)  # a badge's symbol, on its colour
PATH_BADGE: Final = (116, 80, 52)  # a card laid on the maze: a card's colour
TAG: Final = re.compile(r"<[^>]*>")
COMPUTER_MARK: Final = "⚙"  # 🤖 before a computer player's name, as the font draws it


@cache
def _font() -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(str(FONT_FILE), FONT_SIZE)


def plain(line: Line) -> str:
    """A narrated line's text as drawn: no tags, entities read back, no emoji icon; a
    computer player's 🤖 drawn as the font's ⚙ (the font has no emoji)."""
    return html.unescape(TAG.sub("", line.text)).replace(Icon.COMPUTER.emoji, COMPUTER_MARK)


GIF_CELL: Final = 48  # pixels per card in the animation (the photo uses the full size)


def hidden_goals(step: Step) -> dict[Cell, str]:
    """Every face-down goal's kind: nothing is secret in a finished game's replay."""
    state = step.state
    return {
        cell: kind
        for cell, kind in zip(state.goal_cells, state.goals, strict=False)
        if cell in state.board and not state.board[cell].face_up
    }


def step_image(step: Step, cells: Sequence[Cell] = (), cell_size: int = GIF_CELL) -> Image.Image:
    """The board after ``step``, the move's cell framed (or ``cells``: the cells of the
    moves a frame shows), the goals' kinds shown."""
    from tgbot.presenter.render import render_image

    return render_image(
        step.state.board,
        highlight=None if cells else step.highlight,
        show_goal_kinds=hidden_goals(step),
        cell_size=cell_size,
        framed=cells,
    )


def step_png(step: Step) -> bytes:
    """The board after ``step`` as PNG bytes, at full size (the replay message's photo)."""
    from tgbot.presenter.palette import png_bytes
    from tgbot.presenter.render import CELL

    return png_bytes(step_image(step, cell_size=CELL))


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
    """The step's whole caption as drawn lines, each told line's icon beside its first row."""
    return _rows(lines(step, lang), width_px)


def _rows(told: Iterable[Line], width_px: int) -> list[tuple[Icon | None, str]]:
    rows: list[tuple[Icon | None, str]] = []
    for line in told:
        for n, row in enumerate(caption_lines(plain(line), width_px - INDENT)):
            rows.append((line.icon if n == 0 else None, row))
    return rows


def _starts(told: Iterable[Line], width_px: int) -> list[bool]:
    """For each drawn row of :func:`_rows`: whether a told line starts there."""
    return [
        n == 0 for line in told for n, _ in enumerate(caption_lines(plain(line), width_px - INDENT))
    ]


# A move worth a frame: a card on the maze or on a player, a front card removed, gold
# picked or stolen. Passes (cards discarded face down) change nothing anyone sees.
SHOWN: Final = (
    ev.PathPlaced,
    *ev.ACTION_EVENTS,
    ev.FrontCardRemoved,
    ev.GoldPicked,
    ev.TheftResolved,
)
# What a round's end tells in the GIF: how it ended, who was who, who won, what was paid.
# (The dwarves were told at the round's start and stand beside every name.)
_END_ICONS: Final = frozenset({Icon.ROUND_END, Icon.WINNERS})


@dataclass(frozen=True, slots=True)
class Shot:
    """One frame of the GIF: the board after ``step``, the cells of the moves it shows
    framed, their lines, and how long it stays."""

    step: Step
    cells: tuple[Cell, ...]
    told: tuple[Line, ...]
    ms: int


def shown(step: Step) -> bool:
    """Whether the GIF shows ``step``: every round's start and end, every path card and
    action, not the passes."""
    return step.kind != MOVE or any(isinstance(e, SHOWN) for e in step.events)


def _end_lines(told: list[Line]) -> list[Line]:
    """A round's end in few lines: how it ended, the winners, the gold paid
    (the last gold line), and the game's final standings in one line."""
    gold = [line for line in told if line.icon is Icon.GOLD]
    kept = [line for line in told if line.icon in _END_ICONS or (gold and line is gold[-1])]
    standings = [line.text for line in told if line.icon is None]
    if standings:
        kept.append(Line(Icon.GOLD, " · ".join(standings)))
    return kept


def shots(steps: Iterable[Step], lang: str = "en") -> list[Shot]:
    """The frames of a game: each round's start and end, and its path cards and actions
    grouped a few consecutive moves to a frame so each frame stays at least
    :data:`READ_MS` and the whole game at most :data:`GAME_MS`
    (:data:`LAST_FRAME_MS` for the last frame)."""
    steps = list(steps)
    # Runs of moves shown, cut by every round's start and end.
    runs: list[list[Step] | Step] = []
    for step in steps:
        if step.kind != MOVE:
            runs.append(step)
        elif shown(step):
            if not runs or not isinstance(runs[-1], list):
                runs.append([])
            run = runs[-1]
            assert isinstance(run, list)
            run.append(step)
    fixed = [r for r in runs if not isinstance(r, list)]
    budget = GAME_MS - sum(LAST_FRAME_MS if step is steps[-1] else ROUND_MS for step in fixed)
    moves = [r for r in runs if isinstance(r, list)]
    group, move_ms = 1, MOVE_MS
    while moves:
        frames_needed = sum(-(-len(run) // group) for run in moves)
        move_ms = min(MOVE_MS * group, max(0, budget) // frames_needed // 10 * 10)
        if move_ms >= READ_MS or group >= max(len(run) for run in moves):
            break
        group += 1
    result: list[Shot] = []
    for run in runs:
        if not isinstance(run, list):
            told = lines(run, lang, brief=True)
            if run.kind == ROUND_START:
                told = [line for line in told if line.icon in (Icon.ROUND, Icon.DWARF)]
            else:
                told = _end_lines(told)
            ms = LAST_FRAME_MS if run is steps[-1] else ROUND_MS
            result.append(Shot(run, (), tuple(told), ms))
            continue
        for i in range(0, len(run), group):
            chunk = run[i : i + group]
            cells = tuple(c for c in (s.highlight for s in chunk) if c is not None)
            told = [line for s in chunk for line in lines(s, lang, brief=True)]
            result.append(Shot(chunk[-1], cells, tuple(told), max(READ_MS, move_ms)))
    if result and result[-1].ms < LAST_FRAME_MS and result[-1].step is not steps[-1]:
        result[-1] = replace(result[-1], ms=max(result[-1].ms, READ_MS))
    return result


def frames(
    steps: Iterable[Step],
    *,
    lang: str = "en",
    renderer: StepRenderer | None = None,
    min_width: int = 0,
) -> list[Image.Image]:
    """The GIF's frames (see :func:`shots`), as palette images of one size: the frame
    counter, the board after its moves with their cells framed, their lines underneath.
    A frame is as wide as the widest board (cropped to the maze, no margin).

    Every frame shares one palette. A board is drawn and quantized once however many
    frames show it unchanged, and the captions are drawn straight in palette colours."""
    return [
        image for image, _ in timed_frames(steps, lang=lang, renderer=renderer, min_width=min_width)
    ]


def timed_frames(
    steps: Iterable[Step],
    *,
    lang: str = "en",
    renderer: StepRenderer | None = None,
    min_width: int = 0,
) -> list[tuple[Image.Image, int]]:
    """The frames of :func:`frames`, each with how long it shows, in milliseconds."""
    chosen = shots(steps, lang)
    if not chosen:
        return []
    draw_board = renderer or step_image
    keys = [(_board_key(shot.step), shot.cells) for shot in chosen]
    drawn: dict[tuple[object, ...], Image.Image] = {}
    for key, shot in zip(keys, chosen, strict=True):
        if key not in drawn:
            image = draw_board(shot.step, shot.cells)
            drawn[key] = image if image.mode == "RGB" else image.convert("RGB")
    if renderer is None:
        _fit(drawn, dict(zip(keys, chosen, strict=True)))
    unique = list(drawn.values())
    width = max(min_width, *(b.width for b in unique))
    board_height = max(b.height for b in unique)
    palette = _palette([unique[0], unique[len(unique) // 2], unique[-1]])
    indexed = {k: im.quantize(palette=palette, dither=Image.Dither.NONE) for k, im in drawn.items()}
    background, ink, symbol, path = _indices(palette, BACKGROUND, INK, SYMBOL_INK, PATH_BADGE)
    badges = {icon: _indices(palette, icon.colour)[0] for icon in Icon}
    captions = [_rows(shot.told, width - 2 * MARGIN) for shot in chosen]
    starts = [_starts(shot.told, width - 2 * MARGIN) for shot in chosen]
    caption_height = 2 * MARGIN + LINE_HEIGHT * max(len(w) for w in captions)
    font = _font()
    colours = palette.getpalette()
    result = []
    shown_frames = zip(keys, captions, starts, chosen, strict=True)
    for number, (key, rows, first, shot) in enumerate(shown_frames, start=1):
        board = indexed[key]
        canvas = Image.new("P", (width, HEADER + board_height + caption_height), background)
        if colours is not None:
            canvas.putpalette(colours)
        top = HEADER + (board_height - board.height) // 2
        canvas.paste(board, ((width - board.width) // 2, top))
        draw = ImageDraw.Draw(canvas)
        # The frame's number, in its own band: it never lies on the board. It also keeps
        # two look-alike frames distinct, so none is merged.
        draw.text((MARGIN, MARGIN), f"{number}/{len(chosen)}", fill=ink, font=font)
        y = HEADER + board_height + MARGIN
        for (icon, row), starting in zip(rows, first, strict=True):
            at = (MARGIN, y + (LINE_HEIGHT - BADGE) // 2)
            if icon is not None:
                _badge(draw, at, icon, badges[icon], symbol)
            elif starting:  # a path card laid: a small card
                draw.rounded_rectangle(
                    [at[0] + 2, at[1] + 1, at[0] + BADGE - 2, at[1] + BADGE - 1],
                    radius=2,
                    fill=path,
                )
            draw.text((MARGIN + INDENT, y), row, fill=ink, font=font)
            y += LINE_HEIGHT
        result.append((canvas, shot.ms))
    return result


def _fit(drawn: dict[tuple[object, ...], Image.Image], shots_of: dict[Any, Shot]) -> None:
    """Boards drawn again to fill the frame: the widest within :data:`FRAME_WIDTH` (a
    phone shows the captions' letters 12 px tall), a smaller maze (another round's) as
    large as the frame holds."""
    widest = max(b.width for b in drawn.values())
    cell = GIF_CELL
    if widest > FRAME_WIDTH:
        cell = int(GIF_CELL * FRAME_WIDTH / widest)
        for key in drawn:
            shot = shots_of[key]
            drawn[key] = step_image(shot.step, shot.cells, cell)
    box = max(b.width for b in drawn.values()), max(b.height for b in drawn.values())
    for key, image in drawn.items():
        grow = min(box[0] / image.width, box[1] / image.height)
        if grow >= 1.1:
            shot = shots_of[key]
            larger = step_image(shot.step, shot.cells, int(cell * grow))
            if larger.width <= box[0] and larger.height <= box[1]:
                drawn[key] = larger


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
    sheet.paste(PATH_BADGE, (0, y + 4, width, y + 8))
    return sheet.quantize(colors=255, method=Image.Quantize.MEDIANCUT)


def _indices(palette: Image.Image, *colours: tuple[int, int, int]) -> list[int]:
    probe = Image.new("RGB", (len(colours), 1))
    for x, colour in enumerate(colours):
        probe.putpixel((x, 0), colour)
    mapped = probe.quantize(palette=palette, dither=Image.Dither.NONE)
    return [int(mapped.getpixel((x, 0))) for x in range(len(colours))]  # type: ignore[arg-type]


def encode_gif(images: list[Image.Image], times: Sequence[int] | None = None) -> bytes:
    """The frames (palette images sharing one palette) as a looping GIF, each shown its
    time in ``times`` (milliseconds; default :data:`READ_MS` each)."""
    if not images:
        raise ValueError("a GIF needs at least one frame")
    shown_ms = list(times) if times is not None else [READ_MS] * len(images)
    out = io.BytesIO()
    images[0].save(
        out,
        format="GIF",
        save_all=True,
        append_images=images[1:],
        duration=shown_ms,
        loop=0,
        optimize=False,
        disposal=1,
    )
    return out.getvalue()


def replay_gif(replay: Replay, *, lang: str = "en", renderer: StepRenderer | None = None) -> bytes:
    """The whole game as an animated GIF (GIF bytes, never another format): every path
    card and action, each round's start and end, at most a minute long."""
    timed = timed_frames(replay, lang=lang, renderer=renderer)
    return encode_gif([image for image, _ in timed], [ms for _, ms in timed])


GIF_SUFFIX: Final = ".gif"


class NotAGifFileError(ValueError):
    """A file name that does not end in ``.gif``: the replay is written as a GIF only."""


def write_gif(replay: Replay, path: Path, *, lang: str = "en") -> int:
    """Write the whole game as an animated GIF to ``path``, which must end in ``.gif``
    (raises :class:`NotAGifFileError` otherwise, writing nothing); returns the frames."""
    if path.suffix.lower() != GIF_SUFFIX:
        raise NotAGifFileError(f"{path}: a replay is written as a GIF; name the file *.gif")
    timed = timed_frames(replay, lang=lang)
    path.write_bytes(encode_gif([image for image, _ in timed], [ms for _, ms in timed]))
    return len(timed)


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
