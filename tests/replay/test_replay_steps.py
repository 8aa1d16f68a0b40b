"""Replays are folded from the log alone and show, at each step, the live game's state."""

from __future__ import annotations

import pytest

from domain import codec, engine
from domain import events as ev
from domain.evolve import evolve, initial_state
from domain.state import GameState
from infra.db import make_engine
from infra.event_store import EventStore
from infra.game_service import GameService
from tests.replay.games import PlayedGame
from tests.replay.test_history_figures import store_game
from tgbot.replay import steps as replay_module
from tgbot.replay.steps import (
    CHECKPOINT_EVERY,
    LANGUAGES,
    MOVE,
    ROUND_END,
    ROUND_START,
    GameNotFinishedError,
    GameNotFoundError,
    Replay,
    caption,
)
from tgbot.telegram.handlers.replays import load_replay

MOVES = (
    ev.PathPlaced,
    *ev.ACTION_EVENTS,
    ev.CardsDiscarded,
    ev.FrontCardRemoved,
    ev.DecisionTimedOut,
    ev.GoldPicked,
    ev.TheftResolved,
)


def test_each_step_shows_the_state_the_live_game_had_after_it(finished_game: PlayedGame) -> None:
    replay = Replay("g", finished_game.events)
    for step in replay:
        assert step.state == finished_game.states[step.version - 1]
    assert replay.final == finished_game.final


def test_jumping_to_any_step_folds_the_same_state_as_stepping(finished_game: PlayedGame) -> None:
    replay = Replay("g", finished_game.events)
    for index in (len(replay) - 1, 0, len(replay) // 2, 1, len(replay) // 3):
        step = Replay("g", finished_game.events).step(index)
        assert step.state == finished_game.states[step.version - 1]
        assert replay.step(index).state == step.state


def test_there_is_one_step_per_move_and_per_round_start_and_end(
    finished_game: PlayedGame,
) -> None:
    replay = Replay("g", finished_game.events)
    steps = list(replay)
    timeouts = sum(isinstance(e, ev.DecisionTimedOut) for e in finished_game.events)
    moves = sum(isinstance(e, MOVES) for e in finished_game.events)
    # A timeout and the default move it records are one step.
    assert sum(s.kind == MOVE for s in steps) == moves - timeouts
    assert [s.round for s in steps if s.kind == ROUND_START] == [1, 2, 3]
    assert [s.round for s in steps if s.kind == ROUND_END] == [1, 2, 3]
    assert [(r, steps[a].kind, steps[b].kind) for r, a, b in replay.jumps()] == [
        (r, ROUND_START, ROUND_END) for r in (1, 2, 3)
    ]


def test_a_step_is_folded_from_the_nearest_checkpoint_in_memory(
    finished_game: PlayedGame, monkeypatch: pytest.MonkeyPatch
) -> None:
    replay = Replay("g", finished_game.events)
    assert replay.final == finished_game.final
    assert len(replay.checkpoints) > 2
    folded: list[object] = []

    def counting(state: GameState, event: ev.Event) -> GameState:
        folded.append(event)
        return evolve(state, event)

    monkeypatch.setattr(replay_module, "evolve", counting)
    for index in (len(replay) - 2, 1, len(replay) // 2):
        folded.clear()
        step = replay.step(index)
        assert step.state == finished_game.states[step.version - 1]
        assert len(folded) < 2 * CHECKPOINT_EVERY


def test_the_bot_replays_from_the_events_alone_never_a_stored_snapshot(
    sqlite_url: str, finished_game: PlayedGame
) -> None:
    store = EventStore(make_engine(sqlite_url), upcasters=codec.UPCASTERS)
    game_id = store_game(store, finished_game.events, day=0)
    service = GameService(store, engine, codec)
    # A snapshot that does not match the log: a replay reading it would show it.
    store.save_snapshot(game_id, len(finished_game.events) - 1, service.kind, initial_state())
    replay = load_replay(store, game_id, service.decode)
    assert replay.final == finished_game.final
    for step in (replay.step(len(replay) - 1), replay.step(len(replay) // 2)):
        assert step.state == finished_game.states[step.version - 1]


def test_captions_tell_everything_in_every_language(finished_game: PlayedGame) -> None:
    replay = Replay("g", finished_game.events)
    steps = list(replay)
    for lang in LANGUAGES:
        texts = [caption(step, lang) for step in steps]
        assert all(texts)
        assert not any("{" in t or "replay." in t for t in texts)
    start = caption(steps[0], "en")
    roles = steps[0].state.roles
    for player, role in roles.items():
        assert steps[0].state.names[player] in start
        assert role.value.replace("_", "-")[:4] in start.replace(" ", "-")
    passes = [s for s in steps if isinstance(s.event, ev.CardsDiscarded)]
    assert passes  # passed cards are face down in play, shown in the replay
    assert "discarding face down" in caption(passes[0], "en")


def test_an_unfinished_game_cannot_be_replayed(unfinished_game: PlayedGame) -> None:
    with pytest.raises(GameNotFinishedError):
        Replay("g", unfinished_game.events)
    with pytest.raises(GameNotFoundError):
        Replay("g", [])


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_round_end_caption_reveals_the_dwarf_card_set_aside(
    finished_game: PlayedGame, lang: str
) -> None:
    replay = Replay("g", finished_game.events)
    ends = [s for s in replay if s.kind == ROUND_END]
    assert ends
    for step in ends:
        ended = next(e for e in step.events if isinstance(e, ev.RoundEnded))
        told = caption(step, lang)
        spare = replay_module.text(lang, "move.spare", roles="").split(":")[0]
        if finished_game.final.edition == "base":
            assert len(ended.spare) == 1
            assert spare in told
            assert replay_module.text(lang, f"role.{ended.spare[0]}") in told.split(spare)[1]
        else:  # saboteur2: the dwarf pile stays face down
            assert ended.spare == () and spare not in told
