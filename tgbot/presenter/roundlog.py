"""The round so far: every move the table saw, one line each.

The same entries make the group board's last moves, the 📜 log message (paged, and per
player), a player's "since your last turn" at the top of their prompt, and the Mini App's
log. An entry is one move told to one reader: a path card and the goal it turned up are
one line, and so is an action and what it did. Only what the reader may know is ever in
it: built for the group (no viewer), it holds no map result, inspection or hand; built for
a player, their own secrets are left out too (they were told apart, when they happened).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final

from domain import events as ev
from domain.events import Event
from domain.evolve import evolve, initial_state
from domain.state import GameState, PlayerId
from domain.view import view_for
from tgbot.presenter import keyboards as kb
from tgbot.presenter.icons import Icon, Line
from tgbot.presenter.narration import Scene, narrate
from tgbot.presenter.texts import Texts, name_html, short

# Not moves: the lobby, and what is told in a message of its own (a round's end...).
NOT_MOVES = (
    ev.GameCreated,
    ev.PlayerJoined,
    ev.PlayerLeft,
    ev.ComputerPlayerAdded,
    ev.ComputerPlayerRemoved,
    ev.ComputerLevelSet,
    ev.SettingsChanged,
    ev.GameStarted,
    ev.RoundEnded,
    ev.GameEnded,
    ev.GameCancelled,
    ev.DecisionOpened,
    ev.PlayerReminded,
    ev.CardDrawn,
)


@dataclass(frozen=True, slots=True)
class Entry:
    """One move of the round as one reader learns it: who made it (None: nobody, e.g. a
    round's start) and its line."""

    actor: PlayerId | None
    line: Line

    def html(self) -> str:
        return self.line.html()


def actor_of(event: Event) -> PlayerId | None:
    """Who made a move: the player it names (a theft: the thief)."""
    if isinstance(event, ev.TheftResolved):
        return event.thief
    if isinstance(event, ev.RoundStarted):
        return None
    player = getattr(event, "player", None)
    return player if isinstance(player, int) else None


def fold_lines(lines: Sequence[Line]) -> Line:
    """An event's lines as one line: the first one's icon, the rest after it."""
    first, *rest = lines
    text = " ".join([first.text, *(other.html() for other in rest)])
    return Line(first.icon, text, any(other.own for other in lines))


def add(entries: list[Entry], event: Event, lines: Sequence[Line], *, own: bool = True) -> None:
    """Add ``event``'s move to ``entries`` (``own`` False: without the reader's own news).
    A goal turned up belongs to the path card that reached it."""
    if isinstance(event, NOT_MOVES):
        return
    kept = [line for line in lines if own or not line.own]
    if not kept:
        return
    if isinstance(event, ev.GoalRevealed) and entries:
        last = entries[-1]
        entries[-1] = Entry(last.actor, fold_lines([last.line, *kept]))
        return
    entries.append(Entry(actor_of(event), fold_lines(kept)))


def public_scene(state: GameState, texts: Texts, before: GameState | None = None) -> Scene:
    """The group's scene of the event that led to ``state``."""
    names = state.names if before is None else {**before.names, **state.names}
    return Scene(texts, None, state.edition, names, view_for(state, None))


@dataclass(frozen=True, slots=True)
class Round:
    """One round's public log, as the group reads it."""

    number: int
    entries: tuple[Entry, ...]
    state: GameState  # the game after the last event read (the round's end, or now)
    ended: str = ""  # the round's end, once told (its first line)


def rounds(events: Iterable[Event], texts: Texts) -> list[Round]:
    """Every round of a game's events, each with its public log."""
    state = initial_state()
    found: list[Round] = []
    entries: list[Entry] = []
    ended = ""
    for event in events:
        before, state = state, evolve(state, event)
        if isinstance(event, ev.RoundStarted):
            if found or entries:
                found.append(Round(before.round, tuple(entries), before, ended))
            entries, ended = [], ""
        if isinstance(event, ev.RoundEnded):
            told = narrate(event, public_scene(state, texts, before))
            ended = told[0].html() if told else ""
        if state.round > 0:
            add(entries, event, narrate(event, public_scene(state, texts, before)))
    if state.round > 0:
        found.append(Round(state.round, tuple(entries), state, ended))
    return found


def since_last_turn(player: PlayerId, earlier: Sequence[Event], scene: Scene) -> list[Entry]:
    """The moves ``player`` has not been told in a prompt yet: those of ``earlier`` (the
    round's events before the ones being announced) after their last decision opened,
    as ``scene`` (theirs) tells them — but their own moves, and their own news (told when
    they happened)."""
    start = 0
    for index, event in enumerate(earlier):
        if isinstance(event, ev.DecisionOpened) and event.player == player:
            start = index + 1
    entries: list[Entry] = []
    own_move = False  # the last move was theirs: the goal it turned up is theirs too
    for event in earlier[start:]:
        if isinstance(event, NOT_MOVES):
            continue
        if not isinstance(event, ev.GoalRevealed):
            own_move = actor_of(event) == player
        if not own_move:
            add(entries, event, narrate(event, scene), own=False)
    return entries


LOG_PAGE: Final = 12  # moves on one page of the 📜 log message


def log_page(
    found: Sequence[Round],
    texts: Texts,
    number: int | None = None,
    page: int | None = None,
    player: PlayerId | None = None,
) -> tuple[str, kb.Keyboard]:
    """The 📜 log message: round ``number`` (default the last), its moves by ``player``
    (None: everyone's), page ``page`` of them (default the last: the latest moves), and
    its buttons (the pages, one per player, the rounds before, close). It pages by
    editing itself: its buttons never go stale."""
    chosen = next((r for r in found if r.number == number), found[-1])
    names = chosen.state.names
    entries = [e for e in chosen.entries if player is None or e.actor == player]
    pages = max(1, -(-len(entries) // LOG_PAGE))
    shown = pages - 1 if page is None else max(0, min(page, pages - 1))
    over = bool(chosen.ended)
    if player is None:
        title = texts.t("log.title_over" if over else "log.title", round=chosen.number)
    else:
        key = "log.title_player_over" if over else "log.title_player"
        title = texts.t(key, round=chosen.number, name=name_html(names.get(player, "?")))
    head = f"{Icon.LOG.emoji} {title}"
    if pages > 1:
        head += " · " + texts.t("log.page", page=shown + 1, pages=pages)
    first = shown * LOG_PAGE
    lines = [
        f"{first + i + 1}. {e.html()}" for i, e in enumerate(entries[first : first + LOG_PAGE])
    ]
    if not lines:
        lines = [texts.t("log.nothing")]
    if over and player is None and shown == pages - 1:
        lines.append(chosen.ended)
    press = functools.partial(kb.Press, kb.LOG_PAGE, value=chosen.number, any_version=True)
    paging: kb.Row = []
    if shown > 0:
        paging.append(kb.Button(texts.t("legend.previous"), press(page=shown - 1, player=player)))
    if shown < pages - 1:
        paging.append(kb.Button(texts.t("legend.next"), press(page=shown + 1, player=player)))
    everyone = texts.t("log.everyone")
    people = [
        kb.Button(("✅ " if p == player else "") + short(names.get(p, "?")), press(player=p))
        for p in chosen.state.seating
    ]
    filters = [kb.Button(("✅ " if player is None else "") + everyone, press()), *people]
    others: kb.Row = [
        kb.Button(
            texts.t("log.round", round=r.number), press(page=None, player=None, value=r.number)
        )
        for r in found
        if r.number != chosen.number
    ]
    close = [kb.Button(texts.t("log.button_close"), kb.Press(kb.LOG_CLOSE, any_version=True))]
    rows = [paging, *(filters[i : i + 3] for i in range(0, len(filters), 3)), others, close]
    return "\n".join([head, "", *lines]), kb.keyboard(rows)
