"""The gateway's tries of a paced call: each is told (the announcer so notices soon that
this instance cannot reach Telegram), and a delivery is tried again only while its
instance still holds its game."""

from __future__ import annotations

from typing import Any, cast

import pytest
from telegram import Bot
from telegram.error import NetworkError

from infra.botstate import BotState
from tgbot.telegram.gateway import (
    ATTEMPTS,
    Delivery,
    Gateway,
    HandedOver,
    Place,
    Undelivered,
    Via,
)


class FakeBot:
    """A bot whose calls fail (Telegram out of reach) while ``cut``, and answer else."""

    def __init__(self, cut: bool) -> None:
        self.cut = cut
        self.calls = 0

    async def delete_message(self, **kwargs: Any) -> bool:
        self.calls += 1
        if self.cut:
            raise NetworkError("Connection refused") from ConnectionRefusedError()
        return True


@pytest.fixture(autouse=True)
def no_pause(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("tgbot.telegram.gateway.NETWORK_BACKOFF", 0.0)


def gateway(bot: FakeBot) -> Gateway:
    return Gateway(cast(Bot, bot), cast(BotState, None))


async def test_every_try_of_a_call_is_told_whether_telegram_answered() -> None:
    cut = gateway(FakeBot(cut=True))
    heard: list[bool] = []
    cut.heard = heard.append
    await cut.call(Place(200), "delete_message", message_id=5)

    answering = gateway(FakeBot(cut=False))
    answering.heard = heard.append
    await answering.call(Place(200), "delete_message", message_id=5)

    assert heard == [False] * ATTEMPTS + [True]


async def test_a_delivery_whose_game_was_given_up_is_not_tried_again() -> None:
    bot = FakeBot(cut=True)
    asked: list[str] = []

    def holds() -> bool:
        asked.append("holds")
        return False  # given up after the first try failed

    with pytest.raises(HandedOver):
        await gateway(bot).call(
            Place(200), "delete_message", via=Via(delivery=Delivery(holds=holds)), message_id=5
        )

    assert bot.calls == 1 and asked


async def test_a_delivery_whose_game_is_still_held_is_tried_every_time() -> None:
    bot = FakeBot(cut=True)

    with pytest.raises(Undelivered) as raised:
        await gateway(bot).call(
            Place(200),
            "delete_message",
            via=Via(delivery=Delivery(holds=lambda: True)),
            message_id=5,
        )

    assert bot.calls == ATTEMPTS and not isinstance(raised.value, HandedOver)
