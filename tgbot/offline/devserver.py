"""The in-process fake Telegram Bot API the offline demo talks to."""

from __future__ import annotations

from tgbot.offline.fakeapi import FakeBotAPI


def fake_bot_api() -> FakeBotAPI:
    """A new, not yet started fake Bot API server."""
    return FakeBotAPI()
