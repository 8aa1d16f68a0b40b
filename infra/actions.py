"""A player's move, whatever asked for it (a chat button, the Mini App's page): checked,
played and answered in one trip off the event loop.

:meth:`Actions.play_here` is the one road a move takes (:meth:`Actions.play` sends it to
a worker thread; an adapter that draws its answer in the same trip calls it from its own
worker thread, then :meth:`Actions.heard` back on the event loop). It looks the
idempotency key up and loads the game, once, through the game service
(:meth:`~infra.game_service.GameService.open`: the same key twice counts once), refuses a move
chosen on choices that no longer hold (stale), by someone who does not play, or whose
decision it is not, and one the rules do not offer (:func:`~domain.moves.legal_moves`);
then the game service decides and appends it on that same game
(:meth:`~infra.game_service.GameService.execute`, which reads it again only after losing a
race), and a rule's refusal becomes a reason. Where a button can
be tapped twice before the first tap is answered (a chat's), a move that cannot count
because the mover's own move on the same choices already did is :class:`AlreadyDone`,
not refused. Back on the event loop, a move that counted wakes the announcer (the
injected ``wake``).

The answer is one of :class:`Played`, :class:`AlreadyDone` and :class:`Refused`, whose
``reason`` is the code the adapters word (``error.<reason>``). Any other command (the
lobby's, a seat's, a setting, leaving, kicking, cancelling) takes :meth:`Actions.run`: the
same key, the same refusals and the same wake-up, in one trip, against the game as it is.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from domain import events as ev
from domain.commands import ComeBack, Command
from domain.errors import DomainError
from domain.moves import legal_moves
from domain.state import GameState, PlayerId
from infra.event_store import ConcurrencyError
from infra.game_service import GameService, Loaded, Outcome

# Events after which choices drawn earlier (a keyboard, the Mini App's page) still hold:
# another seat handed to the computer or taken back changes no one else's choices (the
# seat whose decision is pending has it opened anew, which is not harmless).
HARMLESS: Final = (ev.PlayerReminded, ev.SeatHandedOver, ev.PlayerCameBack)

# A decision a player made themselves (its player field names them).
MADE: Final = (
    ev.PathPlaced,
    *ev.ACTION_EVENTS,
    ev.CardsDiscarded,
    ev.FrontCardRemoved,
    ev.GoldPicked,
    ev.PlayerCameBack,
)

STALE: Final = "stale_button"
NOT_YOURS: Final = "not_your_button"
NOT_YOUR_TURN: Final = "not_your_turn"
FORGED: Final = "forged_button"
BUSY: Final = "busy"


class WakeUp(asyncio.Event):
    """The announcer's wake-up (the ``wake`` of :class:`Actions` is its :meth:`set`): set
    when events were appended, by this process or by another instance or worker (heard on
    the notification channel, :func:`tgbot.telegram.app.listen`). The announcer waits on
    it and clears it; each follower (the Mini App's live updates) gets an event of its
    own, set with it and cleared only by that follower, so no append goes unnoticed while
    the follower was busy."""

    def __init__(self) -> None:
        super().__init__()
        self._followers: set[asyncio.Event] = set()

    def set(self) -> None:
        super().set()
        for follower in self._followers:
            follower.set()

    def nudge(self) -> None:
        """Wake the announcer only (it took games over: nothing was appended)."""
        super().set()

    def follow(self) -> asyncio.Event:
        """A new follower's event."""
        event = asyncio.Event()
        self._followers.add(event)
        return event

    def unfollow(self, event: asyncio.Event) -> None:
        self._followers.discard(event)


@dataclass(frozen=True, slots=True)
class Played:
    """The move counted: its events, and the game after them."""

    events: list[Any]
    state: GameState
    version: int


@dataclass(frozen=True, slots=True)
class AlreadyDone:
    """The move had counted before: the same key again, or the mover's own move on the
    same choices made meanwhile (a double tap). Nothing changed, nothing went wrong."""


@dataclass(frozen=True, slots=True)
class Refused:
    """The move does not count, for ``reason``; the game as it was checked, when known
    (None: it may have moved since)."""

    reason: str
    state: GameState | None = None
    version: int = 0


Answer = Played | AlreadyDone | Refused


@dataclass(frozen=True, slots=True)
class Done:
    """A command that is no move on drawn choices (a lobby's, a seat's, a setting's...)
    counted: its events (those of the first time, for a key seen before)."""

    events: list[Any]


# What a move is: a command, or (a button that names cards by their place in the hand)
# what makes it from the game as it is; a ValueError from it: no such move.
Move = Command | Callable[[GameState], Command]


class Actions:
    """The use cases of what a player asks of a game, over the game service: a move
    (:meth:`play`) and any other command (:meth:`run`). ``wake`` is called on the event
    loop after one counted (the announcer's wake-up)."""

    def __init__(self, service: GameService, wake: Callable[[], None] = lambda: None) -> None:
        self.service = service
        self.wake = wake

    async def play(
        self,
        game_id: str,
        actor: PlayerId,
        move: Move,
        seen_version: int,
        key: str,
        metadata: Mapping[str, Any] | None = None,
        *,
        double_taps: bool = False,
    ) -> Answer:
        """Play ``actor``'s ``move`` on the game as they saw it at ``seen_version``, once
        per ``key``: in one worker thread (:meth:`play_here`), then waking the announcer
        if it counted (:meth:`heard`).

        ``double_taps``: a move on choices the mover's own move has used up since is a
        second tap of that move (:class:`AlreadyDone`), not stale: a chat's button can
        be tapped again before the first tap is answered, each with a key of its own.
        """
        answer = await asyncio.to_thread(
            self.play_here,
            game_id,
            actor,
            move,
            seen_version,
            key,
            metadata,
            double_taps=double_taps,
        )
        self.heard(answer)
        return answer

    def heard(self, answer: Answer) -> None:
        """Back on the event loop after :meth:`play_here`: wake the announcer when the
        move counted (a move counted again may have counted just now, unanswered)."""
        if not isinstance(answer, Refused):
            self.wake()

    async def run(
        self,
        game_id: str,
        command: Command,
        key: str,
        metadata: Mapping[str, Any] | None = None,
    ) -> Done | Refused:
        """Run ``command`` once per ``key`` (joining, leaving, starting, a setting, a
        seat...: what is checked against the game as it is, not against choices drawn
        earlier), in one worker thread, then wake the announcer if it counted."""
        answer = await asyncio.to_thread(self.run_here, game_id, command, key, metadata)
        if isinstance(answer, Done):
            self.wake()
        return answer

    def run_here(
        self,
        game_id: str,
        command: Command,
        key: str,
        metadata: Mapping[str, Any] | None = None,
    ) -> Done | Refused:
        """:meth:`run`'s work, in the calling thread, without waking anybody."""
        try:
            events = self.service.handle(game_id, command, idempotency_key=key, metadata=metadata)
            return Done(events)
        except DomainError as error:
            return Refused(error.code)
        except ConcurrencyError:
            return Refused(BUSY)

    def play_here(
        self,
        game_id: str,
        actor: PlayerId,
        move: Move,
        seen_version: int,
        key: str,
        metadata: Mapping[str, Any] | None = None,
        *,
        double_taps: bool = False,
    ) -> Answer:
        """:meth:`play`'s work, in the calling thread (blocking: the database and the
        rules), without waking anybody: each step once, on the game read once (the key
        looked up, the game loaded, the checks, the legal-move gate, then decided and
        appended on that same game)."""
        opened = self.service.open(game_id, key)
        if isinstance(opened, Outcome):
            return AlreadyDone()  # the same move again (its answer was lost): it counted
        state, version = opened.state, opened.version
        checked = self._check(game_id, state, version, actor, seen_version, double_taps, move)
        if checked is not None:
            return checked
        try:
            command = move(state) if callable(move) else move
        except ValueError:
            return Refused(FORGED, state, version)
        if command not in legal_moves(state, actor):
            return Refused(FORGED, state, version)
        try:
            outcome = self.service.execute(game_id, command, key, metadata, loaded=opened)
        except (DomainError, ConcurrencyError) as error:
            if double_taps and self.just_done(game_id, seen_version, actor):
                return AlreadyDone()  # two taps raced: the other one counted
            return Refused(error.code if isinstance(error, DomainError) else BUSY)
        if outcome.duplicate:
            return AlreadyDone()
        return Played(outcome.events, outcome.state, outcome.version)

    def check(
        self, game_id: str, actor: PlayerId, seen_version: int, *, double_taps: bool = False
    ) -> Refused | AlreadyDone | Loaded[GameState]:
        """Whether ``actor`` may still act on the choices drawn at ``seen_version`` (a
        step inside a decision, before anything is played), in the calling thread: the
        game as it is when they may (``double_taps`` as for :meth:`play`)."""
        loaded: Loaded[GameState] = self.service.load(game_id)
        state, version = loaded.state, loaded.version
        checked = self._check(game_id, state, version, actor, seen_version, double_taps)
        return loaded if checked is None else checked

    def _check(
        self,
        game_id: str,
        state: GameState,
        version: int,
        actor: PlayerId,
        seen: int,
        double_taps: bool,
        move: Move | None = None,
    ) -> Refused | AlreadyDone | None:
        if not state.is_player(actor):
            return Refused(NOT_YOURS, state, version)
        if isinstance(move, ComeBack):  # "I'm back" never goes stale
            return None
        if state.phase != "playing" or not self.still_valid(game_id, seen, version):
            if double_taps and self.just_done(game_id, seen, actor):
                return AlreadyDone()
            return Refused(STALE, state, version)
        pending = state.pending
        if pending is None or pending.player != actor:
            return Refused(NOT_YOUR_TURN, state, version)
        return None

    def still_valid(self, game_id: str, drawn: int, current: int) -> bool:
        """Whether choices drawn at version ``drawn`` (a keyboard, the Mini App's page)
        still hold at ``current``: nothing but reminders happened in between."""
        if drawn == current:
            return True
        if drawn > current:
            return False
        later = self.service.events(game_id, after_version=drawn)
        return all(isinstance(e, HARMLESS) for e in later)

    def just_done(self, game_id: str, drawn: int, player: PlayerId) -> bool:
        """Whether the decision the choices drawn at ``drawn`` were for has since been
        made by ``player`` themselves: a move on them is a second tap that took effect."""
        for event in self.service.events(game_id, after_version=drawn):
            if isinstance(event, ev.DecisionTimedOut):
                return False  # their time ran out: the choices are out of date, say so
            if isinstance(event, MADE) and event.player == player:
                return True
            if isinstance(event, ev.TheftResolved) and event.thief == player:
                return True
        return False
