"""The cost model's modelled numbers (deterministic: no wall-clock timing here)."""
from __future__ import annotations

import numpy as np
import pytest

from ascendcraft.chips import load_chip
from ascendcraft.sim import build_kernel, gm, run_kernel
from ascendcraft.sim.cost import PIPES, CoreCost, aggregate

from sim_helpers import READ_TWICE, kernel_source

RELU_ROWS, RELU_COLS = 4096, 393216


def _add(buffer_num: int):
    src = f"#define BUFFER_NUM {buffer_num}\n#define DTYPE_X float\n" + kernel_source("add_custom.cpp")
    return build_kernel(src, "add_custom", tiling_header=kernel_source("add_custom_tiling.h"))


def _add_cost(buffer_num: int, tile: int, tiles_per_block: int, blocks: int = 48):
    n = blocks * tile * tiles_per_block
    res = run_kernel(_add(buffer_num), [gm(n, np.float32)] * 3,
                     tiling={"totalLength": n, "tileNum": tiles_per_block // buffer_num}, block_dim=blocks,
                     cost_only=True)
    assert res.ok, res.report()
    return res.cost


def test_double_buffering_is_modelled_as_overlap():
    """4 KB tiles (the sample's tile scale), 48 blocks, 25 MB per tensor."""
    single = _add_cost(1, tile=1024, tiles_per_block=128)
    double = _add_cost(2, tile=1024, tiles_per_block=128)
    assert single.gm_bytes == double.gm_bytes
    assert single.time_us >= 1.5 * double.time_us, (single.summary(), double.summary())
    assert double.bound == "hbm"


def test_relu_4096x393216_near_hbm_roofline_cost_only():
    art = build_kernel(kernel_source("relu_direct.cpp"), "relu_kernel<float>")
    n, blocks = RELU_ROWS * RELU_COLS, 48
    res = run_kernel(art, [gm(n, np.float32), gm(n, np.float32), n, n // blocks, 8192], block_dim=blocks,
                     cost_only=True, memory_limit_mb=512)  # 12.9 GB of tensors: nothing is allocated
    assert res.ok, res.report()
    assert res.outputs == []
    c = res.cost
    chip = load_chip("910B2")
    roofline_us = 2 * n * 4 / (chip.hbm_gbps * 1e9) * 1e6
    assert c.gm_bytes == 2 * n * 4
    assert c.hbm_roofline_us == pytest.approx(roofline_us)
    assert c.time_us <= 1.15 * roofline_us, c.summary()
    assert c.time_us >= roofline_us
    assert c.bound == "hbm"
    assert c.physical_cores == 48 and len(c.per_core) == 48


def test_small_kernel_is_launch_bound():
    c = _add_cost(2, tile=256, tiles_per_block=2, blocks=8)
    assert c.bound == "launch"
    assert c.time_us == pytest.approx(c.launch_us + c.body_us)


def test_cost_only_matches_full_run():
    """Counting without the math gives the same timeline as running it."""
    art = _add(2)
    n = 4 * 8 * 512
    x = np.ones(n, np.float32)
    full = run_kernel(art, [x, x, np.zeros(n, np.float32)], tiling={"totalLength": n, "tileNum": 4}, block_dim=4)
    cost = run_kernel(art, [gm(n, np.float32)] * 3, tiling={"totalLength": n, "tileNum": 4}, block_dim=4,
                      cost_only=True)
    assert full.ok and cost.ok
    assert full.cost.time_us == pytest.approx(cost.cost.time_us)
    assert full.cost.gm_bytes == cost.cost.gm_bytes == 3 * n * 4


# MTE2 busy while the HBM is not: copies served by L2
@pytest.mark.parametrize("pipe,bound", [("V", "vector"), ("M", "cube"), ("S", "scalar"), ("HBM", "hbm"),
                                         ("MTE2", "l2"), ("MTE3", "hbm")])
def test_bound_is_the_busiest_pipe_of_the_critical_core(pipe, bound):
    chip = load_chip("910B2")
    busy = {p: 1000.0 for p in PIPES}
    busy[pipe] = 500_000.0
    cores = [CoreCost(b, 600_000.0 if b == 3 else 1000.0, busy if b == 3 else {p: 1.0 for p in PIPES},
                      0, 0, 0, 0, 0) for b in range(8)]
    c = aggregate(cores, chip, 8)
    assert c.bound == bound
    assert c.body_us == pytest.approx(600_000.0 / chip.freq_mhz)
    assert c.pipe_busy_us[pipe] == pytest.approx(500_000.0 / chip.freq_mhz)


def test_blocks_beyond_the_core_count_run_in_waves():
    chip = load_chip("910B2")
    cores = [CoreCost(b, 1800.0, {p: 0.0 for p in PIPES}, 0, 0, 0, 0, 0) for b in range(96)]
    c = aggregate(cores, chip, 96)
    assert c.physical_cores == 48
    assert c.body_us == pytest.approx(2.0)  # two waves of 1 us each




@pytest.mark.parametrize("second, hbm_reads", [(0, 1), (16384, 2)])
def test_a_re_read_within_the_cores_l2_share_moves_at_the_l2_rate_without_hbm_traffic(second, hbm_reads):
    art = build_kernel(f"#define SECOND {second}\n" + READ_TWICE, "read_twice")
    res = run_kernel(art, [gm(32768, np.float32), gm(1, np.float32)], block_dim=1, cost_only=True)
    assert res.ok, res.report()
    c = res.cost.per_core[0]
    assert c.gm_read == hbm_reads * 65536
    cfg = load_chip("910B2")
    first = 40 + 65536 / cfg.mte2_bytes_per_cycle          # mte_overhead + bytes at the ddr rate
    again = 40 + 65536 / 110.0 if hbm_reads == 1 else first  # ... or at the l2 rate (ini l2_rate)
    assert c.busy_cycles["MTE2"] == pytest.approx(first + again, abs=0.1)   # reported to 0.1 cycle
