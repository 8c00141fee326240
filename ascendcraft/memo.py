"""In-process result caches: small LRU maps for results that are pure functions of their key."""
from __future__ import annotations

import os
import threading

import torch

#: Set (to anything but "" or "0") to turn off the in-process result caches below: loaded tasks,
#: verification draws, check results and parsed pass artefacts are then recomputed on every call.
NO_CACHE_ENV = "ASCENDCRAFT_NO_CACHE"


def caching() -> bool:
    return os.environ.get(NO_CACHE_ENV, "") in ("", "0")


class Memo:
    """A small LRU map for results that are pure functions of their key (the callers say why),
    bounded by entries and by the bytes the values hold. Thread-safe; cleared by
    :func:`clear_caches`; a no-op while :data:`NO_CACHE_ENV` is set."""

    def __init__(self, entries: int, max_bytes: int | None = None):
        from collections import OrderedDict
        self.entries, self.max_bytes = entries, max_bytes
        self._data: OrderedDict = OrderedDict()
        self._lock = threading.Lock()
        _MEMOS.append(self)

    def get(self, key, default=None):
        if not caching():
            return default
        with self._lock:
            hit = self._data.get(key)
            if hit is None:
                return default
            self._data.move_to_end(key)
            return hit[0]

    def put(self, key, value, nbytes: int = 0) -> None:
        if not caching() or (self.max_bytes is not None and nbytes > self.max_bytes):
            return
        with self._lock:
            self._data[key] = (value, nbytes)
            self._data.move_to_end(key)
            total = sum(n for _, n in self._data.values())
            while len(self._data) > self.entries or (self.max_bytes is not None and total > self.max_bytes):
                _, (_, n) = self._data.popitem(last=False)
                total -= n

    def clear(self) -> None:
        with self._lock:
            self._data.clear()


_MEMOS: list[Memo] = []


def clear_caches() -> None:
    """Drop every in-process result cache (tasks, draws, check results, parsed artefacts)."""
    for m in _MEMOS:
        m.clear()


def tensor_bytes(*values) -> int:
    """Bytes of the tensors and arrays in ``values`` and in the lists and tuples among them: what a
    cache entry holding them keeps alive."""
    total = 0
    for v in values:
        if isinstance(v, torch.Tensor):
            total += v.numel() * v.element_size()
        elif hasattr(v, "nbytes") and hasattr(v, "dtype"):
            total += int(v.nbytes)
        elif isinstance(v, (list, tuple)):
            total += tensor_bytes(*v)
    return total
