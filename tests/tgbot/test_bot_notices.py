"""What the notifier tells the chats, checked through the fake Bot API."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from domain.commands import RemindPlayer
from infra.game_service import now_ms
from infra.migrations import upgrade
from tests.fakebotapi import FakeBotAPI
from tests.tgbot.bot_harness import bot_services, running_bot, seat, settle, start_game

GROUP = -3003
PLAYERS = [21, 22, 23]

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def db(empty_database: Callable[[str], str]) -> str:
    url = empty_database("sqlite")
    upgrade(url)
    return url


async def test_a_reminder_tells_the_player_the_real_time_left(db: str) -> None:
    # The game's clock runs 150 s behind: a 180 s turn opened now ends in about 30 s.
    async with FakeBotAPI() as api:
        seat(api, GROUP, PLAYERS)
        async with running_bot(api, db, clock_ms=lambda: now_ms() - 150_000) as app:
            await settle(api, app)
            game_id = await start_game(api, app, GROUP, PLAYERS)
            services = bot_services(app)
            state, _ = services.load(game_id)
            assert state.pending is not None
            services.service.handle(game_id, RemindPlayer(state.pending.id, "half"))
            await settle(api, app)

            text = api.last_message(state.pending.player)["text"]
            found = re.search(r"half of your time is gone: (\d+) s left", text)
            assert found is not None, text
            assert 15 <= int(found.group(1)) <= 30
