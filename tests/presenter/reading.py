"""Reading what players are shown as they read it: the English words left in a chat of
another language, and the words that say why a Saboteur 2 round ended as it did."""

from __future__ import annotations

import re

from tgbot.presenter.i18n import messages
from tgbot.presenter.texts import Texts

WORD = re.compile(r"[A-Za-z][a-z]{3,}")


def vocabulary(lang: str) -> set[str]:
    """The words of four letters or more of a language's catalog, lower case."""
    return {
        word.lower()
        for message in messages(lang).messages.values()
        for form in message.forms
        for word in WORD.findall(re.sub(r"\{\w+\}|/\w+|<[^>]+>", " ", form))
    }


def untranslated(texts: list[str], lang: str, names: list[str]) -> set[str]:
    """The English words (those of the English catalog and not of ``lang``'s) in
    ``texts``, once names, commands and links are taken out."""
    english = vocabulary("en") - vocabulary(lang)
    found: set[str] = set()
    for text in texts:
        for name in names:
            text = text.replace(name, " ")
        text = re.sub(r"/\w+|<[^>]+>|https?://\S+|@\w+", " ", text)
        found |= {word for word in WORD.findall(text) if word.lower() in english}
    return found


def why_words(texts: Texts) -> list[str]:
    """A piece of every line that says which team won and why, or that none did."""
    keys = [
        "results.saboteurs_win",
        "results.saboteurs_trapped",
        "results.no_saboteur",
        *(
            f"results.{who}_{what}"
            for who in ("blue_digger", "green_digger")
            for what in ("blue_wins", "green_wins", "none_wins")
        ),
        *(f"results.other_{what}" for what in ("both_win", "blue_wins", "green_wins", "none_wins")),
    ]
    return [texts.t(k, name="").strip(" ,")[-20:] for k in keys if texts.has(k)]


def round_end_heads(texts: Texts) -> list[str]:
    """How a round's end message opens (after its 🏁), whichever round and ending."""
    return [
        texts.t(k, round=n, name="").split(":")[0]
        for n in (1, 2, 3)
        for k in ("move.round_ended_blocked", "move.round_ended_treasure")
    ]


def treasure_words(texts: Texts) -> str:
    """The start of the line that says where the treasure lay."""
    return texts.t("results.treasure_was", goal="").split("{")[0].strip(" .:")[:12]
