"""Which language the bot speaks to a person, a group and a forum topic."""

from __future__ import annotations

from infra.botstate import BotState
from infra.topics import ForumTopics
from tgbot.presenter.i18n import pick_language
from tgbot.presenter.texts import Texts


class Languages:
    """The people's and the groups' chosen languages, on the bot's state and the forum
    topics heard of, with ``default`` (DEFAULT_LANGUAGE) when nothing else tells."""

    def __init__(self, botstate: BotState, topics: ForumTopics, default: str = "en") -> None:
        self.botstate = botstate
        self.topics = topics
        self.default = default

    def texts_for_user(self, user_id: int, telegram_language: str | None = None) -> Texts:
        user = self.botstate.user(user_id)
        chosen = user.language if user is not None else None
        return Texts(pick_language(chosen, telegram_language, self.default))

    def texts_for_chat(
        self, chat_id: int, telegram_language: str | None = None, topic: int | None = None
    ) -> Texts:
        """A group's language: in a forum ``topic`` with its own language, that one;
        else the group's choice, else its last game's creator's, else the language of
        whoever wrote (``telegram_language``), else the default."""
        if topic is not None:
            own = self.topics.language(chat_id, topic)
            if own is not None:
                return Texts(pick_language(own, self.default))
        chosen, learned = self.botstate.chat_languages(chat_id)
        return Texts(pick_language(chosen, learned, telegram_language, self.default))
