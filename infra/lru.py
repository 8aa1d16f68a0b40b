"""A bounded mapping that forgets the entry used least recently: every per-process cache
of the bot holds at most so many entries, however many users and games pass through.

>>> cache: LRU[str, int] = LRU(2)
>>> cache["a"] = 1; cache["b"] = 2; _ = cache.get("a"); cache["c"] = 3
>>> sorted(cache)
['a', 'c']
"""

from __future__ import annotations

import contextlib
from collections import OrderedDict
from typing import TypeVar

K = TypeVar("K")
V = TypeVar("V")


class LRU(OrderedDict[K, V]):
    """An ``OrderedDict`` of at most ``size`` entries; reading with ``get`` or ``[]``, or
    writing (``setdefault`` too), makes an entry the most recent. Threads may share one:
    each step is one operation of the ``OrderedDict`` (atomic under the GIL), and an
    entry another thread dropped meanwhile is simply missing."""

    def __init__(self, size: int) -> None:
        super().__init__()
        if size < 1:
            raise ValueError(f"size must be positive: {size}")
        self.size = size

    def __getitem__(self, key: K) -> V:
        value = super().__getitem__(key)
        with contextlib.suppress(KeyError):  # dropped by another thread meanwhile
            self.move_to_end(key)
        return value

    def get(self, key: K, default: V | None = None) -> V | None:  # type: ignore[override]
        try:
            return self[key]
        except KeyError:
            return default

    def __setitem__(self, key: K, value: V) -> None:
        super().__setitem__(key, value)
        with contextlib.suppress(KeyError):
            self.move_to_end(key)
        while len(self) > self.size:
            try:
                self.popitem(last=False)
            except KeyError:  # emptied by another thread meanwhile
                break
