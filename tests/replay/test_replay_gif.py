"""The animated GIF of a finished game: one frame per move, captions underneath."""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path

import pytest
from PIL import Image, ImageChops, ImageDraw, ImageFont

from domain.board import Cell
from tests.replay.games import PlayedGame
from tgbot.presenter.icons import Icon, Line
from tgbot.presenter.palette import FONT_FILE, GRID
from tgbot.replay.gif import (
    HEADER,
    SHOWN,
    NotAGifFileError,
    frames,
    hidden_goals,
    main_replay,
    plain,
    replay_gif,
    shots,
    shown,
    step_image,
    step_png,
    wrapped,
    write_gif,
)
from tgbot.replay.steps import LANGUAGES, MOVE, Replay, Step, lines
from tgbot.telegram.handlers.replays import GifCache


def small_board(step: Step, cells: Sequence[Cell] = ()) -> Image.Image:
    """A cheap stand-in for the board picture: its size follows the number of cards."""
    cards = len(step.state.board)
    return Image.new("RGB", (40 + 4 * cards, 30), (10 * (cards % 20), 80, 40))


def test_the_gif_opens_as_a_looping_image_of_its_frames(base_game: PlayedGame) -> None:
    replay = Replay("g", base_game.events)
    gif = replay_gif(replay, lang="es", renderer=small_board)
    image = Image.open(io.BytesIO(gif))
    assert image.format == "GIF"
    assert image.n_frames == len(shots(replay, "es"))
    assert image.info.get("loop") == 0
    image.seek(image.n_frames - 1)
    image.load()


def frame_times(gif: bytes) -> list[int]:
    image = Image.open(io.BytesIO(gif))
    times = []
    for index in range(image.n_frames):
        image.seek(index)
        times.append(image.info["duration"])
    return times


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_frame_stays_a_second_and_shows_every_path_card_and_action(
    finished_game: PlayedGame, lang: str
) -> None:
    # Each move used to show for 0.18–0.26 s: a frame now stays at least a second, a few
    # moves of a turn or two to a frame, and no path card nor action is left out.
    replay = Replay("g", finished_game.events)
    assert len(replay.round_starts) == 3
    times = frame_times(replay_gif(replay, lang=lang, renderer=small_board))
    assert min(times) >= 1000
    assert sum(times) <= 60_000
    told = [line.text for shot in shots(replay, lang) for line in shot.told]
    for step in replay:
        if any(isinstance(e, SHOWN) for e in step.events) and step.kind == MOVE:
            assert lines(step, lang, brief=True)[0].text in told, step.index
    assert len(times) < len(replay) / 2


def test_a_frame_frames_the_cells_of_all_its_moves(base_game: PlayedGame) -> None:
    replay = Replay("g", base_game.events)
    grouped = [shot for shot in shots(replay) if len(shot.cells) > 1]
    assert grouped
    shot = grouped[0]
    drawn = step_image(shot.step, shot.cells)
    alone = step_image(shot.step, shot.cells[-1:])
    assert ImageChops.difference(drawn, alone).getbbox() is not None


def test_the_frame_is_cropped_to_the_maze_and_its_captions(expansion_game: PlayedGame) -> None:
    # Half of every frame was empty beige: the board's grid now spans the frame's width
    # and most of its height, in every frame.
    replay = Replay("g", expansion_game.events)
    pictures = frames(replay, lang="es")
    assert len({p.size for p in pictures}) == 1
    width, height = pictures[0].size
    assert width <= 560
    for picture in pictures[:: max(1, len(pictures) // 8)]:
        rgb = picture.convert("RGB")
        off = ImageChops.difference(rgb, Image.new("RGB", rgb.size, GRID)).convert("L")
        box = off.point(lambda v: 255 if v == 0 else 0).getbbox()  # the grid's lines
        assert box is not None
        left, top, right, bottom = box
        # Beside the grid: the coordinates' strip on the left, the goals' column right.
        assert right - left >= 0.7 * width and bottom - top >= 0.5 * height


def test_the_replay_photo_is_a_png_that_shows_the_hidden_goals(base_game: PlayedGame) -> None:
    replay = Replay("g", base_game.events)
    first = replay.step(0)
    assert len(hidden_goals(first)) == 3  # a round starts with three face-down goals
    png = step_png(first)
    assert Image.open(io.BytesIO(png)).format == "PNG"


def test_the_bot_keeps_a_few_gifs_in_memory_within_a_byte_budget() -> None:
    def kept(gifs: GifCache) -> list[str]:
        return [g for g in ("g0", "g1", "g2", "g3") if gifs.get((g, "en")) is not None]

    few = GifCache(size=2, budget=10_000)
    for game in ("g0", "g1", "g2"):
        few.put((game, "en"), bytes(100))
    assert kept(few) == ["g1", "g2"]

    small = GifCache(size=10, budget=250)
    small.put(("g0", "en"), bytes(100))
    small.put(("g1", "en"), bytes(100))
    small.put(("g2", "en"), bytes(100))  # over the budget: the least recently used goes
    assert small.get(("g1", "en")) is not None
    small.put(("g3", "en"), bytes(100))
    assert kept(small) == ["g1", "g3"]


def test_the_gif_writer_writes_gif_files_only(base_game: PlayedGame, tmp_path: Path) -> None:
    replay = Replay("g", base_game.events)
    with pytest.raises(NotAGifFileError):
        write_gif(replay, tmp_path / "game.mp4")
    assert not (tmp_path / "game.mp4").exists()
    assert main_replay(["g", "--out", str(tmp_path / "game.mp4")]) == 2
    assert not (tmp_path / "game.mp4").exists()


def missing_glyphs(text: str, font: ImageFont.FreeTypeFont) -> set[str]:
    """The characters of ``text`` the font draws as its 'no such glyph' box."""

    def drawn(char: str) -> bytes:
        image = Image.new("L", (40, 40))
        ImageDraw.Draw(image).text((4, 4), char, font=font, fill=255)
        return image.tobytes()

    unknown = drawn("\U0010fffd")  # a private-use character no font has
    return {c for c in set(text) if not c.isspace() and drawn(c) == unknown}


def test_a_computer_players_mark_is_drawn_not_a_missing_glyph() -> None:
    # "🤖 Finn" was drawn "▯ Finn": the font has no emoji.
    font = ImageFont.truetype(str(FONT_FILE), 15)
    drawn = plain(Line(Icon.TRAPPED, "🤖 Sigrid ha dejado atrapado a Bo."))
    assert drawn == "⚙ Sigrid ha dejado atrapado a Bo."
    assert missing_glyphs(drawn, font) == set()


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_gif_draws_every_character_of_its_captions(
    finished_game: PlayedGame, lang: str
) -> None:
    replay = Replay("g", finished_game.events)
    font = ImageFont.truetype(str(FONT_FILE), 15)
    drawn = "".join(row for step in replay for _, row in wrapped(step, lang, 480))
    drawn += "".join(icon.symbol for icon in Icon) + "0123456789/"
    assert missing_glyphs(drawn, font) == set()


def test_the_move_counter_has_a_band_of_its_own_above_the_board(base_game: PlayedGame) -> None:
    replay = Replay("g", base_game.events)
    red = (255, 0, 0)

    def board(step: Step, cells: Sequence[Cell] = ()) -> Image.Image:
        return Image.new("RGB", (480, 200), red)

    move = next(step for step in replay if step.kind == MOVE and shown(step))
    (frame,) = frames([move], renderer=board)
    pixels = frame.convert("RGB")
    rows_with_board = [
        y
        for y in range(pixels.height)
        if any(pixels.getpixel((x, y)) == red for x in range(0, 480, 7))
    ]
    ink = [
        y
        for y in range(HEADER)
        if any(pixels.getpixel((x, y)) != pixels.getpixel((0, 0)) for x in range(60))
    ]
    assert min(rows_with_board) >= HEADER and ink  # the counter, then the board below it


def test_a_whole_game_plays_in_at_most_a_minute(expansion_game: PlayedGame) -> None:
    replay = Replay("g", expansion_game.events)
    assert len(replay) > 60
    times = frame_times(replay_gif(replay))  # the real boards
    assert sum(times) <= 60_000 and min(times) >= 1000
