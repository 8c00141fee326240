"""A VECIN tile copied straight out: its copy-out ordered before the buffer's next copy-in through
the vector unit (WaitFlag<MTE3_V>, FreeTensor's V_MTE2 flag queued behind it: what the lowering
emits for a copy) overlaps the next tile's copy-in; an MTE3_MTE2 wait serialises them; no wait is a
race. A flag is an instruction of its pipe: it fires only after a WaitFlag queued before it."""
from __future__ import annotations

import functools

import numpy as np
import pytest

from ascendcraft.sim import build_kernel, run_kernel
from ascendcraft.sim.timeline import PIPES, TR_INSTR

from sim_helpers import kernel_source, poisoned

SRC = kernel_source("copy_through_vecin.cpp")
TILE, TILES, BLOCKS = 2048, 8, 2


@functools.lru_cache(maxsize=None)
def _art(macro):
    return build_kernel(SRC, "copy_through_vecin", defines={macro: 1} if macro else None)


def _run(macro, **kw):
    x = np.random.default_rng(3).standard_normal(BLOCKS * TILES * TILE).astype(np.float32)
    res = run_kernel(_art(macro), [x, poisoned(x.size, np.float32), TILES], block_dim=BLOCKS, **kw)
    return res, x


@pytest.mark.parametrize("macro", [None, "COPY_MTE3_MTE2"])
def test_both_waits_copy_correctly(macro):
    res, x = _run(macro)
    assert res.ok, res.failure()
    np.testing.assert_array_equal(res.outputs[1], x)


def test_no_wait_is_a_race_on_the_buffer():
    res, _ = _run("BUG_NO_WAIT")
    assert not res.ok and "race" in res.failure()


def test_the_wait_through_the_vector_unit_lets_the_next_copy_in_overlap_the_copy_out():
    through_v, _ = _run(None, trace=True)
    serial, _ = _run("COPY_MTE3_MTE2", trace=True)
    assert through_v.cost.time_us < serial.cost.time_us
    for res, overlapping in ((through_v, True), (serial, False)):
        r = res.timeline.blocks[0].records
        r = r[r["kind"] == TR_INSTR]          # the copies (flags are records too)
        loads = r[np.array([PIPES[p] == "MTE2" for p in r["pipe"]])]
        stores = r[np.array([PIPES[p] == "MTE3" for p in r["pipe"]])]
        assert len(loads) == len(stores) == TILES
        # tile t + 2 reuses tile t's buffer: its copy-in never starts before tile t's copy-out ends
        # (FreeTensor's flag fires after the WaitFlag<MTE3_V> queued before it)
        assert all(loads["start"][t + 2] >= stores["end"][t] for t in range(TILES - 2))
        # tile t + 1's copy-in, into the other buffer, starts before tile t's copy-out ends only when
        # the wait goes through the vector unit
        early = [loads["start"][t + 1] < stores["end"][t] for t in range(TILES - 1)]
        assert any(early) if overlapping else not any(early)
