"""What the bot keeps in memory stays bounded as users, groups and games go by: games in
new groups with new users, each opened, started and cancelled (as in
``benchmarks/bench_memory.py``), leave nothing behind that grows with their number."""

from __future__ import annotations

from typing import Any

import pytest
from telegram import Bot

from infra.botstate import BotState
from infra.db import make_engine
from infra.memory import FreeMemory
from tests.fakebotapi import FakeBotAPI
from tests.tgbot.bot_harness import (
    bot_services,
    lobby_button,
    press_and_wait,
    running_bot,
    seat,
    settle,
    start_game,
)
from tgbot.delivery.outbox import Outbox
from tgbot.delivery.photos import PhotoCache
from tgbot.presenter.messages import Picture
from tgbot.telegram.app import BotApplication

pytestmark = pytest.mark.timeout(120)

GAMES = 4


async def play_and_cancel(api: FakeBotAPI, app: BotApplication, number: int) -> None:
    """A game in a new group with three new users: started, then cancelled."""
    group = -7000 - number
    players = [7000 + 3 * number + i for i in range(3)]
    seat(api, group, players)
    await start_game(api, app, group, players)
    api.send_text(group, players[0], "/cancel")
    await settle(api, app)
    asked = [m for m in api.messages_in(group) if "text" in m and api.keyboard(m)][-1]
    await press_and_wait(
        api, app, group, players[0], asked["message_id"], lobby_button(api, asked, 0)
    )
    assert bot_services(app).active_game(group) is None  # the game is over


async def games_played(api: FakeBotAPI, app: BotApplication, games: int = GAMES) -> None:
    for number in range(games):
        await play_and_cancel(api, app, number)
    await settle(api, app)


async def test_no_chat_or_user_is_noted_for_a_persistence_the_bot_does_not_have(db: str) -> None:
    async with FakeBotAPI() as api, running_bot(api, db) as app:
        await games_played(api, app)
        ptb: Any = app  # python-telegram-bot's own bookkeeping, noted per update
        assert app.persistence is None
        assert not ptb._chat_ids_to_be_updated_in_persistence
        assert not ptb._user_ids_to_be_updated_in_persistence


def test_the_outbox_keeps_the_pictures_drawn_last_and_draws_the_others_again(
    db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tgbot.delivery.sending

    drawn: list[Picture] = []

    def draw(picture: Picture) -> bytes:
        drawn.append(picture)
        return repr(picture).encode()

    monkeypatch.setattr(tgbot.delivery.sending, "draw", draw)
    monkeypatch.setattr(tgbot.delivery.sending, "DRAWN_PICTURES", 4)
    outbox = Outbox(Bot("1:x"), BotState(make_engine(db)), PhotoCache(), b"k" * 32)
    pictures = [Picture(board=(), marks=(((0, n), "x"),)) for n in range(50)]
    for picture in pictures:
        assert outbox.draw(picture) == outbox.draw(picture) == repr(picture).encode()

    assert drawn == pictures  # each drawn once, however often it was sent
    assert len(outbox._drawn) == 4  # and only the last ones kept
    outbox.draw(pictures[0])
    assert drawn[-1] == pictures[0]  # forgotten: drawn again


async def test_a_game_that_ends_gives_the_memory_freed_meanwhile_back(db: str) -> None:
    released: list[int] = []

    def trim(pad: int) -> int:
        released.append(pad)
        return 1

    freeing = FreeMemory(every=0, trim=trim)
    async with FakeBotAPI() as api, running_bot(api, db, memory=freeing) as app:
        await games_played(api, app)
        assert len(released) == GAMES  # once as each game ended
