"""Stored events of retired types, read as the events that replaced them.

A stored event is never rewritten: a payload stored under a type the codec no longer
writes is turned, each time it is read, into the type and payload of today's event that
tells the same fact (:func:`retyped`, applied by :func:`domain.codec.decode` and by the
read models that read payloads raw). Upcasters that only reshape a payload within one
type are :data:`domain.codec.UPCASTERS`.

``action_played`` (one event for every action card, its kind in ``action``) became one
event per kind of card (:class:`~domain.events.ToolBroken`, ...):

>>> retyped("action_played", {"player": 1, "card": 40, "action": "map",
...     "target_player": None, "target_cell": [8, 2], "tool": None, "result": "goal_treasure"})
('map_looked', {'player': 1, 'card': 40, 'cell': [8, 2], 'kind': 'goal_treasure'})
>>> retyped("path_placed", {"player": 1})
('path_placed', {'player': 1})
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from domain.cards import BREAKS, REPAIRS, Action

Json = Any
Payload = dict[str, Json]
Retyper = Callable[[Payload], tuple[str, Payload]]


def _action_played(p: Payload) -> tuple[str, Payload]:
    """``action_played`` (stored until the finer action events) as the event of its kind."""
    action = Action(p["action"])
    played = {"player": p["player"], "card": p["card"]}
    target, cell, result = p.get("target_player"), p.get("target_cell"), p.get("result")
    if action in BREAKS:
        return "tool_broken", {**played, "target": target, "tool": BREAKS[action].value}
    if action in REPAIRS:
        return "tool_repaired", {**played, "target": target, "tool": p["tool"]}
    match action:
        case Action.ROCKFALL:
            return "rockfall_played", {**played, "cell": cell}
        case Action.MAP:
            return "map_looked", {**played, "cell": cell, "kind": result}
        case Action.INSPECTION:
            return "role_inspected", {**played, "target": target, "role": result}
        case Action.SWAP_HAND:
            return "hands_swapped", {**played, "target": target}
        case Action.SWAP_HATS:
            return "hats_swapped", {**played, "target": target, "role": result}
        case Action.THEFT:
            return "theft_planned", played
        case Action.HANDS_OFF:
            return "theft_stopped", {**played, "target": target}
        case Action.TRAPPED:
            return "player_imprisoned", {**played, "target": target}
        case Action.FREE_AT_LAST:
            return "player_freed", {**played, "target": target}
    raise ValueError(f"action_played: unknown action {p['action']!r}")  # pragma: no cover


RETIRED: Final[dict[str, Retyper]] = {"action_played": _action_played}
"""Retired stored type name -> its payload as (today's type name, payload)."""


def retyped(type_name: str, payload: Payload) -> tuple[str, Payload]:
    """The type and payload today's codec reads for an event stored as ``type_name``
    (unchanged unless the type is retired); ``payload`` is not modified."""
    step = RETIRED.get(type_name)
    return step(payload) if step is not None else (type_name, payload)


__all__ = ["RETIRED", "retyped"]
