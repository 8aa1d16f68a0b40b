"""The press codes a keyboard's buttons carry, the sets the handlers route them by, and
keyboards as plain data: a :class:`Button` is a label and what pressing it does, a
:class:`Press` (our callback data), a link or a Mini App.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final

from domain.board import Cell
from tgbot.presenter.callback import CallbackData
from tgbot.presenter.texts import Texts

# Press actions (callback codes). The first group: the group lobby; the rest: a
# player's private prompt.
JOIN: Final = "j"
LEAVE: Final = "l"
START: Final = "s"
CANCEL: Final = "x"
SETTINGS: Final = "o"
SET_EDITION: Final = "e"
SET_TIMER: Final = "t"
SET_LANGUAGE: Final = "g"
LOBBY: Final = "b"
ADD_COMPUTER: Final = "ca"  # seat a computer player
REMOVE_COMPUTER: Final = "cr"  # unseat the last computer player seated
SET_AWAY: Final = "aw"  # value: index in AWAY_PLAY
SET_GOLD_PICK: Final = "gk"  # value: index in GOLD_PICKS
SET_LEVEL: Final = "cl"  # value: index in LEVELS, every computer player's level
SET_SEAT_LEVEL: Final = "cs"  # player: a computer player's seat, value: its new level's index
SET_VARIANT: Final = "vt"  # value: index in VARIANTS, switched on or off
STOP: Final = "xs"  # a running game: "yes, cancel it" (asked by /cancel)
KEEP: Final = "xk"  # a running game: "no, play on"
# A running game's seats (player: whose seat). /leave asks first: leave, or stay.
LEAVE_YES: Final = "ly"
LEAVE_NO: Final = "ln"
PRACTICE: Final = "pr"  # /practice: value the edition's index, page the seats (once chosen)
HAND_OVER: Final = "ho"  # player: that seat handed over at once (boards drawn before the chooser)
# The creator or an admin hands a person's seat to the computer: the board's one button
# opens a chooser in the group, listing the seats that may be handed over.
SEATS_MENU: Final = "hs"  # the board: open the chooser
SEAT_PICK: Final = "hp"  # the chooser: player — hand that seat over
SEATS_CLOSE: Final = "hc"  # the chooser: close it, nothing handed over
# The round's log (📜): the board's button posts it, its own buttons page it (value: the
# round, page: the page, player: whose moves; none of them go stale) or close it.
LOG_PAGE: Final = "lg"
LOG_CLOSE: Final = "lc"
LANGUAGE_PICK: Final = "la"  # /language's buttons: value the language's index

MENU: Final = "m"  # back to the decision's first step
CARD: Final = "c"  # a card was picked: show where it may go (or why it cannot)
PLACE: Final = "p"  # card, cell, rotated
ACT: Final = "a"  # card, player and/or cell, tool
PASS_MENU: Final = "sm"  # value: mask of toggled hand positions
PASS: Final = "sp"  # value: mask
REMOVE_MENU: Final = "rm"  # page: 1 + front kind index (0: choose one), value: mask
REMOVE: Final = "rr"  # page: front kind index, value: mask
GOLD: Final = "gp"  # value
THEFT: Final = "th"  # player
LEGEND: Final = "hl"  # what the icons mean, in place of the prompt's caption
COME_BACK: Final = "bk"  # an away player is back (any version: it never goes stale)
OPEN: Final = "vo"  # a finished game's replay, opened at its first step
PLAY_AGAIN: Final = "pa"  # game: the finished game whose players are invited
NOTIFY: Final = "nt"  # game: the game whose message it sits on (any: the chat is what counts)

LOBBY_ACTIONS: Final = frozenset(
    {
        JOIN,
        LEAVE,
        START,
        CANCEL,
        SETTINGS,
        SET_EDITION,
        SET_TIMER,
        SET_LANGUAGE,
        LOBBY,
        ADD_COMPUTER,
        REMOVE_COMPUTER,
        SET_AWAY,
        SET_GOLD_PICK,
        SET_LEVEL,
        SET_SEAT_LEVEL,
        SET_VARIANT,
    }
)
SETTING_ACTIONS: Final = frozenset(
    {
        SET_EDITION,
        SET_TIMER,
        SET_LANGUAGE,
        SET_AWAY,
        SET_GOLD_PICK,
        SET_LEVEL,
        SET_SEAT_LEVEL,
        SET_VARIANT,
    }
)
RUNNING_ACTIONS: Final = frozenset({STOP, KEEP})
PROMPT_ACTIONS: Final = frozenset(
    {MENU, CARD, PLACE, ACT, PASS_MENU, PASS, REMOVE_MENU, REMOVE, GOLD, THEFT, LEGEND}
)
LEAVE_ANSWERS: Final = frozenset({LEAVE_YES, LEAVE_NO})  # the leave question's answers
SEAT_ACTIONS: Final = frozenset({LEAVE_YES, LEAVE_NO, HAND_OVER})
CHOOSER_ACTIONS: Final = frozenset({SEAT_PICK, SEATS_CLOSE})  # the chooser's own buttons
HANDING_ACTIONS: Final = frozenset({SEATS_MENU, *CHOOSER_ACTIONS})
LOG_ACTIONS: Final = frozenset({LOG_PAGE, LOG_CLOSE})
COMMAND_ACTIONS: Final = frozenset({PLACE, ACT, PASS, REMOVE, GOLD, THEFT})


@dataclass(frozen=True, slots=True)
class Press:
    """What a button asks for; with a game id and version it becomes callback data.

    ``any_version``: the button is drawn for version 0, whatever the game's version (a
    replay's Open button, which never goes stale)."""

    action: str
    card: int | None = None
    cell: Cell | None = None
    rotated: bool = False
    player: int | None = None
    tool: str | None = None
    page: int | None = None
    value: int | None = None
    any_version: bool = False

    def data(self, game: str, version: int) -> CallbackData:
        return CallbackData(
            self.action,
            game,
            0 if self.any_version else version,
            card=self.card,
            cell=self.cell,
            rotated=self.rotated,
            player=self.player,
            tool=self.tool,
            page=self.page,
            value=self.value,
        )

    @classmethod
    def of(cls, data: CallbackData) -> Press:
        return cls(
            data.action,
            data.card,
            data.cell,
            data.rotated,
            data.player,
            data.tool,
            data.page,
            data.value,
        )


@dataclass(frozen=True, slots=True)
class Button:
    """A label and what pressing it does: a press (for ``game``, default the message's
    own), a link, or a Telegram Mini App."""

    label: str
    press: Press | None = None
    url: str | None = None
    web_app: str | None = None
    game: str | None = None


Row = list[Button]
Keyboard = tuple[tuple[Button, ...], ...]


def keyboard(rows: Iterable[Iterable[Button]]) -> Keyboard:
    """Rows of buttons as an immutable keyboard (empty rows left out)."""
    return tuple(row for row in (tuple(r) for r in rows) if row)


def replay_button(game_id: str, label: str = "🎬") -> Button:
    """A button that opens the replay of ``game_id`` (the game-over message's, /history's)."""
    return Button(label, Press(OPEN, any_version=True), game=game_id)


def after_game_rows(texts: Texts) -> list[Row]:
    """The game-over message's buttons below its replay button: play again, notify me
    (each for the message's game, at any version; see :mod:`tgbot.presenter.invitations`)."""
    return [
        [Button(texts.t(label), Press(action, any_version=True))]
        for label, action in (("again.button_play", PLAY_AGAIN), ("notify.button", NOTIFY))
    ]


def _chunks(items: Sequence[Button], size: int) -> list[Row]:
    return [list(items[i : i + size]) for i in range(0, len(items), size)]
