"""What handlers reach: the services behind the bot, through a typed custom context.

No globals: :func:`tgbot.telegram.app.build_application` puts one :class:`BotServices` in the
application's ``bot_data`` and every handler gets it as ``context.services``. Nothing about
a game is kept in ``chat_data``, ``user_data`` or the job queue: the event log is the truth.
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import hmac
from dataclasses import dataclass, field
from typing import Any

from telegram import Bot
from telegram.ext import Application, CallbackContext, ExtBot

from domain.state import GameState
from infra.achievements import Achievements
from infra.actions import Actions
from infra.actions import WakeUp as WakeUp  # (where the adapter knew it)
from infra.bootstrap import Services
from infra.botstate import BotState
from infra.event_store import EventStore
from infra.game_end import GameEnd
from infra.game_history import GameHistory
from infra.game_index import ACTIVE, GameIndex
from infra.game_service import GameService
from infra.lru import LRU
from infra.memory import FreeMemory
from infra.projector import Projector
from infra.ratelimit import RateLimiter
from infra.ratings import Ratings, previous_season, season_of
from infra.topics import ForumTopics
from tgbot.delivery.languages import Languages
from tgbot.delivery.outbox import Outbox
from tgbot.delivery.photos import PhotoCache
from tgbot.delivery.places import GamePlaces
from tgbot.presenter.audience import Table
from tgbot.presenter.callback import keys_from_secrets
from tgbot.presenter.texts import Texts
from tgbot.presenter.zones import zone
from tgbot.telegram.edits import ShownEdits
from tgbot.telegram.membership import Memberships
from tgbot.telegram.throttle import Throttle, limits_of, throttle_for

SERVICES_KEY = "services"
CACHED_TITLES = 2048  # games whose group's title is kept in memory


@dataclass(frozen=True, eq=False)
class BotServices:
    """The bot's ports, each set when the bot is composed (:func:`compose`): the game
    service and event store, the adapter's own state, the outbox on the bot's
    :class:`~telegram.Bot`, and the wake-up set when events were appended
    (:class:`WakeUp`)."""

    service: GameService
    store: EventStore
    botstate: BotState
    projector: Projector
    # The games read model's lookups (a chat's open games, a player's, where one was opened).
    index: GameIndex
    # What the bot heard of forum topics (names, closed or not); on the store's database.
    topics: ForumTopics
    languages: Languages
    places: GamePlaces  # each game's group and topic (the outbox's places)
    # Buttons are signed with the first key and accepted with any (SECRET_KEY rotation).
    callback_keys: tuple[bytes, ...]
    photos: PhotoCache
    shown: ShownEdits
    outbox: Outbox
    throttle: Throttle | None
    memory: FreeMemory  # gives the C heap's free memory back as games end
    # Set when events were appended (the announcer waits on it, the Mini App follows it).
    wake: WakeUp
    # A player's moves and any other command, checked and played in one trip (waking
    # ``wake`` when one counted): the one road of what a player asks of a game.
    actions: Actions
    ratings: Ratings  # the ratings read model's questions
    achievements: Achievements  # the achievements read model's questions
    history: GameHistory  # the history read models' questions
    game_end: GameEnd  # the ratings and achievements brought up to a game's end
    members: Memberships = field(default_factory=Memberships)
    miniapp_name: str = ""  # the Mini App's short name and page (empty: no buttons to it)
    miniapp_url: str = ""
    _titles: LRU[str, tuple[str, str]] = field(default_factory=lambda: LRU(CACHED_TITLES))

    @property
    def default_language(self) -> str:
        return self.languages.default

    @property
    def limiter(self) -> RateLimiter | None:
        """What paces the outbox's calls to Telegram's limits (shared by the instances on
        Redis); None: nothing does."""
        return self.outbox.limiter

    @property
    def bot_username(self) -> str:
        """The bot's @name, known once its bot is initialized (Telegram's getMe): ""
        before."""
        try:
            return self.outbox.bot.username or ""
        except RuntimeError:  # (not initialized yet)
            return ""

    @property
    def callback_key(self) -> bytes:
        """The key new buttons are signed with."""
        return self.callback_keys[0]

    # -- games -------------------------------------------------------------------

    def load(self, game_id: str) -> tuple[GameState, int]:
        loaded = self.service.load(game_id)
        return loaded.state, loaded.version

    def active_game(self, chat_id: int, topic: int | None = None) -> str | None:
        """The chat's game in the lobby or being played (the ``games`` read model): in a
        forum, the one of ``topic`` (None: of General, or of a chat without topics)."""
        found = self.running_games(chat_id, topic)
        return found[0][0] if found else None

    def running_games(
        self, chat_id: int, topic: int | None = None, *, every: bool = False
    ) -> list[tuple[str, int | None]]:
        """The chat's games in the lobby or being played, newest first, each with its
        forum topic: the one of ``topic`` (None: of General, or of a chat without topics);
        ``every``: those of every topic and General."""
        chats = [chat_id, *self.botstate.chats_migrated_to(chat_id)]
        return self.index.open_games(chats, topic, every=every)

    def games_of(self, user_id: int, statuses: tuple[str, ...] = ("playing",)) -> list[str]:
        """The games being played (or in ``statuses``) with ``user_id`` seated, newest
        first."""
        return self.index.games_seating(user_id, statuses)

    def open_games_of(self, user_id: int) -> int:
        """In how many games ``user_id`` is seated, lobbies and running games alike."""
        return len(self.games_of(user_id, ACTIVE))

    def forget_game(self, game_id: str) -> None:
        """The game ended: what memory holds of it goes (all of it can be read again)."""
        self.service.forget(game_id)
        self.botstate.forget_game(game_id)
        self._titles.pop(game_id, None)
        self.places.forget(game_id)
        self.memory.release()  # and what the C heap keeps free meanwhile goes back

    def next_game_id(self, chat_id: int, topic: int | None = None) -> str:
        """A short id (12 characters at most, as callback data requires) that two racing
        ``/newgame`` in the same chat (and forum topic) compute alike, so only one of them
        can create the game."""
        count = self.index.games_opened_in(chat_id, topic)
        return game_id_for(chat_id, count + 1, self.callback_key, topic)

    # -- forum topics (the outbox's places) ---------------------------------------

    def game_place(self, game_id: str) -> tuple[int, int | None]:
        """The game's group (its id now) and the forum topic it was opened in."""
        return self.places.game_place(game_id)

    def topic_open(self, chat_id: int, topic: int) -> bool:
        return self.places.topic_open(chat_id, topic)

    def topic_lost(self, chat_id: int, topic: int, state: str) -> None:
        self.places.topic_lost(chat_id, topic, state)

    def topic_name(self, chat_id: int, topic: int | None) -> str:
        """The topic's name as the bot heard it ("": never heard, or no topic)."""
        return self.places.topic_name(chat_id, topic)

    def moved_notice(self, game_id: str, chat_id: int, topic: int) -> str:
        """Told in General once the game's topic is closed or deleted (HTML)."""
        return self.places.moved_notice(game_id, chat_id, topic)

    def topic_opened(self, chat_id: int, topic: int, name: str | None = None) -> None:
        self.places.topic_opened(chat_id, topic, name)

    def zone(self, chat_id: int) -> dt.tzinfo:
        """The time zone the group shows times in (UTC unless it chose one)."""
        botstate = self.botstate
        return zone(botstate.chat_timezone(botstate.resolve_chat(chat_id)))

    def game_title(self, game_id: str) -> str:
        """The title the game's group had when the game was opened ("" if unknown)."""
        return self._opening(game_id)[0]

    def group_username(self, game_id: str) -> str:
        """The public @name the game's group had when the game was opened ("": none)."""
        return self._opening(game_id)[1]

    def _opening(self, game_id: str) -> tuple[str, str]:
        """The group's title and public name, as the game's first event recorded them."""
        found = self._titles.get(game_id)
        if found is None:
            found = self._titles[game_id] = self.index.opened_in(game_id)
        return found

    def table(self, game_id: str, state: GameState) -> Table:
        """What the presenter addresses the game's messages with: its group's chat, title,
        language and time zone, its players' languages, the bot's name, the clock's now."""
        chat = self.botstate.resolve_chat(state.chat_id)
        now = int(self.service.clock_ms())
        # A lobby names the group's champion of the last season (none in practice).
        last_season = ""
        champions: dict[str, str] = {}
        if state.phase == "lobby" and not state.practice:
            last_season = previous_season(season_of(dt.datetime.fromtimestamp(now / 1000, dt.UTC)))
            champions = self.ratings.group_champions(chat, last_season)
        return Table(
            game_id,
            chat,
            now,
            title=self.game_title(game_id),
            topic_name=self.topic_name(chat, state.topic),
            group_username=self.group_username(game_id),
            group_language=self.texts_for_chat(chat, topic=state.topic).lang,
            languages={p: self.texts_for_user(p).lang for p in state.seating},
            tz=self.botstate.chat_timezone(chat) or "UTC",
            bot_username=self.bot_username,
            miniapp_name=self.miniapp_name,
            miniapp_url=self.miniapp_url,
            practice=state.practice,
            last_season=last_season,
            champions=champions,
        )

    def texts_for_user(self, user_id: int, telegram_language: str | None = None) -> Texts:
        return self.languages.texts_for_user(user_id, telegram_language)

    def texts_for_chat(
        self, chat_id: int, telegram_language: str | None = None, topic: int | None = None
    ) -> Texts:
        """A group's language: in a forum ``topic`` with its own language, that one;
        else the group's choice, else its last game's creator's, else the language of
        whoever wrote (``telegram_language``), else the default."""
        return self.languages.texts_for_chat(chat_id, telegram_language, topic)


def compose(services: Services, bot: Bot, *, limiter: RateLimiter | None = None) -> BotServices:
    """The adapter's services on the composition root's (:func:`infra.bootstrap.bootstrap`),
    talking to Telegram as ``bot`` (its outbox's; ``limiter``: what paces its calls)."""
    settings = services.settings
    languages = Languages(services.botstate, services.topics, settings.default_language)
    places = GamePlaces(services.games, services.botstate, services.topics, languages)
    keys = keys_from_secrets(settings.secrets)
    photos = PhotoCache()
    shown = ShownEdits(settings.redis_url)
    outbox = Outbox(bot, services.botstate, photos, keys[0], shown, limiter=limiter, places=places)
    throttle = throttle_for(
        settings.redis_url,
        limits_of(
            settings.throttle_presses, settings.throttle_chat_presses, settings.throttle_seconds
        ),
        enabled=bool(settings.throttle_presses or settings.throttle_chat_presses),
    )
    wake = WakeUp()
    return BotServices(
        services.games,
        services.store,
        services.botstate,
        services.projector,
        services.index,
        services.topics,
        languages,
        places,
        keys,
        photos,
        shown,
        outbox,
        throttle,
        services.memory,
        wake,
        Actions(services.games, wake.set),
        services.ratings,
        services.achievements,
        services.history,
        services.game_end,
        miniapp_name=settings.miniapp_name,
        miniapp_url=settings.miniapp_url,
    )


def game_id_for(chat_id: int, number: int, key: bytes, topic: int | None = None) -> str:
    """A game's id: the same for the same chat (and forum topic) and number (two racing
    ``/newgame`` compute the same one, so only one creates the game), short enough for a
    button, and keyed by the bot's secret so that nobody can work out a group's next id
    from an earlier one.

    >>> game_id_for(-100123, 1, b"k") == game_id_for(-100123, 1, b"k")
    True
    >>> len({game_id_for(-100123, 2, b"k"), game_id_for(-100123, 1, b"k"),
    ...      game_id_for(-100123, 1, b"other")})
    3
    """
    place = f"{chat_id}" if topic is None else f"{chat_id}/{topic}"
    digest = hmac.new(key, f"game:{place}:{number}".encode(), hashlib.sha256).digest()
    return "g" + base64.urlsafe_b64encode(digest).decode()[:10]


class BotContext(CallbackContext[ExtBot[None], dict[Any, Any], dict[Any, Any], dict[Any, Any]]):
    """The context every handler receives."""

    def __init__(
        self,
        application: Application[Any, Any, Any, Any, Any, Any],
        chat_id: int | None = None,
        user_id: int | None = None,
    ) -> None:
        super().__init__(application=application, chat_id=chat_id, user_id=user_id)
        # Read once per update: a handler reads its services, never asks back for them.
        self.services: BotServices = application.bot_data[SERVICES_KEY]
