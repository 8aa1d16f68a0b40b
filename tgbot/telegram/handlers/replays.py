"""Finished games' replays as the bot keeps and shows them: folded from the log only
and kept in memory (:class:`ReplayCache`, with the GIFs made last in :class:`GifCache`),
and what a replay message shows at each step (:func:`replay_view`): the board, the
step's caption in pages that fit Telegram's limit, and the ⏮ ◀ ▶ ⏭ buttons.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Final

from telegram import InlineKeyboardButton

from domain.events import Event
from infra.event_store import BrokenChain, EventStore
from infra.lru import LRU
from tgbot.presenter import callback as cb
from tgbot.presenter import keyboards as kb
from tgbot.presenter.caption import CAPTION_LIMIT, runs
from tgbot.presenter.messages import Photo, Picture
from tgbot.presenter.telegram_html import length
from tgbot.replay.gif import hidden_goals
from tgbot.replay.steps import GameTamperedError, Replay, Step, caption, text
from tgbot.telegram.context import BotServices

log = logging.getLogger(__name__)

STEP: Final = "vs"  # value: the step to show; page: the page of its caption
GIF: Final = "vg"
CACHED_REPLAYS: Final = 16
CACHED_GIFS: Final = 8
GIF_BUDGET_BYTES: Final = 64 * 1024 * 1024


class ReplayCache:
    """The last replays opened, kept in memory: a finished game never changes, so stepping
    through it folds from the replay's in-memory checkpoints."""

    def __init__(self, size: int = CACHED_REPLAYS) -> None:
        self._replays: LRU[str, Replay] = LRU(size)

    def get(self, services: BotServices, game_id: str) -> Replay:
        found = self._replays.get(game_id)
        if found is None:
            found = self._replays[game_id] = load_replay(
                services.store, game_id, services.service.decode
            )
        return found


def load_replay(store: EventStore, game_id: str, decode: Any) -> Replay:
    """A finished game's replay, folded from its stored events only (no snapshot, no read
    model).

    Raises :class:`GameNotFoundError`, :class:`GameNotFinishedError` or, when the game's
    hash chain does not hold, :class:`GameTamperedError`.
    """
    try:
        stored = store.load(game_id, verified=True)
    except BrokenChain as error:
        log.warning("replay of %s refused: %s", game_id, error)
        raise GameTamperedError(str(error)) from error
    events: list[Event] = [decode(e) for e in stored]
    return Replay(game_id, events)


class GifCache:
    """The GIFs made last, per (game, language), at most ``size`` of them and ``budget``
    bytes in all; and the ones being made right now, so a second press does not make the
    same GIF again alongside the first."""

    def __init__(self, size: int = CACHED_GIFS, budget: int = GIF_BUDGET_BYTES) -> None:
        self.size = size
        self.budget = budget
        self._gifs: LRU[tuple[str, str], bytes] = LRU(size)
        self._making: set[tuple[str, str]] = set()

    def get(self, key: tuple[str, str]) -> bytes | None:
        return self._gifs.get(key)

    def start(self, key: tuple[str, str]) -> bool:
        """Claim the making of ``key``'s GIF; False when it is already being made."""
        if key in self._making:
            return False
        self._making.add(key)
        return True

    def done(self, key: tuple[str, str]) -> None:
        self._making.discard(key)

    def put(self, key: tuple[str, str], gif: bytes) -> None:
        self._gifs[key] = gif  # at most ``size`` of them
        while len(self._gifs) > 1 and sum(map(len, self._gifs.values())) > self.budget:
            self._gifs.popitem(last=False)


@dataclass(frozen=True, slots=True)
class ReplayView:
    """What the replay message shows: the board after the step, its caption (HTML), its
    buttons (drawn for the game's id and its number of events)."""

    picture: Picture
    caption: str
    keyboard: kb.Keyboard
    game: str
    version: int

    def message(self, chat: int, message_id: int | None = None, topic: int | None = None) -> Photo:
        return Photo(
            chat,
            self.picture,
            self.caption,
            self.keyboard,
            message_id,
            self.game,
            self.version,
            topic,
        )


def replay_button(game_id: str, key: bytes, chat: int, label: str = "🎬") -> InlineKeyboardButton:
    """A button that opens the replay of ``game_id`` (in /history's list, in ``chat``)."""
    data = kb.replay_button(game_id, label).press
    assert data is not None
    raw = cb.encode(data.data(game_id, 0), key, chat)
    return InlineKeyboardButton(label, callback_data=raw)


def keyboard(replay: Replay, index: int, lang: str, page: int = 0, pages: int = 1) -> kb.Keyboard:
    """⏮ ◀ ▶ ⏭, a row per round with its start and its end, and the GIF button. ◀ and ▶ turn the
    pages of a step told in several captions before they move to another step."""
    last = len(replay) - 1

    def button(label: str, target: int, target_page: int = 0) -> kb.Button:
        target = max(0, min(last, target))
        here = (target, target_page) == (index, page)
        shown = "·" + label + "·" if here else label
        return kb.Button(shown, kb.Press(STEP, value=target, page=target_page or None))

    back = button("◀", index, page - 1) if page > 0 else button("◀", index - 1)
    forward = button("▶", index, page + 1) if page + 1 < pages else button("▶", index + 1)
    moves = [button("⏮", 0), back, forward, button("⏭", last)]
    jumps = [  # a row per round: "▶ Round 2: start", "■ Round 2: end"
        [
            button(text(lang, "replay.button_start", round=round_no), start),
            button(text(lang, "replay.button_end", round=round_no), end),
        ]
        for round_no, start, end in replay.jumps()
    ]
    gif = kb.Button(text(lang, "replay.button_gif"), kb.Press(GIF))
    return kb.keyboard([moves, *jumps, [gif]])


def step_picture(step: Step) -> Picture:
    """The board after ``step``, the move's cell framed, the goals' kinds shown."""
    return Picture(
        board=tuple(sorted(step.state.board.items())),
        last=step.highlight,
        peeks=tuple(sorted(hidden_goals(step).items())),
    )


def _title(replay: Replay, step: Step, lang: str, page: int, pages: int) -> str:
    title = text(
        lang,
        "replay.title",
        game=replay.game_id,
        edition=text(lang, f"edition.{step.state.edition}"),
        round=step.round,
        index=step.index + 1,
        total=len(replay),
    )
    if pages > 1:
        title += text(lang, "replay.page", page=page + 1, pages=pages)
    return title


def caption_pages(replay: Replay, step: Step, lang: str, limit: int = CAPTION_LIMIT) -> list[str]:
    """The step's captions, each within Telegram's ``limit``: its title, then as many of
    its lines as fit, the rest on the next pages. Nothing is cut off."""
    room = limit - length(_title(replay, step, lang, 98, 99)) - 1
    pieces = [piece for line in caption(step, lang).splitlines() for piece in _split(line, room)]
    pages = runs(pieces, room) or [[]]
    return [
        _title(replay, step, lang, number, len(pages)) + "\n" + "\n".join(lines)
        for number, lines in enumerate(pages)
    ]


def _split(line: str, room: int) -> list[str]:
    """``line`` in pieces of at most ``room`` long as Telegram counts, cut after a comma
    or a space."""
    pieces: list[str] = []
    while length(line) > room:
        low, high = 1, len(line)  # the longest start that fits: line[:low]
        while low < high:
            middle = (low + high + 1) // 2
            low, high = (middle, high) if length(line[:middle]) <= room else (low, middle - 1)
        cut = max(line.rfind(", ", 0, low - 1) + 1, line.rfind(" ", 0, low))
        cut = cut if cut > 0 else low
        pieces.append(line[:cut].rstrip())
        line = line[cut:].lstrip()
    pieces.append(line)
    return pieces


def replay_view(replay: Replay, index: int, lang: str, page: int = 0) -> ReplayView:
    """What the replay message shows at step ``index`` (and ``page`` of its caption)."""
    step = replay.step(index)
    pages = caption_pages(replay, step, lang)
    page = max(0, min(page, len(pages) - 1))
    return ReplayView(
        step_picture(step),
        pages[page],
        keyboard(replay, step.index, lang, page, len(pages)),
        replay.game_id,
        len(replay.events),
    )
