"""What ``/history`` and ``/stats`` answer: a page of a group's finished games, or of a
player's in any group, with a Replay button per game and ◀ newer / older ▶ buttons; and a
player's figures, with in a group the group's and its computer players'.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Final

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from tgbot.presenter import callback as cb
from tgbot.presenter.standings import group_variant_lines, variant_lines
from tgbot.presenter.telegram_html import TEXT_LIMIT, length
from tgbot.presenter.texts import Texts
from tgbot.presenter.variants import variants_line
from tgbot.presenter.zones import date_text
from tgbot.replay.steps import text
from tgbot.telegram.context import BotServices
from tgbot.telegram.handlers import achievements, standings
from tgbot.telegram.handlers.replays import replay_button

PAGE: Final = "vh"  # value: how many newer games the /history page skips
HISTORY_DATA: Final = "history"  # the game field of a /history page button (no one game)
HISTORY_LIMIT: Final = 10


def history_message(
    services: BotServices, chat_id: int, lang: str, offset: int = 0, player: int | None = None
) -> tuple[str, InlineKeyboardMarkup | None]:
    """A page of finished games, newest first, skipping ``offset`` of them: the group's, or
    with ``player`` (a private chat) the ones that player played in any group. A Replay
    button per game and ◀ newer / older ▶ buttons when there are more."""
    offset = max(0, min(offset, cb.MAX_SMALL))
    texts = Texts(lang)
    if player is None:
        entries = services.history.group_games(chat_id, HISTORY_LIMIT + 1, offset)
        title, empty, tz = "history.title", "history.empty", services.zone(chat_id)
    else:
        entries = services.history.player_games(player, HISTORY_LIMIT + 1, offset)
        title, empty, tz = "history.title_player", "history.empty_player", dt.UTC
    if not entries:
        return texts.t(empty), None
    older = len(entries) > HISTORY_LIMIT
    lines = [texts.t(title)]
    buttons: list[list[InlineKeyboardButton]] = []
    for number, entry in enumerate(entries[:HISTORY_LIMIT], start=offset + 1):
        date = date_text(entry.finished_at, tz)
        winners = ", ".join(entry.winners) or text(lang, "story.nobody")
        line = f"{number}. " + text(
            lang,
            "history.line",
            date=date,
            edition=texts.t(f"edition.{entry.edition}"),  # the bot's name for it, as the lobby's
            players=", ".join(entry.players),
            winners=winners,
            game=entry.game_id,
        )
        if entry.variants:  # a game played with variants says which (docs/rules.md §8)
            line += " " + variants_line(entry.variants, texts)
        if buttons and length("\n".join([*lines, line])) > TEXT_LIMIT - 100:
            older = True  # the rest goes to the next page
            break
        lines.append(line)
        label = f"{number}. " + text(lang, "history.button", date=date)
        key = services.callback_key
        buttons.append([replay_button(entry.game_id, key, chat_id, "🎬 " + label)])
    shown = len(buttons)
    pages = []
    if offset > 0:
        newer = max(0, offset - HISTORY_LIMIT)
        pages.append(
            _page_button(services.callback_key, chat_id, text(lang, "history.newer"), newer)
        )
    if older:
        pages.append(
            _page_button(
                services.callback_key, chat_id, text(lang, "history.older"), offset + shown
            )
        )
    if pages:
        buttons.append(pages)
    return "\n".join(lines), InlineKeyboardMarkup(buttons)


def _page_button(key: bytes, chat: int, label: str, offset: int) -> InlineKeyboardButton:
    data = cb.CallbackData(PAGE, HISTORY_DATA, 0, value=min(offset, cb.MAX_SMALL))
    return InlineKeyboardButton(label, callback_data=cb.encode(data, key, chat))


def stats_message(
    services: BotServices, lang: str, player_id: int, name: str, chat_id: int | None
) -> str:
    """The player's figures, and in a group the group's: a tie is shown as a tie, and
    no favourite dwarf is named before a round was won."""
    texts = Texts(lang)
    mine = services.history.player(player_id)
    lines = [
        texts.t(
            "stats.player",
            name=mine.name or name,
            games=texts.t("count.games_played", n=mine.games),
            wins=texts.t("count.wins", n=mine.wins),
            gold=texts.t("count.gold", n=mine.gold),
        ),
        *_most_line(texts, ROLES, _role_names(texts, mine.favourite_roles), mine.role_rounds),
        # The games played with a variant, apart (docs/rules.md §8).
        *variant_lines(texts, mine.variant_games, mine.variant_wins, mine.variant_gold),
    ]
    if chat_id is not None:
        lines.extend(standings.rating_lines(services, texts, player_id, chat_id))
    lines.extend(achievements.stats_line(services, texts, player_id))
    if chat_id is not None:
        group = services.history.group(chat_id)
        lines.append("")
        games = texts.t("count.games_finished", n=group.games)
        # One per winner of each game: counted as winners, not as wins.
        winners = texts.t("count.winners", n=group.wins)
        lines.append(texts.t("stats.group", games=games, winners=winners, gold=group.gold))
        roles = _role_names(texts, group.favourite_roles)
        lines.extend(_most_line(texts, ROLES, roles, group.role_rounds))
        lines.extend(_most_line(texts, TOP, list(group.top_winners), group.top_wins))
        lines.extend(group_variant_lines(texts, group.variant_games, group.variant_wins))
        # The people's figures above; the computer players' apart, all of them together.
        computers = services.history.computers(chat_id)
        if computers.seats:
            lines.append(
                texts.t(
                    "stats.computers",
                    seats=computers.seats,
                    wins=computers.wins,
                    rounds=computers.rounds_won,
                    gold=computers.gold,
                )
            )
    return "\n".join(lines)


def _role_names(texts: Texts, roles: Sequence[str]) -> list[str]:
    return [texts.role_name(role) for role in roles]


# The line's two keys (one name, a tie) and the counted noun it counts in.
ROLES: Final = ("stats.roles", "stats.roles_tied", "count.rounds")
TOP: Final = ("stats.top", "stats.top_tied", "count.wins")


def _most_line(
    texts: Texts, keys: tuple[str, str, str], names: Sequence[str], count: int
) -> list[str]:
    """The line for the one name with the highest count (``keys[0]``) or for several
    (``keys[1]``: a tie); no line when nobody counts."""
    if not names:
        return []
    key = keys[0] if len(names) == 1 else keys[1]
    return [texts.t(key, names=", ".join(names), count=texts.t(keys[2], n=count))]
