"""Two instances of the bot on one PostgreSQL database: what one learns, the other knows."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from infra.botstate import BotState
from infra.db import make_engine
from infra.migrations import upgrade
from tests.fakebotapi import FakeBotAPI
from tests.tgbot.bot_harness import (
    bot_services,
    lobby_button,
    press_and_wait,
    running_bot,
    settle,
)

pytestmark = pytest.mark.timeout(120)
GROUP = -8008
CREATOR, LATE = 81, 82


@pytest.fixture
def pg(empty_database: Callable[[str], str]) -> str:
    url = empty_database("postgres")
    upgrade(url)
    return url


async def test_a_users_start_on_another_instance_lets_them_join_here_at_once(pg: str) -> None:
    async with FakeBotAPI() as api:
        api.group(GROUP, "Mine", admins=(CREATOR,))
        api.user(CREATOR, "Ann")
        api.send_text(CREATOR, CREATOR, "/start")
        api.user(LATE, "Bo", opened=False)
        async with running_bot(api, pg) as app:
            await settle(api, app)
            api.send_text(GROUP, CREATOR, "/newgame")
            await settle(api, app)
            lobby = next(m for m in api.messages_in(GROUP) if api.keyboard(m))
            join = lobby_button(api, lobby, 0)
            first = await press_and_wait(api, app, GROUP, LATE, lobby["message_id"], join)
            assert "url" in first  # sent to open the private chat first

            # Bo opens the private chat; his /start is handled by another instance.
            api.opened.add(LATE)
            other = make_engine(pg)
            try:
                BotState(other).save_user(LATE, "Bo", private_chat=True)
            finally:
                other.dispose()
            here = bot_services(app).botstate
            await api.wait_for(lambda: here.user(LATE).private_chat or None, 5)  # type: ignore[union-attr]

            again = await press_and_wait(api, app, GROUP, LATE, lobby["message_id"], join)

        assert "url" not in again and "joined" in again.get("text", "").lower()
