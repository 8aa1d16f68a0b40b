"""What the variants (docs/rules.md §8) make the bot say: the round's end under the selfish
and the greedy dwarf, the other saboteurs told in private, the variants named at the end."""

from __future__ import annotations

import pytest

from domain.commands import Envelope
from domain.decide import decide
from domain.events import Event, GameEnded, PathPlaced, RoundEnded, RoundStarted
from domain.evolve import evolve, fold
from domain.state import GameState
from domain.view import view_for
from tests.domain.given import T0, action_event, dealt, ids
from tgbot.presenter.i18n import LANGUAGES
from tgbot.presenter.narration import Scene, narrate
from tgbot.presenter.texts import Texts

CROSS = ids("base", "cross")
EW = ids("base", "straight_ew")


def _scene(state: GameState, viewer: int | None, lang: str = "en") -> Scene:
    return Scene(Texts(lang), viewer, state.edition, state.names, view_for(state, viewer))


def _told(
    setup: list[Event], new: list[Event], kind: type, viewer: int | None = None, lang: str = "en"
) -> str:
    """What the event of ``kind`` among ``new`` says to ``viewer``."""
    state = fold(setup)
    for event in new:
        state = evolve(state, event)
        if isinstance(event, kind):
            return "\n".join(line.html() for line in narrate(event, _scene(state, viewer, lang)))
    raise AssertionError(f"no {kind.__name__}")


def _reached(
    roles: dict[int, str], variants: tuple[str, ...], broken: tuple[int, ...] = ()
) -> tuple[list[Event], list[Event]]:
    """Player 3 lays the cross that reaches the treasure at (8, 0)."""
    from domain.commands import PlacePath

    path = [PathPlaced(1, c, (x, 0), False) for x, c in enumerate([*CROSS[:3], *EW], start=1)]
    pick = ids("base", "broken_pickaxe")
    harm = [
        action_event(2, pick[i], "broken_pickaxe", target_player=p) for i, p in enumerate(broken)
    ]
    setup = [
        *dealt(players=4, roles=roles, hands={3: (CROSS[4],)}, first=3, variants=variants),
        *harm,
        *path,
    ]
    return setup, decide(fold(setup), Envelope(PlacePath(3, CROSS[4], (7, 0), False), at=T0))


def test_the_round_end_says_the_selfish_dwarf_alone_keeps_the_best_two() -> None:
    roles = {1: "gold_digger", 2: "saboteur", 3: "selfish_dwarf", 4: "gold_digger"}
    text = _told(*_reached(roles, ("selfish_dwarf",)), RoundEnded)
    assert "P3, the selfish dwarf, reached it: he alone keeps the best two" in text
    assert "P3 (selfish dwarf)" in text
    assert "The gold-diggers win" not in text


def test_the_round_end_names_the_greedy_gold_diggers_left_out() -> None:
    roles = {1: "gold_digger", 2: "saboteur", 3: "gold_digger", 4: "gold_digger"}
    text = _told(*_reached(roles, ("greedy_dwarf",), broken=(4,)), RoundEnded)
    assert "Greedy dwarf: with a broken tool, no gold for P4." in text
    assert "Winners: P1, P3" in text


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_saboteur_who_knows_the_others_is_told_them_in_private(lang: str) -> None:
    roles = {1: "saboteur", 2: "gold_digger", 3: "saboteur", 4: "gold_digger", 5: "gold_digger"}
    events = dealt(players=5, roles=roles, variants=("saboteurs_know_each_other",), first=4)
    setup, started = events[:-2], events[-2:]
    texts = Texts(lang)
    to_one = _told(setup, started, RoundStarted, viewer=1, lang=lang)
    allies = texts.t("move.allies", names="X").split("X")[0]
    assert allies in to_one and "P3" in to_one
    to_digger = _told(setup, started, RoundStarted, viewer=2, lang=lang)
    assert allies not in to_digger and "P1" not in to_digger and "P3" not in to_digger
    to_group = _told(setup, started, RoundStarted, viewer=None, lang=lang)
    assert allies not in to_group
    plain = dealt(players=5, roles=roles)
    assert allies not in _told(plain[:-2], plain[-2:], RoundStarted, viewer=1, lang=lang)


def test_a_lone_saboteur_who_would_know_the_others_is_told_there_is_none() -> None:
    roles = {1: "saboteur", 2: "gold_digger", 3: "gold_digger"}
    events = dealt(players=3, roles=roles, variants=("saboteurs_know_each_other",))
    text = _told(events[:-2], events[-2:], RoundStarted, viewer=1)
    assert "No other saboteur was dealt this round." in text


@pytest.mark.parametrize(
    ("lang", "said"),
    [
        ("en", "🎲 Variants: maximum saboteurs (1 saboteur among 3 players), middle treasure"),
        ("es", "🎲 Variantes: máximo de saboteadores (1 saboteador entre 3 jugadores), tesoro"),
        ("pl", "🎲 Warianty: maksimum sabotażystów (1 sabotażysta na 3 graczy), środkowy skarb"),
        ("de", "🎲 Varianten: Höchstzahl an Saboteuren (1 Saboteur bei 3 Spielern), mittlerer"),
    ],
)
def test_the_game_over_message_names_the_variants_played(lang: str, said: str) -> None:
    events = dealt(players=3, variants=("maximum_saboteurs", "middle_treasure"))
    text = _told(events, [GameEnded(((1, 3), (2, 1), (3, 0)), (1,))], GameEnded, lang=lang)
    assert said in text
    plain = dealt(players=3)
    assert "🎲" not in _told(plain, [GameEnded(((1, 3), (2, 1), (3, 0)), (1,))], GameEnded)


def test_a_saboteurs_turn_prompt_names_the_saboteurs_it_knows() -> None:
    from tgbot.presenter.prompt import status_lines

    roles = {1: "saboteur", 2: "gold_digger", 3: "saboteur", 4: "gold_digger", 5: "gold_digger"}
    state = fold(dealt(players=5, roles=roles, variants=("saboteurs_know_each_other",)))
    said = status_lines(state, 1, Texts("en"), hand=False)
    assert "🎭 The other saboteurs: <tg-spoiler>P3</tg-spoiler>." in said
    assert not any(
        "other saboteurs" in line for line in status_lines(state, 2, Texts("en"), hand=False)
    )
    plain = fold(dealt(players=5, roles=roles))
    assert not any(
        "other saboteurs" in line for line in status_lines(plain, 1, Texts("en"), hand=False)
    )
