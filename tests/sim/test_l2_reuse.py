"""The L2 reuse model charges only the bytes a copy reads, never the gaps between its rows."""
from __future__ import annotations

import numpy as np
import pytest

from ascendcraft.chips import load_chip
from ascendcraft.sim import build_kernel, gm, run_kernel

from sim_helpers import kernel_source

BLOCKS = 48


def _col_tiles():
    return build_kernel(kernel_source("col_tiles.cpp"), "col_tiles")


def _cost_run(rows, cols, tile_rows, tile_cols, shift=-1, use_datacopy=0):
    rpb = -(-rows // BLOCKS)
    res = run_kernel(_col_tiles(), [gm((rows, cols), np.float32), gm((rows, cols), np.float32), rows, cols, rpb,
                                    tile_rows, tile_cols, shift, use_datacopy],
                     block_dim=BLOCKS, cost_only=True, outputs=["y"])
    assert res.ok, res.report()
    return res.cost


@pytest.mark.parametrize("use_datacopy", [0, 1])
@pytest.mark.parametrize("tile_rows,tile_cols", [(32, 256), (16, 64), (64, 128)])
def test_row_block_tiled_over_columns_never_beats_hbm(tile_rows, tile_cols, use_datacopy):
    """Column tiles of the same rows share no bytes: none of them may be an L2 hit."""
    rows, cols = BLOCKS * 64, 8192
    c = _cost_run(rows, cols, tile_rows, tile_cols, use_datacopy=use_datacopy)
    moved = 2 * rows * cols * 4
    chip = load_chip("910B2")
    floor_us = moved / (chip.hbm_gbps * 1e9) * 1e6
    assert c.gm_bytes == moved                       # every input byte once from HBM, every output byte once
    assert c.body_us >= floor_us * (1 - 1e-9), c.summary()
    assert c.time_us >= c.launch_us + floor_us * (1 - 1e-9)


@pytest.mark.parametrize("use_datacopy", [0, 1])
@pytest.mark.parametrize("shift", [0, 64, 128])
def test_reread_of_the_same_bytes_is_an_l2_hit(shift, use_datacopy):
    """Reading each tile again (the same bytes, or shifted by part of a tile so the rest is the next
    tile's) adds L2 traffic, not HBM traffic: every input byte still comes from HBM exactly once."""
    rows, cols = BLOCKS * 64, 8192
    once = _cost_run(rows, cols, 32, 256, use_datacopy=use_datacopy)
    twice = _cost_run(rows, cols, 32, 256, shift=shift, use_datacopy=use_datacopy)
    assert twice.gm_bytes == once.gm_bytes == 2 * rows * cols * 4
    assert sum(c.gm_read for c in twice.per_core) == rows * cols * 4
    # the re-reads still take MTE2 time (a shifted re-read only replaces HBM-share time of the first read)
    assert twice.total_busy_us["MTE2"] >= once.total_busy_us["MTE2"]
    if shift == 0:
        assert twice.total_busy_us["MTE2"] > 1.1 * once.total_busy_us["MTE2"]


def test_column_tiles_with_data_match_numpy(rng):
    """The same kernel with data: right values, every output byte written once."""
    rows, cols, blocks = 40, 96, 3
    x = rng.standard_normal((rows, cols)).astype(np.float32)
    y = np.full_like(x, np.nan)
    rpb = -(-rows // blocks)
    for shift in (-1, 0, 8):
        res = run_kernel(_col_tiles(), [x, y, rows, cols, rpb, 8, 32, shift, 0], block_dim=blocks, outputs=["y"])
        assert res.ok, res.report()
        np.testing.assert_array_equal(res.outputs[1], 2 * x)
