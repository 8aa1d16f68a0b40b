"""Where a game's group messages go (the outbox's places): the group it was opened in
(its id now) and its forum topic, while that topic is open; else General, told once."""

from __future__ import annotations

from infra.botstate import BotState
from infra.game_service import GameService
from infra.lru import LRU
from infra.topics import DELETED, OPEN, ForumTopics
from tgbot.delivery.languages import Languages
from tgbot.presenter.texts import esc

CACHED_PLACES = 4096  # games whose chat and forum topic are kept in memory


class GamePlaces:
    """The games' groups and topics, and what the bot heard of the topics."""

    def __init__(
        self,
        service: GameService,
        botstate: BotState,
        topics: ForumTopics,
        languages: Languages,
    ) -> None:
        self.service = service
        self.botstate = botstate
        self.topics = topics
        self.languages = languages
        # Each game's chat (as it was opened) and topic: set by its first event, never changed.
        self._places: LRU[str, tuple[int, int | None]] = LRU(CACHED_PLACES)

    def game_place(self, game_id: str) -> tuple[int, int | None]:
        """The game's group (its id now) and the forum topic it was opened in."""
        found = self._places.get(game_id)
        if found is None:
            state = self.service.load(game_id).state
            found = (state.chat_id, state.topic)
            if state.phase != "new":  # (a game not yet created has no place yet)
                self._places[game_id] = found
        return self.botstate.resolve_chat(found[0]), found[1]

    def forget(self, game_id: str) -> None:
        """The game ended: its place is read again should it be asked for."""
        self._places.pop(game_id, None)

    def topic_open(self, chat_id: int, topic: int) -> bool:
        return self.topics.topic(chat_id, topic).open

    def topic_lost(self, chat_id: int, topic: int, state: str) -> None:
        self.topics.learn(chat_id, topic, state=state)

    def topic_opened(self, chat_id: int, topic: int, name: str | None = None) -> None:
        self.topics.learn(chat_id, topic, name=name, state=OPEN)

    def topic_name(self, chat_id: int, topic: int | None) -> str:
        """The topic's name as the bot heard it ("": never heard, or no topic)."""
        return "" if topic is None else self.topics.topic(chat_id, topic).name

    def moved_notice(self, game_id: str, chat_id: int, topic: int) -> str:
        """Told in General once the game's topic is closed or deleted (HTML)."""
        texts = self.languages.texts_for_chat(chat_id)
        name = self.topic_name(chat_id, topic)
        named = (
            texts.t("bot.group_named", title=esc(name))
            if name
            else texts.t("forum.topic_number", number=topic)
        )
        gone = self.topics.topic(chat_id, topic).state == DELETED
        return texts.t("forum.deleted" if gone else "forum.moved", topic=named)
