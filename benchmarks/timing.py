"""Timing shared by the benchmark scripts."""
from __future__ import annotations

import time


def best(fn, repeat: int) -> float:
    """The fastest of ``repeat`` calls of ``fn``, in seconds (the least disturbed by other load)."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)
