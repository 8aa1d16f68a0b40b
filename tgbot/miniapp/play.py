"""A move sent from the Mini App's page, played as a button press is played: by the one
use case of a player's move (:class:`infra.actions.Actions`). The route sends
:func:`play_here` and the drawing of the game after it to one worker thread of its own
(one trip off the event loop, which may wait for a free worker behind the announcer's),
then wakes the announcer back on the loop (:meth:`~infra.actions.Actions.heard`).

The same checks as a button press, in the same words: the same tap twice counts once, a
board the game has left behind is stale, it must be the viewer's decision and a move the
rules offer. Here a tap only becomes that call, and its answer a refusal's code.
"""

from __future__ import annotations

from dataclasses import dataclass

from domain.commands import Command
from domain.state import PlayerId
from infra.actions import Answer
from tgbot.presenter.texts import Texts
from tgbot.telegram.context import BotServices


@dataclass(frozen=True, slots=True)
class Play:
    """A move the page sent: whose, in which words, the version its board was drawn at
    and the idempotency key of the tap."""

    game_id: str
    viewer: PlayerId
    texts: Texts
    command: Command
    drawn: int
    key: str


def play_here(services: BotServices, play: Play, auth_date: float) -> Answer:
    """Play ``play`` in the calling thread (blocking: the database and the rules), without
    waking anybody."""
    return services.actions.play_here(
        play.game_id,
        play.viewer,
        play.command,
        play.drawn,
        play.key,
        {"via": "miniapp", "auth_date": auth_date},
    )
