"""What one player, or the public, may see of a game (docs/rules.md §6.3, §7.7).

This is the only way game state leaves the domain toward a chat: :func:`view_for` renders
a state from one point of view, :func:`describe` the part of an event a viewer may know.
Public (``viewer=None``: the group chat, spectators): the board with unrevealed goals
hidden, seating, names, hand counts, cards in front of players, the draw pile's size, the
round, the pending decision, who is away, which seats are computer players' and which the
computer plays now (and why), (saboteur2) who has gold, past round results.
Private to the viewer: their hand, their dwarf, their gold, goals they mapped, roles they
inspected, (the *saboteurs know each other* variant, a saboteur) the other saboteurs, and
(base, picking gold) the nugget cards passed to them while it is their pick: the first
picker sees every card drawn, each next one only what is left (§6.1, "gold is
secret"). Once a round has ended, what its face-down goals hide is public (every dwarf card
is turned up then too, :class:`~domain.events.RoundEnded`); once the game is finished,
everything is.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from domain import board as geo
from domain.cards import Role
from domain.codec import encode
from domain.events import (
    CardDrawn,
    CardsDiscarded,
    Event,
    FrontCardRemoved,
    GameStarted,
    GoldPaid,
    GoldPicked,
    GoldPickStarted,
    HatsSwapped,
    MapLooked,
    RoleInspected,
    RoundStarted,
)
from domain.state import Decision, GameState, LastMove, PlayerId, frozen_map

HIDDEN_GOAL: Final = "goal_hidden"  # the kind shown for a goal still face down


@dataclass(frozen=True, slots=True)
class SeatView:
    player: PlayerId
    name: str
    hand_count: int
    front: tuple[str, ...]
    has_gold: bool | None  # saboteur2 only; None in base (gold is wholly secret there)
    away: bool
    computer: bool = False  # a computer player's seat: never write to it
    # Why the computer plays this human seat now ("left", "kicked", "away"), or None.
    handed_over: str | None = None

    @property
    def computer_plays(self) -> bool:
        return self.computer or self.handed_over is not None


@dataclass(frozen=True, slots=True)
class View:
    viewer: PlayerId | None
    phase: str
    edition: str
    round: int
    creator: PlayerId | None
    turn_seconds: int
    practice: bool
    away_play: str
    gold_pick: str
    seats: tuple[SeatView, ...]  # in seating order
    board: geo.Board  # unrevealed goals have kind HIDDEN_GOAL unless finished
    draw_pile: int
    pending: Decision | None
    last_move: LastMove | None
    round_results: tuple[Any, ...]  # RoundEnded events: roles revealed at each round's end
    # The viewer's own secrets (empty for the public):
    hand: tuple[int, ...]
    role: str | None
    gold: int | None
    known_goals: Mapping[geo.Cell, str]
    inspected: Mapping[PlayerId, str]
    # base: the nugget cards still being passed round, for the player picking now alone
    gold_pick_offer: tuple[int, ...]
    # Everything, once finished (empty before):
    hands: Mapping[PlayerId, tuple[int, ...]]
    roles: Mapping[PlayerId, str]
    final_gold: Mapping[PlayerId, int]
    winners: tuple[PlayerId, ...]
    # What the face-down goals hide, once the round on the board has ended (else empty).
    revealed_goals: Mapping[geo.Cell, str]
    # base: the variants played (docs/rules.md §8), and where the goals lie.
    variants: tuple[str, ...] = ()
    goal_cells: tuple[geo.Cell, ...] = geo.GOAL_CELLS
    # The other saboteurs, told to a saboteur when they know each other (§8); else ().
    allies: tuple[PlayerId, ...] = ()


_last_public: list[tuple[geo.Board, geo.Board]] = []


def public_board(board: geo.Board) -> geo.Board:
    """``board`` with every face-down goal's kind hidden.

    Boards are immutable, so the last answer is kept for the same board object: every
    viewer of one state shares it.
    """
    last = _last_public[0] if _last_public else None  # one read: other threads may replace it
    if last is not None and last[0] is board:
        return last[1]
    public = board
    if any(not t.face_up for t in board.values()):
        public = geo.frozen(
            {
                c: t if t.face_up else geo.Tile(HIDDEN_GOAL, None, False, False)
                for c, t in board.items()
            }
        )
    _last_public[:] = [(board, public)]
    return public


def view_for(state: GameState, viewer: PlayerId | None) -> View:
    """``state`` as ``viewer`` (a player, or None for the public) may see it."""
    finished = state.phase == "finished"
    me = viewer if viewer is not None and state.is_player(viewer) else None
    board = state.board if finished else public_board(state.board)
    sab2 = state.edition == "saboteur2"
    seats = tuple(
        SeatView(
            p,
            state.names.get(p, ""),
            len(state.hand(p)),
            state.front_of(p),
            (state.gold.get(p, 0) > 0) if sab2 and state.phase != "lobby" else None,
            p in state.away,
            state.is_computer(p),
            state.handed_over.get(p),
        )
        for p in state.seating
    )
    pending = state.pending
    offer = (
        state.gold_pick_offer
        if finished or (me is not None and pending is not None and pending.player == me)
        else ()
    )
    return View(
        viewer=me,
        phase=state.phase,
        edition=state.edition,
        round=state.round,
        creator=state.creator,
        turn_seconds=state.turn_seconds,
        practice=state.practice,
        away_play=state.away_play,
        gold_pick=state.gold_pick,
        seats=seats,
        board=board,
        draw_pile=len(state.draw_pile),
        pending=pending,
        last_move=state.last_move,
        round_results=state.round_results,
        hand=state.hand(me) if me is not None else (),
        role=state.roles[me].value if me is not None and me in state.roles else None,
        gold=state.gold.get(me, 0) if me is not None and state.phase != "lobby" else None,
        known_goals=state.known_goals.get(me, frozen_map()) if me is not None else frozen_map(),
        inspected=state.inspected.get(me, frozen_map()) if me is not None else frozen_map(),
        gold_pick_offer=offer,
        hands=frozen_map(state.hands) if finished else frozen_map(),
        roles=frozen_map({p: r.value for p, r in state.roles.items()})
        if finished
        else frozen_map(),
        final_gold=frozen_map(state.gold) if finished else frozen_map(),
        winners=state.winners,
        revealed_goals=frozen_map(
            {c: t.kind for c, t in state.board.items() if not t.face_up}
            if finished or round_ended(state)
            else {}
        ),
        variants=state.variants,
        goal_cells=state.goal_cells,
        allies=allies(state, me),
    )


def allies(state: GameState, player: PlayerId | None) -> tuple[PlayerId, ...]:
    """The other saboteurs of the round, in seat order, that ``player`` knows: under the
    *saboteurs know each other* variant (docs/rules.md §8), when ``player`` is one."""
    roles = state.roles
    if (
        player is None
        or not state.has("saboteurs_know_each_other")
        or state.phase != "playing"
        or roles.get(player) is not Role.SABOTEUR
    ):
        return ()
    return tuple(p for p in state.seating if p != player and roles.get(p) is Role.SABOTEUR)


def round_ended(state: GameState) -> bool:
    """Whether the round on the board has ended (its gold is being shared, or the game is
    over): what its goals hid is then public."""
    results = state.round_results
    return bool(results) and results[-1].round == state.round


def describe(event: Event, viewer: PlayerId | None, *, finished: bool = False) -> dict[str, Any]:
    """The part of ``event`` that ``viewer`` may know, as ``{"type": ..., **fields}``.

    ``finished``: the game is over, so everything is shown (a replay).

    >>> describe(CardDrawn(player=1, card=17), viewer=2)
    {'type': 'card_drawn', 'player': 1, 'card': None}
    >>> describe(CardDrawn(player=1, card=17), viewer=1)
    {'type': 'card_drawn', 'player': 1, 'card': 17}
    """
    name, payload = encode(event)
    out: dict[str, Any] = {"type": name, **payload}
    if finished:
        return out
    match event:
        case GameStarted():
            out["nugget_pile"] = len(event.nugget_pile)
        case RoundStarted():
            out["roles"] = [[p, r] for p, r in payload["roles"] if p == viewer]
            out["hands"] = [[p, h] for p, h in payload["hands"] if p == viewer]
            out["hand_counts"] = [[p, len(h)] for p, h in event.hands]
            out["dwarf_pile"] = len(event.dwarf_pile)
            out["draw_pile"] = len(event.draw_pile)
            out["set_aside"] = len(event.set_aside)
            out["goals"] = None
        case CardDrawn():
            if viewer != event.player:
                out["card"] = None
        case MapLooked():
            if viewer != event.player:
                out["kind"] = None
        case RoleInspected():
            if viewer != event.player:
                out["role"] = None
        case HatsSwapped():  # the dwarf card dealt is the target's to see
            if viewer != event.target:
                out["role"] = None
        case CardsDiscarded() | FrontCardRemoved():
            if viewer != event.player:
                out["cards"] = None
                out["count"] = len(event.cards)
        case GoldPaid():
            out["payouts"] = [[p, a] for p, a in payload["payouts"] if p == viewer]
            out["paid"] = [p for p, a in event.payouts if a > 0]
            out["nuggets"] = [[p, n] for p, n in payload["nuggets"] if p == viewer]
            out["nugget_pile"] = len(event.nugget_pile)
        case GoldPickStarted():
            # At the table only the first picker looks at the cards drawn; each next picker
            # sees what is left when it reaches them (``view_for``'s ``gold_pick_offer``).
            if not event.order or viewer != event.order[0]:
                out["nuggets"] = None
                out["count"] = len(event.nuggets)
        case GoldPicked():
            if viewer != event.player:
                out["value"] = None
        case _:
            pass
    return out
