"""What a game's end reads from the ratings and achievements read models: their
projectors are brought up to the game's end first, so the game-over message tells the
game's own changes (the same ones when its messages are presented again)."""

from __future__ import annotations

from infra.achievements import AchievementsProjector, game_awards
from infra.ratings import RatingsProjector, game_changes
from tgbot.context import BotServices
from tgbot.presenter.standings import RatingChange


def ratings(services: BotServices, game_id: str) -> tuple[RatingChange, ...]:
    """The game's changes to its people's season ratings in its group, in seat order
    (none: the game was not rated)."""
    engine = services.store.engine
    RatingsProjector(engine, services.store).catch_up()
    return tuple(
        RatingChange(c.player_id, c.before, c.after)
        for c in game_changes(engine, game_id)
        if not c.computer
    )


def awards(services: BotServices, game_id: str) -> tuple[tuple[int, str], ...]:
    """The achievements the game earned its people, by player, in the list's order."""
    engine = services.store.engine
    AchievementsProjector(engine, services.store).catch_up()
    return tuple((a.player_id, a.achievement) for a in game_awards(engine, game_id))
