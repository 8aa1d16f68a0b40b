"""Between games: the game-over message's "Play again" and "Notify me" buttons, and the
invitation of the last game's players (a subscriber's private notice of a new game is
presented with the game's lobby: :func:`tgbot.presenter.lobby.subscriber_notices`).

The texts are pure functions of their inputs.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Final

from domain.state import GameState, PlayerId
from tgbot.presenter.keyboards import NOTIFY as NOTIFY
from tgbot.presenter.keyboards import PLAY_AGAIN as PLAY_AGAIN
from tgbot.presenter.texts import Texts, esc, mention

log = logging.getLogger(__name__)

ACTIONS: Final = frozenset({PLAY_AGAIN, NOTIFY})


def invitation_text(
    texts: Texts, opener: str, players: Iterable[tuple[PlayerId, str]], edition: str
) -> str:
    """The group's message when someone plays again: the last game's players, mentioned
    (HTML), are invited to join the new lobby.

    >>> invitation_text(Texts("en"), "Ann", [(2, "Bo")], "base")  # doctest: +ELLIPSIS
    '🔁 Ann opened a new game of Saboteur. <a href="tg://user?id=2">Bo</a>: you are invited...'
    """
    invited = ", ".join(mention(player, name) for player, name in players)
    head = texts.t("again.opened", name=esc(opener), edition=texts.t(f"edition.{edition}"))
    if not invited:
        return head
    return f"{head} {texts.t('again.invited', names=invited)}"


def last_players(state: GameState, opener: PlayerId) -> list[tuple[PlayerId, str]]:
    """The finished game's players but the one who plays again, in seat order."""
    return [(p, state.names.get(p, "?")) for p in state.seating if p != opener]
