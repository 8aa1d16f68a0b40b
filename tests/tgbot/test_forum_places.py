"""Forum topics below the HTTP level: the game records its topic (old games have none),
the group's games are found per topic, and the outbox sends a game's messages to its
topic, to General while it is closed (one notice), and back."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from telegram import Bot

from domain.codec import decode
from domain.commands import CancelGame, CreateGame
from infra.bootstrap import bootstrap
from infra.settings import LANGUAGES, load_settings
from infra.topics import CLOSED, OPEN
from tests.fakebotapi import FakeBotAPI
from tgbot.delivery.outbox import Outbox
from tgbot.presenter import messages as m
from tgbot.telegram.context import BotServices, compose, game_id_for
from tgbot.telegram.gateway import Place
from tgbot.telegram.handlers.group import set_lobby_language

FORUM = -1002024


@pytest.fixture
def services(db: str) -> Iterator[BotServices]:
    built = bootstrap(load_settings(telegram_bot_token="1:x", database_url=db))
    try:
        yield compose(built, Bot("1:x"))
    finally:
        built.close()


def open_game(services: BotServices, chat: int, topic: int | None, creator: int = 1) -> str:
    services.projector.catch_up()  # (the ids count the games the read model holds)
    game = services.next_game_id(chat, topic)
    services.service.handle(game, CreateGame(creator, "Ann", "base", chat, topic=topic))
    return game


def test_a_game_created_before_topics_has_none() -> None:
    old = {
        "creator": 1,
        "creator_name": "Ann",
        "edition": "base",
        "chat_id": -5,
        "turn_seconds": 180,
        "gold_house_rule": False,
    }
    assert decode("game_created", old).topic is None  # type: ignore[union-attr]
    assert decode("game_created", {**old, "topic": 7}).topic == 7  # type: ignore[union-attr]


def test_a_plain_group_keeps_its_game_ids() -> None:
    # The ids a group's games had before topics: the same for no topic.
    assert game_id_for(-5, 3, b"k") == game_id_for(-5, 3, b"k", None)
    assert game_id_for(-5, 3, b"k", 7) != game_id_for(-5, 3, b"k")


def test_one_game_per_topic_and_general_any_number_per_group(services: BotServices) -> None:
    general = open_game(services, FORUM, None)
    one = open_game(services, FORUM, 3, creator=2)
    two = open_game(services, FORUM, 4, creator=1)  # the same person at a second table
    assert len({general, one, two}) == 3
    assert services.load(one)[0].topic == 3
    assert services.active_game(FORUM) == general
    assert services.active_game(FORUM, 3) == one
    assert services.active_game(FORUM, 4) == two
    assert services.active_game(FORUM, 5) is None
    every = services.running_games(FORUM, every=True)
    assert {(g, t) for g, t in every} == {(general, None), (one, 3), (two, 4)}
    assert services.game_place(two) == (FORUM, 4)
    # A plain group: its one game, as before.
    plain = open_game(services, -5, None)
    assert services.active_game(-5) == plain
    assert services.game_place(plain) == (-5, None)


def test_topics_are_learned_and_named(services: BotServices) -> None:
    assert services.topic_open(FORUM, 3)  # never heard of: open, no name
    assert services.topic_name(FORUM, 3) == ""
    unnamed = open_game(services, FORUM, 3)
    assert "#3" in services.moved_notice(unnamed, FORUM, 3)  # named by its number
    services.service.handle(unnamed, CancelGame(1))
    services.topic_opened(FORUM, 3, "Table 2")
    services.topic_lost(FORUM, 3, CLOSED)
    assert not services.topic_open(FORUM, 3)
    assert services.topic_name(FORUM, 3) == "Table 2"
    game = open_game(services, FORUM, 3)
    table = services.table(game, services.load(game)[0])
    assert table.topic_name == "Table 2"
    assert "“Table 2”" in services.moved_notice(game, FORUM, 3)
    assert services.topics.learn(FORUM, 3, state=OPEN)  # its state changed


class Places:
    """The outbox's places for one game in topic 3 of FORUM."""

    def __init__(self) -> None:
        self.open = True
        self.lost: list[str] = []

    def game_place(self, game: str) -> tuple[int, int | None]:
        return (FORUM, 3) if game == "g1" else (FORUM, None)

    def topic_open(self, chat_id: int, topic: int) -> bool:
        return self.open

    def topic_lost(self, chat_id: int, topic: int, state: str) -> None:
        self.lost.append(state)
        self.open = False

    def moved_notice(self, game: str, chat_id: int, topic: int) -> str:
        return "moved to General"


async def test_the_outbox_sends_a_games_messages_to_its_topic_while_it_is_open(
    services: BotServices,
) -> None:
    async with FakeBotAPI() as api:
        api.forum(FORUM, "Miners", admins=(1,))
        api.user(1, "Ann")
        two = api.create_topic(FORUM, "Table 1")
        three = api.create_topic(FORUM, "Table 2")
        assert three == 3 and two == 2
        places = Places()
        bot = Bot(api.token, base_url=api.base_url)
        async with bot:
            outbox = Outbox(bot, services.botstate, services.photos, b"k" * 32, places=places)

            async def say(text: str, game: str = "g1") -> Any:
                return await outbox.deliver_one(m.Text(FORUM, text, game=game))

            await say("in the topic")
            await say("another game's, in General", game="g2")
            await say("no game's, in General", game="")
            assert [x["text"] for x in api.in_topic(FORUM, 3)] == ["in the topic"]
            assert len(api.in_topic(FORUM, None)) == 2
            # Closed (the bot heard it): to General, after one notice.
            places.open = False
            await say("closed 1")
            await say("closed 2")
            general = [x["text"] for x in api.in_topic(FORUM, None)]
            assert general[2:] == ["moved to General", "closed 1", "closed 2"]
            # Open again: back to the topic.
            places.open = True
            await say("back")
            assert [x["text"] for x in api.in_topic(FORUM, 3)] == ["in the topic", "back"]
            # Closed unheard: Telegram refuses, the topic is noted closed, General told
            # once more, and the message goes there.
            api.close_topic(FORUM, 3)
            await say("refused")
            assert places.lost == [CLOSED]
            general = [x["text"] for x in api.in_topic(FORUM, None)]
            assert general[-2:] == ["moved to General", "refused"]
            assert [r.description for r in api.refusals] == ["Bad Request: TOPIC_CLOSED"]


def test_a_place_addresses_new_messages_to_its_topic_only() -> None:
    assert Place(-5).target("send_message") == {"chat_id": -5}
    assert Place(-5, 3).target("send_message") == {"chat_id": -5, "message_thread_id": 3}
    assert Place(-5, 3).target("delete_message") == {"chat_id": -5}


def test_a_topic_speaks_its_own_language_else_the_groups(services: BotServices) -> None:
    services.botstate.set_chat_language(FORUM, "de")
    services.topics.learn(FORUM, 3, name="Table 1")  # a topic the bot heard of
    services.topics.set_language(FORUM, 3, "pl")
    services.topics.set_language(FORUM, 5, "es")  # and one it never heard of
    assert services.texts_for_chat(FORUM, topic=3).lang == "pl"
    assert services.texts_for_chat(FORUM, topic=5).lang == "es"
    assert services.topic_name(FORUM, 3) == "Table 1"  # (its name is kept)
    # A topic without its own language, General and the group follow the group's.
    assert services.texts_for_chat(FORUM, topic=4).lang == "de"
    assert services.texts_for_chat(FORUM).lang == "de"
    # A game's group messages speak its topic's language.
    one, other = open_game(services, FORUM, 3), open_game(services, FORUM, 4)
    assert services.table(one, services.load(one)[0]).group_language == "pl"
    assert services.table(other, services.load(other)[0]).group_language == "de"
    # Back to the group's.
    services.topics.set_language(FORUM, 3, None)
    assert services.texts_for_chat(FORUM, topic=3).lang == "de"


def test_the_lobby_language_button_changes_what_its_topic_speaks(services: BotServices) -> None:
    services.topics.set_language(FORUM, 3, "pl")
    # In a topic with its own language, that one; elsewhere, the group's.
    set_lobby_language(services, FORUM, 3, LANGUAGES.index("es"))
    assert services.texts_for_chat(FORUM, topic=3).lang == "es"
    assert services.botstate.chat_language(FORUM) is None
    set_lobby_language(services, FORUM, 4, LANGUAGES.index("de"))
    assert services.topics.language(FORUM, 4) is None
    assert services.texts_for_chat(FORUM, topic=4).lang == "de"
    assert services.texts_for_chat(FORUM, topic=3).lang == "es"
