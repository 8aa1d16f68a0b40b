"""The table remembers: each prompt opens with every move made since its player's last
one, the group's board shows the round's last moves, and no public line ever carries a
secret (a map's result, an inspection, a hand, a dwarf card before the round's end)."""

from __future__ import annotations

import functools
import html
import re

import pytest

from domain import events as ev
from domain.cards import Role
from domain.events import Event
from domain.evolve import fold
from domain.moves import legal_moves
from domain.state import GameState
from tests.presenter.games import Batch, play, table
from tgbot.presenter import keyboards as kb
from tgbot.presenter import prompt
from tgbot.presenter.announce import Told, announce, opening, scene
from tgbot.presenter.i18n import LANGUAGES
from tgbot.presenter.icons import Line
from tgbot.presenter.messages import Board, Message, Prompt, PromptStep
from tgbot.presenter.narration import narrate
from tgbot.presenter.roundlog import log_page, rounds
from tgbot.presenter.texts import Texts

Game = tuple[Batch, ...]
GAMES: dict[str, list[Game]] = {
    "base": [tuple(play(7, 6, "base"))],
    "saboteur2": [tuple(play(9, 5, "saboteur2"))],
}
MOVES = (ev.PathPlaced, *ev.ACTION_EVENTS, ev.CardsDiscarded, ev.FrontCardRemoved)


Announced = list[tuple[Batch, list[Event], list[Message]]]
_ANNOUNCED: dict[tuple[int, str], Announced] = {}


def announced(batches: Game, lang: str) -> Announced:
    """Each command's events announced as one batch, with the round so far before it, as
    the announcer does (once per game and language)."""
    key = (id(batches), lang)
    if key not in _ANNOUNCED:
        _ANNOUNCED[key] = _announced(batches, lang)
    return _ANNOUNCED[key]


def _announced(batches: Game, lang: str) -> Announced:
    found: Announced = []
    round_so_far: list[Event] = []
    for batch in batches:
        told = [Told(e, 10_000) for e in batch.events]
        after = fold(batch.events, batch.before)
        earlier = list(round_so_far)
        messages, _ = announce(
            table(after, lang), batch.before, batch.version, told, earlier=earlier
        )
        found.append((batch, earlier, messages))
        for event in batch.events:
            if isinstance(event, ev.RoundStarted):
                round_so_far = []
            round_so_far.append(event)
    return found


def plain(text: str) -> str:
    return html.unescape(re.sub(r"<[^>]*>", "", text))


@pytest.mark.parametrize("edition", ["base", "saboteur2"])
@pytest.mark.parametrize("lang", LANGUAGES)
def test_each_prompt_names_every_move_the_others_made_since_its_players_last_prompt(
    edition: str, lang: str
) -> None:
    texts = Texts(lang)
    checked = 0
    for batches in GAMES[edition]:
        since: dict[int, list[Event]] = {}  # the moves each player was not prompted with
        prompted: dict[int, list[Event]] = {}  # ... as their decision opened
        state = batches[0].before
        for batch, _, messages in announced(batches, lang):
            for event in batch.events:
                state = fold([event], state)
                if isinstance(event, ev.RoundStarted):
                    since = {}
                if isinstance(event, ev.DecisionOpened):
                    prompted[event.player] = since.pop(event.player, [])
                if isinstance(event, MOVES):
                    for player in state.seating:
                        if player != event.player:
                            since.setdefault(player, []).append(event)
            for message in messages:
                if not isinstance(message, Prompt) or message.caption.startswith("⏳"):
                    continue  # a reminder: nothing moved since the prompt it repeats
                reader = scene(state, message.player, texts)
                for move in prompted.get(message.player, []):
                    for line in narrate(move, reader):
                        if not line.own:
                            assert plain(line.text) in plain(message.caption), (
                                line,
                                message.caption,
                            )
                            checked += 1
    assert checked > 100


def test_a_prompt_after_five_others_moved_opens_with_all_five() -> None:
    batches = GAMES["base"][0]  # six players
    counts = []
    for _, _, messages in announced(batches, "en"):
        for message in messages:
            if isinstance(message, Prompt) and not message.caption.startswith("⏳"):
                moves = [line for line in message.caption.split("\n")[2:] if "P1" in line]
                counts.append(len(moves))
    assert max(counts) >= 5


def _step(
    state: GameState, version: int, player: int, press: kb.Press, *, lines: list[Line]
) -> str:
    """The caption of the prompt's step ``press`` leads to."""
    drawn = prompt.step(state, version, player, press, table(state), 1, lines)
    assert isinstance(drawn, PromptStep), drawn
    return drawn.caption


@pytest.mark.parametrize("edition", ["base", "saboteur2"])
def test_each_step_of_a_decision_keeps_the_moves_its_prompt_opened_with(edition: str) -> None:
    """A card picked, the pass screen, « Back: the prompt still opens with the moves
    made since the player's last turn, as when it was sent."""
    checked = 0
    for batches in GAMES[edition]:
        for batch, earlier, messages in announced(batches, "en"):
            after = fold(batch.events, batch.before)
            pending = after.pending
            for message in messages:
                if (
                    not isinstance(message, Prompt)
                    or pending is None
                    or message.player != pending.player
                    or pending.kind != "turn"
                ):
                    continue
                player = message.player
                told = [Told(e, 10_000) for e in batch.events]
                lines = opening(
                    table(after), batch.before, batch.version, told, player, earlier=earlier
                )
                # What the prompt opened with, the player's secrets below it left aside.
                secrets = prompt.status_lines(after, player, Texts("en"), hand=False)
                sent = message.caption.split("\n")[2:]
                moves = [n.html() for n in lines if n.html() in sent and n.html() not in secrets]
                if not moves:
                    continue
                version = batch.version + len(batch.events)

                step = functools.partial(_step, after, version, player, lines=lines)
                playable = sorted(kb.playable(legal_moves(after, player)))
                screens = [step(kb.Press(kb.PASS_MENU))]
                if playable:
                    screens.append(step(kb.Press(kb.CARD, card=playable[0])))
                for shown in screens:
                    for line in moves[-3:]:  # (a caption too long leaves out the oldest)
                        assert line in shown.split("\n"), (line, shown)
                assert step(kb.Press(kb.MENU)) == message.caption  # « Back
                checked += 1
    assert checked > 50


@pytest.mark.parametrize("edition", ["base", "saboteur2"])
def test_the_groups_board_shows_the_rounds_last_moves_not_only_the_latest(edition: str) -> None:
    longest = 0
    for batches in GAMES[edition]:
        for _, _, messages in announced(batches, "en"):
            for message in messages:
                if isinstance(message, Board):
                    longest = max(longest, message.caption.count(" at "))
    assert longest >= 6


@pytest.mark.parametrize("edition", ["base", "saboteur2"])
@pytest.mark.parametrize("lang", LANGUAGES)
def test_no_public_line_tells_a_maps_result_an_inspection_a_hand_or_a_role(
    edition: str, lang: str
) -> None:
    texts = Texts(lang)
    roles = {texts.role_name(r.value) for r in Role} - {texts.t("edition.base")}
    for batches in GAMES[edition]:
        secrets: set[str] = set()
        state = batches[0].before
        public: list[str] = []
        for batch, _, messages in announced(batches, lang):
            for event in batch.events:
                before, state = state, fold([event], state)
                for player in state.seating:
                    # What only this player learns from it (a map's result, their hand...).
                    mine = scene(state, player, texts, before=before)
                    told = scene(state, None, texts, before=before)
                    seen = {plain(line.text) for line in narrate(event, told)}
                    secrets.update(
                        plain(line.text)
                        for line in narrate(event, mine)
                        if line.own and plain(line.text) not in seen
                    )
                    hand = sorted(state.hand(player))
                    if len(hand) >= 2:
                        secrets.add(", ".join(texts.card_name(state.edition, c) for c in hand))
            public += [plain(m.caption) for m in messages if isinstance(m, Board)]
        log = [
            plain(e.html())
            for r in rounds([e for b in batches for e in b.events], texts)
            for e in r.entries
        ]
        public += log
        assert log and secrets
        for text in public:
            for secret in secrets:
                assert secret not in text, (secret, text)
            for role in roles:
                assert not re.search(rf"(?<!\w){re.escape(role)}(?!\w)", text), (role, text)


def test_the_log_message_pages_the_whole_round_and_shows_one_players_moves() -> None:
    texts = Texts("en")
    events = [e for b in GAMES["base"][0] for e in b.events]
    found = rounds(events, texts)
    assert [r.number for r in found] == [1, 2, 3] and all(r.ended for r in found)
    first = found[0]
    pages = -(-len(first.entries) // 12)
    assert pages >= 2
    numbered: list[str] = []
    for page in range(pages):
        text, keys = log_page(found, texts, 1, page)
        numbered += re.findall(r"^\d+\. .*$", text, re.M)
        labels = [b.label for row in keys for b in row]
        assert ("‹ Previous page" in labels) == (page > 0)
        assert ("Next page ›" in labels) == (page < pages - 1)
        assert "Round 2" in labels and "Round 3" in labels  # the other rounds
    assert numbered == [f"{i + 1}. {e.html()}" for i, e in enumerate(first.entries)]
    assert first.ended in text  # the round's end closes its last page
    player = first.state.seating[1]
    text, keys = log_page(found, texts, 1, 0, player)
    assert text.startswith(f"📜 Round 1: what P{player} did")
    mine = re.findall(r"^\d+\. (.*)$", text, re.M)
    assert mine and all(line.startswith(f"P{player}") or f" P{player} " in line for line in mine)
    assert f"✅ P{player}" in [b.label for row in keys for b in row]


GROUP_WORDS = {"en": "group", "es": "grupo", "pl": "grup", "de": "Gruppe"}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_practice_game_speaks_its_players_language_and_names_no_group(lang: str) -> None:
    from dataclasses import replace

    batches = GAMES["base"][0]
    player = batches[0].before.seating[0] if batches[0].before.seating else 11
    said: list[str] = []
    for batch in batches:
        after = fold(batch.events, batch.before)
        # Played in the player's private chat, whose own language nobody chose.
        practice = replace(table(after, lang), chat_id=player, group_language="en", practice=True)
        told = [Told(e, 10_000) for e in batch.events]
        messages, _ = announce(practice, batch.before, batch.version, told)
        for message in messages:
            match message:
                case Board(caption=text) | Prompt(caption=text):
                    said.append(text)
                case _:
                    said.append(str(getattr(message, "text", getattr(message, "caption", ""))))
    texts = Texts(lang)
    assert any(texts.t("turn.round_pile", round=1, count=n) in t for t in said for n in range(60))
    assert any(texts.t("prompt.turn_practice") in t for t in said)
    for text in said:
        assert GROUP_WORDS[lang] not in text, text
