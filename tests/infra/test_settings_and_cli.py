"""Settings from the environment, and the ``saboteur-bot`` command's plumbing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from infra.settings import ConfigurationError, load_settings, normalise_database_url
from tgbot import cli


def test_with_nothing_set_everything_runs_on_sqlite_files(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL"):
        monkeypatch.delenv(name, raising=False)

    settings = load_settings(_env_file=None)

    assert settings.database_url == "sqlite:///./saboteur.db"
    assert settings.broker_url.startswith("sqla+sqlite:///")


def test_postgres_and_redis_urls_are_normalised_and_used(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DATABASE_URL", "postgres://u:p@db:5432/app")
    monkeypatch.setenv("REDIS_URL", "redis://cache:6379/0")

    settings = load_settings(_env_file=None)

    assert settings.database_url == "postgresql+psycopg://u:p@db:5432/app"
    assert settings.broker_url == "redis://cache:6379/0"
    assert normalise_database_url("postgresql://h/d") == "postgresql+psycopg://h/d"


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("DATABASE_URL", "mysql://x/y"),
        ("WEBHOOK_PORT", "abc"),
        ("LOG_LEVEL", "loud"),
        ("DEFAULT_LANGUAGE", "xx"),
        ("DEADLINE_LEASE_SECONDS", "0"),
        ("DEADLINE_LEASE_SECONDS", "soon"),
        ("REDIS_URL", "http://x"),
        ("EMBEDDED_WORKER", "sometimes"),
        ("TELEGRAM_API_URL", "api.example:8081"),
        ("SECRET_KEY", "short"),
        ("PORT", "0"),
    ],
)
def test_broken_configuration_is_one_line_naming_the_variable(
    monkeypatch: pytest.MonkeyPatch, name: str, value: str
) -> None:
    monkeypatch.setenv(name, value)

    with pytest.raises(ConfigurationError) as raised:
        load_settings(_env_file=None)

    assert name in str(raised.value) and "\n" not in str(raised.value)


def test_the_deadline_lease_and_language_are_read_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("DEADLINE_LEASE_SECONDS", "12.5")
    monkeypatch.setenv("DEFAULT_LANGUAGE", " PL ")

    settings = load_settings(_env_file=None)

    assert settings.deadline_lease_seconds == 12.5
    assert settings.default_language == "pl"


def test_a_bad_redis_url_names_every_accepted_form(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REDIS_URL", "http://x")

    with pytest.raises(ConfigurationError) as raised:
        load_settings(_env_file=None)

    assert all(form in str(raised.value) for form in ("redis://", "rediss://", "unix://"))


def test_the_command_reports_broken_configuration_without_a_traceback(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("DATABASE_URL", "mysql://x/y")

    assert cli.main(["migrate"]) == 2
    assert "DATABASE_URL" in capsys.readouterr().err


def test_migrate_and_rebuild_run_against_the_configured_database(
    monkeypatch: pytest.MonkeyPatch, tmp_path: object, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path}/cli.db")

    assert cli.main(["migrate"]) == 0
    assert cli.main(["projections", "rebuild"]) == 0
    assert "rebuilt from 0 events" in capsys.readouterr().out


@pytest.mark.parametrize("name", ["board.png", "board.GIF.txt", "board"])
def test_replay_refuses_a_file_name_that_is_not_a_gif(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    out = tmp_path / name

    assert cli.main(["replay", "game-1", "--out", str(out)]) == 2

    error = capsys.readouterr().err.strip()
    assert ".gif" in error and "\n" not in error
    assert not out.exists()


def test_simulate_prints_its_speed_measured_with_the_commands_clocks(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert cli.main(["simulate", "--games", "2", "--edition", "base", "--players", "3"]) == 0
    report = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert report["games"] == 2 and report["violations"] == 0
    assert report["games_per_s"] > 0 and report["legal_moves_ms_mean"] > 0


def test_a_tournament_prints_win_rates_per_side_dwarf_and_kind_and_the_decision_time(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["tournament", "--games", "2", "--edition", "saboteur2", "--players", "4"]
    assert cli.main([*argv, "--seed", "5", "--sides", "diggers=strategy,saboteurs=random"]) == 0
    report = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert report["games"] == 2 and report["rounds"] == 6
    assert set(report["side_win_rate"]) == {"diggers", "saboteurs"}
    assert set(report["kind_win_rate"]) <= {"strategy", "random"} and report["role_win_rate"]
    assert report["games_per_s"] > 0 and report["decision_ms_p99"] >= report["decision_ms_p50"]


def test_a_tournament_plays_each_side_at_its_level_and_reports_each_level(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["tournament", "--games", "1", "--edition", "base", "--players", "3", "--seed", "2"]
    assert cli.main([*argv, "--sides", "diggers=easy,saboteurs=hard"]) == 0
    report = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert set(report["kind_win_rate"]) == {"easy", "hard"}
    assert set(report["decision_ms_by_kind"]) == {"easy", "hard"}
    hard = report["decision_ms_by_kind"]["hard"]
    assert hard["decisions"] > 0 and hard["p99"] >= hard["p50"]


def test_a_tournament_refuses_an_unknown_seat_kind_in_one_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as exit_:
        cli.main(["tournament", "--seats", "strategy,cheater"])
    assert exit_.value.code == 2
    assert "cheater" in capsys.readouterr().err


@pytest.mark.parametrize(
    "command",
    [
        ["export", "game-1"],
        ["replay", "game-1", "--out", "game.gif"],
        ["projections", "rebuild"],
    ],
)
def test_a_command_on_a_database_never_migrated_says_to_migrate_in_one_line(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    command: list[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path}/never-migrated.db")

    assert cli.main(command) == 2

    error = capsys.readouterr().err.strip()
    assert "saboteur-bot migrate" in error and "DATABASE_URL" in error and "\n" not in error
    assert not (tmp_path / "game.gif").exists()
