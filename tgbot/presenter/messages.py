"""What the presenter hands the outbox: typed outgoing messages, no Telegram objects.

Each message says which chat it goes to and, where it matters, the *slot* it fills — the
group's board of this round, a player's live prompt, the group's lobby — so the outbox
knows whether to send, edit or supersede. Pictures are described (:class:`Picture`), not
drawn: the outbox draws them off the event loop and sends a picture Telegram already has
by its ``file_id``. Keyboards are plain data (:mod:`tgbot.presenter.keyboards`); their buttons are
encoded for the message's ``game`` and ``version``.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from domain.board import Cell, Tile
from domain.state import PlayerId
from tgbot.presenter.keyboards import Keyboard


class Slot(StrEnum):
    """A message the bot keeps and changes (its id is kept per game and chat)."""

    LOBBY = "lobby"  # the group's lobby message
    BOARD = "board"  # the group's board picture of this round
    PROMPT = "prompt"  # a player's live prompt: the one private message with buttons
    UNREACHABLE = "unreachable"  # the group was told this player must open the chat
    SETTINGS = "settings"  # the lobby message shows its settings (the lobby's id)
    MOVED = "moved"  # the game's forum topic is closed or gone: General was told (its id)


@dataclass(frozen=True, slots=True)
class HandCard:
    """A card of the hand, drawn small under the prompt's board: a path card by its
    shape, an action card by its icon and name (``playable`` False: drawn greyed)."""

    kind: str
    label: str
    playable: bool = True


@dataclass(frozen=True, slots=True)
class Picture:
    """A board picture to draw: the board as the viewer sees it (goals turned face up
    at a round's end), labels on cells (a placement preview) or the last move framed,
    goals this viewer mapped, a path card drawn both ways (``orientations``) and the
    viewer's hand below."""

    board: tuple[tuple[Cell, Tile], ...]
    marks: tuple[tuple[Cell, str], ...] = ()
    last: Cell | None = None
    peeks: tuple[tuple[Cell, str], ...] = ()
    orientations: str | None = None
    hand: tuple[HandCard, ...] = ()


@dataclass(frozen=True, slots=True)
class Text:
    """A new text message (HTML). ``about``: players this message tells the group cannot
    be written to in private (noted once it is sent, so it is said once per game)."""

    chat: int
    text: str
    keyboard: Keyboard = ()
    game: str = ""
    version: int = 0
    about: tuple[PlayerId, ...] = ()


@dataclass(frozen=True, slots=True)
class Board:
    """The group's board of this round: its picture edited in place, or a new one sent
    (``new``: a round began; or when there is none to edit)."""

    chat: int
    picture: Picture
    caption: str
    new: bool = False
    keyboard: Keyboard = ()
    game: str = ""
    version: int = 0


@dataclass(frozen=True, slots=True)
class Prompt:
    """A player's live prompt, sent as a new message: the player's earlier prompt of the
    game keeps its caption and loses its buttons (one live prompt per player)."""

    player: PlayerId
    picture: Picture
    caption: str
    keyboard: Keyboard
    game: str = ""
    version: int = 0
    # Sent to the group instead, once per game, when the player cannot be reached.
    unreachable: Text | None = None


@dataclass(frozen=True, slots=True)
class ClosedPrompt:
    """The player's live prompt gets its last word: ``caption`` replaces its caption and
    its buttons go (``keyboard``: buttons it keeps, e.g. "I'm back"). With no live
    prompt, ``caption`` is sent as a text when ``or_send``."""

    player: PlayerId
    caption: str
    keyboard: Keyboard = ()
    or_send: bool = False
    game: str = ""
    version: int = 0
    unreachable: Text | None = None


@dataclass(frozen=True, slots=True)
class PrivateText:
    """A private text message to a player (news that comes with no prompt)."""

    player: PlayerId
    text: str
    keyboard: Keyboard = ()
    game: str = ""
    version: int = 0
    unreachable: Text | None = None


@dataclass(frozen=True, slots=True)
class PromptStep:
    """The pressed prompt redrawn in place (a step inside a decision): its caption and
    keyboard, and its picture when ``picture`` is given."""

    chat: int
    message_id: int
    caption: str
    keyboard: Keyboard
    picture: Picture | None = None
    game: str = ""
    version: int = 0


@dataclass(frozen=True, slots=True)
class TextEdit:
    """A text message the bot sent, redrawn in place (a question answered)."""

    chat: int
    message_id: int
    text: str
    keyboard: Keyboard = ()
    game: str = ""
    version: int = 0


@dataclass(frozen=True, slots=True)
class Photo:
    """A picture with its caption and buttons: sent, or (``message_id``) redrawn in
    place of the message it replaces (a replay's step)."""

    chat: int
    picture: Picture
    caption: str
    keyboard: Keyboard = ()
    message_id: int | None = None
    game: str = ""
    version: int = 0
    topic: int | None = None  # the forum topic it is sent to (None: the chat itself)


@dataclass(frozen=True, slots=True)
class Animation:
    """An animated GIF, sent with its caption."""

    chat: int
    gif: bytes
    filename: str
    caption: str = ""
    topic: int | None = None  # the forum topic it is sent to (None: the chat itself)


@dataclass(frozen=True, slots=True)
class Unbuttoned:
    """A message the bot sent keeps its text and loses its buttons."""

    chat: int
    message_id: int


@dataclass(frozen=True, slots=True)
class Deleted:
    """A message the bot sent is deleted (a chooser closed); should Telegram refuse (a
    message over two days old), it loses its buttons instead."""

    chat: int
    message_id: int


@dataclass(frozen=True, slots=True)
class Lobby:
    """The group's one lobby message, drawn as the game is now: edited in place, or
    posted again at the bottom of the chat (``anew``). It shows the lobby's buttons
    (``keyboard``) or its settings (``settings_keyboard``): as ``settings`` says, or, when
    None, whichever the message shows now (recorded with it)."""

    chat: int
    text: str
    keyboard: Keyboard
    settings_keyboard: Keyboard
    settings: bool | None = None
    anew: bool = False
    game: str = ""
    version: int = 0


@dataclass(frozen=True, slots=True)
class LobbyClosed:
    """The lobby is over (the game started or was cancelled): its message says so and
    loses its buttons. ``or_send``: with no lobby message, ``text`` is sent instead."""

    chat: int
    text: str
    or_send: str = ""
    game: str = ""


@dataclass(frozen=True, slots=True)
class Alert:
    """The answer to a press: a short note, shown as a pop-up when ``alert``."""

    text: str = ""
    alert: bool = True


Message = (
    Text
    | Board
    | Prompt
    | ClosedPrompt
    | PrivateText
    | PromptStep
    | TextEdit
    | Photo
    | Animation
    | Unbuttoned
    | Deleted
    | Lobby
    | LobbyClosed
)
"""Everything the outbox delivers (an :class:`Alert` is answered by the handler)."""
