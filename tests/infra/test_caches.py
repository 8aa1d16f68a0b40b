"""One cache type: every per-process cache of the packages is an :class:`infra.lru.LRU`,
and each one's bound has a name (a constant or a parameter), not a bare number. (A pure
function's memo, ``functools.lru_cache``, is no cache of this kind.)"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("domain", "infra", "tgbot")


def trees() -> dict[str, ast.Module]:
    return {
        path.relative_to(ROOT).as_posix(): ast.parse(path.read_text(), str(path))
        for top in PACKAGES
        for path in sorted((ROOT / top).rglob("*.py"))
    }


def test_no_module_but_the_lru_keeps_an_ordered_dict_of_its_own() -> None:
    using = sorted(
        name
        for name, tree in trees().items()
        if name != "infra/lru.py"
        for node in ast.walk(tree)
        if isinstance(node, ast.Name | ast.Attribute)
        and (node.id if isinstance(node, ast.Name) else node.attr) == "OrderedDict"
    )
    assert using == []


def test_every_lru_is_bounded_by_a_name() -> None:
    bare = sorted(
        f"{name}:{node.lineno}"
        for name, tree in trees().items()
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "LRU"
        and any(
            isinstance(a, ast.Constant) for a in [*node.args, *(k.value for k in node.keywords)]
        )
    )
    assert bare == []
