"""The rules engine as a Decider: ``decide`` checks every rule, ``evolve`` applies facts.

``decide(state, command)`` returns the events a command causes or raises a
:class:`~domain.errors.DomainError` (the state is never touched). ``evolve(state, event)``
applies one event and knows no rule and no chance: every outcome is in the event.

>>> from domain.commands import CreateGame, JoinGame, StartGame
>>> state = initial_state()
>>> for command in (CreateGame(1, "Ann", "base", chat_id=5), JoinGame(2, "Bo"),
...                 JoinGame(3, "Cy"), StartGame(1, seed=7)):
...     state = fold(decide(state, command), state)
>>> state.phase, state.round, len(state.hand(1))
('playing', 1, 6)
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Final, assert_never

from domain import board as geo
from domain import errors, rng, scoring
from domain.cards import (
    BREAKS,
    EDITIONS,
    EXPANSION_SET_ASIDE,
    GOALS,
    PLAYER_LIMITS,
    REPAIRS,
    VARIANT_EDITIONS,
    VARIANTS,
    Action,
    Card,
    Role,
    Tool,
    card,
    deck,
    dwarf_cards,
    hand_size,
    is_gold_digger,
    nugget_cards,
    variants_in_order,
)
from domain.commands import (
    LEVELS,
    AddComputerPlayer,
    CancelGame,
    ChangeSettings,
    ChooseTheftVictim,
    ComeBack,
    Command,
    CreateGame,
    DiscardToRemove,
    HandSeatToComputer,
    JoinGame,
    LeaveGame,
    MakeComputerMove,
    Pass,
    PickGold,
    PlacePath,
    PlayAction,
    RemindPlayer,
    RemoveComputerPlayer,
    SetComputerLevel,
    StartGame,
    TimeOut,
)
from domain.events import (
    ActionPlayed,
    CardDrawn,
    CardsDiscarded,
    ComputerLevelSet,
    ComputerPlayerAdded,
    ComputerPlayerRemoved,
    DecisionOpened,
    DecisionTimedOut,
    Event,
    FrontCardRemoved,
    GameCancelled,
    GameCreated,
    GameEnded,
    GameStarted,
    GoalRevealed,
    GoldPaid,
    GoldPicked,
    GoldPickStarted,
    PathPlaced,
    PlayerCameBack,
    PlayerJoined,
    PlayerLeft,
    PlayerReminded,
    PlayerWentAway,
    RoundEnded,
    RoundStarted,
    SeatHandedOver,
    SettingsChanged,
    TheftResolved,
    TheftsStarted,
)
from domain.state import (
    Decision,
    DecisionKind,
    GameState,
    LastMove,
    PlayerId,
    assoc,
    dissoc,
    frozen_map,
)

ROUNDS: Final = 3
AWAY_AFTER: Final = 3  # timeouts in a row (docs/rules.md §7.3)
TURN_SECONDS: Final = (10, 7 * 24 * 3600)
REMINDERS: Final = ("half", "soon")
TREASURE: Final = "goal_treasure"
AWAY_PLAY: Final = ("computer", "pass")
GOLD_PICKS: Final = ("auto", "manual")
SELFISH_KEEPS: Final = 2  # nugget cards the selfish dwarf keeps (docs/rules.md §8)
# Computer players' names: one is drawn for each computer seated, never two alike, nor
# one a person at the table goes by.
COMPUTER_NAMES: Final = (
    "Greta", "Bruno", "Ida", "Otto", "Hilda", "Rune", "Sigrid", "Tove",
    "Ulla", "Vidar", "Astrid", "Finn", "Liv", "Magnus", "Nora", "Sven",
)  # fmt: skip
COMPUTER_MARK: Final = "🤖"
# What a decider-made default uses of a command's seed (each draw its own stream).
_SEED_DWARVES, _SEED_DECK, _SEED_GOALS, _SEED_FIRST, _SEED_NUGGETS, _SEED_DEFAULT = range(6)

Target = tuple[PlayerId | None, geo.Cell | None, Tool | None]


# --------------------------------------------------------------------------- public API


class _Log:
    """Events emitted so far, and the state they lead to (so later rules see them)."""

    __slots__ = ("events", "state")

    def __init__(self, state: GameState) -> None:
        self.state = state
        self.events: list[Event] = []

    def emit(self, event: Event) -> None:
        self.events.append(event)
        self.state = evolve(self.state, event)


def _emitted(state: GameState, *events: Event) -> _Log:
    log = _Log(state)
    for event in events:
        log.emit(event)
    return log


def initial_state() -> GameState:
    return GameState()


def is_terminal(state: GameState) -> bool:
    return state.phase in ("finished", "cancelled")


def fold(events: Iterable[Event], state: GameState | None = None) -> GameState:
    """Apply ``events`` in order to ``state`` (the initial state when omitted)."""
    current = state if state is not None else initial_state()
    for event in events:
        current = evolve(current, event)
    return current


def decide(state: GameState, command: Command) -> list[Event]:
    """The events ``command`` causes in ``state``; raises a DomainError when refused."""
    return _dispatch(state, command).events


def execute(state: GameState, command: Command) -> tuple[list[Event], GameState]:
    """``decide``, and the state its events lead to (``fold(events, state)``, computed once)."""
    log = _dispatch(state, command)
    return log.events, log.state


def _dispatch(state: GameState, command: Command) -> _Log:
    match command:
        case CreateGame():
            return _create(state, command)
        case JoinGame():
            return _join(state, command)
        case LeaveGame():
            return _leave(state, command)
        case AddComputerPlayer():
            return _add_computer(state, command)
        case RemoveComputerPlayer():
            return _remove_computer(state, command)
        case SetComputerLevel():
            return _set_computer_level(state, command)
        case ChangeSettings():
            return _change_settings(state, command)
        case StartGame():
            return _start(state, command)
        case CancelGame():
            return _cancel(state, command)
        case PlacePath():
            return _place_path(state, command)
        case PlayAction():
            return _play_action(state, command)
        case Pass():
            return _pass(state, command)
        case DiscardToRemove():
            return _discard_to_remove(state, command)
        case PickGold():
            return _pick_gold(state, command)
        case ChooseTheftVictim():
            return _choose_victim(state, command)
        case ComeBack():
            return _come_back(state, command)
        case HandSeatToComputer():
            return _hand_over(state, command)
        case MakeComputerMove():
            return _computer_move(state, command)
        case TimeOut():
            return _time_out(state, command)
        case RemindPlayer():
            return _remind(state, command)
        case _:
            assert_never(command)


# --------------------------------------------------------------------- shared queries


def is_path(edition: str, card_id: int) -> bool:
    return card(edition, card_id).path is not None  # type: ignore[arg-type]


def tools_broken(state: GameState, player: PlayerId) -> bool:
    return any(kind.startswith("broken_") for kind in state.front_of(player))


def trapped_players(state: GameState) -> frozenset[PlayerId]:
    return frozenset(p for p in state.seating if "trapped" in state.front_of(p))


def action_targets(state: GameState, actor: PlayerId, action: Action) -> list[Target]:
    """Every legal (target_player, target_cell, tool) for ``action`` played by ``actor``."""
    players = state.seating
    front = state.front_of
    if action in BREAKS:
        return [(p, None, None) for p in players if action.value not in front(p)]
    if action in REPAIRS:
        return [
            (p, None, tool)
            for tool in sorted(REPAIRS[action], key=lambda t: t.value)
            for p in players
            if f"broken_{tool.value}" in front(p)
        ]
    match action:
        case Action.ROCKFALL:
            return [(None, c, None) for c in sorted(state.board) if geo.can_remove(state.board, c)]
        case Action.MAP:
            return [
                (None, c, None)
                for c in state.goal_cells
                if c in state.board and not state.board[c].face_up
            ]
        case Action.THEFT:
            return [] if "theft" in front(actor) else [(actor, None, None)]
        case Action.HANDS_OFF:
            return [(p, None, None) for p in players if "theft" in front(p)]
        case Action.SWAP_HATS:
            return [(p, None, None) for p in players]
        case Action.TRAPPED:
            return [(p, None, None) for p in players if p != actor and "trapped" not in front(p)]
        case Action.FREE_AT_LAST:
            return [(p, None, None) for p in players if "trapped" in front(p)]
        case Action.INSPECTION | Action.SWAP_HAND:
            return [(p, None, None) for p in players if p != actor]
    raise AssertionError(action)


def theft_victims(state: GameState, thief: PlayerId) -> tuple[PlayerId, ...]:
    gold = {p: state.gold.get(p, 0) for p in state.seating}
    return scoring.theft_victims(thief, gold, state.seating)


def pick_values(state: GameState) -> tuple[int, ...]:
    return tuple(sorted(set(state.gold_pick_offer)))


# ------------------------------------------------------------------------ the lobby


def _require_phase(state: GameState, *allowed: str) -> None:
    if state.phase in allowed:
        return
    match state.phase:
        case "new":
            raise errors.NoGame()
        case "finished" | "cancelled":
            raise errors.GameOver()
        case "lobby":
            raise errors.NotStarted()
        case _:
            raise errors.NotInLobby()


def _require_creator(state: GameState, actor: PlayerId) -> None:
    if not state.is_player(actor):
        raise errors.NotAPlayer()
    if actor != state.creator:
        raise errors.NotTheCreator()


def _check_turn_seconds(seconds: int) -> None:
    if not TURN_SECONDS[0] <= seconds <= TURN_SECONDS[1]:
        raise errors.InvalidSettings(f"turn_seconds must be within {TURN_SECONDS}")


def _create(state: GameState, cmd: CreateGame) -> _Log:
    if state.phase != "new":
        raise errors.GameAlreadyCreated()
    if cmd.edition not in EDITIONS:
        raise errors.InvalidSettings(f"unknown edition {cmd.edition!r}")
    _check_turn_seconds(cmd.turn_seconds)
    _check_play_settings(cmd.away_play, cmd.gold_pick)
    variants = _check_variants(cmd.edition, cmd.variants)
    return _emitted(
        state,
        GameCreated(
            cmd.actor,
            cmd.name,
            cmd.edition,
            cmd.chat_id,
            cmd.turn_seconds,
            cmd.gold_house_rule,
            practice=cmd.practice,
            away_play=cmd.away_play,
            gold_pick=cmd.gold_pick,
            variants=variants,
            topic=cmd.topic,
        ),
    )


def _check_variants(edition: str, variants: tuple[str, ...]) -> tuple[str, ...]:
    """The variants asked for, as stored (docs/rules.md §8): known names, each once, and
    none outside the base edition."""
    unknown = [v for v in variants if v not in VARIANTS]
    if unknown:
        raise errors.InvalidSettings(f"unknown variants {unknown}")
    if len(set(variants)) != len(variants):
        raise errors.InvalidSettings("a variant named twice")
    if variants and edition not in VARIANT_EDITIONS:
        raise errors.InvalidSettings(f"variants are played in {VARIANT_EDITIONS} only")
    return variants_in_order(variants)


def _check_play_settings(away_play: str | None, gold_pick: str | None) -> None:
    if away_play is not None and away_play not in AWAY_PLAY:
        raise errors.InvalidSettings(f"away_play must be one of {AWAY_PLAY}")
    if gold_pick is not None and gold_pick not in GOLD_PICKS:
        raise errors.InvalidSettings(f"gold_pick must be one of {GOLD_PICKS}")


def _join(state: GameState, cmd: JoinGame) -> _Log:
    _require_phase(state, "lobby")
    if state.is_player(cmd.actor):
        raise errors.AlreadyJoined()
    if state.practice:
        raise errors.PracticeGame()
    _require_free_seat(state)
    return _emitted(state, PlayerJoined(cmd.actor, cmd.name))


def _require_free_seat(state: GameState) -> None:
    if len(state.seating) >= PLAYER_LIMITS[state.edition][1]:
        raise errors.GameFull()


def _leave(state: GameState, cmd: LeaveGame) -> _Log:
    _require_phase(state, "lobby")
    if not state.is_player(cmd.actor):
        raise errors.NotAPlayer()
    if state.is_computer(cmd.actor):
        raise errors.ComputerSeat()
    if state.humans() == (cmd.actor,):  # computer players alone make no game
        return _emitted(state, PlayerLeft(cmd.actor), GameCancelled(cmd.actor))
    return _emitted(state, PlayerLeft(cmd.actor))


def computer_name(name: str) -> str:
    """How a computer player is named at the table.

    >>> computer_name("Greta")
    '🤖 Greta'
    """
    return f"{COMPUTER_MARK} {name}"


def _add_computer(state: GameState, cmd: AddComputerPlayer) -> _Log:
    _require_phase(state, "lobby")
    _require_free_seat(state)
    # Small negative ids: no Telegram user has one.
    player = min(state.computers, default=0) - 1
    taken = set(state.names.values())
    # Nor one a person at the table goes by ("🤖 Ida" beside Ida): their first names.
    people = {name.split()[0].casefold() for name in taken if name.split()}
    free = [
        computer_name(n)
        for n in COMPUTER_NAMES
        if computer_name(n) not in taken and n.casefold() not in people
    ]
    name = rng.choice(free, cmd.seed) if free else computer_name(str(-player))
    level = cmd.level if cmd.level is not None else state.computer_level
    _check_level(level)
    return _emitted(state, ComputerPlayerAdded(player, name, level))


def _check_level(level: str) -> None:
    if level not in LEVELS:
        raise errors.InvalidSettings(f"unknown level {level!r}")


def _set_computer_level(state: GameState, cmd: SetComputerLevel) -> _Log:
    """docs/rules.md §7.5: a computer player's level is chosen in the lobby, for one seat
    or for them all (and those seated later)."""
    _require_phase(state, "lobby")
    _require_creator(state, cmd.actor)
    _check_level(cmd.level)
    if cmd.player is not None and not state.is_computer(cmd.player):
        raise errors.NotAComputerPlayer()
    return _emitted(state, ComputerLevelSet(cmd.level, cmd.player))


def _remove_computer(state: GameState, cmd: RemoveComputerPlayer) -> _Log:
    _require_phase(state, "lobby")
    seated = [p for p in state.seating if state.is_computer(p)]
    player = cmd.player if cmd.player is not None else (seated[-1] if seated else None)
    if player is None or player not in seated:
        raise errors.NotAComputerPlayer()
    return _emitted(state, ComputerPlayerRemoved(player))


def _change_settings(state: GameState, cmd: ChangeSettings) -> _Log:
    _require_phase(state, "lobby")
    _require_creator(state, cmd.actor)
    edition = cmd.edition if cmd.edition is not None else state.edition
    seconds = cmd.turn_seconds if cmd.turn_seconds is not None else state.turn_seconds
    if edition not in EDITIONS:
        raise errors.InvalidSettings(f"unknown edition {edition!r}")
    _check_turn_seconds(seconds)
    _check_play_settings(cmd.away_play, cmd.gold_pick)
    if len(state.seating) > PLAYER_LIMITS[edition][1]:
        raise errors.GameFull()
    variants = None if cmd.variants is None else _check_variants(edition, cmd.variants)
    if variants is None and state.variants and edition not in VARIANT_EDITIONS:
        variants = ()  # another edition: its variants are switched off (docs/rules.md §8)
    return _emitted(
        state, SettingsChanged(edition, seconds, cmd.away_play, cmd.gold_pick, variants)
    )


def _cancel(state: GameState, cmd: CancelGame) -> _Log:
    _require_phase(state, "lobby", "playing")
    _require_creator(state, cmd.actor)
    return _emitted(state, GameCancelled(cmd.actor))


def _start(state: GameState, cmd: StartGame) -> _Log:
    _require_phase(state, "lobby")
    _require_creator(state, cmd.actor)
    low, high = PLAYER_LIMITS[state.edition]
    if not state.humans():
        raise errors.NoHumanPlayer()
    if len(state.seating) < low:
        raise errors.NotEnoughPlayers(f"{state.edition} needs {low} players")
    if len(state.seating) > high:
        raise errors.GameFull()
    log = _Log(state)
    pile = (
        rng.shuffle(nugget_cards(), rng.derive(cmd.seed, _SEED_NUGGETS))
        if state.edition == "base"
        else ()
    )
    log.emit(GameStarted(state.seating, pile))
    first = rng.choice(state.seating, rng.derive(cmd.seed, _SEED_FIRST))
    _start_round(log, 1, first, cmd.at, cmd.seed)
    return log


# ------------------------------------------------------------------------ rounds


def _start_round(log: _Log, number: int, first: PlayerId, at: int, seed: int) -> None:
    state = log.state
    edition = state.edition
    seating = state.seating
    players = len(seating)
    dwarves = rng.shuffle(
        dwarf_cards(edition, players, state.variants), rng.derive(seed, _SEED_DWARVES)
    )
    cards = rng.shuffle(range(len(deck(edition))), rng.derive(seed, _SEED_DECK))
    goals = rng.shuffle(tuple(g.kind for g in GOALS), rng.derive(seed, _SEED_GOALS))
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
    _open(log, first, "turn", at)


def _open(log: _Log, player: PlayerId, kind: DecisionKind, at: int) -> None:
    """Open a decision. The computer's has the whole timer too, as a safety net: its move
    comes after a short pause (the adapter's), and if none comes the deadline decides.
    An away player's decision the computer does not make is due at once."""
    state = log.state
    computer = state.computer_plays(player)
    deadline = at if player in state.away and not computer else at + state.turn_seconds * 1000
    log.emit(DecisionOpened(state.decisions_opened + 1, player, kind, deadline, computer))


def _draw(log: _Log, player: PlayerId, count: int) -> None:
    for _ in range(count):
        pile = log.state.draw_pile
        if not pile:
            return
        log.emit(CardDrawn(player, pile[0]))


def _after_turn(log: _Log, player: PlayerId, draws: int, at: int, seed: int) -> None:
    """Draw, then hand the turn to the next player with cards, or end the round."""
    _draw(log, player, draws)
    state = log.state
    seating = state.seating
    start = seating.index(player)
    for step in range(1, len(seating) + 1):
        candidate = seating[(start + step) % len(seating)]
        if state.hand(candidate):
            _open(log, candidate, "turn", at)
            return
    _end_round(log, reached_by=None, at=at, seed=seed)


def _end_round(log: _Log, reached_by: PlayerId | None, at: int, seed: int) -> None:
    state = log.state
    seating = state.seating
    roles = state.roles
    reached = state.treasure_reached_by is not None or reached_by is not None
    revealed = tuple((p, roles[p].value) for p in seating)
    if state.edition == "base":
        _end_base_round(log, reached, reached_by, at, seed)
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
    _next_theft(log, at, seed)


def _end_base_round(
    log: _Log, reached: bool, reached_by: PlayerId | None, at: int, seed: int
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
        _finish_round(log, at, seed)
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
        _finish_round(log, at, seed)
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
    _next_pick(log, at, seed)


def _next_pick(log: _Log, at: int, seed: int) -> None:
    while log.state.gold_pick_order:
        state = log.state
        picker = state.gold_pick_order[0]
        values = pick_values(state)
        if len(values) > 1 and state.gold_pick == "manual":
            _open(log, picker, "gold_pick", at)
            return
        # No choice left, or the automatic pick (§7.1, §7.6): the largest nugget, taken at once.
        log.emit(GoldPicked(picker, values[-1]))
    _finish_round(log, at, seed)


def _next_theft(log: _Log, at: int, seed: int) -> None:
    while log.state.thieves_pending:
        state = log.state
        thief = state.thieves_pending[0]
        victims = theft_victims(state, thief)
        if len(victims) > 1:
            _open(log, thief, "theft", at)
            return
        log.emit(TheftResolved(thief, victims[0] if victims else None))  # no choice
    _finish_round(log, at, seed)


def _finish_round(log: _Log, at: int, seed: int) -> None:
    state = log.state
    if state.round >= ROUNDS:
        gold = {p: state.gold.get(p, 0) for p in state.seating}
        log.emit(GameEnded(tuple(gold.items()), tuple(scoring.game_winners(gold))))
        return
    last = state.last_path_player if state.edition == "base" else state.last_card_player
    if last is None:  # nobody played such a card: go on round the table
        last = state.first_player if state.first_player is not None else state.seating[0]
    _start_round(log, state.round + 1, scoring.next_seat(state.seating, last), at, seed)


# ------------------------------------------------------------------------ turns


def _require_decision(
    state: GameState, actor: PlayerId, kind: DecisionKind, by_computer: bool = False
) -> Decision:
    _require_phase(state, "playing")
    if not state.is_player(actor):
        raise errors.NotAPlayer()
    if not by_computer:
        _require_person(state, actor)
    pending = state.pending
    if pending is None:
        raise errors.NoDecisionPending()
    if pending.player != actor:
        raise errors.NotYourTurn()
    if pending.kind != kind:
        raise errors.WrongDecision(f"{actor} owes a {pending.kind} decision")
    return pending


def _require_person(state: GameState, actor: PlayerId) -> None:
    """``actor`` acts as a person: a human seat, whose player did not leave."""
    if state.is_computer(actor):
        raise errors.ComputerSeat()
    if state.handed_over.get(actor) == "left":
        raise errors.LeftTheGame()


def _acting(state: GameState, actor: PlayerId, by_computer: bool = False) -> _Log:
    """A log for a decision made: one the player made themselves brings them back from
    being away or handed over."""
    log = _Log(state)
    if not by_computer and (actor in state.away or actor in state.handed_over):
        log.emit(PlayerCameBack(actor))
    return log


def _card_in_hand(state: GameState, actor: PlayerId, card_id: int) -> Card:
    if card_id not in state.hand(actor):
        raise errors.CardNotInHand(str(card_id))
    return card(state.edition, card_id)


def _place_path(state: GameState, cmd: PlacePath, by_computer: bool = False) -> _Log:
    _require_decision(state, cmd.actor, "turn", by_computer)
    played = _card_in_hand(state, cmd.actor, cmd.card)
    if played.path is None:
        raise errors.WrongCardType("not a path card")
    if tools_broken(state, cmd.actor):
        raise errors.ToolsBroken()
    if "trapped" in state.front_of(cmd.actor):
        raise errors.PlayerTrapped()
    cell = (cmd.cell[0], cmd.cell[1])
    reason = geo.placement_error(state.board, played.kind, cell, cmd.rotated)
    if reason is not None:
        raise errors.IllegalPlacement(reason)
    log = _acting(state, cmd.actor, by_computer)
    log.emit(PathPlaced(cmd.actor, cmd.card, cell, cmd.rotated))
    treasure = False
    while reached := geo.reached_goals(log.state.board):
        for goal in reached:
            board = log.state.board
            tile = geo.reveal(board, goal, _reached_from(board, goal, cell))[goal]
            log.emit(GoalRevealed(goal, tile.kind, tile.rotated))
            treasure = treasure or tile.kind == TREASURE
    if treasure:
        _end_round(log, reached_by=cmd.actor, at=cmd.at, seed=cmd.seed)
    else:
        _after_turn(log, cmd.actor, 1, cmd.at, cmd.seed)
    return log


def _reached_from(board: geo.Board, goal: geo.Cell, placed: geo.Cell) -> geo.Cell:
    """The neighbour whose connected opening reaches ``goal``; the card just placed first."""
    connected = geo.connected_segments(board)
    found: list[geo.Cell] = []
    for side in (1, 2, 4, 8):
        other = geo.neighbour(goal, side)
        tile = board.get(other)
        if tile is None or not tile.face_up:
            continue
        facing = ((side << 2) | (side >> 2)) & 0xF
        for index, segment in enumerate(tile.segments):
            if segment & facing and (other, index) in connected:
                found.append(other)
    if placed in found or not found:
        return placed
    return found[0]


def _play_action(state: GameState, cmd: PlayAction, by_computer: bool = False) -> _Log:
    _require_decision(state, cmd.actor, "turn", by_computer)
    played = _card_in_hand(state, cmd.actor, cmd.card)
    action = played.action
    if action is None:
        raise errors.WrongCardType("not an action card")
    target: Target = (cmd.target_player, cmd.target_cell, cmd.tool)
    if cmd.target_cell is not None:
        target = (cmd.target_player, (cmd.target_cell[0], cmd.target_cell[1]), cmd.tool)
    if target not in action_targets(state, cmd.actor, action):
        raise errors.InvalidTarget(f"{action.value} cannot target {target}")
    result: str | None = None
    if action is Action.MAP and target[1] is not None:
        result = state.board[target[1]].kind
    elif action is Action.INSPECTION and cmd.target_player is not None:
        result = state.roles[cmd.target_player].value
    elif action is Action.SWAP_HATS:
        result = state.dwarf_pile[0].value
    log = _acting(state, cmd.actor, by_computer)
    log.emit(
        ActionPlayed(
            cmd.actor,
            cmd.card,
            action.value,
            target_player=target[0],
            target_cell=target[1],
            tool=cmd.tool.value if cmd.tool is not None else None,
            result=result,
        )
    )
    if action is Action.SWAP_HAND and cmd.target_player is not None:
        _draw(log, cmd.target_player, 1)
    _after_turn(log, cmd.actor, 1, cmd.at, cmd.seed)
    return log


def _check_discard(state: GameState, actor: PlayerId, cards: tuple[int, ...]) -> None:
    hand = state.hand(actor)
    if any(c not in hand for c in cards):
        raise errors.CardNotInHand(str(cards))
    if any(a >= b for a, b in itertools.pairwise(cards)):
        raise errors.InvalidPass("cards must be distinct, in increasing order")


def _pass(state: GameState, cmd: Pass, by_computer: bool = False) -> _Log:
    _require_decision(state, cmd.actor, "turn", by_computer)
    cards = tuple(cmd.cards)
    most = 1 if state.edition == "base" else 3
    if not 1 <= len(cards) <= most:
        raise errors.InvalidPass(f"discard 1 to {most} cards")
    _check_discard(state, cmd.actor, cards)
    log = _acting(state, cmd.actor, by_computer)
    log.emit(CardsDiscarded(cmd.actor, cards))
    _after_turn(log, cmd.actor, len(cards), cmd.at, cmd.seed)
    return log


def _discard_to_remove(state: GameState, cmd: DiscardToRemove, by_computer: bool = False) -> _Log:
    _require_decision(state, cmd.actor, "turn", by_computer)
    if state.edition != "saboteur2":
        raise errors.NotInEdition("discard to remove is a saboteur2 option")
    cards = tuple(cmd.cards)
    if len(cards) != 2:
        raise errors.InvalidPass("discard exactly 2 cards")
    _check_discard(state, cmd.actor, cards)
    if cmd.removed not in state.front_of(cmd.actor):
        raise errors.InvalidTarget(f"no {cmd.removed} in front of you")
    log = _acting(state, cmd.actor, by_computer)
    log.emit(FrontCardRemoved(cmd.actor, cards, cmd.removed))
    _after_turn(log, cmd.actor, 1, cmd.at, cmd.seed)
    return log


def _pick_gold(state: GameState, cmd: PickGold, by_computer: bool = False) -> _Log:
    _require_decision(state, cmd.actor, "gold_pick", by_computer)
    if cmd.value not in state.gold_pick_offer:
        raise errors.InvalidTarget(f"no nugget of value {cmd.value} on offer")
    log = _acting(state, cmd.actor, by_computer)
    log.emit(GoldPicked(cmd.actor, cmd.value))
    _next_pick(log, cmd.at, cmd.seed)
    return log


def _choose_victim(state: GameState, cmd: ChooseTheftVictim, by_computer: bool = False) -> _Log:
    _require_decision(state, cmd.actor, "theft", by_computer)
    if cmd.victim not in theft_victims(state, cmd.actor):
        raise errors.InvalidTarget(f"{cmd.victim} cannot be robbed")
    log = _acting(state, cmd.actor, by_computer)
    log.emit(TheftResolved(cmd.actor, cmd.victim))
    _next_theft(log, cmd.at, cmd.seed)
    return log


def _come_back(state: GameState, cmd: ComeBack) -> _Log:
    """An away player is back (§7.3). Their decision still pending was opened with a deadline
    already due: it is opened again, under a new id, with the whole timer, so the old
    deadline's ``TimeOut`` is stale and decides nothing."""
    _require_phase(state, "playing")
    if not state.is_player(cmd.actor):
        raise errors.NotAPlayer()
    _require_person(state, cmd.actor)
    if cmd.actor not in state.away and cmd.actor not in state.handed_over:
        raise errors.NotAway()
    log = _acting(state, cmd.actor)
    pending = state.pending
    if pending is not None and pending.player == cmd.actor:
        _open(log, cmd.actor, pending.kind, cmd.at)
    return log


def _hand_over(state: GameState, cmd: HandSeatToComputer) -> _Log:
    """The computer takes a human seat over (docs/rules.md §7.4): the player leaves, or the creator
    or an admin hands an absent player's seat over. A decision of theirs still pending is
    opened again, for the computer to make."""
    _require_phase(state, "playing")
    player = cmd.player
    if not state.is_player(player):
        raise errors.NotAPlayer()
    if state.is_computer(player):
        raise errors.ComputerSeat()
    reason = state.handed_over.get(player)
    if reason == "left":
        raise errors.LeftTheGame()
    leaving = cmd.actor == player
    if reason is not None and not leaving:
        raise errors.AlreadyHandedOver()
    log = _Log(state)
    if leaving:
        log.emit(SeatHandedOver(player, "left"))
    else:
        log.emit(SeatHandedOver(player, "kicked", cmd.actor))
    after = log.state
    if all(after.handed_over.get(p) == "left" for p in after.humans()):
        log.emit(GameCancelled(cmd.actor))  # every person left: nobody to play for
        return log
    pending = after.pending
    if pending is not None and pending.player == player and not pending.computer:
        _open(log, player, pending.kind, cmd.at)
    return log


def _computer_move(state: GameState, cmd: MakeComputerMove) -> _Log:
    """The computer's move on a seat it plays, checked like anyone's move."""
    pending = state.pending
    if state.phase != "playing" or pending is None or pending.id != cmd.decision:
        return _Log(state)  # decided already: a late or repeated move decides nothing
    move = replace(cmd.move, at=cmd.at, seed=cmd.seed)
    if not pending.computer or move.actor != pending.player:
        raise errors.NotYourTurn("the computer does not make this decision")
    match move:
        case PlacePath():
            return _place_path(state, move, by_computer=True)
        case PlayAction():
            return _play_action(state, move, by_computer=True)
        case Pass():
            return _pass(state, move, by_computer=True)
        case DiscardToRemove():
            return _discard_to_remove(state, move, by_computer=True)
        case PickGold():
            return _pick_gold(state, move, by_computer=True)
        case ChooseTheftVictim():
            return _choose_victim(state, move, by_computer=True)
        case _:
            assert_never(move)


def _time_out(state: GameState, cmd: TimeOut) -> _Log:
    pending = state.pending
    if state.phase != "playing" or pending is None or pending.id != cmd.decision:
        return _Log(state)  # already decided: a stale deadline decides nothing
    player = pending.player
    log = _Log(state)
    log.emit(DecisionTimedOut(pending.id, player))
    if (
        log.state.timeouts_in_a_row.get(player, 0) >= AWAY_AFTER
        and player not in state.away
        and not pending.computer
    ):
        log.emit(PlayerWentAway(player))
        if state.away_play == "computer":
            log.emit(SeatHandedOver(player, "away"))
    seed = rng.derive(cmd.seed, _SEED_DEFAULT)
    match pending.kind:
        case "turn":
            discarded = rng.choice(state.hand(player), seed)
            log.emit(CardsDiscarded(player, (discarded,)))
            _after_turn(log, player, 1, cmd.at, cmd.seed)
        case "gold_pick":
            log.emit(GoldPicked(player, rng.choice(pick_values(state), seed)))
            _next_pick(log, cmd.at, cmd.seed)
        case "theft":
            log.emit(TheftResolved(player, rng.choice(theft_victims(state, player), seed)))
            _next_theft(log, cmd.at, cmd.seed)
        case _:
            assert_never(pending.kind)
    return log


def _remind(state: GameState, cmd: RemindPlayer) -> _Log:
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
        return _Log(state)
    return _emitted(state, PlayerReminded(pending.id, pending.player, cmd.which))


# ------------------------------------------------------------------------ evolve


def _without(items: tuple[int, ...], removed: Iterable[int]) -> tuple[int, ...]:
    gone = set(removed)
    return tuple(i for i in items if i not in gone)


def _close(state: GameState, player: PlayerId) -> GameState:
    """The pending decision of ``player`` was made by them: their timeout count restarts."""
    pending = state.pending
    if pending is None or pending.player != player:
        return state
    counts = state.timeouts_in_a_row
    if counts.get(player, 0):
        counts = assoc(counts, player, 0)
    return state.update(pending=None, timeouts_in_a_row=counts)


def _take_front(state: GameState, player: PlayerId, kind: str) -> tuple[GameState, int]:
    """Remove the card of ``kind`` lying in front of ``player``; return it too."""
    kinds = state.front_of(player)
    ids = state.front_cards.get(player, ())
    i = kinds.index(kind)
    thefts = state.thefts
    if kind == "theft":
        thefts = tuple(p for p in thefts if p != player)
    return (
        state.update(
            front=assoc(state.front, player, kinds[:i] + kinds[i + 1 :]),
            front_cards=assoc(state.front_cards, player, ids[:i] + ids[i + 1 :]),
            thefts=thefts,
        ),
        ids[i],
    )


def _lay_front(state: GameState, player: PlayerId, kind: str, card_id: int) -> GameState:
    thefts = (*state.thefts, player) if kind == "theft" else state.thefts
    return state.update(
        front=assoc(state.front, player, (*state.front_of(player), kind)),
        front_cards=assoc(state.front_cards, player, (*state.front_cards.get(player, ()), card_id)),
        thefts=thefts,
    )


def _evolve_action(state: GameState, e: ActionPlayed) -> GameState:
    hand = _without(state.hand(e.player), (e.card,))
    state = state.update(
        hands=assoc(state.hands, e.player, hand),
        last_card_player=e.player,
        last_move=LastMove(e.player, "action", e.card, e.target_cell, e.action, e.target_player),
    )
    action = Action(e.action)
    target = e.target_player
    discarded: tuple[int, ...] = (e.card,)
    if action in BREAKS or action in (Action.THEFT, Action.TRAPPED):
        assert target is not None
        return _lay_front(state, target, action.value, e.card)
    if action in REPAIRS or action in (Action.HANDS_OFF, Action.FREE_AT_LAST):
        assert target is not None
        kind = {Action.HANDS_OFF: "theft", Action.FREE_AT_LAST: "trapped"}.get(
            action, f"broken_{e.tool}"
        )
        state, removed = _take_front(state, target, kind)
        discarded += (removed,)
    elif action is Action.ROCKFALL:
        assert e.target_cell is not None
        tile = state.board[e.target_cell]
        state = state.update(board=geo.without_tile(state.board, e.target_cell))
        discarded += (tile.card,) if tile.card is not None else ()
    elif action is Action.MAP:
        assert e.target_cell is not None and e.result is not None
        known = assoc(state.known_goals.get(e.player, frozen_map()), e.target_cell, e.result)
        state = state.update(known_goals=assoc(state.known_goals, e.player, known))
    elif action is Action.INSPECTION:
        assert target is not None and e.result is not None
        seen = assoc(state.inspected.get(e.player, frozen_map()), target, e.result)
        state = state.update(inspected=assoc(state.inspected, e.player, seen))
    elif action is Action.SWAP_HATS:
        assert target is not None and e.result is not None
        old = state.roles[target]
        state = state.update(
            roles=assoc(state.roles, target, Role(e.result)),
            dwarf_pile=(*state.dwarf_pile[1:], old),
        )
    elif action is Action.SWAP_HAND:
        assert target is not None
        mine, theirs = state.hand(e.player), state.hand(target)
        state = state.update(hands=assoc(assoc(state.hands, e.player, theirs), target, mine))
    return state.update(discards=state.discards + discarded)


def evolve(state: GameState, event: Event) -> GameState:
    """Apply one recorded fact. No rule is checked and no chance is drawn here."""
    state = _evolve(state, event)
    return state.update(events_applied=state.events_applied + 1)


def _evolve(state: GameState, e: Event) -> GameState:
    match e:
        case GameCreated():
            return state.update(
                phase="lobby",
                edition=e.edition,
                chat_id=e.chat_id,
                creator=e.creator,
                turn_seconds=e.turn_seconds,
                gold_house_rule=e.gold_house_rule,
                practice=e.practice,
                away_play=e.away_play,
                gold_pick=e.gold_pick,
                variants=e.variants,
                goal_cells=geo.goal_cells(e.variants),
                topic=e.topic,
                names=frozen_map({e.creator: e.creator_name}),
                seating=(e.creator,),
            )
        case PlayerJoined():
            return state.update(
                names=assoc(state.names, e.player, e.name),
                seating=(*state.seating, e.player),
            )
        case PlayerLeft():
            seating = tuple(p for p in state.seating if p != e.player)
            names = {p: n for p, n in state.names.items() if p != e.player}
            creator = state.creator
            if creator == e.player:
                creator = next((p for p in seating if p not in state.computers), None)
            return state.update(seating=seating, names=frozen_map(names), creator=creator)
        case ComputerPlayerAdded():
            return state.update(
                names=assoc(state.names, e.player, e.name),
                seating=(*state.seating, e.player),
                computers=state.computers | {e.player},
                levels=assoc(state.levels, e.player, e.level),
            )
        case ComputerPlayerRemoved():
            return state.update(
                names=dissoc(state.names, e.player),
                seating=tuple(p for p in state.seating if p != e.player),
                computers=state.computers - {e.player},
                levels=dissoc(state.levels, e.player),
            )
        case ComputerLevelSet():
            if e.player is not None:
                return state.update(levels=assoc(state.levels, e.player, e.level))
            return state.update(
                computer_level=e.level,
                levels=frozen_map({p: e.level for p in state.computers}),
            )
        case SettingsChanged():
            return state.update(
                edition=e.edition,
                turn_seconds=e.turn_seconds,
                away_play=e.away_play if e.away_play is not None else state.away_play,
                gold_pick=e.gold_pick if e.gold_pick is not None else state.gold_pick,
                variants=e.variants if e.variants is not None else state.variants,
                goal_cells=geo.goal_cells(e.variants)
                if e.variants is not None
                else state.goal_cells,
            )
        case GameCancelled():
            return state.update(phase="cancelled", pending=None)
        case GameStarted():
            return state.update(
                phase="playing",
                seating=e.seating,
                nugget_pile=e.nugget_pile,
                gold=frozen_map({p: 0 for p in e.seating}),
                timeouts_in_a_row=frozen_map({p: 0 for p in e.seating}),
            )
        case RoundStarted():
            return state.update(
                round=e.round,
                round_began=state.events_applied + 1,
                roles=frozen_map({p: Role(r) for p, r in e.roles}),
                dwarf_pile=tuple(Role(r) for r in e.dwarf_pile),
                hands=frozen_map(dict(e.hands)),
                draw_pile=e.draw_pile,
                set_aside=e.set_aside,
                discards=(),
                goals=e.goals,
                board=geo.initial_board(e.goals, state.goal_cells),
                front=frozen_map({p: () for p in state.seating}),
                front_cards=frozen_map({p: () for p in state.seating}),
                thefts=(),
                known_goals=frozen_map(),
                inspected=frozen_map(),
                last_move=None,
                first_player=e.first_player,
                last_path_player=None,
                last_card_player=None,
                treasure_reached_by=None,
                gold_pick_offer=(),
                gold_pick_order=(),
                thieves_pending=(),
            )
        case DecisionOpened():
            return state.update(
                pending=Decision(e.decision, e.player, e.kind, e.deadline, e.computer),  # type: ignore[arg-type]
                decisions_opened=e.decision,
                reminders=frozenset(),
            )
        case PathPlaced():
            state = _close(state, e.player)
            tile = geo.Tile(card(state.edition, e.card).kind, e.card, e.rotated)
            return state.update(
                board=geo.with_tile(state.board, e.cell, tile),
                hands=assoc(state.hands, e.player, _without(state.hand(e.player), (e.card,))),
                last_path_player=e.player,
                last_card_player=e.player,
                last_move=LastMove(e.player, "path", e.card, e.cell),
            )
        case GoalRevealed():
            tile = geo.Tile(e.kind, None, e.rotated, True)
            reached_by = state.treasure_reached_by
            if e.kind == TREASURE and state.last_move is not None:
                reached_by = state.last_move.player
            return state.update(
                board=geo.with_tile(state.board, e.cell, tile),
                treasure_reached_by=reached_by,
            )
        case ActionPlayed():
            return _evolve_action(_close(state, e.player), e)
        case CardsDiscarded():
            state = _close(state, e.player)
            return state.update(
                hands=assoc(state.hands, e.player, _without(state.hand(e.player), e.cards)),
                discards=state.discards + e.cards,
                last_move=LastMove(e.player, "pass"),
            )
        case FrontCardRemoved():
            state, removed = _take_front(_close(state, e.player), e.player, e.removed)
            return state.update(
                hands=assoc(state.hands, e.player, _without(state.hand(e.player), e.cards)),
                discards=state.discards + e.cards + (removed,),
                last_move=LastMove(e.player, "discard_to_remove", action=e.removed),
            )
        case CardDrawn():
            return state.update(
                draw_pile=state.draw_pile[1:],
                hands=assoc(state.hands, e.player, (*state.hand(e.player), e.card)),
            )
        case DecisionTimedOut():
            count = state.timeouts_in_a_row.get(e.player, 0) + 1
            return state.update(
                pending=None,
                timeouts_in_a_row=assoc(state.timeouts_in_a_row, e.player, count),
            )
        case PlayerReminded():
            return state.update(reminders=state.reminders | {e.which})
        case PlayerWentAway():
            return state.update(away=state.away | {e.player})
        case PlayerCameBack():
            return state.update(
                away=state.away - {e.player},
                handed_over=dissoc(state.handed_over, e.player),
                timeouts_in_a_row=assoc(state.timeouts_in_a_row, e.player, 0),
            )
        case SeatHandedOver():
            return state.update(handed_over=assoc(state.handed_over, e.player, e.reason))
        case RoundEnded():
            return state.update(pending=None, round_results=(*state.round_results, e))
        case GoldPaid():
            gold = dict(state.gold)
            for p, amount in e.payouts:
                gold[p] = gold.get(p, 0) + amount
            pile = e.nugget_pile if state.edition == "base" else state.nugget_pile
            return state.update(gold=frozen_map(gold), nugget_pile=pile)
        case GoldPickStarted():
            return state.update(
                nugget_pile=state.nugget_pile[len(e.nuggets) :],
                gold_pick_offer=e.nuggets,
                gold_pick_order=e.order,
            )
        case GoldPicked():
            state = _close(state, e.player)
            offer = list(state.gold_pick_offer)
            offer.remove(e.value)
            return state.update(
                gold=assoc(state.gold, e.player, state.gold.get(e.player, 0) + e.value),
                gold_pick_offer=tuple(offer),
                gold_pick_order=state.gold_pick_order[1:],
            )
        case TheftsStarted():
            return state.update(thieves_pending=e.order)
        case TheftResolved():
            state = _close(state, e.thief)
            stolen: Mapping[PlayerId, int] = state.gold
            if e.victim is not None:
                stolen = assoc(stolen, e.victim, stolen.get(e.victim, 0) - 1)
                stolen = assoc(stolen, e.thief, stolen.get(e.thief, 0) + 1)
            return state.update(gold=stolen, thieves_pending=state.thieves_pending[1:])
        case GameEnded():
            return state.update(phase="finished", pending=None, winners=e.winners)
        case _:
            assert_never(e)
