"""Fewer of Python's full garbage collections while a kernel is checked and lowered.

A full collection visits every tracked object in the process, and the static work on a kernel
keeps many alive at once (each level's immutable IR, the checks of each level, the caches keyed
by node): checking a 4,000-line kernel made 12 full collections that took 4 of its 11 seconds
(benchmarks/kernel_length.py). The IR holds no reference cycles — reference counting frees it —
so the thresholds are raised while the work runs and restored after it.
"""
from __future__ import annotations

import gc
from contextlib import contextmanager

#: gc thresholds during the work: (allocations before a young collection, young collections
#: before a middle one, middle ones before a full one); never lower than the process's own.
_THRESHOLDS = (10_000, 100, 1_000)


@contextmanager
def fewer_full_collections():
    """A context (and a decorator) under which collections are rarer; nests, and restores the
    thresholds it found."""
    before = gc.get_threshold()
    gc.set_threshold(*(max(a, b) for a, b in zip(before, _THRESHOLDS)))
    try:
        yield
    finally:
        gc.set_threshold(*before)
