"""Whole games at the edges of each edition's player count, played to the end through
decide (random legal moves and timeouts, a fixed seed): 2 and 12 players of saboteur2,
3 and 10 of base."""

from __future__ import annotations

import pytest

from domain.cards import Edition
from domain.events import GameEnded, RoundEnded, RoundStarted
from domain.evolve import fold
from domain.simulate import play_one


@pytest.mark.parametrize(
    ("edition", "players"),
    [("saboteur2", 2), ("saboteur2", 12), ("base", 3), ("base", 10)],
    ids=["saboteur2-2-players", "saboteur2-12-players", "base-3-players", "base-10-players"],
)
def test_a_complete_game_scores_three_rounds_and_the_richest_players_win(
    edition: Edition, players: int
) -> None:
    events, violations, _ = play_one(edition, players, seed=11)

    assert violations == []
    started = [e for e in events if isinstance(e, RoundStarted)]
    ended = [e for e in events if isinstance(e, RoundEnded)]
    assert [e.round for e in started] == [e.round for e in ended] == [1, 2, 3]
    assert all(len(e.roles) == players for e in ended)
    last = events[-1]
    assert isinstance(last, GameEnded)
    gold = dict(last.gold)
    assert len(gold) == players and max(gold.values()) > 0
    assert set(last.winners) == {p for p, g in gold.items() if g == max(gold.values())}
    final = fold(events)
    assert final.phase == "finished" and dict(final.gold) == gold
