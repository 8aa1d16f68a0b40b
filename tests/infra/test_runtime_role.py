"""Least privilege on PostgreSQL: ``saboteur-bot migrate`` runs as the owner
(MIGRATION_DATABASE_URL) and grants the runtime role (DATABASE_URL) what the processes
need; as that role the whole service works, and history cannot be rewritten."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import create_engine, func, select, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError

from domain.commands import CreateGame, JoinGame, StartGame
from domain.events import DecisionTimedOut
from infra import deadlines, tasks
from infra.bootstrap import bootstrap
from infra.event_store import EventStore, NewEvent
from infra.schema import events, games
from infra.settings import load_settings
from tests.conftest import _admin_url
from tests.tgbot.test_e2e_games import play_game
from tgbot import cli

pytestmark = pytest.mark.timeout(240)
INSUFFICIENT_PRIVILEGE = "42501"


@dataclass(frozen=True)
class Roles:
    owner_url: str
    runtime_url: str
    role: str


@pytest.fixture
def roles(empty_database: Callable[[str], str], monkeypatch: pytest.MonkeyPatch) -> Iterator[Roles]:
    """A new database migrated by ``saboteur-bot migrate`` as its owner, which made and
    granted the runtime role DATABASE_URL names."""
    owner_url = empty_database("postgres")
    role = f"saboteur_runtime_{uuid.uuid4().hex[:8]}"
    runtime_url = (
        make_url(owner_url)
        .set(username=role, password=f"pw-{uuid.uuid4().hex}")
        .render_as_string(hide_password=False)
    )
    monkeypatch.setenv("MIGRATION_DATABASE_URL", owner_url)
    monkeypatch.setenv("DATABASE_URL", runtime_url)
    try:
        assert cli.main(["migrate"]) == 0
        yield Roles(owner_url, runtime_url, role)
    finally:
        owner = create_engine(owner_url)
        with owner.begin() as conn:
            conn.execute(text(f'DROP OWNED BY "{role}"'))
        owner.dispose()
        admin = create_engine(_admin_url(), isolation_level="AUTOCOMMIT")
        with admin.connect() as conn:
            conn.execute(text(f'DROP ROLE IF EXISTS "{role}"'))
        admin.dispose()


def test_migrate_twice_grants_the_same_and_names_the_role(
    roles: Roles, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["migrate"]) == 0
    said = capsys.readouterr().out
    assert f"runtime role '{roles.role}' granted" in said
    assert "may read and append events, processed_commands" in said


ATTACKS = {
    "update": "UPDATE events SET type = 'forged'",
    "delete": "DELETE FROM events",
    "truncate": "TRUNCATE events",
    "disable triggers": "ALTER TABLE events DISABLE TRIGGER ALL",
    "alter": "ALTER TABLE events ADD COLUMN forged integer",
    "drop trigger": "DROP TRIGGER events_no_update_or_delete ON events",
    "drop": "DROP TABLE events",
    "update commands": "UPDATE processed_commands SET last_version = 0",
    "delete commands": "DELETE FROM processed_commands",
    "rewrite the schema's version": "UPDATE alembic_version SET version_num = '0001'",
}


@pytest.mark.parametrize("attack", list(ATTACKS))
def test_the_runtime_role_cannot_rewrite_history(roles: Roles, attack: str) -> None:
    runtime = create_engine(roles.runtime_url)
    try:
        store = EventStore(runtime)
        store.append("game-1", 0, [NewEvent("GameCreated", {"n": 1})], idempotency_key="k")
        with pytest.raises(DBAPIError) as refused, runtime.begin() as conn:
            conn.execute(text(ATTACKS[attack]))
        assert getattr(refused.value.orig, "sqlstate", None) == INSUFFICIENT_PRIVILEGE
        assert [e.payload for e in store.load("game-1")] == [{"n": 1}]
    finally:
        runtime.dispose()
    owner = create_engine(roles.owner_url)
    try:
        with owner.connect() as conn:
            assert conn.execute(select(func.count()).select_from(events)).scalar() == 1
            triggers = conn.execute(
                text(
                    "SELECT count(*) FROM pg_trigger WHERE tgrelid = 'events'::regclass "
                    "AND NOT tgisinternal AND tgenabled = 'O'"
                )
            ).scalar()
            assert triggers and triggers >= 2
    finally:
        owner.dispose()


@pytest.mark.slow
async def test_the_bot_plays_a_whole_game_as_the_runtime_role(roles: Roles) -> None:
    # The game service, the projector, the announcer, the bot's state, the outbox, the
    # claims, the history and the replay button, all as the runtime role; at a table of
    # three languages (the group speaks the first one's), read as each player reads it.
    # Some forty presses, then the game played to its end through the game service (a
    # whole game of presses is tests/tgbot/test_transcripts.py's).
    api = await play_game(
        roles.runtime_url, "base", 3, seed=11, langs=("es", "pl", "en"), brisk=True, presses=40
    )
    assert api.calls_of("editMessageMedia")
    assert cli.main(["projections", "rebuild"]) == 0  # DATABASE_URL: the runtime role
    runtime = create_engine(roles.runtime_url)
    try:
        with runtime.connect() as conn:
            assert conn.execute(select(games.c.status)).scalar() == "ended"
    finally:
        runtime.dispose()


def test_deadlines_are_swept_and_fired_as_the_runtime_role(roles: Roles) -> None:
    services = bootstrap(load_settings(database_url=roles.runtime_url))
    runtime = tasks.runtime_from(services)
    tasks.configure(runtime)
    try:
        game = "game-deadline"
        at = int((datetime.now(UTC) - timedelta(hours=1)).timestamp() * 1000)
        handle = services.games.handle
        handle(game, CreateGame(1, "Ann", "base", -100, 60), at=at)
        handle(game, JoinGame(2, "Bo"), at=at)
        handle(game, JoinGame(3, "Cy"), at=at)
        handle(game, StartGame(1), at=at, seed=3)
        sent: list[deadlines.Due] = []
        deadlines.sweep(
            services.engine,
            services.store,
            sent.append,
            datetime.now(UTC),
            runtime.lease,
            runtime.lookahead,
            runtime.computer_pause,
        )
        due = next(d for d in sent if d.which == deadlines.TIMEOUT)
        tasks.fire_deadline(due.game_id, due.decision)
        told = services.games.events(game)
        assert any(isinstance(e, DecisionTimedOut) for e in told)
    finally:
        tasks.configure(None)
        services.close()
