"""The ways into the Mini App, as buttons the bot's messages can carry.

- In the group, under the board: a URL button with the Mini App's direct link,
  ``https://t.me/<bot>/<app>?startapp=<game>``; Telegram opens the Mini App on top of the
  group and hands it the game's id as ``start_param``.
- In the private prompt: a ``web_app`` button (Telegram allows those in private chats
  only) opening the page itself, ``MINIAPP_URL?game=<game>``.

Each returns None when the Mini App is not set up (``MINIAPP_NAME``, ``MINIAPP_URL``), so
a message simply goes without it. The buttons are plain data (:class:`EntryButton`);
:meth:`EntryButton.inline` makes python-telegram-bot's button of one.

>>> from tgbot.texts import Texts
>>> board_button("saboteur_bot", "board", "gAbc", Texts("en")).url
'https://t.me/saboteur_bot/board?startapp=gAbc'
>>> prompt_button("https://play.example/miniapp/", "gAbc", Texts("en")).url
'https://play.example/miniapp/?game=gAbc'
>>> board_button("saboteur_bot", "", "gAbc", Texts("en")) is None
True
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlencode, urlsplit, urlunsplit

from telegram import InlineKeyboardButton, WebAppInfo

from tgbot.texts import Texts


@dataclass(frozen=True, slots=True)
class EntryButton:
    text: str
    url: str
    web_app: bool  # a web_app button (private chats); else a plain URL button

    def inline(self) -> InlineKeyboardButton:
        if self.web_app:
            return InlineKeyboardButton(self.text, web_app=WebAppInfo(self.url))
        return InlineKeyboardButton(self.text, url=self.url)


def board_button(
    bot_username: str, app_name: str, game_id: str, texts: Texts
) -> EntryButton | None:
    """The group board's button: the Mini App's direct link, opening ``game_id``."""
    if not bot_username or not app_name:
        return None
    url = f"https://t.me/{bot_username}/{app_name}?{urlencode({'startapp': game_id})}"
    return EntryButton(texts.t("miniapp.open_board"), url, web_app=False)


def prompt_button(miniapp_url: str, game_id: str, texts: Texts) -> EntryButton | None:
    """The private prompt's ``web_app`` button: the page at ``miniapp_url``, opening
    ``game_id`` (its query keeps whatever ``miniapp_url`` already had)."""
    if not miniapp_url:
        return None
    parts = urlsplit(miniapp_url)
    query = "&".join(q for q in (parts.query, urlencode({"game": game_id})) if q)
    url = urlunsplit((parts.scheme, parts.netloc, parts.path or "/", query, ""))
    return EntryButton(texts.t("miniapp.play_on_board"), url, web_app=True)
