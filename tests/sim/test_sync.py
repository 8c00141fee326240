"""SyncAll: kernels that call it run one thread per block, so the barrier is real."""
from __future__ import annotations

import numpy as np

from ascendcraft.sim import build_kernel, run_kernel

from sim_helpers import kernel_source, poisoned


def test_cross_block_sum_through_workspace_and_syncall(rng):
    art = build_kernel(kernel_source("sum_all_sync.cpp"), "sum_all")
    assert art.warnings == []
    blocks, per = 8, 512
    x = rng.standard_normal(blocks * per).astype(np.float32)
    res = run_kernel(art, [x, poisoned(8, np.float32), per, -1], block_dim=blocks, workspace_bytes=blocks * 32)
    assert res.ok, res.report()
    np.testing.assert_allclose(res.outputs[1][0], x.astype(np.float64).sum(), rtol=1e-5, atol=1e-4)
    # the barrier aligns the cores' timelines: block 0 finishes last
    ends = [c.cycles for c in res.cost.per_core]
    assert ends[0] == max(ends)


def test_a_block_that_returns_before_the_barrier_is_a_reported_deadlock(rng):
    src = kernel_source("sum_all_sync.cpp")
    art = build_kernel(src, "sum_all", defines={"BUG_SKIP_BARRIER": 1})
    blocks, per = 4, 256
    x = rng.standard_normal(blocks * per).astype(np.float32)
    res = run_kernel(art, [x, poisoned(8, np.float32), per, -1], block_dim=blocks, workspace_bytes=blocks * 32,
                     timeout_s=20)
    assert res.crash is None, res.crash
    assert {d.rule for d in res.errors} == {"cross-core-deadlock"}, res.report()
    line = next(i for i, t in enumerate(src.splitlines(), 1) if "AscendC::SyncAll();" in t)
    d = res.errors[0]
    assert d.line == line and "SyncAll waits for every core of the barrier to arrive" in d.message
    assert "block 1 has returned" in d.message


def test_failing_block_does_not_deadlock_the_barrier(rng):
    art = build_kernel(kernel_source("sum_all_sync.cpp"), "sum_all")
    blocks, per = 4, 256
    x = rng.standard_normal(blocks * per).astype(np.float32)
    res = run_kernel(art, [x, poisoned(8, np.float32), per, 2], block_dim=blocks, workspace_bytes=blocks * 32,
                     timeout_s=20)
    assert res.crash is None, res.crash
    assert [d.rule for d in res.errors] == ["gm-bounds"]
    assert res.errors[0].block == 2
