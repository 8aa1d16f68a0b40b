"""What the code imports is declared in pyproject.toml, and what it declares is used.

The runtime packages may import only the project's dependencies; the tests and the
benchmarks may also import the ``dev`` and ``bench`` extras. A missing declaration shows
up as a broken fresh install, so these tests read the imports from the source itself.
"""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RUNTIME = ("domain", "infra", "tgbot", "alembic")
OURS = {"domain", "infra", "tgbot", "tests", "benchmarks", "scripts", "saboteur_migrations"}
# Declared for what they do without being imported by name: the database driver SQLAlchemy
# loads from the URL, and the time zone data zoneinfo reads.
USED_UNIMPORTED = {"psycopg", "tzdata"}


def config() -> dict[str, object]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def name_of(requirement: str) -> str:
    """A requirement's distribution name, normalised.

    >>> name_of("celery[redis,sqlalchemy]>=5.3,<6"), name_of("Pillow>=10")
    ('celery', 'pillow')
    """
    found = re.match(r"[A-Za-z0-9._-]+", requirement)
    assert found, requirement
    return re.sub(r"[-_.]+", "-", found.group()).lower()


def extras_of(requirement: str) -> set[str]:
    found = re.search(r"\[([^\]]*)\]", requirement)
    return {e.strip() for e in found.group(1).split(",")} if found else set()


def declared(*extras: str) -> set[str]:
    project: dict[str, object] = config()["project"]  # type: ignore[assignment]
    requirements = list(project["dependencies"])  # type: ignore[call-overload]
    optional: dict[str, list[str]] = project["optional-dependencies"]  # type: ignore[assignment]
    for extra in extras:
        requirements += optional[extra]
    return {name_of(r) for r in requirements}


def imported(*tops: str) -> set[str]:
    """Top-level names of every module imported by the files under ``tops``, lazily or
    not, that are neither the standard library's nor the project's."""
    names: set[str] = set()
    local: set[str] = set()
    for top in tops:
        for path in (ROOT / top).rglob("*.py"):
            local.add(path.stem)  # a script's sibling module, imported by its name
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                if isinstance(node, ast.Import):
                    names |= {alias.name.split(".")[0] for alias in node.names}
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names.add(node.module.split(".")[0])
    return names - set(sys.stdlib_module_names) - OURS - local - {"__future__"}


def distributions(modules: set[str]) -> dict[str, set[str]]:
    """Each imported module's distributions (normalised names)."""
    known = packages_distributions()
    return {m: {name_of(d) for d in known.get(m, [m])} for m in sorted(modules)}


def test_the_runtime_packages_import_only_declared_dependencies() -> None:
    runtime = declared()
    undeclared = {m: d for m, d in distributions(imported(*RUNTIME)).items() if not d & runtime}
    assert undeclared == {}


def test_the_tests_and_benchmarks_import_only_declared_dependencies() -> None:
    everything = declared("dev", "bench")
    found = distributions(imported("tests", "benchmarks", "scripts"))
    undeclared = {m: d for m, d in found.items() if not d & everything}
    assert undeclared == {}


def test_every_runtime_dependency_is_imported() -> None:
    used = set().union(*distributions(imported(*RUNTIME)).values())
    assert declared() - used - USED_UNIMPORTED == set()


def test_the_benchmarks_library_is_no_runtime_or_test_dependency() -> None:
    assert "eventsourcing" not in declared("dev")
    assert "eventsourcing" in declared("bench")


def test_python_telegram_bot_is_installed_without_the_extras_nothing_uses() -> None:
    project: dict[str, list[str]] = config()["project"]  # type: ignore[assignment]
    [ptb] = [r for r in project["dependencies"] if name_of(r) == "python-telegram-bot"]
    assert extras_of(ptb) == set()
