"""The Telegram application: handlers in order, one error handler, the announcer task.

:func:`build_application` wires everything for given services (tests point ``base_url``
at a fake Bot API server, as ``TELEGRAM_API_URL`` does); :func:`run_bot` is the one-machine
entry by long polling (with ``WEBHOOK_URL`` set, ``saboteur-bot run`` serves the web
process's webhook instead, :mod:`tgbot.telegram.web`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Mapping
from typing import Any

from telegram import (
    BotCommand,
    BotCommandScopeAllGroupChats,
    BotCommandScopeAllPrivateChats,
    Update,
)
from telegram.error import BadRequest, Forbidden, TelegramError
from telegram.ext import (
    Application,
    ApplicationBuilder,
    CallbackQueryHandler,
    ChatMemberHandler,
    CommandHandler,
    ContextTypes,
    MessageHandler,
    TypeHandler,
    filters,
)

from infra.bootstrap import Services, bootstrap
from infra.notifications import RESET, Listener, Notice, listener
from infra.ratelimit import limiter
from infra.settings import Settings
from tgbot.delivery.announcer import ANNOUNCER_KEY as ANNOUNCER_KEY
from tgbot.delivery.announcer import Announcer
from tgbot.presenter.texts import LANGUAGES, Texts
from tgbot.telegram import gateway, throttle
from tgbot.telegram.context import SERVICES_KEY, BotContext, BotServices
from tgbot.telegram.handlers import (
    achievements,
    between_games,
    callbacks,
    group,
    history,
    language,
    practice,
    private,
    seats,
    standings,
    timezone,
    topics,
)
from tgbot.telegram.outage import OUTAGE, unreachable
from tgbot.telegram.request import AiohttpRequest
from tgbot.telegram.root import ROOT_KEY, compose_bot

log = logging.getLogger(__name__)

TASK_KEY = "announcer_task"
LISTENER_KEY = "listener"

GROUP_COMMANDS = (
    "newgame",
    "join",
    "leave",
    "kick",
    "cancel",
    "settings",
    "hand",
    "back",
    "rules",
    "help",
    "language",
    "timezone",
    "notify",
)
HISTORY_COMMANDS = ("history", "stats", "replay")
PRIVATE_COMMANDS = (
    "start",
    "practice",
    "hand",
    "back",
    "rules",
    "help",
    "language",
    "history",
    "stats",
)

BotApplication = Application[Any, BotContext, Any, Any, Any, Any]


class _Unkept(set[int]):
    """A set that keeps nothing (adding to it is discarding from an empty set)."""

    add = set.discard
    update = set.difference_update


class _Application(Application[Any, BotContext, Any, Any, Any, Any]):
    """python-telegram-bot's application without its persistence bookkeeping: it notes
    the chat and the user of every update for a persistence to save, and without one (the
    event log is the truth here) never empties what it noted, one entry per user and chat
    ever seen. Here it notes them in sets that keep nothing (no code of ours runs per
    update for it)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if self.persistence is None:
            self._chat_ids_to_be_updated_in_persistence = _Unkept()
            self._user_ids_to_be_updated_in_persistence = _Unkept()


def build_application(
    services: Services,
    settings: Settings,
    *,
    base_url: str | None = None,
    base_file_url: str | None = None,
    poll_interval: float = 1.0,
    rate_limit: bool = True,
    polling: bool = True,
    miniapp: Mapping[str, Any] | None = None,
) -> BotApplication:
    """The bot for ``services`` (:func:`infra.bootstrap.bootstrap`'s), talking to
    Telegram, to TELEGRAM_API_URL or to ``base_url``, the adapter composed
    (:func:`tgbot.telegram.root.compose_bot`: its services, the announcer, the Mini App
    with the ``miniapp`` options) on the application's bot. ``polling=False``: no
    updater (updates come by webhook, see :mod:`tgbot.telegram.web`)."""
    builder: Any = (
        ApplicationBuilder()
        .application_class(_Application)
        .token(settings.telegram_bot_token)
        .context_types(ContextTypes(context=BotContext))
        .post_init(start_background)
        .post_stop(stop_background)
        .concurrent_updates(True)
        # aiohttp instead of httpx: the same requests for a fraction of the CPU per call.
        .request(AiohttpRequest())
    )
    if polling:
        builder = builder.get_updates_request(AiohttpRequest(connection_pool_size=1))
    else:
        builder = builder.updater(None)
    if base_url is None and settings.bot_api_urls is not None:
        base_url, base_file_url = settings.bot_api_urls
    if base_url is not None:
        builder = builder.base_url(base_url)
    if base_file_url is not None:
        builder = builder.base_file_url(base_file_url)
    app: BotApplication = builder.build()
    # The outbox paces its calls to Telegram's limits, on every instance together when
    # REDIS_URL is set; a flood limit answered with retry_after holds the chat (or the
    # bot) back, and the outbox alone tries again (one retry policy).
    paced = limiter(settings.redis_url) if rate_limit else None
    root = compose_bot(
        services, app.bot, limiter=paced, poll_interval=poll_interval, miniapp=miniapp
    )
    app.bot_data[ROOT_KEY] = root
    app.bot_data[SERVICES_KEY] = root.services
    app.bot_data[ANNOUNCER_KEY] = root.announcer
    register(app)
    return app


@contextlib.asynccontextmanager
async def running(app: BotApplication) -> AsyncIterator[BotApplication]:
    """``app`` started (the announcer too) and polling for updates as fast as they come,
    until the block ends; then stopped, and shut down (the offline demo, the tests'
    harnesses, the benchmarks: :func:`run_bot` lets python-telegram-bot do it)."""
    try:
        await app.initialize()
        await start_background(app)
        await app.start()
        assert app.updater is not None
        await app.updater.start_polling(poll_interval=0.0, timeout=1)
        yield app
    finally:
        if app.running:
            assert app.updater is not None
            await app.updater.stop()
            await app.stop()
        await stop_background(app)
        await app.shutdown()


@contextlib.asynccontextmanager
async def polling_bot(
    settings: Settings,
    *,
    base_url: str | None = None,
    base_file_url: str | None = None,
    poll_interval: float = 1.0,
    rate_limit: bool = True,
    **fakes: Any,
) -> AsyncIterator[BotApplication]:
    """The whole bot on ``settings`` in this event loop: the composition root's services
    (:func:`infra.bootstrap.bootstrap`, given ``fakes``: its options such as ``seeds=``
    or ``clock_ms=``), the application on them (:func:`build_application`'s options),
    started and polling (:func:`running`) until the block ends; then all of it closed.
    The offline demo, the tests' harnesses and the benchmarks run the bot so."""
    services = bootstrap(settings, **fakes)
    try:
        app = build_application(
            services,
            settings,
            base_url=base_url,
            base_file_url=base_file_url,
            poll_interval=poll_interval,
            rate_limit=rate_limit,
        )
        async with running(app):
            yield app
    finally:
        services.close()


def register(app: BotApplication) -> None:
    """Every handler, in order."""
    command = CommandHandler
    # First of all: a user or chat sending faster than people play gets "slow down".
    app.add_handler(TypeHandler(Update, throttle.on_update), group=-2)
    app.add_handler(MessageHandler(filters.StatusUpdate.MIGRATE, private.migrated))
    app.add_handler(ChatMemberHandler(private.member_changed, ChatMemberHandler.CHAT_MEMBER))
    app.add_handler(command("newgame", group.newgame))
    app.add_handler(command("join", group.join))
    app.add_handler(command("leave", seats.leave))
    app.add_handler(command("kick", seats.kick))
    app.add_handler(command("cancel", group.cancel))
    app.add_handler(command("settings", group.settings))
    app.add_handler(command("start", private.start))
    app.add_handler(command("practice", practice.practice))
    app.add_handler(command("hand", private.hand))
    app.add_handler(command("back", private.back))
    app.add_handler(command("rules", private.rules))
    app.add_handler(command("help", private.help_command))
    app.add_handler(command("language", language.language))
    app.add_handler(command("timezone", timezone.timezone))
    app.add_handler(command("notify", between_games.notify))
    app.add_handler(CallbackQueryHandler(callbacks.on_press))
    app.add_handler(MessageHandler(filters.ChatType.PRIVATE, private.private_message))
    # After the others (a group runs only its first matching handler): what a forum's
    # topics are called and whether they are open, as the messages seen tell it.
    app.add_handler(MessageHandler(filters.ChatType.SUPERGROUP, topics.heard), group=1)
    app.add_error_handler(on_error)
    history.register(app)  # /history, /stats, /replay and the replay's buttons
    standings.register(app)  # /top
    achievements.register(app)  # /achievements


async def on_error(update: object, context: BotContext) -> None:
    """The one error handler: log, and answer a pressed button so it stops spinning."""
    error = context.error
    if isinstance(error, BadRequest) and "not modified" in error.message.lower():
        return
    if isinstance(error, Forbidden):
        log.info("forbidden: %s", error)
        return
    if error is not None and unreachable(error):  # said once per outage, with a count
        OUTAGE.failure(error)
        return
    log.error("update %s failed", getattr(update, "update_id", "?"), exc_info=error)
    if isinstance(update, Update) and update.callback_query is not None:
        with contextlib.suppress(TelegramError):
            await gateway.answer_press(update.callback_query)


async def start_background(app: BotApplication) -> None:
    """Set the command menus and the profile texts and start the announcer on the
    services' outbox (PTB's ``post_init``)."""
    services: BotServices = app.bot_data[SERVICES_KEY]
    with contextlib.suppress(TelegramError):
        await set_commands(app)
    with contextlib.suppress(TelegramError):
        await set_profile(app)
    announcer: Announcer = app.bot_data[ANNOUNCER_KEY]  # (the composition root's)
    app.bot_data[TASK_KEY] = asyncio.create_task(announcer.run(), name="announcer")
    app.bot_data[LISTENER_KEY] = listen(services)


def listen(services: BotServices) -> Listener | None:
    """On PostgreSQL, hear the other instances (and Celery's workers): a row they changed
    is dropped from this one's caches, and an append wakes the announcer at once."""
    loop = asyncio.get_running_loop()

    def on_notice(notice: Notice) -> None:
        services.botstate.invalidate(notice)
        if notice.appended is not None or notice == RESET:
            loop.call_soon_threadsafe(services.wake.set)

    return listener(services.store.engine, on_notice)


async def stop_background(app: BotApplication) -> None:
    services: BotServices = app.bot_data[SERVICES_KEY]
    # The announcer first: it lets its deliveries under way end, renewing its claims
    # meanwhile, and needs the connections below until then.
    task: asyncio.Task[None] | None = app.bot_data.pop(TASK_KEY, None)
    if task is not None:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
    # The throttle's and the shown edits' Redis connections.
    for close in (getattr(getattr(services.throttle, "backend", None), "close", None),):
        if close is not None:
            with contextlib.suppress(Exception):
                await close()
    with contextlib.suppress(Exception):
        await services.shown.close()
    heard: Listener | None = app.bot_data.pop(LISTENER_KEY, None)
    if heard is not None:
        await asyncio.to_thread(heard.stop)


async def set_commands(app: BotApplication) -> None:
    """Command menus per scope (groups, private chats) and per language."""
    bot = app.bot
    group_commands = GROUP_COMMANDS + HISTORY_COMMANDS + standings.COMMANDS + achievements.COMMANDS
    for lang in (None, *LANGUAGES):
        texts = Texts(lang or "en")
        for scope, names in (
            (BotCommandScopeAllGroupChats(), group_commands),
            (
                BotCommandScopeAllPrivateChats(),
                PRIVATE_COMMANDS + achievements.COMMANDS + standings.PRIVATE_COMMANDS,
            ),
        ):
            commands = [BotCommand(name, texts.t(f"command.{name}")[:256]) for name in names]
            await gateway.set_commands(bot, commands, scope, lang)


async def set_profile(app: BotApplication) -> None:
    """The bot's description (shown in an empty private chat) and short description (its
    profile, and beside a shared link), per language; written only where they changed."""
    bot = app.bot
    for lang in (None, *LANGUAGES):
        texts = Texts(lang or "en")
        description = texts.t("profile.description")[:512]
        short = texts.t("profile.short_description")[:120]
        await gateway.set_profile(bot, description, short, lang)


def run_bot(settings: Settings) -> int:
    """Run the bot by long polling until interrupted."""
    services = bootstrap(settings)
    app = build_application(services, settings)
    try:
        app.run_polling(allowed_updates=list(throttle.UPDATES))
    finally:
        services.close()
    return 0
