"""The computer player: scores each legal move from what its seat may know, plays the best.

The seat's knowledge is its :class:`~domain.view.View` (its hand, its dwarf, its maps and
inspections, the public table) and the round's public :class:`Memory`. Every move is
scored in one unit, a card of distance the tunnel gains toward the treasure (see
:mod:`domain.strategy.values`): placements by what they do to the maze's distance fields,
action cards by whom they hit and how sure the seat is about that player, a pass by the
card given up. A small seeded jitter breaks ties, so a seed decides everything.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from domain import board as geo
from domain import rng
from domain.cards import BREAKS, REPAIRS, Action, Card, Door, Edition, Role, Tool, card
from domain.commands import (
    ChooseTheftVictim,
    Command,
    DiscardToRemove,
    Pass,
    PickGold,
    PlacePath,
    PlayAction,
)
from domain.scoring import SABOTEUR2_DISCOUNT, saboteur2_share
from domain.strategy.maze import Maze, Outcome
from domain.strategy.memory import CAP, Memory, is_dead_end
from domain.strategy.suspicion import suspicion
from domain.strategy.values import Profile, card_family, keep_value, profile
from domain.view import View

PlayerId = int

TREASURE: Final = "goal_treasure"
_OTHER: Final = {Door.BLUE: Door.GREEN, Door.GREEN: Door.BLUE}
REACH: Final = 8.0  # the treasure reached, in cards of distance
LOOK_AGAIN: Final = 5  # placements whose estimate is recomputed exactly
TWIN: Final = 0.5  # what a card is worth keeping when the hand holds another like it
ONE_WILL_DO: Final = frozenset({"repair", Action.MAP.value, Action.FREE_AT_LAST.value})
ROCKFALL_LOOKS: Final = 4  # cards near the front a rockfall is weighed on
JITTER: Final = 0.02
TEMPO: Final = 0.6  # cards of progress a digger adds per turn, about
LEEWAY: Final = 1.0  # own turns left before the saboteur stops hiding
CAUTION: Final = 0.9  # the most a saboteur holds back while the tunnel is far
HIDE_HARM: Final = 0.5  # how much of that caution holds back its attacks on players
FOUND_OUT: Final = 0.7  # past this suspicion at the table, a saboteur stops hiding
NEVER: Final = -100.0


@dataclass(slots=True)
class _Seat:
    """What one seat knows and wants, worked out once per decision."""

    view: View
    memory: Memory
    me: PlayerId
    edition: Edition
    who: Profile
    maze: Maze
    odds: Mapping[PlayerId, float]  # chance each seat is a saboteur
    exposed: float  # how suspect the table finds this seat (its public conduct alone)
    treasure: Mapping[geo.Cell, float]  # chance each face-down goal is the treasure
    expected: float  # expected distance to the treasure now
    wait: float  # saboteur: how much a block is still worth keeping for later (0..1)
    caution: float  # saboteur: how much its sabotage should still look like play (0..1)
    broken: frozenset[Tool]
    trapped: bool
    fronts: Mapping[PlayerId, tuple[str, ...]]
    seating: tuple[PlayerId, ...]
    _near: frozenset[geo.Cell] | None = None

    def keep(self, held: Card) -> float:
        unknown = sum(1 for p in self.treasure.values() if 0 < p < 1)
        value = keep_value(held, self.who, self.broken, self.trapped, unknown)
        # A mending card like another in hand is worth less: one of them will do (two
        # breaks or two dead ends each do their own harm).
        family = card_family(held)
        if family not in ONE_WILL_DO:
            return value
        twins = any(
            c != held.id and card_family(card(self.edition, c)) == family for c in self.view.hand
        )
        return value * (TWIN if twins else 1.0)

    def worth(self, outcome: Outcome) -> float:
        """Cards of distance gained toward the treasure (and the chance of reaching it)."""
        after = sum(p * outcome.distance.get(g, CAP) for g, p in self.treasure.items())
        found = sum(self.treasure.get(g, 0.0) for g in outcome.reached)
        return self.expected - after + REACH * found

    def near_front(self) -> frozenset[geo.Cell]:
        """The few cards nearest where the tunnel goes on (those a rockfall is worth
        weighing): beside the empty cells closest to the likely goals."""
        if self._near is None:
            fields = [self.maze.fields[g] for g, p in self.treasure.items() if p > 0]
            ranked: list[tuple[float, geo.Cell]] = []
            for (x, y), tile in self.maze.board.items():
                if tile.kind == geo.START_KIND or tile.is_goal:
                    continue
                around = ((x, y + 1), (x + 1, y), (x, y - 1), (x - 1, y))
                near = min((f.get(c, CAP) for f in fields for c in around), default=CAP)
                ranked.append((near, (x, y)))
            ranked.sort()
            self._near = frozenset(c for _, c in ranked[:ROCKFALL_LOOKS])
        return self._near

    def shown(self, outcome: Outcome) -> float:
        """The progress the table sees: toward every goal still face down alike."""
        goals = self.maze.goals
        if not goals:
            return 0.0
        before = sum(self.maze.distance.get(g, CAP) for g in goals)
        after = sum(outcome.distance.get(g, CAP) for g in goals)
        return (before - after) / len(goals)


def choose(view: View, memory: Memory, moves: Sequence[Command], seed: int) -> Command:
    """The move the computer plays, one of ``moves`` (the seat's legal moves)."""
    if not moves:
        raise ValueError("no move to choose from")
    if len(moves) == 1:
        return moves[0]
    seat = _seat(view, memory)
    numbers = rng.stream(seed)
    jitter = [JITTER * (next(numbers) / 2**64) for _ in moves]
    scored = sorted(((_score(seat, m) + jitter[i], i) for i, m in enumerate(moves)), reverse=True)
    places = [i for _, i in scored if isinstance(moves[i], PlacePath)][:LOOK_AGAIN]
    # The best placements that reach a goal too: a stone turned opens the maze on.
    places += [
        i
        for _, i in scored
        if isinstance(moves[i], PlacePath)
        and i not in places
        and _touches_goal(seat, moves[i].cell)  # type: ignore[union-attr]
    ][:LOOK_AGAIN]
    if places:
        # The best placements' estimates, recomputed on the maze each would leave.
        exact = {i: _placement(seat, moves[i], exact=True) + jitter[i] for i in places}  # type: ignore[arg-type]
        scored = sorted(((exact.get(i, s), i) for s, i in scored), reverse=True)
    return moves[scored[0][1]]


def _touches_goal(seat: _Seat, cell: geo.Cell) -> bool:
    x, y = cell
    return any((x + dx, y + dy) in seat.maze.goals for dx, dy in ((0, 1), (1, 0), (0, -1), (-1, 0)))


# --------------------------------------------------------------------------- the seat


def _seat(view: View, memory: Memory) -> _Seat:
    me = view.viewer
    assert me is not None, "a computer plays a seat, not the public"
    edition: Edition = "saboteur2" if view.edition == "saboteur2" else "base"
    seating = tuple(s.player for s in view.seats)
    who = profile(view.role)
    odds = suspicion(seating, me, view.role, edition, memory, view.inspected)
    seen_by_table = suspicion(seating, me, None, edition, memory, {})
    # A team's tunnel is the part its diggers can pass: the other colour's doors block it.
    maze = Maze(view.board, _OTHER.get(who.door) if who.door is not None else None)
    treasure = _treasure_odds(view, memory, odds)
    expected = sum(p * maze.distance.get(g, CAP) for g, p in treasure.items())
    fronts = {s.player: s.front for s in view.seats}
    mine = fronts.get(me, ())
    broken = frozenset(Tool(k.removeprefix("broken_")) for k in mine if k.startswith("broken_"))
    wait = caution = 0.0
    if who.saboteur and view.draw_pile > 0:
        # How many of its own turns until the diggers get there: with a turn or two left
        # it must strike; with many, a block would only be walked round, and its sabotage
        # should still look like play, unless the table has found it out already.
        diggers = sum(1.0 - odds.get(p, 0.0) for p in seating if p != me)
        turns = expected / max(TEMPO * diggers, 0.5)
        wait = min(max((turns - LEEWAY) / 2.0, 0.0), CAUTION)
        caution = wait
        if seen_by_table.get(me, 0.0) > FOUND_OUT:
            caution = 0.0
            if edition == "base":
                wait = 0.0  # its tools will be broken soon, and mended only by repairs
    return _Seat(
        view,
        memory,
        me,
        edition,
        who,
        maze,
        odds,
        seen_by_table.get(me, 0.0),
        treasure,
        expected,
        wait,
        caution,
        broken,
        "trapped" in mine,
        fronts,
        seating,
    )


def _treasure_odds(
    view: View, memory: Memory, odds: Mapping[PlayerId, float]
) -> dict[geo.Cell, float]:
    """Per face-down goal, the chance the treasure is there: what the seat's maps showed,
    the stones turned, and a trusted player mapping a second goal after a first (the first
    was a stone, most likely)."""
    board = view.board
    down = [c for c in geo.GOAL_CELLS if c in board and not board[c].face_up]
    known = view.known_goals
    for cell in down:
        if known.get(cell) == TREASURE:
            return {c: (1.0 if c == cell else 0.0) for c in down}
    weight = {c: (0.0 if c in known else 1.0) for c in down}
    last: dict[PlayerId, geo.Cell] = {}
    for player, cell in memory.maps:
        earlier = last.get(player)
        if earlier is not None and earlier != cell and earlier in weight:
            weight[earlier] *= 0.3 + 0.7 * odds.get(player, 0.5)
        last[player] = cell
    total = sum(weight.values())
    if total <= 0:
        return {c: 1.0 / len(down) for c in down} if down else {}
    return {c: w / total for c, w in weight.items()}


# -------------------------------------------------------------------------- scoring


def _score(seat: _Seat, move: Command) -> float:
    match move:
        case PlacePath():
            return _placement(seat, move, exact=False)
        case PlayAction():
            held = card(seat.edition, move.card)
            return _action(seat, move, held) - seat.keep(held)
        case Pass():
            return _pass(seat, move.cards)
        case DiscardToRemove():
            return _removal(seat, move.removed) - sum(
                seat.keep(card(seat.edition, c)) for c in move.cards
            )
        case PickGold():
            return float(move.value)
        case ChooseTheftVictim():
            return _riches(seat, move.victim)
        case _:
            return NEVER


def _placement(seat: _Seat, move: PlacePath, exact: bool) -> float:
    held = card(seat.edition, move.card)
    spec = held.path
    assert spec is not None
    if exact:
        tile = geo.Tile(held.kind, held.id, move.rotated)
        board = geo.with_tile(seat.maze.board, move.cell, tile)
        outcome = seat.maze.after(board, move.cell, seat.view.known_goals)
    else:
        outcome = seat.maze.placement(held.kind, move.cell, move.rotated)
    gained = seat.worth(outcome)
    who = seat.who
    value = who.dig * gained
    if who.saboteur:
        if value > 0:
            value *= 1.0 - seat.wait
        elif abs(gained) < 1e-9 and not outcome.reached:
            # A card that changes nothing looks like play, if it opens no new way round.
            opened = outcome.ends - len(seat.maze.ends)
            value = 0.12 * seat.caution - 0.06 * max(opened, 0)
        # Tunnelling toward a goal it knows is a stone looks like progress and is none.
        value += 0.5 * seat.caution * max(seat.shown(outcome) - max(gained, 0.0), 0.0)
    else:
        if outcome.reached and gained > 0:
            value += 0.3  # a goal turned tells everyone where the treasure is not
        if gained <= 0 and is_dead_end(held.kind):
            value -= 0.15  # a dead end laid anywhere looks like sabotage
    if spec.door is not None and who.door is not None:
        value += 0.4 if spec.door is who.door else -0.8
    value += who.crystals * spec.crystals
    return value - seat.keep(held)


def _action(seat: _Seat, move: PlayAction, held: Card) -> float:
    action = held.action
    assert action is not None
    target = move.target_player
    who = seat.who
    if action is Action.ROCKFALL and move.target_cell is not None:
        return _rockfall(seat, move.target_cell)
    if action is Action.MAP and move.target_cell is not None:
        chance = seat.treasure.get(move.target_cell, 0.0)
        unknown = sum(1 for p in seat.treasure.values() if 0 < p < 1)
        if not 0 < chance < 1:
            return -0.5
        return (0.45 if who.saboteur else 0.55) + 0.15 * (unknown - 2) + 0.1 * chance
    if target is None:
        return NEVER
    suspect = seat.odds.get(target, 0.5)
    if action in BREAKS or action is Action.TRAPPED:
        return _harm(seat, target, suspect, action)
    if action in REPAIRS or action is Action.FREE_AT_LAST:
        return _help(seat, target, suspect)
    match action:
        case Action.THEFT:
            return 0.6
        case Action.HANDS_OFF:
            return -1.0 if target == seat.me else 0.2
        case Action.INSPECTION:
            if target in seat.view.inspected:
                return -1.0
            return 0.5 * (1.0 - abs(2.0 * suspect - 1.0)) * max(who.attack, 0.5)
        case Action.SWAP_HATS:
            if target == seat.me:
                return 0.4 if who.saboteur and seat.exposed > 0.8 else -0.5
            if who.saboteur:
                return 0.3 * (1.0 - suspect) - 0.2
            return (1.0 if suspect >= 1.0 else 0.8 * (2.0 * suspect - 1.0)) * who.attack
        case Action.SWAP_HAND:
            if who.saboteur:
                return 0.35 * (1.0 - suspect) - 0.1
            return -0.3
    return NEVER


def _harm(seat: _Seat, target: PlayerId, suspect: float, action: Action) -> float:
    """Break a tool of, or trap, ``target``."""
    who = seat.who
    if target == seat.me:
        return NEVER
    front = seat.fronts.get(target, ())
    stopped = any(k.startswith("broken_") for k in front) or "trapped" in front
    strength = 0.35 if stopped else 1.0
    if action is Action.TRAPPED:
        strength *= 1.15  # also costs them the round's gold
    if who.saboteur:
        busy = min(seat.memory.conduct(target).progress / 2.0, 1.0)
        value = (1.0 - suspect) * (0.6 + 0.5 * busy) - suspect * 0.8
        # Late in the round, whoever plays next matters most: they could get there first.
        seating = seat.seating
        ahead = (seating.index(target) - seating.index(seat.me)) % len(seating)
        soon = 1.0 + 0.5 * (1.0 - seat.caution) * (1.0 - (ahead - 1) / max(len(seating) - 1, 1))
        # In Saboteur 2 two cards discarded mend anything: a harm far from the end is
        # mended long before it matters, so it waits like a block.
        later = 1.0 - seat.wait if seat.edition == "saboteur2" else 1.0
        return who.attack * value * strength * soon * later * (1.0 - HIDE_HARM * seat.caution)
    return who.attack * 0.9 * (2.0 * suspect - 1.0) * strength


def _help(seat: _Seat, target: PlayerId, suspect: float) -> float:
    """Repair a tool of, or free, ``target`` (the move is legal: they need it)."""
    who = seat.who
    front = seat.fronts.get(target, ())
    still = sum(1 for k in front if k.startswith("broken_") or k == "trapped") - 1
    freed = 1.0 if still == 0 else 0.45
    if target == seat.me:
        return (0.6 if who.saboteur else 0.4 + 0.7 * abs(who.dig)) * freed
    if who.saboteur:
        return who.attack * 0.6 * (2.0 * suspect - 1.0) * freed
    return who.attack * 0.8 * (1.0 - 2.0 * suspect) * freed


def _rockfall(seat: _Seat, cell: geo.Cell) -> float:
    if cell not in seat.near_front():
        return -0.5  # far from where the tunnel goes on: it changes nothing
    board = seat.maze.board
    tile = board[cell]
    outcome = seat.maze.after(geo.without_tile(board, cell))
    gained = seat.worth(outcome)
    who = seat.who
    value = who.dig * gained
    value = value * (1.0 - seat.wait) if who.saboteur and value > 0 else value - 0.05
    spec = tile.spec
    if spec.door is not None and who.door is not None and spec.door is not who.door:
        value += 0.5
    value -= who.crystals * spec.crystals
    return value


def _pass(seat: _Seat, cards: tuple[int, ...]) -> float:
    kept = [seat.keep(card(seat.edition, c)) for c in cards]
    # Each card beyond the first is worth giving up only if it is worth little.
    return -sum(kept) + 0.12 * (len(cards) - 1) + (0.05 if seat.who.saboteur else 0.0)


def _removal(seat: _Seat, removed: str) -> float:
    if removed == "theft":
        return NEVER
    front = seat.fronts.get(seat.me, ())
    still = sum(1 for k in front if k.startswith("broken_") or k == "trapped") - 1
    return (0.6 if seat.who.saboteur else 1.0) * (1.0 if still == 0 else 0.45)


def _riches(seat: _Seat, victim: PlayerId) -> float:
    """Saboteur 2: the gold ``victim`` has won, as far as the round results show."""
    total = 0.0
    for result in seat.view.round_results:
        roles = dict(result.roles)
        share = saboteur2_share(len(result.winners))
        for winner in result.winners:
            if winner == victim:
                role = Role(roles.get(winner, Role.BLUE_DIGGER.value))
                total += max(0, share - SABOTEUR2_DISCOUNT.get(role, 0))
    return total
