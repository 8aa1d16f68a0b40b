"""The bot's words in one language: a thin layer over :mod:`tgbot.presenter.i18n` for cards, roles
and durations, the one glossary every place names them from (play, replays, /rules,
/stats, the GIF, the Mini App).

>>> Texts("es").t("lobby.button_join")
'✋ Unirse'
>>> Texts("en").card_name("base", 0)
'cross ┼'
>>> Texts("es").card_name("base", 5, rotated=True)
'T ┤'
"""

from __future__ import annotations

import html
from typing import Final

from domain.ascii import GLYPHS
from domain.board import Tile
from domain.cards import PATHS, N, card, rotate
from domain.state import GameState, PlayerId
from infra.settings import LANGUAGES as LANGUAGES  # tgbot.telegram.app names each in its menus
from tgbot.presenter import i18n

NAME_LIMIT: Final = 24  # characters of a player's name shown in a caption
# Characters of a name in the answer to a press (an alert holds 200 in all; a stored name
# may have 128).
ALERT_NAME_LIMIT: Final = 32
# The turn timers a game can choose, by name (docs/rules.md §7.1: blitz, normal — the default —,
# relaxed, async).
TIMER_PRESETS: Final = (("blitz", 60), ("normal", 180), ("relaxed", 3600), ("async", 86400))


class Texts:
    """Messages in one language."""

    def __init__(self, lang: str) -> None:
        self.lang = lang if lang in LANGUAGES else i18n.DEFAULT

    def t(self, key: str, **values: object) -> str:
        return i18n.t(self.lang, key, **values)

    def has(self, key: str) -> bool:
        return i18n.has(self.lang, key)

    def card_name(self, edition: str, card_id: int, rotated: bool = False) -> str:
        """A card by the rulebook's name; a path card with its shape as it lies."""
        found = card(edition, card_id)  # type: ignore[arg-type]
        return self.kind_name(found.kind, rotated)

    def kind_name(self, kind: str, rotated: bool = False) -> str:
        """A path card kind (``cross ┼``, turned or not) or an action (``map``)."""
        if kind not in PATHS:
            return self.t(f"action.{kind}")
        shape = card_shape(kind, rotated)
        name = self.t(f"path.{kind}")
        return self.t("card.path", name=name, shape=shape) if shape else name

    def role_name(self, role: str) -> str:
        return self.t(f"role.{role}")

    def front_name(self, kind: str) -> str:
        return self.t(f"action.{kind}")

    def goal_name(self, kind: str) -> str:
        return self.t(f"goal.{kind}")

    def tool_name(self, tool: str) -> str:
        return self.t(f"tool.{tool}")

    def duration(self, seconds: int) -> str:
        for unit, size in (("days", 86400), ("hours", 3600), ("minutes", 60)):
            if seconds % size == 0:
                return self.t(f"bot.duration_{unit}", n=seconds // size)
        return self.t("bot.duration_seconds", n=seconds)

    def timer(self, seconds: int) -> str:
        """A turn timer: its preset's name and duration (``⏱ Normal · 3 min``).

        >>> Texts("en").timer(180), Texts("en").timer(90)
        ('⏱ Normal · 3 min', '90 s')
        """
        for preset, preset_seconds in TIMER_PRESETS:
            if preset_seconds == seconds:
                return self.t(f"bot.timer_{preset}", time=self.duration(seconds))
        return self.duration(seconds)

    def remaining(self, seconds: float) -> str:
        """A time left as a person says it, rounded up: ``45 s``, ``3 min``, ``1 h 30 min``.

        >>> [Texts("en").remaining(s) for s in (45, 150, 5399, 43200, 90000)]
        ['45 s', '3 min', '1 h 30 min', '12 h', '1 d 1 h']
        """
        whole = max(0, int(-(-seconds // 1)))
        if whole < 60:
            return self.t("bot.duration_seconds", n=whole)
        minutes = -(-whole // 60)
        if minutes < 60:
            return self.t("bot.duration_minutes", n=minutes)
        hours, minutes = divmod(minutes, 60)
        if hours < 24:
            parts = [self.t("bot.duration_hours", n=hours)]
            if minutes and hours < 6:
                parts.append(self.t("bot.duration_minutes", n=minutes))
            return " ".join(parts)
        days, hours = divmod(hours + (minutes > 0), 24)
        parts = [self.t("bot.duration_days", n=days)]
        if hours:
            parts.append(self.t("bot.duration_hours", n=hours))
        return " ".join(parts)


def card_shape(kind: str, rotated: bool = False) -> str:
    """A path card's tunnels as it lies, in box-drawing characters: one for a card whose
    openings all join (``├``), a dead end's openings (``┼``), a bridge ``╬``, a double
    curve's two bends (``┘┌``), a tunnel with a dead-end stub (``│ + ╴``). Empty for the
    start and the goals.

    >>> card_shape("t_nse"), card_shape("t_nse", rotated=True)
    ('├', '┤')
    >>> card_shape("bridge"), card_shape("double_curve_a"), card_shape("green_door_ns_w", True)
    ('╬', '┘┌', '│ + ╶')
    """
    if kind == "start" or kind.startswith("goal_"):
        return ""
    segments = Tile(kind, rotated=rotated).segments
    through = sorted((s for s in segments if s & (s - 1)), key=lambda s: (not s & N, s))
    stubs = sorted(s for s in segments if not s & (s - 1))
    if not through:  # a dead end: every opening on its own
        return GLYPHS[Tile(kind, rotated=rotated).openings]
    if len(through) == 2 and set(through) == {0b0101, 0b1010}:
        return "╬"
    shape = "".join(GLYPHS[s] for s in through)
    return f"{shape} + {''.join(GLYPHS[s] for s in stubs)}" if stubs else shape


def opening_glyph(kind: str, rotated: bool) -> str:
    """The card's shape as it lies (see :func:`card_shape`)."""
    return card_shape(kind, rotated)


def is_symmetric(kind: str) -> bool:
    """Whether a path card looks the same turned 180° (a cross, a straight, a bridge, a
    double curve …): it then lies one way only.

    >>> is_symmetric("cross"), is_symmetric("bridge"), is_symmetric("t_nse")
    (True, True, False)
    """
    spec = PATHS[kind]
    return sorted(spec.segments) == sorted(rotate(s) for s in spec.segments)


# Bidirectional embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069): in a
# name they serve only to reverse the rest of the line it is shown in.
BIDI_CONTROLS: Final = dict.fromkeys([*range(0x202A, 0x202F), *range(0x2066, 0x206A)])


def unbidi(text: str) -> str:
    """``text`` without bidirectional controls: a name that reorders nothing around it.

    >>> unbidi("Eve\u202etxet")
    'Evetxet'
    """
    return text.translate(BIDI_CONTROLS)


def esc(text: str) -> str:
    """A user-supplied string made safe for HTML parse mode (and for the line it is in:
    no bidirectional controls)."""
    return html.escape(unbidi(text), quote=False)


def short(name: str, limit: int = NAME_LIMIT) -> str:
    """A display name clipped for a caption, where 12 players' names must fit.

    >>> short("Bartholomew Featherstonehaugh-Smythe")
    'Bartholomew Featherston…'
    """
    name = unbidi(name)
    return name if len(name) <= limit else name[: limit - 1].rstrip() + "…"


def hidden(html_text: str) -> str:
    """A secret in a private message, under a spoiler: a lock screen's preview of the
    message, or whoever looks over the player's shoulder, does not read it (a tap does).

    >>> hidden("saboteur")
    '<tg-spoiler>saboteur</tg-spoiler>'
    """
    return f"<tg-spoiler>{html_text}</tg-spoiler>"


def name_html(name: str) -> str:
    """A player's name, clipped and escaped, for a caption."""
    return esc(short(name))


def computer_html(name: str, level: str, texts: Texts) -> str:
    """A computer player's name with its level (docs/rules.md §7.5), for a message.

    >>> computer_html("🤖 Greta", "hard", Texts("en"))
    '🤖 Greta · hard'
    """
    return f"{name_html(name)} · {texts.t(f'level.{level}')}"


def seat_html(state: GameState, player: PlayerId, texts: Texts) -> str:
    """A seat's name for a message: a computer player's with its level."""
    name = state.names.get(player, "?")
    if state.is_computer(player):
        return computer_html(name, state.level_of(player), texts)
    return name_html(name)


def mention(user_id: int, name: str) -> str:
    return f'<a href="tg://user?id={user_id}">{name_html(name)}</a>'


def coordinate(number: int) -> str:
    """A coordinate as the board's picture and every message write it: a negative one with
    a true minus sign (U+2212), as wide as a digit, where a hyphen shrinks to a dot on a
    phone.

    >>> coordinate(-3), coordinate(0)
    ('−3', '0')
    """
    return f"\u2212{-number}" if number < 0 else str(number)


def cell_text(cell: tuple[int, int]) -> str:
    """Coordinates as the board image prints them ("−1,0")."""
    return f"{coordinate(cell[0])},{coordinate(cell[1])}"
