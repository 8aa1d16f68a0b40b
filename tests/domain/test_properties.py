"""Properties of random legal games: replay, conservation, secrecy, and one move generator."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain import rng
from domain.board import GOAL_CELLS
from domain.cards import Tool
from domain.commands import (
    ChooseTheftVictim,
    ComeBack,
    Command,
    DiscardToRemove,
    Envelope,
    Pass,
    PickGold,
    PlacePath,
    PlayAction,
)
from domain.decide import decide
from domain.errors import DomainError
from domain.events import GameEnded
from domain.evolve import fold
from domain.moves import is_legal, legal_moves
from domain.scoring import game_winners
from domain.simulate import play_one
from domain.state import GameState

SETTINGS = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
games = st.one_of(
    st.tuples(st.just("base"), st.integers(3, 10)),
    st.tuples(st.just("saboteur2"), st.integers(2, 12)),
)


@SETTINGS
@given(games, st.integers(0, 2**32), st.integers(20, 120))
def test_random_games_replay_and_conserve_cards_gold_and_secrets(
    game: tuple[str, int], seed: int, commands: int
) -> None:
    """play_one checks, after every event, card and gold conservation and every player's
    view; at the end, that folding the recorded events gives the state played."""
    edition, players = game
    _, violations, _ = play_one(edition, players, seed, check=True, max_commands=commands)  # type: ignore[arg-type]
    assert violations == []


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games, st.integers(0, 2**32))
def test_whole_random_games_replay_and_conserve_cards_gold_and_secrets_to_the_end(
    game: tuple[str, int], seed: int
) -> None:
    """The same checks over whole games: three rounds, every score and theft, the end."""
    edition, players = game
    events, violations, _ = play_one(edition, players, seed, check=True)  # type: ignore[arg-type]
    assert violations == []
    assert isinstance(events[-1], GameEnded)
    final = fold(events)
    assert final.phase == "finished" and len(final.round_results) == 3
    assert set(final.winners) == set(game_winners(dict(final.gold)))


T = TypeVar("T")
SIDES = ((1, 0), (0, 1), (-1, 0), (0, -1))


def _candidates(state: GameState, seed: int) -> list[Command]:
    """Plausible commands, legal or not, from every player: to compare with legal_moves."""
    numbers = rng.stream(seed)

    def pick(items: Sequence[T]) -> T:
        return items[next(numbers) % len(items)]

    players = [*state.seating, 99]
    near = sorted({(x + dx, y + dy) for x, y in state.board for dx, dy in SIDES})
    cells = sorted({*state.board, *GOAL_CELLS, *near, (5, 5)})
    found: list[Command] = []
    for player in state.seating:
        hand = list(state.hand(player)) or [0]
        for _ in range(12):
            card = pick(hand)
            target = pick(players)
            found.append(PlacePath(player, card, pick(near), pick((False, True))))
            found.append(PlayAction(player, card, target_player=target))
            found.append(PlayAction(player, card, target_cell=pick(cells)))
            found.append(PlayAction(player, card, target_player=target, tool=pick(list(Tool))))
            cards = tuple(sorted({pick(hand) for _ in range(1 + next(numbers) % 3)}))
            found.append(Pass(player, cards))
            found.append(Pass(player, tuple(reversed(cards))))
            if len(cards) == 2:
                front = [*state.front_of(player), "trapped", "theft"]
                found.append(DiscardToRemove(player, (cards[0], cards[1]), pick(front)))
        found += [PickGold(player, v) for v in range(5)]
        found += [ChooseTheftVictim(player, p) for p in players]
    found += [ComeBack(p) for p in players]
    return found


@SETTINGS
@given(games, st.integers(0, 2**32), st.integers(0, 150))
def test_decide_accepts_exactly_the_legal_moves(
    game: tuple[str, int], seed: int, commands: int
) -> None:
    edition, players = game
    events, _, _ = play_one(edition, players, seed, check=False, max_commands=commands)  # type: ignore[arg-type]
    state = fold(events)
    listed = {p: legal_moves(state, p) for p in state.seating}
    for moves in listed.values():
        for move in moves[:: max(1, len(moves) // 25)]:
            decide(state, Envelope(move))  # raises if a listed move is refused
    legal = {m for moves in listed.values() for m in moves}
    for command in _candidates(state, seed):
        accepted = is_legal(state, command)
        assert accepted == (command in legal), command
        if not accepted:
            try:
                decide(state, Envelope(command))
            except DomainError:
                pass
            else:  # pragma: no cover - is_legal said no
                raise AssertionError(command)


def test_at_and_seed_never_change_what_is_legal() -> None:
    events, _, _ = play_one("saboteur2", 4, 5, check=False, max_commands=30)
    state = fold(events)
    pending = state.pending
    assert pending is not None
    for move in legal_moves(state, pending.player)[:20]:
        decide(state, Envelope(move, at=123, seed=456))  # raises if refused
