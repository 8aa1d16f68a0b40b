"""Random legal games of both editions keep every invariant."""

from __future__ import annotations

import json

import pytest

from domain.cards import VARIANTS
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


@pytest.mark.parametrize(
    ("variants", "players", "games"),
    [((v,), (3 + i, 10), 3) for i, v in enumerate(VARIANTS)] + [(VARIANTS, (3, 10), 8)],
)
def test_random_games_with_each_variant_and_all_together_break_no_invariant(
    variants: tuple[str, ...], players: tuple[int, int], games: int
) -> None:
    report = simulate(games, "base", players, seed=2026, variants=variants)
    assert report["finished"] == games and report["variants"] == list(variants)
    assert report["violations"] == 0, report["violation_samples"]


def test_main_prints_one_json_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--games", "2", "--edition", "base", "--players", "3-4"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["games"] == 2 and report["violations"] == 0
    assert main(["--games", "1", "--edition", "base", "--players", "5", "--variants", "all"]) == 0
    assert json.loads(capsys.readouterr().out)["variants"] == list(VARIANTS)
    with pytest.raises(SystemExit):
        main(["--edition", "saboteur2", "--variants", "greedy_dwarf"])


def test_the_simulator_reads_no_clock_of_its_own_and_times_with_the_callers() -> None:
    untimed = simulate(1, "base", (3, 3), seed=5)
    speed = ("seconds", "games_per_s", "cpu_seconds", "games_per_cpu_s")
    assert [untimed[k] for k in speed] == [None] * 4
    assert untimed["legal_moves_ms_mean"] is None and untimed["legal_moves_calls"] == 0

    ticks = iter(range(10**7))

    def clock() -> float:  # a second passes at every reading
        return float(next(ticks))

    timed = simulate(2, "base", (3, 3), seed=5, clock=clock, cpu_clock=lambda: 0.0)
    assert timed["legal_moves_calls"] > 0
    assert timed["legal_moves_ms_mean"] == timed["legal_moves_ms_max"] == 1000.0
    assert timed["seconds"] == 2 * timed["legal_moves_calls"] + 1
    assert timed["cpu_seconds"] == 0.0 and timed["games_per_cpu_s"] is None


def test_show_prints_the_maze_of_every_round_as_it_ended(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["--games", "2", "--edition", "saboteur2", "--players", "4", "--show"]) == 0
    lines = capsys.readouterr().out.splitlines()
    titles = [line for line in lines if line.startswith("game ")]
    assert [t.split(":")[0] for t in titles] == [
        f"game {g}, round {r}" for g in (1, 2) for r in (1, 2, 3)
    ]
    assert sum("S" in line for line in lines) == 6  # the start card, once per maze
    assert json.loads(lines[-1])["finished"] == 2
