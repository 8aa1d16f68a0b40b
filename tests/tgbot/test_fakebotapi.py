"""The fake Bot API speaks enough Telegram for python-telegram-bot's real Application."""

from __future__ import annotations

import io
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from PIL import Image
from telegram import (
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    InputMediaPhoto,
    Update,
    WebAppInfo,
)
from telegram.error import BadRequest, ChatMigrated, Forbidden, RetryAfter
from telegram.ext import (
    Application,
    CallbackQueryHandler,
    ChatMemberHandler,
    CommandHandler,
    ContextTypes,
)

from tests.fakebotapi import FakeBotAPI, fake_bot_api

__all__ = ["fake_bot_api"]

GROUP = -100


def png(color: str, size: tuple[int, int] = (40, 30)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, color).save(out, "PNG")
    return out.getvalue()


async def start(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    assert update.effective_message is not None
    keyboard = InlineKeyboardMarkup([[InlineKeyboardButton("Join", callback_data="join")]])
    await update.effective_message.reply_text(
        f"hello {update.effective_user.first_name}" if update.effective_user else "hello",
        reply_markup=keyboard,
    )


async def photo(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    assert update.effective_chat is not None
    message = await context.bot.send_photo(update.effective_chat.id, png("red"), caption="v1")
    await message.edit_media(InputMediaPhoto(png("blue", (60, 50)), caption="v2"))


async def pressed(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    query = update.callback_query
    assert query is not None
    await query.answer(f"you pressed {query.data}")
    await query.edit_message_text("joined", reply_markup=None)


@pytest_asyncio.fixture
async def app(fake_bot_api: FakeBotAPI) -> AsyncIterator[Application]:  # type: ignore[type-arg]
    application = fake_bot_api.application_builder().build()
    application.add_handler(CommandHandler("start", start))
    application.add_handler(CommandHandler("photo", photo))
    application.add_handler(CallbackQueryHandler(pressed))
    async with application:
        assert application.updater is not None
        await application.updater.start_polling(timeout=5, allowed_updates=Update.ALL_TYPES)
        await application.start()
        yield application
        await application.updater.stop()
        await application.stop()


async def test_a_command_is_answered_and_a_button_press_is_acknowledged(
    fake_bot_api: FakeBotAPI,
    app: Application,  # type: ignore[type-arg]
) -> None:
    api = fake_bot_api
    alice = api.user(7, "Alice", "es")
    api.group(GROUP, "Mine")
    api.send_text(GROUP, alice, "/start@saboteur_test_bot")
    await api.wait_for(lambda: api.messages_in(GROUP))
    message = api.last_message(GROUP)
    assert message["text"] == "hello Alice"
    assert [(b.text, b.callback_data) for b in api.last_keyboard(GROUP)] == [("Join", "join")]

    query_id = api.press(GROUP, alice, message["message_id"], "join")
    await api.wait_for(lambda: query_id in api.answered and api.calls_of("editMessageText"))
    assert api.answered[query_id]["text"] == "you pressed join"
    assert api.last_message(GROUP)["text"] == "joined"
    assert api.last_keyboard(GROUP) == []


async def test_a_photo_is_uploaded_and_its_media_replaced(
    fake_bot_api: FakeBotAPI,
    app: Application,  # type: ignore[type-arg]
) -> None:
    api = fake_bot_api
    bob = api.user(8, "Bob")
    api.send_text(bob["id"], bob, "/photo")
    edit = await api.wait_for_call("editMessageMedia")
    sent = api.calls_of("sendPhoto")[0]
    assert next(iter(sent.files.values())) == png("red")
    assert next(iter(edit.files.values())) == png("blue", (60, 50))
    message = api.last_message(bob["id"])
    assert message["caption"] == "v2"
    assert message["photo"][-1]["width"] == 60
    assert api.photo_bytes(message) == png("blue", (60, 50))


async def test_telegram_failures_reach_the_bot_as_ptb_errors(
    fake_bot_api: FakeBotAPI,
    app: Application,  # type: ignore[type-arg]
) -> None:
    api = fake_bot_api
    bot = app.bot
    carol = api.user(9, "Carol")
    dave = api.user(10, "Dave", opened=False)
    api.group(-5, "Old group", admins=(9,))

    api.block(carol["id"])
    with pytest.raises(Forbidden, match="blocked"):
        await bot.send_message(carol["id"], "hi")
    with pytest.raises(Forbidden, match="initiate"):
        await bot.send_message(dave["id"], "hi")

    sent = await bot.send_message(-5, "same")
    mini_app = InlineKeyboardButton("open", web_app=WebAppInfo("https://app.example/"))
    with pytest.raises(BadRequest, match=r"(?i)button_type_invalid"):  # private chats only
        await bot.send_message(-5, "board", reply_markup=InlineKeyboardMarkup([[mini_app]]))
    with pytest.raises(BadRequest, match="not modified"):
        await bot.edit_message_text("same", chat_id=-5, message_id=sent.message_id)

    api.fail_next("sendMessage", 429, retry_after=3)
    with pytest.raises(RetryAfter) as flood:
        await bot.send_message(-5, "hi")
    assert "Retry in 3 seconds" in flood.value.message

    api.migrate(-5, -1005)
    with pytest.raises(ChatMigrated) as moved:
        await bot.send_message(-5, "hi")
    assert moved.value.new_chat_id == -1005
    assert (await bot.send_message(-1005, "hi")).chat.type == "supergroup"

    member = await bot.get_chat_member(-1005, carol["id"])
    assert member.status == "creator"
    admins = await bot.get_chat_administrators(-1005)
    assert [a.user.id for a in admins] == [carol["id"]]


async def test_commands_and_webhook_settings_are_stored(
    fake_bot_api: FakeBotAPI,
    app: Application,  # type: ignore[type-arg]
) -> None:
    bot = app.bot
    await bot.set_my_commands([("new", "New game")], language_code="es")
    assert [c.command for c in await bot.get_my_commands(language_code="es")] == ["new"]
    assert await bot.get_my_commands() == ()
    await bot.delete_my_commands(language_code="es")
    assert await bot.get_my_commands(language_code="es") == ()
    fake_bot_api.supergroup(-200, "Deep")
    assert (await bot.get_chat(-200)).title == "Deep"


async def test_member_updates_reach_chat_member_handlers(fake_bot_api: FakeBotAPI) -> None:
    api = fake_bot_api
    seen: list[tuple[str, str]] = []

    async def member(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        change = update.chat_member or update.my_chat_member
        assert change is not None
        seen.append((change.new_chat_member.user.first_name, change.new_chat_member.status))
        await context.bot.send_message(change.chat.id, "noted")

    application = api.application_builder().build()
    application.add_handler(ChatMemberHandler(member, ChatMemberHandler.ANY_CHAT_MEMBER))
    erin = api.user(11, "Erin")
    api.supergroup(-300, "Deep", admins=(11,))
    async with application:
        assert application.updater is not None
        await application.updater.start_polling(timeout=5, allowed_updates=Update.ALL_TYPES)
        await application.start()
        api.bot_added(-300, erin)
        api.chat_member(-300, api.user(12, "Finn"), "left", "member")
        await api.wait_for(lambda: len(api.messages_in(-300)) == 2)
        await api.wait_idle()
        assert (await application.bot.get_chat_member(-300, 12)).status == "member"
        await application.updater.stop()
        await application.stop()
    assert seen == [("Saboteur", "member"), ("Finn", "member")]


async def test_the_profile_texts_are_kept_per_language_and_removed_by_an_empty_one(
    fake_bot_api: FakeBotAPI,
) -> None:
    api = fake_bot_api
    async with api.application_builder().build() as application:
        bot = application.bot
        await bot.set_my_description("default")
        await bot.set_my_description("123", language_code="es")  # a text, never a number
        await bot.set_my_short_description("corto", language_code="es")
        assert (await bot.get_my_description(language_code="es")).description == "123"
        assert (await bot.get_my_description(language_code="pl")).description == ""
        assert api.description_for("pl") == "default"
        assert api.description_for("es", short=True) == "corto"

        await bot.set_my_description("", language_code="es")
        assert api.description_for("es") == "default"
        with pytest.raises(BadRequest, match="too long"):
            await bot.set_my_short_description("x" * 121)
        assert api.short_descriptions == {"es": "corto"}
