"""The outbox's calls paced by one rate limiter: shared by the instances on Redis, board
redraws after prompts, and a board that fell behind sends only its latest drawing."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable

import pytest
from telegram import Bot

from infra.botstate import BotState
from infra.db import make_engine
from infra.migrations import upgrade
from infra.ratelimit import Limits, MemoryBackend, RateLimiter, RedisBackend, Window
from tests.fakebotapi import FakeBotAPI
from tgbot.delivery.outbox import Outbox
from tgbot.delivery.photos import PhotoCache
from tgbot.presenter import messages as m
from tgbot.presenter.messages import Picture, Slot

pytestmark = pytest.mark.timeout(60)
GROUP, PLAYER = -5005, 55
GAME = "gpaced"
PER_CHAT = 0.5  # seconds between two calls to one chat (Telegram's is 1 s)


@pytest.fixture
def pg(empty_database: Callable[[str], str]) -> str:
    url = empty_database("postgres")
    upgrade(url)
    return url


async def outbox_for(api: FakeBotAPI, url: str, limiter: RateLimiter) -> Outbox:
    bot = Bot(api.token, base_url=api.base_url, base_file_url=api.base_file_url)
    await bot.initialize()
    return Outbox(bot, BotState(make_engine(url)), PhotoCache(), b"k" * 32, limiter=limiter)


def times_to(api: FakeBotAPI, chat: int) -> list[float]:
    return sorted(c.at for c in api.calls if c.get("chat_id") == chat)


async def test_two_instances_on_one_redis_keep_to_one_message_a_second_per_chat_together(
    pg: str, redis_url: str
) -> None:
    limits = Limits(per_chat=Window(1, PER_CHAT))
    prefix = f"test:{uuid.uuid4().hex[:8]}"
    async with FakeBotAPI() as api:
        api.user(PLAYER, "Pia")
        instances = [
            await outbox_for(api, pg, RateLimiter(RedisBackend(redis_url, prefix), limits))
            for _ in range(2)
        ]
        await asyncio.gather(
            *(
                outbox.deliver([m.Text(chat=PLAYER, text=f"{n}.{i}") for i in range(3)])
                for n, outbox in enumerate(instances)
            )
        )

    sent = times_to(api, PLAYER)
    assert len(sent) == 6
    # Sharing the window, the six calls take five windows. Instances that did not share
    # it would each send theirs a window apart, side by side: the six within two windows.
    # Half-way between the two, a busy machine (which only delays a call after its grant,
    # the first one included) has a window and a half to spare.
    assert sent[-1] - sent[0] >= 3.5 * PER_CHAT


async def test_a_board_whose_redraws_fall_behind_sends_only_its_latest(pg: str) -> None:
    limiter = RateLimiter(MemoryBackend(), Limits(per_chat=Window(1, 1.0)))
    async with FakeBotAPI() as api:
        api.group(GROUP, "Mine", admins=(PLAYER,))
        outbox = await outbox_for(api, pg, limiter)
        first = m.Board(chat=GROUP, picture=Picture(board=()), caption="drawn 0", game=GAME)
        await outbox.deliver([first])
        assert outbox.botstate.message(GAME, GROUP, Slot.BOARD) is not None

        # Five moves redraw the board within the chat's second: only the last is shown.
        redraws = [
            m.Board(chat=GROUP, picture=Picture(board=()), caption=f"drawn {n}", game=GAME)
            for n in range(1, 6)
        ]
        await asyncio.gather(*(outbox.deliver([board]) for board in redraws))

    edits = api.calls_of("editMessageMedia")
    assert [e["media"]["caption"] for e in edits] == ["drawn 5"]


async def test_a_prompt_waiting_with_board_redraws_goes_first(pg: str) -> None:
    limiter = RateLimiter(MemoryBackend(), Limits(per_bot=Window(1, PER_CHAT)))
    async with FakeBotAPI() as api:
        api.group(GROUP, "Mine", admins=(PLAYER,))
        api.user(PLAYER, "Pia")
        outbox = await outbox_for(api, pg, limiter)
        boards = [-6001, -6002, -6003]
        for group in boards:
            api.group(group, "Other", admins=(PLAYER,))
            board = m.Board(chat=group, picture=Picture(board=()), caption="old", game=f"g{group}")
            await outbox.deliver([board])

        redraws = [
            m.Board(chat=g, picture=Picture(board=()), caption="new", game=f"g{g}") for g in boards
        ]
        prompt = m.Text(chat=PLAYER, text="your turn")  # stands for any message not a redraw
        waiting = [asyncio.create_task(outbox.deliver([r])) for r in redraws]
        await asyncio.sleep(0)
        waiting.append(asyncio.create_task(outbox.deliver([prompt])))
        await asyncio.gather(*waiting)

    order = [c.method for c in api.calls if c.method in ("editMessageMedia", "sendMessage")]
    assert order.index("sendMessage") <= 1  # ahead of the redraws waiting before it


async def test_a_prompt_sent_again_after_a_try_that_may_have_arrived_leaves_one_live(
    pg: str,
) -> None:
    """A prompt's first try reached the player, but its answer was lost (the instance died
    during the call): sent again, the new prompt is the only one showing buttons."""
    from tgbot.presenter import keyboards as kb
    from tgbot.telegram.gateway import Delivery

    limiter = RateLimiter(MemoryBackend(), Limits())
    async with FakeBotAPI() as api:
        api.user(PLAYER, "Pia")
        outbox = await outbox_for(api, pg, limiter)
        api.send_text(PLAYER, PLAYER, "/start")  # the chat holds a message of the player's
        before = m.Text(chat=PLAYER, text="Your cards", game=GAME)
        known = await outbox.deliver_one(before)
        buttons = kb.keyboard([[kb.Button("Rules", url="https://example.org/rules")]])
        prompt = m.Prompt(PLAYER, Picture(board=()), "Your turn", buttons, GAME, 7)

        await outbox.deliver_one(prompt)  # arrived, though nobody learnt its id
        outbox.botstate.forget_message(GAME, PLAYER, Slot.PROMPT)
        again = await outbox.deliver_one(prompt, Delivery(unknown_after=known.message_id))

        live = [i for i, msg in api.messages[PLAYER].items() if api.keyboard(msg)]
        assert live == [again.message_id]
        assert outbox.botstate.message(GAME, PLAYER, Slot.PROMPT).message_id == again.message_id


async def test_a_decision_closed_after_a_try_of_its_prompt_that_may_have_arrived_leaves_none_live(
    pg: str,
) -> None:
    """The prompt's only try reached the player with its answer lost, and the decision
    was made before anyone sent it again (the closing superseded it): the closing finds
    no live prompt on record, so it is sent as a message, and the try's buttons, if it
    arrived, come off."""
    from tgbot.presenter import keyboards as kb
    from tgbot.telegram.gateway import Delivery

    limiter = RateLimiter(MemoryBackend(), Limits())
    async with FakeBotAPI() as api:
        api.user(PLAYER, "Pia")
        outbox = await outbox_for(api, pg, limiter)
        api.send_text(PLAYER, PLAYER, "/start")
        known = await outbox.deliver_one(m.Text(chat=PLAYER, text="Your cards", game=GAME))
        buttons = kb.keyboard([[kb.Button("Rules", url="https://example.org/rules")]])
        await outbox.deliver_one(m.Prompt(PLAYER, Picture(board=()), "Your turn", buttons, GAME, 7))
        outbox.botstate.forget_message(GAME, PLAYER, Slot.PROMPT)  # nobody learnt its id
        closing = m.ClosedPrompt(PLAYER, "Done: you passed.", game=GAME, version=9)
        sent = await outbox.deliver_one(closing, Delivery(unknown_after=known.message_id))

        assert [i for i, msg in api.messages[PLAYER].items() if api.keyboard(msg)] == []
        assert sent.text == "Done: you passed."
