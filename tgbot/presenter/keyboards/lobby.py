"""The group's keyboards around a game: the lobby and its settings, the computer players'
levels, /cancel's and /leave's questions, and the seat chooser that hands a seat over.
"""

from __future__ import annotations

from typing import Final

from domain.cards import VARIANT_EDITIONS, VARIANTS
from domain.commands import AWAY_PLAY, GOLD_PICKS, LEVELS
from domain.state import GameState, PlayerId
from infra.settings import LANGUAGES
from tgbot.presenter import texts as texts_module
from tgbot.presenter.icons import Icon
from tgbot.presenter.keyboards.buttons import (
    ADD_COMPUTER,
    CANCEL,
    JOIN,
    KEEP,
    LEAVE,
    LEAVE_NO,
    LEAVE_YES,
    LOBBY,
    LOG_PAGE,
    REMOVE_COMPUTER,
    SEAT_PICK,
    SEATS_CLOSE,
    SEATS_MENU,
    SET_AWAY,
    SET_EDITION,
    SET_GOLD_PICK,
    SET_LANGUAGE,
    SET_LEVEL,
    SET_SEAT_LEVEL,
    SET_TIMER,
    SET_VARIANT,
    SETTINGS,
    START,
    STOP,
    Button,
    Press,
    Row,
    _chunks,
)
from tgbot.presenter.texts import Texts, short

TIMER_PRESETS: Final = tuple(seconds for _, seconds in texts_module.TIMER_PRESETS)
EDITIONS: Final = ("base", "saboteur2")


def lobby_rows(texts: Texts) -> list[Row]:
    return [
        [
            Button(texts.t("lobby.button_join"), Press(JOIN)),
            Button(texts.t("lobby.button_leave"), Press(LEAVE)),
        ],
        [
            Button(texts.t("lobby.button_start"), Press(START)),
            Button(texts.t("lobby.button_settings"), Press(SETTINGS)),
        ],
        [
            Button(texts.t("lobby.button_add_computer"), Press(ADD_COMPUTER)),
            Button(texts.t("lobby.button_remove_computer"), Press(REMOVE_COMPUTER)),
        ],
        [Button(texts.t("lobby.button_cancel"), Press(CANCEL))],
    ]


def settings_rows(state: GameState, language: str, texts: Texts) -> list[Row]:
    def mark(on: bool, text: str) -> str:
        return f"✅ {text}" if on else text

    editions = [
        Button(mark(state.edition == e, texts.t(f"edition.{e}")), Press(SET_EDITION, value=i))
        for i, e in enumerate(EDITIONS)
    ]
    timers = [
        Button(mark(state.turn_seconds == s, texts.timer(s)), Press(SET_TIMER, value=i))
        for i, s in enumerate(TIMER_PRESETS)
    ]
    languages = [
        Button(
            mark(language == code, Texts(code).t("language.button")), Press(SET_LANGUAGE, value=i)
        )
        for i, code in enumerate(LANGUAGES)
    ]
    away = [
        Button(
            mark(state.away_play == a, texts.t(f"settings.button_away_{a}")),
            Press(SET_AWAY, value=i),
        )
        for i, a in enumerate(AWAY_PLAY)
    ]
    picks = [
        Button(
            mark(state.gold_pick == g, texts.t(f"settings.button_gold_{g}")),
            Press(SET_GOLD_PICK, value=i),
        )
        for i, g in enumerate(GOLD_PICKS)
    ]
    last: Row = [
        Button(texts.t("turn.button_back"), Press(LOBBY)),
        Button(texts.t("lobby.button_join"), Press(JOIN)),
    ]
    # Saboteur 2 pays its gold without a pick: the choice is the base game's only.
    gold = [picks] if state.edition == "base" else []
    # The base game's variants (docs/rules.md §8), each switched on or off by its button.
    variants = [
        [
            Button(
                mark(v in state.variants, f"{Icon.VARIANTS.emoji} {texts.t(f'variant.{v}')}"),
                Press(SET_VARIANT, value=i),
            )
        ]
        for i, v in enumerate(VARIANTS)
        if state.edition in VARIANT_EDITIONS
    ]
    return [
        editions,
        *_chunks(timers, 2),
        away,
        *gold,
        level_row(state, texts),
        *seat_level_rows(state, texts),
        *variants,
        languages,
        last,
    ]


def level_row(state: GameState, texts: Texts) -> Row:
    """The computer players' level, for every one seated and those seated next. Its ✅
    says that every computer player plays at that level: none when the seats differ."""
    seated = {state.level_of(p) for p in state.seating if state.is_computer(p)}
    shared = state.computer_level if seated <= {state.computer_level} else None
    return [
        Button(
            f"✅ {texts.t(f'settings.button_level_{level}')}"
            if shared == level
            else texts.t(f"settings.button_level_{level}"),
            Press(SET_LEVEL, value=i),
        )
        for i, level in enumerate(LEVELS)
    ]


def seat_level_rows(state: GameState, texts: Texts) -> list[Row]:
    """A button per computer player seated, named with its level as the lobby names it
    ("🤖 Greta · hard"), two to a row: a press moves that one player to the next level
    (easy, normal, hard, then easy again). The press carries the level it asks for, not
    "the next one": a second tap of the same button asks for the same level again."""
    seats = [
        Button(
            f"{short(state.names.get(p, '?'))} · {texts.t(f'level.{state.level_of(p)}')}",
            Press(SET_SEAT_LEVEL, player=p, value=next_level(state.level_of(p))),
        )
        for p in state.seating
        if state.is_computer(p)
    ]
    return _chunks(seats, 2)


def next_level(level: str) -> int:
    """The index in LEVELS of the level after ``level`` (after the last: the first).

    >>> [LEVELS[next_level(level)] for level in LEVELS]
    ['normal', 'hard', 'easy']
    """
    return (LEVELS.index(level) + 1) % len(LEVELS) if level in LEVELS else 0


def stop_rows(texts: Texts) -> list[Row]:
    """/cancel of a running game asks first: cancel it, or play on."""
    return [
        [
            Button(texts.t("cancel.button_yes"), Press(STOP)),
            Button(texts.t("cancel.button_no"), Press(KEEP)),
        ]
    ]


def leave_rows(texts: Texts, player: PlayerId) -> list[Row]:
    """/leave in a running game asks the player first: leave (the computer plays on), or stay."""
    return [
        [
            Button(texts.t("leave.button_yes"), Press(LEAVE_YES, player=player)),
            Button(texts.t("leave.button_no"), Press(LEAVE_NO, player=player)),
        ]
    ]


def handable_seats(state: GameState) -> tuple[PlayerId, ...]:
    """The people's seats the creator or an admin may hand to the computer now: those it
    does not play already; the one the game waits for first, then in seating order.

    >>> from domain.state import Decision
    >>> state = GameState(seating=(1, 2, 3, 4), computers=frozenset({-1}))
    >>> state = state.update(seating=(1, 2, 3, -1), handed_over={1: "kicked"})
    >>> handable_seats(state.update(pending=Decision(1, 3, "turn", 0)))
    (3, 2)
    """
    if state.practice:  # its one person has nobody to hand a seat over
        return ()
    seats = [p for p in state.humans() if p not in state.handed_over]
    pending = state.pending
    if pending is not None and pending.player in seats:
        seats.remove(pending.player)
        seats.insert(0, pending.player)
    return tuple(seats)


def hand_seat_row(texts: Texts) -> Row:
    """The group's board: the creator or an admin opens the chooser of seats to hand to
    the computer (one button, whoever the game waits for)."""
    return [Button(texts.t("board.button_hand_seat"), Press(SEATS_MENU))]


def log_button(texts: Texts) -> Button:
    """The group's board: the round's log, posted as a message of its own (it pages)."""
    return Button(texts.t("board.button_log"), Press(LOG_PAGE, any_version=True))


def seat_chooser_rows(state: GameState, texts: Texts) -> list[Row]:
    """The chooser: a button per seat that may be handed over (⏳ marks the one the game
    waits for), two to a row, and one to close it."""
    pending = state.pending
    awaited = pending.player if pending is not None else None
    seats = [
        Button(
            f"{Icon.DEADLINE.emoji} {short(state.names.get(p, '?'))}"
            if p == awaited
            else short(state.names.get(p, "?")),
            Press(SEAT_PICK, player=p),
        )
        for p in handable_seats(state)
    ]
    return [*_chunks(seats, 2), [Button(texts.t("handseat.button_close"), Press(SEATS_CLOSE))]]
