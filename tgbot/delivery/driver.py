"""Delivering a game's announcements at least once, with their effects once.

The announcer presents a batch of a game's events as messages; what those messages are is
recorded in the durable outbox (:mod:`infra.deliveries`) in the transaction that claims
the batch (:meth:`infra.botstate.BotState.claim_game`), before anything is sent. Then
:meth:`Driver.drive` sends what the game owes, each chat's in order, each delivery marked
``unknown`` just before its first call to Telegram (once the rate limiter let it go, and
only while this instance's claim on the game lasts) and ``sent`` after it. Whoever drives
the game next (this instance after a failure, another one that took the game over after a
crash) finds what is still owed and drives it to a safe end:

- a delivery still ``pending`` surely never went out: it is sent;
- one left ``unknown`` (its instance died during the call, or its answer was lost) is
  repeated when repeating is safe: an edit shows the same, a prompt sent again takes its
  player's live prompt over and removes the buttons of the older one and of its own first
  try if that arrived (found among the few messages before the new one in the chat), a
  board redraw or lobby fills its slot again; any other message (a line in a chat, a
  board posted anew, a redraw that had no board to edit and so posted one) is taken as
  arrived, not repeated, and after a board posted anew the group's next redraw is posted
  anew too;
- a delivery whose call failed is tried again with backoff
  (:func:`infra.deliveries.backoff_ms`) without holding up the game's later ones, and
  parked (logged with the game and the decision) once it failed too often; a game just
  taken over is driven at once, backoff or not (the tries that failed were the other
  instance's: it may have given the game up because it could not reach Telegram), and a
  delivery whose instance gave its game up between two tries is left due at once, the
  try not counted (:class:`~tgbot.telegram.gateway.HandedOver`);
- a prompt, board or lobby that a newer one to the same chat replaced is superseded: it
  is never sent after its successor, and a board redraw that fell behind a newer one is
  not sent at all (only the latest board goes).

A recorded delivery keeps no copy of its message: it names its batch (first and last
version, and the clock's now when it was presented) and its place in it, and the driver
presents the batch again from the event log when it must send it without the message at
hand.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from infra.claims import CLAIM_TTL_MS, RENEW_EVERY_MS
from infra.deliveries import BEGUN, PENDING, UNKNOWN, Deliveries, Delivery, Item
from infra.lru import LRU
from infra.ratelimit import Priority
from tgbot.delivery.outbox import Outbox, pace
from tgbot.presenter import messages as m
from tgbot.telegram.gateway import Delivery as Sending
from tgbot.telegram.gateway import HandedOver, NotOurs, Undelivered, message_id

log = logging.getLogger(__name__)

PROMPT: Final = "prompt"  # a player's prompt, or its closing
BOARD: Final = "board"  # the group's board redrawn
NEW_BOARD: Final = "board-new"  # the group's board posted anew
LOBBY: Final = "lobby"
EDIT: Final = "edit"  # any other edit
MESSAGE: Final = "message"  # a message sent into a chat
# Safe to repeat if unknown. Not a board posted anew (nor a redraw that found no board to
# edit and so posted one): a second photo in the group would show the round twice; it is
# taken as arrived, and the group's next redraw posts one.
REPEATABLE: Final = frozenset({PROMPT, BOARD, LOBBY, EDIT})
SUPERSEDED_BY_NEWER: Final = frozenset({PROMPT, BOARD, LOBBY})
KNOWN_MESSAGES: Final = 1_000  # messages recorded and not sent yet, kept at hand
# A send begins only while the sender's claim lasts this much longer (the claims are
# renewed every RENEW_EVERY_MS for CLAIM_TTL_MS, so a live instance always has more).
SEND_MARGIN_MS: Final = (CLAIM_TTL_MS - RENEW_EVERY_MS) // 2


@dataclass(frozen=True, slots=True)
class Batch:
    """A game's events ``first`` to ``last``, presented at ``now_ms``."""

    first: int
    last: int
    now_ms: int


# Presents a game's batch again: its messages, in order.
Presenter = Callable[[str, Batch], Awaitable[Sequence[m.Message]]]


def kind_of(message: m.Message) -> str:
    """What a message does, as the outbox records it.

    >>> kind_of(m.Unbuttoned(chat=1, message_id=2)), kind_of(m.Text(chat=1, text="hi"))
    ('edit', 'message')
    """
    match message:
        case m.Prompt() | m.ClosedPrompt():
            return PROMPT
        case m.Board():
            return NEW_BOARD if message.new else BOARD
        case m.Lobby() | m.LobbyClosed():
            return LOBBY
        case m.TextEdit() | m.PromptStep() | m.Unbuttoned() | m.Deleted():
            return EDIT
        case m.Photo() if message.message_id is not None:
            return EDIT
    return MESSAGE


def prompts_first(messages: Sequence[m.Message]) -> list[m.Message]:
    """``messages`` with players' prompts moved ahead of what goes to other chats (a
    group's board redraw may wait on the group's rate limit; a prompt should not wait
    behind it). Each chat still gets its own messages in the order given.

    >>> board = m.Text(-1, "board")
    >>> prompt = m.ClosedPrompt(7, "closed")
    >>> [type(x).__name__ for x in prompts_first([board, prompt])]
    ['ClosedPrompt', 'Text']
    >>> news = m.Text(7, "news")  # the player's own chat keeps its order
    >>> [type(x).__name__ for x in prompts_first([board, news, prompt])]
    ['Text', 'Text', 'ClosedPrompt']
    """
    first: list[m.Message] = []
    rest: list[m.Message] = []
    held: set[int] = set()  # chats with a message left behind: theirs keep their order
    for message in messages:
        chat = chat_of(message)
        if pace(message)[0] == Priority.PROMPT and chat not in held:
            first.append(message)
        else:
            rest.append(message)
            held.add(chat)
    return first + rest


def chat_of(message: m.Message) -> int:
    player = getattr(message, "player", None)
    return int(player if player is not None else getattr(message, "chat", 0))


def planned(game_id: str, batch: Batch, messages: Sequence[m.Message]) -> list[Delivery]:
    """The deliveries a batch's messages call for, one each, keyed by game, batch and
    place (recording them again records nothing)."""
    return [
        Delivery(
            key=f"{game_id}:{batch.last}:{index}",
            stream_id=game_id,
            version=batch.last,
            chat_id=chat_of(message),
            kind=kind_of(message),
            payload={
                "first": batch.first,
                "last": batch.last,
                "now": batch.now_ms,
                "index": index,
                "count": len(messages),
            },
            decision=message.version if isinstance(message, m.Prompt) else None,
        )
        for index, message in enumerate(messages)
    ]


def now_ms() -> int:
    return time.time_ns() // 1_000_000


@dataclass
class Holding:
    """The games this instance holds the claims of (:mod:`infra.claims`), as of its last
    claims step, and the loop time until which those claims surely last."""

    games: frozenset[str] = frozenset()
    valid_until: float = 0.0

    def holds(self, game_id: str) -> bool:
        """Whether this instance still holds the game (checked before each delivery):
        held at the last claims step, and that step recent enough that the claim surely
        has not lapsed (renewals failing, a database out of reach)."""
        return game_id in self.games and asyncio.get_running_loop().time() < self.valid_until


@dataclass
class Health:
    """Whether the calls to Telegram go through: since when (loop time) they fail, and
    how many failed since."""

    failing_since: float | None = None
    failures: int = 0

    def heard(self, ok: bool) -> None:
        """A call to Telegram went through (``ok``) or failed."""
        if ok:
            self.failing_since, self.failures = None, 0
            return
        if self.failing_since is None:
            self.failing_since = asyncio.get_running_loop().time()
        self.failures += 1


class Driver:
    """Drives games' recorded deliveries to an end (see the module's docstring).
    ``health`` hears whether each call to Telegram went through (the announcer gives its
    games up when they keep failing); ``holding`` says whether this instance still holds
    a game's claim (none is sent for a game it lost; None: every game is its own), and
    ``holder`` names the instance whose claim each send is fenced by in the database."""

    def __init__(
        self,
        outbox: Outbox,
        deliveries: Deliveries,
        present: Presenter,
        health: Health | None = None,
        holding: Holding | None = None,
        holder: str | None = None,
    ) -> None:
        self.outbox = outbox
        self.health = health if health is not None else Health()
        self.holding = holding
        self.holder = holder
        # Messages presented lately, by their delivery's key: a lane that sends what
        # another drive recorded finds them here (else they are presented again).
        self.known: LRU[str, m.Message] = LRU(KNOWN_MESSAGES)
        self.lanes: dict[tuple[str, int], asyncio.Lock] = {}  # (game, chat): one drive
        self.waiting: dict[tuple[str, int], int] = {}  # drives on or waiting for a lane
        # (game, chat) whose prompt left unknown was superseded: the next one looks for it.
        self.doubtful: set[tuple[str, int]] = set()
        self.deliveries = deliveries
        self.present = present

    async def drive(
        self, game_id: str, known: Mapping[str, m.Message] | None = None, *, now: bool = False
    ) -> bool:
        """Send what ``game_id`` still owes whose time has come, each chat's oldest first;
        ``known``: messages at hand by their delivery's key; ``now``: everything owed,
        whatever the backoff of a failed one (a game just taken over). True when nothing
        is left owing.

        Each chat is a lane of its own, driven beside the others: a group's board waiting
        on the group's rate limit never holds a player's prompt back. One drive at a time
        per lane; each reads what its chat is owed once it has the lane, so a later batch
        finds what an earlier drive left, and a board that fell behind goes only as the
        latest one."""
        if known:
            self.known.update(known)
        items = await asyncio.to_thread(self.deliveries.unsettled, game_id)
        chats = list(dict.fromkeys(item.delivery.chat_id for item in items))
        presented: dict[Batch, Sequence[m.Message]] = {}
        settled = await asyncio.gather(*(self._lane(game_id, c, presented, now) for c in chats))
        return all(settled)

    async def _lane(
        self,
        game_id: str,
        chat_id: int,
        presented: dict[Batch, Sequence[m.Message]],
        now: bool = False,
    ) -> bool:
        lane = (game_id, chat_id)
        lock = self.lanes.setdefault(lane, asyncio.Lock())
        self.waiting[lane] = self.waiting.get(lane, 0) + 1
        try:
            async with lock:
                return await self._drive_lane(game_id, chat_id, presented, now)
        finally:
            self.waiting[lane] -= 1
            if not self.waiting[lane]:  # nobody else is on the lane: forget its lock
                del self.waiting[lane]
                self.lanes.pop(lane, None)

    async def _drive_lane(
        self,
        game_id: str,
        chat_id: int,
        presented: dict[Batch, Sequence[m.Message]],
        now: bool = False,
    ) -> bool:
        items = await asyncio.to_thread(self.deliveries.unsettled, game_id, chat_id)
        settled = True
        for position, item in enumerate(items):
            d = item.delivery
            if self.holding is not None and not self.holding.holds(game_id):
                return False  # another instance drives it now
            if item.state == PENDING and item.next_attempt_at > now_ms() and not now:
                settled = False
                continue  # waits for its next try; the later ones go on
            # A redraw that fell behind a newer one is never sent (only the latest board
            # goes); a prompt or lobby only once it failed (in order, each replaces the
            # one before anyway).
            retried = item.attempts > 0 or item.state == UNKNOWN or d.kind == BOARD
            if (
                retried
                and d.kind in SUPERSEDED_BY_NEWER
                and any(later.delivery.kind == d.kind for later in items[position + 1 :])
            ):
                await asyncio.to_thread(
                    self.deliveries.supersede, game_id, d.chat_id, d.kind, item.id + 1
                )
                self.known.pop(d.key, None)
                if d.kind == PROMPT and item.state == UNKNOWN:  # it may have arrived
                    self.doubtful.add((game_id, d.chat_id))
                continue
            # Held in memory only until it is sent (or is to be tried again).
            message = self.known.pop(d.key, None) or await self._message(item, presented)
            if message is None:
                await asyncio.to_thread(self.deliveries.mark_sent, item.id, now_ms())
                continue
            if item.state == UNKNOWN and not await self._repeatable(item):
                log.warning(
                    "game %s: %s to %s may have arrived; not repeated", game_id, d.kind, d.chat_id
                )
                await self._taken_as_arrived(item)
                continue
            sent = await self._send(item, message)
            if sent is None:
                return False  # its claim lapsed, or another instance is sending it
            if not sent:
                self.known[d.key] = message  # for its next try
                settled = False
        return settled

    async def _begin(self, item: Item) -> bool:
        """Mark a pending delivery unknown before its call: only if it is still pending
        and, with a holder, while this instance's claim on the game lasts
        :data:`SEND_MARGIN_MS` more (so a send never begins where another instance may
        take the game over before it ends). One left unknown is repeated on the same
        condition of the claim."""
        now = now_ms()
        if item.state != PENDING:
            if self.holder is None:
                return True
            return await asyncio.to_thread(
                self.deliveries.held, item.delivery.stream_id, self.holder, now + SEND_MARGIN_MS
            )
        return await asyncio.to_thread(
            self.deliveries.mark_unknown,
            item.id,
            now,
            BEGUN,
            self.holder,
            now + SEND_MARGIN_MS,
        )

    async def _send(self, item: Item, message: m.Message) -> bool | None:
        """One delivery: marked unknown just before its first call to Telegram (once the
        rate limiter let it go), sent, marked sent (or failed). None: it was not this
        instance's to send (see :meth:`_begin`)."""
        d = item.delivery
        begin = functools.partial(self._begin, item)
        unknown_after = None
        if d.kind == PROMPT and item.state == UNKNOWN:  # its first try may have arrived
            last = await asyncio.to_thread(self.deliveries.last_message_id, d.chat_id, item.id)
            unknown_after = last or 0
        elif d.kind == PROMPT and (d.stream_id, d.chat_id) in self.doubtful:
            # An older one, superseded here while unknown, may have arrived.
            self.doubtful.discard((d.stream_id, d.chat_id))
            unknown_after = await asyncio.to_thread(self.deliveries.doubtful_before, item)
        holds = None if self.holding is None else functools.partial(self.holding.holds, d.stream_id)
        sending = Sending(begin=begin, unknown_after=unknown_after, holds=holds)
        try:
            result = await self.outbox.deliver_one(message, sending)
        except NotOurs:
            return None
        except HandedOver as error:
            # This instance gave the game up between two tries: the next holder sends it
            # at once (these tries were this instance's, not the delivery's, to count).
            await asyncio.to_thread(
                self.deliveries.mark_failed, item.id, now_ms(), str(error), counted=False
            )
            return None
        except Undelivered as error:
            self.health.heard(False)
            # A redraw with no board to edit posted the board anew: not repeated either.
            posted = d.kind == BOARD and error.method.startswith("send")
            if error.uncertain and (d.kind not in REPEATABLE or posted):
                await self._taken_as_arrived(item)
                return True
            await self._failed(item, str(error))
            return False
        except Exception as error:
            if sending.sent:  # it went out: repeating it would show it twice
                log.exception("game %s: delivery %s failed after sending", d.stream_id, d.key)
                await asyncio.to_thread(self.deliveries.mark_sent, item.id, now_ms())
                return True
            log.exception("game %s: delivery %s failed", d.stream_id, d.key)
            await self._failed(item, repr(error))
            return False
        self.health.heard(True)
        await asyncio.to_thread(self.deliveries.mark_sent, item.id, now_ms(), message_id(result))
        if d.kind in SUPERSEDED_BY_NEWER:  # an older one retried later must not undo it
            await asyncio.to_thread(
                self.deliveries.supersede, d.stream_id, d.chat_id, d.kind, item.id
            )
        return True

    async def _repeatable(self, item: Item) -> bool:
        """Whether a delivery left unknown may be repeated: not a board redraw that had no
        board message to edit (it posted the board anew, and that may have arrived)."""
        d = item.delivery
        if d.kind == BOARD:
            return await self.outbox.board_known(d.stream_id, d.chat_id)
        return d.kind in REPEATABLE

    async def _taken_as_arrived(self, item: Item) -> None:
        """A delivery that may have arrived, not to be repeated, is marked sent; after a
        board posted anew (its message unknown) the group's next board is posted anew."""
        d = item.delivery
        if d.kind in (NEW_BOARD, BOARD):
            await self.outbox.forget_board(d.stream_id, d.chat_id)
        await asyncio.to_thread(self.deliveries.mark_sent, item.id, now_ms())

    async def _failed(self, item: Item, error: str) -> None:
        await asyncio.to_thread(self.deliveries.mark_failed, item.id, now_ms(), error)

    async def _message(
        self, item: Item, presented: dict[Batch, Sequence[m.Message]]
    ) -> m.Message | None:
        """The delivery's message, its batch presented again from the event log."""
        payload: Mapping[str, Any] = item.delivery.payload
        batch = Batch(int(payload["first"]), int(payload["last"]), int(payload["now"]))
        if batch not in presented:
            presented[batch] = await self.present(item.delivery.stream_id, batch)
        messages = presented[batch]
        index = int(payload["index"])
        d = item.delivery
        if len(messages) == int(payload["count"]) and _same(messages[index], d):
            return messages[index]
        # Presented otherwise now (a player opened the private chat meanwhile, say): the
        # message of the same kind to the same chat (for a prompt, the same decision).
        alike = [message for message in messages if _same(message, d)]
        if len(alike) == 1:
            return alike[0]
        log.warning(
            "game %s: events %d to %d present %d messages now, %d then; delivery %s dropped",
            d.stream_id,
            batch.first,
            batch.last,
            len(messages),
            payload["count"],
            d.key,
        )
        return None


def _same(message: m.Message, delivery: Delivery) -> bool:
    """Whether ``message`` is what ``delivery`` was recorded for."""
    if kind_of(message) != delivery.kind or chat_of(message) != delivery.chat_id:
        return False
    return delivery.decision is None or getattr(message, "version", None) == delivery.decision
