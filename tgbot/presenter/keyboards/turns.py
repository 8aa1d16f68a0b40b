"""A player's private prompt, drawn only from :func:`domain.moves.legal_moves`: the hand's
cards, where a card may go, the pass and the remove-a-card choices, and the presses that
end a decision turned back into the domain command they stand for (:func:`command_for`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

from domain.board import GOAL_CELLS, MIDDLE_TREASURE_CELLS, Cell
from domain.cards import Action, Tool, card
from domain.commands import (
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
from tgbot.presenter.keyboards.buttons import (
    ACT,
    CARD,
    GOLD,
    LEGEND,
    MENU,
    PASS,
    PASS_MENU,
    PLACE,
    REMOVE,
    REMOVE_MENU,
    THEFT,
    Button,
    Press,
    Row,
    _chunks,
)
from tgbot.presenter.texts import Texts, card_shape, cell_text, is_symmetric

GOAL_NAMES: Final = {
    GOAL_CELLS[0]: "bot.goal_top",
    GOAL_CELLS[1]: "bot.goal_middle",
    MIDDLE_TREASURE_CELLS[1]: "bot.goal_middle",  # the middle treasure variant's
    GOAL_CELLS[2]: "bot.goal_bottom",
}
LABELS: Final = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
UNPLAYABLE: Final = "🚫"  # marks a card that cannot be played now (see icons.LEGEND)


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
