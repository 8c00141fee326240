"""The high-level Matmul API's Iterate / GetTensorC on the simulator: one base block per Iterate,
M first, brought to UB for a fused epilogue (leaky relu) or straight to GM, checked against
NumPy and against IterateAll."""
from __future__ import annotations

import numpy as np
import pytest

from ascendcraft.sim import build_kernel, gm, run_kernel

from sim_helpers import assert_close, kernel_source, poisoned

SRC = kernel_source("matmul_epilogue.cpp")
TILING_H = kernel_source("matmul_custom_tiling.h")


def _tiling(m, n, k, sm, sn, bm, bn, bk=32, **more):
    blocks = (-(-m // sm)) * (-(-n // sn))
    return blocks, {"cubeTilingData": {"usedCoreNum": blocks, "M": m, "N": n, "Ka": k, "Kb": k, "singleCoreM": sm,
                                       "singleCoreN": sn, "singleCoreK": k, "baseM": bm, "baseN": bn, "baseK": bk,
                                       **more}}


MODES = {"EPILOGUE": 0, "OUT_GM": 1, "NO_ITERATE": 2, "ASYNC": 3, "ASYNC_NO_WORKSPACE": 4}


def _run(m, n, k, sm, sn, bm, bn, rng, mode="EPILOGUE", cost_only=False):
    art = build_kernel(SRC, "matmul_epilogue", tiling_header=TILING_H)
    blocks, tiling = _tiling(m, n, k, sm, sn, bm, bn)
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    bias = rng.standard_normal(n).astype(np.float32)
    args = ([gm((m, k), np.float16), gm((k, n), np.float16), gm((n,), np.float32), gm((m, n), np.float32)]
            if cost_only else [a, b, bias, poisoned((m, n), np.float32)])
    res = run_kernel(art, args + [MODES[mode]], tiling=tiling, block_dim=blocks, cost_only=cost_only,
                     workspace_bytes=blocks * sm * (-(-sn // bn)) * bn * 4)
    return res, a.astype(np.float32) @ b.astype(np.float32) + bias


@pytest.mark.parametrize("m,n,k,sm,sn,bm,bn", [(100, 96, 64, 64, 48, 32, 48), (128, 192, 48, 128, 96, 64, 32)])
def test_iterate_brings_each_block_to_ub_for_a_fused_epilogue(rng, m, n, k, sm, sn, bm, bn):
    res, c = _run(m, n, k, sm, sn, bm, bn, rng)
    assert res.ok, res.report()
    assert_close(res.outputs[3], np.where(c >= 0, c, 0.1 * c), np.float16)
    assert res.cost.pipe_busy_us["M"] > 0 and res.cost.pipe_busy_us["V"] > 0


def test_iterate_to_gm_writes_what_iterate_all_writes(rng):
    res, c = _run(100, 96, 64, 64, 48, 32, 48, rng, mode="OUT_GM")
    assert res.ok, res.report()
    assert_close(res.outputs[3], c, np.float16)
    whole = run_kernel(build_kernel(kernel_source("matmul_custom.cpp"), "matmul_custom", tiling_header=TILING_H),
                       [gm((100, 64), np.float16), gm((64, 96), np.float16), gm((96,), np.float32),
                        gm((100, 96), np.float32)], tiling=_tiling(100, 96, 64, 64, 48, 32, 48)[1], block_dim=4,
                       cost_only=True)
    alone, _ = _run(100, 96, 64, 64, 48, 32, 48, rng, mode="OUT_GM", cost_only=True)
    assert alone.cost.time_us == pytest.approx(whole.cost.time_us, rel=1e-9)


def test_get_tensor_c_before_iterate_is_an_error(rng):
    res, _ = _run(64, 48, 32, 64, 48, 32, 48, rng, mode="NO_ITERATE")
    assert not res.ok
    (d,) = res.errors
    assert d.rule == "matmul-init" and "GetTensorC before Iterate" in d.message
    assert d.line == next(i for i, t in enumerate(SRC.splitlines(), 1) if "mm.GetTensorC(block);" in t)


def test_a_ub_block_narrower_than_base_n_fills_rows_base_n_apart(rng):
    """The tail of the single-core N (40 = 32 + 8 columns of baseN = 32): each row's first 8 values,
    the rows baseN apart; the kernel copies out only those (a packed layout would misplace them)."""
    res, c = _run(64, 40, 32, 64, 40, 32, 32, rng)
    assert res.ok, res.report()
    assert_close(res.outputs[3], np.where(c >= 0, c, 0.1 * c), np.float16)


def test_operand_stages_beyond_l1_are_a_tiling_error(rng):
    """depthA1 = depthB1 = 8 stages of 128 x 128 (A) and 128 x 256 (B) half tiles: 768 KiB, L1 is 512."""
    art = build_kernel(SRC, "matmul_epilogue", tiling_header=TILING_H)
    _, tiling = _tiling(128, 256, 256, 128, 256, 128, 256, 128, depthA1=8, depthB1=8)
    res = run_kernel(art, [gm((128, 256), np.float16), gm((256, 256), np.float16), gm((256,), np.float32),
                           gm((128, 256), np.float32), MODES["OUT_GM"]], tiling=tiling, block_dim=1, cost_only=True)
    assert not res.ok
    assert any(d.rule == "matmul-tiling" and "786432 bytes of L1" in d.message for d in res.errors), res.report()


def test_iterate_ahead_computes_every_block_while_the_vector_unit_works_on_the_last(rng):
    """Iterate<false> once, GetTensorC<false> per block: the same values as the synchronous loop, and
    the cube no longer waits for each block's epilogue (M first order, tails on both axes)."""
    res, c = _run(200, 176, 256, 200, 176, 64, 48, rng, mode="ASYNC")
    assert res.ok, res.report()
    assert_close(res.outputs[3], np.where(c >= 0, c, 0.1 * c), np.float16)
    ahead, _ = _run(200, 176, 256, 200, 176, 64, 48, rng, mode="ASYNC", cost_only=True)
    in_step, _ = _run(200, 176, 256, 200, 176, 64, 48, rng, cost_only=True)
    assert ahead.cost.time_us < in_step.cost.time_us


@pytest.mark.parametrize("mode, message", [("ASYNC_NO_WORKSPACE", "needs a workspace"),
                                           ("NO_ITERATE", "GetTensorC before Iterate")])
def test_blocks_taken_without_being_started_are_errors(rng, mode, message):
    res, _ = _run(64, 48, 32, 64, 48, 32, 48, rng, mode=mode)
    assert not res.ok
    assert any(d.rule == "matmul-init" and message in d.message for d in res.errors), res.report()


def test_a_block_handed_to_ub_costs_no_hbm_write_and_a_block_to_gm_does(rng):
    """GetTensorC to UB drains the block through the library's workspace, which stays in L2; the
    epilogue's own copy out is C's one HBM write. GetTensorC to GM writes C itself."""
    m, n, k = 128, 96, 64
    ub, _ = _run(m, n, k, 64, 48, 32, 48, rng, cost_only=True)
    gm_, _ = _run(m, n, k, 64, 48, 32, 48, rng, mode="OUT_GM", cost_only=True)
    writes = [sum(c.gm_write for c in r.cost.per_core) for r in (ub, gm_)]
    assert writes[0] == writes[1] == m * n * 4
