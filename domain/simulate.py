"""Random legal games through decide/evolve, checking invariants after every event.

The simulator plays what :func:`domain.moves.legal_moves` lists, chosen uniformly (and
sometimes lets a deadline pass), and checks after every event: every card is somewhere
exactly once (hands, draw pile, set aside, maze, discards, in front of players); gold is
conserved; while a round runs no player's view holds another player's hand or dwarf.
Games with variants (docs/rules.md §8) check theirs too: the goals where the variant lays
them, the dwarf cards the variants deal, each round's winners and gold as the variants
pay them, and which saboteurs a saboteur's view names.

Computer players take some seats, and now and then a person's seat is handed to the
computer (left or kicked) and taken back: the computer's decisions go through
:class:`~domain.commands.MakeComputerMove`, drawn at random or, in one game in four,
chosen by the strategy (:mod:`domain.strategy`).

The domain reads no clock: the caller passes its timers in (``clock``, wall time, and
``cpu_clock``, CPU time, e.g. ``time.perf_counter`` and ``time.process_time``), and without
them the report's speed figures are ``None``.

>>> report = simulate(2, "saboteur2", (3, 4), seed=1)
>>> report["games"], report["violations"], report["games_per_s"]
(2, 0, None)
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

from domain import rng
from domain.ascii import render_round
from domain.board import goal_cells
from domain.cards import BASE_DWARVES, PLAYER_LIMITS, VARIANTS, Edition, Role, deck, nugget_cards
from domain.commands import (
    AddComputerPlayer,
    ComeBack,
    Command,
    CreateGame,
    Envelope,
    HandSeatToComputer,
    JoinGame,
    MakeComputerMove,
    StartGame,
    TimeOut,
)
from domain.decide import decide, execute
from domain.events import Event, GameEnded, GoldPaid, GoldPicked, RoundEnded, RoundStarted
from domain.evolve import evolve, fold, initial_state
from domain.moves import computer_moves, legal_moves
from domain.queries import tools_broken
from domain.state import Decision, GameState
from domain.strategy import Memory, choose
from domain.view import describe, view_for

T = TypeVar("T")
Clock = Callable[[], float]  # seconds, from any origin
TIMEOUT_CHANCE = 20  # one command in 20 is a deadline passing
HAND_OVER_CHANCE = 60  # one command in 60 hands a person's seat over or takes one back
STRATEGY_GAMES = 4  # one game in 4: the computer plays by the strategy
_NUGGET_GOLD = sum(nugget_cards())


class _Dice:
    def __init__(self, seed: int) -> None:
        self._numbers: Iterator[int] = rng.stream(seed)

    def below(self, n: int) -> int:
        return next(self._numbers) % n

    def pick(self, items: Sequence[T]) -> T:
        return items[self.below(len(items))]

    def seed(self) -> int:
        return next(self._numbers) >> 1


def card_violations(state: GameState) -> list[str]:
    """Where the cards of a running round break conservation (empty when all is well)."""
    if state.phase != "playing" or state.round == 0:
        return []
    placed = [t.card for t in state.board.values() if t.card is not None]
    everywhere = [
        *(c for h in state.hands.values() for c in h),
        *state.draw_pile,
        *state.set_aside,
        *placed,
        *state.discards,
        *(c for cards in state.front_cards.values() for c in cards),
    ]
    if sorted(everywhere) != list(range(len(deck(state.edition)))):
        return [f"cards not conserved after event {state.events_applied}"]
    return []


def gold_violations(state: GameState, paid: int) -> list[str]:
    if state.phase in ("new", "lobby"):
        return []
    total = sum(state.gold.values())
    if any(g < 0 for g in state.gold.values()):
        return [f"negative gold after event {state.events_applied}"]
    if state.edition == "base":
        if total + sum(state.nugget_pile) + sum(state.gold_pick_offer) != _NUGGET_GOLD:
            return [f"nugget gold not conserved after event {state.events_applied}"]
    elif total != paid:
        return [f"saboteur2 gold {total} != {paid} paid, after event {state.events_applied}"]
    return []


def view_violations(state: GameState) -> list[str]:
    """A player's view, while a decision is pending, shows only their own hand and dwarf,
    and the nugget cards on offer only to the player picking now."""
    pending = state.pending
    if state.phase != "playing" or pending is None:
        return []
    found: list[str] = []
    for viewer in (None, *state.seating):
        view = view_for(state, viewer)
        offer = state.gold_pick_offer if viewer == pending.player else ()
        if view.gold_pick_offer != offer:
            found.append(f"view of {viewer} shows another player's nugget cards")
        own = state.hand(viewer) if viewer is not None else ()
        if view.hand != own or view.hands or view.roles or view.final_gold:
            found.append(f"view of {viewer} shows other players' secrets")
        role = state.roles[viewer].value if viewer is not None else None
        if view.role != role:
            found.append(f"view of {viewer} shows a wrong dwarf")
        if any(
            not t.face_up and t.kind.startswith("goal_") and t.kind != "goal_hidden"
            for t in view.board.values()
        ):
            found.append("a face-down goal shows its kind")
    return found


def variant_violations(before: GameState, event: Event, after: GameState) -> list[str]:
    """Where ``event`` breaks a rule of the game's variants (docs/rules.md §8); ``before``
    and ``after`` are the states around it."""
    if not after.variants:
        return []
    found: list[str] = []
    at = f"after event {after.events_applied}"
    if after.round and set(c for c, t in after.board.items() if t.is_goal) != set(after.goal_cells):
        found.append(f"the goals lie off their variant's cells {at}")
    roles = after.roles
    if isinstance(event, RoundStarted):
        dealt = [Role(r) for _, r in event.roles]
        cards = dealt + [Role(r) for r in event.dwarf_pile]
        saboteurs = BASE_DWARVES[len(after.seating)][0]
        selfish = 1 if after.has("selfish_dwarf") else 0
        # Maximum saboteurs deals every saboteur; with the selfish dwarf's card added, one
        # card of the set stays hidden, whichever it is.
        if after.has("maximum_saboteurs") and dealt.count(Role.SABOTEUR) < saboteurs - selfish:
            found.append(f"maximum saboteurs left a saboteur undealt {at}")
        if cards.count(Role.SABOTEUR) != saboteurs:
            found.append(f"{cards.count(Role.SABOTEUR)} saboteur cards, not {saboteurs} {at}")
        if cards.count(Role.SELFISH_DWARF) != selfish:
            found.append(f"{cards.count(Role.SELFISH_DWARF)} selfish dwarves {at}")
        spares = 1 - (1 if after.has("maximum_saboteurs") else 0) + selfish
        if len(event.dwarf_pile) != spares:
            found.append(f"{len(event.dwarf_pile)} dwarf cards hidden, not {spares} {at}")
    if isinstance(event, RoundEnded) and event.treasure_reached:
        winners = set(event.winners)
        reacher = event.reached_by
        selfish_won = (
            after.has("selfish_dwarf")
            and reacher is not None
            and roles[reacher] is Role.SELFISH_DWARF
        )
        if selfish_won and winners != {reacher}:
            found.append(f"the selfish dwarf reached the treasure but shares it {at}")
        if not selfish_won and any(roles[p] is Role.SELFISH_DWARF for p in winners):
            found.append(f"the selfish dwarf wins a treasure he did not reach {at}")
        if after.has("greedy_dwarf") and any(tools_broken(after, p) for p in winners):
            found.append(f"a greedy gold-digger with a broken tool wins {at}")
    if isinstance(event, GoldPaid | GoldPicked) and before.round_results:
        last = before.round_results[-1]
        paid = (
            {p for p, amount in event.payouts if amount}
            if isinstance(event, GoldPaid)
            else {event.player}
        )
        if last.round == after.round and not paid <= set(last.winners):
            found.append(f"gold paid to a player who did not win the round {at}")
    told_now = isinstance(event, RoundStarted | RoundEnded | GameEnded)  # roles change there
    if after.has("saboteurs_know_each_other") and after.phase == "playing" and told_now:
        team = {p for p in after.seating if roles[p] is Role.SABOTEUR}
        for player in after.seating:
            told = set(view_for(after, player).allies)
            expected = team - {player} if player in team else set()
            if told != expected:
                found.append(f"{player} is told the saboteurs {sorted(told)} {at}")
    return found


def play_one(
    edition: Edition,
    players: int,
    seed: int,
    check: bool = True,
    max_commands: int = 0,
    clock: Clock | None = None,
    strategy_games: bool = True,
    variants: tuple[str, ...] = (),
) -> tuple[list[Event], list[str], list[float]]:
    """One random game (its first ``max_commands`` moves when > 0); returns its events,
    the violations found and the time ``clock`` gave each legal_moves call (seconds;
    nothing timed without a clock). With ``strategy_games`` false the computer seats
    always play random legal moves (one game in four plays by the strategy otherwise), so
    that only the rules engine is timed. ``variants``: the base game's variants played."""
    dice = _Dice(seed)
    state = initial_state()
    events: list[Event] = []
    violations: list[str] = []
    timings: list[float] = []
    paid = 0
    now = 1_000_000  # the game's own clock (ms), as the envelopes carry it
    memory = Memory.start(edition, goal_cells(variants))
    strategy = dice.below(STRATEGY_GAMES) == 0 and strategy_games

    def run(command: Command, at: int = 0, seed: int = 0) -> None:
        nonlocal state, paid, memory
        envelope = Envelope(command, at, seed)
        if not check:
            new, state = execute(state, envelope)
            events.extend(new)
            if strategy:
                for event in new:
                    memory = memory.observe(describe(event, None))
            return
        for event in decide(state, envelope):
            if strategy:
                memory = memory.observe(describe(event, None))
            events.append(event)
            before, state = state, evolve(state, event)
            violations.extend(variant_violations(before, event, state))
            if isinstance(event, GoldPaid) and edition == "saboteur2":
                paid += sum(amount for _, amount in event.payouts)
            violations.extend(card_violations(state))
            violations.extend(gold_violations(state, paid))
        if check:
            violations.extend(view_violations(state))

    run(CreateGame(1, "P1", edition, chat_id=-1, turn_seconds=60, variants=variants))
    computers = dice.below(players)  # computer players take the last seats
    for player in range(2, players - computers + 1):
        run(JoinGame(player, f"P{player}"))
    for _ in range(computers):
        run(AddComputerPlayer(1), seed=dice.seed())
    run(StartGame(1), now, dice.seed())
    commands = 0
    while state.phase == "playing" and not (max_commands and commands >= max_commands):
        commands += 1
        pending = state.pending
        if pending is None:
            violations.append("a running game owes no decision")
            break
        now += 1000
        if dice.below(TIMEOUT_CHANCE) == 0:
            run(TimeOut(pending.id), now, dice.seed())
            continue
        if dice.below(HAND_OVER_CHANCE) == 0:
            hand_over = _hand_over(state, dice)
            if hand_over is not None:
                run(hand_over, now)
                continue
        if clock is None:
            moves = _owed(state, pending)
        else:
            started = clock()
            moves = _owed(state, pending)
            timings.append(clock() - started)
        moves = [m for m in moves if not isinstance(m, ComeBack)]
        if not moves:
            violations.append(f"{pending.player} owes a {pending.kind} but has no legal move")
            break
        move = dice.pick(moves)
        if pending.computer:
            if strategy:
                move = choose(view_for(state, pending.player), memory, moves, dice.seed())
            dice.seed()  # a draw left unused: each seed plays the game it always played
            move = MakeComputerMove(pending.id, move)  # type: ignore[arg-type]
        run(move, now, dice.seed())
    if check and fold(events) != state:
        violations.append("replaying the events gives another state")
    return events, violations, timings


def _owed(state: GameState, pending: Decision) -> list[Command]:
    """The moves of the pending decision: the computer's, or its player's."""
    return computer_moves(state) if pending.computer else legal_moves(state, pending.player)


def _hand_over(state: GameState, dice: _Dice) -> Command | None:
    """A person's seat handed to the computer (they leave, or the creator kicks them), or a
    kicked or away player back; None when nobody is left to do it to."""
    people = [p for p in state.humans() if state.handed_over.get(p) != "left"]
    back = [p for p in people if p in state.handed_over or p in state.away]
    if back and dice.below(2) == 0:
        return ComeBack(dice.pick(back))
    playing = [p for p in people if p not in state.handed_over]
    if len(playing) < 2:  # the last person stays: a game everyone left is cancelled
        return None
    player = dice.pick(playing)
    leaves = dice.below(2) == 0
    return HandSeatToComputer(player if leaves else 1, player)


def simulate(
    games: int,
    edition: Edition,
    players: tuple[int, int],
    seed: int,
    check: bool = True,
    clock: Clock | None = None,
    cpu_clock: Clock | None = None,
    show: Callable[[str], object] | None = None,
    strategy_games: bool = True,
    variants: tuple[str, ...] = (),
) -> dict[str, Any]:
    """Play ``games`` random games with a player count in ``players`` (inclusive), with
    the base game's ``variants`` (docs/rules.md §8).

    ``clock`` (wall) times the games and each legal_moves call, ``cpu_clock`` (CPU) the
    games; a figure whose clock is missing is ``None``. ``show``, when given, receives the
    maze of each round as it ended (see :func:`domain.ascii.render_round`).
    """
    dice = _Dice(seed)
    started = clock() if clock is not None else 0.0
    cpu_started = cpu_clock() if cpu_clock is not None else 0.0
    total_events = 0
    finished = 0
    violations: list[str] = []
    timings: list[float] = []
    span = players[1] - players[0] + 1
    for number in range(games):
        # Round-robin over the player counts, so every count is played as often as any other.
        count = players[0] + number % span
        events, found, times = play_one(
            edition,
            count,
            dice.seed(),
            check,
            clock=clock,
            strategy_games=strategy_games,
            variants=variants,
        )
        total_events += len(events)
        violations.extend(found)
        timings.extend(times)
        if events and isinstance(events[-1], GameEnded):
            finished += 1
        if show is not None:
            _show_rounds(events, number + 1, show)
    elapsed = clock() - started if clock is not None else None
    cpu = cpu_clock() - cpu_started if cpu_clock is not None else None
    return {
        "games": games,
        "finished": finished,
        "edition": edition,
        "variants": list(variants),
        "players": list(players),
        "events": total_events,
        "violations": len(violations),
        "violation_samples": violations[:5],
        "seconds": _rounded(elapsed, 3),
        "games_per_s": _rounded(games / elapsed, 2) if elapsed else None,
        # Wall time lies on a shared machine; CPU time less.
        "cpu_seconds": _rounded(cpu, 3),
        "games_per_cpu_s": _rounded(games / cpu, 2) if cpu else None,
        "legal_moves_calls": len(timings),
        "legal_moves_ms_mean": _rounded(1000 * sum(timings) / len(timings), 4) if timings else None,
        "legal_moves_ms_max": _rounded(1000 * max(timings), 4) if timings else None,
        "invariants_checked": check,
    }


def _rounded(value: float | None, digits: int) -> float | None:
    return None if value is None else round(value, digits)


def _show_rounds(events: Sequence[Event], game: int, show: Callable[[str], object]) -> None:
    state = initial_state()
    for event in events:
        state = evolve(state, event)
        if isinstance(event, RoundEnded):
            show(f"game {game}, " + render_round(state))


def _player_range(text: str) -> tuple[int, int]:
    """``"5"`` or ``"3-10"``: an inclusive range of player counts.

    >>> _player_range("3-10"), _player_range("4")
    ((3, 10), (4, 4))
    """
    low, _, high = text.partition("-")
    try:
        bounds = (int(low), int(high or low))
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a player count or range: {text!r}") from None
    if bounds[0] > bounds[1]:
        raise argparse.ArgumentTypeError(f"empty range: {text!r}")
    return bounds


def _variants(text: str) -> tuple[str, ...]:
    """``"greedy_dwarf,selfish_dwarf"`` or ``"all"``: the variants played.

    >>> _variants("all") == VARIANTS, _variants("selfish_dwarf")
    (True, ('selfish_dwarf',))
    """
    names = VARIANTS if text == "all" else tuple(n.strip() for n in text.split(",") if n.strip())
    unknown = [n for n in names if n not in VARIANTS]
    if unknown:
        raise argparse.ArgumentTypeError(f"unknown variants {unknown}; of {', '.join(VARIANTS)}")
    return tuple(v for v in VARIANTS if v in names)


def main(
    argv: Sequence[str] | None = None,
    clock: Clock | None = None,
    cpu_clock: Clock | None = None,
) -> int:
    """The ``simulate`` command: prints one JSON line (after the mazes, with ``--show``).

    The caller owns the clocks (``time.perf_counter``, ``time.process_time``); without
    them the speed figures print as ``null``.
    """
    parser = argparse.ArgumentParser(prog="simulate", description=__doc__)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--edition", choices=("base", "saboteur2"), default="saboteur2")
    parser.add_argument(
        "--players", type=_player_range, default=(5, 5), metavar="P|P-Q", help="player counts"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--variants",
        type=_variants,
        default=(),
        metavar="V,V|all",
        help=f"base: variants played, comma-separated, of {', '.join(VARIANTS)}; or all",
    )
    parser.add_argument("--no-check", action="store_true", help="skip the invariant checks")
    parser.add_argument(
        "--show", action="store_true", help="print the maze of each round as it ended"
    )
    args = parser.parse_args(argv)
    low, high = args.players
    limits = PLAYER_LIMITS[args.edition]
    if not limits[0] <= low <= high <= limits[1]:
        parser.error(f"{args.edition} is played by {limits[0]} to {limits[1]} players")
    if args.variants and args.edition != "base":
        parser.error("variants are played in the base edition")
    report = simulate(
        args.games,
        args.edition,
        (low, high),
        args.seed,
        not args.no_check,
        clock=clock,
        cpu_clock=cpu_clock,
        show=print if args.show else None,
        variants=args.variants,
    )
    print(json.dumps(report))
    return 1 if report["violations"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
