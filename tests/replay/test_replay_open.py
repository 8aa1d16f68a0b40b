"""A Replay button is answered before the replay's picture is drawn and sent."""

from __future__ import annotations

from collections.abc import Callable

from infra.botstate import BotState
from infra.db import make_engine
from infra.event_store import EventStore
from infra.migrations import upgrade
from tests.fakebotapi import FakeBotAPI
from tests.replay.games import play
from tests.replay.test_history_figures import store_game
from tests.tgbot.bot_harness import bot_services, running_bot
from tgbot.telegram.handlers import replays

GROUP = -3101
USER = 101


async def test_a_replay_button_stops_spinning_before_the_replay_is_sent(
    empty_database: Callable[[str], str],
) -> None:
    url = empty_database("sqlite")
    upgrade(url)
    store = EventStore(make_engine(url))
    game = store_game(store, play(41, players=3, edition="base", chat_id=GROUP).events, day=0)
    BotState(store.engine).save_position(store.last_position())
    async with FakeBotAPI() as api, running_bot(api, url) as app:
        api.group(GROUP)
        api.user(USER, "Ann")
        key = bot_services(app).callback_key
        sent = len(api.calls)
        data = replays.replay_button(game, key, GROUP).callback_data
        assert isinstance(data, str)
        query = api.press(GROUP, USER, 1, data)
        photo = await api.wait_for_call("sendPhoto", 20, after=sent, chat_id=GROUP)
        await api.wait_for(lambda: api.answered.get(query), 20)

    calls = api.calls[sent:]
    answered = next(i for i, c in enumerate(calls) if c.method == "answerCallbackQuery")
    assert answered < calls.index(photo)
    assert photo["caption"].startswith("Replay")
