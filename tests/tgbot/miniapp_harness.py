"""The Mini App served beside the real bot (fake Bot API), and initData as Telegram signs it."""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import urlencode

import aiohttp

from tests.fakebotapi import FakeBotAPI
from tests.tgbot.bot_harness import bot_services
from tgbot.miniapp import initdata
from tgbot.miniapp.api import MiniApp, mini_app
from tgbot.miniapp.server import serving
from tgbot.telegram.app import BotApplication

GROUP = -1001


def init_data(
    api: FakeBotAPI,
    user_id: int,
    *,
    game: str = "",
    lang: str = "en",
    auth_date: float | None = None,
    token: str | None = None,
) -> str:
    """initData for ``user_id`` as Telegram would hand it to the Mini App (a direct link
    with ``startapp=<game>`` when ``game`` is given)."""
    user = api.users.get(user_id, {"first_name": f"U{user_id}"})
    fields = {
        "auth_date": str(int(auth_date if auth_date is not None else time.time())),
        "user": json.dumps(
            {"id": user_id, "first_name": user["first_name"], "language_code": lang},
            separators=(",", ":"),
        ),
        "chat_type": "supergroup",
        "chat_instance": "-77123",
    }
    if game:
        fields["start_param"] = game
    return initdata.sign(fields, token or api.token)


def auth(raw: str) -> dict[str, str]:
    return {"Authorization": f"tma {raw}"}


async def next_state(stream: aiohttp.ClientResponse) -> dict[str, Any]:
    """The game as the next ``state`` event of a live stream brings it."""
    event = ""
    while True:
        line = (await stream.content.readline()).decode().rstrip("\n")
        if line.startswith("event:"):
            event = line.split(":", 1)[1].strip()
        elif line.startswith("data:") and event == "state":
            return dict(json.loads(line.split(":", 1)[1]))


def launch_url(page: str, raw: str) -> str:
    """The page's address as Telegram opens it: the launch parameters after ``#``."""
    return f"{page}#{urlencode({'tgWebAppData': raw, 'tgWebAppVersion': '8.0'})}"


@contextlib.asynccontextmanager
async def miniapp_served(
    app: BotApplication, api: FakeBotAPI, **options: Any
) -> AsyncIterator[tuple[str, MiniApp]]:
    """The Mini App on a local port beside ``app``: (the page's URL, the Mini App)."""
    options.setdefault("poll_seconds", 0.1)
    served = mini_app(bot_services(app), token=api.token, bot=app.bot, **options)
    try:
        async with serving(served.routes()) as base:
            yield f"{base}/miniapp/", served
    finally:
        await served.feed.close()
