"""The announcer: it follows the event log and tells the chats, at least once and with
the effects once, on as many instances as run.

Whoever appended an event — a button press in this process, a deadline in a Celery worker,
another bot instance — every instance's announcer reads :meth:`EventStore.read_all` from
its position and notes which games have events not yet announced. It announces only the
games it holds the claim of (:mod:`infra.claims`): the claims are renewed every
:data:`~infra.claims.RENEW_EVERY_MS` and spread over the live instances, and the games of
an instance that died are taken over within 3 s, once its claims lapsed. One that stops
(SIGTERM) hands over at once every game it has no delivery under way for, and each other
one as its deliveries end.

For a game it holds, it folds the state, asks the presenter what the new events call for
(:func:`tgbot.presenter.announce.announce`) and, in one transaction, claims the events as
announced and records those messages in the durable outbox; then it sends them
(:mod:`tgbot.delivery.driver`). A takeover drives whatever its predecessor left owing.

An instance whose calls to Telegram keep failing gives its games up until Telegram answers
it again (asked every :data:`REPROBE_SECONDS`), so that an instance that can reach
Telegram takes them meanwhile, and a lone instance takes them back as soon as it can: every try
of a call counts (the gateway tells each), and so does every update whose handling could
not reach Telegram (:mod:`tgbot.telegram.outage`); once tries failed for
:data:`GIVE_UP_SECONDS` with none answered, Telegram is asked who the bot is; unanswered
within :data:`PROBE_SECONDS`, the games are given up at once. What the instance was
delivering stops at its next try, and the game's next holder drives it at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import os
import socket
import uuid
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Final

from domain.state import GameState
from infra.claims import CLAIM_TTL_MS, RENEW_EVERY_MS, Claims
from infra.deliveries import Deliveries
from infra.event_store import StoredEvent
from infra.waiting import wait_event
from tgbot.delivery.driver import Batch, Driver, Health, Holding, now_ms, planned
from tgbot.delivery.outbox import Outbox
from tgbot.delivery.presenting import Presenting
from tgbot.presenter import messages as m
from tgbot.telegram.context import BotServices
from tgbot.telegram.outage import OUTAGE

log = logging.getLogger(__name__)

ANNOUNCER_KEY: Final = "announcer"  # where the application keeps its announcer (bot_data)
GIVE_UP_SECONDS: Final = 1.0  # tries of calls to Telegram failing this long, none answered,
GIVE_UP_FAILURES: Final = 2  # ... at least this many of them, and a probe unanswered:
PROBE_SECONDS: Final = 1.0  # ... within this: the games are given up
REPROBE_SECONDS: Final = 2.0  # how often an instance so benched asks whether Telegram answers
DRAIN_SECONDS: Final = 5.0  # how long a stopping announcer lets its deliveries end
RESTART_SECONDS: Final = 0.2  # before a loop that ended unasked is run again


class Announcer:
    """Follows the event log and announces the games this instance holds."""

    def __init__(
        self,
        services: BotServices,
        outbox: Outbox,
        *,
        poll_interval: float = 1.0,
        name: str = "notifier",
        holder: str | None = None,
    ) -> None:
        self.services = services
        self.outbox = outbox
        self.poll_interval = poll_interval
        self.name = name  # the position's name in the database
        self.holder = holder or f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        engine = services.store.engine
        self.claims = Claims(engine, self.holder)
        self.deliveries = Deliveries(engine)
        # What the driver needs of this instance's state, given as values it reads and
        # writes: the games held (set at each claims step), and whether calls to Telegram
        # go through (the games are given up while they keep failing).
        self.holding = Holding()
        self.health = Health()
        outbox.gateway.heard = self.health.heard  # every try of every call
        self.presenting = Presenting(services)
        self.driver = Driver(
            outbox,
            self.deliveries,
            self.presenting.present_again,
            self.health,
            self.holding,
            holder=self.holder,
        )
        # The claims' database calls have a thread of their own: deliveries filling the
        # default pool (slow Telegram, a slow database) never delay their renewal.
        self._claims_thread = ThreadPoolExecutor(1, thread_name_prefix="claims")
        # Every event up to ``position`` is announced, or its game is held elsewhere;
        # the log is read on from ``read_to``.
        self.position: int | None = None
        self.read_to = 0
        # Games with events not announced yet: (position of the first, last version seen).
        self.waiting: dict[str, tuple[int, int]] = {}
        self.taken: set[str] = set()  # games just taken over: what they owe is driven
        self.next_step = 0.0  # loop time of the next claims step
        self.benched_until = 0.0
        self.stopping = False  # set once the announcing ended: no game is taken any more
        self._stepping = asyncio.Lock()
        self.delivering: dict[str, set[asyncio.Task[None]]] = {}  # per game, under way
        # The last state announced per game (bounded: a lobby left open forever, too).
        self.cache = self.presenting.cache
        self.rounds = self.presenting.rounds  # the events of each round so far

    # -- the loop ----------------------------------------------------------------------

    async def run(self) -> None:
        """Forever: catch up, then wait for a wake-up or the poll interval (the claims
        are renewed beside, every :data:`RENEW_EVERY_MS`). Only a stop (this task
        cancelled) ends it: the loop or the claims' loop ended otherwise is logged and
        run again (see :meth:`_kept`)."""
        claiming = asyncio.create_task(self._kept("claims", self._claim_forever), name="claims")
        OUTAGE.listeners.append(self.health.heard)  # updates that could not reach Telegram
        try:
            await self._kept("announcing", self._announce_forever)
        finally:
            with contextlib.suppress(ValueError):
                OUTAGE.listeners.remove(self.health.heard)
            # Stopping: nothing is announced here any more, so every game without a
            # delivery under way goes to another instance at once (not when this one's
            # drain ends, nor when its claims lapse); the others are kept, their claims
            # renewed, while their deliveries end, and each is given up as it does (see
            # _claims_step). What they leave owing after DRAIN_SECONDS, the games' next
            # holders drive.
            self.stopping = True
            await asyncio.shield(self._hand_over())
            under_way = [t for tasks in self.delivering.values() for t in tasks]
            if under_way:
                _, late = await asyncio.wait(under_way, timeout=DRAIN_SECONDS)
                for task in late:
                    task.cancel()
                await asyncio.gather(*late, return_exceptions=True)
            claiming.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await claiming
            await asyncio.shield(asyncio.to_thread(self.leave))
            self._claims_thread.shutdown(wait=False)

    async def _kept(self, what: str, forever: Callable[[], Awaitable[None]]) -> None:
        """Run ``forever`` until this task is stopped (cancelled). Ended otherwise — a
        CancelledError that no stop raised (a future it awaited was cancelled by someone
        else), an exception — it is logged and run again: the process goes on, so must
        its announcing."""
        task = asyncio.current_task()
        assert task is not None
        while True:
            try:
                await forever()
            except asyncio.CancelledError:
                if task.cancelling():
                    raise  # a stop
                log.error(
                    "announcer %s: its %s loop was cancelled, though it was not stopped; "
                    "it runs again",
                    self.holder,
                    what,
                    exc_info=True,
                )
            except Exception:
                log.exception("announcer %s: its %s loop failed; it runs again", self.holder, what)
            await asyncio.sleep(RESTART_SECONDS)

    async def _announce_forever(self) -> None:
        wake = self.services.wake
        while True:
            wake.clear()
            try:
                handled = await self.catch_up()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("announcer failed; retrying")
                await asyncio.sleep(self.poll_interval)
                continue
            if handled:
                continue  # more may be waiting
            # Not asyncio.wait_for: on Python 3.11 it swallows a stop that comes as the
            # wake-up does, and the announcer would never stop (see infra.waiting).
            await wait_event(wake, self.poll_interval)

    async def _claim_forever(self) -> None:
        """The claims' own loop, so that slow deliveries never delay their renewal."""
        loop = asyncio.get_running_loop()
        while True:
            try:
                await self.step()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("renewing the claims failed; retrying")
            await asyncio.sleep(max(0.01, self.next_step - loop.time()))

    def settled(self) -> bool:
        """Whether every event of the log is announced and delivered: nothing is being
        delivered, nor owed (what a demo or a test waits for; it reads the database: call
        it in a thread)."""
        if self.delivering or self.position != self.services.store.last_position():
            return False
        return not self.deliveries.owing() and not self.delivering

    async def _hand_over(self) -> None:
        """Leave the live instances and give up every game held without a delivery under
        way here (a stop)."""
        async with self._stepping:  # after a claims step under way, which may take some
            busy = frozenset(self.delivering)
            idle = self.held - busy
            try:
                self.held = await asyncio.get_running_loop().run_in_executor(
                    self._claims_thread, self.claims.drain, busy, now_ms()
                )
            except Exception:  # they lapse by themselves
                log.warning("could not hand the games over", exc_info=True)
                return
        log.info("announcer %s stops: %d games handed over at once", self.holder, len(idle))

    def leave(self) -> None:
        """Give every game up (a clean shutdown), so other instances take them at once."""
        self.held = frozenset()
        try:
            self.claims.leave()
        except Exception:  # the claims lapse by themselves
            log.warning("could not give the games up", exc_info=True)

    async def catch_up(self, limit: int = 500) -> int:
        """Read the log on, take or renew claims, announce the waiting games held here and
        drive what they owe; returns how many events were read."""
        botstate = self.services.botstate
        if self.position is None:
            self.position = self.read_to = await asyncio.to_thread(botstate.position, self.name)
        records = await asyncio.to_thread(self.services.store.read_all, self.read_to, limit)
        if await self._note(records):
            await self.step(force=True)  # a game began waiting: take it now if free
        held = [g for g in self.waiting if g in self.held]
        await asyncio.gather(*(self.announce_game(g) for g in held))
        await self.drive_owed()
        await self._forget_announced()
        position = min(p for p, _ in self.waiting.values()) - 1 if self.waiting else self.read_to
        if position > self.position:
            await asyncio.to_thread(botstate.save_position, position, self.name)
        self.position = position
        return len(records)

    async def _note(self, records: Sequence[StoredEvent]) -> bool:
        """Note the games of ``records`` with events not announced yet; whether any game
        began waiting."""
        if not records:
            return False
        by_game: dict[str, list[StoredEvent]] = {}
        for record in records:
            by_game.setdefault(record.stream_id, []).append(record)
        imported, done = await asyncio.to_thread(self._progress, list(by_game))
        new = False
        for game_id, chunk in by_game.items():
            if game_id in imported:
                continue
            fresh = [r for r in chunk if game_id not in done or r.version > done[game_id]]
            if not fresh:
                continue
            before = self.waiting.get(game_id)
            new = new or before is None
            first = before[0] if before is not None else fresh[0].position
            self.waiting[game_id] = (first, fresh[-1].version)
        self.read_to = records[-1].position
        return new

    def _progress(self, game_ids: list[str]) -> tuple[set[str], dict[str, int]]:
        """Of these games, the imported ones (played elsewhere: replayed by their id,
        never announced) and how far each other one was announced."""
        imported = self.services.index.imported(game_ids)
        others = [g for g in game_ids if g not in imported]
        return imported, self.services.botstate.game_versions(others, self.name)

    async def _forget_announced(self) -> None:
        """Stop waiting for games another instance announced."""
        elsewhere = [g for g in self.waiting if g not in self.held]
        if not elsewhere:
            return
        done = await asyncio.to_thread(self.services.botstate.game_versions, elsewhere, self.name)
        for game_id in elsewhere:
            if done.get(game_id, 0) >= self.waiting[game_id][1]:
                del self.waiting[game_id]

    # -- claims ------------------------------------------------------------------------

    async def step(self, force: bool = False) -> None:
        """Renew the claims and take free games that need announcing (every
        :data:`RENEW_EVERY_MS`, or at once when a game began waiting); give them all up
        while Telegram cannot be reached."""
        async with self._stepping:
            await self._step(force)

    async def _step(self, force: bool) -> None:
        loop = asyncio.get_running_loop()
        now = loop.time()
        if now < self.next_step and not force:
            return
        self.next_step = now + RENEW_EVERY_MS / 1000
        if self.benched_until:
            if now < self.benched_until:
                return
            try:
                await self.outbox.gateway.reachable()
            except Exception:
                self.benched_until = loop.time() + REPROBE_SECONDS
                return
            log.info("announcer %s reaches Telegram again: it takes games again", self.holder)
            self.benched_until = 0.0
            self.health.heard(True)
        failing_since = self.health.failing_since
        if (
            failing_since is not None
            and self.health.failures >= GIVE_UP_FAILURES
            and now - failing_since >= GIVE_UP_SECONDS
        ):
            if await self._answers():
                self.health.heard(True)  # Telegram answers: those calls failed otherwise
            else:
                log.warning(
                    "announcer %s: %d tries of calls to Telegram failed in %.1f s and it does"
                    " not answer; its %d games are given up",
                    self.holder,
                    self.health.failures,
                    now - failing_since,
                    len(self.held),
                )
                await asyncio.to_thread(self.leave)
                self.benched_until = loop.time() + REPROBE_SECONDS
                return
        waiting = set(self.waiting)
        busy = frozenset(self.delivering)
        owing, held = await loop.run_in_executor(
            self._claims_thread, self._claims_step, waiting, busy
        )
        self.holding.valid_until = now + (CLAIM_TTL_MS - RENEW_EVERY_MS) / 1000
        taken = held - self.held
        if taken:
            log.info("announcer %s takes %d games", self.holder, len(taken))
            for game_id in taken:
                self.cache.pop(game_id, None)
            # Its messages may have been posted anew meanwhile by the instance before.
            self.services.botstate.forget_cached_messages()
            self.taken |= taken & owing
            self.services.wake.nudge()  # announce them now, not at the next poll
        self.held = held
        self.taken &= held

    async def _answers(self) -> bool:
        """Whether Telegram answers this instance within :data:`PROBE_SECONDS`."""
        try:
            async with asyncio.timeout(PROBE_SECONDS):
                await self.outbox.gateway.reachable()
        except asyncio.CancelledError:
            raise
        except Exception:
            return False
        return True

    def _claims_step(
        self, waiting: set[str], busy: frozenset[str]
    ) -> tuple[set[str], frozenset[str]]:
        """The games owing deliveries, and the games held after a claims step over them
        and the ``waiting`` ones (``busy`` ones, delivering here, are kept). Stopping,
        only the busy ones are renewed: the rest are given up, none taken."""
        owing = self.deliveries.owing()
        if self.stopping:
            return owing, self.claims.drain(busy, now_ms())
        return owing, self.claims.step(waiting | owing, now_ms(), busy)

    @property
    def held(self) -> frozenset[str]:
        """The games this instance held at its last claims step."""
        return self.holding.games

    @held.setter
    def held(self, games: frozenset[str]) -> None:
        self.holding.games = games

    @property
    def valid_until(self) -> float:
        """The loop time until which the claims held surely last."""
        return self.holding.valid_until

    def holds(self, game_id: str) -> bool:
        """See :meth:`tgbot.delivery.driver.Holding.holds`."""
        return self.holding.holds(game_id)

    # -- announcing --------------------------------------------------------------------

    async def announce_game(self, game_id: str) -> None:
        """Announce a held game's events after its announced version: claimed as
        announced and recorded, in one transaction, then delivered."""
        try:
            await self._announce_game(game_id)
        except asyncio.CancelledError:
            raise
        except Exception:
            self.cache.pop(game_id, None)
            log.exception("game %s: announcing failed; trying again", game_id)

    async def _announce_game(self, game_id: str) -> None:
        botstate = self.services.botstate
        done = (await asyncio.to_thread(botstate.game_versions, [game_id], self.name)).get(game_id)
        records = await asyncio.to_thread(self.services.store.load, game_id, done or 0)
        if not records:
            self.waiting.pop(game_id, None)
            return
        batch = Batch(
            records[0].version, records[-1].version, int(self.services.service.clock_ms())
        )
        messages, after = await self.present(game_id, records, batch.now_ms)
        plan = planned(game_id, batch, messages)
        claimed = await asyncio.to_thread(
            botstate.claim_game,
            game_id,
            done,
            batch.last,
            self.name,
            lambda conn: self.deliveries.record(plan, now_ms(), conn),
        )
        if self.waiting.get(game_id, (0, 0))[1] <= batch.last:
            self.waiting.pop(game_id, None)
        if not claimed:
            self.cache.pop(game_id, None)  # announced by another instance meanwhile
            return
        if after.phase in ("finished", "cancelled"):
            self.cache.pop(game_id, None)
            self.rounds.pop(game_id, None)
        else:
            self.cache[game_id] = (after, batch.last)
        known = {d.key: msg for d, msg in zip(plan, messages, strict=True)}
        self._spawn(game_id, self._deliver(game_id, known, after))

    async def _deliver(self, game_id: str, known: dict[str, m.Message], after: GameState) -> None:
        """Deliver a batch just recorded, beside the announcing of the next ones."""
        settled = await self.driver.drive(game_id, known)
        if after.phase in ("finished", "cancelled"):
            # What memory holds of it goes; so does its claim once nothing is owed.
            await asyncio.to_thread(self.services.forget_game, game_id)
            if settled:
                await asyncio.to_thread(self.claims.give_up, [game_id])

    def _spawn(self, game_id: str, work: Coroutine[Any, Any, None]) -> None:
        """Run a game's delivering as a task of its own: the announcer reads and records
        the next batches meanwhile (a group waiting on its rate limit holds nobody up)."""

        async def guarded() -> None:
            try:
                await work
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("game %s: delivering failed; trying again", game_id)

        task = asyncio.create_task(guarded(), name=f"deliver {game_id}")
        self.delivering.setdefault(game_id, set()).add(task)
        task.add_done_callback(functools.partial(self._delivered, game_id))

    def _delivered(self, game_id: str, task: asyncio.Task[None]) -> None:
        tasks = self.delivering.get(game_id)
        if tasks is not None:
            tasks.discard(task)
            if not tasks:
                del self.delivering[game_id]

    async def drive_owed(self) -> None:
        """Drive the deliveries owed by held games: those just taken over, and failed
        ones whose next try came."""
        if not self.held:
            return
        taken, self.taken = self.taken, set()
        due = await asyncio.to_thread(self.deliveries.due, self.held, now_ms())
        games = taken | {item.delivery.stream_id for item in due}
        for game_id in games - set(self.delivering):  # a drive on it finds them anyway
            # A game just taken: what it owes goes at once, whatever the backoff of the
            # tries of the instance before (it may have given it up, cut off from Telegram).
            self._spawn(game_id, self._drive(game_id, now=game_id in taken))

    async def _drive(self, game_id: str, now: bool = False) -> None:
        await self.driver.drive(game_id, now=now)

    async def present(
        self, game_id: str, records: Sequence[StoredEvent], now: int
    ) -> tuple[list[m.Message], GameState]:
        """The messages ``records`` call for and the state after them (see
        :class:`tgbot.delivery.presenting.Presenting`)."""
        return await self.presenting.present(game_id, records, now)
