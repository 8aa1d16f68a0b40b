"""Notifications across instances on PostgreSQL: appends wake listeners, and a row one
instance writes is read afresh by the others."""

from __future__ import annotations

import queue
import time
import uuid
from collections.abc import Callable, Iterator
from typing import TypeVar

import pytest
from sqlalchemy import Engine, text

from infra.botstate import BotState
from infra.db import make_engine
from infra.event_store import EventStore, NewEvent
from infra.notifications import RESET, Listener, Notice, listener

T = TypeVar("T")


def wait_for(condition: Callable[[], T], timeout: float = 5.0) -> T:
    limit = time.monotonic() + timeout
    while not (value := condition()):
        if time.monotonic() > limit:
            raise AssertionError(f"not within {timeout} s: {condition}")
        time.sleep(0.01)
    return value


@pytest.fixture
def engines(postgres_url: str) -> Iterator[tuple[Engine, Engine]]:
    """Two instances' engines on one database."""
    a, b = make_engine(postgres_url), make_engine(postgres_url)
    yield a, b
    a.dispose()
    b.dispose()


@pytest.fixture
def heard(engines: tuple[Engine, Engine]) -> Iterator[queue.Queue[Notice]]:
    """What instance A's listener hears."""
    notices: queue.Queue[Notice] = queue.Queue()
    started = listener(engines[0], notices.put)
    assert started is not None
    wait_for(started.listening.is_set)
    yield notices
    started.stop()


def next_event(notices: queue.Queue[Notice], game: str) -> tuple[str, int]:
    while True:
        appended = notices.get(timeout=5).appended
        if appended is not None and appended[0] == game:
            return appended


def test_an_append_on_another_instance_notifies_the_game_and_its_version(
    engines: tuple[Engine, Engine], heard: queue.Queue[Notice]
) -> None:
    store = EventStore(engines[1])
    game = f"g-{uuid.uuid4().hex[:8]}"

    store.append(game, 0, [NewEvent("ticked", {"n": 1}), NewEvent("ticked", {"n": 2})])
    store.append(game, 2, [NewEvent("ticked", {"n": 3})])

    assert next_event(heard, game) == (game, 2)
    assert next_event(heard, game) == (game, 3)


def test_an_append_rolled_back_notifies_nobody(
    engines: tuple[Engine, Engine], heard: queue.Queue[Notice]
) -> None:
    store = EventStore(engines[1])
    game = f"g-{uuid.uuid4().hex[:8]}"
    with engines[1].connect() as conn, conn.begin() as transaction:
        store._insert(conn, game, 0, [NewEvent("ticked", {})], {})
        transaction.rollback()

    store.append(game, 0, [NewEvent("ticked", {"n": 1})])

    assert next_event(heard, game) == (game, 1)  # the first notice is the committed one


def test_a_users_start_on_one_instance_is_seen_at_once_by_another(
    engines: tuple[Engine, Engine],
) -> None:
    a, b = BotState(engines[0]), BotState(engines[1])
    user = int(uuid.uuid4().int % 10**9)
    b.save_user(user, "Ann", private_chat=False)
    assert a.user(user) is not None and not a.user(user).private_chat  # type: ignore[union-attr]
    started = listener(engines[0], a.invalidate)
    assert started is not None
    try:
        wait_for(started.listening.is_set)

        b.save_user(user, "Ann", private_chat=True)  # the user's /start, on instance B

        wait_for(lambda: a.user(user).private_chat)  # type: ignore[union-attr]
    finally:
        started.stop()


@pytest.mark.parametrize(
    ("setting", "value"), [("chat_language", "pl"), ("chat_timezone", "Europe/Warsaw")]
)
def test_a_group_setting_chosen_on_one_instance_is_used_by_another(
    engines: tuple[Engine, Engine], setting: str, value: str
) -> None:
    a, b = BotState(engines[0]), BotState(engines[1])
    chat = -int(uuid.uuid4().int % 10**9)
    assert getattr(a, setting)(chat) is None
    started = listener(engines[0], a.invalidate)
    assert started is not None
    try:
        wait_for(started.listening.is_set)
        getattr(b, f"set_{setting}")(chat, value)
        wait_for(lambda: getattr(a, setting)(chat) == value)
    finally:
        started.stop()


def test_a_listener_whose_connection_was_cut_listens_again_and_says_so(
    engines: tuple[Engine, Engine],
) -> None:
    notices: queue.Queue[Notice] = queue.Queue()
    started = listener(engines[0], notices.put)
    assert isinstance(started, Listener)
    try:
        wait_for(started.listening.is_set)
        pid = started.backend_pid()
        with engines[1].connect() as conn:
            conn.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})

        assert notices.get(timeout=10) == RESET  # whatever was missed: look again
        wait_for(lambda: started.backend_pid() not in (None, pid))
        game = f"g-{uuid.uuid4().hex[:8]}"
        wait_for(started.listening.is_set)
        EventStore(engines[1]).append(game, 0, [NewEvent("ticked", {})])
        assert next_event(notices, game) == (game, 1)
    finally:
        started.stop()


def test_on_sqlite_there_is_no_listener(sqlite_url: str) -> None:
    engine = make_engine(sqlite_url)
    try:
        assert listener(engine, print) is None
    finally:
        engine.dispose()
