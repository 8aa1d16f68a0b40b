"""The game service on SQLite and PostgreSQL, driven by a tiny game."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator

import pytest
from infra_fakes import Create, Finish, Join, Tick, TinyCodec, TinyDecider, TinyError
from pg_proxy import pg_proxy
from sqlalchemy import Engine

from infra.db import make_engine
from infra.event_store import ConcurrencyError, EventStore
from infra.game_service import GameService, Loaded, Outcome


@pytest.fixture
def engine(db_url: str) -> Iterator[Engine]:
    engine = make_engine(db_url)
    yield engine
    engine.dispose()


def service(engine: Engine, **kwargs: object) -> GameService:
    defaults: dict[str, object] = {"clock_ms": lambda: 1_700_000_000_000, "seeds": lambda: 42}
    defaults.update(kwargs)
    return GameService(EventStore(engine), TinyDecider(), TinyCodec(), **defaults)  # type: ignore[arg-type]


def new_game() -> str:
    return f"game-{uuid.uuid4().hex}"


def test_a_command_appends_the_decided_events_and_returns_them(engine: Engine) -> None:
    games, game = service(engine), new_game()

    created = games.handle(game, Create(actor=1, chat_id=-100))
    joined = games.handle(game, Join(actor=2, name="Bo"))

    assert [e.TYPE for e in created + joined] == ["game_created", "player_joined"]
    loaded = games.load(game)
    assert (loaded.version, loaded.state.players) == (2, (1, 2))
    stored = games.store.load(game)
    assert stored[0].metadata["actor"] == 1 and stored[0].metadata["command"] == "Create"


def test_commands_are_stamped_with_the_injected_clock_and_seed_when_unset(engine: Engine) -> None:
    games, game = service(engine), new_game()
    games.handle(game, Create(actor=1, chat_id=5))
    games.handle(game, Join(actor=2, name="Bo"))

    [ticked, _] = games.handle(game, Tick(actor=1))
    [given, _] = games.handle(game, Tick(actor=1), at=5, seed=9)

    assert (ticked.at, ticked.seed) == (1_700_000_000_000, 42)
    assert (given.at, given.seed) == (5, 9)


def test_a_rule_broken_appends_nothing(engine: Engine) -> None:
    games, game = service(engine), new_game()
    games.handle(game, Create(actor=1, chat_id=5))

    with pytest.raises(TinyError):
        games.handle(game, Create(actor=1, chat_id=5))

    assert games.store.version(game) == 1


def test_the_same_idempotency_key_twice_appends_once(engine: Engine) -> None:
    games, game = service(engine), new_game()
    games.handle(game, Create(actor=1, chat_id=5))
    games.handle(game, Join(actor=2, name="Bo"))

    first = games.execute(game, Tick(actor=1), idempotency_key="update-7")
    again = games.execute(game, Tick(actor=1), idempotency_key="update-7")

    assert again.duplicate and not first.duplicate
    assert again.events == first.events
    assert games.store.version(game) == 4


def test_double_clicks_racing_in_threads_append_once(engine: Engine) -> None:
    games, game = service(engine), new_game()
    games.handle(game, Create(actor=1, chat_id=5))
    games.handle(game, Join(actor=2, name="Bo"))
    results: list[object] = []

    def click() -> None:
        results.append(games.handle(game, Tick(actor=1), idempotency_key="click-1"))

    threads = [threading.Thread(target=click) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()

    assert games.store.version(game) == 4
    assert all(r == results[0] for r in results)


def test_a_lost_race_is_decided_again_on_the_new_state(engine: Engine) -> None:
    games, game = service(engine), new_game()
    games.handle(game, Create(actor=1, chat_id=5))
    games.handle(game, Join(actor=2, name="Bo"))
    real_load = games.load
    raced: list[bool] = []

    def load_then_someone_else_writes(game_id: str):  # type: ignore[no-untyped-def]
        loaded = real_load(game_id)
        if not raced:
            raced.append(True)
            service(engine).handle(game_id, Tick(actor=2))
        return loaded

    games.load = load_then_someone_else_writes  # type: ignore[method-assign]
    [_, opened] = games.handle(game, Tick(actor=1))

    assert opened.decision == 2  # decided on the state after the other tick
    assert games.store.version(game) == 6


def test_a_command_decided_on_the_game_opened_reads_it_no_more(engine: Engine) -> None:
    games, game = service(engine), new_game()
    games.handle(game, Create(actor=1, chat_id=5))
    games.handle(game, Join(actor=2, name="Bo"))
    opened = games.open(game, "update-8")
    assert isinstance(opened, Loaded) and opened.version == 2
    reads: list[str] = []
    for name in ("processed", "load"):
        monkeypatch_read(games.store, name, reads)

    outcome = games.execute(game, Tick(actor=1), "update-8", loaded=opened)

    assert reads == [] and not outcome.duplicate
    assert outcome.version == games.store.version(game) == 4


def test_a_game_opened_under_a_key_seen_before_is_what_the_key_did(engine: Engine) -> None:
    games, game = service(engine), new_game()
    games.handle(game, Create(actor=1, chat_id=5))
    games.handle(game, Join(actor=2, name="Bo"))
    first = games.execute(game, Tick(actor=1), idempotency_key="update-9")

    again = games.open(game, "update-9")

    assert isinstance(again, Outcome) and again.duplicate
    assert again.events == first.events and again.version == 4


def test_a_command_decided_on_a_game_opened_before_a_race_is_decided_again(
    engine: Engine,
) -> None:
    games, game = service(engine), new_game()
    games.handle(game, Create(actor=1, chat_id=5))
    games.handle(game, Join(actor=2, name="Bo"))
    opened = games.open(game, "update-10")
    service(engine).handle(game, Tick(actor=2))
    assert isinstance(opened, Loaded)

    [_, decided] = games.execute(game, Tick(actor=1), "update-10", loaded=opened).events

    assert decided.decision == 2  # decided on the state after the other tick
    assert games.store.version(game) == 6


def monkeypatch_read(store: EventStore, name: str, reads: list[str]) -> None:
    read = getattr(store, name)

    def counted(*args: object, **kwargs: object) -> object:
        reads.append(name)
        return read(*args, **kwargs)

    setattr(store, name, counted)


def test_a_game_moved_on_elsewhere_is_loaded_with_every_new_event(engine: Engine) -> None:
    here, elsewhere, game = service(engine), service(engine), new_game()
    here.handle(game, Create(actor=1, chat_id=5))
    here.handle(game, Join(actor=2, name="Bo"))
    seen = here.load(game)

    elsewhere.handle(game, Tick(actor=1))
    elsewhere.handle(game, Tick(actor=2))

    again = here.load(game)
    assert (seen.version, again.version) == (2, 6)
    assert again == service(engine, known_games=0).load(game)
    [_, opened] = here.handle(game, Tick(actor=1))
    assert opened.decision == 3  # decided on the state after the other service's ticks


def test_giving_up_after_the_bounded_attempts_raises(engine: Engine) -> None:
    games, game = service(engine, attempts=2), new_game()
    games.handle(game, Create(actor=1, chat_id=5))
    games.handle(game, Join(actor=2, name="Bo"))
    real_load = games.load

    def always_stale(game_id: str):  # type: ignore[no-untyped-def]
        loaded = real_load(game_id)
        service(engine).handle(game_id, Tick(actor=2))
        return loaded

    games.load = always_stale  # type: ignore[method-assign]
    with pytest.raises(ConcurrencyError):
        games.handle(game, Tick(actor=1))


def test_a_long_game_loads_from_a_snapshot_to_the_same_state(engine: Engine) -> None:
    games, game = service(engine, snapshot_every=10), new_game()
    games.handle(game, Create(actor=1, chat_id=5))
    games.handle(game, Join(actor=2, name="Bo"))
    for _ in range(30):
        games.handle(game, Tick(actor=1))

    snapshot = games.store.load_snapshot(game, games.kind)
    assert snapshot is not None and snapshot.version >= 50
    folded = TinyDecider().initial_state()
    for event in games.events(game):
        folded = TinyDecider().evolve(folded, event)
    assert games.load(game).state == folded
    assert service(engine, snapshot_every=10_000).load(game).state == folded


def test_a_snapshot_of_another_state_shape_is_ignored(engine: Engine) -> None:
    games, game = service(engine), new_game()
    games.handle(game, Create(actor=1, chat_id=5))
    games.store.save_snapshot(game, 1, games.kind + "-old", {"garbage": True})

    assert games.load(game).state.players == (1,)


def test_finishing_a_game_returns_the_final_state(engine: Engine) -> None:
    games, game = service(engine), new_game()
    games.handle(game, Create(actor=1, chat_id=5))
    games.handle(game, Join(actor=2, name="Bo"))

    outcome = games.execute(game, Finish(actor=1))

    assert outcome.state.ended and outcome.version == 4


@pytest.mark.parametrize("cut", ["after", "before"])
def test_a_connection_dropped_at_the_commit_still_gives_a_true_answer(
    postgres_url: str, cut: str
) -> None:
    """The connection drops right after the COMMIT went out (the move counted, the client
    never heard) or right before (it did not): either way the command is told it counted,
    and it counted exactly once."""
    with pg_proxy(postgres_url) as proxy:
        engine = make_engine(proxy.url)
        try:
            games, game = service(engine), new_game()
            games.handle(game, Create(actor=1, chat_id=5))
            games.handle(game, Join(actor=2, name="Bo"))

            proxy.cut(cut)
            outcome = games.execute(game, Tick(actor=1), idempotency_key="tg:77")

            assert proxy.cuts == 1
            stored = games.store.load(game)
            ticked = [e for e in stored if e.metadata.get("idempotency_key") == "tg:77"]
            assert [e.type for e in ticked] == [e.TYPE for e in outcome.events]
            assert ticked[0].type == "ticked" and ticked[0].version == 3
            assert outcome.version == len(stored) == 2 + len(ticked)
        finally:
            engine.dispose()
