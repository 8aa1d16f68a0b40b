"""One event as one reader learns it: who reads, what they may know, and how things are
named for them (:mod:`tgbot.presenter.narration` tells events through it)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from domain.board import GOAL_CELLS, MIDDLE_TREASURE_CELLS, Cell
from domain.state import PlayerId
from domain.view import View
from tgbot.presenter.texts import Texts, cell_text, name_html

GOAL_PLACES = {
    GOAL_CELLS[0]: "goal.top",
    GOAL_CELLS[1]: "goal.middle",
    MIDDLE_TREASURE_CELLS[1]: "goal.middle",  # the middle treasure variant's
    GOAL_CELLS[2]: "goal.bottom",
}


@dataclass(frozen=True, slots=True)
class Scene:
    """One event as one reader learns it."""

    texts: Texts
    viewer: PlayerId | None  # None: the group (the public)
    edition: str
    names: Mapping[PlayerId, str]
    after: View  # the reader's view once the event is applied
    full: bool = False  # a finished game's replay: every secret, roles beside names
    roles: Mapping[PlayerId, str] = field(default_factory=dict)  # full: roles before it
    by_name: str = ""  # who really pressed, when not the player named (an admin)

    def sees(self, player: PlayerId | None) -> bool:
        """Whether this reader may know what only ``player`` knows."""
        return self.full or (player is not None and player == self.viewer)

    def name(self, player: PlayerId | None) -> str:
        return name_html(self.names.get(player, "?")) if player is not None else "?"

    def actor(self, player: PlayerId) -> str:
        """The player who acts; in a replay, with the dwarf card they held."""
        role = self.roles.get(player) if self.full else None
        if role is None:
            return self.name(player)
        return self.texts.t("story.actor", name=self.name(player), role=self.role(role))

    def names_of(self, players: Iterable[PlayerId]) -> str:
        named = [self.name(p) for p in players]
        return ", ".join(named) if named else self.texts.t("story.nobody")

    def role(self, role: str) -> str:
        return self.texts.role_name(role)

    def card(self, card_id: int, rotated: bool = False) -> str:
        return self.texts.card_name(self.edition, card_id, rotated)

    def cards(self, ids: Iterable[int]) -> str:
        named = [self.card(c) for c in ids]
        return ", ".join(named) if named else self.texts.t("story.none")

    def goal(self, cell: Cell) -> str:
        """A goal card by its place: ``the top goal (8,2)``."""
        where = self.texts.t(GOAL_PLACES.get(cell, "goal.middle"))
        return self.texts.t("goal.at", place=where, cell=cell_text(cell))
