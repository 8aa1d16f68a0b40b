"""A move sent from the Mini App's page, checked and played in one go (in a worker
thread: each trip off the event loop may wait for a free worker behind the announcer's).

The same checks as a button press, in the same words: the same tap twice counts once, a
board the game has left behind is stale, it must be the viewer's decision and a move the
rules offer; then the game service plays it as it plays a press.
"""

from __future__ import annotations

from dataclasses import dataclass

from domain.commands import ComeBack, Command
from domain.errors import DomainError
from domain.moves import canonical, legal_moves
from domain.state import GameState, PlayerId
from infra.event_store import ConcurrencyError
from tgbot.context import BotServices
from tgbot.handlers.common import HARMLESS
from tgbot.texts import Texts


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


def _refusal_code(
    services: BotServices, game_id: str, state: GameState, version: int, play: Play
) -> str | None:
    """Why ``play`` cannot be played on the game at ``version`` (None: it can)."""
    if not isinstance(play.command, ComeBack):  # "I'm back" never goes stale
        fresh = state.phase == "playing" and (
            play.drawn == version
            or (
                play.drawn < version
                and all(
                    isinstance(e, HARMLESS)
                    for e in services.service.events(game_id, after_version=play.drawn)
                )
            )
        )
        if not fresh:
            return "stale_button"
        pending = state.pending
        if pending is None or pending.player != play.viewer:
            return "not_your_turn"
    if canonical(play.command) not in legal_moves(state, play.viewer):
        return "forged_button"
    return None


def run(
    services: BotServices, play: Play, auth_date: float
) -> tuple[str | None, tuple[GameState, int] | None]:
    """Play ``play``: the refusal's code (None: played or played before) and the game
    after it, when known without loading it again (None: load it)."""
    if services.store.processed(play.game_id, play.key):
        return None, None  # the same tap again (its answer was lost): it counted once
    state, version = services.load(play.game_id)
    code = _refusal_code(services, play.game_id, state, version, play)
    if code is not None:
        return code, (state, version)
    try:
        outcome = services.service.execute(
            play.game_id, play.command, play.key, {"via": "miniapp", "auth_date": auth_date}
        )
    except DomainError as error:
        return error.code, None
    except ConcurrencyError:
        return "busy", None
    return None, (outcome.state, outcome.version)
