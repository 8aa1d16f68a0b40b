"""``decide`` when a deadline comes (docs/rules.md §7.1–§7.3): a reminder, or the
decision made by default, and a player who timed out too often in a row is away.
"""

from __future__ import annotations

from typing import Final, assert_never

from domain import rng
from domain.commands import REMINDERS, RemindPlayer, TimeOut
from domain.decide.base import SEED_DEFAULT, Log, emitted
from domain.decide.round_end import next_pick, next_theft
from domain.decide.turn import after_turn
from domain.events import (
    CardsDiscarded,
    DecisionTimedOut,
    GoldPicked,
    PlayerReminded,
    PlayerWentAway,
    SeatHandedOver,
    TheftResolved,
)
from domain.queries import pick_values, theft_victims
from domain.state import GameState

AWAY_AFTER: Final = 3  # timeouts in a row (docs/rules.md §7.3)


def time_out(state: GameState, cmd: TimeOut, at: int, seed: int) -> Log:
    pending = state.pending
    if state.phase != "playing" or pending is None or pending.id != cmd.decision:
        return Log(state)  # already decided: a stale deadline decides nothing
    player = pending.player
    log = Log(state)
    log.emit(DecisionTimedOut(pending.id, player))
    if (
        log.state.timeouts_in_a_row.get(player, 0) >= AWAY_AFTER
        and player not in state.away
        and not pending.computer
    ):
        log.emit(PlayerWentAway(player))
        if state.away_play == "computer":
            log.emit(SeatHandedOver(player, "away"))
    default = rng.derive(seed, SEED_DEFAULT)  # which card, nugget or victim by default
    match pending.kind:
        case "turn":
            discarded = rng.choice(state.hand(player), default)
            log.emit(CardsDiscarded(player, (discarded,)))
            after_turn(log, player, 1, at, seed)
        case "gold_pick":
            log.emit(GoldPicked(player, rng.choice(pick_values(state), default)))
            next_pick(log, at, seed)
        case "theft":
            log.emit(TheftResolved(player, rng.choice(theft_victims(state, player), default)))
            next_theft(log, at, seed)
        case _:
            assert_never(pending.kind)
    return log


def remind(state: GameState, cmd: RemindPlayer) -> Log:
    pending = state.pending
    if (
        state.phase != "playing"
        or pending is None
        or pending.id != cmd.decision
        or cmd.which not in REMINDERS
        or cmd.which in state.reminders
        or pending.player in state.away
        or pending.computer
    ):
        return Log(state)
    return emitted(state, PlayerReminded(pending.id, pending.player, cmd.which))
