"""A Matmul-API (MIX_AIC_1_2) kernel that counts its vector cores runs on both AIVs of each block
(build.py's ASC_SIM_MATMUL_AIVS), and a phase's HBM bandwidth is shared by the cores that move
data in it (cross.cpp's barrier, harness_main.cpp after the last one): docs/simulator.md, "Mixed
launches and cross-core flags"."""
from __future__ import annotations

import numpy as np
import pytest

from ascendcraft.sim import build_kernel, run_kernel

from sim_helpers import kernel_source

SRC = kernel_source("aiv_pairs.cpp")


def _run(blocks: int, chunk: int, even_only: bool, cost_only=False):
    art = build_kernel(SRC, "aiv_pairs")
    x = np.arange(2 * blocks * chunk, dtype=np.float32)
    res = run_kernel(art, [x, np.full_like(x, np.nan), chunk, int(even_only)], block_dim=blocks,
                     cost_only=cost_only)
    return res, x + 1


@pytest.mark.parametrize("even_only", [False, True])
def test_both_vector_cores_of_each_block_run_and_count_themselves(even_only):
    res, want = _run(3, 64, even_only)
    assert res.ok, res.report()
    np.testing.assert_array_equal(res.outputs[1], want)
    assert [c.kind for c in res.cost.per_core] == ["aiv"] * 6
    busy = [c.vector_elements > 0 for c in sorted(res.cost.per_core, key=lambda c: c.block)]
    assert busy == ([True, False] * 3 if even_only else [True] * 6)


def test_the_cores_moving_data_in_a_phase_share_the_hbm_bandwidth():
    """The same bytes moved by 24 of 48 cores or by all 48 take about the same HBM time: each
    core's share is the chip's bandwidth over the cores that move data, not over the launch's 24
    blocks (which gave the 48 twice the chip's bandwidth: half this body time)."""
    chunk = 48 * 1024
    half, _ = _run(24, chunk, True, cost_only=True)
    every, _ = _run(24, chunk, False, cost_only=True)
    assert half.ok and every.ok
    assert every.cost.gm_bytes == half.cost.gm_bytes == 2 * 2 * 24 * chunk * 4
    assert every.cost.body_us >= every.cost.hbm_roofline_us
    assert half.cost.body_us >= every.cost.body_us > 0.8 * half.cost.body_us
