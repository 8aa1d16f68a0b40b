"""Presenting a game's events from the event log: the messages a batch of events calls
for (:func:`tgbot.presenter.announce.announce`, and the group's subscribers told of a new
game), with the state after them.

The announcer presents each batch it records (:mod:`tgbot.delivery.announcer`); the delivering
driver presents a recorded batch again when it must send a message it does not hold
(:mod:`tgbot.delivery.driver`). Both ask this, neither asks the other.
"""

from __future__ import annotations

import asyncio
import dataclasses
import weakref
from collections.abc import Mapping, Sequence
from typing import Final

from domain.events import DecisionOpened, Event, GameCreated, GameEnded, GameStarted, RoundStarted
from domain.evolve import fold
from domain.state import Decision, GameState, PlayerId
from infra.event_store import StoredEvent
from infra.lru import LRU
from tgbot.delivery import game_over
from tgbot.delivery.driver import Batch, prompts_first
from tgbot.presenter import lobby
from tgbot.presenter import messages as m
from tgbot.presenter.announce import Told, announce, opening
from tgbot.presenter.audience import Table
from tgbot.presenter.icons import Line
from tgbot.telegram.context import BotServices

CACHED_GAMES: Final = 1024  # running games whose last announced state is kept in memory
CACHED_OPENINGS: Final = 4096  # the prompts' opening lines told again (a press each)
_Openings = LRU[tuple[str, int, PlayerId, str], list[Line]]
_openings: weakref.WeakKeyDictionary[object, _Openings] = weakref.WeakKeyDictionary()
"""Per event store (a process may run several, as tests do), the openings told again."""


class Presenting:
    """Presents games' events over the bot's services; ``cache`` keeps the last state
    announced per game (bounded: a lobby left open forever, too), ``rounds`` the events
    of each game's round so far, up to the version announced last."""

    def __init__(self, services: BotServices) -> None:
        self.services = services
        self.cache: LRU[str, tuple[GameState, int]] = LRU(CACHED_GAMES)
        self.rounds: LRU[str, tuple[int, list[Event]]] = LRU(CACHED_GAMES)

    def state_before(self, game_id: str, version: int) -> GameState:
        cached = self.cache.get(game_id)
        if cached is not None and cached[1] == version:
            return cached[0]
        decode = self.services.service.decode
        return fold(decode(e) for e in self.services.store.load(game_id) if e.version <= version)

    async def present(
        self, game_id: str, records: Sequence[StoredEvent], now: int
    ) -> tuple[list[m.Message], GameState]:
        """Read (the state before ``records``), fold, present: the messages the events
        call for and the state after them."""
        first = records[0].version - 1
        decode = self.services.service.decode
        events: list[Event] = [decode(r) for r in records]
        state = await asyncio.to_thread(self.state_before, game_id, first)
        after = fold(events, state)
        table = await asyncio.to_thread(self.services.table, game_id, after)
        table = dataclasses.replace(table, now_ms=now)
        if any(isinstance(e, GameEnded) for e in events):
            ratings, awards = await asyncio.to_thread(game_over.results, self.services, game_id)
            table = dataclasses.replace(table, ratings=ratings, awards=awards)
        missing: frozenset[int] = frozenset()
        if any(isinstance(e, GameStarted) for e in events):
            missing = await asyncio.to_thread(self._never_opened, after)
        told = [
            Told(event, int(r.recorded_at.timestamp() * 1000), _name(r.metadata))
            for event, r in zip(events, records, strict=True)
        ]
        earlier = await asyncio.to_thread(self.round_so_far, game_id, state, first)
        messages, after = announce(table, state, first, told, missing=missing, earlier=earlier)
        self.remember_round(game_id, records[-1].version, earlier, events)
        notices: list[m.Message] = []
        if after.phase == "lobby" and any(isinstance(e, GameCreated) for e in events):
            subscribers = await asyncio.to_thread(self._subscribers, after)
            notices += lobby.subscriber_notices(after, table, subscribers)
        return prompts_first(messages) + notices, after

    def round_so_far(self, game_id: str, state: GameState, version: int) -> list[Event]:
        """The events of ``state``'s round (``version`` the last of them): the board's
        last moves and the prompts' "since your last turn" are told from them."""
        if state.round == 0:
            return []
        cached = self.rounds.get(game_id)
        if cached is not None and cached[0] == version:
            return cached[1]
        decode = self.services.service.decode
        records = self.services.store.load(game_id, state.round_began - 1, with_metadata=False)
        return [decode(r) for r in records if r.version <= version]

    def remember_round(
        self, game_id: str, version: int, earlier: list[Event], events: list[Event]
    ) -> None:
        """Keep the round so far after ``events`` (up to ``version``) for the next batch."""
        starts = [i for i, e in enumerate(events) if isinstance(e, RoundStarted)]
        kept = events[starts[-1] :] if starts else [*earlier, *events]
        self.rounds[game_id] = (version, kept)

    async def present_again(self, game_id: str, batch: Batch) -> Sequence[m.Message]:
        """A recorded batch's messages, presented again from the log."""
        records = await asyncio.to_thread(self.services.store.load, game_id, batch.first - 1)
        records = [r for r in records if r.version <= batch.last]
        if not records:
            return []
        messages, _ = await self.present(game_id, records, batch.now_ms)
        return messages

    def _subscribers(self, state: GameState) -> dict[int, str]:
        """Who asked to hear of the group's new games (but the game's creator) and can be
        written to in private, with their languages."""
        botstate = self.services.botstate
        wanted = [p for p in botstate.subscribers(state.chat_id) if p != state.creator]
        users = botstate.users(wanted)
        return {
            p: self.services.texts_for_user(p).lang
            for p in wanted
            if p in users and users[p].private_chat
        }

    def _never_opened(self, state: GameState) -> frozenset[int]:
        users = self.services.botstate.users(state.seating)
        return frozenset(p for p in state.seating if p not in users or not users[p].private_chat)


def decision_opening(
    services: BotServices, game_id: str, state: GameState, version: int, table: Table
) -> list[Line]:
    """What the prompt of the decision pending in ``state`` (at ``version``) opened with
    when it was sent (:func:`tgbot.presenter.announce.opening`), told again from the log:
    the events that opened it are those appended with its ``DecisionOpened`` (one
    command's, as the announcer reads them), after the round so far."""
    pending = state.pending
    if pending is None:
        return []
    # The log before a decision never changes: each press on its prompt reads it once.
    told = _openings.setdefault(services.store, LRU(CACHED_OPENINGS))
    key = (game_id, pending.id, pending.player, table.player(pending.player).texts.lang)
    cached = told.get(key)
    if cached is None:
        cached = told[key] = _told_opening(services, game_id, pending, version, table)
    return list(cached)


def _told_opening(
    services: BotServices, game_id: str, pending: Decision, version: int, table: Table
) -> list[Line]:
    records = [r for r in services.store.load(game_id) if r.version <= version]
    decode = services.service.decode
    events: list[Event] = [decode(r) for r in records]
    opened = [
        i
        for i, e in enumerate(events)
        if isinstance(e, DecisionOpened) and e.decision == pending.id
    ]
    if not opened:
        return []
    first = last = opened[-1]
    appended = records[first].recorded_at
    while first > 0 and records[first - 1].recorded_at == appended:
        first -= 1
    while last + 1 < len(records) and records[last + 1].recorded_at == appended:
        last += 1
    before = fold(events[:first])
    earlier = events[before.round_began - 1 : first] if before.round > 0 else []
    told = [
        Told(events[i], int(records[i].recorded_at.timestamp() * 1000), _name(records[i].metadata))
        for i in range(first, last + 1)
    ]
    version_before = records[first].version - 1
    player: PlayerId = pending.player
    return opening(table, before, version_before, told, player, earlier=earlier)


def _name(metadata: object) -> str:
    """Who pressed, when an admin acted for the creator (the event's metadata)."""
    name = metadata.get("acted_by_name") if isinstance(metadata, Mapping) else None
    return name if isinstance(name, str) else ""
