"""The fake Bot API models forum supergroups as Telegram's documentation says: topics with
thread ids, General with none, closed and deleted topics refusing the bot, and where a
user's message was written."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from telegram import Bot, Message, Update
from telegram.error import BadRequest
from telegram.ext import MessageHandler, filters

from tests.fakebotapi import FakeBotAPI, fake_bot_api

__all__ = ["fake_bot_api"]

FORUM = -1007


@pytest_asyncio.fixture
async def bot(fake_bot_api: FakeBotAPI) -> AsyncIterator[Bot]:
    async with Bot(fake_bot_api.token, base_url=fake_bot_api.base_url) as client:
        yield client


def world(api: FakeBotAPI) -> tuple[int, int]:
    """A forum whose admin is user 1, with topics "Table 1" and "Table 2"."""
    api.user(1, "Ann")
    api.user(2, "Ben")
    api.forum(FORUM, "Miners", admins=(1,))
    return api.create_topic(FORUM, "Table 1"), api.create_topic(FORUM, "Table 2")


async def test_a_message_goes_to_its_topic_and_one_without_a_thread_to_general(
    fake_bot_api: FakeBotAPI, bot: Bot
) -> None:
    api = fake_bot_api
    one, two = world(api)
    assert one != two
    in_one = await bot.send_message(FORUM, "to table 1", message_thread_id=one)
    general = await bot.send_message(FORUM, "to general")
    assert (in_one.message_thread_id, in_one.is_topic_message) == (one, True)
    assert general.message_thread_id is None and not general.is_topic_message
    assert [m["text"] for m in api.in_topic(FORUM, one)] == ["to table 1"]
    assert [m["text"] for m in api.in_topic(FORUM, None)] == ["to general"]
    assert api.in_topic(FORUM, two) == []
    # A reply follows the message it answers, into its topic.
    reply = await bot.send_message(
        FORUM, "answer", reply_to_message_id=in_one.message_id, message_thread_id=None
    )
    assert reply.message_thread_id == one
    # Edits and deletes need no thread id.
    await bot.edit_message_text("edited", chat_id=FORUM, message_id=in_one.message_id)
    assert [m["text"] for m in api.in_topic(FORUM, one)] == ["edited", "answer"]
    assert await bot.delete_message(FORUM, reply.message_id)


async def test_general_and_unknown_threads_are_not_found(
    fake_bot_api: FakeBotAPI, bot: Bot
) -> None:
    api = fake_bot_api
    world(api)
    for thread in (1, 999):  # General's id in the client apps; no topic at all
        with pytest.raises(BadRequest, match=r"(?i)message thread not found"):
            await bot.send_message(FORUM, "hi", message_thread_id=thread)
    api.group(-5, "Plain")
    with pytest.raises(BadRequest, match=r"(?i)message thread not found"):
        await bot.send_message(-5, "hi", message_thread_id=77)
    assert [r.description for r in api.refusals] == 3 * ["Bad Request: message thread not found"]


async def test_a_closed_topic_refuses_the_bot_unless_it_manages_topics(
    fake_bot_api: FakeBotAPI, bot: Bot
) -> None:
    api = fake_bot_api
    one, two = world(api)
    api.close_topic(FORUM, one)
    with pytest.raises(BadRequest, match=r"(?i)topic_closed"):
        await bot.send_message(FORUM, "hi", message_thread_id=one)
    with pytest.raises(BadRequest, match=r"(?i)topic_closed"):
        await bot.send_chat_action(FORUM, "typing", message_thread_id=one)
    assert (await bot.send_message(FORUM, "other", message_thread_id=two)).message_thread_id
    api.topic_managers.add(FORUM)  # an admin with can_manage_topics writes there
    assert (await bot.send_message(FORUM, "hi", message_thread_id=one)).message_thread_id == one
    api.topic_managers.clear()
    api.reopen_topic(FORUM, one)
    assert (await bot.send_message(FORUM, "back", message_thread_id=one)).is_topic_message
    api.close_general(FORUM)
    with pytest.raises(BadRequest, match=r"(?i)topic_closed"):
        await bot.send_message(FORUM, "to general")


async def test_a_deleted_topic_refuses_and_loses_its_messages(
    fake_bot_api: FakeBotAPI, bot: Bot
) -> None:
    api = fake_bot_api
    one, _ = world(api)
    sent = await bot.send_message(FORUM, "hi", message_thread_id=one)
    api.delete_topic(FORUM, one)
    assert api.in_topic(FORUM, one) == []
    with pytest.raises(BadRequest, match=r"(?i)topic_deleted"):
        await bot.send_message(FORUM, "hi", message_thread_id=one)
    with pytest.raises(BadRequest, match="not found"):
        await bot.edit_message_text("gone", chat_id=FORUM, message_id=sent.message_id)


async def test_users_messages_and_service_messages_say_their_topic(
    fake_bot_api: FakeBotAPI,
) -> None:
    api = fake_bot_api
    one, _ = world(api)
    seen: list[Message] = []

    async def note(update: Update, context: object) -> None:
        assert update.message is not None
        seen.append(update.message)

    application = api.application_builder().build()
    application.add_handler(MessageHandler(filters.ALL, note))
    api.send_text(FORUM, 2, "/newgame", thread=one)
    general = api.send_text(FORUM, 2, "in general")
    api.send_text(FORUM, 2, "a reply in general", reply_to=general)
    api.rename_topic(FORUM, one, "Table A")
    api.close_topic(FORUM, one)
    api.reopen_topic(FORUM, one)
    async with application:
        assert application.updater is not None
        await application.updater.start_polling(timeout=1)
        await application.start()
        await api.wait_for(lambda: len(seen) == 8)
        await application.updater.stop()
        await application.stop()
    created_one, _, command, in_general, reply, edited, closed, reopened = seen
    assert created_one.forum_topic_created is not None
    assert created_one.forum_topic_created.name == "Table 1"
    assert (command.message_thread_id, command.is_topic_message) == (one, True)
    # The topic's creation message comes along, naming it.
    assert command.reply_to_message is not None
    assert command.reply_to_message.forum_topic_created is not None
    assert command.reply_to_message.forum_topic_created.name == "Table 1"
    assert in_general.message_thread_id is None and not in_general.is_topic_message
    # A reply in General has a thread id that is no topic.
    assert reply.message_thread_id == general["message_id"] and not reply.is_topic_message
    assert edited.forum_topic_edited is not None and edited.forum_topic_edited.name == "Table A"
    assert closed.forum_topic_closed is not None and closed.message_thread_id == one
    assert reopened.forum_topic_reopened is not None and reopened.is_topic_message
