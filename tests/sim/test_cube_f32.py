"""fp32 operands on the low-level cube path (Nd2Nz DataCopy, LoadData / LoadDataWithTranspose, Mmad with
float x float -> float, Fixpipe NoQuant) and float LoadData 3-D (img2col into L0A), against float64 NumPy."""
from __future__ import annotations

import numpy as np
import pytest

from ascendcraft.sim import build_kernel, gm, run_kernel
from ascendcraft.sim.cost import cost_overrides

from sim_helpers import assert_close, kernel_source, poisoned

SRC = kernel_source("mmad_f32.cpp")
CONV = kernel_source("conv_img2col_f32.cpp")

# m, k, n and the first K step: none a multiple of 16 (m, n) or 8 (k, second K step 21)
M, K, N, K1 = 37, 45, 29, 24


def operands(rng, apath, bpath, m=M, k=K, n=N, dtype=np.float32):
    a = rng.standard_normal((m, k)).astype(dtype)
    b = rng.standard_normal((k, n)).astype(dtype)
    a_arg = np.ascontiguousarray(a.T) if apath else a  # APATH 1 takes A^T [k x m]
    b_arg = b if bpath else np.ascontiguousarray(b.T)  # BPATH 0 takes B^T [n x k]
    return a, b, a_arg, b_arg


def ref(a, b):
    return a.astype(np.float64) @ b.astype(np.float64)


def line_of(src, needle):
    hits = [i + 1 for i, text in enumerate(src.splitlines()) if needle in text]
    assert len(hits) == 1, (needle, hits)
    return hits[0]


@pytest.mark.parametrize("dtype, apath, bpath", [("float", 0, 0), ("float", 0, 1), ("float", 1, 0), ("float", 1, 1),
                                                  ("half", 0, 2)])
def test_fp32_matmul_with_tails_accumulates_over_two_k_steps(dtype, apath, bpath, rng):
    """A through LoadData2D (ZZ) or LoadDataWithTranspose from Zz (kDirectionAlign), B given transposed through
    LoadData2D or through LoadDataWithTranspose from Zz; K in two steps, the second with cmatrixInitVal false.
    (half, 0, 2): the 16-bit LoadDataWithTranspose, B [k x n] from NZ."""
    art = build_kernel(SRC, f"mmad_f32<{dtype}, {apath}, {bpath}>")
    assert art.warnings == []
    a, b, a_arg, b_arg = operands(rng, apath, bpath, dtype=np.float32 if dtype == "float" else np.float16)
    res = run_kernel(art, [a_arg, b_arg, poisoned((M, N), np.float32), M, K, N, K1], block_dim=1, outputs=["c"])
    assert res.ok, res.report()
    assert_close(res.outputs[2], ref(a, b))
    assert res.cost.pipe_busy_us["M"] > 0 and res.cost.pipe_busy_us["MTE1"] > 0 and res.cost.pipe_busy_us["FIX"] > 0


def test_fp32_gemv_m1(rng):
    """m = 1 is GEMV (GEMV.md): A is one contiguous row in L0A."""
    art = build_kernel(SRC, "mmad_f32<float, 0, 1>")
    a, b, a_arg, b_arg = operands(rng, 0, 1, m=1, k=150, n=20)
    res = run_kernel(art, [a_arg, b_arg, poisoned((1, 20), np.float32), 1, 150, 20, 136], block_dim=1)
    assert res.ok, res.report()
    assert_close(res.outputs[2], ref(a, b))


def test_cost_only_run_times_like_the_full_run(rng):
    art = build_kernel(SRC, "mmad_f32<float, 1, 1>")
    _, _, a_arg, b_arg = operands(rng, 1, 1)
    full = run_kernel(art, [a_arg, b_arg, poisoned((M, N), np.float32), M, K, N, K1], block_dim=1)
    cost = run_kernel(art, [gm(a_arg.shape, np.float32), gm(b_arg.shape, np.float32), gm((M, N), np.float32), M, K, N, K1],
                      block_dim=1, cost_only=True)
    assert full.ok and cost.ok, cost.report()
    assert cost.cost.time_us == pytest.approx(full.cost.time_us)
    for pipe in ("M", "MTE1", "MTE2", "FIX"):
        assert full.cost.pipe_busy_us[pipe] > 0
        assert cost.cost.pipe_busy_us[pipe] == pytest.approx(full.cost.pipe_busy_us[pipe])


def test_fp32_mmad_takes_twice_the_cube_time_of_fp16(rng):
    """The cube's fp32 rate is half its fp16 MACs per cycle (cost.py CUBE_RATE): the same shapes through the same
    kernel, with the per-instruction overhead set to 0 so that the busy time is the MAC time alone."""
    m, k, n = 48, 64, 32
    busy = {}
    for name, dtype in (("float", np.float32), ("half", np.float16)):
        art = build_kernel(SRC, f"mmad_f32<{name}, 0, 0>")
        a, b, a_arg, b_arg = operands(rng, 0, 0, m, k, n, dtype)
        with cost_overrides({"cube_overhead": 0}):
            res = run_kernel(art, [a_arg, b_arg, poisoned((m, n), np.float32), m, k, n, k // 2], block_dim=1)
        assert res.ok, res.report()
        assert_close(res.outputs[2], ref(a, b), np.float32 if dtype == np.float32 else np.float16)
        busy[name] = res.cost.pipe_busy_us["M"]
    assert busy["half"] > 0
    assert busy["float"] == pytest.approx(2 * busy["half"])


PLANTED = {
    # fp32 B [k x n] in NZ with the fp16 per-fractal transpose: b16 only (LoadData_2D.md)
    "B_TRANSPOSE_2D": ("dtype", "LoadData", "LoadData(b2[i * n16 * 16 * 16], b1[i * 256]",
                       ["ifTranspose=true on float", "LoadDataWithTranspose"]),
    # A through LoadDataWithTranspose (K aligned to 16 in L0A) read as if aligned to 8: Mmad reads a padding fractal
    "NO_KALIGN": ("uninit-read", "Mmad", "AscendC::Mmad(cl, a2, b2, mp);", ["fm element A[16][0]", "K aligned to 8"]),
    # B [k x n] through a Zz layout whose rows past K (21 in the second step: 24 with the fractal) are not zeroed
    "K_PADDING": ("uninit-read", "Mmad", "AscendC::Mmad(cl, a2, b2, mp);", ["filter element B[21][0]", "K padding",
                                                                          "Fill"]),
    # Fill of twice an L1 tile's 32-byte blocks
    "FILL_OVER": ("tensor-overflow", "Fill", "AscendC::Fill(a1,", ["Fill: operand dst needs"]),
    "QUANT": ("dtype", "Fixpipe", "AscendC::Fixpipe(cGM, cd,", ["needs quantPre NoQuant, not F322F16"]),
    "HF32": ("unsupported", "SetHF32Mode", "SetHF32Mode(AscendC::HF32Mode::ENABLE)", ["HF32"]),
}


@pytest.mark.parametrize("bug", sorted(PLANTED))
def test_planted_bug_is_reported_at_its_line(bug, rng):
    rule, api, needle, words = PLANTED[bug]
    apath, bpath = (1, 1) if bug == "NO_KALIGN" else (0, 1)
    art = build_kernel(f"#define BUG_{bug}\n#line 1\n" + SRC, f"mmad_f32<float, {apath}, {bpath}>")
    _, _, a_arg, b_arg = operands(rng, apath, bpath)
    res = run_kernel(art, [a_arg, b_arg, poisoned((M, N), np.float32), M, K, N, K1], block_dim=1)
    assert [d.rule for d in res.errors] == [rule], res.report()
    d = res.errors[0]
    assert d.api == api
    assert d.line == line_of(SRC, needle)
    for word in words:
        assert word in d.message, d.message


# ---- float img2col: C0 = 8
C, H, W, COUT, KH, KW, PAD, TILE = 24, 7, 7, 16, 3, 3, 1, 32  # 7x7 = 49 output pixels: tiles 32 and 17


def conv_case(rng):
    x = rng.standard_normal((C, H, W)).astype(np.float32)
    wt = rng.standard_normal((COUT, C, KH, KW)).astype(np.float32)
    xp = np.pad(x.astype(np.float64), ((0, 0), (PAD, PAD), (PAD, PAD)))
    ho, wo = H + 2 * PAD - KH + 1, W + 2 * PAD - KW + 1
    taps = np.stack([np.stack([xp[:, i:i + ho, j:j + wo] for j in range(KW)]) for i in range(KH)])
    y = np.einsum("ijchw,ocij->hwo", taps, wt.astype(np.float64)).reshape(-1, COUT)
    x5 = np.ascontiguousarray(x.reshape(C // 8, 8, H, W).transpose(0, 2, 3, 1))  # NC1HWC0, C0 = 8
    w2 = np.ascontiguousarray(wt.reshape(COUT, C // 8, 8, KH, KW).transpose(0, 1, 3, 4, 2).reshape(COUT, -1))
    args = [x5, w2, poisoned(y.shape, np.float32), C, H, W, COUT, KH, KW, 1, 1, 1, 1, PAD, PAD, PAD, PAD, 0.0, TILE]
    return args, y


def test_conv_img2col_fp32_matches_numpy(rng):
    art = build_kernel(CONV, "conv_img2col_f32")
    assert art.warnings == []
    args, y = conv_case(rng)
    res = run_kernel(art, args, block_dim=2, outputs=["y"])
    assert res.ok, res.report()
    assert_close(res.outputs[2], y)
    assert res.cost.pipe_busy_us["MTE1"] > 0 and res.cost.pipe_busy_us["M"] > 0


@pytest.mark.parametrize("bug, rule, words", [
    ("TRANSPOSE", "unsupported", ["float into L0A with enTranspose"]),
    ("KSTART_HALF", "param-range", ["kStartPt=100", "multiple of 8 for float"]),
])
def test_conv_fp32_planted_bug_at_the_loaddata_line(bug, rule, words, rng):
    art = build_kernel(f"#define BUG_{bug}\n#line 1\n" + CONV, "conv_img2col_f32")
    args, _ = conv_case(rng)
    res = run_kernel(art, args, block_dim=1)
    assert [d.rule for d in res.errors] == [rule], res.report()
    d = res.errors[0]
    assert d.api == "LoadData(3Dv2)" and d.line == line_of(CONV, "AscendC::LoadData(a2, x1, p);")
    for word in words:
        assert word in d.message, d.message
