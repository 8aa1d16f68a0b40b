"""Inline keyboards as plain data, drawn only from :func:`domain.moves.legal_moves`.

A keyboard never offers what the rules refuse: every button that ends a decision carries
a command that ``legal_moves`` listed. Where a decision takes several presses (a card, then
a cell), the steps so far travel in the callback data itself — never in ``chat_data``.

A :class:`Button` is a label and what pressing it does: a :class:`Press` (our callback
data, packed by :mod:`tgbot.presenter.callback` into ≤ 64 bytes with the game id and the version the
keyboard was drawn for), a link, or a Mini App. Nothing here knows python-telegram-bot:
the outbox turns keyboards into Telegram's markup.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final

from domain.board import GOAL_CELLS, MIDDLE_TREASURE_CELLS, Cell
from domain.cards import VARIANT_EDITIONS, VARIANTS, Action, Tool, card
from domain.commands import (
    AWAY_PLAY,
    GOLD_PICKS,
    LEVELS,
    ChooseTheftVictim,
    Command,
    DiscardToRemove,
    Pass,
    PickGold,
    PlacePath,
    PlayAction,
)
from domain.queries import tools_broken
from domain.state import GameState, PlayerId
from infra.settings import LANGUAGES
from tgbot.presenter import texts as texts_module
from tgbot.presenter.callback import CallbackData
from tgbot.presenter.icons import Icon
from tgbot.presenter.texts import Texts, card_shape, cell_text, is_symmetric, short

# Press actions (callback codes). The first group: the group lobby; the rest: a
# player's private prompt.
JOIN: Final = "j"
LEAVE: Final = "l"
START: Final = "s"
CANCEL: Final = "x"
SETTINGS: Final = "o"
SET_EDITION: Final = "e"
SET_TIMER: Final = "t"
SET_LANGUAGE: Final = "g"
LOBBY: Final = "b"
ADD_COMPUTER: Final = "ca"  # seat a computer player
REMOVE_COMPUTER: Final = "cr"  # unseat the last computer player seated
SET_AWAY: Final = "aw"  # value: index in AWAY_PLAY
SET_GOLD_PICK: Final = "gk"  # value: index in GOLD_PICKS
SET_LEVEL: Final = "cl"  # value: index in LEVELS, every computer player's level
SET_SEAT_LEVEL: Final = "cs"  # player: a computer player's seat, value: its new level's index
SET_VARIANT: Final = "vt"  # value: index in VARIANTS, switched on or off
STOP: Final = "xs"  # a running game: "yes, cancel it" (asked by /cancel)
KEEP: Final = "xk"  # a running game: "no, play on"
# A running game's seats (player: whose seat). /leave asks first: leave, or stay.
LEAVE_YES: Final = "ly"
LEAVE_NO: Final = "ln"
PRACTICE: Final = "pr"  # /practice: value the edition's index, page the seats (once chosen)
HAND_OVER: Final = "ho"  # player: that seat handed over at once (boards drawn before the chooser)
# The creator or an admin hands a person's seat to the computer: the board's one button
# opens a chooser in the group, listing the seats that may be handed over.
SEATS_MENU: Final = "hs"  # the board: open the chooser
SEAT_PICK: Final = "hp"  # the chooser: player — hand that seat over
SEATS_CLOSE: Final = "hc"  # the chooser: close it, nothing handed over
# The round's log (📜): the board's button posts it, its own buttons page it (value: the
# round, page: the page, player: whose moves; none of them go stale) or close it.
LOG_PAGE: Final = "lg"
LOG_CLOSE: Final = "lc"
LANGUAGE_PICK: Final = "la"  # /language's buttons: value the language's index

MENU: Final = "m"  # back to the decision's first step
CARD: Final = "c"  # a card was picked: show where it may go (or why it cannot)
PLACE: Final = "p"  # card, cell, rotated
ACT: Final = "a"  # card, player and/or cell, tool
PASS_MENU: Final = "sm"  # value: mask of toggled hand positions
PASS: Final = "sp"  # value: mask
REMOVE_MENU: Final = "rm"  # page: 1 + front kind index (0: choose one), value: mask
REMOVE: Final = "rr"  # page: front kind index, value: mask
GOLD: Final = "gp"  # value
THEFT: Final = "th"  # player
LEGEND: Final = "hl"  # what the icons mean, in place of the prompt's caption
COME_BACK: Final = "bk"  # an away player is back (any version: it never goes stale)
OPEN: Final = "vo"  # a finished game's replay, opened at its first step
PLAY_AGAIN: Final = "pa"  # game: the finished game whose players are invited
NOTIFY: Final = "nt"  # game: the game whose message it sits on (any: the chat is what counts)

LOBBY_ACTIONS: Final = frozenset(
    {
        JOIN,
        LEAVE,
        START,
        CANCEL,
        SETTINGS,
        SET_EDITION,
        SET_TIMER,
        SET_LANGUAGE,
        LOBBY,
        ADD_COMPUTER,
        REMOVE_COMPUTER,
        SET_AWAY,
        SET_GOLD_PICK,
        SET_LEVEL,
        SET_SEAT_LEVEL,
        SET_VARIANT,
    }
)
SETTING_ACTIONS: Final = frozenset(
    {
        SET_EDITION,
        SET_TIMER,
        SET_LANGUAGE,
        SET_AWAY,
        SET_GOLD_PICK,
        SET_LEVEL,
        SET_SEAT_LEVEL,
        SET_VARIANT,
    }
)
RUNNING_ACTIONS: Final = frozenset({STOP, KEEP})
PROMPT_ACTIONS: Final = frozenset(
    {MENU, CARD, PLACE, ACT, PASS_MENU, PASS, REMOVE_MENU, REMOVE, GOLD, THEFT, LEGEND}
)
LEAVE_ANSWERS: Final = frozenset({LEAVE_YES, LEAVE_NO})  # the leave question's answers
SEAT_ACTIONS: Final = frozenset({LEAVE_YES, LEAVE_NO, HAND_OVER})
CHOOSER_ACTIONS: Final = frozenset({SEAT_PICK, SEATS_CLOSE})  # the chooser's own buttons
HANDING_ACTIONS: Final = frozenset({SEATS_MENU, *CHOOSER_ACTIONS})
LOG_ACTIONS: Final = frozenset({LOG_PAGE, LOG_CLOSE})
COMMAND_ACTIONS: Final = frozenset({PLACE, ACT, PASS, REMOVE, GOLD, THEFT})

TIMER_PRESETS: Final = tuple(seconds for _, seconds in texts_module.TIMER_PRESETS)
EDITIONS: Final = ("base", "saboteur2")
GOAL_NAMES: Final = {
    GOAL_CELLS[0]: "bot.goal_top",
    GOAL_CELLS[1]: "bot.goal_middle",
    MIDDLE_TREASURE_CELLS[1]: "bot.goal_middle",  # the middle treasure variant's
    GOAL_CELLS[2]: "bot.goal_bottom",
}
LABELS: Final = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
UNPLAYABLE: Final = "🚫"  # marks a card that cannot be played now (see icons.LEGEND)


@dataclass(frozen=True, slots=True)
class Press:
    """What a button asks for; with a game id and version it becomes callback data.

    ``any_version``: the button is drawn for version 0, whatever the game's version (a
    replay's Open button, which never goes stale)."""

    action: str
    card: int | None = None
    cell: Cell | None = None
    rotated: bool = False
    player: int | None = None
    tool: str | None = None
    page: int | None = None
    value: int | None = None
    any_version: bool = False

    def data(self, game: str, version: int) -> CallbackData:
        return CallbackData(
            self.action,
            game,
            0 if self.any_version else version,
            card=self.card,
            cell=self.cell,
            rotated=self.rotated,
            player=self.player,
            tool=self.tool,
            page=self.page,
            value=self.value,
        )

    @classmethod
    def of(cls, data: CallbackData) -> Press:
        return cls(
            data.action,
            data.card,
            data.cell,
            data.rotated,
            data.player,
            data.tool,
            data.page,
            data.value,
        )


@dataclass(frozen=True, slots=True)
class Button:
    """A label and what pressing it does: a press (for ``game``, default the message's
    own), a link, or a Telegram Mini App."""

    label: str
    press: Press | None = None
    url: str | None = None
    web_app: str | None = None
    game: str | None = None


Row = list[Button]
Keyboard = tuple[tuple[Button, ...], ...]


def keyboard(rows: Iterable[Iterable[Button]]) -> Keyboard:
    """Rows of buttons as an immutable keyboard (empty rows left out)."""
    return tuple(row for row in (tuple(r) for r in rows) if row)


def replay_button(game_id: str, label: str = "🎬") -> Button:
    """A button that opens the replay of ``game_id`` (the game-over message's, /history's)."""
    return Button(label, Press(OPEN, any_version=True), game=game_id)


def after_game_rows(texts: Texts) -> list[Row]:
    """The game-over message's buttons below its replay button: play again, notify me
    (each for the message's game, at any version; see :mod:`tgbot.presenter.invitations`)."""
    return [
        [Button(texts.t(label), Press(action, any_version=True))]
        for label, action in (("again.button_play", PLAY_AGAIN), ("notify.button", NOTIFY))
    ]


def _chunks(items: Sequence[Button], size: int) -> list[Row]:
    return [list(items[i : i + size]) for i in range(0, len(items), size)]


# ---------------------------------------------------------------------------- lobby


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


# ---------------------------------------------------------------------------- turns


def hand_positions(state: GameState, player: PlayerId) -> tuple[int, ...]:
    """The hand in the order mask bits refer to (sorted card ids)."""
    return tuple(sorted(state.hand(player)))


def cards_of_mask(state: GameState, player: PlayerId, mask: int) -> tuple[int, ...]:
    hand = hand_positions(state, player)
    if mask >> len(hand):
        raise BadPress("mask beyond the hand")
    return tuple(c for i, c in enumerate(hand) if mask >> i & 1)


def cell_labels(cells: Iterable[Cell]) -> dict[Cell, str]:
    """A letter per cell in (x, y) order; the preview image shows the same letters."""
    ordered = sorted(set(cells))
    return {c: _label(i) for i, c in enumerate(ordered)}


def _label(index: int) -> str:
    if index < len(LABELS):
        return LABELS[index]
    return LABELS[index // len(LABELS) - 1] + LABELS[index % len(LABELS)]


def playable(moves: Sequence[Command]) -> set[int]:
    """The cards of the hand that some legal move plays (placed or played as an action)."""
    return {m.card for m in moves if isinstance(m, PlacePath | PlayAction)}


def legend_row(texts: Texts) -> Row:
    return [Button(texts.t("legend.button"), Press(LEGEND))]


def root_rows(
    state: GameState, player: PlayerId, moves: Sequence[Command], texts: Texts
) -> list[Row]:
    """A decision's first step: a turn's whole hand (a card that cannot be played now is
    marked, and pressing it says why), pass, discard to remove; a gold pick; a victim."""
    if not moves:
        return []
    first = moves[0]
    if isinstance(first, PickGold):
        values = sorted((m.value for m in moves if isinstance(m, PickGold)), reverse=True)
        return [
            [Button(texts.t("turn.gold_pick_button", count=v), Press(GOLD, value=v))]
            for v in values
        ]
    if isinstance(first, ChooseTheftVictim):
        buttons = [
            Button(state.names.get(m.victim, "?"), Press(THEFT, player=m.victim))
            for m in moves
            if isinstance(m, ChooseTheftVictim)
        ]
        return _chunks(buttons, 2)
    can_play = playable(moves)
    buttons = [
        _card_button(state, player, card_id, moves, texts)
        if card_id in can_play
        else Button(
            f"{UNPLAYABLE} {texts.card_name(state.edition, card_id)}", Press(CARD, card=card_id)
        )
        for card_id in hand_positions(state, player)
    ]
    rows = _chunks(buttons, 2)
    extra: Row = []
    if any(isinstance(m, Pass) for m in moves):
        extra.append(Button(texts.t("turn.button_pass"), Press(PASS_MENU, value=0)))
    removes = _remove_kinds(state, player, moves)
    if removes:
        # One card in front: nothing to choose, straight to the two cards to discard.
        page = 1 + front_kinds(state, player).index(removes[0]) if len(removes) == 1 else 0
        extra.append(
            Button(texts.t("turn.button_discard_remove"), Press(REMOVE_MENU, page=page, value=0))
        )
    if extra:
        rows.append(extra)
    rows.append(legend_row(texts))
    return rows


def _card_button(
    state: GameState, player: PlayerId, card_id: int, moves: Sequence[Command], texts: Texts
) -> Button:
    """A playable card: a second step to choose where or on whom — unless an action has
    one target only, which the card's button then plays at once (no needless choice)."""
    name = texts.card_name(state.edition, card_id)
    actions = [m for m in moves if isinstance(m, PlayAction) and m.card == card_id]
    if len(actions) == 1 and not any(isinstance(m, PlacePath) and m.card == card_id for m in moves):
        move = actions[0]
        target = _action_label(state, move, {}, texts, player)
        return Button(texts.t("turn.play_on", card=name, target=target), _action_press(move))
    return Button(name, Press(CARD, card=card_id))


def unplayable_reason(state: GameState, player: PlayerId, card_id: int) -> str:
    """The catalog key saying why ``card_id`` cannot be played now."""
    played = card(state.edition, card_id)
    if played.path is not None:
        if tools_broken(state, player):
            return "error.tools_broken"
        if "trapped" in state.front_of(player):
            return "error.player_trapped"
        return "why.no_place"
    action = played.action
    if action is None:
        return "error.wrong_card_type"
    if action.value.startswith("broken_"):
        return "why.no_break_target"
    if action.value.startswith("repair_"):
        return "why.nothing_to_repair"
    reasons = {
        Action.ROCKFALL: "why.nothing_to_destroy",
        Action.MAP: "why.no_goal_left",
        Action.THEFT: "why.theft_lies",
        Action.HANDS_OFF: "why.no_theft",
        Action.FREE_AT_LAST: "why.nobody_trapped",
        Action.TRAPPED: "why.nobody_to_trap",
    }
    return reasons.get(action, "error.invalid_target")


def card_rows(
    state: GameState, moves: Sequence[Command], card_id: int, texts: Texts, player: PlayerId
) -> tuple[list[Row], dict[Cell, str]]:
    """Second step: where (and how) the picked card may go, with the letters to draw on
    the preview image. A card that looks the same turned 180° gets one button per cell."""
    back: Row = [Button(texts.t("turn.button_back"), Press(MENU))]
    placements = [
        (m.cell, m.rotated) for m in moves if isinstance(m, PlacePath) and m.card == card_id
    ]
    if placements:
        labels = cell_labels(c for c, _ in placements)
        kind = card(state.edition, card_id).kind
        if is_symmetric(kind):
            placements = sorted(
                {(c, False) if (c, False) in placements else (c, r) for c, r in placements}
            )
        buttons = [
            Button(
                placement_label(labels[cell], kind, rotated),
                Press(PLACE, card=card_id, cell=cell, rotated=rotated),
            )
            for cell, rotated in sorted(placements, key=lambda p: (labels[p[0]], p[1]))
        ]
        return [*_chunks(buttons, 4), back], labels
    actions = [m for m in moves if isinstance(m, PlayAction) and m.card == card_id]
    cells = [m.target_cell for m in actions if m.target_cell is not None]
    labels = {} if all(c in GOAL_NAMES for c in cells) else cell_labels(cells)
    buttons = [
        Button(_action_label(state, m, labels, texts, player), _action_press(m)) for m in actions
    ]
    return [*_chunks(buttons, 6 if labels else 2), back], labels


def placement_label(letter: str, kind: str, rotated: bool) -> str:
    """A placement button: the cell's letter and the card as it will lie (↻ when it is
    turned: the preview draws the card both ways, the turned one under a ↻).

    >>> placement_label("A", "t_nse", False), placement_label("A", "t_nse", True)
    ('A ├', 'A ┤ ↻')
    >>> placement_label("B", "bridge", False), placement_label("C", "double_curve_b", False)
    ('B ╬', 'C └┐')
    """
    glyph = card_shape(kind, rotated)
    return f"{letter} {glyph} ↻" if rotated else f"{letter} {glyph}"


def _action_label(
    state: GameState,
    move: PlayAction,
    labels: dict[Cell, str],
    texts: Texts,
    player: PlayerId,
) -> str:
    if move.target_cell is not None:
        cell = move.target_cell
        if cell in labels:
            return labels[cell]
        if cell in GOAL_NAMES:
            return texts.t(GOAL_NAMES[cell])
        # A card in the maze with no letter on a preview (the card's one target, played
        # from the hand's own button): the card there and its coordinates.
        tile = state.board.get(cell)
        lying = texts.kind_name(tile.kind, tile.rotated) if tile is not None else "?"
        return texts.t("turn.target_cell", card=lying, cell=cell_text(cell))
    if move.target_player == player:
        name = texts.t("turn.yourself")
    else:
        name = state.names.get(move.target_player, "?") if move.target_player is not None else "?"
    # The tool only where the card leaves a choice (a repair of one of two tools).
    action = card(state.edition, move.card).action
    tools = [t for t in Tool if action is not None and t.value in action.value]
    if move.tool is not None and len(tools) > 1:
        return texts.t("turn.target_tool", name=name, tool=texts.tool_name(move.tool.value))
    return name


def _action_press(move: PlayAction) -> Press:
    return Press(
        ACT,
        card=move.card,
        cell=move.target_cell,
        player=move.target_player,
        tool=move.tool.value if move.tool is not None else None,
    )


def pass_rows(
    state: GameState, player: PlayerId, moves: Sequence[Command], mask: int, texts: Texts
) -> list[Row]:
    """Pass: base discards exactly one card (one press); saboteur2 toggles 1 to 3."""
    hand = hand_positions(state, player)
    passes = {m.cards for m in moves if isinstance(m, Pass)}
    back: Row = [Button(texts.t("turn.button_back"), Press(MENU))]
    if state.edition == "base":
        buttons = [
            Button(texts.card_name(state.edition, c), Press(PASS, value=1 << i))
            for i, c in enumerate(hand)
            if (c,) in passes
        ]
        return [*_chunks(buttons, 2), back]
    toggles = [
        Button(
            _toggled(mask, i, texts.card_name(state.edition, c)),
            Press(PASS_MENU, value=mask ^ 1 << i),
        )
        for i, c in enumerate(hand)
    ]
    rows = _chunks(toggles, 2)
    chosen = cards_of_mask(state, player, mask)
    if chosen in passes:
        rows.append([Button(texts.t("turn.button_confirm"), Press(PASS, value=mask))])
    rows.append(back)
    return rows


def _toggled(mask: int, index: int, name: str) -> str:
    return f"✅ {name}" if mask >> index & 1 else name


def front_kinds(state: GameState, player: PlayerId) -> tuple[str, ...]:
    return tuple(dict.fromkeys(state.front_of(player)))


def _remove_kinds(state: GameState, player: PlayerId, moves: Sequence[Command]) -> list[str]:
    kinds = {m.removed for m in moves if isinstance(m, DiscardToRemove)}
    return [k for k in front_kinds(state, player) if k in kinds]


def remove_rows(
    state: GameState,
    player: PlayerId,
    moves: Sequence[Command],
    page: int,
    mask: int,
    texts: Texts,
) -> list[Row]:
    """saboteur2: first the card in front of you (page 0; skipped when there is one),
    then the two to discard."""
    kinds = front_kinds(state, player)
    back: Row = [Button(texts.t("turn.button_back"), Press(MENU))]
    options = {(m.removed, m.cards) for m in moves if isinstance(m, DiscardToRemove)}
    if page <= 0 or page > len(kinds):
        buttons = [
            Button(texts.front_name(kind), Press(REMOVE_MENU, page=i + 1, value=0))
            for i, kind in enumerate(kinds)
            if any(k == kind for k, _ in options)
        ]
        return [*_chunks(buttons, 2), back]
    hand = hand_positions(state, player)
    toggles = [
        Button(
            _toggled(mask, i, texts.card_name(state.edition, c)),
            Press(REMOVE_MENU, page=page, value=mask ^ 1 << i),
        )
        for i, c in enumerate(hand)
    ]
    rows = _chunks(toggles, 2)
    chosen = cards_of_mask(state, player, mask)
    if (kinds[page - 1], chosen) in options:
        rows.append(
            [Button(texts.t("turn.button_confirm"), Press(REMOVE, page=page - 1, value=mask))]
        )
    rows.append(back)
    return rows


# ---------------------------------------------------------------- presses to commands


class BadPress(ValueError):
    """A press whose arguments make no command (forged, or drawn for another hand)."""


def command_for(state: GameState, player: PlayerId, press: Press) -> Command:
    """The domain command a final press stands for. Raises :class:`BadPress`."""
    card_id, cell, value, page = press.card, press.cell, press.value, press.page
    try:
        match press.action:
            case "p" if card_id is not None and cell is not None:
                return PlacePath(player, card_id, cell, press.rotated)
            case "a" if card_id is not None:
                return PlayAction(
                    player,
                    card_id,
                    target_player=press.player,
                    target_cell=cell,
                    tool=Tool(press.tool) if press.tool is not None else None,
                )
            case "sp" if value is not None:
                return Pass(player, cards_of_mask(state, player, value))
            case "rr" if value is not None and page is not None:
                cards = cards_of_mask(state, player, value)
                if len(cards) != 2:
                    raise BadPress("two cards")
                kind = front_kinds(state, player)[page]
                return DiscardToRemove(player, (cards[0], cards[1]), kind)
            case "gp" if value is not None:
                return PickGold(player, value)
            case "th" if press.player is not None:
                return ChooseTheftVictim(player, press.player)
    except (ValueError, IndexError) as error:
        raise BadPress(str(error)) from error
    raise BadPress(press.action)


def is_path_card(state: GameState, card_id: int) -> bool:
    try:
        return card(state.edition, card_id).path is not None
    except IndexError:
        return False
