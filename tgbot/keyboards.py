"""Inline keyboards, drawn only from :func:`domain.moves.legal_moves`.

A keyboard never offers what the rules refuse: every button that ends a decision carries
a command that ``legal_moves`` listed. Where a decision takes several presses (a card, then
a cell), the steps so far travel in the callback data itself — never in ``chat_data``.

Buttons carry a :class:`Press`; :mod:`tgbot.callback` packs it into ≤ 64 bytes with the
game id and the game version the keyboard was drawn for.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from domain.board import GOAL_CELLS, Cell
from domain.cards import Tool, card
from domain.commands import (
    ChooseTheftVictim,
    Command,
    DiscardToRemove,
    Pass,
    PickGold,
    PlacePath,
    PlayAction,
)
from domain.state import GameState, PlayerId
from infra.settings import LANGUAGES
from tgbot import texts as texts_module
from tgbot.callback import CallbackData, encode
from tgbot.texts import Texts, opening_glyph

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

MENU: Final = "m"  # back to the decision's first step
CARD: Final = "c"  # a card was picked: show where it may go
PLACE: Final = "p"  # card, cell, rotated
ACT: Final = "a"  # card, player and/or cell, tool
PASS_MENU: Final = "sm"  # value: mask of toggled hand positions
PASS: Final = "sp"  # value: mask
REMOVE_MENU: Final = "rm"  # page: 1 + front kind index (0: choose one), value: mask
REMOVE: Final = "rr"  # page: front kind index, value: mask
GOLD: Final = "gp"  # value
THEFT: Final = "th"  # player
COME_BACK: Final = "bk"  # an away player is back (any version: it never goes stale)
OPEN: Final = "vo"  # a finished game's replay, opened at its first step

LOBBY_ACTIONS: Final = frozenset(
    {JOIN, LEAVE, START, CANCEL, SETTINGS, SET_EDITION, SET_TIMER, SET_LANGUAGE, LOBBY}
)
PROMPT_ACTIONS: Final = frozenset(
    {MENU, CARD, PLACE, ACT, PASS_MENU, PASS, REMOVE_MENU, REMOVE, GOLD, THEFT}
)
COMMAND_ACTIONS: Final = frozenset({PLACE, ACT, PASS, REMOVE, GOLD, THEFT})

TIMER_PRESETS: Final = tuple(seconds for _, seconds in texts_module.TIMER_PRESETS)
EDITIONS: Final = ("base", "saboteur2")
GOAL_NAMES: Final = {
    GOAL_CELLS[0]: "bot.goal_top",
    GOAL_CELLS[1]: "bot.goal_middle",
    GOAL_CELLS[2]: "bot.goal_bottom",
}
LABELS: Final = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


@dataclass(frozen=True, slots=True)
class Press:
    """What a button asks for; with a game id and version it becomes callback data."""

    action: str
    card: int | None = None
    cell: Cell | None = None
    rotated: bool = False
    player: int | None = None
    tool: str | None = None
    page: int | None = None
    value: int | None = None

    def data(self, game: str, version: int) -> CallbackData:
        return CallbackData(
            self.action,
            game,
            version,
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


Row = list[tuple[str, Press]]


def replay_button(game_id: str, key: bytes, label: str = "🎬") -> InlineKeyboardButton:
    """A button that opens the replay of ``game_id`` (the game-over message's, /history's)."""
    return InlineKeyboardButton(label, callback_data=encode(CallbackData(OPEN, game_id, 0), key))


def markup(rows: Sequence[Row], game: str, version: int, key: bytes) -> InlineKeyboardMarkup:
    """Rows of (label, press) as Telegram's inline keyboard."""
    return InlineKeyboardMarkup(
        [
            [
                InlineKeyboardButton(text, callback_data=encode(press.data(game, version), key))
                for text, press in row
            ]
            for row in rows
        ]
    )


def _chunks(items: Sequence[tuple[str, Press]], size: int) -> list[Row]:
    return [list(items[i : i + size]) for i in range(0, len(items), size)]


# ---------------------------------------------------------------------------- lobby


def lobby_rows(texts: Texts) -> list[Row]:
    return [
        [
            (texts.t("lobby.button_join"), Press(JOIN)),
            (texts.t("lobby.button_leave"), Press(LEAVE)),
        ],
        [
            (texts.t("lobby.button_start"), Press(START)),
            (texts.t("lobby.button_settings"), Press(SETTINGS)),
        ],
        [(texts.t("lobby.button_cancel"), Press(CANCEL))],
    ]


def settings_rows(state: GameState, language: str, texts: Texts) -> list[Row]:
    def mark(on: bool, text: str) -> str:
        return f"• {text}" if on else text

    editions = [
        (mark(state.edition == e, texts.t(f"edition.{e}")), Press(SET_EDITION, value=i))
        for i, e in enumerate(EDITIONS)
    ]
    timers = [
        (mark(state.turn_seconds == s, texts.timer(s)), Press(SET_TIMER, value=i))
        for i, s in enumerate(TIMER_PRESETS)
    ]
    languages = [
        (mark(language == code, Texts(code).t("language.button")), Press(SET_LANGUAGE, value=i))
        for i, code in enumerate(LANGUAGES)
    ]
    last: Row = [
        (texts.t("turn.button_back"), Press(LOBBY)),
        (texts.t("lobby.button_join"), Press(JOIN)),
    ]
    return [editions, *_chunks(timers, 2), languages, last]


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


def root_rows(
    state: GameState, player: PlayerId, moves: Sequence[Command], texts: Texts
) -> list[Row]:
    """A decision's first step: a turn's playable cards and pass, a gold pick, a victim."""
    if not moves:
        return []
    first = moves[0]
    if isinstance(first, PickGold):
        values = [m.value for m in moves if isinstance(m, PickGold)]
        return [[(texts.t("turn.gold_pick_button", value=v), Press(GOLD, value=v)) for v in values]]
    if isinstance(first, ChooseTheftVictim):
        buttons = [
            (state.names.get(m.victim, "?"), Press(THEFT, player=m.victim))
            for m in moves
            if isinstance(m, ChooseTheftVictim)
        ]
        return _chunks(buttons, 2)
    playable = {m.card for m in moves if isinstance(m, PlacePath | PlayAction)}
    buttons = [
        (texts.card_name(state.edition, card_id), Press(CARD, card=card_id))
        for card_id in hand_positions(state, player)
        if card_id in playable
    ]
    rows = _chunks(buttons, 2)
    extra: Row = []
    if any(isinstance(m, Pass) for m in moves):
        extra.append((texts.t("turn.button_pass"), Press(PASS_MENU, value=0)))
    if any(isinstance(m, DiscardToRemove) for m in moves):
        extra.append((texts.t("turn.button_discard_remove"), Press(REMOVE_MENU, page=0, value=0)))
    if extra:
        rows.append(extra)
    return rows


def card_rows(
    state: GameState, moves: Sequence[Command], card_id: int, texts: Texts
) -> tuple[list[Row], dict[Cell, str]]:
    """Second step: where (and how) the picked card may go, with the letters to draw on
    the preview image."""
    back: Row = [(texts.t("turn.button_back"), Press(MENU))]
    placements = [
        (m.cell, m.rotated) for m in moves if isinstance(m, PlacePath) and m.card == card_id
    ]
    if placements:
        labels = cell_labels(c for c, _ in placements)
        kind = card(state.edition, card_id).kind
        buttons = [
            (
                placement_label(labels[cell], kind, rotated),
                Press(PLACE, card=card_id, cell=cell, rotated=rotated),
            )
            for cell, rotated in sorted(placements, key=lambda p: (labels[p[0]], p[1]))
        ]
        return [*_chunks(buttons, 4), back], labels
    actions = [m for m in moves if isinstance(m, PlayAction) and m.card == card_id]
    cells = [m.target_cell for m in actions if m.target_cell is not None]
    labels = {} if all(c in GOAL_NAMES for c in cells) else cell_labels(cells)
    buttons = [(_action_label(state, m, labels, texts), _action_press(m)) for m in actions]
    return [*_chunks(buttons, 6 if labels else 2), back], labels


def placement_label(letter: str, kind: str, rotated: bool) -> str:
    """A placement button: the cell's letter, where the card opens that way, and ↻ when
    it is turned — the preview draws the card both ways, the turned one under a ↻.

    >>> placement_label("A", "t_nse", False), placement_label("A", "t_nse", True)
    ('A ├', 'A ┤ ↻')
    """
    glyph = opening_glyph(kind, rotated)
    return f"{letter} {glyph} ↻" if rotated else f"{letter} {glyph}"


def _action_label(state: GameState, move: PlayAction, labels: dict[Cell, str], texts: Texts) -> str:
    if move.target_cell is not None:
        cell = move.target_cell
        return labels.get(cell) or texts.t(GOAL_NAMES.get(cell, "bot.goal_middle"))
    name = state.names.get(move.target_player, "?") if move.target_player is not None else "?"
    if move.tool is not None:
        return f"{name}: {texts.tool_name(move.tool.value)}"
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
    back: Row = [(texts.t("turn.button_back"), Press(MENU))]
    if state.edition == "base":
        buttons = [
            (texts.card_name(state.edition, c), Press(PASS, value=1 << i))
            for i, c in enumerate(hand)
            if (c,) in passes
        ]
        return [*_chunks(buttons, 2), back]
    toggles = [
        (
            _toggled(mask, i, texts.card_name(state.edition, c)),
            Press(PASS_MENU, value=mask ^ 1 << i),
        )
        for i, c in enumerate(hand)
    ]
    rows = _chunks(toggles, 2)
    chosen = cards_of_mask(state, player, mask)
    if chosen in passes:
        rows.append([(texts.t("turn.button_confirm"), Press(PASS, value=mask))])
    rows.append(back)
    return rows


def _toggled(mask: int, index: int, name: str) -> str:
    return f"✅ {name}" if mask >> index & 1 else name


def front_kinds(state: GameState, player: PlayerId) -> tuple[str, ...]:
    return tuple(dict.fromkeys(state.front_of(player)))


def remove_rows(
    state: GameState,
    player: PlayerId,
    moves: Sequence[Command],
    page: int,
    mask: int,
    texts: Texts,
) -> list[Row]:
    """saboteur2: first the card in front of you (page 0), then the two to discard."""
    kinds = front_kinds(state, player)
    back: Row = [(texts.t("turn.button_back"), Press(MENU))]
    options = {(m.removed, m.cards) for m in moves if isinstance(m, DiscardToRemove)}
    if page <= 0 or page > len(kinds):
        buttons = [
            (texts.front_name(kind), Press(REMOVE_MENU, page=i + 1, value=0))
            for i, kind in enumerate(kinds)
            if any(k == kind for k, _ in options)
        ]
        return [*_chunks(buttons, 2), back]
    hand = hand_positions(state, player)
    toggles = [
        (
            _toggled(mask, i, texts.card_name(state.edition, c)),
            Press(REMOVE_MENU, page=page, value=mask ^ 1 << i),
        )
        for i, c in enumerate(hand)
    ]
    rows = _chunks(toggles, 2)
    chosen = cards_of_mask(state, player, mask)
    if (kinds[page - 1], chosen) in options:
        rows.append([(texts.t("turn.button_confirm"), Press(REMOVE, page=page - 1, value=mask))])
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
