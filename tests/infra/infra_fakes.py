"""A tiny game for driving the service and projector without the rules engine.

Its event types and payloads follow the stored names the projections read
(``game_created``, ``player_joined``, ...), plus a ``ticked`` event to make long games.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, ClassVar

from domain.commands import Envelope


class TinyError(ValueError):
    pass


@dataclass(frozen=True, slots=True)
class Create:
    actor: int
    chat_id: int
    at: int = 0
    seed: int = 0


@dataclass(frozen=True, slots=True)
class Join:
    actor: int
    name: str
    at: int = 0
    seed: int = 0


@dataclass(frozen=True, slots=True)
class Tick:
    actor: int


@dataclass(frozen=True, slots=True)
class Finish:
    actor: int
    at: int = 0
    seed: int = 0


@dataclass(frozen=True, slots=True)
class GameCreated:
    TYPE: ClassVar[str] = "game_created"
    creator: int
    creator_name: str
    edition: str
    chat_id: int
    turn_seconds: int
    gold_house_rule: bool


@dataclass(frozen=True, slots=True)
class PlayerJoined:
    TYPE: ClassVar[str] = "player_joined"
    player: int
    name: str


@dataclass(frozen=True, slots=True)
class Ticked:
    TYPE: ClassVar[str] = "ticked"
    player: int
    at: int
    seed: int


@dataclass(frozen=True, slots=True)
class DecisionOpened:
    TYPE: ClassVar[str] = "decision_opened"
    decision: int
    player: int
    kind: str
    deadline: int


@dataclass(frozen=True, slots=True)
class RoundEnded:
    TYPE: ClassVar[str] = "round_ended"
    round: int
    treasure_reached: bool
    reached_by: int | None
    roles: tuple[tuple[int, str], ...]
    winners: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class GameEnded:
    TYPE: ClassVar[str] = "game_ended"
    gold: tuple[tuple[int, int], ...]
    winners: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class State:
    created: bool = False
    ended: bool = False
    players: tuple[int, ...] = ()
    ticks: int = 0


class TinyDecider:
    """Create, join, tick (each tick opens a decision for the next player), finish."""

    def initial_state(self) -> State:
        return State()

    def decide(self, state: State, envelope: Envelope) -> list[Any]:
        if state.ended:
            raise TinyError("game over")
        command: Any = envelope.command
        at, seed = envelope.at, envelope.seed
        match command:
            case Create(actor=actor, chat_id=chat_id):
                if state.created:
                    raise TinyError("already created")
                return [GameCreated(actor, f"p{actor}", "base", chat_id, 60, False)]
            case Join(actor=actor, name=name):
                if actor in state.players:
                    return []
                return [PlayerJoined(actor, name)]
            case Tick(actor=actor):
                nxt = state.players[(state.ticks + 1) % len(state.players)]
                return [
                    Ticked(actor, at, seed),
                    DecisionOpened(state.ticks + 1, nxt, "turn", at + 60_000),
                ]
            case Finish():
                winner = state.players[state.ticks % len(state.players)]
                return [
                    RoundEnded(1, True, winner, (), (winner,)),
                    GameEnded(
                        tuple((p, 3 if p == winner else 1) for p in state.players), (winner,)
                    ),
                ]
        raise TinyError(f"unknown command {command!r}")

    def evolve(self, state: State, event: Any) -> State:
        match event:
            case GameCreated(creator=creator):
                return dataclasses.replace(state, created=True, players=(creator,))
            case PlayerJoined(player=player):
                return dataclasses.replace(state, players=(*state.players, player))
            case Ticked():
                return dataclasses.replace(state, ticks=state.ticks + 1)
            case GameEnded():
                return dataclasses.replace(state, ended=True)
        return state


_TYPES = {
    c.TYPE: c for c in (GameCreated, PlayerJoined, Ticked, DecisionOpened, RoundEnded, GameEnded)
}


def _tuples(value: Any) -> Any:
    return tuple(_tuples(v) for v in value) if isinstance(value, list) else value


class TinyCodec:
    SCHEMA_VERSION = 1

    def encode(self, event: Any) -> tuple[str, dict[str, Any]]:
        return event.TYPE, dataclasses.asdict(event)

    def decode(self, type_: str, payload: dict[str, Any], schema_version: int) -> Any:
        return _TYPES[type_](**{k: _tuples(v) for k, v in payload.items()})
