"""Events and commands to JSON-safe payloads and back, with stable type names.

A payload is a dict of JSON values; tuples become lists and come back as tuples (cells
included), enums travel as their value. Stored events carry ``SCHEMA_VERSION``; an old
payload is brought up to date by :data:`UPCASTERS` before it is decoded, and an event
stored under a retired type is read as today's event for it (:mod:`domain.upcasting`).

A command in its envelope is its payload with the envelope's ``at`` and ``seed`` beside
the fields, the form commands had when they carried these themselves; an old payload
whose nested move carries them too is read the same (a move is decided with its
envelope's clock and chance).

>>> from domain.events import PathPlaced
>>> name, payload = encode(PathPlaced(1, 12, (3, -1), True))
>>> name, payload
('path_placed', {'player': 1, 'card': 12, 'cell': [3, -1], 'rotated': True})
>>> decode(name, payload) == PathPlaced(1, 12, (3, -1), True)
True
"""

from __future__ import annotations

import dataclasses
import types
from collections.abc import Callable
from enum import Enum
from typing import Any, Final, Literal, Union, get_args, get_origin, get_type_hints

from domain.commands import Command, Envelope
from domain.events import Event
from domain.upcasting import retyped

SCHEMA_VERSION: Final = 1
_NESTED: Final = "command"  # the type name of a command nested in another
_STAMPS: Final = ("at", "seed")  # an envelope's fields beside its command's

Json = Any  # str | int | float | bool | None | list[Json] | dict[str, Json]
Upcaster = Callable[[dict[str, Json]], dict[str, Json]]


def _members(union: object) -> tuple[type, ...]:
    return tuple(get_args(union))


EVENT_TYPES: Final[dict[str, type]] = {str(vars(cls)["TYPE"]): cls for cls in _members(Event)}
COMMAND_TYPES: Final[dict[str, type]] = {cls.__name__: cls for cls in _members(Command)}

# (type name, version the payload was written with) -> function returning the next
# version's payload. Example: a field added with a default in version 2 needs no upcaster;
# a field renamed does: UPCASTERS[("path_placed", 1)] = lambda p: {**p, "new": p.pop("old")}.
UPCASTERS: dict[tuple[str, int], Upcaster] = {}

_HINTS: dict[type, dict[str, Any]] = {}


def _hints(cls: type) -> dict[str, Any]:
    hints = _HINTS.get(cls)
    if hints is None:
        hints = get_type_hints(cls)
        _HINTS[cls] = hints
    return hints


def _to_json(value: object) -> Json:
    if isinstance(value, Enum):
        return value.value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        # A command inside a command (the computer's move): tagged with its type name.
        return {_NESTED: type(value).__name__, **_encode(value)}
    if isinstance(value, tuple | list):
        return [_to_json(v) for v in value]
    return value


def _from_json(hint: Any, value: Json) -> Any:
    if value is None:
        return None
    origin = get_origin(hint)
    if isinstance(value, dict) and _NESTED in value:
        fields = {k: v for k, v in value.items() if k != _NESTED}
        return decode_command(str(value[_NESTED]), fields)
    if origin is Union or origin is types.UnionType:
        options = [a for a in get_args(hint) if a is not type(None)]
        if len(options) == 1:
            return _from_json(options[0], value)
        return value
    if origin is tuple:
        args = get_args(hint)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_from_json(args[0], v) for v in value)
        return tuple(_from_json(a, v) for a, v in zip(args, value, strict=True))
    if origin is Literal:
        return value
    if isinstance(hint, type) and issubclass(hint, Enum):
        return hint(value)
    return value


def _encode(obj: object) -> dict[str, Json]:
    return {f.name: _to_json(getattr(obj, f.name)) for f in dataclasses.fields(obj)}  # type: ignore[arg-type]


def _decode(cls: type, payload: dict[str, Json]) -> Any:
    hints = _hints(cls)
    names = {f.name for f in dataclasses.fields(cls)}
    unknown = set(payload) - names
    if unknown:
        raise ValueError(f"{cls.__name__}: unknown fields {sorted(unknown)}")
    return cls(**{k: _from_json(hints[k], v) for k, v in payload.items()})


def encode(event: Event) -> tuple[str, dict[str, Json]]:
    """The stored type name and the JSON-safe payload of ``event``."""
    return event.TYPE, _encode(event)


def decode(type_name: str, payload: dict[str, Json], schema_version: int = 1) -> Event:
    """The event stored as ``type_name``/``payload`` by ``schema_version`` of this codec."""
    data = dict(payload)
    for version in range(schema_version, SCHEMA_VERSION):
        upcaster = UPCASTERS.get((type_name, version))
        if upcaster is not None:
            data = upcaster(data)
    type_name, data = retyped(type_name, data)  # a retired type: today's event for it
    cls = EVENT_TYPES.get(type_name)
    if cls is None:
        raise ValueError(f"unknown event type {type_name!r}")
    event: Event = _decode(cls, data)
    return event


def encode_command(command: Command) -> tuple[str, dict[str, Json]]:
    return type(command).__name__, _encode(command)


def decode_command(type_name: str, payload: dict[str, Json]) -> Command:
    cls = COMMAND_TYPES.get(type_name)
    if cls is None:
        raise ValueError(f"unknown command type {type_name!r}")
    command: Command = _decode(cls, dict(payload))
    return command


def encode_envelope(envelope: Envelope) -> tuple[str, dict[str, Json]]:
    """The command's type name and payload, with the envelope's ``at`` and ``seed``.

    >>> from domain.commands import StartGame
    >>> encode_envelope(Envelope(StartGame(1), at=5, seed=7))
    ('StartGame', {'actor': 1, 'at': 5, 'seed': 7})
    """
    name, payload = encode_command(envelope.command)
    return name, {**payload, "at": envelope.at, "seed": envelope.seed}


def decode_envelope(type_name: str, payload: dict[str, Json]) -> Envelope:
    """The envelope encoded as ``type_name``/``payload``, also as commands carrying their
    own ``at`` and ``seed`` were encoded (a nested move's are dropped: its envelope's
    decided it).

    >>> from domain.commands import MakeComputerMove, Pass
    >>> old = {"decision": 3, "move": {"command": "Pass", "actor": -1, "cards": [4],
    ...        "at": 0, "seed": 0}, "at": 9, "seed": 2}
    >>> decode_envelope("MakeComputerMove", old) == Envelope(
    ...     MakeComputerMove(3, Pass(-1, (4,))), at=9, seed=2)
    True
    """
    at, seed = (int(payload.get(name) or 0) for name in _STAMPS)
    fields = {k: _unstamped(v) for k, v in payload.items() if k not in _STAMPS}
    return Envelope(decode_command(type_name, fields), at, seed)


def _unstamped(value: Json) -> Json:
    if isinstance(value, dict) and _NESTED in value:
        return {k: v for k, v in value.items() if k not in _STAMPS}
    return value


__all__ = [
    "COMMAND_TYPES",
    "EVENT_TYPES",
    "SCHEMA_VERSION",
    "UPCASTERS",
    "decode",
    "decode_command",
    "decode_envelope",
    "encode",
    "encode_command",
    "encode_envelope",
]
