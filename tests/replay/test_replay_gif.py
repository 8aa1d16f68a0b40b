"""The animated GIF of a finished game: one frame per move, captions underneath."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image, ImageDraw, ImageFont

from tests.replay.games import PlayedGame
from tgbot.handlers.history import GifCache
from tgbot.presenter.icons import Icon
from tgbot.render import FONT_FILE
from tgbot.replay import LANGUAGES, Replay, Step
from tgbot.replay_gif import (
    HEADER,
    NotAGifFileError,
    encode_gif,
    frames,
    hidden_goals,
    main_replay,
    replay_gif,
    step_png,
    wrapped,
    write_gif,
)


def small_board(step: Step) -> Image.Image:
    """A cheap stand-in for the board picture: its size follows the number of cards."""
    cards = len(step.state.board)
    return Image.new("RGB", (40 + 4 * cards, 30), (10 * (cards % 20), 80, 40))


def test_the_gif_has_one_frame_per_move_and_opens_as_an_image(base_game: PlayedGame) -> None:
    replay = Replay("g", base_game.events)
    gif = replay_gif(replay, lang="es", renderer=small_board)
    image = Image.open(io.BytesIO(gif))
    assert image.format == "GIF"
    assert image.n_frames == len(replay)
    assert image.info.get("loop") == 0
    image.seek(image.n_frames - 1)
    image.load()


def test_frames_show_the_real_board_with_the_caption_underneath(
    expansion_game: PlayedGame,
) -> None:
    replay = Replay("g", expansion_game.events)
    steps = [replay.step(i) for i in (0, 1, 2, len(replay) - 1)]
    pictures = frames(steps, lang="pl")
    assert len({p.size for p in pictures}) == 1
    gif = Image.open(io.BytesIO(encode_gif(pictures)))
    assert gif.n_frames == 4
    assert gif.height > Image.open(io.BytesIO(step_png(steps[0]))).height * 0.5


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

    def board(step: Step) -> Image.Image:
        return Image.new("RGB", (480, 200), red)

    (frame,) = frames([replay.step(3)], renderer=board)
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
    gif = Image.open(io.BytesIO(replay_gif(replay, renderer=small_board)))
    total = 0
    for index in range(gif.n_frames):
        gif.seek(index)
        total += gif.info["duration"]
    assert total <= 60_000
