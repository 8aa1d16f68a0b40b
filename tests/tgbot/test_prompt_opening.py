"""A prompt's steps open as the prompt did: what it opened with is told again from the
log alone (the events appended with its decision, after the round so far), the same lines
the announcer sent, whatever the prompt: a round's first (with the last round's end), a
theft's at a round's end, one after a move on its player."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace

import pytest

from domain import codec, engine
from domain import events as ev
from domain.events import Event
from domain.evolve import fold
from infra.db import make_engine
from infra.event_store import EventStore, NewEvent
from infra.game_service import GameService
from tests.presenter.games import play, table
from tgbot.delivery.presenting import decision_opening
from tgbot.presenter import prompt
from tgbot.presenter.announce import Told, announce
from tgbot.presenter.messages import Prompt


@pytest.mark.parametrize(("seed", "players", "edition"), [(7, 6, "base"), (5, 4, "saboteur2")])
def test_a_decisions_opening_told_again_from_the_log_is_the_prompts(
    sqlite_url: str, seed: int, players: int, edition: str
) -> None:
    ticks = itertools.count()
    start = datetime(2026, 1, 1, tzinfo=UTC)
    store = EventStore(
        make_engine(sqlite_url), clock=lambda: start + timedelta(seconds=next(ticks))
    )
    services = SimpleNamespace(store=store, service=GameService(store, engine, codec))
    game_id = f"opening-{seed}-{edition}"
    batches = play(seed, players, edition)
    for batch in batches:  # one append per command, as the game service makes them
        store.append(game_id, batch.version, [NewEvent(*codec.encode(e)) for e in batch.events])

    checked = rounds_first = 0
    round_so_far: list[Event] = []
    for batch in batches:
        after = fold(batch.events, batch.before)
        version = batch.version + len(batch.events)
        told = [Told(e, 10_000) for e in batch.events]
        earlier = list(round_so_far)
        messages, _ = announce(table(after), batch.before, batch.version, told, earlier=earlier)
        for event in batch.events:
            if isinstance(event, ev.RoundStarted):
                round_so_far = []
            round_so_far.append(event)
        for message in messages:
            pending = after.pending
            if not isinstance(message, Prompt) or pending is None:
                continue
            if message.player != pending.player or message.caption.startswith("⏳"):
                continue  # (a reminder opens with the time left, and nothing else)
            lines = decision_opening(services, game_id, after, version, table(after))  # type: ignore[arg-type]
            assert prompt.caption(after, message.player, table(after), lines) == message.caption
            checked += 1
            rounds_first += "Round" in message.caption and " begins" in message.caption
    assert checked > 100 and rounds_first >= 2
