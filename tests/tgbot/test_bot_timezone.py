"""A group's time zone: deadlines are shown in it, in the group and in private."""

from __future__ import annotations

import pytest

from tests.fakebotapi import FakeBotAPI
from tests.tgbot.bot_harness import bot_services, running_bot, seat, settle, start_game

GROUP = -11017
PLAYERS = [171, 172, 173]
# 2025-06-15 15:00:00 UTC: 17:00 in Warsaw (summer time, CEST)
NOW_MS = 1_749_999_600_000

pytestmark = pytest.mark.timeout(120)


def clock() -> int:
    return NOW_MS


async def test_times_are_shown_in_the_groups_time_zone_which_survives_a_restart(db: str) -> None:
    admin, member = PLAYERS[0], PLAYERS[1]
    async with FakeBotAPI() as api:
        seat(api, GROUP, PLAYERS)
        async with running_bot(api, db, clock_ms=clock) as app:
            await settle(api, app)
            api.send_text(GROUP, admin, "/timezone")
            await settle(api, app)
            assert "in UTC (now 15:00 UTC)" in api.last_message(GROUP)["text"]

            api.send_text(GROUP, member, "/timezone Europe/Warsaw")
            await settle(api, app)
            assert "Only a group admin" in api.last_message(GROUP)["text"]
            api.send_text(GROUP, admin, "/timezone Mars/Olympus")
            await settle(api, app)
            assert "I do not know the time zone “Mars/Olympus”" in api.last_message(GROUP)["text"]
            assert bot_services(app).botstate.chat_timezone(GROUP) is None

            api.send_text(GROUP, admin, "/timezone europe/warsaw")
            await settle(api, app)
            assert "shown in Europe/Warsaw (now 17:00 CEST)" in api.last_message(GROUP)["text"]

        # A new process: the zone was stored, not kept in memory.
        async with running_bot(api, db, clock_ms=clock) as app:
            game_id = await start_game(api, app, GROUP, PLAYERS)
            state, _ = bot_services(app).load(game_id)
            assert state.pending is not None
            board = next(m for m in reversed(api.messages_in(GROUP)) if "photo" in m)
            # A turn of the normal timer: 3 minutes from 17:00 in Warsaw.
            assert "(until 17:03 CEST)" in board["caption"]
            assert "UTC" not in board["caption"]
            prompt = api.last_message(state.pending.player)
            assert "(until 17:03 CEST)" in prompt["caption"]
