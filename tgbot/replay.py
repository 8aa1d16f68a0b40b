"""Replays of finished games, rebuilt only by folding their event log.

A replay is a list of *steps*, one per move: a placement, an action, a pass, a
discard-to-remove, a timeout's default, a gold pick, a theft, a round's start or end.
The bookkeeping events that follow a move (cards drawn, goals revealed, decisions
opened, gold paid) belong to that move's step. Each step keeps the game's state after
it, so stepping a replay shows exactly what the live game had after that event.

Once a game is over nothing in it is secret any more, so a step's caption tells
everything: roles, hands, what a map or an inspection showed, which cards were passed.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from domain import events as ev
from domain.board import Cell
from domain.cards import PATHS, Edition, Role, card
from domain.decider import evolve, initial_state
from domain.events import Event, PlayerId
from domain.state import GameState
from infra.settings import LANGUAGES as LANGUAGES  # the replay GIF CLI offers them
from tgbot.texts import opening_glyph

StepKind = str
ROUND_START: Final = "round_start"
ROUND_END: Final = "round_end"
MOVE: Final = "move"

# Events that open a new step. Everything else is folded into the step before it.
_STEP_EVENTS: Final = (
    ev.RoundStarted,
    ev.PathPlaced,
    ev.ActionPlayed,
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
            if isinstance(event, ev.ActionPlayed) and event.target_cell is not None:
                return event.target_cell
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

_CATALOGS: dict[str, dict[str, str]] = {}


def _catalog(lang: str) -> dict[str, str]:
    if lang not in _CATALOGS:
        path = Path(__file__).parent / "locales" / f"replay_{lang}.json"
        _CATALOGS[lang] = json.loads(path.read_text("utf-8")) if path.exists() else {}
    return _CATALOGS[lang]


def text(lang: str, key: str, **params: object) -> str:
    """A message of the replay catalogs, falling back to English, then to the key."""
    template = _catalog(lang).get(key) or _catalog("en").get(key) or key
    return template.format(**params)


# Path cards are named by their shape (tgbot.texts.opening_glyph), which needs no translation.


def path_name(lang: str, kind: str, rotated: bool = False) -> str:
    spec = PATHS[kind]
    shape = opening_glyph(kind, rotated)  # as the placement buttons name it
    if spec.ladder:
        shape += "🪜"
    if spec.door is not None:
        shape += "🔵" if spec.door.value == "blue" else "🟢"
    if spec.crystals:
        shape += "💎"
    key = "replay.dead_end" if len(spec.segments) > 1 and spec.is_dead_end else "replay.path"
    return text(lang, key, shape=shape)


def card_name(lang: str, edition: Edition, card_id: int, rotated: bool = False) -> str:
    c = card(edition, card_id)
    if c.action is not None:
        return text(lang, f"action.{c.action.value}")
    return path_name(lang, c.kind, rotated)


def _cards(lang: str, edition: Edition, ids: Iterable[int]) -> str:
    names = [card_name(lang, edition, i) for i in ids]
    return ", ".join(names) if names else text(lang, "replay.none")


def _role(lang: str, role: Role | str) -> str:
    value = role.value if isinstance(role, Role) else role
    return text(lang, f"role.{value}")


def _name(state: GameState, player: PlayerId | None) -> str:
    if player is None:
        return "?"
    return state.names.get(player, str(player))


def _actor(lang: str, state: GameState, player: PlayerId) -> str:
    role = state.roles.get(player)
    name = _name(state, player)
    return text(lang, "replay.actor", name=name, role=_role(lang, role)) if role else name


def _cell(cell: Cell) -> str:
    return f"({cell[0]}, {cell[1]})"


def _names(lang: str, state: GameState, players: Iterable[PlayerId]) -> str:
    names = [_name(state, p) for p in players]
    return ", ".join(names) if names else text(lang, "replay.nobody")


def _gold(lang: str, state: GameState, pairs: Iterable[tuple[PlayerId, int]]) -> str:
    items = [f"{_name(state, p)} {g}" for p, g in pairs]
    return ", ".join(items) if items else text(lang, "replay.none")


def caption(step: Step, lang: str = "en") -> str:
    """Everything that happened in ``step``, secrets included (the game is over).

    One sentence per fact; the acting player's role and hand before the move are shown.
    """
    lines: list[str] = []
    before, after = step.before, step.state
    edition = after.edition
    drawn: list[str] = []
    for event in step.events:
        line = _describe(lang, event, before, after, edition)
        if isinstance(event, ev.CardDrawn):
            drawn.append(line)
        elif line:
            lines.append(line)
    first = step.event
    actor = getattr(first, "player", None)
    if step.kind == MOVE and actor is not None and before.hand(actor):
        hand = text(lang, "replay.hand", cards=_cards(lang, edition, before.hand(actor)))
        lines.insert(1, hand)
    lines.extend(drawn)
    return "\n".join(lines)


def _describe(
    lang: str, event: Event, before: GameState, after: GameState, edition: Edition
) -> str:
    match event:
        case ev.RoundStarted():
            goals = ", ".join(text(lang, f"goal.{g}") for g in event.goals)
            roles = ", ".join(f"{_name(after, p)} {_role(lang, r)}" for p, r in event.roles)
            lines = [
                text(
                    lang,
                    "replay.round_started",
                    round=event.round,
                    first=_name(after, event.first_player),
                ),
                text(lang, "replay.roles", roles=roles),
                text(lang, "replay.goals", goals=goals),
            ]
            if event.dwarf_pile and edition == "base":
                spare = ", ".join(_role(lang, r) for r in event.dwarf_pile)
                lines.append(text(lang, "replay.spare", spare=spare))
            # One line per hand: a long caption is cut into pages between lines.
            lines.append(text(lang, "replay.hands"))
            lines.extend(
                text(lang, "replay.hand_of", name=_name(after, p), cards=_cards(lang, edition, cs))
                for p, cs in event.hands
            )
            return "\n".join(lines)
        case ev.PathPlaced():
            return text(
                lang,
                "replay.path_placed",
                actor=_actor(lang, before, event.player),
                card=card_name(lang, edition, event.card, event.rotated),
                cell=_cell(event.cell),
            )
        case ev.GoalRevealed():
            return text(
                lang,
                "replay.goal_revealed",
                cell=_cell(event.cell),
                goal=text(lang, f"goal.{event.kind}"),
            )
        case ev.ActionPlayed():
            return _action(lang, event, before, edition)
        case ev.CardsDiscarded():
            return text(
                lang,
                "replay.discarded",
                actor=_actor(lang, before, event.player),
                cards=_cards(lang, edition, event.cards),
            )
        case ev.FrontCardRemoved():
            removed = event.removed
            label = text(lang, f"action.{removed}")
            return text(
                lang,
                "replay.front_removed",
                actor=_actor(lang, before, event.player),
                cards=_cards(lang, edition, event.cards),
                removed=label,
            )
        case ev.CardDrawn():
            return text(
                lang,
                "replay.drew",
                player=_name(after, event.player),
                card=card_name(lang, edition, event.card),
            )
        case ev.DecisionTimedOut():
            return text(lang, "replay.timed_out", actor=_actor(lang, before, event.player))
        case ev.GoldPickStarted():
            return text(
                lang,
                "replay.gold_pick_started",
                values=", ".join(str(v) for v in event.nuggets),
                order=_names(lang, after, event.order),
            )
        case ev.GoldPicked():
            return text(
                lang,
                "replay.gold_picked",
                actor=_actor(lang, before, event.player),
                value=event.value,
            )
        case ev.TheftResolved():
            if event.victim is None:
                return text(lang, "replay.theft_none", actor=_actor(lang, before, event.thief))
            return text(
                lang,
                "replay.theft",
                actor=_actor(lang, before, event.thief),
                victim=_name(before, event.victim),
            )
        case ev.RoundEnded():
            head = (
                text(
                    lang,
                    "replay.round_ended_treasure",
                    round=event.round,
                    by=_name(before, event.reached_by),
                )
                if event.treasure_reached
                else text(lang, "replay.round_ended_blocked", round=event.round)
            )
            roles = ", ".join(f"{_name(before, p)} {_role(lang, r)}" for p, r in event.roles)
            lines = [head, text(lang, "replay.roles", roles=roles)]
            if event.spare:  # base: the dwarf card nobody was dealt; saboteur2: none
                spare = ", ".join(_role(lang, r) for r in event.spare)
                lines.append(text(lang, "replay.spare", spare=spare))
            winners = (
                text(lang, "replay.winners", names=_names(lang, before, event.winners))
                if event.winners
                else text(lang, "replay.no_winners")
            )
            return "\n".join([*lines, winners])
        case ev.GoldPaid():
            paid = text(lang, "replay.gold_paid", payouts=_gold(lang, after, event.payouts))
            totals = sorted(
                after.gold.items(),
                key=lambda item: after.seating.index(item[0]) if item[0] in after.seating else 0,
            )
            return paid + "\n" + text(lang, "replay.gold_totals", gold=_gold(lang, after, totals))
        case ev.GameEnded():
            return text(
                lang,
                "replay.game_ended",
                gold=_gold(lang, after, event.gold),
                winners=_names(lang, after, event.winners),
            )
        case _:
            return ""


def _action(lang: str, event: ev.ActionPlayed, before: GameState, edition: Edition) -> str:
    actor = _actor(lang, before, event.player)
    name = text(lang, f"action.{event.action}")
    if event.target_cell is not None:
        line = text(
            lang, "replay.action_cell", actor=actor, card=name, cell=_cell(event.target_cell)
        )
    elif event.target_player is not None and event.target_player != event.player:
        line = text(
            lang,
            "replay.action_player",
            actor=actor,
            card=name,
            target=_name(before, event.target_player),
        )
    else:
        line = text(lang, "replay.action_self", actor=actor, card=name)
    extra = ""
    if event.tool is not None:
        extra = text(lang, "replay.repair_tool", tool=text(lang, f"tool.{event.tool}"))
    elif event.result is not None and event.action == "map" and event.target_cell is not None:
        extra = text(lang, "replay.map_result", goal=text(lang, f"goal.{event.result}"))
    elif event.result is not None and event.action == "inspection":
        extra = text(
            lang,
            "replay.inspection_result",
            target=_name(before, event.target_player),
            role=_role(lang, event.result),
        )
    elif event.result is not None and event.action == "swap_hats":
        extra = text(
            lang,
            "replay.swap_hats_result",
            target=_name(before, event.target_player),
            role=_role(lang, event.result),
        )
    return f"{line} {extra}".strip()
