"""Dealing a round (docs/rules.md §3.1): the dwarf cards, the hands, the draw pile and
the goals, shuffled from the command's seed, then the first player's turn opens.
"""

from __future__ import annotations

from domain import rng
from domain.cards import EXPANSION_SET_ASIDE, GOALS, deck, dwarf_cards, hand_size
from domain.decide.base import SEED_DECK, SEED_DWARVES, SEED_GOALS, Log, open_decision
from domain.events import RoundStarted
from domain.state import PlayerId


def deal_round(log: Log, number: int, first: PlayerId, at: int, seed: int) -> None:
    state = log.state
    edition = state.edition
    seating = state.seating
    players = len(seating)
    dwarves = rng.shuffle(
        dwarf_cards(edition, players, state.variants), rng.derive(seed, SEED_DWARVES)
    )
    cards = rng.shuffle(range(len(deck(edition))), rng.derive(seed, SEED_DECK))
    goals = rng.shuffle(tuple(g.kind for g in GOALS), rng.derive(seed, SEED_GOALS))
    set_aside: tuple[int, ...] = ()
    if edition == "saboteur2":
        set_aside, cards = cards[:EXPANSION_SET_ASIDE], cards[EXPANSION_SET_ASIDE:]
    size = hand_size(edition, players)
    hands = tuple((p, cards[i * size : (i + 1) * size]) for i, p in enumerate(seating))
    log.emit(
        RoundStarted(
            round=number,
            roles=tuple((p, dwarves[i].value) for i, p in enumerate(seating)),
            dwarf_pile=tuple(r.value for r in dwarves[players:]),
            hands=hands,
            draw_pile=cards[players * size :],
            set_aside=set_aside,
            goals=(goals[0], goals[1], goals[2]),
            first_player=first,
        )
    )
    open_decision(log, first, "turn", at)
