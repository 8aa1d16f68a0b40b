"""Who reads a message, and in which words: the group, or one player's private chat.

:class:`Table` is what the presenter knows of a game beyond its events: its id, its
group's chat, title, language and time zone, each player's language, the bot's username
(for links), where the Mini App is (its short name and page, when set up) and the clock's
now. :class:`Audience` is one reader of it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final

from domain.state import GameState, PlayerId
from tgbot.presenter.standings import RatingChange
from tgbot.presenter.texts import Texts, esc
from tgbot.presenter.zones import clock_time, zone

# What a practice game says in words of its own: it is played in no group.
PRACTICE_WORDING: Final = frozenset(
    {"prompt.turn_practice", "news.head_practice", "prompt.status_practice"}
)


def is_person(state: GameState, player: PlayerId) -> bool:
    """Whether a seat is a person the bot writes to in private. The one predicate that
    decides it: a computer player's seat (a small negative id, flagged in the state) never
    gets a private message, whatever it is owed."""
    return state.is_player(player) and not state.is_computer(player)


@dataclass(frozen=True, slots=True)
class Table:
    """A game as the presenter addresses it."""

    game_id: str
    chat_id: int  # the group (its id now, after any migration)
    now_ms: int  # the game clock's now: times left are counted from it
    title: str = ""  # the group's title, when known
    topic_name: str = ""  # the forum topic's name, when the game has one and it is known
    group_username: str = ""  # the group's public @name, if it has one (for links)
    group_language: str = "en"
    languages: Mapping[PlayerId, str] = field(default_factory=dict)
    tz: str = "UTC"  # the group's time zone (an IANA name)
    bot_username: str = ""
    miniapp_name: str = ""  # MINIAPP_NAME: the group board's direct link to the Mini App
    miniapp_url: str = ""  # MINIAPP_URL: the private prompt's web_app button
    practice: bool = False  # /practice: one person and computers, in the private chat
    # A finished game's changes to its people's season ratings (the game-over message).
    ratings: tuple[RatingChange, ...] = ()
    # The achievements it earned (player, achievement), told at its end.
    awards: tuple[tuple[PlayerId, str], ...] = ()
    # The lobby: the group's last season ("2026Q3") and its champion per edition.
    last_season: str = ""
    champions: Mapping[str, str] = field(default_factory=dict)

    def group(self) -> Audience:
        """The group; a practice game's "group" is its player's private chat, in their
        language."""
        lang = self.languages.get(self.chat_id, self.group_language) if self.practice else None
        return Audience(self.chat_id, None, Texts(lang or self.group_language), self.tz)

    def player(self, player: PlayerId) -> Audience:
        return Audience(player, player, Texts(self.languages.get(player, "en")), self.tz)

    def group_name(self, texts: Texts) -> str:
        """The group as a private message names it (HTML); a practice game, played in
        the private chat, by its own name (see :meth:`said`)."""
        if self.practice:  # no group: the game's own name ("Practice: done …")
            return esc(texts.t("bot.practice_title"))
        group = (
            texts.t("bot.group_named", title=esc(self.title))
            if self.title
            else texts.t("bot.your_group")
        )
        if self.topic_name:  # a forum's table: “Miners” › “Table 2”
            return f"{group} › {texts.t('bot.group_named', title=esc(self.topic_name))}"
        return group

    def said(self, texts: Texts, key: str, **values: object) -> str:
        """``key``, naming the group as ``group``; a practice game's own wording where it
        has one ("Your turn in your practice game!", not "in the group …")."""
        if self.practice and f"{key}_practice" in PRACTICE_WORDING:
            key = f"{key}_practice"
        return texts.t(key, group=self.group_name(texts), **values)


@dataclass(frozen=True, slots=True)
class Audience:
    """One chat: the group (``viewer`` None) or a player's private chat."""

    chat: int
    viewer: PlayerId | None
    texts: Texts
    tz: str = "UTC"

    def clock(self, ms: int) -> str:
        """A moment as a clock time in this audience's time zone: ``14:05 CET``."""
        return clock_time(ms, zone(self.tz))
