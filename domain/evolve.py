"""``evolve``: the rules engine applying one recorded fact to a state.

``evolve(state, event)`` knows no rule and no chance: every outcome is in the event (the
card drawn, the goal turned over, the role a map showed), so replaying a game's events
rebuilds its state exactly. :func:`fold` applies many, from :func:`initial_state`.

>>> from domain.events import GameCreated, PlayerJoined
>>> state = fold([GameCreated(1, "Ann", "base", 5, 180, False), PlayerJoined(2, "Bo")])
>>> state.phase, state.seating, state.events_applied
('lobby', (1, 2), 2)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import assert_never

from domain import board as geo
from domain.cards import Action, Role, card
from domain.events import (
    ActionEvent,
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
    HandsSwapped,
    HatsSwapped,
    MapLooked,
    PathPlaced,
    PlayerCameBack,
    PlayerFreed,
    PlayerImprisoned,
    PlayerJoined,
    PlayerLeft,
    PlayerReminded,
    PlayerWentAway,
    RockfallPlayed,
    RoleInspected,
    RoundEnded,
    RoundStarted,
    SeatHandedOver,
    SettingsChanged,
    TheftPlanned,
    TheftResolved,
    TheftsStarted,
    TheftStopped,
    ToolBroken,
    ToolRepaired,
)
from domain.state import Decision, GameState, LastMove, PlayerId, assoc, dissoc, frozen_map


def initial_state() -> GameState:
    return GameState()


def fold(events: Iterable[Event], state: GameState | None = None) -> GameState:
    """Apply ``events`` in order to ``state`` (the initial state when omitted)."""
    current = state if state is not None else initial_state()
    for event in events:
        current = evolve(current, event)
    return current


def evolve(state: GameState, event: Event) -> GameState:
    """Apply one recorded fact. No rule is checked and no chance is drawn here."""
    state = _evolve(state, event)
    return state.update(events_applied=state.events_applied + 1)


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


def _played(
    state: GameState,
    e: ActionEvent,
    action: str,
    target: PlayerId | None = None,
    cell: geo.Cell | None = None,
) -> GameState:
    """The action card ``e.card`` left ``e.player``'s hand: it is the round's last move."""
    state = _close(state, e.player)
    hand = _without(state.hand(e.player), (e.card,))
    return state.update(
        hands=assoc(state.hands, e.player, hand),
        last_card_player=e.player,
        last_move=LastMove(e.player, "action", e.card, cell, action, target),
    )


def _discarded(state: GameState, *cards: int | None) -> GameState:
    return state.update(discards=state.discards + tuple(c for c in cards if c is not None))


def _evolve_action(state: GameState, e: ActionEvent) -> GameState:
    match e:
        case ToolBroken():
            kind = f"broken_{e.tool}"
            return _lay_front(_played(state, e, kind, e.target), e.target, kind, e.card)
        case ToolRepaired():
            state = _played(state, e, _kind(state, e.card), e.target)
            state, removed = _take_front(state, e.target, f"broken_{e.tool}")
            return _discarded(state, e.card, removed)
        case RockfallPlayed():
            state = _played(state, e, Action.ROCKFALL.value, cell=e.cell)
            tile = state.board[e.cell]
            state = state.update(board=geo.without_tile(state.board, e.cell))
            return _discarded(state, e.card, tile.card)
        case MapLooked():
            state = _played(state, e, Action.MAP.value, cell=e.cell)
            known = assoc(state.known_goals.get(e.player, frozen_map()), e.cell, e.kind)
            state = state.update(known_goals=assoc(state.known_goals, e.player, known))
            return _discarded(state, e.card)
        case RoleInspected():
            state = _played(state, e, Action.INSPECTION.value, e.target)
            seen = assoc(state.inspected.get(e.player, frozen_map()), e.target, e.role)
            state = state.update(inspected=assoc(state.inspected, e.player, seen))
            return _discarded(state, e.card)
        case HandsSwapped():
            state = _played(state, e, Action.SWAP_HAND.value, e.target)
            mine, theirs = state.hand(e.player), state.hand(e.target)
            hands = assoc(assoc(state.hands, e.player, theirs), e.target, mine)
            return _discarded(state.update(hands=hands), e.card)
        case HatsSwapped():
            state = _played(state, e, Action.SWAP_HATS.value, e.target)
            old = state.roles[e.target]
            state = state.update(
                roles=assoc(state.roles, e.target, Role(e.role)),
                dwarf_pile=(*state.dwarf_pile[1:], old),
            )
            return _discarded(state, e.card)
        case TheftPlanned():
            state = _played(state, e, Action.THEFT.value, e.player)
            return _lay_front(state, e.player, Action.THEFT.value, e.card)
        case TheftStopped():
            state = _played(state, e, Action.HANDS_OFF.value, e.target)
            state, removed = _take_front(state, e.target, Action.THEFT.value)
            return _discarded(state, e.card, removed)
        case PlayerImprisoned():
            state = _played(state, e, Action.TRAPPED.value, e.target)
            return _lay_front(state, e.target, Action.TRAPPED.value, e.card)
        case PlayerFreed():
            state = _played(state, e, Action.FREE_AT_LAST.value, e.target)
            state, removed = _take_front(state, e.target, Action.TRAPPED.value)
            return _discarded(state, e.card, removed)
        case _:
            assert_never(e)


def _kind(state: GameState, card_id: int) -> str:
    """The action card ``card_id`` is (a repair card: which tools it mends)."""
    action = card(state.edition, card_id).action
    assert action is not None, card_id
    return action.value


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
            if e.kind == geo.TREASURE_KIND and state.last_move is not None:
                reached_by = state.last_move.player
            return state.update(
                board=geo.with_tile(state.board, e.cell, tile),
                treasure_reached_by=reached_by,
            )
        case (
            ToolBroken()
            | ToolRepaired()
            | RockfallPlayed()
            | MapLooked()
            | RoleInspected()
            | HandsSwapped()
            | HatsSwapped()
            | TheftPlanned()
            | TheftStopped()
            | PlayerImprisoned()
            | PlayerFreed()
        ):
            return _evolve_action(state, e)
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
