"""The prompt's buttons and steps: one button per cell for a card that looks the same
turned, no needless choice, the whole hand (a card that cannot be played marked, and why),
screens that say what to do, and one set of icons in one legend."""

from __future__ import annotations

import pytest

from domain.board import Tile, with_tile
from domain.cards import PATHS, Edition, card
from domain.commands import DiscardToRemove, Pass, PlacePath, PlayAction
from domain.evolve import evolve
from domain.moves import legal_moves
from domain.state import GameState
from tests.domain.given import action_event, dealt, given, ids
from tests.presenter.games import table
from tgbot.presenter import keyboards as kb
from tgbot.presenter import prompt
from tgbot.presenter.i18n import LANGUAGES, messages
from tgbot.presenter.icons import FRONT, LEGEND, Icon, legend
from tgbot.presenter.messages import Alert, PromptStep
from tgbot.presenter.telegram_html import CAPTION_LIMIT, TEXT_LIMIT, length
from tgbot.presenter.texts import Texts, card_shape, is_symmetric

EN = Texts("en")


def on_turn(edition: Edition) -> GameState:
    """A dealt game, player 1 on turn."""
    return given(dealt(edition))


def with_hand(state: GameState, player: int, cards: list[int]) -> GameState:
    return state.update(hands={**state.hands, player: tuple(cards)})


def labels(rows: list[kb.Row]) -> list[str]:
    return [b.label for row in rows for b in row]


@pytest.mark.parametrize("kind", ["cross", "straight_ew", "bridge", "double_curve_b"])
def test_a_card_that_looks_the_same_turned_gets_one_button_per_cell(kind: str) -> None:
    state = on_turn("saboteur2")
    player = state.pending.player  # type: ignore[union-attr]
    card_id = ids("saboteur2", kind)[0]
    state = with_hand(state, player, [card_id])
    moves = legal_moves(state, player)
    cells = {m.cell for m in moves if isinstance(m, PlacePath)}
    both = [m for m in moves if isinstance(m, PlacePath)]
    assert len(both) == 2 * len(cells)  # the rules list each cell both ways

    rows, marks = kb.card_rows(state, moves, card_id, EN, player)

    places = [b for row in rows for b in row if b.press and b.press.action == kb.PLACE]
    assert len(places) == len(cells) == len(marks)
    assert all(not b.label.endswith("↻") for b in places)
    shape = card_shape(kind)
    assert all(b.label.endswith(shape) for b in places)


def test_a_bridge_and_the_double_curves_are_drawn_as_they_lie_not_as_a_cross() -> None:
    assert card_shape("bridge") == "╬"
    assert card_shape("double_curve_a") == "┘┌" and card_shape("double_curve_b") == "└┐"
    assert {card_shape(k) for k in ("bridge", "double_curve_a", "double_curve_b")}.isdisjoint(
        {card_shape("cross")}
    )
    symmetric = {k for k in PATHS if not k.startswith(("goal", "start")) and is_symmetric(k)}
    assert {"cross", "straight_ns", "bridge", "double_curve_a", "dead_cross"} <= symmetric
    assert not {"t_nse", "curve_se", "ladder_stub_n", "green_door_ns_w"} & symmetric
    for kind in PATHS:  # a turned card that looks different is named differently
        if not kind.startswith(("goal", "start")) and not is_symmetric(kind):
            assert card_shape(kind) != card_shape(kind, rotated=True), kind


def test_a_theft_with_one_possible_target_is_played_by_its_own_button() -> None:
    state = on_turn("saboteur2")
    player = state.pending.player  # type: ignore[union-attr]
    theft = ids("saboteur2", "theft")[0]
    state = with_hand(state, player, [theft])
    rows = kb.root_rows(state, player, legal_moves(state, player), EN)
    button = next(b for row in rows for b in row if b.press and b.press.card == theft)
    assert button.press is not None and button.press.action == kb.ACT  # no second tap
    command = kb.command_for(state, player, button.press)
    assert command in [PlayAction(player, theft, target_player=player)]
    assert button.label == "theft → you"


def test_discarding_two_with_one_card_in_front_goes_straight_to_the_cards() -> None:
    state = on_turn("saboteur2")
    player = state.pending.player  # type: ignore[union-attr]
    other = next(p for p in state.seating if p != player)
    breaker = ids("saboteur2", "broken_cart")[0]
    state = evolve(state, action_event(other, breaker, "broken_cart", target_player=player))
    state = state.update(pending=state.pending)
    moves = legal_moves(state, player)
    assert any(isinstance(m, DiscardToRemove) for m in moves)
    rows = kb.root_rows(state, player, moves, EN)
    button = next(b for row in rows for b in row if b.press and b.press.action == kb.REMOVE_MENU)
    assert button.press is not None and button.press.page == 1  # the one card: chosen already
    step = prompt.step(state, 9, player, button.press, table(state), 1)
    assert isinstance(step, PromptStep)
    assert "To remove broken cart: tick the 2 cards to discard" in step.caption
    assert any(b.label == "✅ Confirm" or b.press for row in step.keyboard for b in row)


def test_a_third_card_ticked_to_remove_a_front_card_is_refused_with_why() -> None:
    # In discard-2, a third card could be ticked, and ✅ Confirm silently disappeared.
    state = on_turn("saboteur2")
    player = state.pending.player  # type: ignore[union-attr]
    other = next(p for p in state.seating if p != player)
    breaker = ids("saboteur2", "broken_cart")[0]
    state = evolve(state, action_event(other, breaker, "broken_cart", target_player=player))
    state = state.update(pending=state.pending)
    two = prompt.step(
        state, 9, player, kb.Press(kb.REMOVE_MENU, page=1, value=0b11), table(state), 1
    )
    assert isinstance(two, PromptStep) and "✅ Confirm" in labels(list(map(list, two.keyboard)))
    third = kb.Press(kb.REMOVE_MENU, page=1, value=0b111)
    refused = prompt.step(state, 9, player, third, table(state), 1)
    assert refused == Alert("Two cards, no more: untick one first.")


def test_a_fourth_card_ticked_to_pass_is_refused_with_why() -> None:
    state = on_turn("saboteur2")
    player = state.pending.player  # type: ignore[union-attr]
    three = prompt.step(state, 9, player, kb.Press(kb.PASS_MENU, value=0b111), table(state), 1)
    assert isinstance(three, PromptStep) and "✅ Confirm" in labels(list(map(list, three.keyboard)))
    fourth = prompt.step(state, 9, player, kb.Press(kb.PASS_MENU, value=0b1111), table(state), 1)
    assert fourth == Alert("Three cards at most: untick one first.")


@pytest.mark.parametrize(
    ("edition", "said"),
    [
        ("base", "Pass: press the card to discard face down."),
        ("saboteur2", "Pass: tick 1 to 3 cards to discard face down, then Confirm."),
    ],
)
def test_the_pass_screen_says_what_to_do(edition: str, said: str) -> None:
    state = on_turn(edition)  # type: ignore[arg-type]
    player = state.pending.player  # type: ignore[union-attr]
    step = prompt.step(state, 9, player, kb.Press(kb.PASS_MENU, value=0), table(state), 1)
    assert isinstance(step, PromptStep) and said in step.caption
    assert any(isinstance(m, Pass) for m in legal_moves(state, player))


def test_the_gold_pick_offers_the_largest_nugget_first() -> None:
    state = on_turn("base")
    player = state.pending.player  # type: ignore[union-attr]
    from domain.commands import PickGold

    rows = kb.root_rows(state, player, [PickGold(player, 1), PickGold(player, 3)], EN)
    assert labels(rows) == ["Take 3 gold", "Take 1 gold"]


def test_the_whole_hand_is_offered_and_a_card_that_cannot_be_played_says_why() -> None:
    state = on_turn("base")
    player = state.pending.player  # type: ignore[union-attr]
    other = next(p for p in state.seating if p != player)
    broken = ids("base", "broken_pickaxe")[0]
    path = ids("base", "cross")[0]
    rockfall = ids("base", "rockfall")[0]
    state = evolve(state, action_event(other, broken, "broken_pickaxe", target_player=player))
    state = with_hand(state, player, [path, rockfall])
    moves = legal_moves(state, player)
    rows = kb.root_rows(state, player, moves, EN)
    cards = [b for row in rows for b in row if b.press and b.press.action == kb.CARD]
    assert {b.press.card for b in cards if b.press} == {path, rockfall}
    marked = {b.press.card: b.label for b in cards if b.press and b.label.startswith("🚫")}
    assert set(marked) == {path, rockfall}  # broken pickaxe; nothing to destroy yet
    for card_id, why in ((path, "broken tool"), (rockfall, "no path card to destroy")):
        answer = prompt.step(state, 9, player, kb.Press(kb.CARD, card=card_id), table(state), 1)
        assert isinstance(answer, Alert) and why in answer.text.lower(), answer


def test_every_icon_has_one_meaning_and_one_legend_line_in_every_language() -> None:
    emojis = [icon.emoji for icon in Icon]
    assert len(emojis) == len(set(emojis))  # one icon, one meaning
    assert FRONT["theft"] == Icon.THEFT.emoji != Icon.GOLD.emoji
    assert FRONT["trapped"] == Icon.TRAPPED.emoji
    for lang in LANGUAGES:
        text = legend(Texts(lang))
        for entry in LEGEND:
            if isinstance(entry, Icon):
                assert text.count(f"\n{entry.emoji} ") == 1, (lang, entry)
        # /help sends it whole; a prompt's caption pages it (counted in UTF-16, Saboteur 2's
        # is over 1,024), see the legend's pages below.
        assert length(f"{Texts(lang).t('help.text')}\n\n{text}") <= TEXT_LIMIT


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_legend_button_wears_no_icon_the_legend_explains(lang: str) -> None:
    texts = Texts(lang)
    (button,) = kb.legend_row(texts)
    mark = button.label.split(" ")[0]
    shown = legend(texts).split("\n")[1:]
    assert mark and all(not line.startswith(mark) for line in shown), mark
    assert all(mark.rstrip("\ufe0f") not in icon.emoji for icon in Icon), mark


def test_no_message_of_the_catalogs_spells_an_icon_of_its_own() -> None:
    # Icons come from the one legend: the catalogs' sentences carry none (a button may).
    icons = {icon.emoji for icon in Icon} | {"🕸", "⌛"}
    for lang in LANGUAGES:
        for key, message in messages(lang).messages.items():
            if "button" in key or key.startswith(
                ("language.", "bot.timer", "rules.", "help.", "miniapp.")
            ):
                continue
            assert not any(icon in text for text in message.forms for icon in icons), key


def test_a_placed_card_is_named_as_it_lies_in_buttons_and_lines_alike() -> None:
    board = with_tile(on_turn("base").board, (1, 0), Tile("t_nse", card=1, rotated=True))
    assert board[(1, 0)].rotated
    assert EN.kind_name("t_nse", rotated=True) == "T ┤"
    assert kb.placement_label("A", "t_nse", True) == "A ┤ ↻"
    assert card("base", ids("base", "t_nse")[0]).kind == "t_nse"


@pytest.mark.parametrize(
    ("lang", "said"),
    [
        ("en", "rockfall → cross ┼ at 1,0"),
        ("es", "→ cruce ┼ en 1,0"),
        ("pl", "zawał → skrzyżowanie ┼ na polu 1,0"),
    ],
)
def test_a_rockfall_with_one_card_to_destroy_names_that_card_and_its_cell(
    lang: str, said: str
) -> None:
    state = on_turn("base")
    player = state.pending.player  # type: ignore[union-attr]
    cross, rockfall = ids("base", "cross")[0], ids("base", "rockfall")[0]
    state = state.update(board=with_tile(state.board, (1, 0), Tile("cross", card=cross)))
    state = with_hand(state, player, [rockfall])
    rows = kb.root_rows(state, player, legal_moves(state, player), Texts(lang))
    button = next(b for row in rows for b in row if b.press and b.press.card == rockfall)
    assert button.press is not None and button.press.action == kb.ACT
    assert said in button.label and "goal" not in button.label, button.label


@pytest.mark.parametrize("lang", LANGUAGES)
def test_what_a_map_showed_opens_its_line_with_a_capital_in_the_prompt(lang: str) -> None:
    state = on_turn("base")
    player = state.pending.player  # type: ignore[union-attr]
    state = state.update(known_goals={**state.known_goals, player: {(8, 0): "goal_stone_a"}})
    lines = prompt.status_lines(state, player, Texts(lang), hand=False)
    (shown,) = [line for line in lines if line.startswith(Icon.MAP.emoji)]
    said = shown.removeprefix(f"{Icon.MAP.emoji} ")
    assert said[:1].isupper(), shown


def test_polish_asks_where_or_on_whom_to_play_a_card_whatever_its_gender() -> None:
    # "Na kogo zagrać zepsuta lampa?" is wrong Polish (the accusative: "zepsutą lampę");
    # "kartę „zepsuta lampa”" holds for every card's name.
    state = on_turn("base")
    player = state.pending.player  # type: ignore[union-attr]
    lamp = ids("base", "broken_lantern")[0]
    state = with_hand(state, player, [lamp, *ids("base", "cross")[:1]])
    step = prompt.step(state, 9, player, kb.Press(kb.CARD, card=lamp), table(state, "pl"), 1)
    assert isinstance(step, PromptStep)
    assert "Na kogo zagrać kartę „zepsuta lampa”?" in step.caption, step.caption


def test_a_card_that_mends_one_tool_does_not_name_the_tool_again_on_its_button() -> None:
    state = on_turn("base")
    player = state.pending.player  # type: ignore[union-attr]
    other = next(p for p in state.seating if p != player)
    breaker = ids("base", "broken_lantern")[0]
    state = evolve(state, action_event(other, breaker, "broken_lantern", target_player=player))
    repair, either = ids("base", "repair_lantern")[0], ids("base", "repair_pickaxe_lantern")[0]
    for card_id, label in ((repair, "repair lantern → you"), (either, "you: lantern")):
        holding = with_hand(state, player, [card_id])
        rows = kb.root_rows(holding, player, legal_moves(holding, player), EN)
        (button,) = [b for row in rows for b in row if b.press and b.press.card == card_id]
        assert button.label.endswith(label), button.label


def legend_captions(state: GameState, lang: str = "en") -> list[str]:
    """The captions of the legend behind the prompt's button, page after page (each
    page's "next" button pressed), checking every page leads back to the prompt."""
    player = state.pending.player  # type: ignore[union-attr]
    captions: list[str] = []
    press: kb.Press | None = kb.Press(kb.LEGEND)
    while press is not None:
        assert len(captions) < 5, "the legend's pages never end"
        step = prompt.step(state, 9, player, press, table(state, lang), 1)
        assert isinstance(step, PromptStep)
        captions.append(step.caption)
        presses = [b.press for row in step.keyboard for b in row if b.press is not None]
        assert presses[0] == kb.Press(kb.MENU)  # back to the prompt, on every page
        here = press.page or 0
        press = next((p for p in presses if p.action == kb.LEGEND and (p.page or 0) > here), None)
    return captions


def test_a_base_games_legend_behind_the_prompts_button_explains_no_saboteur2_icon() -> None:
    from tgbot.presenter.icons import SABOTEUR2_ONLY

    for edition in ("base", "saboteur2"):
        shown_text = "\n".join(legend_captions(on_turn(edition)))  # type: ignore[arg-type]
        shown = {icon for icon in SABOTEUR2_ONLY if f"\n{icon.emoji} " in shown_text}
        assert shown == (set() if edition == "base" else set(SABOTEUR2_ONLY)), edition


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("edition", ["base", "saboteur2"])
def test_the_legend_behind_the_prompts_button_shows_every_line_whole_within_a_caption(
    lang: str, edition: Edition
) -> None:
    # Saboteur 2's legend is longer than a photo's caption may be: it comes in pages, each
    # with a button to the next, rather than cut short.
    captions = legend_captions(on_turn(edition), lang)
    for caption in captions:
        assert length(caption) <= CAPTION_LIMIT and not caption.endswith("…"), caption
    seen = {line for caption in captions for line in caption.split("\n")}
    missing = [line for line in legend(Texts(lang), edition).split("\n") if line not in seen]
    assert not missing
    assert len(captions) == (1 if edition == "base" else 2)


def test_the_chosen_settings_are_ticked_not_only_dotted() -> None:
    state = given(dealt("base")).update(phase="lobby")
    marked = [label for label in labels(kb.settings_rows(state, "en", EN)) if "✅" in label]
    assert marked and all(label.startswith("✅ ") for label in marked)
    assert not any(label.startswith("•") for label in labels(kb.settings_rows(state, "en", EN)))
