"""Text as Telegram reads it: HTML parsed into plain text and entities, measured as
Telegram measures its limits.

Telegram checks a message's 4,096 characters and a caption's 1,024 "after entities
parsing" (the tags gone, ``&amp;`` one character), and it counts in UTF-16 code units, as
its entity offsets are documented: an emoji beyond the basic plane (👉, 🪨) counts 2. What
fits by that count fits by any other. The parser accepts what the Bot API's "HTML style"
documents and nothing else: its tags with their documented attributes, closed in order
and nested as its entities may be, ``&lt;`` ``&gt;`` ``&amp;`` ``&quot;`` and numerical
entities, and no bare ``<``, ``>`` or ``&``.

>>> length('👉 <a href="tg://user?id=1">Ann</a> &amp; Bo')
11
>>> try:
...     parse("<b>x</i>")
... except HtmlError as error:
...     print(error.description)
can't parse entities: unmatched end tag at byte offset 4, expected "</b>", found "</i>"
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from typing import Final

CAPTION_LIMIT: Final = 1024  # a photo's, an animation's or a document's caption
TEXT_LIMIT: Final = 4096  # a message's text
ALERT_LIMIT: Final = 200  # the answer to a button's press (a notification or an alert)

# The tags of the Bot API's HTML style, the entity each makes, and the attributes each
# may carry (a tag marked required must carry it).
TAGS: Final = {
    "b": "bold",
    "strong": "bold",
    "i": "italic",
    "em": "italic",
    "u": "underline",
    "ins": "underline",
    "s": "strikethrough",
    "strike": "strikethrough",
    "del": "strikethrough",
    "span": "spoiler",
    "tg-spoiler": "spoiler",
    "a": "text_link",
    "tg-emoji": "custom_emoji",
    "tg-time": "date_time",
    "code": "code",
    "pre": "pre",
    "blockquote": "blockquote",
}
ATTRIBUTES: Final[dict[str, frozenset[str]]] = {
    "span": frozenset({"class"}),
    "a": frozenset({"href"}),
    "tg-emoji": frozenset({"emoji-id"}),
    "tg-time": frozenset({"unix", "format"}),
    "code": frozenset({"class"}),
    "blockquote": frozenset({"expandable"}),
}
REQUIRED: Final = {"span": "class", "a": "href", "tg-emoji": "emoji-id", "tg-time": "unix"}
# Entities that may contain, and be part of, any other but pre and code.
STYLES: Final = frozenset({"bold", "italic", "underline", "strikethrough", "spoiler"})
NAMED: Final = {"lt": "<", "gt": ">", "amp": "&", "quot": '"'}
ENTITY: Final = re.compile(r"&(?:#([0-9]{1,7})|#[xX]([0-9a-fA-F]{1,6})|([a-zA-Z]+));")
TAG: Final = re.compile(r"<(/?)([a-zA-Z][a-zA-Z0-9-]*)((?:\s+[^<>]*?)?)\s*(/?)>", re.S)
ATTRIBUTE: Final = re.compile(
    r"""\s*([a-zA-Z][a-zA-Z0-9-]*)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?"""
)
STRIP: Final = re.compile(r"<[^>]*>")


class HtmlError(ValueError):
    """Telegram would refuse the text, answering "Bad Request: " and the description."""

    def __init__(self, description: str) -> None:
        super().__init__(f"can't parse entities: {description}")
        self.description = f"can't parse entities: {description}"


@dataclass(frozen=True)
class Entity:
    """One entity of a parsed text; offset and length in UTF-16 code units."""

    type: str
    offset: int
    length: int
    url: str = ""  # a link's address


@dataclass(frozen=True)
class Parsed:
    """A text as Telegram shows it: plain text, and its entities."""

    text: str
    entities: tuple[Entity, ...]

    @property
    def length(self) -> int:
        return utf16(self.text)


def utf16(text: str) -> int:
    """``text``'s length in UTF-16 code units.

    >>> utf16("a👉é")
    4
    """
    return len(text.encode("utf-16-le")) // 2


def cut(text: str, units: int) -> str:
    """The longest start of plain ``text`` of at most ``units`` UTF-16 code units (a
    character beyond the basic plane is never cut in two).

    >>> cut("ab👉c", 3)
    'ab'
    """
    if utf16(text) <= units:
        return text
    count = 0
    for index, char in enumerate(text):
        count += 2 if ord(char) > 0xFFFF else 1
        if count > units:
            return text[:index]
    return text  # pragma: no cover


def length(text: str) -> int:
    """How long Telegram counts HTML ``text``: its plain text in UTF-16 code units (a
    text it would refuse to parse counts whole, tags and all)."""
    try:
        return parse(text).length
    except HtmlError:
        return utf16(text)


def plain(text: str) -> str:
    """HTML ``text`` as it reads, leniently: tags gone, entities back to characters.

    >>> plain("<b>1 &lt; 2</b>")
    '1 < 2'
    """
    return html.unescape(STRIP.sub("", text))


def fit(text: str, limit: int) -> str:
    """HTML ``text`` itself when Telegram counts it within ``limit``; else its plain text
    cut to fit with an ellipsis, escaped again (a tag is never cut in two).

    >>> fit("<b>ab</b>&amp;cd", 4)
    'ab&amp;…'
    """
    if length(text) <= limit:
        return text
    return html.escape(cut(plain(text), limit - 1), quote=False) + "…"


def parse(text: str) -> Parsed:
    """Parse HTML ``text`` as Telegram's Bot API does (see the module's docstring);
    :class:`HtmlError` with Telegram's kind of description when it would refuse it."""
    out: list[str] = []
    units = 0  # UTF-16 length of what is out so far
    stack: list[tuple[str, str, int, str]] = []  # open tags: name, entity, offset, link
    entities: list[Entity] = []
    index = 0
    while index < len(text):
        char = text[index]
        if char == "&":
            match = ENTITY.match(text, index)
            decoded = _entity(match) if match else None
            if decoded is None:
                at = _bytes(text, index)
                raise HtmlError(f'character "&" at byte offset {at} is not an entity')
            out.append(decoded)
            units += utf16(decoded)
            index = match.end() if match else index + 1
            continue
        if char == ">":
            raise HtmlError(f'character ">" at byte offset {_bytes(text, index)} is not in a tag')
        if char != "<":
            out.append(char)
            units += 2 if ord(char) > 0xFFFF else 1
            index += 1
            continue
        tag = TAG.match(text, index)
        if tag is None:
            raise HtmlError(f"unclosed start tag at byte offset {_bytes(text, index)}")
        closing, name, attributes, _ = tag.groups()
        name = name.lower()
        at = _bytes(text, index)
        if closing:
            if not stack:
                raise HtmlError(f"unexpected end tag at byte offset {at}")
            opened, kind, offset, url = stack.pop()
            if opened != name:
                raise HtmlError(
                    f'unmatched end tag at byte offset {at}, expected "</{opened}>", '
                    f'found "</{name}>"'
                )
            if units > offset:
                entities.append(Entity(kind, offset, units - offset, url))
        else:
            kind, url = _start(name, attributes, at)
            for _, outer, _, _ in stack:
                if not _may_contain(outer, kind):
                    raise HtmlError(f'tag "{name}" at byte offset {at} cannot be inside {outer}')
            stack.append((name, kind, units, url))
        index = tag.end()
    if stack:
        raise HtmlError(f'can\'t find end tag corresponding to start tag "{stack[-1][0]}"')
    entities.sort(key=lambda e: (e.offset, -e.length))
    return Parsed("".join(out), tuple(entities))


def _entity(match: re.Match[str]) -> str | None:
    decimal, hexadecimal, name = match.groups()
    if name is not None:
        return NAMED.get(name)
    code = int(decimal) if decimal is not None else int(hexadecimal, 16)
    return chr(code) if 0 < code <= 0x10FFFF and not 0xD800 <= code <= 0xDFFF else None


def _start(name: str, attributes: str, at: int) -> tuple[str, str]:
    """The entity a start tag opens and its link, once its attributes are checked."""
    kind = TAGS.get(name)
    if kind is None:
        raise HtmlError(f'unsupported start tag "{name}" at byte offset {at}')
    found: dict[str, str] = {}
    rest = attributes
    while rest.strip():
        match = ATTRIBUTE.match(rest)
        if match is None or not match.group(0):
            raise HtmlError(f'can\'t parse the attributes of tag "{name}" at byte offset {at}')
        key = match.group(1).lower()
        if key not in ATTRIBUTES.get(name, frozenset()):
            raise HtmlError(f'unsupported attribute "{key}" of tag "{name}" at byte offset {at}')
        found[key] = next((g for g in match.groups()[1:] if g is not None), "")
        rest = rest[match.end() :]
    required = REQUIRED.get(name)
    if required is not None and not found.get(required):
        raise HtmlError(f'tag "{name}" at byte offset {at} must have attribute "{required}"')
    if name == "span" and found["class"] != "tg-spoiler":
        raise HtmlError(f'tag "span" at byte offset {at} must have class "tg-spoiler"')
    if name == "a":
        href = html.unescape(found["href"])
        return ("text_mention" if href.startswith("tg://user?id=") else kind), href
    return kind, ""


def _may_contain(outer: str, inner: str) -> bool:
    """Whether an ``outer`` entity may contain an ``inner`` one (the Bot API's nesting
    rules; pre may hold the code that names its language)."""
    if outer == "pre" and inner == "code":
        return True
    if outer in ("pre", "code") or inner in ("pre", "code"):
        return False
    if outer in STYLES or inner in STYLES:
        return True
    return outer == "blockquote" and inner != "blockquote"


def _bytes(text: str, index: int) -> int:
    return len(text[:index].encode())
