"""The board picture as a reader sees it, and the group's board caption."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

from domain.board import Cell, Tile
from domain.cards import card
from domain.state import GameState, PlayerId
from domain.view import View, view_for
from tgbot.presenter.audience import Audience, Table
from tgbot.presenter.caption import deadline_line, fit_caption
from tgbot.presenter.icons import FRONT, Icon
from tgbot.presenter.messages import HandCard, Picture
from tgbot.presenter.texts import Texts, mention, name_html
from tgbot.presenter.variants import variants_line

BOARD_MOVES: Final = 24  # move lines a board caption shows at most (as many as fit)
# Whom the group waits for, and for what (a round's end: a gold pick, a theft).
WAITING: Final = {
    "turn": "turn.prompt_group",
    "gold_pick": "turn.waiting_gold_pick",
    "theft": "turn.waiting_theft",
}


def picture(
    view: View,
    labels: Mapping[Cell, str] | None = None,
    orientations: str | None = None,
    hand: Sequence[HandCard] = (),
) -> Picture:
    """The board as ``view`` shows it: goals face up once the round ended, ``labels`` on
    cells (else the last move framed), goals the viewer mapped peeked at, a path card's
    two ``orientations`` below (a placement preview) and the viewer's ``hand``."""
    tiles = dict(view.board)
    for cell, kind in view.revealed_goals.items():
        tiles[cell] = Tile(kind)
    last = view.last_move.cell if view.last_move is not None else None
    return Picture(
        board=tuple(sorted(tiles.items())),
        marks=tuple(sorted(labels.items())) if labels else (),
        last=None if labels else last,
        peeks=tuple(sorted(view.known_goals.items())),
        orientations=orientations,
        hand=tuple(hand),
    )


def hand_cards(
    state: GameState, player: PlayerId, texts: Texts, playable: set[int] | None = None
) -> list[HandCard]:
    """The player's hand as small cards, an action card labelled with its name
    (``playable``: the cards they may play now, the others drawn greyed; None: all alike)."""
    view = view_for(state, player)
    found = [card(state.edition, c) for c in sorted(view.hand)]
    return [
        HandCard(
            c.kind,
            "" if c.path is not None else texts.kind_name(c.kind),
            playable is None or c.id in playable,
        )
        for c in found
    ]


def seat_lines(view: View) -> list[str]:
    """One line per seat: name, cards in hand, what lies in front, gold (Saboteur 2:
    whether they have any), away, a person's seat the computer plays now."""
    lines = []
    for seat in view.seats:
        marks = [FRONT.get(k, "") for k in seat.front]
        if seat.has_gold:
            marks.append(Icon.GOLD.emoji)
        if seat.away:
            marks.append(Icon.AWAY.emoji)
        if seat.handed_over is not None:
            marks.append(Icon.COMPUTER.emoji)
        text = f"• {name_html(seat.name)} {Icon.CARDS.emoji}{seat.hand_count} {' '.join(marks)}"
        lines.append(text.rstrip())
    return lines


def caption(
    state: GameState, audience: Audience, table: Table, moves: Sequence[str], by_name: str = ""
) -> str:
    """The group's board caption: whose decision it is and until when — or that the
    round, the game is over or the game was cancelled — the round, the last moves, the
    seats."""
    texts = audience.texts
    view = view_for(state, None)
    status: list[str] = []
    pending = view.pending
    if state.phase == "cancelled":
        who = by_name or (state.names.get(state.creator, "?") if state.creator else "?")
        status.append(
            f"{Icon.CANCELLED.emoji} {texts.t('bot.board_cancelled', name=name_html(who))}"
        )
    elif state.phase == "finished":
        status.append(f"{Icon.ROUND_END.emoji} {texts.t('bot.board_game_over')}")
    elif pending is None or pending.kind != "turn":
        status.append(f"{Icon.ROUND_END.emoji} {texts.t('bot.board_round_over')}")
    if state.phase == "playing" and pending is not None:
        name = state.names.get(pending.player, "?")
        # The computer plays the seat (a computer player's, or a person's handed over):
        # nobody reads the call, and it does not take the turn's minutes.
        computer = pending.computer or state.computer_plays(pending.player)
        # A person is mentioned (it notifies them); a computer player has no account.
        who = name_html(name) if computer else mention(pending.player, name)
        key = WAITING.get(pending.kind, "turn.waiting")
        if computer and pending.kind == "turn":
            key = "turn.waiting"  # it reads nothing: the group is told whom it waits for
        status.append(texts.t(key, name=who))  # the mention first: it notifies them
        if not computer:
            status.append(deadline_line(audience, pending.deadline, table.now_ms))
    head = [texts.t("turn.round_pile", round=view.round, count=view.draw_pile)]
    if view.variants:  # the variants played stay in sight (docs/rules.md §8)
        head.append(variants_line(view.variants, texts, len(view.seats)))
    shown = list(moves[-BOARD_MOVES:])
    seats = seat_lines(view)
    lines = [*status, *head, *shown, "", *seats]
    # Who is on turn and until when come first and stay; too long, the older moves
    # go first, then the seats from the last, then the last move.
    first_move = len(status) + len(head)
    first_seat = first_move + len(shown) + 1
    drop = [
        *range(first_move, first_move + len(shown) - 1),
        *reversed(range(first_seat, first_seat + len(seats))),
        *range(first_move + len(shown) - 1, first_move + len(shown)),
    ]
    return fit_caption(lines, drop)
