"""The board as a Telegram Mini App: the maze full screen, a card tapped, a cell tapped.

A self-contained part of the bot: :func:`routes` gives the Starlette routes (the page,
its JSON API, its live updates) for whichever web application serves them, built on the
bot's services; the web process mounts them beside the webhook
(:func:`tgbot.telegram.web.web_app`). The buttons that open it are the presenter's
(:mod:`tgbot.presenter.miniapp_links`).
"""

from __future__ import annotations

from tgbot.miniapp.api import DemoPlayer, routes

__all__ = ["DemoPlayer", "routes"]
