"""The announcer: it follows the event log and tells the chats, once.

Whoever appended an event — a button press in this process, a deadline in a Celery worker,
another bot instance — the announcer reads :meth:`EventStore.read_all` from its recorded
position, folds each game's state, asks the presenter what the new events call for
(:func:`tgbot.presenter.announce.announce`) and hands that to the outbox: read → fold →
present → deliver. Each game's progress is claimed before its messages go out, so a
restart goes on where it stopped and repeats nothing, and a game whose announcing failed
is tried again later without holding up the others. Only the instance that holds the
lease announces.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import time
import uuid
from collections.abc import Mapping, Sequence
from typing import Final

from domain.decider import fold
from domain.events import Event, GameCreated, GameStarted
from domain.state import GameState
from infra.archive import imported_streams
from infra.db import reader
from infra.event_store import StoredEvent
from tgbot.context import BotServices
from tgbot.invitations import tell_subscribers
from tgbot.outbox import DELIVERY, Delivery, Outbox
from tgbot.presenter.announce import Told, announce

log = logging.getLogger(__name__)

ANNOUNCER_KEY: Final = "announcer"  # where the application keeps its announcer (bot_data)
MAX_FAILURES: Final = 3  # a game's events whose announcing failed this often are given up
LEASE_MS: Final = 15_000  # how long the announcing instance's lease lasts without renewal


class Announcer:
    """Follows the event log and announces every event once."""

    def __init__(
        self,
        services: BotServices,
        outbox: Outbox,
        *,
        poll_interval: float = 1.0,
        name: str = "notifier",
    ) -> None:
        self.services = services
        self.outbox = outbox
        self.poll_interval = poll_interval
        self.name = name  # the position's and the lease's name in the database
        self.position: int | None = None
        self.holder = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self.leading = False
        self.lease_until = 0.0  # monotonic seconds when the lease must be renewed by
        self.cache: dict[str, tuple[GameState, int]] = {}
        self.failures: dict[tuple[str, int], int] = {}
        # Claims to take back (game -> (claimed, announced before)) that failed to be:
        # taken back before the next catch-up, or the game's events would pass as told.
        self.unclaims: dict[str, tuple[int, int]] = {}

    async def run(self) -> None:
        """Forever: while this instance holds the lease, catch up, then wait for a wake-up
        or the poll interval; else wait for the lease."""
        wake = self.services.wake
        try:
            while True:
                wake.clear()
                try:
                    handled = await self.catch_up() if await self.lead() else 0
                except asyncio.CancelledError:
                    raise
                except Exception:
                    log.exception("announcer failed; retrying")
                    await asyncio.sleep(self.poll_interval)
                    continue
                if handled:
                    continue  # more may be waiting
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(wake.wait(), self.poll_interval)
        finally:
            if self.leading:
                await asyncio.shield(asyncio.to_thread(self.resign))

    async def lead(self) -> bool:
        """Whether this instance announces: it takes or renews the lease in the database
        (renewed when a third of it is used). Whoever takes over reads the position and
        the messages afresh; the per-game claims keep even an overlap from repeating."""
        loop = asyncio.get_running_loop()
        if self.leading and loop.time() < self.lease_until:
            return True
        now_ms = time.time_ns() // 1_000_000
        botstate = self.services.botstate
        held = await asyncio.to_thread(
            botstate.hold_lease, self.holder, now_ms, LEASE_MS, self.name
        )
        if held:
            self.lease_until = loop.time() + LEASE_MS / 3000
            if not self.leading:
                log.info("announcer %s announces", self.holder)
                self.position = None
                self.cache.clear()
                botstate.forget_cached_messages()
        self.leading = held
        return held

    def resign(self) -> None:
        """Give the lease up (a clean shutdown), so another instance takes over at once."""
        self.leading = False
        try:
            self.services.botstate.release_lease(self.holder, self.name)
        except Exception:  # the lease runs out by itself
            log.warning("could not release the announcer lease", exc_info=True)

    async def catch_up(self, limit: int = 500) -> int:
        """Announce the events after the recorded position; returns how many were passed.

        Games are announced side by side, each game's events in order. A game that failed
        neither repeats nor holds up the others: the position stops before its events,
        which are tried again next time.
        """
        botstate = self.services.botstate
        if self.position is None:
            self.position = await asyncio.to_thread(botstate.position, self.name)
        for game_id in list(self.unclaims):
            await self._take_back(game_id)
        start = self.position
        records = await asyncio.to_thread(self.services.store.read_all, start, limit)
        if not records:
            return 0
        by_game: dict[str, list[StoredEvent]] = {}
        for record in records:
            by_game.setdefault(record.stream_id, []).append(record)
        imported, done = await asyncio.to_thread(self._progress, list(by_game))
        for game_id in imported:
            del by_game[game_id]
        failed = await asyncio.gather(
            *(self.announce_game(g, chunk, done.get(g)) for g, chunk in by_game.items())
        )
        stuck = [position for position in failed if position is not None]
        self.position = min(stuck) - 1 if stuck else records[-1].position
        if self.position > start:
            await asyncio.to_thread(botstate.save_position, self.position, self.name)
        return self.position - start if stuck else len(records)

    def _progress(self, game_ids: list[str]) -> tuple[set[str], dict[str, int]]:
        """Of these games, the imported ones (played elsewhere: replayed by their id,
        never announced) and how far each other one was announced."""
        with reader(self.services.store.engine) as conn:
            imported = imported_streams(conn, game_ids)
        others = [g for g in game_ids if g not in imported]
        return imported, self.services.botstate.game_versions(others, self.name)

    async def _take_back(self, game_id: str) -> None:
        """Return a game's claim noted in ``unclaims`` (its events are told again)."""
        claimed, back = self.unclaims[game_id]
        await asyncio.to_thread(
            self.services.botstate.claim_game, game_id, claimed, back, self.name
        )
        del self.unclaims[game_id]

    async def announce_game(
        self, game_id: str, chunk: Sequence[StoredEvent], done: int | None
    ) -> int | None:
        """Announce one game's events after version ``done``; the position of the first
        event to try again when announcing failed, else None."""
        botstate = self.services.botstate
        fresh = [r for r in chunk if done is None or r.version > done]
        if not fresh:
            return None
        claimed = fresh[-1].version
        if not await asyncio.to_thread(botstate.claim_game, game_id, done, claimed, self.name):
            self.cache.pop(game_id, None)  # announced by someone else meanwhile
            return None
        key = (game_id, fresh[0].version)
        delivery = Delivery()
        token = DELIVERY.set(delivery)
        try:
            await self.announce(game_id, fresh)
        except asyncio.CancelledError:
            raise
        except Exception:
            self.cache.pop(game_id, None)
            if delivery.sent:
                # Announcing again would send those messages twice. The claim stays and
                # the rest of these events goes untold: the lesser evil next to duplicates
                # (the players' next moves are announced as usual; /hand shows the rest).
                self.failures.pop(key, None)
                log.exception(
                    "game %s: announcing failed after sending; up to %d left", game_id, claimed
                )
                return None
            self.failures[key] = self.failures.get(key, 0) + 1
            if self.failures[key] >= MAX_FAILURES:
                del self.failures[key]
                log.exception("game %s: events up to %d given up", game_id, claimed)
                return None
            log.exception("game %s: announcing failed; trying again", game_id)
            self.unclaims[game_id] = (claimed, done or 0)
            try:
                await self._take_back(game_id)
            except Exception:  # taken back before the next catch-up (see catch_up)
                log.exception("game %s: could not take the claim back yet", game_id)
            return fresh[0].position
        finally:
            DELIVERY.reset(token)
        self.failures.pop(key, None)
        return None

    def state_before(self, game_id: str, version: int) -> GameState:
        cached = self.cache.get(game_id)
        if cached is not None and cached[1] == version:
            return cached[0]
        decode = self.services.service.decode
        return fold(decode(e) for e in self.services.store.load(game_id) if e.version <= version)

    async def announce(self, game_id: str, records: Sequence[StoredEvent]) -> None:
        """Read (the state before ``records``), fold, present, deliver."""
        first = records[0].version - 1
        decode = self.services.service.decode
        events: list[Event] = [decode(r) for r in records]
        state = await asyncio.to_thread(self.state_before, game_id, first)
        table = await asyncio.to_thread(self.services.table, game_id, fold(events, state))
        missing: frozenset[int] = frozenset()
        if any(isinstance(e, GameStarted) for e in events):
            missing = await asyncio.to_thread(self._never_opened, fold(events, state))
        told = [
            Told(event, int(r.recorded_at.timestamp() * 1000), _name(r.metadata))
            for event, r in zip(events, records, strict=True)
        ]
        messages, after = announce(table, state, first, told, missing=missing)
        await self.outbox.deliver(messages)
        if after.phase == "lobby" and any(isinstance(e, GameCreated) for e in events):
            await tell_subscribers(self.outbox, self.services, after)  # a new game here
        if after.phase in ("finished", "cancelled"):
            self.cache.pop(game_id, None)
        else:
            self.cache[game_id] = (after, first + len(records))

    def _never_opened(self, state: GameState) -> frozenset[int]:
        users = self.services.botstate.users(state.seating)
        return frozenset(p for p in state.seating if p not in users or not users[p].private_chat)


def _name(metadata: object) -> str:
    """Who pressed, when an admin acted for the creator (the event's metadata)."""
    name = metadata.get("acted_by_name") if isinstance(metadata, Mapping) else None
    return name if isinstance(name, str) else ""
