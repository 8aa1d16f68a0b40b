"""A move sent from the Mini App's page, played as a button press is played: by the one
use case of a player's move (:class:`infra.actions.Actions`), in one trip off the event
loop (each trip may wait for a free worker behind the announcer's).

The same checks as a button press, in the same words: the same tap twice counts once, a
board the game has left behind is stale, it must be the viewer's decision and a move the
rules offer. Here a tap only becomes that call, and its answer a refusal's code.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from domain.commands import Command
from domain.state import PlayerId
from infra.actions import Answer, Refused
from tgbot.presenter.texts import Texts
from tgbot.telegram.context import BotServices

R = TypeVar("R")


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


async def run(
    services: BotServices, play: Play, auth_date: float, then: Callable[[Answer], R]
) -> tuple[str | None, R]:
    """Play ``play``: the refusal's code (None: played, or played before) and what
    ``then`` made of the answer in the same worker thread (the game drawn anew)."""
    answer, after = await services.actions.play_then(
        play.game_id,
        play.viewer,
        play.command,
        play.drawn,
        play.key,
        {"via": "miniapp", "auth_date": auth_date},
        then=then,
    )
    return (answer.reason if isinstance(answer, Refused) else None), after
