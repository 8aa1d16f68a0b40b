"""What the operator's commands do to the database beside migrating it: grant the runtime
role, rebuild the read models, verify the hash chains.

``saboteur-bot`` (:mod:`tgbot.cli`) parses the command line and prints; the connections
are made, used and closed here.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from infra.achievements import AchievementsProjector
from infra.bootstrap import bootstrap
from infra.chain import Break
from infra.db import make_engine
from infra.deadlines import rebuild as rebuild_deadlines
from infra.event_store import EventStore
from infra.history import HistoryProjector
from infra.migrations import require_current
from infra.ratings import RatingsProjector
from infra.roles import Granted, grant_runtime_role, runtime_role_of
from infra.settings import Settings


def grant_runtime(settings: Settings) -> Granted | None:
    """When DATABASE_URL names another role than MIGRATION_DATABASE_URL, grant it what the
    processes need, as the owner (None: it names the same: nothing to grant)."""
    runtime = runtime_role_of(settings.database_url, settings.migration_url)
    if runtime is None:
        return None
    engine = make_engine(settings.migration_url)
    try:
        with engine.begin() as conn:
            return grant_runtime_role(conn, *runtime)
    finally:
        engine.dispose()


def rebuild_read_models(settings: Settings) -> int:
    """Rebuild every read model from the log (games, statistics, history, ratings,
    achievements, deadlines); how many events were read. The store is the running bot's,
    so it upcasts alike."""
    services = bootstrap(settings)
    try:
        require_current(services.engine)
        count = services.projector.rebuild()
        HistoryProjector(services.engine, services.store).rebuild()
        RatingsProjector(services.engine, services.store).rebuild()
        AchievementsProjector(services.engine, services.store).rebuild()
        pause = timedelta(seconds=services.settings.computer_pause_seconds)
        rebuild_deadlines(services.engine, services.store, pause)
    finally:
        services.close()
    return count


@dataclass(frozen=True, slots=True)
class Verified:
    """What :func:`verify_chains` checked (``checked``, in words) and the breaks it found."""

    checked: str
    breaks: list[Break]


def verify_chains(url: str, game_id: str | None = None) -> Verified | None:
    """Check the hash chain of ``game_id``'s events, or of every stream (None: there is
    no such game). The events as stored: the chains seal those, not their upcasts."""
    engine = make_engine(url)
    try:
        require_current(engine)
        store = EventStore(engine)
        if game_id is None:
            result = store.verify_all()
            return Verified(f"{result.streams} streams, {result.events} events", result.breaks)
        if store.version(game_id) == 0:
            return None
        found = store.verify(game_id)
        checked = f"game {game_id!r} ({store.version(game_id)} events)"
        return Verified(checked, [] if found is None else [found])
    finally:
        engine.dispose()
