"""An edit that would change nothing the message shows is not sent (Telegram would refuse
it: "message is not modified"), and what a message shows is known only once Telegram
confirmed it: an instance that dies before its call leaves the edit to be made."""

from __future__ import annotations

import asyncio
import io
from typing import Any

import pytest
from PIL import Image
from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup
from telegram.constants import ParseMode

from infra.botstate import BotState
from infra.db import make_engine
from tests.fakebotapi import FakeBotAPI
from tgbot.delivery.outbox import Outbox
from tgbot.delivery.photos import PhotoCache
from tgbot.telegram.edits import ShownEdits

pytestmark = pytest.mark.timeout(60)
PLAYER = 55
HTML = ParseMode.HTML
BUTTONS = InlineKeyboardMarkup([[InlineKeyboardButton("🃏 Tunnel", callback_data="c1")]])


def png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (40, 30), "red").save(out, "PNG")
    return out.getvalue()


class Stuck:
    """A rate limiter that never lets a call go: the instance hangs before its call, as
    one killed (or cut from Telegram) there would, its finally blocks never run."""

    def __init__(self) -> None:
        self.waiting = asyncio.Event()

    async def acquire(self, *args: Any, **kwargs: Any) -> bool:
        self.waiting.set()
        await asyncio.Event().wait()
        return True  # pragma: no cover


async def outbox_for(api: FakeBotAPI, db: str, shown: ShownEdits, limiter: Any = None) -> Outbox:
    bot = Bot(api.token, base_url=api.base_url, base_file_url=api.base_file_url)
    await bot.initialize()
    botstate = BotState(make_engine(db))
    return Outbox(bot, botstate, PhotoCache(), b"k" * 32, shown=shown, limiter=limiter)


async def test_an_instance_dying_before_its_edit_leaves_the_edit_to_the_one_taking_over(
    db: str, redis_url: str
) -> None:
    async with FakeBotAPI() as api:
        api.user(PLAYER, "Pia")
        stuck = Stuck()
        first = await outbox_for(api, db, ShownEdits(redis_url), stuck)
        second = await outbox_for(api, db, ShownEdits(redis_url))
        prompt = await second.send_picture(
            PLAYER, "send_photo", png(), caption="👉 Your turn", reply_markup=BUTTONS
        )
        closing: dict[str, Any] = {
            "message_id": prompt.message_id,
            "caption": "✅ You played a tunnel.",
            "parse_mode": HTML,
        }
        dying = asyncio.create_task(first.call(PLAYER, "edit_message_caption", **closing))
        try:
            await asyncio.wait_for(stuck.waiting.wait(), 10)  # it is about to call
            assert await second.call(PLAYER, "edit_message_caption", **closing)
            shown = api.messages[PLAYER][prompt.message_id]
            assert shown["caption"] == "✅ You played a tunnel."
            assert api.keyboard(shown) == []  # no buttons left that look alive
            assert len(api.calls_of("editMessageCaption")) == 1
        finally:
            dying.cancel()
            await first.shown.close()
            await second.shown.close()


@pytest.mark.parametrize("on_redis", [False, True])
async def test_removing_the_keyboard_of_a_message_that_has_none_is_not_sent(
    db: str, on_redis: bool, request: pytest.FixtureRequest
) -> None:
    url = request.getfixturevalue("redis_url") if on_redis else ""
    async with FakeBotAPI() as api:
        api.user(PLAYER, "Pia")
        outbox = await outbox_for(api, db, ShownEdits(url))
        try:
            plain = await outbox.call(PLAYER, "send_message", text="Round 1", parse_mode=HTML)
            closed = await outbox.send_picture(
                PLAYER, "send_photo", png(), caption="👉 Your turn", reply_markup=BUTTONS
            )
            await outbox.call(
                PLAYER, "edit_message_caption", message_id=closed.message_id, caption="✅ Done"
            )
            for message in (plain, closed):
                assert await outbox.call(
                    PLAYER, "edit_message_reply_markup", message_id=message.message_id
                )
            assert await outbox.call(  # the same again
                PLAYER, "edit_message_caption", message_id=closed.message_id, caption="✅ Done"
            )
            assert api.calls_of("editMessageReplyMarkup") == []
            assert len(api.calls_of("editMessageCaption")) == 1
            assert api.refusals == []
        finally:
            await outbox.shown.close()
