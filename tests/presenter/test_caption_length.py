"""Captions and texts fit Telegram's limits as Telegram counts them: the HTML parsed (tags
gone, ``&amp;`` one character), in UTF-16 code units, so an emoji beyond the basic plane
counts 2. A caption that does not fit loses its least important lines or goes on a next
page; a text too long for one message goes on the next. Each is measured here on its own
terms, not with the bot's length function."""

from __future__ import annotations

import html
import re

from tgbot.presenter.caption import caption_pages, fit_caption
from tgbot.presenter.rules import pack

TAG = re.compile(r"<[^>]*>")


def telegram_length(text: str) -> int:
    """As Telegram counts: tags gone, entities one character, UTF-16 code units."""
    return len(html.unescape(TAG.sub("", text)).encode("utf-16-le")) // 2


def test_a_caption_of_emoji_lines_that_fits_by_characters_but_not_by_utf16_loses_a_line() -> None:
    lines = ["👉 Your turn in “Demo mine”!"] + [f"🪨 {n:02} " + "x" * 93 for n in range(10)]
    assert len("\n".join(lines)) <= 1024 < telegram_length("\n".join(lines))
    caption = fit_caption(lines, drop=list(range(len(lines) - 1, 0, -1)))
    assert telegram_length(caption) <= 1024
    assert caption.split("\n") == lines[:-1]  # the last line, the least important, went


def test_tags_and_entities_do_not_count_against_a_caption() -> None:
    mention = '<a href="tg://user?id=123456789">Ann &amp; Bo</a>'
    lines = [mention + " " + "a" * 500, "b" * 500]
    assert len("\n".join(lines)) > 1024 >= telegram_length("\n".join(lines))
    assert fit_caption(lines, drop=[1]) == "\n".join(lines)


def test_a_caption_cut_as_plain_text_is_cut_within_the_limit_and_never_inside_an_emoji() -> None:
    caption = fit_caption(["🪨" * 600], drop=[])
    assert telegram_length(caption) <= 1024 and caption.endswith("…")
    assert "\ud83e" not in caption  # no half of a surrogate pair
    caption.encode()  # a whole string of characters


def test_caption_pages_hold_as_many_emoji_lines_as_fit_in_utf16() -> None:
    lines = [f"{n:02}" + "🪨" * 20 + "y" * 28 for n in range(40)]  # 50 characters, 70 units
    pages = caption_pages(["Legend"], lines)
    assert all(telegram_length(page) <= 1024 for page in pages)
    assert [line for page in pages for line in page.split("\n")[1:]] == lines
    assert len(pages) == 3  # 14 lines a page, not the 20 that fit by characters


def test_a_text_of_many_sections_is_packed_into_messages_of_4096_utf16_units() -> None:
    sections = ["👉" * 1000 + "&amp;" * 10 for _ in range(5)]  # 2,010 units each
    messages = pack(sections)
    assert all(telegram_length(m) <= 4096 for m in messages)
    assert "\n\n".join(messages) == "\n\n".join(sections)  # nothing cut
    assert len(messages) == 3
