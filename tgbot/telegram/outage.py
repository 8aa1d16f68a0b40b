"""This instance cut from Telegram: said once when it starts, once when it ends.

While Telegram cannot be reached (a network error, or Telegram's own 5xx), every update
handled fails in the same way; a traceback for each says nothing the first did not. The
first failure is logged as a warning, the rest are counted, and the first answer from
Telegram again ends the outage with one more warning: how long, how many updates failed.
Each failure is also told to those listening (:attr:`Outage.listeners`): the announcer
counts them toward giving its games up (:mod:`tgbot.delivery.announcer`), before any of
its own deliveries failed.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from telegram.error import BadRequest, NetworkError

log = logging.getLogger(__name__)


def unreachable(error: object) -> bool:
    """Whether ``error`` says Telegram could not be reached (not that it refused).

    >>> from telegram.error import BadRequest, NetworkError, TimedOut
    >>> unreachable(TimedOut()), unreachable(NetworkError("Bad Gateway"))
    (True, True)
    >>> unreachable(BadRequest("Message is not modified")), unreachable(ValueError())
    (False, False)
    """
    return isinstance(error, NetworkError) and not isinstance(error, BadRequest)


class Outage:
    """Counts the updates that failed while Telegram was unreachable."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.since: float | None = None
        self.failed = 0
        # Told False at each failure. Not told of answers: this process's every request
        # ends the outage, another bot's too (tests run several in one process); each
        # listener hears its own bot's answers itself.
        self.listeners: list[Callable[[bool], None]] = []

    def failure(self, error: BaseException) -> None:
        """An update failed because Telegram could not be reached."""
        for listener in list(self.listeners):
            listener(False)
        if self.since is None:
            self.since = self.clock()
            log.warning(
                "Telegram unreachable (%s: %s); counting the updates that fail until it answers",
                type(error).__name__,
                error,
            )
        self.failed += 1

    def answered(self) -> None:
        """Telegram answered a call: an outage under way is over."""
        if self.since is None:
            return
        log.warning(
            "Telegram answers again after %.1f s; %d updates failed meanwhile",
            self.clock() - self.since,
            self.failed,
        )
        self.since, self.failed = None, 0


OUTAGE = Outage()  # this process's: every request and update of the bot shares one network
