"""Every rule the code cites is in the repository: the sections of docs/rules.md.

A citation is a ``§`` followed by a section number (``§4.1``, ``§3–§6``). Modules cite
docs/rules.md by name or, once named, by ``§`` alone; either way the section must exist.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "docs" / "rules.md"
SEARCHED = ("docs", "domain", "infra", "tgbot", "tests", "benchmarks", "scripts", "alembic")
SUFFIXES = (".py", ".md", ".toml", ".cfg", ".ini", ".po", ".pot", ".txt", "")
# The spec and the numbered rulebook files the rules were first written from live outside
# the repository: their names, and the "seed" numbers they were cited by, must not appear
# (the patterns are spelled so that this file does not match them itself).
OUTSIDE = (r"RULES\.m[d]", r"seeds/0[0]", r"\bseeds? `*0[0]\d\b")

HEADING = re.compile(r"^#{2,3} (\d+(?:\.\d+)?)\.? ", re.MULTILINE)
CITATION = re.compile(r"§(\d+(?:\.\d+)?)")


def sections(text: str) -> set[str]:
    """The section numbers of a rules text: its ``## N.`` and ``### N.M`` headings.

    >>> sorted(sections("## 1. The table\\n### 1.1 The grid\\n## 2. Cards\\n"))
    ['1', '1.1', '2']
    """
    return set(HEADING.findall(text))


def citations(text: str) -> list[str]:
    """The section numbers cited in ``text``, in order.

    >>> citations("placing (§4.1 rules 2–5), §3–§6, and §6.2's teams")
    ['4.1', '3', '6', '6.2']
    """
    return CITATION.findall(text)


def files() -> list[Path]:
    found = [ROOT / "README.md"]
    for top in SEARCHED:
        for path in sorted((ROOT / top).rglob("*")):
            if path.is_file() and path.suffix in SUFFIXES and "__pycache__" not in path.parts:
                found.append(path)
    return found


def text_of(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        return ""


def test_the_rules_have_every_section_their_contents_list() -> None:
    text = RULES.read_text(encoding="utf-8")
    numbered = {s for s in sections(text) if "." not in s}
    assert numbered == {str(n) for n in range(1, 10)}


def test_the_search_looks_at_the_modules_that_cite_the_rules() -> None:
    names = {p.relative_to(ROOT).as_posix() for p in files()}
    assert {
        "domain/board.py",
        "infra/deadlines.py",
        "tgbot/presenter/texts.py",
        "README.md",
    } <= names


def test_nothing_cites_a_section_the_rules_do_not_have() -> None:
    known = sections(RULES.read_text(encoding="utf-8"))
    missing = [
        f"{path.relative_to(ROOT)}:{number}: §{cited}"
        for path in files()
        for number, line in enumerate(text_of(path).splitlines(), start=1)
        for cited in citations(line)
        if cited not in known
    ]
    assert missing == []


@pytest.mark.parametrize("outside", OUTSIDE)
def test_nothing_cites_rules_kept_outside_the_repository(outside: str) -> None:
    pattern = re.compile(outside)
    citing = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in files()
        for number, line in enumerate(text_of(path).splitlines(), start=1)
        if pattern.search(line)
    ]
    assert citing == []
