"""The examples in the packages' docstrings run as written."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

PACKAGES = ("domain", "infra", "tgbot")


def modules() -> list[str]:
    found = []
    for package in PACKAGES:
        path = importlib.import_module(package).__path__
        found += [m.name for m in pkgutil.walk_packages(path, f"{package}.")]
    return sorted(found)


def test_every_package_module_is_looked_at() -> None:
    assert {"domain.board", "infra.archive", "tgbot.presenter.keyboards"} <= set(modules())


@pytest.mark.parametrize("name", modules())
def test_the_docstring_examples_of_a_module_hold(name: str) -> None:
    failed, _ = doctest.testmod(importlib.import_module(name), verbose=False)
    assert failed == 0
