"""A read of GM bytes this core copied out earlier must be ordered after the copy: the Matmul API's
read of a tile the vector unit staged in GM (its call waits for the copy on the scalar unit,
MTE3_S), and a copy back in (MTE3_MTE2). Without the event the simulator reports the race, as it
does for local buffers (docs/simulator.md, "Events")."""
from __future__ import annotations

import numpy as np
import pytest

from ascendcraft.sim import build_kernel, run_kernel

from sim_helpers import assert_close, kernel_source, poisoned

SRC = kernel_source("staged_matmul.cpp")
TILING_H = kernel_source("matmul_custom_tiling.h")
MODES = {"OK": 0, "NO_STAGE_WAIT": 1, "READBACK": 2, "READBACK_NO_WAIT": 3}
M, K, N = 32, 64, 48


def _run(mode: str, rng):
    art = build_kernel(SRC, "staged_matmul", tiling_header=TILING_H)
    tiling = {"cubeTilingData": {"usedCoreNum": 1, "M": M, "N": N, "Ka": K, "Kb": K, "singleCoreM": M,
                                 "singleCoreN": N, "singleCoreK": K, "baseM": 32, "baseN": 48, "baseK": 32}}
    x = rng.standard_normal((M, K)).astype(np.float32)
    w = rng.standard_normal((K, N)).astype(np.float32)
    res = run_kernel(art, [x, w, poisoned((M, N), np.float32), poisoned((M, K), np.float32), MODES[mode]],
                     tiling=tiling, block_dim=1, workspace_bytes=M * K * 4)
    return res, x, w


@pytest.mark.parametrize("mode", ["OK", "READBACK"])
def test_a_staged_tile_read_after_its_copy_out_is_the_product_of_what_was_staged(rng, mode):
    res, x, w = _run(mode, rng)
    assert res.ok, res.report()
    assert_close(res.outputs[2], (2 * x) @ w)
    if mode == "READBACK":
        assert_close(res.outputs[3], 2 * x)


@pytest.mark.parametrize("mode,reader,advice,marker", [
    ("NO_STAGE_WAIT", "Matmul::IterateAll on AIC_MTE2", "HardEvent::MTE3_S", "mm.IterateAll(yGm);"),
    ("READBACK_NO_WAIT", "DataCopy on MTE2", "HardEvent::MTE3_MTE2", "AscendC::DataCopy(back, stageGm, n);"),
])
def test_a_read_of_gm_that_can_overtake_this_cores_copy_out_is_a_race(rng, mode, reader, advice, marker):
    res, _, _ = _run(mode, rng)
    assert not res.ok
    (d,) = res.errors
    assert d.rule == "missing-sync"
    assert d.line == next(i for i, t in enumerate(SRC.splitlines(), 1) if marker in t)
    copy_line = next(i for i, t in enumerate(SRC.splitlines(), 1) if "AscendC::DataCopy(stageGm, tile, n);" in t)
    assert f"{reader} reads GM at 'workspace'" in d.message
    assert f"that DataCopy at line {copy_line} wrote on MTE3" in d.message and advice in d.message


GAPS = kernel_source("strided_gaps.cpp")


@pytest.mark.parametrize("mode", [0, 1])
def test_a_read_of_the_gaps_between_rows_copied_out_is_no_race(rng, mode):
    """Only the bytes of the rows count: a strided read of the gaps a strided copy out left is ordered
    with nothing (mode 0), one that meets a row's last value is the race (mode 1)."""
    art = build_kernel(GAPS, "strided_gaps")
    x = rng.standard_normal(16).astype(np.float32)
    s = np.full(18, 5.0, np.float32)
    res = run_kernel(art, [x, s, poisoned((4,), np.float32), mode], block_dim=1)
    if mode == 0:
        assert res.ok, res.report()
        assert_close(res.outputs[2][:2], np.array([5.0, 5.0], np.float32))
    else:
        assert not res.ok
        (d,) = res.errors
        assert d.rule == "missing-sync" and "reads GM at 's'+28 bytes" in d.message


READBACK = kernel_source("fixpipe_readback.cpp")


@pytest.mark.parametrize("mode", [0, 1])
def test_the_cubes_read_of_its_own_fixpipe_output_waits_for_it(rng, mode):
    """GM -> L1 (Nd2Nz) after a Fixpipe of the same bytes: with FIX_MTE2 between them y = C (mode 0);
    without, a missing-sync error at the read naming the Fixpipe and FIX_MTE2 (mode 1)."""
    art = build_kernel(READBACK, "fixpipe_readback")
    a = rng.standard_normal((16, 8)).astype(np.float32)
    bt = rng.standard_normal((16, 8)).astype(np.float32)
    res = run_kernel(art, [a, bt, np.eye(16, dtype=np.float32), poisoned((16, 16), np.float32), None, mode],
                     block_dim=1, workspace_bytes=16 * 16 * 4)
    if mode == 0:
        assert res.ok, res.report()
        assert_close(res.outputs[3], a.astype(np.float64) @ bt.T.astype(np.float64))
    else:
        assert not res.ok
        (d,) = res.errors
        assert d.rule == "missing-sync" and "that Fixpipe at line" in d.message and "FIX_MTE2" in d.message
        assert d.line == next(i for i, t in enumerate(READBACK.splitlines(), 1) if "// C read back" in t)
