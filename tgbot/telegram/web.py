"""The web process: one ASGI application (Starlette, served by uvicorn) for Telegram's
webhook, the health routes and whatever else is mounted beside them (the Mini App).

Routes:

- ``POST <WEBHOOK_URL's path>``: an update from Telegram. The secret token header must be
  one this bot set (current or previous ``SECRET_KEY``); the update is put on the
  application's ``update_queue`` and Telegram answered 200 at once, before it is handled
  (python-telegram-bot's custom-webhook pattern). A refused update (403, or 503 while the
  process stops) is delivered again by Telegram, to this instance or another.
- ``GET /healthz``: the process is alive (200).
- ``GET /readyz``: the database and the Celery broker answer (200), else 503 with the
  reasons; 503 too once the process is stopping, so a load balancer stops sending to it.
- ``<MINIAPP_URL's path>`` (else ``/miniapp/``): the Mini App (:mod:`tgbot.miniapp`), its
  live updates woken in the same event loop as the announcer: by this process's appends
  and, on PostgreSQL, by every other instance's and worker's (the notification channel).

On SIGTERM uvicorn stops accepting requests and lets the open ones finish; then the
lifespan's end drains the application: every update already accepted is handled (up to
:data:`DRAIN_SECONDS`) before the announcer stops and the process exits.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from typing import Any, Final
from urllib.parse import urlsplit

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route
from telegram import Update
from telegram.error import TelegramError

from infra.settings import Settings, webhook_secret
from tgbot.telegram import gateway
from tgbot.telegram.bodies import UPDATE_BYTES, Unreadable, read_json
from tgbot.telegram.throttle import UPDATES

log = logging.getLogger(__name__)

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
DEFAULT_WEBHOOK_PATH = "/telegram"
DEFAULT_MINIAPP_PATH = "/miniapp"
# How long the end of the process waits for accepted updates to be handled.
DRAIN_SECONDS = 25.0
# The open HTTP requests get this long after SIGTERM (the webhook's answer is immediate).
GRACEFUL_SECONDS = 5

Readiness = Callable[[], Awaitable[list[str]]]
"""Every reason the process is not ready (an empty list: it is)."""


def webhook_path(settings: Settings) -> str:
    """Where updates are posted: WEBHOOK_URL's path (a proxy in front passes it on).

    >>> from infra.settings import load_settings
    >>> webhook_path(load_settings(_env_file=None, webhook_url="https://bot.example/tg/hook"))
    '/tg/hook'
    >>> webhook_path(load_settings(_env_file=None, webhook_url="https://bot.example"))
    '/telegram'
    """
    path = urlsplit(settings.webhook_url).path.strip("/")
    return f"/{path}" if path else DEFAULT_WEBHOOK_PATH


def webhook_url(settings: Settings) -> str:
    """The URL given to Telegram: WEBHOOK_URL, with the default path when it has none."""
    url = settings.webhook_url.rstrip("/")
    return url if urlsplit(url).path.strip("/") else url + DEFAULT_WEBHOOK_PATH


def miniapp_path(settings: Settings) -> str:
    """Where the Mini App is mounted: MINIAPP_URL's path (a proxy in front passes it on;
    "" is the root), else ``/miniapp``.

    >>> from infra.settings import load_settings
    >>> miniapp_path(load_settings(_env_file=None, miniapp_url="https://bot.example/board/"))
    '/board'
    >>> miniapp_path(load_settings(_env_file=None, miniapp_url="https://board.example"))
    ''
    >>> miniapp_path(load_settings(_env_file=None))
    '/miniapp'
    """
    if not settings.miniapp_url:
        return DEFAULT_MINIAPP_PATH
    path = urlsplit(settings.miniapp_url).path.strip("/")
    return f"/{path}" if path else ""


def create_web_app(
    application: Any,
    settings: Settings,
    *,
    routes: Sequence[BaseRoute] = (),
    readiness: Readiness | None = None,
    start: Callable[[Any], Awaitable[None]] | None = None,
    stop: Callable[[Any], Awaitable[None]] | None = None,
    drain_seconds: float = DRAIN_SECONDS,
) -> Starlette:
    """The ASGI application serving ``application`` (a python-telegram-bot
    ``Application`` built without an updater) by webhook, plus ``routes``.

    ``start`` and ``stop`` run after the application started and after it stopped (the
    announcer); ``readiness`` answers ``/readyz``. With WEBHOOK_URL set, the webhook is
    registered with Telegram at start, with the current secret. The web app keeps
    ``application`` as ``state.application``.
    """
    accepted = frozenset(webhook_secret(s) for s in settings.secrets)
    state = {"stopping": False}

    async def receive(request: Request) -> Response:
        given = request.headers.get(SECRET_HEADER, "")
        if not any(hmac.compare_digest(given, secret) for secret in accepted):
            return JSONResponse({"error": "bad secret token"}, status_code=403)
        if state["stopping"]:
            return JSONResponse({"error": "shutting down"}, status_code=503)
        try:
            data = await read_json(request, UPDATE_BYTES)
            if not isinstance(data, dict) or not isinstance(data.get("update_id"), int):
                raise Unreadable("no update_id")
            missing = incomplete(data)
            if missing:
                raise Unreadable(missing)
            update = Update.de_json(data, application.bot)
        except Unreadable as error:
            log.warning("unreadable update: %s", error)
            body = {"error": "not an update"}
            return JSONResponse(body, status_code=error.status, headers=error.headers)
        except (ValueError, TypeError, KeyError, AttributeError, RecursionError) as error:
            log.warning("unreadable update: %s: %s", type(error).__name__, error)
            return JSONResponse({"error": "not an update"}, status_code=400)
        await application.update_queue.put(update)
        return Response(status_code=200)

    async def healthz(request: Request) -> Response:
        return JSONResponse({"status": "ok"})

    async def readyz(request: Request) -> Response:
        reasons = ["shutting down"] if state["stopping"] else []
        if not reasons and readiness is not None:
            reasons = await readiness()
        if reasons:
            return JSONResponse({"status": "unavailable", "reasons": reasons}, status_code=503)
        return JSONResponse({"status": "ready"})

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await application.initialize()
        if start is not None:
            await start(application)
        await application.start()
        if settings.webhook_url:
            await _set_webhook(application, settings)
        try:
            yield
        finally:
            state["stopping"] = True
            await _drain(application, drain_seconds)
            if stop is not None:
                await stop(application)
            await application.shutdown()

    web = Starlette(
        routes=[
            Route(webhook_path(settings), receive, methods=["POST"]),
            Route("/healthz", healthz, methods=["GET"]),
            Route("/readyz", readyz, methods=["GET"]),
            *routes,
        ],
        lifespan=lifespan,
    )
    web.state.application = application
    return web


# The updates that carry a message, each of which Telegram always sends with its chat.
MESSAGES: Final = (
    "message",
    "edited_message",
    "channel_post",
    "edited_channel_post",
    "business_message",
    "edited_business_message",
)


def incomplete(data: Mapping[str, Any]) -> str:
    """What an update lacks that Telegram always sends ("" when nothing): a message's
    chat, a press's or a member change's user and chat. The handlers rely on them.

    >>> incomplete({"update_id": 1, "message": {"message_id": 1, "date": 0}})
    'a message without a chat'
    >>> incomplete({"update_id": 1, "callback_query": {"id": "1", "from": {"id": 5}}})
    ''
    """

    def has_id(value: Any) -> bool:
        return isinstance(value, Mapping) and isinstance(value.get("id"), int)

    for kind in MESSAGES:
        message = data.get(kind)
        if message is not None and not (
            isinstance(message, Mapping) and has_id(message.get("chat"))
        ):
            return f"a {kind} without a chat"
    query = data.get("callback_query")
    if query is not None and not (isinstance(query, Mapping) and has_id(query.get("from"))):
        return "a callback_query without a user"
    member = data.get("chat_member")
    if member is not None and not (
        isinstance(member, Mapping) and has_id(member.get("chat")) and has_id(member.get("from"))
    ):
        return "a chat_member without a chat or a user"
    return ""


async def _set_webhook(application: Any, settings: Settings) -> None:
    try:
        await gateway.register_webhook(
            application.bot,
            webhook_url(settings),
            secret_token=webhook_secret(settings.secrets[0]),
            allowed_updates=list(UPDATES),
        )
    except TelegramError:
        # Another instance set it, or will: updates keep coming to the same URL.
        log.warning("could not set the webhook", exc_info=True)


async def _drain(application: Any, seconds: float) -> None:
    """Handle every update already accepted, then stop the application."""
    try:
        await asyncio.wait_for(application.stop(), seconds)
    except TimeoutError:
        log.error("updates still being handled after %.0f s; stopping anyway", seconds)


def web_app(
    services: Any,
    settings: Settings,
    *,
    routes: Sequence[BaseRoute] = (),
    readiness: Readiness | None = None,
    miniapp: Mapping[str, Any] | None = None,
    **build_options: Any,
) -> Starlette:
    """The web process's application for ``services`` (:func:`infra.bootstrap.bootstrap`'s):
    the bot by webhook, announcing from this process too; the Mini App at
    :func:`miniapp_path`, on the bot's services and event loop; and ``routes``.
    ``miniapp``: options of :func:`tgbot.miniapp.api.mini_app`; ``build_options``: of
    :func:`tgbot.telegram.app.build_application`."""
    from tgbot.telegram.app import build_application, start_background, stop_background
    from tgbot.telegram.root import ROOT_KEY

    application = build_application(
        services, settings, polling=False, miniapp=miniapp, **build_options
    )
    board = application.bot_data[ROOT_KEY].miniapp  # (the composition root's)

    async def stop(application: Any) -> None:
        await board.feed.close()
        await stop_background(application)

    return create_web_app(
        application,
        settings,
        routes=[*board.routes(miniapp_path(settings)), *routes],
        readiness=readiness,
        start=start_background,
        stop=stop,
    )


def server_config(
    app: Any, settings: Settings, *, host: str = "0.0.0.0", port: int | None = None, **bounds: Any
) -> Any:
    """uvicorn's configuration for the web process: its connections bounded
    (:mod:`tgbot.telegram.connections`; ``bounds``:
    :func:`~tgbot.telegram.connections.bounded_protocol`'s
    options, ``max_connections`` among them)."""
    import uvicorn

    from tgbot.telegram.connections import (
        HEADER_BYTES,
        KEEP_ALIVE_SECONDS,
        bounded_protocol,
        connection_limit,
    )

    limit = bounds.pop("max_connections", None) or connection_limit()
    return uvicorn.Config(
        app,
        host=host,
        port=settings.listen_port if port is None else port,
        lifespan="on",
        log_level=settings.log_level.lower(),
        access_log=False,
        timeout_graceful_shutdown=GRACEFUL_SECONDS,
        http=bounded_protocol(limit, **bounds),
        # uvicorn's own bound answers 503 from it on: the protocol closes connections
        # beyond ``limit`` first, so this holds only requests (tasks) past them.
        limit_concurrency=limit + 1,
        timeout_keep_alive=KEEP_ALIVE_SECONDS,
        h11_max_incomplete_event_size=HEADER_BYTES,
    )


def serve(settings: Settings, routes: Sequence[BaseRoute] = ()) -> int:
    """Run the web process until SIGTERM or SIGINT: the bot by webhook on PORT (else
    WEBHOOK_PORT), announcing from this process too, with the Mini App and ``routes``
    mounted beside."""
    import uvicorn

    from infra.bootstrap import bootstrap
    from infra.health import problems

    services = bootstrap(settings)

    async def readiness() -> list[str]:
        return await asyncio.to_thread(problems, services.engine, settings.broker_url)

    try:
        app = web_app(services, settings, routes=routes, readiness=readiness)
        server = uvicorn.Server(server_config(app, settings))
        server.run()
        return 0 if server.started else 1
    finally:
        services.close()
