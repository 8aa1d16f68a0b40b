"""The messages the code uses, for ``pybabel extract`` (``babel.cfg`` names it).

The code asks for a message by its key (``texts.t("lobby.joined", ...)``, the Mini App's
``t("miniapp.draw_pile", ...)``), so a key in quotes in a Python or JavaScript file is a
message the code uses; a key built from a name (``f"path.{kind}"``) uses every key under
its literal prefix. Each is extracted as gettext's ``pgettext``/``npgettext``: the key as
its context, the English text (``msgid``, and ``msgid_plural`` for a counted message) from
the English catalog, which is the source language's.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator, Mapping
from typing import IO, Any

from tgbot.presenter import i18n

_KEY = re.compile(r"""(?<![\w.])["'`]([a-z][a-z0-9_]*(?:\.[a-z0-9_]+)+)["'`]""")
_PREFIX = re.compile(
    r"""(?<![\w.])f?["'`]([a-z][a-z0-9_]*\.(?:[a-z0-9_]+[._])*[a-z0-9_]*)(?:\{|\$\{)"""
)


def keys_in(source: str, known: Collection[str]) -> Iterator[tuple[int, str]]:
    """Every known key ``source`` uses, with its line.

    >>> list(keys_in('a = t("x.y")\\nb = t(f"x.{k}")', {"x.y", "x.z", "w.y"}))
    [(1, 'x.y'), (2, 'x.y'), (2, 'x.z')]
    """
    for number, line in enumerate(source.splitlines(), start=1):
        found: list[str] = [m.group(1) for m in _KEY.finditer(line) if m.group(1) in known]
        for match in _PREFIX.finditer(line):
            prefix = match.group(1)
            found.extend(key for key in sorted(known) if key.startswith(prefix) and key != prefix)
        for key in sorted(set(found)):
            yield number, key


def extract_keys(
    fileobj: IO[bytes],
    keywords: Mapping[str, Any],
    comment_tags: Collection[str],
    options: Mapping[str, Any],
) -> Iterator[tuple[int, str, tuple[str, ...], list[str]]]:
    """Babel's extraction method: the messages a source file uses."""
    english = i18n.messages(i18n.DEFAULT).english
    source = fileobj.read().decode("utf-8")
    for line, key in keys_in(source, english):
        forms = english[key].forms
        if english[key].plural:
            yield line, "npgettext", (key, forms[0], forms[1]), []
        else:
            yield line, "pgettext", (key, forms[0]), []
