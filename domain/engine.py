"""The rules engine as one Decider: what the game service runs a game with.

The services take the rules as one object with ``initial_state``, ``decide`` and
``evolve`` (:class:`infra.game_service.Decider`), and tests swap in other modules of the
same shape; this module is that object for the real rules. The functions themselves live
where they are written: :mod:`domain.decide`, :mod:`domain.evolve` and
:mod:`domain.queries`, and code that calls one imports it from there.

>>> from domain.commands import CreateGame, Envelope
>>> fold(decide(initial_state(), Envelope(CreateGame(1, "Ann", "base", chat_id=5)))).phase
'lobby'
"""

from __future__ import annotations

from domain.decide import decide, execute
from domain.evolve import evolve, fold, initial_state
from domain.queries import is_terminal

__all__ = ["decide", "evolve", "execute", "fold", "initial_state", "is_terminal"]
