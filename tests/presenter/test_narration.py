"""One narration per event type: every type told in each language, to the group, to a
player and in a replay; self-targeted moves read naturally; a Saboteur 2 round's end
explains itself; secrets stay with their owner."""

from __future__ import annotations

import re
from typing import get_args

import pytest

from domain import board as geo
from domain import events as ev
from domain.cards import Role
from domain.decider import evolve
from domain.events import Event
from domain.state import GameState
from domain.view import view_for
from tests.presenter.games import Batch, play
from tgbot.i18n import LANGUAGES
from tgbot.presenter import results
from tgbot.presenter.icons import Icon
from tgbot.presenter.narration import Scene, narrate
from tgbot.texts import Texts

KEY_LIKE = re.compile(r"^[a-z_]+\.[a-z_.]+$")
ROLE_NAMES = {Texts(lang).role_name(r.value) for r in Role for lang in LANGUAGES}


@pytest.fixture(scope="module")
def games() -> dict[str, list[Batch]]:
    return {
        "base": play(1, players=4, edition="base") + play(5, players=3, edition="base"),
        "saboteur2": play(2, players=5, edition="saboteur2") + play(3, 2, "saboteur2"),
    }


def told(batches: list[Batch]) -> list[tuple[GameState, Event, GameState]]:
    """(state before, event, state after) for every event of ``batches``."""
    found = []
    for batch in batches:
        state = batch.before
        for event in batch.events:
            after = evolve(state, event)
            found.append((state, event, after))
            state = after
    return found


def scene(
    before: GameState, after: GameState, viewer: int | None, lang: str, full: bool = False
) -> Scene:
    roles = {p: r.value for p, r in before.roles.items()} if full else {}
    return Scene(
        Texts(lang), viewer, after.edition, after.names, view_for(after, viewer), full, roles
    )


# Events no random game of the fixture reaches (a cancel, a settings change …).
EXTRA: list[Event] = [
    ev.PlayerLeft(12),
    ev.ComputerPlayerAdded(-1, "🤖 Greta"),
    ev.ComputerPlayerRemoved(-1),
    ev.SeatHandedOver(12, "left"),
    ev.SeatHandedOver(12, "kicked", by=11),
    ev.SeatHandedOver(12, "away"),
    ev.SettingsChanged("saboteur2", 60),
    ev.GameCancelled(11),
    ev.PlayerWentAway(12),
    ev.PlayerCameBack(12),
    ev.PlayerReminded(3, 12, "half"),
    ev.GoalRevealed((8, 2), "goal_stone_a", False),
    ev.GoalRevealed((8, 0), "goal_treasure", False),
    ev.FrontCardRemoved(11, (1, 2), "broken_cart"),
    ev.GoldPickStarted((3, 2, 1), (11, 12, 11)),
    ev.GoldPicked(11, 3),
    ev.TheftsStarted((12, 11)),
    ev.TheftResolved(12, 11),
    ev.TheftResolved(11, None),
]


@pytest.mark.parametrize("edition", ["base", "saboteur2"])
@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_event_type_is_told_in_each_language_to_the_group_a_player_and_the_replay(
    games: dict[str, list[Batch]], edition: str, lang: str
) -> None:
    steps = told(games[edition])
    last = steps[-1][2]
    steps += [(last, event, last) for event in EXTRA]
    kinds = {type(event) for _, event, _ in steps}
    expected = set(get_args(Event))
    assert expected <= kinds
    said: dict[type, int] = {}
    for before, event, after in steps:
        for viewer in (None, *after.seating):
            for full in (False, True) if viewer is None else (False,):
                for line in narrate(event, scene(before, after, viewer, lang, full)):
                    assert line.text and "{" not in line.text, (event, line)
                    assert not KEY_LIKE.match(line.text), (event, line)
                    said[type(event)] = said.get(type(event), 0) + 1
    silent = {ev.DecisionOpened, ev.PlayerReminded}  # the board's status, the prompt again
    assert expected - silent <= set(said), sorted(k.__name__ for k in expected - set(said))


@pytest.mark.parametrize("edition", ["base", "saboteur2"])
def test_the_group_is_told_no_secret_before_the_round_ends(
    games: dict[str, list[Batch]], edition: str
) -> None:
    for before, event, after in told(games[edition]):
        for lang in LANGUAGES:
            lines = narrate(event, scene(before, after, None, lang))
            assert not any(line.own for line in lines), (event, lines)
            if isinstance(event, ev.RoundEnded | ev.GameEnded):
                continue  # every dwarf card is turned up then
            for line in lines:
                assert not any(role in line.text for role in ROLE_NAMES), (event, line)


@pytest.mark.parametrize(
    ("lang", "action", "expected"),
    [
        ("en", "repair_pickaxe", "P11 repaired their own pickaxe."),
        ("en", "broken_cart", "P11 broke their own cart."),
        ("en", "free_at_last", "Free at last! P11 set themselves free."),
        ("es", "repair_pickaxe", "P11 ha reparado su propio pico."),
        ("es", "broken_cart", "P11 ha roto su propio carrito."),
        ("pl", "repair_pickaxe", "P11 naprawia własne narzędzie (kilof)."),
        ("pl", "broken_cart", "P11 psuje własny wózek."),
    ],
)
def test_a_move_on_oneself_reads_naturally(lang: str, action: str, expected: str) -> None:
    batches = play(1, players=3)
    state = batches[-1].before
    tool = "pickaxe" if action.startswith("repair") else None
    event = ev.ActionPlayed(11, 0, action, target_player=11, tool=tool)
    (line,) = narrate(event, scene(state, state, None, lang))
    assert line.text == expected
    other = ev.ActionPlayed(11, 0, action, target_player=12, tool=tool)
    (told_to_target,) = narrate(other, scene(state, state, 12, lang))
    assert "P12" not in told_to_target.text  # "…your cart", said to its owner


WHY = [
    (Role.BLUE_DIGGER.value, True, True, "results.blue_digger_blue_wins"),
    (Role.BLUE_DIGGER.value, False, True, "results.blue_digger_green_wins"),
    (Role.BLUE_DIGGER.value, False, False, "results.blue_digger_none_wins"),
    (Role.GREEN_DIGGER.value, True, True, "results.green_digger_green_wins"),
    (Role.GREEN_DIGGER.value, True, False, "results.green_digger_blue_wins"),
    (Role.GREEN_DIGGER.value, False, False, "results.green_digger_none_wins"),
    (Role.BOSS.value, True, True, "results.other_both_win"),
    (Role.SABOTEUR.value, True, False, "results.other_blue_wins"),
    (Role.PROFITEER.value, False, True, "results.other_green_wins"),
    (Role.GEOLOGIST.value, False, False, "results.other_none_wins"),
]


@pytest.mark.parametrize(("by", "blue", "green", "key"), WHY)
def test_a_saboteur2_round_end_says_which_team_won_and_why(
    by: str, blue: bool, green: bool, key: str
) -> None:
    assert results._why(by, blue, green) == key
    for lang in LANGUAGES:
        assert Texts(lang).has(key) and "{name}" in Texts(lang).t(key, name="{name}")


def test_a_saboteur2_round_end_explains_the_doors_the_teams_and_every_share(
    games: dict[str, list[Batch]],
) -> None:
    ends = [(b, e, a) for b, e, a in told(games["saboteur2"]) if isinstance(e, ev.RoundEnded)]
    assert ends
    for before, event, after in ends:
        text = "\n".join(line.html() for line in narrate(event, scene(before, after, None, "en")))
        assert "The treasure lay under the" in text  # where it was, reached or not
        roles = dict(event.roles)
        for player, role in roles.items():
            assert f"P{player} ({Texts('en').role_name(role)})" in text
        if event.treasure_reached:
            assert "could pass" in text or "door" in text  # the doors on the way
            assert "gold-digger" in text or "is no gold-digger" in text  # who, and why
        else:
            assert "the saboteurs win" in text
        if event.winners:
            assert f"Winners: {len(event.winners)}; each gets" in text
        trapped = {s.player for s in view_for(after, None).seats if "trapped" in s.front}
        geologists = [p for p, r in roles.items() if r == "geologist" and p not in trapped]
        if geologists:
            crystals = geo.crystals(after.board)
            assert f"share the {crystals} crystals on the table" in text
        for role, said in (("boss", "The boss, "), ("profiteer", "The profiteer, ")):
            if any(roles[p] == role for p in event.winners):
                assert said in text


def test_the_replay_tells_a_move_in_live_plays_words_with_its_secrets(
    games: dict[str, list[Batch]],
) -> None:
    for before, event, after in told(games["saboteur2"]):
        if isinstance(event, ev.PathPlaced):
            (live,) = narrate(event, scene(before, after, None, "en"))
            (replayed,) = narrate(event, scene(before, after, None, "en", full=True))
            card = live.text.split(" placed ")[1]
            assert replayed.text.endswith(" placed " + card)  # the same card, as it lies
            assert "(" in replayed.text.split(" placed ")[0]  # the actor's dwarf card
        if isinstance(event, ev.CardsDiscarded):
            (live,) = narrate(event, scene(before, after, None, "en"))
            (replayed,) = narrate(event, scene(before, after, None, "en", full=True))
            assert live.icon is replayed.icon is Icon.PASS
            assert "face down:" in replayed.text and "face down:" not in live.text
