"""Recorded games whose action cards were stored as the old ``action_played`` events
(tests/replay/legacy_games.json), and what a game's events give: every state, every view,
every narration and replay caption, the computer's memory and the achievements, as digests.

The fixture was written before the finer action events replaced ``action_played``: the
games played by :func:`domain.simulate.play_one` (seeded), their events encoded by the
codec of then, and :func:`digests` of those events. Loading the same stored payloads today
must give the same digests (tests/replay/test_legacy_games.py).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from enum import Enum
from pathlib import Path
from typing import Any

from domain import achievements
from domain.events import Event
from domain.evolve import evolve, initial_state
from domain.strategy import Memory
from domain.view import view_for
from tgbot.presenter.narration import Scene, narrate
from tgbot.presenter.texts import Texts
from tgbot.replay.steps import Replay, caption

FIXTURE = Path(__file__).with_name("legacy_games.json")
LANGS = ("en", "es", "pl", "de")


def canon(value: Any) -> Any:
    """``value`` as plain JSON data, the same in every process (sets and maps sorted)."""
    if isinstance(value, Enum):
        return value.value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: canon(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return sorted(([canon(k), canon(v)] for k, v in value.items()), key=repr)
    if isinstance(value, set | frozenset):
        return sorted((canon(v) for v in value), key=repr)
    if isinstance(value, tuple | list):
        return [canon(v) for v in value]
    return value


class Chain:
    """A running sha256 over canonical values."""

    def __init__(self) -> None:
        self._hash = hashlib.sha256()

    def add(self, value: Any) -> None:
        self._hash.update(json.dumps(canon(value), sort_keys=True).encode())
        self._hash.update(b"\n")

    def hex(self) -> str:
        return self._hash.hexdigest()


def digests(events: Sequence[Event]) -> dict[str, Any]:
    """What ``events`` give, event by event: states, views, narrations (to the group, to
    each player, in a replay), the replay's captions, the public memory, achievements."""
    states, views, memory_chain = Chain(), Chain(), Chain()
    told = {lang: Chain() for lang in LANGS}
    state = initial_state()
    memory: Memory | None = None
    for event in events:
        roles = {p: r.value for p, r in state.roles.items()}
        before, state = state, evolve(state, event)
        states.add(state)
        names = {**before.names, **state.names}
        viewers: list[int | None] = [None, *state.seating]
        for viewer in viewers:
            views.add(view_for(state, viewer))
        for lang in LANGS:
            texts = Texts(lang)
            for viewer in viewers:
                scene = Scene(texts, viewer, state.edition, names, view_for(state, viewer))
                told[lang].add([line.html() for line in narrate(event, scene)])
            full = Scene(
                texts, None, state.edition, names, view_for(state, None), full=True, roles=roles
            )
            told[lang].add([line.html() for line in narrate(event, full)])
        memory = _observe(memory, state, event)
        memory_chain.add(memory)
    replay = Replay("g", events)
    captions = Chain()
    for step in replay:
        captions.add([step.kind, step.round, len(step.events), step.version])
        for lang in ("en", "de"):
            captions.add(caption(step, lang))
    game = achievements.game_of(events)
    earned: dict[str, list[str]] = {}
    if game is not None:
        for player in game.seating:
            earned[str(player)] = list(achievements.earned(game, player, achievements.Earlier()))
    return {
        "events": len(events),
        "states": states.hex(),
        "views": views.hex(),
        "narration": {lang: chain.hex() for lang, chain in told.items()},
        "captions": captions.hex(),
        "memory": memory_chain.hex(),
        "achievements": earned,
    }


def _observe(memory: Memory | None, state: Any, event: Event) -> Memory | None:
    """The public memory of the round, as the computer players keep it."""
    from domain.view import describe

    if state.round == 0:
        return memory
    if memory is None:
        memory = Memory.start(state.edition, state.goal_cells)
    return memory.observe(describe(event, None))


def load() -> list[dict[str, Any]]:
    games: list[dict[str, Any]] = json.loads(FIXTURE.read_text())["games"]
    return games


def stored(game: Mapping[str, Any]) -> Iterable[tuple[str, dict[str, Any]]]:
    for type_name, payload in game["events"]:
        yield str(type_name), dict(payload)
