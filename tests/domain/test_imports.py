"""domain/ imports only the standard library and itself (an allow-list, unlike the
import-linter contract, which can only forbid the packages it names)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

DOMAIN = Path(__file__).resolve().parents[2] / "domain"


def foreign_imports(source: str) -> list[str]:
    """Top-level modules ``source`` imports that are neither the standard library nor
    ``domain``. Relative imports stay inside the package, so they are never foreign."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        else:
            continue
        for name in names:
            top = name.partition(".")[0]
            if top != "domain" and top not in sys.stdlib_module_names:
                found.append(top)
    return found


def test_domain_imports_only_the_standard_library_and_itself() -> None:
    modules = sorted(DOMAIN.rglob("*.py"))
    assert len(modules) > 10
    foreign = {
        str(path.relative_to(DOMAIN)): found
        for path in modules
        if (found := foreign_imports(path.read_text(encoding="utf-8")))
    }
    assert foreign == {}


def test_a_stray_third_party_import_is_caught_wherever_it_hides() -> None:
    assert foreign_imports("import hypothesis") == ["hypothesis"]
    assert foreign_imports("from sqlalchemy.orm import Session") == ["sqlalchemy"]
    source = "def f() -> None:\n    if True:\n        import telegram.ext as t\n"
    assert foreign_imports(source) == ["telegram"]
    assert foreign_imports("try:\n    import yaml\nexcept ImportError:\n    pass\n") == ["yaml"]
    assert foreign_imports("import os.path\nfrom . import board\nfrom domain.cards import N") == []
