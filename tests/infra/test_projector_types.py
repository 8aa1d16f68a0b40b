"""A projection that names the event types it reads is given those only, and still
follows the log to its end, live and in a rebuild."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

from infra.db import make_engine
from infra.event_store import EventStore, NewEvent
from infra.projector import Projector


@dataclass(frozen=True)
class Seen:
    name: str = field(default_factory=lambda: f"seen-{uuid.uuid4().hex[:6]}")
    tables: tuple[Any, ...] = ()
    types: frozenset[str] = frozenset({"game_ended"})
    applied: list[str] = field(default_factory=list)

    def prepare(self, events: Any) -> None:
        return None

    def apply(self, conn: Any, events: Any, prepared: None) -> None:
        self.applied.extend(e.type for e in events)


def test_a_projection_reading_some_types_is_given_only_those_and_reaches_the_logs_end(
    fresh_db_url: str,
) -> None:
    engine = make_engine(fresh_db_url)
    store = EventStore(engine)
    for n in range(3):
        moves = [NewEvent("ticked", {"n": i}) for i in range(4)]
        store.append(f"g{n}", 0, [*moves, NewEvent("game_ended", {"n": n})])
    store.append("g3", 0, [NewEvent("ticked", {"n": 0})])  # a game still running
    seen = Seen()
    projector = Projector(engine, store, seen)
    projector.catch_up(batch=2)
    assert seen.applied == ["game_ended"] * 3
    assert projector.position() == store.last_position()
    store.append("g3", 1, [NewEvent("game_ended", {"n": 3})])
    projector.catch_up(batch=2)
    assert seen.applied == ["game_ended"] * 4
    seen.applied.clear()
    projector.rebuild(batch=2)
    assert seen.applied == ["game_ended"] * 4
    assert projector.position() == store.last_position()
    engine.dispose()
