"""The command line: ``replay GAME_ID --out FILE``, ``export GAME_ID``, ``import FILE``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from PIL import Image

from infra.db import make_engine
from infra.event_store import EventStore
from infra.migrations import upgrade
from tests.replay.games import PlayedGame
from tests.replay.test_history_figures import store_game
from tgbot.cli import main
from tgbot.replay import gif as replay_gif


def test_export_import_and_replay_from_the_command_line(
    empty_database: Callable[[str], str],
    tmp_path: Path,
    base_game: PlayedGame,
    unfinished_game: PlayedGame,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    source, target = empty_database("sqlite"), empty_database("sqlite")
    upgrade(source)
    upgrade(target)
    store = EventStore(make_engine(source))
    game_id = store_game(store, base_game.events, day=0)
    running = store_game(store, unfinished_game.events, day=1)
    exported = tmp_path / "game.jsonl"

    assert main(["export", game_id, "--out", str(exported), "--database-url", source]) == 0
    capsys.readouterr()
    assert main(["import", str(exported), "--database-url", target]) == 0
    told = capsys.readouterr()
    new_id = told.out.strip()
    assert new_id, told  # the new id on standard output, for a script to read

    # A cheap board picture keeps the test fast; the benchmark times the real one.
    monkeypatch.setattr(replay_gif, "step_image", lambda step, cells=(): Image.new("RGB", (60, 40)))
    monkeypatch.setattr(
        replay_gif.replay_gif, "__kwdefaults__", {"lang": "en", "renderer": replay_gif.step_image}
    )
    gif = tmp_path / "game.gif"
    assert main(["replay", new_id, "--out", str(gif), "--database-url", target]) == 0
    frames = Image.open(gif).n_frames
    assert frames > 10
    assert main(["replay", running, "--out", str(gif), "--database-url", source]) == 1
    assert "still running" in capsys.readouterr().err
