"""The history read models (:mod:`infra.history`, :mod:`infra.history_queries`) as their
readers ask them: a group's or a player's finished games and their figures.

Each answer follows the log to its end first, so a game that just ended is in it. The read
models' modules are loaded by the first question, not before: a process that never answers
``/history`` or ``/stats`` (the announcer's) never loads them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from infra.event_store import EventStore

if TYPE_CHECKING:
    from infra.history_queries import ComputerFigures, GroupFigures, HistoryEntry, PlayerFigures


class GameHistory:
    """The questions of ``/history``, ``/stats`` and ``/replay`` over ``store``'s database."""

    def __init__(self, store: EventStore) -> None:
        self.store = store

    def catch_up(self) -> None:
        """Follow the log up to its end into the read models."""
        from infra.history import HistoryProjector

        HistoryProjector(self.store.engine, self.store).catch_up()

    def group_games(self, chat_id: int, limit: int, offset: int = 0) -> list[HistoryEntry]:
        from infra.history_queries import history

        self.catch_up()
        return history(self.store.engine, chat_id, limit, offset)

    def player_games(self, player_id: int, limit: int, offset: int = 0) -> list[HistoryEntry]:
        from infra.history_queries import player_history

        self.catch_up()
        return player_history(self.store.engine, player_id, limit, offset)

    def last_finished(self, chat_id: int) -> str | None:
        from infra.history_queries import last_finished

        self.catch_up()
        return last_finished(self.store.engine, chat_id)

    def player(self, player_id: int) -> PlayerFigures:
        from infra.history_queries import player_figures

        self.catch_up()
        return player_figures(self.store.engine, player_id)

    def group(self, chat_id: int) -> GroupFigures:
        """A group's figures (after :meth:`player` or another question that caught up)."""
        from infra.history_queries import group_figures

        return group_figures(self.store.engine, chat_id)

    def computers(self, chat_id: int) -> ComputerFigures:
        """A group's computer players' figures (after a question that caught up)."""
        from infra.history_queries import computer_figures

        return computer_figures(self.store.engine, chat_id)
