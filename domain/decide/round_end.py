"""``decide`` at a round's end (docs/rules.md §3.3, §3.4, §6): the roles shown, the gold
shared out, the nugget picks (§7.6) and the thefts (§6.3) that follow, then the next
round's deal or the game's end.
"""

from __future__ import annotations

from typing import Final

from domain import board as geo
from domain import errors, scoring
from domain.cards import Role, is_gold_digger
from domain.commands import ChooseTheftVictim, PickGold
from domain.decide.base import Log, acting, open_decision, require_decision
from domain.decide.deal import deal_round
from domain.events import (
    GameEnded,
    GoldPaid,
    GoldPicked,
    GoldPickStarted,
    RoundEnded,
    TheftResolved,
    TheftsStarted,
)
from domain.queries import pick_values, theft_victims, tools_broken, trapped_players
from domain.state import GameState, PlayerId

ROUNDS: Final = 3
SELFISH_KEEPS: Final = 2  # nugget cards the selfish dwarf keeps (docs/rules.md §8)


def end_round(log: Log, reached_by: PlayerId | None, at: int, seed: int) -> None:
    state = log.state
    seating = state.seating
    roles = state.roles
    reached = state.treasure_reached_by is not None or reached_by is not None
    revealed = tuple((p, roles[p].value) for p in seating)
    if state.edition == "base":
        end_base_round(log, reached, reached_by, at, seed)
        return
    trapped = trapped_players(state)
    blue, green = geo.teams_can_pass(state.board) if reached else (False, False)
    result = scoring.saboteur2_round(
        seating, roles, trapped, reached, reached_by, blue, green, geo.crystals(state.board)
    )
    log.emit(RoundEnded(state.round, reached, reached_by, revealed, tuple(result.winners)))
    payouts = tuple((p, amount) for p, amount in result.payouts if amount > 0)
    if payouts:
        log.emit(GoldPaid(payouts))
    order = tuple(scoring.theft_order(seating, state.thefts, trapped))
    if order:
        log.emit(TheftsStarted(order))
    next_theft(log, at, seed)


def end_base_round(
    log: Log, reached: bool, reached_by: PlayerId | None, at: int, seed: int
) -> None:
    """A base round's end (docs/rules.md §6.1), with the variants of §8: the *greedy dwarf*
    pays only gold-diggers with no broken tool, the *selfish dwarf* takes the gold alone
    when he reached the treasure and nothing otherwise."""
    state = log.state
    seating = state.seating
    roles = state.roles
    revealed = tuple((p, roles[p].value) for p in seating)
    spare = tuple(r.value for r in state.dwarf_pile)
    if not reached:
        winners = tuple(scoring.base_round_winners(seating, roles, reached))
        log.emit(RoundEnded(state.round, reached, reached_by, revealed, winners, spare))
        saboteurs = [p for p in seating if roles[p] is Role.SABOTEUR]
        if saboteurs:
            share = scoring.base_saboteur_share(len(saboteurs))
            pile = state.nugget_pile
            paid: list[tuple[PlayerId, tuple[int, ...]]] = []
            for p in saboteurs:
                taken, pile = scoring.take_nuggets(pile, share)
                paid.append((p, tuple(taken)))
            log.emit(
                GoldPaid(
                    tuple((p, sum(cards)) for p, cards in paid),
                    nuggets=tuple(paid),
                    nugget_pile=tuple(pile),
                )
            )
        finish_round(log, at, seed)
        return
    if (
        state.has("selfish_dwarf")
        and reached_by is not None
        and roles[reached_by] is Role.SELFISH_DWARF
    ):
        # He alone is paid: as many cards as there are gold-diggers, the best two kept.
        diggers = sum(1 for p in seating if is_gold_digger(roles[p]))
        count = scoring.base_nuggets_to_draw(len(seating), diggers, state.gold_house_rule)
        kept, rest = scoring.best_nuggets(state.nugget_pile[:count], SELFISH_KEEPS)
        log.emit(RoundEnded(state.round, reached, reached_by, revealed, (reached_by,), spare))
        log.emit(
            GoldPaid(
                ((reached_by, sum(kept)),),
                nuggets=((reached_by, kept),),
                nugget_pile=state.nugget_pile[count:] + rest,
            )
        )
        finish_round(log, at, seed)
        return
    broken = frozenset(p for p in seating if tools_broken(state, p))
    sharers = scoring.base_treasure_sharers(
        seating, roles, broken if state.has("greedy_dwarf") else frozenset()
    )
    log.emit(RoundEnded(state.round, reached, reached_by, revealed, sharers, spare))
    if reached_by is not None and sharers:
        count = scoring.base_nuggets_to_draw(len(seating), len(sharers), state.gold_house_rule)
        nuggets = state.nugget_pile[:count]
        picks = scoring.base_house_rule_pick_order(
            seating, roles, reached_by, len(nuggets), frozenset(sharers)
        )
        if picks:
            log.emit(GoldPickStarted(nuggets, picks))
    next_pick(log, at, seed)


def next_pick(log: Log, at: int, seed: int) -> None:
    while log.state.gold_pick_order:
        state = log.state
        picker = state.gold_pick_order[0]
        values = pick_values(state)
        if len(values) > 1 and state.gold_pick == "manual":
            open_decision(log, picker, "gold_pick", at)
            return
        # No choice left, or the automatic pick (§7.1, §7.6): the largest nugget, taken at once.
        log.emit(GoldPicked(picker, values[-1]))
    finish_round(log, at, seed)


def next_theft(log: Log, at: int, seed: int) -> None:
    while log.state.thieves_pending:
        state = log.state
        thief = state.thieves_pending[0]
        victims = theft_victims(state, thief)
        if len(victims) > 1:
            open_decision(log, thief, "theft", at)
            return
        log.emit(TheftResolved(thief, victims[0] if victims else None))  # no choice
    finish_round(log, at, seed)


def finish_round(log: Log, at: int, seed: int) -> None:
    state = log.state
    if state.round >= ROUNDS:
        gold = {p: state.gold.get(p, 0) for p in state.seating}
        log.emit(GameEnded(tuple(gold.items()), tuple(scoring.game_winners(gold))))
        return
    last = state.last_path_player if state.edition == "base" else state.last_card_player
    if last is None:  # nobody played such a card: go on round the table
        last = state.first_player if state.first_player is not None else state.seating[0]
    deal_round(log, state.round + 1, scoring.next_seat(state.seating, last), at, seed)


def pick_gold(
    state: GameState, cmd: PickGold, at: int, seed: int, by_computer: bool = False
) -> Log:
    require_decision(state, cmd.actor, "gold_pick", by_computer)
    if cmd.value not in state.gold_pick_offer:
        raise errors.InvalidTarget(f"no nugget of value {cmd.value} on offer")
    log = acting(state, cmd.actor, by_computer)
    log.emit(GoldPicked(cmd.actor, cmd.value))
    next_pick(log, at, seed)
    return log


def choose_victim(
    state: GameState, cmd: ChooseTheftVictim, at: int, seed: int, by_computer: bool = False
) -> Log:
    require_decision(state, cmd.actor, "theft", by_computer)
    if cmd.victim not in theft_victims(state, cmd.actor):
        raise errors.InvalidTarget(f"{cmd.victim} cannot be robbed")
    log = acting(state, cmd.actor, by_computer)
    log.emit(TheftResolved(cmd.actor, cmd.victim))
    next_theft(log, at, seed)
    return log
