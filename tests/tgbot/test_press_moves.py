"""A decision's last press becomes its move on the event loop when the button names all of
it, as the presenter's :func:`~tgbot.presenter.keyboards.command_for` makes it: the use
case is handed a command, never the presenter's code to call back (which is left only for
the buttons that name cards by their place in the hand)."""

from __future__ import annotations

import functools

import pytest

from domain.commands import PickGold, PlacePath, PlayAction
from domain.moves import legal_moves
from tests.domain.given import dealt, given
from tgbot.presenter import keyboards as kb
from tgbot.presenter.callback import CallbackData
from tgbot.telegram.handlers.callbacks import move_of


def _press(move: object) -> kb.Press:
    if isinstance(move, PlacePath):
        return kb.Press(kb.PLACE, card=move.card, cell=move.cell, rotated=move.rotated)
    assert isinstance(move, PlayAction)
    tool = move.tool.value if move.tool is not None else None
    return kb.Press(
        kb.ACT, card=move.card, cell=move.target_cell, player=move.target_player, tool=tool
    )


@pytest.mark.parametrize("edition", ["base", "saboteur2"])
def test_a_button_that_names_its_move_is_the_presenters_command_itself(edition: str) -> None:
    state = given(dealt(edition))
    player = state.pending.player  # type: ignore[union-attr]
    moves = [m for m in legal_moves(state, player) if isinstance(m, PlacePath | PlayAction)]
    assert moves
    for move in moves:
        press = _press(move)
        made = move_of(player, press.data("g1", 7))
        assert not callable(made), press
        assert made == kb.command_for(state, player, press)
    gold = kb.Press(kb.GOLD, value=3)
    assert move_of(player, gold.data("g1", 7)) == PickGold(player, 3)


def test_a_button_naming_cards_by_their_place_or_no_move_is_made_in_the_use_cases_trip() -> None:
    state = given(dealt("base"))
    player = state.pending.player  # type: ignore[union-attr]
    passing = kb.Press(kb.PASS, value=1)
    made = move_of(player, passing.data("g1", 7))
    assert isinstance(made, functools.partial)
    assert made(state) == kb.command_for(state, player, passing)
    broken = CallbackData(kb.PLACE, "g1", 7, card=3)  # no cell: no move
    made = move_of(player, broken)
    assert isinstance(made, functools.partial)
    with pytest.raises(kb.BadPress):
        made(state)
