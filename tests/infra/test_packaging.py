"""The package works installed, not only as an editable checkout."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest
from sqlalchemy import inspect

from infra.db import make_engine
from infra.schema import metadata

ROOT = Path(__file__).resolve().parents[2]


def listed_packages() -> set[str]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return set(config["tool"]["setuptools"]["packages"])


def test_every_package_of_the_checkout_is_in_the_wheel() -> None:
    found = {
        ".".join(folder.relative_to(ROOT).parts)
        for top in ("domain", "infra", "tgbot")
        for folder in [ROOT / top, *(ROOT / top).rglob("*")]
        if folder.is_dir() and (folder / "__init__.py").is_file()
    }

    assert found | {"saboteur_migrations", "saboteur_migrations.versions"} == listed_packages()


@pytest.mark.slow
def test_an_installed_wheel_migrates_a_database_from_another_folder(tmp_path: Path) -> None:
    wheels = tmp_path / "wheels"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels), str(ROOT)],
        check=True,
        capture_output=True,
        timeout=280,
    )
    installed = tmp_path / "site"
    [wheel] = wheels.glob("*.whl")
    zipfile.ZipFile(wheel).extractall(installed)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    database = elsewhere / "installed.db"
    env = {
        **os.environ,
        "PYTHONPATH": str(installed),
        "DATABASE_URL": f"sqlite:///{database}",
    }

    where = subprocess.run(
        [sys.executable, "-c", "import infra.migrations as m; print(m.script_location())"],
        cwd=elsewhere,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    migrated = subprocess.run(
        [sys.executable, "-m", "tgbot.cli", "migrate"],
        cwd=elsewhere,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )

    assert Path(where) == installed / "saboteur_migrations"
    assert migrated.returncode == 0, migrated.stderr
    engine = make_engine(f"sqlite:///{database}")
    try:
        assert set(metadata.tables) <= set(inspect(engine).get_table_names())
    finally:
        engine.dispose()

    # The message catalogs come with it, and speak from there.
    spoken = subprocess.run(
        [
            sys.executable,
            "-c",
            "import tgbot.presenter.i18n as i; "
            "print(i.catalog_path('de').parent.parent.parent.parent);"
            "print(i.t('de', 'turn.round_pile', round=1, count=2))",
        ],
        cwd=elsewhere,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    assert spoken == [str(installed / "tgbot"), "Runde 1/3 · Nachziehstapel: 2 Karten"]
