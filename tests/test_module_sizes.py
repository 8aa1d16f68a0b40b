"""Every module of the packages stays under :data:`LIMIT` lines: one that grows past it
is split by what its code does (as infra/event_store.py and tgbot/delivery/outbox.py were).

Only Python modules are counted: the translation catalogs (tgbot/locales) are data. The
fake Bot API of the demo and the tests is exempt by name.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("domain", "infra", "tgbot")
LIMIT = 500

# Exempt for good: the fake Bot API (a whole server, for the demo and the tests).
EXEMPT = frozenset({"tgbot/offline/fakeapi.py"})


def sizes() -> dict[str, int]:
    """Every module of the packages and its number of lines, by its path from the root."""
    return {
        path.relative_to(ROOT).as_posix(): len(path.read_text("utf-8").splitlines())
        for package in PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
    }


def test_every_module_is_under_the_limit() -> None:
    too_long = {
        name: lines for name, lines in sizes().items() if lines >= LIMIT and name not in EXEMPT
    }
    assert too_long == {}


def test_every_exemption_names_a_module_that_still_needs_it() -> None:
    found = sizes()
    assert sorted(name for name in EXEMPT if found.get(name, 0) < LIMIT) == []
