"""AscendC kernels in the canonical public styles, run on the simulator, checked against NumPy."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from ascendcraft.sim import build_kernel, gm, run_kernel

from sim_helpers import assert_close, kernel_source, poisoned


def _add_artifact(dtype: str, buffer_num: int = 2):
    src = f"#define BUFFER_NUM {buffer_num}\n#define DTYPE_X {dtype}\n" + kernel_source("add_custom.cpp")
    return build_kernel(src, "add_custom", tiling_header=kernel_source("add_custom_tiling.h"))


@pytest.mark.parametrize("dtype,np_dtype", [("float", np.float32), ("half", np.float16)])
def test_add_double_buffered(rng, dtype, np_dtype):
    art = _add_artifact(dtype)
    assert art.warnings == []
    blocks, tile_num, tile = 8, 4, 256
    n = blocks * tile_num * 2 * tile
    x = rng.standard_normal(n).astype(np_dtype)
    y = rng.standard_normal(n).astype(np_dtype)
    res = run_kernel(art, [x, y, poisoned(n, np_dtype)], tiling={"totalLength": n, "tileNum": tile_num},
                     block_dim=blocks)
    assert res.ok, res.report()
    assert_close(res.outputs[2], (x + y).astype(np_dtype), np_dtype)
    assert res.outputs[0] is not None and np.array_equal(res.outputs[0], x)  # inputs untouched


def test_add_single_buffered_same_result(rng):
    art = _add_artifact("float", buffer_num=1)
    assert art.warnings == []
    n = 4 * 8 * 512
    x, y = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    res = run_kernel(art, [x, y, poisoned(n, np.float32)], tiling={"totalLength": n, "tileNum": 8}, block_dim=4)
    assert res.ok, res.report()
    assert_close(res.outputs[2], x + y)


@pytest.mark.parametrize("ctype,np_dtype", [("float", np.float32), ("half", np.float16)])
def test_relu_direct_launch_with_tail(rng, ctype, np_dtype):
    art = build_kernel(kernel_source("relu_direct.cpp"), f"relu_kernel<{ctype}>")
    assert art.warnings == []
    blocks = 6
    n = blocks * 1000 + 37  # the last block gets a short share; tiles end with a DataCopyPad tail
    block_len = -(-n // blocks)
    block_len = -(-block_len // 16) * 16
    x = rng.standard_normal(n).astype(np_dtype)
    res = run_kernel(art, [x, poisoned(n, np_dtype), n, block_len, 256], block_dim=blocks)
    assert res.ok, res.report()
    assert_close(res.outputs[1], np.maximum(x, 0), np_dtype)


@pytest.mark.parametrize("ctype,np_dtype", [("float", np.float32), ("half", np.float16)])
def test_leaky_relu_tiling_struct(rng, ctype, np_dtype):
    art = build_kernel(f"#define DTYPE_X {ctype}\n" + kernel_source("leaky_relu_custom.cpp"), "leaky_relu_custom",
                       tiling_header=kernel_source("leaky_relu_custom_tiling.h"))
    assert art.warnings == [] and art.tiling_struct == "LeakyReluCustomTilingData"
    n, alpha = 8 * 4 * 2 * 128, 0.15
    x = rng.standard_normal(n).astype(np_dtype)
    res = run_kernel(art, [x, poisoned(n, np_dtype)], tiling={"totalLength": n, "tileNum": 4, "alpha": alpha},
                     block_dim=8)
    assert res.ok, res.report()
    xf = x.astype(np.float32)
    assert_close(res.outputs[1], np.where(xf >= 0, xf, np.float32(alpha) * xf).astype(np_dtype), np_dtype)
    names = [f["name"] for f in res.tiling_layout]
    assert names == ["totalLength", "tileNum", "alpha"]


def test_row_softmax(rng):
    art = build_kernel(kernel_source("softmax_rows.cpp"), "softmax_rows",
                       tiling_header=kernel_source("softmax_rows_tiling.h"))
    assert art.warnings == []
    rows, cols, blocks = 24, 264, 4
    x = (rng.standard_normal((rows, cols)) * 4).astype(np.float32)
    res = run_kernel(art, [x, poisoned((rows, cols), np.float32)],
                     tiling={"rowsPerCore": rows // blocks, "cols": cols}, block_dim=blocks)
    assert res.ok, res.report()
    e = np.exp(x - x.max(axis=1, keepdims=True))
    assert_close(res.outputs[1], e / e.sum(axis=1, keepdims=True))


@pytest.mark.parametrize("cols", [64, 1000, 4096])
def test_row_reduce_sum(rng, cols):
    art = build_kernel(kernel_source("reduce_sum_rows.cpp"), "reduce_sum_rows")
    assert art.warnings == []
    blocks, rows_per = 3, 7
    x = rng.standard_normal((blocks * rows_per, cols)).astype(np.float32)
    res = run_kernel(art, [x, poisoned(blocks * rows_per, np.float32), rows_per, cols], block_dim=blocks)
    assert res.ok, res.report()
    ref = x.astype(np.float64).sum(axis=1)
    np.testing.assert_allclose(res.outputs[1], ref, rtol=1e-4, atol=1e-3)


def test_layer_norm(rng):
    art = build_kernel(kernel_source("layer_norm.cpp"), "layer_norm_custom",
                       tiling_header=kernel_source("layer_norm_tiling.h"))
    assert art.warnings == []
    rows, cols, blocks, eps = 16, 512, 4, 1e-5
    x = (rng.standard_normal((rows, cols)) * 2 + 0.5).astype(np.float32)
    gamma = rng.random(cols).astype(np.float32) + 0.5
    beta = rng.standard_normal(cols).astype(np.float32)
    res = run_kernel(art, [x, gamma, beta, poisoned((rows, cols), np.float32)],
                     tiling={"rowsPerCore": rows // blocks, "cols": cols, "eps": eps}, block_dim=blocks)
    assert res.ok, res.report()
    ref = torch.nn.functional.layer_norm(torch.from_numpy(x), (cols,), torch.from_numpy(gamma),
                                         torch.from_numpy(beta), eps).numpy()
    assert_close(res.outputs[3], ref)


@pytest.mark.parametrize("ctype,np_dtype", [("float", np.float32), ("half", np.float16)])
def test_unaligned_length_with_datacopypad(rng, ctype, np_dtype):
    art = build_kernel(kernel_source("abs_scale_pad.cpp"), f"abs_scale_pad<{ctype}>")
    assert art.warnings == []
    n = 1003  # 1003 / 3 blocks = 335 per block: neither a multiple of 8 nor of 16
    x = rng.standard_normal(n).astype(np_dtype)
    res = run_kernel(art, [x, poisoned(n, np_dtype), n, 128, 2.5], block_dim=3)
    assert res.ok, res.report()
    assert_close(res.outputs[1], (np.abs(x.astype(np.float32)) * 2.5).astype(np_dtype), np_dtype)


def test_bf16_cast_compute_cast(rng):
    art = build_kernel(kernel_source("bf16_affine.cpp"), "bf16_affine")
    assert art.warnings == []
    blocks, block_len = 4, 512
    x = torch.from_numpy(rng.standard_normal(blocks * block_len).astype(np.float32)).to(torch.bfloat16)
    res = run_kernel(art, [x.float().numpy(), poisoned(blocks * block_len, np.float32), block_len, 128, 1.5, -0.25],
                     block_dim=blocks)
    assert res.ok, res.report()
    ref = (x.float() * 1.5 - 0.25).to(torch.bfloat16).float().numpy()
    assert res.outputs[1].dtype == np.float32
    assert_close(res.outputs[1], ref, "bf16")
    # the output holds bf16-exact values
    back = torch.from_numpy(res.outputs[1]).to(torch.bfloat16).float().numpy()
    assert np.array_equal(back, res.outputs[1])


@pytest.mark.parametrize("m,n,k", [(100, 70, 64), (128, 96, 48)])
def test_matmul_api_with_bias(rng, m, n, k):
    art = build_kernel(kernel_source("matmul_custom.cpp"), "matmul_custom",
                       tiling_header=kernel_source("matmul_custom_tiling.h"))
    assert art.warnings == []
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    bias = rng.standard_normal(n).astype(np.float32)
    sm, sn = 64, 48
    blocks = (-(-m // sm)) * (-(-n // sn))
    tiling = {"cubeTilingData": {"usedCoreNum": blocks, "M": m, "N": n, "Ka": k, "Kb": k, "singleCoreM": sm,
                                 "singleCoreN": sn, "singleCoreK": k, "baseM": 64, "baseN": 48, "baseK": 32}}
    res = run_kernel(art, [a, b, bias, poisoned((m, n), np.float32)], tiling=tiling, block_dim=blocks)
    assert res.ok, res.report()
    ref = a.astype(np.float32) @ b.astype(np.float32) + bias
    assert_close(res.outputs[3], ref, np.float16)
    assert res.cost is not None and res.cost.pipe_busy_us["M"] > 0
    # cube floor: m*n*k MACs at 24 AIC x 4096 MACs/cycle x 1.8 GHz
    assert res.cost.cube_roofline_us == pytest.approx(m * n * k / (24 * 4096 * 1.8e9) * 1e6)


def test_matmul_cores_sharing_a_block_row_or_column_fetch_its_tiles_from_hbm_once():
    """A 2 x 2 grid of single-core blocks: each A block is read by the 2 cores of its block row,
    each B block by the 2 of its column; HBM carries every operand byte once, plus C."""
    art = build_kernel(kernel_source("matmul_custom.cpp"), "matmul_custom",
                       tiling_header=kernel_source("matmul_custom_tiling.h"))
    m = n = 256
    k = 64
    tiling = {"cubeTilingData": {"usedCoreNum": 4, "M": m, "N": n, "Ka": k, "Kb": k, "singleCoreM": 128,
                                 "singleCoreN": 128, "singleCoreK": k, "baseM": 128, "baseN": 128, "baseK": 64}}
    res = run_kernel(art, [gm((m, k), np.float16), gm((k, n), np.float16), gm((n,), np.float32),
                           gm((m, n), np.float32)], tiling=tiling, block_dim=4, cost_only=True)
    assert res.ok, res.report()
    assert res.cost.gm_bytes == (m * k + k * n) * 2 + m * n * 4
