"""What the bot records beside each event: who acted and through which Telegram update."""

from __future__ import annotations

from tests.fakebotapi import FakeBotAPI
from tests.tgbot.bot_harness import bot_services, running_bot, seat, start_game

GROUP = -4242
PLAYERS = [501, 502, 503]


async def test_every_event_a_player_caused_records_the_telegram_update_and_the_actor(
    db: str,
) -> None:
    async with FakeBotAPI() as api:
        seat(api, GROUP, PLAYERS)
        async with running_bot(api, db) as app:
            game_id = await start_game(api, app, GROUP, PLAYERS)
            stored = bot_services(app).store.load(game_id)

    assert stored
    for event in stored:
        update_id = event.metadata["telegram_update_id"]
        assert isinstance(update_id, int) and event.metadata["idempotency_key"] == f"tg:{update_id}"
    joins = [e for e in stored if e.type == "player_joined"]
    assert [e.metadata["actor"] for e in joins] == PLAYERS[1:]
    assert len({e.metadata["telegram_update_id"] for e in joins}) == len(joins)
