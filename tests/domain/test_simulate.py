"""Random legal games of both editions keep every invariant."""

from __future__ import annotations

import json

import pytest

from domain.simulate import main, simulate


@pytest.mark.parametrize(
    ("edition", "players", "games"),
    [("base", (3, 10), 8), ("saboteur2", (2, 12), 11)],
)
def test_random_games_of_every_player_count_break_no_invariant(
    edition: str, players: tuple[int, int], games: int
) -> None:
    report = simulate(games, edition, players, seed=2024)  # type: ignore[arg-type]
    assert report["games"] == games
    assert report["violations"] == 0, report["violation_samples"]
    assert report["events"] > games * 100


def test_main_prints_one_json_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--games", "2", "--edition", "base", "--players", "3-4"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["games"] == 2 and report["violations"] == 0
