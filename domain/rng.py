"""A tiny deterministic pseudo-random generator (splitmix64).

The domain has no hidden chance: the ``seed`` in a command's envelope is turned into
outcomes here and the outcomes are written into events. Same seed, same outcome, on every
machine and Python.

>>> shuffle((1, 2, 3, 4, 5), 42) == shuffle((1, 2, 3, 4, 5), 42)
True
>>> sorted(shuffle(range(10), 7)) == list(range(10))
True
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Final, TypeVar

T = TypeVar("T")

_MASK: Final = (1 << 64) - 1
_GOLDEN: Final = 0x9E3779B97F4A7C15


def _mix(z: int) -> int:
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9 & _MASK
    z = (z ^ (z >> 27)) * 0x94D049BB133111EB & _MASK
    return z ^ (z >> 31)


def stream(seed: int) -> Iterator[int]:
    """An endless stream of 64-bit numbers from ``seed`` (any int, negative included)."""
    state = seed & _MASK
    while True:
        state = (state + _GOLDEN) & _MASK
        yield _mix(state)


def derive(seed: int, label: int) -> int:
    """An independent seed for sub-draw ``label`` of one command's chance.

    >>> derive(1, 0) != derive(1, 1)
    True
    """
    return _mix((seed & _MASK) ^ _mix((label + 1) * _GOLDEN & _MASK))


def _below(numbers: Iterator[int], n: int) -> int:
    # Rejection sampling: no modulo bias.
    limit = (1 << 64) - ((1 << 64) % n)
    while True:
        value = next(numbers)
        if value < limit:
            return value % n


def shuffle(seq: Iterable[T], seed: int) -> tuple[T, ...]:
    """A Fisher–Yates shuffle of ``seq`` decided by ``seed``."""
    items = list(seq)
    numbers = stream(seed)
    for i in range(len(items) - 1, 0, -1):
        j = _below(numbers, i + 1)
        items[i], items[j] = items[j], items[i]
    return tuple(items)


def choice(seq: Sequence[T], seed: int) -> T:
    """One element of a non-empty ``seq`` decided by ``seed``.

    >>> choice(("a", "b", "c"), 3) in ("a", "b", "c")
    True
    """
    if not seq:
        raise ValueError("choice from an empty sequence")
    return seq[_below(stream(seed), len(seq))]
