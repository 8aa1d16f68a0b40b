"""The bot tests' Telegram: :mod:`tgbot.offline.fakeapi`, and a fixture that runs it."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest_asyncio

from tgbot.offline.fakeapi import ApiError, Button, Call, FakeBotAPI, png_size

__all__ = ["ApiError", "Button", "Call", "FakeBotAPI", "fake_bot_api", "png_size"]


@pytest_asyncio.fixture
async def fake_bot_api() -> AsyncIterator[FakeBotAPI]:
    """A running :class:`FakeBotAPI` on a free local port."""
    async with FakeBotAPI() as api:
        yield api
