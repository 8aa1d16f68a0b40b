"""The hard computer player: a determinized search over what its seat cannot see.

Where the normal strategy's estimate is least sure of itself (the last cards before a
goal, rockfalls, breaks and traps: which player to stop), the hard player looks ahead.
It samples worlds consistent with its seat's view: the other hands and the draw pile
from the cards it has not seen, the others' dwarves weighted by the suspicion model, the
treasure among the goals it has not mapped by the seat's odds. In every world it plays
each of the normal strategy's few best moves through :func:`domain.decide.execute`, then
a few plies more with the normal strategy in every seat (as each of them sees that
world), and scores what is left for its own side: the round won or lost, else the chance
that the tunnel reaches the treasure from where it is with the cards left. The move with
the best mean over the worlds is played (the normal strategy's own choice unless another
beats it by a margin). Everything is seeded, and the budget is counted in plies, not
time: the same seed makes the same decision on any machine.

The worlds are built from the view and the round's public memory alone, so two games
that differ only in what the seat cannot see get the same decision.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from typing import Final

from domain import board as geo
from domain import rng
from domain.cards import Door, Role, card, deck, dwarf_cards, nugget_cards
from domain.commands import Command, Envelope, PlacePath, PlayAction
from domain.decide import execute
from domain.errors import DomainError
from domain.events import Event, RoundEnded
from domain.moves import decision_moves
from domain.state import GameState, PlayerId, frozen_map
from domain.strategy.maze import Maze
from domain.strategy.memory import CAP, Memory
from domain.strategy.player import BLOCKS, _Seat, _seat, ranked
from domain.strategy.values import card_family
from domain.view import View, describe, view_for

WORLDS: Final = 4  # worlds sampled per decision searched
CANDIDATES: Final = 3  # the normal strategy's best moves, searched
PLIES: Final = 3  # plies played after the move, at most (fewer at a small table)
NEAR: Final = 3.0  # the expected distance to the treasure within which a turn is searched
MARGIN: Final = 0.03  # what another move must gain over the normal choice, per world
PACE: Final = 0.1  # cards of distance the cards left are worth, in the estimate
SEARCHED: Final = frozenset(
    {Role.GOLD_DIGGER, Role.BLUE_DIGGER, Role.GREEN_DIGGER, Role.BOSS, Role.SABOTEUR}
)
DIGGERS: Final = frozenset({Role.GOLD_DIGGER, Role.BLUE_DIGGER, Role.GREEN_DIGGER, Role.BOSS})
STOPS: Final = frozenset({"broken_pickaxe", "broken_lantern", "broken_cart", "trapped"})
TREASURE: Final = "goal_treasure"
GOAL_KINDS: Final = ("goal_treasure", "goal_stone_a", "goal_stone_b")
_OTHER: Final = {Door.BLUE: Door.GREEN, Door.GREEN: Door.BLUE}


def choose_hard(view: View, memory: Memory, moves: Sequence[Command], seed: int) -> Command:
    """The hard player's move, one of ``moves`` (the seat's legal moves)."""
    if not moves:
        raise ValueError("no move to choose from")
    if len(moves) == 1:
        return moves[0]
    order = ranked(view, memory, moves, seed)
    candidates = [moves[i] for _, i in order[:CANDIDATES]]
    pending = view.pending
    role = Role(view.role) if view.role is not None else None
    if pending is None or pending.kind != "turn" or role not in SEARCHED:
        return candidates[0]
    seat = _seat(view, memory)
    if not _worth_searching(seat, candidates):
        return candidates[0]
    numbers = rng.stream(rng.derive(seed, 29))
    totals = [0.0] * len(candidates)
    plies = min(PLIES, len(seat.seating) - 1)
    for _ in range(WORLDS):
        world = _world(view, memory, seat, next(numbers))
        rollout_seed = next(numbers)  # the same play after each move: only the move differs
        for index, move in enumerate(candidates):
            totals[index] += _rollout(world, memory, move, seat, rollout_seed, plies)
    bonus = [MARGIN * WORLDS if i == 0 else 0.0 for i in range(len(candidates))]
    best = max(range(len(candidates)), key=lambda i: (totals[i] + bonus[i], -i))
    return candidates[best]


def _worth_searching(seat: _Seat, candidates: Sequence[Command]) -> bool:
    """Near the treasure, or with a block or a harm among the best moves."""
    if seat.expected <= NEAR:
        return True
    for move in candidates:
        if isinstance(move, PlayAction | PlacePath):
            family = card_family(card(seat.edition, move.card))
            if family in BLOCKS and family != "dead_end":
                return True
    return False


# ------------------------------------------------------------------------- the worlds


def _world(view: View, memory: Memory, seat: _Seat, seed: int) -> GameState:
    """A game consistent with what the seat knows, its hidden parts drawn by ``seed``."""
    numbers = rng.stream(seed)
    edition = seat.edition
    me = seat.me
    seating = seat.seating
    board = dict(view.board)
    goals = _goals(view, seat, numbers)
    for cell, kind in goals.items():
        board[cell] = geo.Tile(kind, None, False, False)
    # The cards the seat has not seen: neither on the table, nor in its hand, nor played.
    seen = {t.card for t in board.values() if t.card is not None}
    seen.update(view.hand)
    seen.update(memory.spent)
    unseen = list(rng.shuffle([c.id for c in deck(edition) if c.id not in seen], next(numbers)))
    hands: dict[PlayerId, tuple[int, ...]] = {}
    for s in view.seats:
        if s.player == me:
            hands[me] = view.hand
        else:
            hands[s.player], unseen = tuple(unseen[: s.hand_count]), unseen[s.hand_count :]
    pile, unseen = tuple(unseen[: view.draw_pile]), unseen[view.draw_pile :]
    roles, spare = _roles(view, seat, numbers)
    fronts = {s.player: s.front for s in view.seats}
    # The cards lying in front of players: any of their kind will do (only kinds matter).
    by_kind: dict[str, int] = {}
    for c in deck(edition):
        by_kind.setdefault(c.kind, c.id)
    front_cards = {p: tuple(by_kind.get(k, 0) for k in f) for p, f in fronts.items()}
    known: dict[PlayerId, Mapping[geo.Cell, str]] = {me: view.known_goals}
    true_kinds = {c: t.kind for c, t in board.items() if c in view.goal_cells}
    for player, cell in memory.maps:
        if player != me and cell in true_kinds:
            mapped = dict(known.get(player, {}))
            mapped[cell] = true_kinds[cell]
            known[player] = frozen_map(mapped)
    pending = view.pending
    return GameState(
        phase="playing",
        edition=edition,
        chat_id=-1,
        turn_seconds=view.turn_seconds,
        gold_pick=view.gold_pick,
        names=frozen_map({s.player: s.name for s in view.seats}),
        seating=seating,
        round=view.round,
        board=geo.frozen(board),
        goals=tuple(true_kinds.get(c, TREASURE) for c in view.goal_cells),
        variants=view.variants,
        goal_cells=(view.goal_cells[0], view.goal_cells[1], view.goal_cells[2]),
        hands=frozen_map(hands),
        roles=frozen_map(roles),
        draw_pile=pile,
        discards=tuple(unseen),
        dwarf_pile=spare,
        front=frozen_map(fronts),
        front_cards=frozen_map(front_cards),
        thefts=tuple(p for p in seating if "theft" in fronts.get(p, ())),
        gold=frozen_map({p: (view.gold or 0) if p == me else 0 for p in seating}),
        nugget_pile=rng.shuffle(nugget_cards(), next(numbers)) if edition == "base" else (),
        pending=pending,
        decisions_opened=pending.id if pending is not None else 0,
        known_goals=frozen_map(known),
        inspected=frozen_map({me: view.inspected}),
        last_move=view.last_move,
        first_player=seating[0],
        round_results=view.round_results,
    )


def _goals(view: View, seat: _Seat, numbers: Iterator[int]) -> dict[geo.Cell, str]:
    """What each face-down goal hides: as the seat's maps showed, the treasure elsewhere
    drawn by the seat's odds, stones in the rest."""
    down = [c for c in view.goal_cells if c in view.board and not view.board[c].face_up]
    shown = {view.board[c].kind for c in view.goal_cells if c in view.board}
    kinds = {c: view.known_goals[c] for c in down if c in view.known_goals}
    left = [k for k in GOAL_KINDS if k not in shown and k not in kinds.values()]
    open_cells = [c for c in down if c not in kinds]
    if TREASURE in left and open_cells:
        draw = next(numbers) / 2**64
        weights = [seat.treasure.get(c, 0.0) for c in open_cells]
        total = sum(weights) or 1.0
        where = open_cells[-1]
        for cell, weight in zip(open_cells, weights, strict=True):
            draw -= weight / total
            if draw < 0:
                where = cell
                break
        kinds[where] = TREASURE
        left.remove(TREASURE)
        open_cells.remove(where)
    for cell, kind in zip(open_cells, rng.shuffle(left, next(numbers)), strict=False):
        kinds[cell] = kind
    for cell in open_cells:
        kinds.setdefault(cell, GOAL_KINDS[1])
    return kinds


def _roles(
    view: View, seat: _Seat, numbers: Iterator[int]
) -> tuple[dict[PlayerId, Role], tuple[Role, ...]]:
    """Every seat's dwarf: its own, those it inspected, the others drawn from the dwarf
    cards left, each weighted by the chance the suspicion model gives it of a saboteur."""
    me = seat.me
    pool = list(dwarf_cards(seat.edition, len(seat.seating), view.variants))
    roles: dict[PlayerId, Role] = {}
    fixed = {me: view.role, **dict(view.inspected)}
    for player, role in fixed.items():
        if role is not None and Role(role) in pool:
            roles[player] = Role(role)
            pool.remove(Role(role))
    others = [p for p in rng.shuffle(seat.seating, next(numbers)) if p not in roles]
    for player in others:
        odds = seat.odds.get(player, 0.5)
        weights = [odds if r is Role.SABOTEUR else 1.0 - odds for r in pool]
        total = sum(weights)
        draw = next(numbers) / 2**64 * total
        pick = len(pool) - 1
        for index, weight in enumerate(weights):
            draw -= weight
            if draw < 0:
                pick = index
                break
        roles[player] = pool.pop(pick) if total > 0 else pool.pop()
    return roles, tuple(pool)


# --------------------------------------------------------------------------- rollouts


def _rollout(
    world: GameState, memory: Memory, move: Command, seat: _Seat, seed: int, plies: int
) -> float:
    """What ``move`` is worth to the seat in ``world``: played, then ``plies`` more by the
    normal strategy in every seat."""
    from domain.strategy.player import choose

    numbers = rng.stream(seed)
    state = world
    command = move
    for ply in range(plies + 1):
        try:
            events, state = execute(state, Envelope(command, seed=next(numbers) >> 1))
        except DomainError:
            break  # a move this world's rules refuse: judge what is left
        memory = _observed(memory, events)
        ended = next((e for e in events if isinstance(e, RoundEnded)), None)
        if ended is not None:
            return 1.0 if seat.me in ended.winners else 0.0
        pending = state.pending
        if ply == plies or pending is None or pending.kind != "turn":
            break
        player = pending.player
        command = choose(
            view_for(state, player), memory, decision_moves(state, player), next(numbers)
        )
    return _estimate(state, seat)


def _observed(memory: Memory, events: Sequence[Event]) -> Memory:
    for event in events:
        memory = memory.observe(describe(event, None))
    return memory


def _estimate(state: GameState, seat: _Seat) -> float:
    """The seat's chance of winning the round from ``state``: the tunnel's distance to the
    world's treasure against the cards the diggers free to dig have left to play."""
    treasure = next((c for c, t in state.board.items() if t.kind == TREASURE), None)
    if treasure is None or state.board[treasure].face_up:
        reached = 1.0
    else:
        door = seat.who.door
        if door is not None:
            ways = [Maze(state.board, _OTHER[door])]
        elif state.edition == "saboteur2":
            ways = [Maze(state.board, Door.GREEN), Maze(state.board, Door.BLUE)]
        else:
            ways = [Maze(state.board)]
        distance = float(min(m.distance.get(treasure, CAP) for m in ways))
        diggers = [p for p, r in state.roles.items() if r in DIGGERS]
        free = sum(1 for p in diggers if not any(k in STOPS for k in state.front_of(p)))
        share = (free + 0.5) / (len(diggers) + 0.5)
        left = len(state.draw_pile) + sum(len(h) for h in state.hands.values())
        reached = _logistic(PACE * left * share - distance + 0.5)
    return 1.0 - reached if seat.who.saboteur else reached


def _logistic(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(min(x, 30.0), -30.0)))
