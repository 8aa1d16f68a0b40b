"""What every rule of ``decide`` shares: the log of the events a command emits, the
guards that refuse a command, opening a decision, drawing cards, and the seed streams.
"""

from __future__ import annotations

from domain import errors
from domain.cards import Card, card
from domain.events import CardDrawn, DecisionOpened, Event, PlayerCameBack
from domain.evolve import evolve
from domain.state import Decision, DecisionKind, GameState, PlayerId

# What a decider-made default uses of a command's seed (each draw its own stream).
SEED_DWARVES, SEED_DECK, SEED_GOALS, SEED_FIRST, SEED_NUGGETS, SEED_DEFAULT = range(6)


class Log:
    """Events emitted so far, and the state they lead to (so later rules see them)."""

    __slots__ = ("events", "state")

    def __init__(self, state: GameState) -> None:
        self.state = state
        self.events: list[Event] = []

    def emit(self, event: Event) -> None:
        self.events.append(event)
        self.state = evolve(self.state, event)


def emitted(state: GameState, *events: Event) -> Log:
    log = Log(state)
    for event in events:
        log.emit(event)
    return log


def acting(state: GameState, actor: PlayerId, by_computer: bool = False) -> Log:
    """A log for a decision made: one the player made themselves brings them back from
    being away or handed over."""
    log = Log(state)
    if not by_computer and (actor in state.away or actor in state.handed_over):
        log.emit(PlayerCameBack(actor))
    return log


def open_decision(log: Log, player: PlayerId, kind: DecisionKind, at: int) -> None:
    """Open a decision. The computer's has the whole timer too, as a safety net: its move
    comes after a short pause (the adapter's), and if none comes the deadline decides.
    An away player's decision the computer does not make is due at once."""
    state = log.state
    computer = state.computer_plays(player)
    deadline = at if player in state.away and not computer else at + state.turn_seconds * 1000
    log.emit(DecisionOpened(state.decisions_opened + 1, player, kind, deadline, computer))


def draw(log: Log, player: PlayerId, count: int) -> None:
    for _ in range(count):
        pile = log.state.draw_pile
        if not pile:
            return
        log.emit(CardDrawn(player, pile[0]))


# ------------------------------------------------------------------------ guards


def require_phase(state: GameState, *allowed: str) -> None:
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


def require_creator(state: GameState, actor: PlayerId) -> None:
    if not state.is_player(actor):
        raise errors.NotAPlayer()
    if actor != state.creator:
        raise errors.NotTheCreator()


def require_person(state: GameState, actor: PlayerId) -> None:
    """``actor`` acts as a person: a human seat, whose player did not leave."""
    if state.is_computer(actor):
        raise errors.ComputerSeat()
    if state.handed_over.get(actor) == "left":
        raise errors.LeftTheGame()


def require_decision(
    state: GameState, actor: PlayerId, kind: DecisionKind, by_computer: bool = False
) -> Decision:
    require_phase(state, "playing")
    if not state.is_player(actor):
        raise errors.NotAPlayer()
    if not by_computer:
        require_person(state, actor)
    pending = state.pending
    if pending is None:
        raise errors.NoDecisionPending()
    if pending.player != actor:
        raise errors.NotYourTurn()
    if pending.kind != kind:
        raise errors.WrongDecision(f"{actor} owes a {pending.kind} decision")
    return pending


def card_in_hand(state: GameState, actor: PlayerId, card_id: int) -> Card:
    if card_id not in state.hand(actor):
        raise errors.CardNotInHand(str(card_id))
    return card(state.edition, card_id)
