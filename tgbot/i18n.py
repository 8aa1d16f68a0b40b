"""Message catalogs: every text a player reads, in English, Spanish and Polish.

Catalogs are JSON files in ``tgbot/locales``: ``{lang}.json`` for the bot's own texts,
plus any ``<part>_{lang}.json`` (such as the replay's) merged under it. A key missing
in a language falls back to English; a key missing everywhere shows as the key itself,
so a gap in a catalog never crashes a handler (the catalog tests catch gaps instead).

>>> t("es", "role.profiteer")
'Perezoso'
>>> t("pl", "move.theft", thief="Ola", victim="Jan")
'Ola kradnie 1 złoto graczowi Jan.'
>>> pick_language("es-MX", None), pick_language("pl", "en"), pick_language("de", None)
('es', 'en', 'en')
"""

from __future__ import annotations

import json
import logging
from functools import cache
from pathlib import Path
from string import Formatter
from typing import Final

from infra.settings import LANGUAGES

DEFAULT: Final = "en"
LOCALES: Final = Path(__file__).parent / "locales"

_log = logging.getLogger(__name__)


@cache
def catalog(lang: str) -> dict[str, str]:
    """Every message of ``lang`` (without the English fallback)."""
    if lang not in LANGUAGES:
        return {}
    messages: dict[str, str] = {}
    for part in sorted(LOCALES.glob(f"*_{lang}.json")):
        messages.update(json.loads(part.read_text("utf-8")))
    messages.update(json.loads((LOCALES / f"{lang}.json").read_text("utf-8")))
    return messages


def has(lang: str, key: str) -> bool:
    return key in catalog(lang) or key in catalog(DEFAULT)


def t(lang: str, key: str, /, **params: object) -> str:
    """The message ``key`` in ``lang``, formatted with ``params`` (``str.format``)."""
    template = catalog(lang).get(key)
    if template is None:
        template = catalog(DEFAULT).get(key)
        if template is None:
            _log.warning("missing message %r", key)
            return key
    return template.format(**params) if params else template


def placeholders(template: str) -> frozenset[str]:
    """The ``{names}`` a template uses.

    >>> sorted(placeholders("{name} placed {card} at {cell}."))
    ['card', 'cell', 'name']
    """
    return frozenset(field for _, field, _, _ in Formatter().parse(template) if field)


def pick_language(telegram_language_code: str | None, group_override: str | None) -> str:
    """The chat's chosen language if any, else the user's Telegram language, else English."""
    for code in (group_override, telegram_language_code):
        if code:
            primary = code.split("-")[0].split("_")[0].lower()
            if primary in LANGUAGES:
                return primary
    return DEFAULT
