"""Whole games of both editions read in each language, as the presenter shows them: every
text, caption and button of every message and of a step inside each prompt. No English
left in a chat of another language; each round's end says where the treasure was, and in
Saboteur 2 which team won and why; a turn's cards come with the legend's "?"; a placement
is offered once per look of a cell.

(Over HTTP, tests/tgbot/test_transcripts.py plays one such game per language.)"""

from __future__ import annotations

import functools
import random
import re
from collections.abc import Iterator

import pytest

from domain.evolve import fold
from tests.presenter.games import TITLE, Batch, play, table
from tests.presenter.reading import round_end_heads, treasure_words, untranslated, why_words
from tgbot.presenter import keyboards as kb
from tgbot.presenter import prompt
from tgbot.presenter.announce import Told, announce
from tgbot.presenter.i18n import LANGUAGES
from tgbot.presenter.messages import Alert, Message, Prompt, PromptStep, Text
from tgbot.presenter.texts import Texts, esc

GAMES = {
    "base": [play(21, 4, "base"), play(23, 3, "base")],
    "saboteur2": [play(24, 5, "saboteur2"), play(26, 4, "saboteur2")],
}
STEPS = {kb.CARD, kb.PASS_MENU, kb.REMOVE_MENU, kb.LEGEND, kb.MENU}  # screens, not moves
PLACEMENT = re.compile(r"^([A-Z]{1,2}) ")


Shown = Message | PromptStep | Alert


@functools.cache
def read_game(edition: str, index: int, lang: str) -> tuple[Shown, ...]:
    """What the ``index``-th game of ``edition`` shows in ``lang`` (read once a run)."""
    return tuple(read(GAMES[edition][index], lang))


def read(batches: list[Batch], lang: str) -> Iterator[Shown]:
    """Every message a game's batches call for, each prompt followed by one step inside
    it (a button chosen at random, seeded, as a player would press it)."""
    rng = random.Random(lang)
    for batch in batches:
        after = fold(batch.events, batch.before)
        shown = table(after, lang)
        told = [Told(e, 10_000) for e in batch.events]
        messages, _ = announce(shown, batch.before, batch.version, told)
        for message in messages:
            yield message
            if not isinstance(message, Prompt):
                continue
            presses = [
                b.press
                for row in message.keyboard
                for b in row
                if b.press and b.press.action in STEPS
            ]
            if not presses:
                continue
            version = batch.version + len(batch.events)
            press = rng.choice(presses)
            yield prompt.step(after, version, message.player, press, shown, 1)


def words(message: Shown) -> list[str]:
    """The message's text or caption and its buttons' labels."""
    found = [str(getattr(message, name, "")) for name in ("text", "caption")]
    keyboard: kb.Keyboard = getattr(message, "keyboard", ())
    return [*found, *(b.label for row in keyboard for b in row)]


@pytest.mark.parametrize("edition", ["base", "saboteur2"])
@pytest.mark.parametrize("lang", [lang for lang in LANGUAGES if lang != "en"])
def test_a_whole_game_shows_no_english_in_another_language(edition: str, lang: str) -> None:
    for index in range(len(GAMES[edition])):
        read_ = [w for m in read_game(edition, index, lang) for w in words(m)]
        assert len(read_) > 300
        assert untranslated(read_, lang, [TITLE, esc(TITLE)]) == set()


@pytest.mark.parametrize("edition", ["base", "saboteur2"])
@pytest.mark.parametrize("lang", LANGUAGES)
def test_each_round_end_says_where_the_treasure_was_and_in_saboteur2_who_won_and_why(
    edition: str, lang: str
) -> None:
    texts = Texts(lang)
    heads = round_end_heads(texts)
    for index in range(len(GAMES[edition])):
        ends = [
            m.text
            for m in read_game(edition, index, lang)
            if isinstance(m, Text) and any(m.text.startswith(f"🏁 {h}") for h in heads)
        ]
        assert len(ends) == 3
        assert all(treasure_words(texts) in end for end in ends), ends
        if edition == "saboteur2":
            for end in ends:
                assert any(word in end for word in why_words(texts)), end


@pytest.mark.parametrize("edition", ["base", "saboteur2"])
def test_a_turns_cards_come_with_the_legend_and_a_placement_once_per_look_of_a_cell(
    edition: str,
) -> None:
    prompts = steps = 0
    for index in range(len(GAMES[edition])):
        for message in read_game(edition, index, "en"):
            if not isinstance(message, Prompt | PromptStep):
                continue
            actions = [b.press.action for row in message.keyboard for b in row if b.press]
            if kb.CARD in actions:
                assert kb.LEGEND in actions  # the "?" beside a turn's cards
                prompts += 1
            labels = [
                found.group(1)
                for row in message.keyboard
                for b in row
                if b.press and b.press.action == kb.PLACE and (found := PLACEMENT.match(b.label))
            ]
            shapes = {b.label for row in message.keyboard for b in row}
            for cell in set(labels):
                same = [s for s in shapes if s.startswith(f"{cell} ")]
                looks = {s.removesuffix(" ↻") for s in same}
                assert len(looks) == len(same), same  # one button per look of a cell
                steps += 1
    assert prompts > 20 and steps > 5
