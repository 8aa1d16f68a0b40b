"""The composition root: the one place that wires settings, database, store and rules,
and the state every process keeps beside the log (the bot's chats and messages, the forum
topics heard of, the games read model's lookups).

Every process starts here: the bot (:func:`tgbot.telegram.app.build_application` composes the
adapter's services from these), the web process, the Celery worker, the demo, the
commands, the test harnesses and the benchmarks. Tests call the same function with fakes
(``decider=``, ``codec=``, ``clock_ms=``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import cast

from sqlalchemy import Engine

from domain import codec as domain_codec
from domain import engine as domain_engine
from infra.achievements import Achievements
from infra.botstate import BotState
from infra.db import make_engine
from infra.event_store import EventStore, Upcasters
from infra.game_end import GameEnd
from infra.game_history import GameHistory
from infra.game_index import GameIndex
from infra.game_service import Codec, Decider, GameService, now_ms, random_seed
from infra.memory import FreeMemory, limit_arenas
from infra.projector import Projector
from infra.ratings import Ratings
from infra.settings import Settings, load_settings
from infra.topics import ForumTopics


@dataclass(frozen=True, slots=True)
class Services:
    settings: Settings
    engine: Engine
    store: EventStore
    games: GameService
    projector: Projector
    botstate: BotState  # the bot's users, chats and the messages it keeps up to date
    topics: ForumTopics  # what the bot heard of forum topics
    index: GameIndex  # the games read model's lookups
    memory: FreeMemory  # gives the C heap's free memory back now and then
    ratings: Ratings  # the ratings read model's questions
    achievements: Achievements  # the achievements read model's questions
    history: GameHistory  # the history read models' questions
    game_end: GameEnd  # the ratings and achievements brought up to a game's end

    def close(self) -> None:
        self.engine.dispose()


def domain_modules() -> tuple[Decider, Codec]:
    """The rules engine's ``domain.engine`` and ``domain.codec`` modules."""
    return cast(Decider, domain_engine), cast(Codec, domain_codec)


def event_store(
    engine: Engine, codec: Codec | None = None, upcasters: Upcasters | None = None
) -> EventStore:
    """The event store every reader uses: it lifts old payloads with the codec's
    ``UPCASTERS`` (or ``upcasters``) up to the codec's ``SCHEMA_VERSION``.

    Without ``codec`` the rules engine's codec is used.
    """
    if codec is None:
        codec = domain_modules()[1]
    if upcasters is None:
        found = getattr(codec, "UPCASTERS", None)
        upcasters = found if isinstance(found, Mapping) else {}
    current = int(getattr(codec, "SCHEMA_VERSION", 1))
    return EventStore(engine, upcasters=upcasters, schema_version=current)


def bootstrap(
    settings: Settings | None = None,
    *,
    decider: Decider | None = None,
    codec: Codec | None = None,
    upcasters: Upcasters | None = None,
    clock_ms: Callable[[], int] = now_ms,
    seeds: Callable[[], int] = random_seed,
    engine: Engine | None = None,
    memory: FreeMemory | None = None,
) -> Services:
    """Build the services. Without ``decider``/``codec`` the real domain is used."""
    limit_arenas()  # before the process starts its threads
    settings = settings or load_settings()
    if decider is None or codec is None:
        real_decider, real_codec = domain_modules()
        decider = decider or real_decider
        codec = codec or real_codec
    engine = engine or make_engine(settings.database_url)
    store = event_store(engine, codec, upcasters)
    games = GameService(
        store,
        decider,
        codec,
        snapshot_every=settings.snapshot_every,
        clock_ms=clock_ms,
        seeds=seeds,
    )
    projector = Projector(engine, store)
    return Services(
        settings,
        engine,
        store,
        games,
        projector,
        BotState(engine),
        ForumTopics(engine),
        GameIndex(engine, projector),
        memory or FreeMemory(),
        Ratings(store),
        Achievements(store),
        GameHistory(store),
        GameEnd(store),
    )
