"""One narration per event type: every type told in each language, to the group, to a
player and in a replay; self-targeted moves read naturally; a Saboteur 2 round's end
explains itself; secrets stay with their owner."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import get_args

import pytest

from domain import board as geo
from domain import events as ev
from domain.cards import Role
from domain.events import Event
from domain.evolve import evolve
from domain.state import GameState
from domain.view import view_for
from tests.domain.given import action_event
from tests.presenter.games import Batch, play
from tgbot.presenter import results
from tgbot.presenter.i18n import LANGUAGES
from tgbot.presenter.icons import Icon
from tgbot.presenter.narration import Scene, narrate
from tgbot.presenter.texts import Texts

KEY_LIKE = re.compile(r"^[a-z_]+\.[a-z_.]+$")
# In German the saboteur is called as the game is (Saboteur): its name alone tells nothing.
ROLE_NAMES = {Texts(lang).role_name(r.value) for r in Role for lang in LANGUAGES} - {
    Texts(lang).t("edition.base") for lang in LANGUAGES
}


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
    ev.ComputerLevelSet("hard"),
    ev.ComputerLevelSet("easy", -1),
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
    # Every action card, whichever the random games played.
    ev.ToolBroken(11, 0, 12, "cart"),
    ev.ToolRepaired(12, 0, 12, "cart"),
    ev.RockfallPlayed(11, 0, (1, 0)),
    ev.MapLooked(11, 0, (8, 0), "goal_treasure"),
    ev.RoleInspected(11, 0, 12, "saboteur"),
    ev.HandsSwapped(11, 0, 12),
    ev.HatsSwapped(11, 0, 12, "saboteur"),
    ev.TheftPlanned(11, 0),
    ev.TheftStopped(12, 0, 11),
    ev.PlayerImprisoned(11, 0, 12),
    ev.PlayerFreed(12, 0, 12),
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
        ("es", "repair_pickaxe", "P11 ha reparado su pico."),
        ("es", "broken_cart", "P11 ha roto su propio carrito."),
        ("pl", "repair_pickaxe", "P11 naprawia swój sprzęt: kilof znów jest sprawny."),
        ("pl", "broken_cart", "P11 psuje własny wózek."),
    ],
)
def test_a_move_on_oneself_reads_naturally(lang: str, action: str, expected: str) -> None:
    batches = play(1, players=3)
    state = batches[-1].before
    tool = "pickaxe" if action.startswith("repair") else None
    event = action_event(11, 0, action, target_player=11, tool=tool)
    (line,) = narrate(event, scene(state, state, None, lang))
    assert line.text == expected
    other = action_event(11, 0, action, target_player=12, tool=tool)
    (told_to_target,) = narrate(other, scene(state, state, 12, lang))
    assert "P12" not in told_to_target.text  # "…your cart", said to its owner


def test_a_lantern_repaired_by_its_owner_agrees_in_gender_in_spanish() -> None:
    state = play(1, players=3)[-1].before
    event = action_event(11, 0, "repair_lantern", target_player=11, tool="lantern")
    (line,) = narrate(event, scene(state, state, None, "es"))
    assert line.text == "P11 ha reparado su linterna."  # not "su propio linterna"
    other = action_event(11, 0, "repair_lantern", target_player=12, tool="lantern")
    (line,) = narrate(other, scene(state, state, None, "es"))
    assert line.text == "P11 ha reparado la linterna de P12."  # not "una herramienta de P12"
    cart = action_event(11, 0, "repair_cart_lantern", target_player=12, tool="cart")
    (line,) = narrate(cart, scene(state, state, None, "es"))
    assert line.text == "P11 ha reparado el carrito de P12."  # a two-tool card: by its tool
    (line,) = narrate(other, scene(state, state, 12, "es"))
    assert line.text == "P11 te ha reparado la linterna."


def test_a_tool_repaired_by_its_owner_or_for_you_agrees_in_gender_in_polish() -> None:
    state = play(1, players=3)[-1].before
    own = action_event(11, 0, "repair_pickaxe_lantern", target_player=11, tool="lantern")
    (line,) = narrate(own, scene(state, state, None, "pl"))
    assert line.text == "P11 naprawia swój sprzęt: lampa znów jest sprawna."  # not "(lampa)"
    yours = action_event(11, 0, "repair_cart", target_player=12, tool="cart")
    (line,) = narrate(yours, scene(state, state, 12, "pl"))
    assert line.text == "P11 naprawia twój sprzęt: wózek znów jest sprawny."


@pytest.mark.parametrize("lang", LANGUAGES)
def test_whose_hand_was_swapped_is_told_it_once_with_where_the_new_cards_are(lang: str) -> None:
    # Not "Bo swapped hands with you." and then "Bo swapped hands with you: your new
    # cards are in your next prompt and in /hand." in the same prompt.
    state = play(2, players=3, edition="saboteur2")[-1].before
    event = action_event(11, 0, "swap_hand", target_player=12)
    (line,) = narrate(event, scene(state, state, 12, lang))
    assert line.own and line.text == Texts(lang).t("turn.swap_hand_received", name="P11")
    (public,) = narrate(event, scene(state, state, None, lang))
    assert "P12" in public.text and not public.own


@pytest.mark.parametrize(
    ("lang", "action", "tool", "expected"),
    [
        ("de", "broken_cart", None, "P11 legt vor P12 eine kaputte Lore aus."),
        ("de", "trapped", None, "P11 nimmt P12 gefangen."),
        ("de", "repair_pickaxe_lantern", "lantern", "P11 repariert die Lampe von P12."),
        ("de", "swap_hats", None, "P11 lässt P12 den Hut wechseln."),
        ("pl", "broken_cart", None, "P11 psuje wózek: P12 nie może kłaść kart korytarza."),
        ("pl", "trapped", None, "P11 zastawia pułapkę: P12 nie może kłaść kart korytarza."),
        (
            "pl",
            "repair_lantern",
            "lantern",
            "P11 naprawia sprzęt: lampa, którą ma P12, znów jest sprawna.",
        ),
        ("pl", "swap_hand", None, "P11 i P12 wymieniają się kartami na ręce."),
    ],
)
def test_a_move_on_another_reads_as_a_sentence_not_an_arrow(
    lang: str, action: str, tool: str | None, expected: str
) -> None:
    # "⛓ Ann → gefangen (🤖 Ulla)" and "🛒✖ Cy → zepsuty wózek (Ann)" read as notation.
    state = play(1, players=3)[-1].before
    dealt = "saboteur" if action == "swap_hats" else None  # the dwarf card swap hats deals
    event = action_event(11, 0, action, target_player=12, tool=tool, result=dealt)
    (line,) = narrate(event, scene(state, state, None, lang))
    assert line.text == expected


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
            assert "No team wins" in text
        if len(event.winners) > 1:
            assert f"Winners: {', '.join(f'P{p}' for p in event.winners)}; " in text
        elif event.winners:
            assert f"The only winner is P{event.winners[0]}: " in text
        trapped = {s.player for s in view_for(after, None).seats if "trapped" in s.front}
        geologists = [p for p, r in roles.items() if r == "geologist" and p not in trapped]
        if len(geologists) > 1:
            crystals = geo.crystals(after.board)
            assert f"share the crystals on the table ({crystals})" in text
        elif geologists:
            assert "gets 1 gold for each crystal on the table" in text
        for role, said in (("boss", "The boss, "), ("profiteer", "The profiteer, ")):
            if any(roles[p] == role for p in event.winners):
                assert said in text


def _round_end_told(
    games: dict[str, list[Batch]], lang: str, **change: object
) -> tuple[ev.RoundEnded, str]:
    """A Saboteur 2 round's end from the fixture, its event changed by ``change``."""
    before, event, after = next(
        (b, e, a) for b, e, a in told(games["saboteur2"]) if isinstance(e, ev.RoundEnded)
    )
    event = replace(event, **change)  # type: ignore[arg-type]
    return event, "\n".join(
        line.html() for line in narrate(event, scene(before, after, None, lang))
    )


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_saboteur2_round_with_no_saboteur_dealt_and_no_winner_says_so_once(
    games: dict[str, list[Batch]], lang: str
) -> None:
    roles = tuple((p, Role.BLUE_DIGGER.value) for p in range(11, 16))
    _, text = _round_end_told(
        games, lang, treasure_reached=False, reached_by=None, roles=roles, winners=()
    )
    texts = Texts(lang)
    assert texts.t("results.no_saboteur") in text
    assert texts.t("move.no_winners") in text
    assert texts.t("results.saboteurs_win") not in text  # nobody is said to win


@pytest.mark.parametrize(
    ("lang", "said"),
    [
        ("en", "The only winner is P11: 5 gold."),
        ("es", "Solo gana P11: 5 de oro."),
        ("pl", "Wygrywa tylko P11 i dostaje złoto: 5."),
    ],
)
def test_a_saboteur2_round_with_one_winner_names_the_winner_and_the_gold(
    games: dict[str, list[Batch]], lang: str, said: str
) -> None:
    roles = (
        (11, Role.SABOTEUR.value),
        *((p, Role.BLUE_DIGGER.value) for p in range(12, 15)),
        (15, Role.GEOLOGIST.value),
    )
    _, text = _round_end_told(
        games, lang, treasure_reached=False, reached_by=None, roles=roles, winners=(11,)
    )
    assert said in text
    assert text.count(said.split(" ")[0]) >= 1 and ": 1;" not in text  # no bare count


@pytest.mark.parametrize(
    ("lang", "said"),
    [
        ("en", "The geologist, P15, gets 1 gold for each crystal on the table"),
        ("es", "El geólogo, P15, recibe 1 de oro por cada cristal de la mesa"),
        ("pl", "Geolog P15 dostaje 1 złoto za każdy kryształ na stole"),
    ],
)
def test_one_geologist_is_told_in_the_singular(
    games: dict[str, list[Batch]], lang: str, said: str
) -> None:
    roles = (
        (11, Role.SABOTEUR.value),
        *((p, Role.BLUE_DIGGER.value) for p in range(12, 15)),
        (15, Role.GEOLOGIST.value),
    )
    _, text = _round_end_told(
        games, lang, treasure_reached=False, reached_by=None, roles=roles, winners=(11,)
    )
    assert said in text


@pytest.mark.parametrize(
    ("lang", "one", "two"),
    [
        ("en", "The saboteur wins and takes 4 gold.", "The saboteurs win: each takes 3 gold."),
        ("es", "Gana el saboteador y se lleva 4 de oro.", "cada uno se lleva 3 de oro."),
        ("pl", "Wygrywa sabotażysta i dostaje złoto: 4.", "każdy dostaje 3 bryłki złota."),
    ],
)
def test_a_base_round_won_by_one_saboteur_speaks_of_one(
    games: dict[str, list[Batch]], lang: str, one: str, two: str
) -> None:
    before, event, after = next(
        (b, e, a) for b, e, a in told(games["base"]) if isinstance(e, ev.RoundEnded)
    )
    for saboteurs, said in ((1, one), (2, two)):
        roles = tuple(
            (p, "saboteur" if i < saboteurs else "gold_digger")
            for i, p in enumerate(sorted(after.names))
        )
        changed = replace(event, treasure_reached=False, reached_by=None, roles=roles)
        told_lines = narrate(changed, scene(before, after, None, lang))
        assert said in "\n".join(line.html() for line in told_lines)


@pytest.mark.parametrize(
    ("lang", "one"),
    [("en", "Trapped, so no gold"), ("es", "Atrapado, así"), ("pl", "W pułapce")],
)
def test_one_trapped_player_is_told_in_the_singular(
    games: dict[str, list[Batch]], lang: str, one: str
) -> None:
    before, event, after = next(
        (b, e, a) for b, e, a in told(games["saboteur2"]) if isinstance(e, ev.RoundEnded)
    )
    first = sorted(after.names)[0]
    after = after.update(front={p: () for p in after.names} | {first: ("trapped",)})
    text = "\n".join(line.html() for line in narrate(event, scene(before, after, None, lang)))
    assert f"{Icon.TRAPPED.emoji} {one}" in text, text


@pytest.mark.parametrize(
    ("lang", "round_won", "game_won"),
    [
        ("en", "Winner: P11.", "Game over! Winner: P11."),
        ("es", "Gana P11.", "¡Fin de la partida! Gana P11."),
        ("pl", "Wygrywa P11.", "Koniec gry! Wygrywa P11."),
    ],
)
def test_one_winner_is_told_in_the_singular(
    games: dict[str, list[Batch]], lang: str, round_won: str, game_won: str
) -> None:
    before, event, after = next(
        (b, e, a) for b, e, a in told(games["base"]) if isinstance(e, ev.RoundEnded)
    )
    one = replace(event, winners=(11,))
    text = "\n".join(line.text for line in narrate(one, scene(before, after, None, lang)))
    assert round_won in text.split("\n"), text
    ended = ev.GameEnded(((11, 5), (12, 3)), (11,))
    (head, *_) = narrate(ended, scene(after, after, None, lang))
    assert head.text == game_won


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


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("kind", ["gold_pick", "theft"])
def test_the_groups_board_says_what_a_round_end_waits_for(
    games: dict[str, list[Batch]], lang: str, kind: str
) -> None:
    from tests.presenter.games import table
    from tgbot.presenter.board import caption

    state = next(
        b.before
        for b in games["saboteur2"]
        if b.before.phase == "playing" and b.before.pending is not None
    )
    assert state.pending is not None
    state = state.update(pending=replace(state.pending, kind=kind))
    player = state.pending.player
    shown = caption(state, table(state, lang).group(), table(state, lang), [])
    named = f'<a href="tg://user?id={player}">{state.names[player]}</a>'
    said = Texts(lang).t(f"turn.waiting_{kind}", name=named)
    assert said in shown, shown


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_picker_of_a_nugget_is_told_in_the_second_person_with_their_total(lang: str) -> None:
    # "💰 Ann kept a nugget worth 1." was sent to Ann, with no total.
    texts = Texts(lang)
    batch = next(b for b in play(1, players=4, edition="base") if b.before.round == 1)
    picker, other = batch.before.seating[:2]
    state = batch.before.update(gold={picker: 5, other: 1})  # the pick (2) counted in
    picked = ev.GoldPicked(picker, 2)
    mine = Scene(texts, picker, state.edition, state.names, view_for(state, picker))
    [said] = narrate(picked, mine)
    assert said.own and said.text == texts.t("move.gold_picked_you", count=2, total=5)
    assert state.names[picker] not in said.text
    theirs = Scene(texts, other, state.edition, state.names, view_for(state, other))
    [told] = narrate(picked, theirs)
    assert told.text == texts.t("move.gold_picked", name=state.names[picker])


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_round_nobody_wins_says_that_no_saboteur_was_dealt(lang: str) -> None:
    # "Nikt nie wygrywa tej rundy" did not say why.
    texts = Texts(lang)
    batch = next(b for b in play(1, players=4, edition="base") if b.before.round == 1)
    state = batch.before
    roles = tuple((p, Role.GOLD_DIGGER.value) for p in state.seating)
    ended = ev.RoundEnded(1, False, None, roles, (), (Role.SABOTEUR.value,))
    scene = Scene(texts, None, state.edition, state.names, view_for(state, None))
    said = [line.text for line in narrate(ended, scene)]
    assert texts.t("move.no_winners_no_saboteur") in said
    assert texts.t("move.no_winners") not in said


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_share_of_winners_among_whom_some_get_less_says_except_first(lang: str) -> None:
    # "Winners: Cy, Di, Ed; 3 gold each." then "The profiteer, Ed, … gets two less: 1."
    texts = Texts(lang)
    batch = next(b for b in play(2, players=5, edition="saboteur2") if b.before.round == 1)
    state = batch.before
    a, b, c, d, e = state.seating
    roles = (
        (a, Role.SABOTEUR.value),
        (b, Role.SABOTEUR.value),
        (c, Role.PROFITEER.value),
        (d, Role.BLUE_DIGGER.value),
        (e, Role.GREEN_DIGGER.value),
    )
    ended = ev.RoundEnded(1, False, None, roles, (a, b, c))
    scene = Scene(texts, None, state.edition, state.names, view_for(state, None))
    said = [line.text for line in narrate(ended, scene)]
    names = ", ".join(state.names[p] for p in (a, b, c))
    share = texts.t("results.share_except", names=names, count=ended_share(3))
    assert share in said, said
    assert texts.t("results.share", names=names, count=ended_share(3)) not in said
    assert said.index(share) < next(
        i for i, s in enumerate(said) if state.names[c] in s and i > said.index(share)
    )


def ended_share(winners: int) -> int:
    from domain.scoring import saboteur2_share

    return saboteur2_share(winners)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_team_that_wins_though_both_could_pass_is_told_why(lang: str) -> None:
    # "Both teams could pass" then "the blue team wins" gave no why.
    texts = Texts(lang)
    why = texts.t("results.blue_digger_blue_wins", name="Ann")
    reason = {"en": "whoever reaches it", "es": "quien llega", "pl": "kto dotrze", "de": "Mitglied"}
    assert reason[lang] in why, why


@pytest.mark.parametrize("lang", ["en", "es", "pl", "de"])
def test_a_cell_is_named_as_the_picture_writes_it_with_a_true_minus_sign(lang: str) -> None:
    # The picture writes "−1" (a hyphen shrank to a dot on a phone): the lines say it alike.
    state = play(1, players=3)[-1].before
    event = action_event(11, 0, "rockfall", target_cell=(-1, 0))
    (line,) = narrate(event, scene(state, state, None, lang))
    assert "\u22121,0" in line.text and "-1" not in line.text
