"""The ways into the Mini App, as buttons of the presenter's messages.

- Under the group's board: a URL button with the Mini App's direct link,
  ``https://t.me/<bot>/<MINIAPP_NAME>?startapp=<game>``; Telegram opens the Mini App on top
  of the group and hands it the game's id as ``start_param`` (``web_app`` buttons are
  refused in groups).
- In a player's private prompt: a ``web_app`` button opening the page itself,
  ``MINIAPP_URL?game=<game>``.

Each is None when the Mini App is not set up (``MINIAPP_NAME``, ``MINIAPP_URL``): the
message then goes without it. The chat's own buttons stay either way.

>>> direct_link("saboteur_bot", "board", "gAbc")
'https://t.me/saboteur_bot/board?startapp=gAbc'
>>> page_link("https://play.example/miniapp/?v=2", "gAbc")
'https://play.example/miniapp/?v=2&game=gAbc'
"""

from __future__ import annotations

from urllib.parse import urlencode, urlsplit, urlunsplit

from tgbot.presenter.audience import Table
from tgbot.presenter.keyboards import Button
from tgbot.presenter.texts import Texts


def direct_link(bot_username: str, app_name: str, game_id: str) -> str:
    """The Mini App's direct link, opening ``game_id`` (it works in groups)."""
    return f"https://t.me/{bot_username}/{app_name}?{urlencode({'startapp': game_id})}"


def page_link(miniapp_url: str, game_id: str) -> str:
    """The page at ``miniapp_url`` opening ``game_id`` (its query keeps whatever
    ``miniapp_url`` already had)."""
    parts = urlsplit(miniapp_url)
    query = "&".join(q for q in (parts.query, urlencode({"game": game_id})) if q)
    return urlunsplit((parts.scheme, parts.netloc, parts.path or "/", query, ""))


def board_button(table: Table, texts: Texts) -> Button | None:
    """The group board's button: the direct link to the table's game."""
    if not table.bot_username or not table.miniapp_name:
        return None
    link = direct_link(table.bot_username, table.miniapp_name, table.game_id)
    return Button(texts.t("miniapp.open_board"), url=link)


def prompt_button(table: Table, texts: Texts) -> Button | None:
    """The private prompt's ``web_app`` button: the page, opening the table's game."""
    if not table.miniapp_url:
        return None
    link = page_link(table.miniapp_url, table.game_id)
    return Button(texts.t("miniapp.play_on_board"), web_app=link)
