"""The adapter's composition root: everything the bot runs on, built once, in one place.

:func:`infra.bootstrap.bootstrap` builds the core's services; :func:`compose_bot` builds
the adapter on them: its ports (:func:`tgbot.telegram.context.compose`: what every handler
reaches as ``context.services``), the announcer on their outbox, and the Mini App on them.
Nothing is built later, nor elsewhere: the application starts the announcer
(:func:`tgbot.telegram.app.start_background`) and the web process serves the Mini App
(:func:`tgbot.telegram.web.web_app`), each the one built here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from telegram import Bot

from infra.bootstrap import Services
from infra.ratelimit import RateLimiter
from tgbot.delivery.announcer import Announcer
from tgbot.miniapp.api import MiniApp, mini_app
from tgbot.telegram.context import BotServices, compose

ROOT_KEY: Final = "root"  # where the application keeps its composition root (bot_data)


@dataclass(frozen=True, eq=False)
class BotRoot:
    """The adapter, composed: its ports, the announcer and the Mini App on them."""

    services: BotServices
    announcer: Announcer
    miniapp: MiniApp


def compose_bot(
    services: Services,
    bot: Bot,
    *,
    limiter: RateLimiter | None = None,
    poll_interval: float = 1.0,
    miniapp: Mapping[str, Any] | None = None,
) -> BotRoot:
    """The adapter on the core's ``services``, talking to Telegram as ``bot`` (its
    outbox's; ``limiter``: what paces its calls). The announcer looks at the event log
    every ``poll_interval`` seconds when nothing wakes it; ``miniapp``: options of
    :func:`tgbot.miniapp.api.mini_app` (the bot's token and ``bot`` are given)."""
    ports = compose(services, bot, limiter=limiter)
    announcer = Announcer(ports, ports.outbox, poll_interval=poll_interval)
    board = mini_app(
        ports, token=services.settings.telegram_bot_token, bot=bot, **dict(miniapp or {})
    )
    return BotRoot(ports, announcer, board)
