"""Message catalogs: every text a player reads, one gettext catalog per language.

The catalogs are ``tgbot/locales/<lang>/LC_MESSAGES/messages.po``, managed with Babel
(``pybabel extract`` writes ``messages.pot`` from the code, see ``babel.cfg``). Each message
has the key the code uses as its ``msgctxt``, the English text as its ``msgid`` (and
``msgid_plural``), and the translation as its ``msgstr``. They are read as they are, at run
time: an installed package and a fresh clone need no compile step.

A message with plural forms is chosen by the count it is formatted with (``n`` or
``count``) under its language's plural rule (Polish has three forms). A message missing
in a language falls back to English; a key missing everywhere shows as the key itself, so a
gap in a catalog never crashes a handler (the catalog tests catch gaps instead).

>>> t("es", "role.profiteer")
'perezoso'
>>> [t("pl", "bot.duration_days", n=n) for n in (1, 2, 5, 22)]
['1 dzień', '2 dni', '5 dni', '22 dni']
>>> pick_language("es-MX"), pick_language(None, "pl", "en"), pick_language("fr", None)
('es', 'pl', 'en')
"""

from __future__ import annotations

import gettext
import logging
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from string import Formatter
from typing import Final

from babel.messages.pofile import read_po

from infra.settings import LANGUAGES

DEFAULT: Final = "en"
LOCALES: Final = Path(__file__).parents[1] / "locales"
DOMAIN: Final = "messages"
COUNTS: Final = ("n", "count")  # the parameter a plural message is counted by

_log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Message:
    """One message of one language: its forms (one, or one per plural form)."""

    forms: tuple[str, ...]
    plural: bool


@dataclass(frozen=True, slots=True)
class Catalog:
    """A language's messages by key, and its plural rule (a count to a form's index)."""

    lang: str
    messages: dict[str, Message]
    plural: Callable[[int], int]
    english: dict[str, Message]  # the source texts (msgid/msgid_plural) by key


def catalog_path(lang: str) -> Path:
    return LOCALES / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


@cache
def catalog(lang: str) -> dict[str, str]:
    """Every translated message of ``lang`` by key, a plural one by its first form
    (without the English fallback)."""
    return {key: message.forms[0] for key, message in messages(lang).messages.items()}


@cache
def messages(lang: str) -> Catalog:
    """Every translated message of ``lang`` with its forms, and the language's plural rule."""
    if lang not in LANGUAGES:
        return Catalog(lang, {}, _germanic, {})
    with catalog_path(lang).open("rb") as po:
        parsed = read_po(po, locale=lang)
    found: dict[str, Message] = {}
    english: dict[str, Message] = {}
    for entry in parsed:
        if not entry.context:
            continue
        plural = isinstance(entry.id, tuple)
        source = tuple(entry.id) if plural else (entry.id,)
        english[entry.context] = Message(tuple(str(s) for s in source), plural)
        if entry.fuzzy:  # not checked by a translator yet: English rather than a guess
            continue
        forms = tuple(entry.string) if isinstance(entry.string, tuple) else (entry.string,)
        if all(forms):
            found[entry.context] = Message(tuple(str(f) for f in forms), plural)
    rule = gettext.c2py(parsed.plural_expr)
    return Catalog(lang, found, rule, english)


def _germanic(n: int) -> int:
    return int(n != 1)


def has(lang: str, key: str) -> bool:
    return key in catalog(lang) or key in catalog(DEFAULT)


def t(lang: str, key: str, /, **params: object) -> str:
    """The message ``key`` in ``lang``, formatted with ``params`` (``str.format``); a
    plural message in the form its count (``n`` or ``count``) asks for."""
    found = messages(lang if lang in LANGUAGES else DEFAULT)
    message = found.messages.get(key)
    if message is None:
        found = messages(DEFAULT)
        message = found.messages.get(key)
        if message is None:
            _log.warning("missing message %r", key)
            return key
    template = message.forms[0]
    if message.plural:
        count = next((params[name] for name in COUNTS if name in params), None)
        if isinstance(count, int):
            index = found.plural(abs(count))
            template = message.forms[min(index, len(message.forms) - 1)]
    return template.format(**params) if params else template


def forms(lang: str, key: str) -> tuple[str, ...]:
    """Every form of a message in ``lang`` (English's where it is untranslated)."""
    message = messages(lang).messages.get(key) or messages(DEFAULT).messages.get(key)
    return message.forms if message is not None else (key,)


def plural_index(lang: str, n: int) -> int:
    """Which plural form ``lang`` uses for ``n``.

    >>> [plural_index("pl", n) for n in (1, 2, 5, 22, 25)]
    [0, 1, 2, 1, 2]
    """
    return messages(lang if lang in LANGUAGES else DEFAULT).plural(abs(n))


def placeholders(template: str) -> frozenset[str]:
    """The ``{names}`` a template uses.

    >>> sorted(placeholders("{name} placed {card} at {cell}."))
    ['card', 'cell', 'name']
    """
    return frozenset(field for _, field, _, _ in Formatter().parse(template) if field)


def primary(code: str | None) -> str | None:
    """A catalog's language for a chosen language or an IETF tag Telegram sends, if any.

    >>> primary("pt-BR"), primary("de-AT"), primary(None)
    (None, 'de', None)
    """
    if not code:
        return None
    found = code.split("-")[0].split("_")[0].lower()
    return found if found in LANGUAGES else None


def pick_language(*candidates: str | None) -> str:
    """The first of ``candidates`` (a stored choice, a learned language, a Telegram
    ``language_code``, a default …) there is a catalog for, else English."""
    for code in candidates:
        found = primary(code)
        if found is not None:
            return found
    return DEFAULT
