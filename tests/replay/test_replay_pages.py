"""Long steps keep every word: a 12-player Saboteur 2 game's captions are cut into pages
(Telegram allows 1,024 characters per photo caption), and the GIF's caption area grows."""

from __future__ import annotations

import pytest

from domain import events as ev
from domain.state import GameState
from tests.replay.games import play
from tests.replay.test_replay_gif import small_board
from tgbot.presenter.caption import CAPTION_LIMIT
from tgbot.presenter.icons import Icon
from tgbot.presenter.telegram_html import length
from tgbot.presenter.texts import name_html
from tgbot.replay.gif import (
    INDENT,
    LINE_HEIGHT,
    MARGIN,
    _font,
    caption_lines,
    frames,
    plain,
    shots,
)
from tgbot.replay.steps import MOVE, ROUND_START, Replay, Step, caption, card_name, text
from tgbot.telegram.handlers.replays import caption_pages, replay_view

# Telegram names run to 64 characters: long ones make the longest captions.
LONG_NAME = "Bartholomew Ignatius Featherstonehaugh-"


@pytest.fixture(scope="module")
def crowded() -> Replay:
    game = play(41, players=12, edition="saboteur2", name_prefix=LONG_NAME)
    return Replay("crowded", game.events)


def normal(words: str) -> str:
    return " ".join(words.split())


def told(replay: Replay, step: Step, lang: str) -> str:
    """What the step's caption pages say, titles left out, spaces normalised."""
    pages = caption_pages(replay, step, lang)
    assert all(length(page) <= CAPTION_LIMIT for page in pages)
    return normal(" ".join(" ".join(page.split("\n")[1:]) for page in pages))


def hand_line(lang: str, state: GameState, player: int, cards: tuple[int, ...]) -> str:
    names = ", ".join(card_name(lang, state.edition, card) for card in sorted(cards))
    return normal(text(lang, "story.hand_of", name=name_html(state.names[player]), cards=names))


@pytest.mark.parametrize("lang", ["en", "pl"])
def test_every_hand_card_and_role_of_a_12_player_game_appears_in_the_captions(
    crowded: Replay, lang: str
) -> None:
    paged = 0
    for step in crowded:
        body = told(crowded, step, lang)
        assert body == normal(caption(step, lang))
        paged += len(caption_pages(crowded, step, lang)) > 1
        state = step.state
        if step.kind == ROUND_START:
            start = step.event
            assert isinstance(start, ev.RoundStarted)
            for player, cards in start.hands:
                assert hand_line(lang, state, player, cards) in body
            for player, role in start.roles:
                name, role_name = name_html(state.names[player]), text(lang, f"role.{role}")
                assert normal(text(lang, "story.role_of", name=name, role=role_name)) in body
        elif step.kind == MOVE:
            player = getattr(step.event, "player", None)
            for card in step.before.hands.get(player, ()):
                assert normal(card_name(lang, state.edition, card)) in body
    assert paged >= 3  # at least each round's start needs more than one caption


def test_the_arrows_turn_the_pages_of_a_long_step_before_moving_on(crowded: Replay) -> None:
    index = crowded.round_starts[1]
    pages = len(caption_pages(crowded, crowded.step(index), "en"))
    assert pages > 1

    def arrows(page: int) -> dict[str, tuple[int | None, int | None]]:
        view = replay_view(crowded, index, "en", page=page)
        assert view.caption == caption_pages(crowded, crowded.step(index), "en")[page]
        found = {}
        for button in view.keyboard[0]:
            assert button.press is not None
            found[button.label.strip("·")] = (button.press.value, button.press.page)
        return found

    first, last = arrows(0), arrows(pages - 1)
    assert first["▶"] == (index, 1) and first["◀"] == (index - 1, None)
    assert last["▶"] == (index + 1, None) and last["◀"] == (index, pages - 2 or None)
    assert f"page 1/{pages}" in replay_view(crowded, index, "en").caption


def test_the_gif_caption_area_grows_to_show_every_line(crowded: Replay) -> None:
    # A round's start in the GIF: the round and every dwarf of 12 long-named players (the
    # hands are in the replay's pages), every line drawn whole.
    start = crowded.step(crowded.round_starts[0])
    width = 480
    (shot,) = shots([start], "pl")
    text_lines = "\n".join(plain(line) for line in shot.told)
    assert [line.icon for line in shot.told] == [Icon.ROUND, Icon.DWARF]
    lines = caption_lines(text_lines, width - 2 * MARGIN - INDENT)
    assert normal(" ".join(lines)) == normal(text_lines)
    assert all(_font().getlength(line) <= width - 2 * MARGIN - INDENT for line in lines)
    assert len(lines) > 8
    (frame,) = frames([start], lang="pl", renderer=small_board, min_width=width)
    assert frame.width == width
    assert frame.height >= small_board(start).height + LINE_HEIGHT * len(lines)
