"""Captions that fit Telegram's limit, and deadlines as people read them."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Final

from tgbot.presenter.audience import Audience
from tgbot.presenter.icons import Icon

CAPTION_LIMIT: Final = 1024  # Telegram's limit for a photo's caption
TAG: Final = re.compile(r"<[^>]*>")
ENTITY_TAIL: Final = re.compile(r"&[#\w]*$")  # an HTML entity cut short at the end


def fit_caption(lines: Sequence[str], drop: Sequence[int], limit: int = CAPTION_LIMIT) -> str:
    """``lines`` joined, at most ``limit`` characters: while too long, whole lines are left
    out in the order of their indexes in ``drop`` (never a tag or an entity cut in two).
    Only if that is not enough is the text cut — as plain text, safely."""
    left_out: set[int] = set()
    text = "\n".join(lines)
    for index in drop:
        if len(text) <= limit:
            break
        left_out.add(index)
        text = "\n".join(line for i, line in enumerate(lines) if i not in left_out)
    if len(text) <= limit:
        return text
    plain = TAG.sub("", text)  # links become their text; entities stay escaped
    cut = ENTITY_TAIL.sub("", plain[: limit - 1])
    return cut + "…"


def runs(
    pieces: Iterable[str], limit: int, sep: str = "\n", head: Sequence[str] = ()
) -> list[list[str]]:
    """``pieces`` in order, grouped into as few runs as fit ``limit`` each once joined by
    ``sep`` after ``head`` (a piece too long alone is a run of its own).

    >>> runs(["a" * 3, "b" * 3, "c" * 3], limit=8, sep="  ")
    [['aaa', 'bbb'], ['ccc']]
    """
    grouped: list[list[str]] = []
    for piece in pieces:
        if grouped and len(sep.join([*head, *grouped[-1], piece])) <= limit:
            grouped[-1].append(piece)
        else:
            grouped.append([piece])
    return grouped


def caption_pages(
    head: Sequence[str], lines: Sequence[str], limit: int = CAPTION_LIMIT
) -> list[str]:
    r"""``lines`` in as few captions as hold them whole, each led by ``head``: a text too
    long for one caption is paged rather than cut (a line longer than a page is cut).

    >>> caption_pages(["Title"], ["a" * 6, "b" * 6, "c"], limit=16)
    ['Title\naaaaaa', 'Title\nbbbbbb\nc']
    """
    pages = runs(lines, limit, "\n", head) or [[]]
    return [fit_caption([*head, *page], [], limit) for page in pages]


def deadline_line(audience: Audience, deadline_ms: int, now_ms: int) -> str:
    """The time left from ``now_ms`` (the game clock's now), and the moment as a clock time
    in the audience's time zone: ``⏳ 3 min left (until 14:05 UTC)``. Drawn anew each time
    a message is (re)drawn."""
    texts = audience.texts
    moment = audience.clock(deadline_ms)
    left = (deadline_ms - now_ms) / 1000
    if left <= 0:
        return f"{Icon.DEADLINE.emoji} {texts.t('bot.deadline_due', time=moment)}"
    return (
        f"{Icon.DEADLINE.emoji} {texts.t('bot.deadline', left=texts.remaining(left), time=moment)}"
    )
