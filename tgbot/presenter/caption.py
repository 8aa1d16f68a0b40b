"""Captions that fit Telegram's limit, and deadlines as people read them.

Every length is Telegram's (:func:`tgbot.presenter.telegram_html.length`): the HTML parsed, in
UTF-16 code units."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from tgbot.presenter.audience import Audience
from tgbot.presenter.icons import Icon
from tgbot.presenter.telegram_html import CAPTION_LIMIT, fit, length

__all__ = ["CAPTION_LIMIT", "caption_pages", "deadline_line", "fit_caption", "runs"]


def fit_caption(lines: Sequence[str], drop: Sequence[int], limit: int = CAPTION_LIMIT) -> str:
    r"""``lines`` joined, at most ``limit`` long as Telegram counts: while too long, whole
    lines are left out in the order of their indexes in ``drop`` (never a tag or an
    entity cut in two). Only if that is not enough is the text cut — as plain text, safely.

    >>> fit_caption(["👉 <b>Turn</b>", "🪨" * 3, "end"], drop=[1], limit=12)
    '👉 <b>Turn</b>\nend'
    """
    left_out: set[int] = set()
    text = "\n".join(lines)
    for index in drop:
        if length(text) <= limit:
            break
        left_out.add(index)
        text = "\n".join(line for i, line in enumerate(lines) if i not in left_out)
    return fit(text, limit)


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
        if grouped and length(sep.join([*head, *grouped[-1], piece])) <= limit:
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
