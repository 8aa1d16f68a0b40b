"""Who belongs to a group, as Telegram says: asked with ``getChatMember`` and remembered
for a short while, in a bounded cache.

A deep link to a lobby and a replay of a group's game are for the group's members: the
bot cannot tell from its own records who is in a group (anyone may have left, anyone may
have been added), so it asks Telegram. The answer is kept ``ttl`` seconds so that stepping
through a replay does not ask again at every press.

>>> members = Memberships(size=2, ttl=60.0, clock=lambda: 0.0)
>>> members.note(-1, 7, True); members.known(-1, 7), members.known(-1, 8)
(True, None)
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any, Final

from telegram.constants import ChatMemberStatus

from infra.lru import LRU
from tgbot.telegram import gateway

log = logging.getLogger(__name__)

SIZE: Final = 4096  # (group, user) answers remembered
TTL: Final = 60.0  # seconds an answer is trusted
INSIDE: Final = (ChatMemberStatus.OWNER, ChatMemberStatus.ADMINISTRATOR, ChatMemberStatus.MEMBER)


class Memberships:
    """Recent answers of ``getChatMember``: (group, user) -> member or not."""

    def __init__(
        self, size: int = SIZE, ttl: float = TTL, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.ttl = ttl
        self.clock = clock
        self._answers: LRU[tuple[int, int], tuple[bool, float]] = LRU(size)

    def known(self, chat_id: int, user_id: int) -> bool | None:
        """What Telegram said lately (None: not asked, or too long ago)."""
        found = self._answers.get((chat_id, user_id))
        if found is None or found[1] <= self.clock():
            return None
        return found[0]

    def note(self, chat_id: int, user_id: int, member: bool) -> None:
        self._answers[(chat_id, user_id)] = (member, self.clock() + self.ttl)

    async def is_member(self, bot: Any, chat_id: int, user_id: int) -> bool:
        """Whether ``user_id`` is in the group ``chat_id`` now (asked of Telegram unless
        known). A group the bot cannot ask about (it left, it was removed) has no members."""
        known = self.known(chat_id, user_id)
        if known is not None:
            return known
        try:
            member = await gateway.chat_member(bot, chat_id, user_id)
        except Exception:  # not asked again for a while: the answer would be the same
            log.info("could not read membership of %s in %s", user_id, chat_id, exc_info=True)
            inside = False
        else:
            inside = is_inside(member)
        self.note(chat_id, user_id, inside)
        return inside


def is_inside(member: Any) -> bool:
    """Whether a ``ChatMember`` is in its chat (a restricted member may be, or not)."""
    status = member.status
    restricted = status == ChatMemberStatus.RESTRICTED
    return status in INSIDE or (restricted and bool(getattr(member, "is_member", False)))
