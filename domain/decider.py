"""The rules engine's former home, while its callers move to :mod:`domain.decide`,
:mod:`domain.evolve` and :mod:`domain.queries`."""

from __future__ import annotations

from domain.commands import AWAY_PLAY, GOLD_PICKS, REMINDERS, TURN_SECONDS
from domain.decide import decide, execute
from domain.decide.deadlines import AWAY_AFTER
from domain.decide.lobby import COMPUTER_MARK, COMPUTER_NAMES, computer_name
from domain.decide.round_end import ROUNDS, SELFISH_KEEPS
from domain.evolve import evolve, fold, initial_state
from domain.queries import (
    Target,
    action_targets,
    is_path,
    is_terminal,
    pick_values,
    theft_victims,
    tools_broken,
    trapped_players,
)

__all__ = [
    "AWAY_AFTER",
    "AWAY_PLAY",
    "COMPUTER_MARK",
    "COMPUTER_NAMES",
    "GOLD_PICKS",
    "REMINDERS",
    "ROUNDS",
    "SELFISH_KEEPS",
    "TURN_SECONDS",
    "Target",
    "action_targets",
    "computer_name",
    "decide",
    "evolve",
    "execute",
    "fold",
    "initial_state",
    "is_path",
    "is_terminal",
    "pick_values",
    "theft_victims",
    "tools_broken",
    "trapped_players",
]
