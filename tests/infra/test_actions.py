"""A player's move through the one use case both the chat's buttons and the Mini App call
(:class:`infra.actions.Actions`): on the real rules, on SQLite and PostgreSQL."""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest
from sqlalchemy import Engine

from domain import errors
from domain.commands import (
    ComeBack,
    Command,
    CreateGame,
    Envelope,
    JoinGame,
    PlacePath,
    RemindPlayer,
    StartGame,
    TimeOut,
)
from domain.moves import legal_moves
from domain.state import GameState
from infra.actions import Actions, AlreadyDone, Done, Played, Refused
from infra.bootstrap import domain_modules, event_store
from infra.db import make_engine
from infra.event_store import ConcurrencyError
from infra.game_service import GameService, Loaded

OUTSIDER = 99


@pytest.fixture
def engine(db_url: str) -> Iterator[Engine]:
    engine = make_engine(db_url)
    yield engine
    engine.dispose()


class Rules:
    """The real rules, refusing every move with ``refusal`` once it is set (a rule the
    legal-move gate does not know of)."""

    def __init__(self) -> None:
        self.decider, _ = domain_modules()
        self.refusal: Exception | None = None

    def initial_state(self) -> Any:
        return self.decider.initial_state()

    def decide(self, state: Any, envelope: Envelope, /) -> Sequence[Any]:
        if self.refusal is not None and not isinstance(envelope.command, TimeOut | RemindPlayer):
            raise self.refusal
        return self.decider.decide(state, envelope)

    def evolve(self, state: Any, event: Any, /) -> Any:
        return self.decider.evolve(state, event)


@dataclass
class Table:
    service: GameService
    rules: Rules
    game: str = field(default_factory=lambda: f"game-{uuid.uuid4().hex[:8]}")
    woken: int = 0

    @property
    def actions(self) -> Actions:
        return Actions(self.service, self.wake)

    def wake(self) -> None:
        self.woken += 1

    def now(self) -> tuple[GameState, int]:
        loaded = self.service.load(self.game)
        return loaded.state, loaded.version

    def on_turn(self) -> int:
        state, _ = self.now()
        assert state.pending is not None
        return state.pending.player

    def a_move(self) -> Command:
        state, _ = self.now()
        return legal_moves(state, self.on_turn())[0]

    async def play(self, actor: int, move: Any, seen: int, key: str = "k-1") -> Any:
        return await self.actions.play(self.game, actor, move, seen, key, {"via": "test"})


@pytest.fixture
def table(engine: Engine) -> Table:
    rules = Rules()
    _, codec = domain_modules()
    service = GameService(event_store(engine), rules, codec, seeds=lambda: 3)
    table = Table(service, rules)
    service.handle(table.game, CreateGame(1, "P1", "base", -100))
    service.handle(table.game, JoinGame(2, "P2"))
    service.handle(table.game, JoinGame(3, "P3"))
    service.handle(table.game, StartGame(1))
    return table


async def test_a_legal_move_on_the_choices_as_they_stand_is_played_and_wakes_the_announcer(
    table: Table,
) -> None:
    player, move = table.on_turn(), table.a_move()
    _, version = table.now()

    answer = await table.play(player, move, version)

    assert isinstance(answer, Played)
    assert answer.version == table.now()[1] > version
    assert table.on_turn() != player
    assert table.woken == 1


async def test_the_same_key_again_is_already_done_and_changes_nothing(table: Table) -> None:
    player, move = table.on_turn(), table.a_move()
    _, version = table.now()
    await table.play(player, move, version, key="tap-1")
    after = table.now()[1]

    again = await table.play(player, move, version, key="tap-1")

    assert isinstance(again, AlreadyDone)
    assert table.now()[1] == after


async def test_a_second_tap_on_choices_the_movers_own_move_used_up_is_already_done(
    table: Table,
) -> None:
    player, move = table.on_turn(), table.a_move()
    _, version = table.now()
    await table.play(player, move, version, key="tap-1")
    after = table.now()[1]

    second = await table.actions.play(table.game, player, move, version, "tap-2", double_taps=True)

    assert isinstance(second, AlreadyDone)
    assert table.now()[1] == after


async def test_where_a_second_tap_cannot_happen_choices_the_mover_used_up_are_stale(
    table: Table,
) -> None:
    player, move = table.on_turn(), table.a_move()
    _, version = table.now()
    await table.play(player, move, version, key="tap-1")
    after = table.now()[1]

    second = await table.play(player, move, version, key="tap-2")

    assert isinstance(second, Refused) and second.reason == "stale_button"
    assert second.version == after == table.now()[1]


async def test_a_step_inside_a_decision_is_checked_as_a_move_is(table: Table) -> None:
    player = table.on_turn()
    _, version = table.now()
    waiting = next(p for p in (1, 2, 3) if p != player)
    actions = table.actions

    fresh = actions.check(table.game, player, version)
    not_theirs = actions.check(table.game, waiting, version)
    table.service.handle(table.game, table.a_move())  # the player moves
    tapped_again = actions.check(table.game, player, version, double_taps=True)
    left_behind = actions.check(table.game, waiting, version)

    assert isinstance(fresh, Loaded) and fresh.version == version
    assert isinstance(not_theirs, Refused) and not_theirs.reason == "not_your_turn"
    assert isinstance(tapped_again, AlreadyDone)
    assert isinstance(left_behind, Refused) and left_behind.reason == "stale_button"


async def test_a_move_on_choices_the_game_has_left_behind_is_refused_as_stale(
    table: Table,
) -> None:
    _, version = table.now()
    table.service.handle(table.game, table.a_move())  # another player moved
    player, move = table.on_turn(), table.a_move()
    moved = table.now()[1]

    answer = await table.play(player, move, version)

    assert isinstance(answer, Refused) and answer.reason == "stale_button"
    assert table.now()[1] == moved
    assert table.woken == 0


async def test_choices_drawn_before_a_reminder_still_hold(table: Table) -> None:
    player, move = table.on_turn(), table.a_move()
    state, version = table.now()
    assert state.pending is not None
    table.service.handle(table.game, RemindPlayer(state.pending.id, "half"))
    assert table.now()[1] > version

    answer = await table.play(player, move, version)

    assert isinstance(answer, Played)


async def test_a_player_whose_decision_it_is_not_is_told_so(table: Table) -> None:
    move = table.a_move()
    waiting = next(p for p in (1, 2, 3) if p != table.on_turn())
    _, version = table.now()

    answer = await table.play(waiting, move, version)

    assert isinstance(answer, Refused) and answer.reason == "not_your_turn"
    assert table.now()[1] == version


async def test_someone_who_does_not_play_is_refused(table: Table) -> None:
    _, version = table.now()
    answer = await table.play(OUTSIDER, table.a_move(), version)
    assert isinstance(answer, Refused) and answer.reason == "not_your_button"
    assert table.now()[1] == version


async def test_a_move_the_rules_do_not_offer_is_refused_as_forged(table: Table) -> None:
    player = table.on_turn()
    state, version = table.now()
    offered = legal_moves(state, player)
    card = next(m.card for m in offered if isinstance(m, PlacePath))
    nowhere = PlacePath(player, card, (40, 40), False)
    assert nowhere not in offered

    answer = await table.play(player, nowhere, version)

    assert isinstance(answer, Refused) and answer.reason == "forged_button"
    assert table.now()[1] == version


async def test_a_move_that_the_game_as_it_stands_cannot_make_is_refused_as_forged(
    table: Table,
) -> None:
    def from_the_game(state: GameState) -> Command:
        raise ValueError("no such card in the hand")

    _, version = table.now()
    answer = await table.play(table.on_turn(), from_the_game, version)

    assert isinstance(answer, Refused) and answer.reason == "forged_button"


async def test_a_move_made_from_the_game_as_it_stands_is_played(table: Table) -> None:
    player = table.on_turn()
    _, version = table.now()

    answer = await table.play(player, lambda state: legal_moves(state, player)[0], version)

    assert isinstance(answer, Played)


async def test_a_rules_refusal_becomes_its_code(table: Table) -> None:
    player, move = table.on_turn(), table.a_move()
    _, version = table.now()
    table.rules.refusal = errors.GameOver()

    answer = await table.play(player, move, version)

    assert isinstance(answer, Refused) and answer.reason == "game_over"
    assert table.now()[1] == version
    assert table.woken == 0


async def test_a_move_that_lost_every_race_is_refused_as_busy(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    def raced(game_id: str, *args: Any, **kwargs: Any) -> Any:
        raise ConcurrencyError(game_id, 0)

    monkeypatch.setattr(table.service, "execute", raced)
    _, version = table.now()

    answer = await table.play(table.on_turn(), table.a_move(), version)

    assert isinstance(answer, Refused) and answer.reason == "busy"


async def test_coming_back_never_goes_stale(table: Table) -> None:
    while 1 not in table.now()[0].away:  # three timeouts in a row each
        state, _ = table.now()
        assert state.pending is not None
        table.service.handle(table.game, TimeOut(state.pending.id))

    answer = await table.play(1, ComeBack(1), 0)

    assert isinstance(answer, Played)
    assert 1 not in table.now()[0].away


def test_a_move_reads_the_key_and_the_game_once(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    player, move = table.on_turn(), table.a_move()
    _, version = table.now()
    reads: list[str] = []
    store = table.service.store
    for name in ("processed", "load"):
        monkeypatch.setattr(store, name, _counted(reads, name, getattr(store, name)))

    answer = table.actions.play_here(table.game, player, move, version, "k-1")

    assert isinstance(answer, Played)
    assert sorted(reads) == ["load", "processed"]
    assert table.woken == 0  # waking is the caller's, back on its event loop
    table.actions.heard(answer)
    assert table.woken == 1


def _counted(reads: list[str], name: str, read: Any) -> Any:
    def counted(*args: Any, **kwargs: Any) -> Any:
        reads.append(name)
        return read(*args, **kwargs)

    return counted


async def test_a_command_against_the_game_as_it_is_counts_once_per_key(engine: Engine) -> None:
    _, codec = domain_modules()
    service = GameService(event_store(engine), Rules(), codec, seeds=lambda: 3)
    woken: list[int] = []
    actions = Actions(service, lambda: woken.append(1))
    game = f"game-{uuid.uuid4().hex[:8]}"
    service.handle(game, CreateGame(1, "P1", "base", -100))

    first = await actions.run(game, JoinGame(2, "P2"), "join-1")
    again = await actions.run(game, JoinGame(2, "P2"), "join-1")

    assert isinstance(first, Done) and isinstance(again, Done)
    assert again.events == first.events
    assert service.load(game).state.seating == (1, 2)
    assert service.load(game).version == 2
    assert len(woken) == 2


async def test_a_command_the_rules_refuse_becomes_its_code(table: Table) -> None:
    _, version = table.now()

    refused = await table.actions.run(table.game, JoinGame(4, "P4"), "join-late")

    assert isinstance(refused, Refused) and refused.reason == "not_in_lobby"
    assert table.now()[1] == version
    assert table.woken == 0


async def test_a_command_that_lost_every_race_is_refused_as_busy(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    def raced(game_id: str, *args: Any, **kwargs: Any) -> Any:
        raise ConcurrencyError(game_id, 0)

    monkeypatch.setattr(table.service, "handle", raced)

    refused = await table.actions.run(table.game, ComeBack(1), "back-1")

    assert isinstance(refused, Refused) and refused.reason == "busy"
