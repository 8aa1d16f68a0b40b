"""The animated GIF of a finished game: one frame per move, captions underneath."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image

from tests.replay.games import PlayedGame
from tgbot.handlers.history import GifCache
from tgbot.replay import Replay, Step
from tgbot.replay_gif import (
    NotAGifFileError,
    encode_gif,
    frames,
    hidden_goals,
    main_replay,
    replay_gif,
    step_png,
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
