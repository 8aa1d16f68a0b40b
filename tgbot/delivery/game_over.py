"""What a game's end reads from the ratings and achievements read models: their
projectors are brought up to the game's end first (:class:`infra.game_end.GameEnd`, on the
services), so the game-over message tells the game's own changes (the same ones when its
messages are presented again)."""

from __future__ import annotations

from tgbot.presenter.standings import RatingChange
from tgbot.telegram.context import BotServices


def results(
    services: BotServices, game_id: str
) -> tuple[tuple[RatingChange, ...], tuple[tuple[int, str], ...]]:
    """The game's changes to its people's season ratings in its group, in seat order (none:
    the game was not rated), and the achievements it earned its people, by player, in the
    list's order."""
    services.game_end.catch_up()
    changes = tuple(
        RatingChange(c.player_id, c.before, c.after)
        for c in services.ratings.game_changes(game_id)
        if not c.computer
    )
    awards = tuple((a.player_id, a.achievement) for a in services.achievements.game_awards(game_id))
    return changes, awards
