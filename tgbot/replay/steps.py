"""Replays of finished games, rebuilt only by folding their event log.

A replay is a list of *steps*, one per move: a placement, an action, a pass, a
discard-to-remove, a timeout's default, a gold pick, a theft, a round's start or end.
The bookkeeping events that follow a move (cards drawn, goals revealed, decisions
opened, gold paid) belong to that move's step. Each step keeps the game's state after
it, so stepping a replay shows exactly what the live game had after that event.

Once a game is over nothing in it is secret any more, so a step's caption tells
everything: roles, hands, what a map or an inspection showed, which cards were passed —
in the same lines live play told (:mod:`tgbot.presenter.narration`), with every secret.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Final

from domain import events as ev
from domain.board import Cell
from domain.events import Event
from domain.evolve import evolve, initial_state
from domain.state import GameState
from domain.view import view_for
from infra.settings import LANGUAGES as LANGUAGES  # the replay GIF CLI offers them
from tgbot.presenter import i18n
from tgbot.presenter.icons import Icon, Line
from tgbot.presenter.narration import Scene, narrate
from tgbot.presenter.texts import Texts

StepKind = str
ROUND_START: Final = "round_start"
ROUND_END: Final = "round_end"
MOVE: Final = "move"

# Events that open a new step. Everything else is folded into the step before it.
_STEP_EVENTS: Final = (
    ev.RoundStarted,
    ev.PathPlaced,
    *ev.ACTION_EVENTS,
    ev.CardsDiscarded,
    ev.FrontCardRemoved,
    ev.DecisionTimedOut,
    ev.GoldPicked,
    ev.TheftResolved,
    ev.RoundEnded,
)
# The default action a timeout records right after it: part of the timeout's step.
_TIMEOUT_DEFAULTS: Final = (ev.CardsDiscarded, ev.GoldPicked, ev.TheftResolved, ev.PathPlaced)


class ReplayError(ValueError):
    """A replay cannot be built."""


class GameNotFinishedError(ReplayError):
    """The game is still running (or was never played): its replay is refused."""


class GameNotFoundError(ReplayError):
    """No events are stored under that game id."""


class GameTamperedError(ReplayError):
    """The game's stored events fail their hash chain (changed outside the event store):
    it is not replayed."""


class GameCancelledError(GameNotFinishedError):
    """The game was cancelled before it ended: there is no finished game to replay."""


@dataclass(frozen=True, slots=True)
class Boundary:
    """Where a step lies in the log: events ``[start, end)`` of the stream (0-based)."""

    index: int
    start: int
    end: int
    round: int
    kind: StepKind


def boundaries(events: Sequence[Event]) -> list[Boundary]:
    """Cut a game's events into steps, without folding anything.

    Events before the first round (lobby, start) belong to no step: they are folded into
    the state every step starts from.
    """
    starts: list[tuple[int, int, StepKind]] = []
    round_no = 0
    after_timeout = False
    for position, event in enumerate(events):
        if isinstance(event, ev.RoundStarted):
            round_no = event.round
        if not isinstance(event, _STEP_EVENTS):
            continue
        if after_timeout and isinstance(event, _TIMEOUT_DEFAULTS):
            after_timeout = False
            continue
        after_timeout = isinstance(event, ev.DecisionTimedOut)
        kind = (
            ROUND_START
            if isinstance(event, ev.RoundStarted)
            else ROUND_END
            if isinstance(event, ev.RoundEnded)
            else MOVE
        )
        starts.append((position, round_no, kind))
    result: list[Boundary] = []
    for index, (start, round_, kind) in enumerate(starts):
        end = starts[index + 1][0] if index + 1 < len(starts) else len(events)
        result.append(Boundary(index, start, end, round_, kind))
    return result


CHECKPOINT_EVERY: Final = 64
"""While folding, keep the state every this many events (in memory), so any step is
folded from at most this many events back."""


@dataclass(frozen=True, slots=True)
class Step:
    """One move of a finished game and the state the live game had after it."""

    index: int
    round: int
    kind: StepKind
    events: tuple[Event, ...]  # the move and the bookkeeping that followed it
    before: GameState
    state: GameState
    version: int  # events of the stream folded into ``state``

    @property
    def event(self) -> Event:
        return self.events[0]

    @property
    def highlight(self) -> Cell | None:
        """The cell the move touched, if any (for the board picture)."""
        for event in self.events:
            if isinstance(event, ev.PathPlaced):
                return event.cell
            if isinstance(event, ev.RockfallPlayed | ev.MapLooked):
                return event.cell
        return None


class Replay:
    """The steps of one finished game, folded on demand from its events alone.

    The replay keeps the state every :data:`CHECKPOINT_EVERY` events in memory as it folds;
    a step's state is folded from the nearest checkpoint at or before it. Nothing but the
    events is read: no stored snapshot, no read model.
    """

    def __init__(
        self,
        game_id: str,
        events: Sequence[Event],
        *,
        require_finished: bool = True,
    ) -> None:
        if not events:
            raise GameNotFoundError(game_id)
        if require_finished and not any(isinstance(e, ev.GameEnded) for e in events):
            if any(isinstance(e, ev.GameCancelled) for e in events):
                raise GameCancelledError(game_id)
            raise GameNotFinishedError(game_id)
        self.game_id = game_id
        self.events: tuple[Event, ...] = tuple(events)
        self.boundaries: tuple[Boundary, ...] = tuple(boundaries(self.events))
        if not self.boundaries:
            raise GameNotFinishedError(game_id)
        self._checkpoints: dict[int, GameState] = {0: initial_state()}

    def __len__(self) -> int:
        return len(self.boundaries)

    @property
    def round_starts(self) -> tuple[int, ...]:
        return tuple(b.index for b in self.boundaries if b.kind == ROUND_START)

    @property
    def round_ends(self) -> tuple[int, ...]:
        return tuple(b.index for b in self.boundaries if b.kind == ROUND_END)

    def jumps(self) -> list[tuple[int, int, int]]:
        """(round, index of its start step, index of its end step or the last step)."""
        result = []
        for start in self.round_starts:
            round_no = self.boundaries[start].round
            end = next(
                (e for e in self.round_ends if self.boundaries[e].round == round_no),
                len(self) - 1,
            )
            result.append((round_no, start, end))
        return result

    def state_at(self, count: int) -> GameState:
        """The state after the first ``count`` events of the stream, folded from the
        nearest checkpoint."""
        base = count - count % CHECKPOINT_EVERY
        while base not in self._checkpoints:
            base -= CHECKPOINT_EVERY
        state = self._checkpoints[base]
        for position in range(base, count):
            state = evolve(state, self.events[position])
            if (position + 1) % CHECKPOINT_EVERY == 0:
                self._checkpoints[position + 1] = state
        return state

    @property
    def checkpoints(self) -> tuple[int, ...]:
        """The event counts whose state is kept in memory."""
        return tuple(sorted(self._checkpoints))

    def step(self, index: int) -> Step:
        index = max(0, min(index, len(self) - 1))
        b = self.boundaries[index]
        before = self.state_at(b.start)
        return Step(
            index=index,
            round=b.round,
            kind=b.kind,
            events=self.events[b.start : b.end],
            before=before,
            state=self.state_at(b.end),
            version=b.end,
        )

    def __iter__(self) -> Iterator[Step]:
        """Every step in order, folding each event once."""
        state = self.state_at(self.boundaries[0].start)
        for b in self.boundaries:
            before = state
            for event in self.events[b.start : b.end]:
                state = evolve(state, event)
            yield Step(b.index, b.round, b.kind, self.events[b.start : b.end], before, state, b.end)

    @property
    def final(self) -> GameState:
        return self.state_at(len(self.events))


# --- captions -------------------------------------------------------------------------


def text(lang: str, key: str, **params: object) -> str:
    """A message of the catalogs, in ``lang`` (falling back to English, then the key)."""
    return i18n.t(lang, key, **params)


def lines(step: Step, lang: str = "en", *, brief: bool = False) -> list[Line]:
    """Everything that happened in ``step``, secrets included (the game is over): each
    event told as live play told it, the actors' dwarf cards beside their names, the
    acting player's hand before the move second, the cards drawn last (``brief``: the
    move and what followed from it, without the hand and the cards drawn)."""
    texts = Texts(lang)
    state = step.before
    told: list[Line] = []
    drawn: list[Line] = []
    for event in step.events:
        roles = {p: r.value for p, r in state.roles.items()}
        before, state = state, evolve(state, event)
        names = {**before.names, **state.names}  # one who just left is named still
        scene = Scene(
            texts, None, state.edition, names, view_for(state, None), full=True, roles=roles
        )
        (drawn if isinstance(event, ev.CardDrawn) else told).extend(narrate(event, scene))
    actor = getattr(step.event, "player", None)
    hand = step.before.hand(actor) if isinstance(actor, int) else ()
    if brief:
        return told
    if step.kind == MOVE and hand:
        cards = ", ".join(texts.card_name(state.edition, c) for c in sorted(hand))
        told.insert(1, Line(Icon.CARDS, texts.t("replay.hand", cards=cards)))
    return [*told, *drawn]


def caption(step: Step, lang: str = "en") -> str:
    """The step told in HTML, one line per fact (see :func:`lines`)."""
    return "\n".join(line.html() for line in lines(step, lang))


def card_name(lang: str, edition: str, card_id: int, rotated: bool = False) -> str:
    """A card as the replay (and live play) names it."""
    return Texts(lang).card_name(edition, card_id, rotated)
