"""The fake Bot API speaks enough Telegram for python-telegram-bot's real Application."""

from __future__ import annotations

import html
import io
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from PIL import Image
from telegram import (
    Bot,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    InputMediaPhoto,
    Update,
    WebAppInfo,
)
from telegram.constants import ParseMode
from telegram.error import BadRequest, ChatMigrated, Forbidden, RetryAfter
from telegram.ext import (
    Application,
    CallbackQueryHandler,
    ChatMemberHandler,
    CommandHandler,
    ContextTypes,
)

from tests.fakebotapi import FakeBotAPI, fake_bot_api
from tgbot.offline.transcript import transcript

__all__ = ["fake_bot_api"]

GROUP = -100
HTML = ParseMode.HTML


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


# -- what Telegram refuses, as its Bot API documentation says ---------------------------


@pytest_asyncio.fixture
async def bot(fake_bot_api: FakeBotAPI) -> AsyncIterator[Bot]:
    """The Bot of an application on the fake, a private chat with user 7 and a group."""
    fake_bot_api.user(7, "Alice")
    fake_bot_api.group(GROUP, "Mine", admins=(7,))
    async with fake_bot_api.application_builder().build() as application:
        yield application.bot


async def test_a_caption_is_measured_after_its_html_is_parsed_in_utf16_code_units(
    fake_bot_api: FakeBotAPI, bot: Bot
) -> None:
    await bot.send_photo(7, png("red"), caption="👉" * 512, parse_mode=HTML)  # 1,024 units
    await bot.send_photo(
        7, png("red"), caption=f"<b>{'a' * 1020}</b>&amp;&lt;&gt;", parse_mode=HTML
    )
    with pytest.raises(BadRequest, match="caption is too long"):  # 513 characters
        await bot.send_photo(7, png("red"), caption="👉" * 513, parse_mode=HTML)
    sent = await bot.send_photo(7, png("red"), caption="short")
    with pytest.raises(BadRequest, match="caption is too long"):
        await bot.edit_message_caption(7, sent.message_id, caption="🪨" * 513)
    with pytest.raises(BadRequest, match="caption is too long"):
        media = InputMediaPhoto(png("blue"), caption="é" * 1025)
        await bot.edit_message_media(media, 7, sent.message_id)
    assert [r.method for r in fake_bot_api.refusals] == [
        "sendPhoto",
        "editMessageCaption",
        "editMessageMedia",
    ]


async def test_a_text_is_measured_after_its_html_is_parsed_in_utf16_code_units(
    fake_bot_api: FakeBotAPI, bot: Bot
) -> None:
    await bot.send_message(7, '<a href="tg://user?id=7">' + "a" * 4096 + "</a>", parse_mode=HTML)
    with pytest.raises(BadRequest, match=r"(?i)message is too long"):
        await bot.send_message(7, "👉" * 2049)
    sent = await bot.send_message(7, "short")
    with pytest.raises(BadRequest, match=r"(?i)message is too long"):
        await bot.edit_message_text("&amp;" * 4097, 7, sent.message_id, parse_mode=HTML)
    with pytest.raises(BadRequest, match=r"(?i)text is empty"):
        await bot.send_message(7, "<b> </b>", parse_mode=HTML)


async def test_an_alert_is_at_most_200_utf16_code_units(fake_bot_api: FakeBotAPI, bot: Bot) -> None:
    fake_bot_api.press(7, 7, 1, "x")
    fake_bot_api.press(7, 7, 1, "y")
    await bot.answer_callback_query("1", "👉" * 100, show_alert=True)
    with pytest.raises(BadRequest, match=r"(?i)too_long"):
        await bot.answer_callback_query("2", "👉" * 101, show_alert=True)


async def test_an_edit_that_changes_nothing_is_refused_as_not_modified(
    fake_bot_api: FakeBotAPI, bot: Bot
) -> None:
    plain = await bot.send_message(GROUP, "a &amp; b", parse_mode=HTML)
    with pytest.raises(BadRequest, match="not modified"):  # no keyboard to remove
        await bot.edit_message_reply_markup(GROUP, plain.message_id)
    with pytest.raises(BadRequest, match="not modified"):  # the same text, read alike
        await bot.edit_message_text("a &#38; b", GROUP, plain.message_id, parse_mode=HTML)
    keyboard = InlineKeyboardMarkup([[InlineKeyboardButton("Go", callback_data="go")]])
    photo = await bot.send_photo(GROUP, png("red"), caption="<b>c</b>", parse_mode=HTML)
    with pytest.raises(BadRequest, match="not modified"):
        await bot.edit_message_caption(GROUP, photo.message_id, caption="<b>c</b>", parse_mode=HTML)
    file_id = photo.photo[-1].file_id
    same = InputMediaPhoto(file_id, caption="<b>c</b>", parse_mode=HTML)
    with pytest.raises(BadRequest, match="not modified"):
        await bot.edit_message_media(same, GROUP, photo.message_id)
    await bot.edit_message_reply_markup(GROUP, photo.message_id, reply_markup=keyboard)
    with pytest.raises(BadRequest, match="not modified"):
        await bot.edit_message_reply_markup(GROUP, photo.message_id, reply_markup=keyboard)
    await bot.edit_message_caption(GROUP, photo.message_id, caption="<i>c</i>", parse_mode=HTML)
    assert len(fake_bot_api.refusals) == 5
    assert all("not modified" in r.description for r in fake_bot_api.refusals)


@pytest.mark.parametrize(
    "text",
    [
        "<p>a paragraph</p>",  # not one of its tags
        "<b>never closed",
        "<b><i>crossed</b></i>",
        "closed </b> first",
        "1 < 2",  # bare symbols must be entities
        "fish & chips",
        "&nbsp;",  # a named entity it does not know
        '<a title="x" href="https://example.org">an attribute it does not know</a>',
        '<span class="bold">a span that is not a spoiler</span>',
        "<pre><b>bold in pre</b></pre>",
        "<a href='https://a.example'><a href='https://b.example'>a link in a link</a></a>",
    ],
)
async def test_html_other_than_telegrams_tags_closed_and_nested_in_order_is_refused(
    fake_bot_api: FakeBotAPI, bot: Bot, text: str
) -> None:
    with pytest.raises(BadRequest, match=r"(?i)can't parse entities"):
        await bot.send_message(7, text, parse_mode=HTML)
    assert len(fake_bot_api.refusals) == 1


async def test_the_html_telegram_documents_is_accepted(bot: Bot) -> None:
    documented = (
        "<b>b</b> <strong>s</strong> <i>i</i> <em>e</em> <u>u</u> <ins>i</ins> <s>s</s> "
        '<strike>s</strike> <del>d</del> <span class="tg-spoiler">x</span> '
        "<tg-spoiler>x</tg-spoiler> <b>bold <i>italic <s>struck</s></i></b> "
        '<a href="http://www.example.com/">link</a> <a href="tg://user?id=7">Alice</a> '
        '<tg-emoji emoji-id="5368324170671202286">👍</tg-emoji> <code>code</code> '
        '<pre>pre</pre> <pre><code class="language-python">x = 1</code></pre> '
        "<blockquote>quote</blockquote> <blockquote expandable>more</blockquote> "
        "&lt;&gt;&amp;&quot;&#38;&#x26;"
    )
    sent = await bot.send_message(7, documented, parse_mode=HTML)
    assert sent.text is not None


async def test_callback_data_is_one_to_64_bytes(fake_bot_api: FakeBotAPI, bot: Bot) -> None:
    def keyboard(data: str) -> InlineKeyboardMarkup:
        return InlineKeyboardMarkup([[InlineKeyboardButton("Go", callback_data=data)]])

    await bot.send_message(7, "fits", reply_markup=keyboard("é" * 32))  # 64 bytes
    with pytest.raises(BadRequest, match=r"(?i)button_data_invalid"):  # 33 characters
        await bot.send_message(7, "too long", reply_markup=keyboard("é" * 33))
    sent = await bot.send_message(7, "fits")
    with pytest.raises(BadRequest, match=r"(?i)button_data_invalid"):
        await bot.edit_message_reply_markup(7, sent.message_id, reply_markup=keyboard("x" * 65))


async def test_a_mini_app_button_goes_only_to_a_private_chat(
    fake_bot_api: FakeBotAPI, bot: Bot
) -> None:
    mini_app = InlineKeyboardMarkup(
        [[InlineKeyboardButton("open", web_app=WebAppInfo("https://app.example/"))]]
    )
    await bot.send_message(7, "board", reply_markup=mini_app)
    with pytest.raises(BadRequest, match=r"(?i)button_type_invalid"):
        await bot.send_message(GROUP, "board", reply_markup=mini_app)
    sent = await bot.send_message(GROUP, "board")
    with pytest.raises(BadRequest, match=r"(?i)button_type_invalid"):
        await bot.edit_message_reply_markup(GROUP, sent.message_id, reply_markup=mini_app)


@pytest.mark.parametrize(
    "payload", ["a" * 65, "j/abc", "with space", "é", "a=b"], ids=["65", "slash", "space", "é", "="]
)
async def test_a_deep_link_payload_is_up_to_64_letters_digits_underscores_and_dashes(
    fake_bot_api: FakeBotAPI, bot: Bot, payload: str
) -> None:
    good = InlineKeyboardButton("Open", url="https://t.me/saboteur_test_bot?start=" + "a-_9" * 16)
    await bot.send_message(7, "fits", reply_markup=InlineKeyboardMarkup([[good]]))
    for key in ("start", "startgroup"):
        link = f"https://t.me/saboteur_test_bot?{key}={payload}"
        with pytest.raises(BadRequest, match=rf"(?i)invalid {key}"):
            await bot.send_message(
                7,
                "x",
                reply_markup=InlineKeyboardMarkup([[InlineKeyboardButton("Open", url=link)]]),
            )
        with pytest.raises(BadRequest, match=rf"(?i)invalid {key}"):
            await bot.send_message(7, f'<a href="{html.escape(link)}">open</a>', parse_mode=HTML)


async def test_bot_commands_keep_telegrams_limits(fake_bot_api: FakeBotAPI, bot: Bot) -> None:
    await bot.set_my_commands([(f"c{n}", "d" * 256) for n in range(100)])
    with pytest.raises(BadRequest, match=r"(?i)too_much"):
        await bot.set_my_commands([(f"c{n}", "a command") for n in range(101)])
    for command in ("New", "new-game", "x" * 33, ""):
        with pytest.raises(BadRequest, match=r"(?i)bot_command_invalid"):
            await bot.set_my_commands([(command, "a command")])
    for description in ("", "d" * 257, "👉" * 129):
        with pytest.raises(BadRequest, match=r"(?i)description_invalid"):
            await bot.set_my_commands([("new", description)])
    assert len(fake_bot_api.refusals) == 8


async def test_the_descriptions_keep_telegrams_limits(fake_bot_api: FakeBotAPI, bot: Bot) -> None:
    await bot.set_my_description("d" * 512)
    await bot.set_my_short_description("👉" * 60)
    with pytest.raises(BadRequest, match="too long"):
        await bot.set_my_description("d" * 513)
    with pytest.raises(BadRequest, match="too long"):
        await bot.set_my_short_description("👉" * 61)


@pytest.mark.parametrize(
    "size", [(9_000, 1_001), (2_100, 100), (100, 2_100)], ids=["sides", "wide", "tall"]
)
async def test_a_photo_keeps_telegrams_dimensions(
    fake_bot_api: FakeBotAPI, bot: Bot, size: tuple[int, int]
) -> None:
    await bot.send_photo(7, png("red", (2_000, 100)))  # 20 times as wide: just fits
    with pytest.raises(BadRequest, match=r"(?i)photo_invalid_dimensions"):
        await bot.send_photo(7, png("red", size))
    sent = await bot.send_photo(7, png("red"))
    with pytest.raises(BadRequest, match=r"(?i)photo_invalid_dimensions"):
        await bot.edit_message_media(InputMediaPhoto(png("blue", size)), 7, sent.message_id)


async def test_a_photo_is_at_most_10_mb(fake_bot_api: FakeBotAPI, bot: Bot) -> None:
    header = png("red")
    with pytest.raises(BadRequest, match=r"(?i)photo_save_file_invalid"):
        await bot.send_photo(7, header + bytes(10 * 1024 * 1024))


async def test_a_refused_call_is_told_in_the_transcript_with_telegrams_answer(
    fake_bot_api: FakeBotAPI, bot: Bot
) -> None:
    sent = await bot.send_message(7, "Round 1")
    with pytest.raises(BadRequest):
        await bot.edit_message_reply_markup(7, sent.message_id)
    told = list(transcript(fake_bot_api, {7: "Alice"}))
    assert told[-1].startswith("── to Alice · editMessageReplyMarkup refused: Bad Request: message")
    assert "not modified" in told[-1]
