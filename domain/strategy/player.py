"""The computer player: scores each legal move from what its seat may know, plays the best.

The seat's knowledge is its :class:`~domain.view.View` (its hand, its dwarf, its maps and
inspections, the public table) and the round's public :class:`Memory`. Every move is
scored in one unit, a card of distance the tunnel gains toward the treasure (see
:mod:`domain.strategy.values`): placements by what they do to the maze's distance fields,
action cards by whom they hit and how sure the seat is about that player, a pass by the
card given up. A small seeded jitter breaks ties, so a seed decides everything.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from domain import board as geo
from domain import rng
from domain.cards import Action, Card, Door, Edition, Tool, card, deck
from domain.commands import (
    ChooseTheftVictim,
    Command,
    DiscardToRemove,
    Pass,
    PickGold,
    PlacePath,
    PlayAction,
)
from domain.strategy.actions import NEVER, action_worth, pass_worth, removal_worth, riches
from domain.strategy.maze import Maze, Outcome
from domain.strategy.memory import CAP, Memory, is_dead_end
from domain.strategy.suspicion import suspicion
from domain.strategy.teams import rival_first
from domain.strategy.values import Profile, card_family, keep_value, profile
from domain.view import View

PlayerId = int

TREASURE: Final = "goal_treasure"
_OTHER: Final = {Door.BLUE: Door.GREEN, Door.GREEN: Door.BLUE}
REACH: Final = 8.0  # the treasure reached, in cards of distance
LOOK_AGAIN: Final = 5  # placements whose estimate is recomputed exactly
TWIN: Final = 0.5  # what a card is worth keeping when the hand holds another like it
ONE_WILL_DO: Final = frozenset({"repair", Action.MAP.value, Action.FREE_AT_LAST.value})
BLOCKS: Final = frozenset({"dead_end", "break", Action.ROCKFALL.value, Action.TRAPPED.value})
URGENCY: Final = 0.6  # how much of a saboteur's block's keep the tunnel's nearness takes
ROCKFALL_LOOKS: Final = 8  # cards near the front a rockfall is weighed on
JITTER: Final = 0.02
# Cards of progress a digger adds per turn, as a saboteur reckons it to time its blocks.
# The base game's saboteur reckons faster: there every other seat digs the one tunnel,
# and a block kept for later is too often never laid (the lone saboteur of a small table
# is found out and stopped first), so it strikes at the tunnel's half-way, not near its end.
TEMPO: Final[dict[Edition, float]] = {"base": 1.2, "saboteur2": 0.6}
LEEWAY: Final = 1.0  # own turns left before the saboteur stops hiding
CAUTION: Final = 0.9  # the most a saboteur holds back while the tunnel is far
FINISH: Final = 0.5  # the chance a player free to place holds a card that ends the tunnel
SABOTEUR: Final = "saboteur"
SELFISH: Final = "selfish_dwarf"
FOUND_OUT: Final = 0.7  # past this suspicion at the table, a saboteur stops hiding


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
    soft: float  # the same in soft distance (the ways in counted too, see Maze)
    wait: float  # saboteur: how much a block is still worth keeping for later (0..1)
    caution: float  # saboteur: how much its sabotage should still look like play (0..1)
    broken: frozenset[Tool]
    trapped: bool
    fronts: Mapping[PlayerId, tuple[str, ...]]
    seating: tuple[PlayerId, ...]
    # Saboteur 2's team gold-digger: the tunnel as the other team can pass it, and the
    # chance a digger of that team is the first after this seat to end a tunnel.
    rivals: Maze | None = None
    rival: float = 0.0
    # Saboteur 2's saboteur: the tunnel as each team can pass it (and its soft distance).
    teams: tuple[tuple[Maze, float], ...] = ()
    _near: frozenset[geo.Cell] | None = None
    _unseen: Counter[str] | None = None

    def keep(self, held: Card, discarded: bool = False) -> float:
        """What ``held`` is worth keeping rather than playing it now (or, ``discarded``,
        rather than giving it up unplayed)."""
        unknown = sum(1 for p in self.treasure.values() if 0 < p < 1)
        value = keep_value(held, self.who, self.broken, self.trapped, unknown)
        # A mending card like another in hand is worth less: one of them will do (two
        # breaks or two dead ends each do their own harm).
        family = card_family(held)
        # Saboteur 2's saboteur gives up its blocks last, however near the tunnel.
        kept = discarded and self.edition == "saboteur2" and self.view.role == SABOTEUR
        if self.who.saboteur and family in BLOCKS and not kept:
            # A block kept for later is worth less the nearer the tunnel: later may be
            # too late.
            value *= 1.0 - URGENCY * (1.0 - self.wait)
        if family not in ONE_WILL_DO:
            return value
        twins = any(
            c != held.id and card_family(card(self.edition, c)) == family for c in self.view.hand
        )
        return value * (TWIN if twins else 1.0)

    def worth(self, outcome: Outcome, before: float | None = None) -> float:
        """Cards of distance gained toward the treasure (and the chance of reaching it),
        from the soft distance ``before`` (by default the seat's own maze's)."""
        after = sum(p * outcome.soft.get(g, CAP) for g, p in self.treasure.items())
        found = sum(self.treasure.get(g, 0.0) for g in outcome.reached)
        return (self.soft if before is None else before) - after + REACH * found

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

    def unseen_paths(self) -> Counter[str]:
        """The path cards the seat has not seen this round, by kind: the deck less the
        cards on the table and in its hand (the others' hands, the draw pile and the
        discards). Worked out once per decision, for every rockfall weighed."""
        if self._unseen is None:
            seen = {t.card for t in self.maze.board.values() if t.card is not None}
            seen.update(self.view.hand)
            self._unseen = Counter(
                c.kind for c in deck(self.edition) if c.path is not None and c.id not in seen
            )
        return self._unseen

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
    return moves[ranked(view, memory, moves, seed)[0][1]]


def ranked(
    view: View,
    memory: Memory,
    moves: Sequence[Command],
    seed: int,
    noise: float = JITTER,
    look_again: int = LOOK_AGAIN,
) -> list[tuple[float, int]]:
    """Every move's score and index in ``moves``, best first. ``noise``: the most a move's
    score is moved by chance (the seeded jitter that breaks ties); ``look_again``: how
    many of the best placements are scored again on the maze each would leave."""
    seat = _seat(view, memory)
    numbers = rng.stream(seed)
    jitter = [noise * (next(numbers) / 2**64) for _ in moves]
    scored = sorted(((_score(seat, m) + jitter[i], i) for i, m in enumerate(moves)), reverse=True)
    places = [i for _, i in scored if isinstance(moves[i], PlacePath)][:look_again]
    # The best placements that reach a goal too: a stone turned opens the maze on.
    places += [
        i
        for _, i in scored
        if isinstance(moves[i], PlacePath)
        and i not in places
        and _touches_goal(seat, moves[i].cell)  # type: ignore[union-attr]
    ][:look_again]
    if places:
        # The best placements' estimates, recomputed on the maze each would leave.
        exact = {i: _placement(seat, moves[i], exact=True) + jitter[i] for i in places}  # type: ignore[arg-type]
        scored = sorted(((exact.get(i, s), i) for s, i in scored), reverse=True)
    return scored


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
    # Saboteurs who know each other (docs/rules.md §8) are as sure of one another as of a
    # dwarf card inspected.
    known = {**view.inspected, **{p: SABOTEUR for p in view.allies}}
    odds = suspicion(seating, me, view.role, edition, memory, known, view.variants)
    seen_by_table = suspicion(seating, me, None, edition, memory, {}, view.variants)
    # A team's tunnel is the part its diggers can pass: the other colour's doors block it.
    maze = Maze(view.board, _OTHER.get(who.door) if who.door is not None else None)
    treasure = _treasure_odds(view, memory, odds)
    expected = sum(p * maze.distance.get(g, CAP) for g, p in treasure.items())
    softly = sum(p * maze.soft.get(g, CAP) for g, p in treasure.items())
    fronts = {s.player: s.front for s in view.seats}
    mine = fronts.get(me, ())
    broken = frozenset(Tool(k.removeprefix("broken_")) for k in mine if k.startswith("broken_"))
    wait = caution = 0.0
    # Saboteur 2's saboteur neither waits nor hides: it wins when the draw pile runs out
    # first, and every turn the table spends on its harm (two cards discarded to mend a
    # break, a way round a dead end, breaking it in turn) brings that nearer, so a harm
    # now is worth more than one kept for later, and being found out costs it little.
    striking = edition == "saboteur2" and view.role == SABOTEUR
    if who.saboteur and view.draw_pile > 0 and not striking:
        # How many of its own turns until the diggers get there: with a turn or two left
        # it must strike; with many, a block would only be walked round, and its sabotage
        # should still look like play, unless the table has found it out already.
        diggers = sum(1.0 - odds.get(p, 0.0) for p in seating if p != me)
        turns = expected / max(TEMPO[edition] * diggers, 0.5)
        wait = min(max((turns - LEEWAY) / 2.0, 0.0), CAUTION)
        caution = wait
        if seen_by_table.get(me, 0.0) > FOUND_OUT:
            caution = 0.0
            if edition == "base":
                wait = 0.0  # its tools will be broken soon, and mended only by repairs
    rivals, rival = None, 0.0
    if edition == "saboteur2" and who.door is not None:
        free = {
            p: not any(k.startswith("broken_") or k == "trapped" for k in front)
            for p, front in fronts.items()
        }
        rival = rival_first(seating, me, who.door, odds, memory, view.inspected, free, FINISH)
        rivals = Maze(view.board, who.door) if rival > 0 else None
    teams: tuple[tuple[Maze, float], ...] = ()
    if edition == "saboteur2" and who.saboteur:
        ways = (Maze(view.board, Door.GREEN), Maze(view.board, Door.BLUE))
        teams = tuple((m, sum(p * m.soft.get(g, CAP) for g, p in treasure.items())) for m in ways)
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
        softly,
        wait,
        caution,
        broken,
        "trapped" in mine,
        fronts,
        seating,
        rivals,
        rival,
        teams,
    )


def _treasure_odds(
    view: View, memory: Memory, odds: Mapping[PlayerId, float]
) -> dict[geo.Cell, float]:
    """Per face-down goal, the chance the treasure is there: what the seat's maps showed,
    the stones turned, and a trusted player mapping a second goal after a first (the first
    was a stone, most likely)."""
    board = view.board
    down = [c for c in view.goal_cells if c in board and not board[c].face_up]
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
            return action_worth(seat, move, held) - seat.keep(held)
        case Pass():
            return pass_worth(seat, move.cards)
        case DiscardToRemove():
            return removal_worth(seat, move.removed) - sum(
                seat.keep(card(seat.edition, c), discarded=True) for c in move.cards
            )
        case PickGold():
            return float(move.value)
        case ChooseTheftVictim():
            return riches(seat, move.victim)
        case _:
            return NEVER


def _placement(seat: _Seat, move: PlacePath, exact: bool) -> float:
    held = card(seat.edition, move.card)
    spec = held.path
    assert spec is not None
    board = None
    if exact:
        tile = geo.Tile(held.kind, held.id, move.rotated)
        board = geo.with_tile(seat.maze.board, move.cell, tile)
        outcome = seat.maze.after(board, move.cell, seat.view.known_goals)
    else:
        outcome = seat.maze.placement(held.kind, move.cell, move.rotated)
    gained = seat.worth(outcome)
    if seat.rivals is not None:
        gained -= _left_to_rivals(seat, seat.rivals, move, held.kind, board)
    if seat.view.role == SELFISH:
        gained -= _left_to_others(seat, move, held.kind, board)
    if seat.teams:
        # A team's gold-digger digs only the tunnel its team can pass: a door across the
        # way in stops a whole team, and the doors of both stop them all but the boss.
        for team, before in seat.teams:
            if board is not None:
                done = team.after(board, move.cell, seat.view.known_goals)
            else:
                done = team.placement(held.kind, move.cell, move.rotated)
            gained += seat.worth(done, before)
        gained /= 1 + len(seat.teams)
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


def _left_to_others(seat: _Seat, move: PlacePath, kind: str, board: geo.Board | None) -> float:
    """The selfish dwarf is paid only for a treasure he reaches himself (docs/rules.md §8):
    what a placement loses him by leaving the treasure one card away for the others, the
    chance one of them free to place takes it before his next turn."""
    if board is not None:
        outcome = seat.maze.after(board, move.cell, seat.view.known_goals)
    else:
        outcome = seat.maze.placement(kind, move.cell, move.rotated)
    if outcome.reached:
        return 0.0
    threat = sum(
        p
        for g, p in seat.treasure.items()
        if 0 < outcome.distance.get(g, CAP) <= 1 < seat.maze.distance.get(g, CAP)
    )
    if threat <= 0:
        return 0.0
    still = 1.0
    for player in seat.seating:
        front = seat.fronts.get(player, ())
        if player == seat.me or any(k.startswith("broken_") for k in front):
            continue
        still *= 1.0 - FINISH * (1.0 - seat.odds.get(player, 0.0))
    return REACH * (1.0 - still) * threat


def _left_to_rivals(
    seat: _Seat, rivals: Maze, move: PlacePath, kind: str, board: geo.Board | None
) -> float:
    """What a placement loses a team's digger by leaving the treasure one card from the
    other team's way in, the next seat most likely theirs."""
    if board is not None:
        outcome = rivals.after(board, move.cell, seat.view.known_goals)
    else:
        outcome = rivals.placement(kind, move.cell, move.rotated)
    threat = sum(
        p
        for g, p in seat.treasure.items()
        if 0 < outcome.distance.get(g, CAP) <= 1 < rivals.distance.get(g, CAP)
    )
    return REACH * seat.rival * threat
