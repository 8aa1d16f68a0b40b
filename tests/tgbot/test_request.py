"""The bot's aiohttp requests behave as python-telegram-bot's own httpx ones.

Every test runs once per backend against the fake Bot API: what the bot sends, what it
gets back and which error it sees must be the same.
"""

from __future__ import annotations

import asyncio
import io
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
import pytest_asyncio
from PIL import Image
from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup, InputMediaPhoto
from telegram.error import BadRequest, NetworkError, RetryAfter, TimedOut
from telegram.ext import AIORateLimiter, ExtBot
from telegram.request import BaseRequest, HTTPXRequest

from tests.fakebotapi import FakeBotAPI
from tgbot.telegram.request import AiohttpRequest

BACKENDS: dict[str, Callable[..., BaseRequest]] = {
    "httpx": HTTPXRequest,
    "aiohttp": AiohttpRequest,
}
USER = 7


def png(color: str, size: tuple[int, int]) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, color).save(out, "PNG")
    return out.getvalue()


class StallingAPI(FakeBotAPI):
    """The fake Bot API, never answering ``sendChatAction`` until released."""

    def __init__(self) -> None:
        super().__init__()
        self.release = asyncio.Event()

    async def _api_sendChatAction(self, params: Any, files: Any) -> bool:
        await self.release.wait()
        return True


@pytest_asyncio.fixture
async def api() -> AsyncIterator[StallingAPI]:
    fake = StallingAPI()
    await fake.start()
    fake.user(USER, "Alice")
    try:
        yield fake
    finally:
        fake.release.set()
        await fake.stop()


@pytest.fixture(params=sorted(BACKENDS))
def backend(request: pytest.FixtureRequest) -> Callable[..., BaseRequest]:
    return BACKENDS[request.param]


def bot_for(api: FakeBotAPI, backend: Callable[..., BaseRequest], **timeouts: float) -> Bot:
    return Bot(
        api.token,
        base_url=api.base_url,
        base_file_url=api.base_file_url,
        request=backend(**timeouts),
        get_updates_request=backend(connection_pool_size=1, **timeouts),
    )


async def test_a_message_is_sent_with_its_keyboard_and_comes_back_parsed(
    api: StallingAPI, backend: Callable[..., BaseRequest]
) -> None:
    keyboard = InlineKeyboardMarkup([[InlineKeyboardButton("Join ✋", callback_data="j:1")]])
    async with bot_for(api, backend) as bot:
        sent = await bot.send_message(USER, "¡Hola & adiós = 100%", reply_markup=keyboard)

    assert sent.text == "¡Hola & adiós = 100%" and sent.chat.id == USER
    assert sent.reply_markup == keyboard
    call = api.calls_of("sendMessage")[-1]
    assert call["text"] == "¡Hola & adiós = 100%"
    assert call["reply_markup"]["inline_keyboard"][0][0]["callback_data"] == "j:1"


async def test_a_photo_is_uploaded_whole_and_replaced_by_another(
    api: StallingAPI, backend: Callable[..., BaseRequest]
) -> None:
    first, second = png("red", (300, 200)), png("blue", (120, 80))
    async with bot_for(api, backend) as bot:
        sent = await bot.send_photo(USER, first, caption="board, turn 1")
        edited = await bot.edit_message_media(
            InputMediaPhoto(second, caption="board, turn 2"), USER, sent.message_id
        )

    assert isinstance(edited, type(sent))
    assert sent.caption == "board, turn 1" and sent.photo[-1].width == 300
    assert edited.caption == "board, turn 2" and edited.photo[-1].width == 120
    assert api.photo_bytes(api.messages[USER][sent.message_id]) == second
    assert api.calls_of("sendPhoto")[-1].files["photo"] == first


async def test_long_polling_waits_past_the_read_timeout_and_returns_the_update(
    api: StallingAPI, backend: Callable[..., BaseRequest]
) -> None:
    async with bot_for(api, backend, read_timeout=0.2) as bot:
        # Nothing queued: the long poll (1 s) outlasts the read timeout and is no error.
        assert await bot.get_updates(timeout=1) == ()
        api.send_text(USER, USER, "/start")
        updates = await bot.get_updates(timeout=5)

    assert [u.message.text for u in updates if u.message] == ["/start"]


async def test_a_bad_gateway_is_a_network_error(
    api: StallingAPI, backend: Callable[..., BaseRequest]
) -> None:
    api.fail_next("sendMessage", 502, "Bad Gateway")
    async with bot_for(api, backend) as bot:
        with pytest.raises(NetworkError) as raised:
            await bot.send_message(USER, "hi")
        assert not isinstance(raised.value, TimedOut)
        assert (await bot.send_message(USER, "again")).text == "again"


async def test_a_flood_limit_is_retry_after_its_seconds(
    api: StallingAPI, backend: Callable[..., BaseRequest]
) -> None:
    api.fail_next("sendMessage", 429, retry_after=3)
    async with bot_for(api, backend) as bot:
        with pytest.raises(RetryAfter) as raised:
            await bot.send_message(USER, "hi")

    assert raised.value.message == "Flood control exceeded. Retry in 3 seconds"


async def test_an_unchanged_edit_is_a_bad_request_saying_not_modified(
    api: StallingAPI, backend: Callable[..., BaseRequest]
) -> None:
    async with bot_for(api, backend) as bot:
        sent = await bot.send_message(USER, "same")
        with pytest.raises(BadRequest, match=r"(?i)^message is not modified"):
            await bot.edit_message_text("same", USER, sent.message_id)


async def test_a_server_that_does_not_answer_is_a_timeout(
    api: StallingAPI, backend: Callable[..., BaseRequest]
) -> None:
    async with bot_for(api, backend) as bot:
        with pytest.raises(TimedOut):
            await bot.send_chat_action(USER, "typing", read_timeout=0.3)


async def test_a_server_that_is_gone_is_a_network_error(
    api: StallingAPI, backend: Callable[..., BaseRequest]
) -> None:
    async with bot_for(api, backend) as bot:
        await api.stop()
        with pytest.raises(NetworkError) as raised:
            await bot.send_message(USER, "anyone?")
    assert not isinstance(raised.value, TimedOut)


async def test_the_rate_limiter_waits_out_a_flood_limit_and_sends_once(
    api: StallingAPI, backend: Callable[..., BaseRequest]
) -> None:
    api.fail_next("sendMessage", 429, retry_after=1)
    bot: ExtBot[None] = ExtBot(
        api.token,
        base_url=api.base_url,
        request=backend(),
        get_updates_request=backend(connection_pool_size=1),
        rate_limiter=AIORateLimiter(max_retries=2),
    )
    async with bot:
        sent = await bot.send_message(USER, "patience")

    assert sent.text == "patience"
    assert [c["text"] for c in api.calls_of("sendMessage")] == ["patience", "patience"]
    assert [m["text"] for m in api.messages_in(USER)] == ["patience"]


async def test_telegram_is_reached_through_the_proxy_the_environment_names(
    api: StallingAPI, backend: Callable[..., BaseRequest], monkeypatch: pytest.MonkeyPatch
) -> None:
    # A host nobody can resolve: only the proxy (the fake, answering any host) reaches it.
    for name in ("NO_PROXY", "no_proxy", "http_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{api.port}")
    bot = Bot(
        api.token,
        base_url="http://api.telegram.invalid/bot",
        request=backend(),
        get_updates_request=backend(connection_pool_size=1),
    )
    async with bot:
        sent = await bot.send_message(USER, "through the proxy")

    assert sent.text == "through the proxy"
    assert api.messages_in(USER)[-1]["text"] == "through the proxy"
