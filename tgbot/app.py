"""The Telegram application: handlers in order, one error handler, the announcer task.

:func:`build_application` wires everything for given services (tests point ``base_url``
at a fake Bot API server); :func:`run_bot` is the production entry: long polling, or a
webhook when ``WEBHOOK_URL`` is set.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any
from urllib.parse import urlsplit

from telegram import (
    BotCommand,
    BotCommandScopeAllGroupChats,
    BotCommandScopeAllPrivateChats,
    Update,
)
from telegram.error import BadRequest, Forbidden, TelegramError
from telegram.ext import (
    AIORateLimiter,
    Application,
    ApplicationBuilder,
    CallbackQueryHandler,
    CommandHandler,
    ContextTypes,
    MessageHandler,
    filters,
)

from infra.bootstrap import Services, bootstrap
from infra.settings import Settings
from tgbot.announcer import ANNOUNCER_KEY as ANNOUNCER_KEY
from tgbot.announcer import Announcer
from tgbot.context import SERVICES_KEY, BotContext, BotServices
from tgbot.handlers import callbacks, group, history, private
from tgbot.outbox import Outbox
from tgbot.request import AiohttpRequest
from tgbot.texts import LANGUAGES, Texts

log = logging.getLogger(__name__)

TASK_KEY = "announcer_task"

GROUP_COMMANDS = (
    "newgame",
    "join",
    "leave",
    "cancel",
    "settings",
    "hand",
    "back",
    "rules",
    "help",
    "language",
)
HISTORY_COMMANDS = ("history", "stats", "replay")
PRIVATE_COMMANDS = ("start", "hand", "back", "rules", "help", "language")

BotApplication = Application[Any, BotContext, Any, Any, Any, Any]


def build_application(
    services: Services | BotServices,
    settings: Settings,
    *,
    base_url: str | None = None,
    base_file_url: str | None = None,
    poll_interval: float = 1.0,
    rate_limit: bool = True,
) -> BotApplication:
    """The bot for ``services``, talking to Telegram (or to ``base_url``)."""
    bot_services = (
        services
        if isinstance(services, BotServices)
        else BotServices.from_services(services, settings.telegram_bot_token)
    )
    builder: Any = (
        ApplicationBuilder()
        .token(settings.telegram_bot_token)
        .context_types(ContextTypes(context=BotContext))
        .post_init(start_background)
        .post_stop(stop_background)
        .concurrent_updates(True)
        # aiohttp instead of httpx: the same requests for a fraction of the CPU per call.
        .request(AiohttpRequest())
        .get_updates_request(AiohttpRequest(connection_pool_size=1))
    )
    if rate_limit:
        # Calls are paced to Telegram's limits; a flood limit still answered with
        # retry_after is waited out and retried by the outbox alone (one retry policy).
        builder = builder.rate_limiter(AIORateLimiter(max_retries=0))
    if base_url is not None:
        builder = builder.base_url(base_url)
    if base_file_url is not None:
        builder = builder.base_file_url(base_file_url)
    app: BotApplication = builder.build()
    app.bot_data[SERVICES_KEY] = bot_services
    app.bot_data["poll_interval"] = poll_interval
    register(app)
    return app


def register(app: BotApplication) -> None:
    """Every handler, in order."""
    command = CommandHandler
    app.add_handler(MessageHandler(filters.StatusUpdate.MIGRATE, private.migrated))
    app.add_handler(command("newgame", group.newgame))
    app.add_handler(command("join", group.join))
    app.add_handler(command("leave", group.leave))
    app.add_handler(command("cancel", group.cancel))
    app.add_handler(command("settings", group.settings))
    app.add_handler(command("start", private.start))
    app.add_handler(command("hand", private.hand))
    app.add_handler(command("back", private.back))
    app.add_handler(command("rules", private.rules))
    app.add_handler(command("help", private.help_command))
    app.add_handler(command("language", private.language))
    app.add_handler(CallbackQueryHandler(callbacks.on_press))
    app.add_handler(MessageHandler(filters.ChatType.PRIVATE, private.private_message))
    app.add_error_handler(on_error)
    history.register(app)  # /history, /stats, /replay and the replay's buttons


async def on_error(update: object, context: BotContext) -> None:
    """The one error handler: log, and answer a pressed button so it stops spinning."""
    error = context.error
    if isinstance(error, BadRequest) and "not modified" in error.message.lower():
        return
    if isinstance(error, Forbidden):
        log.info("forbidden: %s", error)
        return
    log.error("update %s failed", getattr(update, "update_id", "?"), exc_info=error)
    if isinstance(update, Update) and update.callback_query is not None:
        with contextlib.suppress(TelegramError):
            await update.callback_query.answer()


async def start_background(app: BotApplication) -> None:
    """Set the command menus, give the services their outbox and start the announcer
    (PTB's ``post_init``)."""
    services: BotServices = app.bot_data[SERVICES_KEY]
    with contextlib.suppress(TelegramError):
        await set_commands(app)
    services.bot_username = app.bot.username or ""
    outbox = Outbox(app.bot, services.botstate, services.photos, services.callback_key)
    services.outbox = outbox
    announcer = Announcer(
        services, outbox, poll_interval=float(app.bot_data.get("poll_interval", 1.0))
    )
    app.bot_data[ANNOUNCER_KEY] = announcer
    app.bot_data[TASK_KEY] = asyncio.create_task(announcer.run(), name="announcer")


async def stop_background(app: BotApplication) -> None:
    task: asyncio.Task[None] | None = app.bot_data.pop(TASK_KEY, None)
    if task is not None:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


async def set_commands(app: BotApplication) -> None:
    """Command menus per scope (groups, private chats) and per language."""
    bot = app.bot
    group_commands = GROUP_COMMANDS + HISTORY_COMMANDS
    for lang in (None, *LANGUAGES):
        texts = Texts(lang or "en")
        for scope, names in (
            (BotCommandScopeAllGroupChats(), group_commands),
            (BotCommandScopeAllPrivateChats(), PRIVATE_COMMANDS),
        ):
            commands = [BotCommand(name, texts.t(f"command.{name}")[:256]) for name in names]
            await bot.set_my_commands(commands, scope=scope, language_code=lang)


def run_bot(settings: Settings) -> int:
    """Run the bot until interrupted: long polling, or a webhook when WEBHOOK_URL is set."""
    services = bootstrap(settings)
    app = build_application(services, settings)
    updates = Update.ALL_TYPES
    try:
        if settings.webhook_url:
            app.run_webhook(**webhook_options(settings), allowed_updates=updates)
        else:
            app.run_polling(allowed_updates=updates)
    finally:
        services.close()
    return 0


def webhook_options(settings: Settings) -> dict[str, Any]:
    """Where the webhook listens: on every interface, at WEBHOOK_URL's path (Telegram posts
    to the whole URL; a proxy in front passes the path on), with a secret token.

    >>> from infra.settings import load_settings
    >>> s = load_settings(telegram_bot_token="1:x", webhook_url="https://bot.example/tg/hook")
    >>> options = webhook_options(s)
    >>> options["url_path"], options["webhook_url"]
    ('tg/hook', 'https://bot.example/tg/hook')
    """
    return {
        "listen": "0.0.0.0",
        "port": settings.webhook_port,
        "url_path": urlsplit(settings.webhook_url).path.strip("/"),
        "webhook_url": settings.webhook_url,
        "secret_token": _secret(settings.telegram_bot_token),
    }


def _secret(token: str) -> str:
    import hashlib

    return hashlib.sha256(f"webhook:{token}".encode()).hexdigest()[:32]
