"""What a game's end reads from the ratings and achievements read models, brought up to
that end first: both projectors together (one read of the log and of the game's stream,
one write: :class:`infra.projector.Projectors`), so the game-over message tells the
game's own changes (the same ones when its messages are presented again).

Built by :func:`infra.bootstrap.bootstrap` on the services: the adapters ask it, they never
hand the store's engine to a projector themselves.
"""

from __future__ import annotations

from infra.achievements import achievements_projection
from infra.event_store import EventStore
from infra.projector import Projectors
from infra.ratings import ratings_projection


class GameEnd:
    """The game-end projections (ratings, achievements) over ``store``'s database."""

    def __init__(self, store: EventStore) -> None:
        self.store = store

    def projectors(self) -> Projectors:
        """The read models a game's end tells from, brought up together."""
        store = self.store
        return Projectors(
            store.engine, store, [ratings_projection(store), achievements_projection(store)]
        )

    def catch_up(self) -> None:
        """Follow the log up to its end into the ratings and achievements read models."""
        self.projectors().catch_up()
