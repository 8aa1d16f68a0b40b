"""The bot's own state on SQLite and PostgreSQL: how far the announcer got along the log
(announced_positions) and its per-game claims (announced_games), which keep two bot
instances from announcing anything twice."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from sqlalchemy.engine import Connection

from infra.botstate import BotState, BotUser, StoredMessage
from infra.db import make_engine


@pytest.fixture
def states(fresh_db_url: str) -> Iterator[tuple[BotState, BotState]]:
    """Two instances' views of one database."""
    engine = make_engine(fresh_db_url)
    yield BotState(engine), BotState(engine)
    engine.dispose()


def test_a_game_is_claimed_by_one_writer_only(states: tuple[BotState, BotState]) -> None:
    first, second = states
    assert first.claim_game("g1", None, 5)
    assert not second.claim_game("g1", None, 5)
    assert not second.claim_game("g1", 4, 6)
    assert second.claim_game("g1", 5, 8)
    assert not first.claim_game("g1", 5, 9)
    assert first.game_versions(["g1", "g2"]) == {"g1": 8}


def test_the_position_only_moves_forward(states: tuple[BotState, BotState]) -> None:
    first, second = states
    first.save_position(10)
    second.save_position(7)  # a late writer
    assert first.position() == 10
    second.save_position(12)
    assert first.position() == 12


@pytest.fixture
def state(fresh_db_url: str) -> Iterator[BotState]:
    engine = make_engine(fresh_db_url)
    yield BotState(engine)
    engine.dispose()


def read_while_writing(state: BotState, read: Callable[[], object]) -> list[object]:
    """Make every write of ``state`` run ``read`` (another handler's read, in effect) after
    its statements and before it commits; returns what those reads saw."""
    seen: list[object] = []
    begin = state._write

    @contextlib.contextmanager
    def write() -> Iterator[Connection]:
        with begin() as conn:
            yield conn
            seen.append(read())

    state._write = write  # type: ignore[method-assign]
    return seen


def test_a_user_read_while_their_change_commits_does_not_bring_the_old_one_back(
    state: BotState,
) -> None:
    state.save_user(7, "Ann", language="en", private_chat=False)
    assert state.user(7) == BotUser(7, "Ann", "en", False)
    read_while_writing(state, lambda: state.user(7))

    state.save_user(7, "Ann B", private_chat=True)

    assert state.user(7) == BotUser(7, "Ann B", "en", True)


def test_a_chat_read_while_its_language_changes_does_not_bring_the_old_one_back(
    state: BotState,
) -> None:
    state.set_chat_language(-5, "es")
    state.set_chat_language(-6, "pl")
    assert state.chat_language(-5) == "es"
    read_while_writing(state, lambda: (state.chat_language(-5), state.chat_language(-6)))

    state.set_chat_language(-5, "pl")

    assert state.chat_language(-5) == "pl"
    assert state.chat_language(-6) == "pl"


def test_a_chat_followed_while_it_migrates_leads_to_the_supergroup(state: BotState) -> None:
    assert state.resolve_chat(-5) == -5
    read_while_writing(state, lambda: state.resolve_chat(-5))

    state.set_migrated(-5, -1005)

    assert state.resolve_chat(-5) == -1005


def test_a_groups_time_zone_and_subscribers_go_with_it_when_it_becomes_a_supergroup(
    state: BotState,
) -> None:
    state.set_chat_timezone(-5, "Europe/Warsaw")
    state.subscribe(-5, 7, True)
    state.subscribe(-5, 8, True)

    state.set_migrated(-5, -1005)

    assert state.chat_timezone(-1005) == "Europe/Warsaw"
    assert state.subscribers(-1005) == state.subscribers(-5) == [7, 8]
    state.subscribe(-1005, 7, False)  # unsubscribed under the new id: gone under both
    assert state.subscribers(-5) == [8] and not state.subscribed(-5, 7)
    state.subscribe(-5, 7, True)  # subscribed under the old id: once, under the new one
    assert state.subscribers(-1005) == [8, 7]


class Forgetful(dict[Any, Any]):
    """A cache another thread clears the moment anything is put in it."""

    def __setitem__(self, key: Any, value: Any) -> None:
        pass

    def setdefault(self, key: Any, default: Any = None) -> Any:
        return default


def test_a_cache_cleared_by_another_thread_meanwhile_still_answers(state: BotState) -> None:
    state.set_chat_language(-5, "es")
    state.save_message("g1", -5, "board", 42, 3)
    state._chat_languages = Forgetful()
    state._messages = Forgetful()
    state._resolved = Forgetful()
    state._users = Forgetful()

    assert state.chat_languages(-5) == ("es", None)
    assert state.message("g1", -5, "board") == StoredMessage(42, 3)
    assert state.resolve_chat(-5) == -5
    assert state.user(1) is None


def test_the_caches_keep_only_the_rows_used_last_and_read_the_others_again(
    fresh_db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import infra.botstate

    monkeypatch.setattr(infra.botstate, "CACHED_USERS", 10)
    monkeypatch.setattr(infra.botstate, "CACHED_MESSAGES", 10)
    engine = make_engine(fresh_db_url)
    try:
        state = BotState(engine)
        for user in range(1, 101):
            state.save_user(user, f"U{user}", language="en")
            state.save_message(f"g{user}", -1, "board", user, 1)
            assert state.user(user) is not None
            assert state.message(f"g{user}", -1, "board") is not None

        assert len(state._users) == 10 and len(state._messages) == 10
        first = state.user(1)  # forgotten, read again
        assert first is not None and first.name == "U1"
        board = state.message("g1", -1, "board")
        assert board == StoredMessage(1, 1)
    finally:
        engine.dispose()
