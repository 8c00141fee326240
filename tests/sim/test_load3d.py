"""LoadData 3-D (img2col) against a float64 NumPy convolution: the forward pass as an implicit GEMM (img2col
into L0A), the weight gradient (img2col into L0B, and transposed into L0A), and planted bugs at their line."""
from __future__ import annotations

import numpy as np
import pytest

from ascendcraft.sim import build_kernel, gm, run_kernel

from sim_helpers import assert_close, kernel_source, poisoned

SRC = kernel_source("conv_img2col.cpp")
KH = KW = 3

# C, H, W, cout, stride (h, w), dilation (h, w), padList (left, right, top, bottom), pad value, pixels per tile
CASES = {
    "s1_p1": (32, 9, 9, 32, (1, 1), (1, 1), (1, 1, 1, 1), 0.0, 32),  # 9x9 = 81 pixels: tiles 32, 32, 17
    "s2_p1": (16, 11, 11, 16, (2, 2), (1, 1), (1, 1, 1, 1), 0.0, 16),  # 6x6 = 36: 16, 16, 4
    "d2_asym": (32, 10, 12, 16, (1, 2), (2, 1), (2, 1, 1, 0), 0.0, 32),  # 7x7 = 49: 32, 17
    "d2_padvalue": (16, 8, 8, 32, (1, 1), (2, 2), (1, 1, 1, 1), 0.5, 32),  # 6x6 = 36: 32, 4
}


def to_bf16(a):
    """bf16-exact float32 values (truncated mantissa)."""
    return (np.asarray(a, np.float32).view(np.uint32) & 0xFFFF0000).view(np.float32)


def patches(x, stride, dil, pads, pad_value):
    """The filter taps of the padded map x [C, H, W]: float64 [KH, KW, C, Ho, Wo]."""
    left, right, top, bottom = pads
    xp = np.pad(x.astype(np.float64), ((0, 0), (top, bottom), (left, right)), constant_values=pad_value)
    (sh, sw), (dh, dw) = stride, dil
    ho = (xp.shape[1] - (KH - 1) * dh - 1) // sh + 1
    wo = (xp.shape[2] - (KW - 1) * dw - 1) // sw + 1
    return np.stack([np.stack([xp[:, i * dh: i * dh + (ho - 1) * sh + 1: sh, j * dw: j * dw + (wo - 1) * sw + 1: sw]
                               for j in range(KW)]) for i in range(KH)])


def nc1hwc0(x):
    c, h, w = x.shape
    return np.ascontiguousarray(x.reshape(c // 16, 16, h, w).transpose(0, 2, 3, 1))


def k_order(wt):
    """[cout, C, KH, KW] -> [cout, K], K in img2col order (c1, kh, kw, c0)."""
    cout, c = wt.shape[:2]
    return np.ascontiguousarray(wt.reshape(cout, c // 16, 16, KH, KW).transpose(0, 1, 3, 4, 2).reshape(cout, -1))


def geometry_args(case):
    c, h, w, cout, (sh, sw), (dh, dw), pads, _, _ = CASES[case]
    return [c, h, w, cout, KH, KW, sh, sw, dh, dw, *pads]


def conv_inputs(case, rng, cast):
    c, h, w, cout = CASES[case][:4]
    x = cast(rng.standard_normal((c, h, w)))
    wt = cast(rng.standard_normal((cout, c, KH, KW)))
    return x, wt


def conv_args(case, x, wt, y, bug=None):
    pad_value, tile = CASES[case][7:]
    return [nc1hwc0(x), k_order(wt), y, *geometry_args(case), pad_value, tile, BUGS[bug]]


def conv_ref(case, x, wt):
    _, _, _, cout, stride, dil, pads, pad_value, _ = CASES[case]
    t = patches(x, stride, dil, pads, pad_value)
    return np.einsum("ijchw,ocij->hwo", t, wt.astype(np.float64)).reshape(-1, cout)


@pytest.mark.parametrize("case", sorted(CASES))
def test_conv_img2col_fp16_matches_numpy(case, rng):
    art = build_kernel(SRC, "conv_img2col<half>")
    assert art.warnings == []
    x, wt = conv_inputs(case, rng, lambda a: a.astype(np.float16))
    ref = conv_ref(case, x, wt)
    res = run_kernel(art, conv_args(case, x, wt, poisoned(ref.shape, np.float32)), block_dim=2, outputs=["y"])
    assert res.ok, res.report()
    assert_close(res.outputs[2], ref)
    assert res.cost.pipe_busy_us["MTE1"] > 0 and res.cost.pipe_busy_us["M"] > 0


def test_conv_img2col_bf16_matches_numpy(rng):
    art = build_kernel(SRC, "conv_img2col<bfloat16_t>")
    x, wt = conv_inputs("s1_p1", rng, to_bf16)
    ref = conv_ref("s1_p1", x, wt)
    res = run_kernel(art, conv_args("s1_p1", x, wt, poisoned(ref.shape, np.float32)), block_dim=1,
                     dtypes={"x": "bfloat16", "w": "bfloat16"})
    assert res.ok, res.report()
    assert_close(res.outputs[2], ref)


@pytest.mark.parametrize("trans, case", [(False, "s1_p1"), (True, "d2_asym")])
def test_weight_gradient_through_l0b_and_transposed_l0a(trans, case, rng):
    """dW = dY * img2col(x): img2col in L0B (Mmad's B), or dW^T = img2col(x)^T * dY^T with it in L0A (enTranspose)."""
    art = build_kernel(SRC, f"conv_dw<half, {str(trans).lower()}>")
    c, h, w, cout, stride, dil, pads, pad_value, _ = CASES[case]
    x = rng.standard_normal((c, h, w)).astype(np.float16)
    t = patches(x, stride, dil, pads, pad_value)
    ho, wo = t.shape[3:]
    pixels = ho * wo
    assert pixels % 16 != 0  # a partial last pixel tile
    dy = rng.standard_normal((cout, pixels)).astype(np.float16)
    dy16 = np.zeros((cout, -(-pixels // 16) * 16), np.float16)
    dy16[:, :pixels] = dy
    dw = np.einsum("ijchw,ohw->ocij", t, dy.astype(np.float64).reshape(cout, ho, wo))
    ref = k_order(dw).T if trans else k_order(dw)
    res = run_kernel(art, [nc1hwc0(x), dy16, poisoned(ref.shape, np.float32), *geometry_args(case), 32], block_dim=1)
    assert res.ok, res.report()
    assert_close(res.outputs[2], ref)


BUGS = {None: 0, "KSTART_PAST_END": 1, "KSTART_UNALIGNED": 2, "DST_ALIGN": 3, "SHORT_FMAP": 4, "NO_RESET_CONFIG": 5}
PLANTED = {
    "KSTART_PAST_END": ("param-range", ["K window [kStartPt=160, +kExtension=144) ends at 304", "288 columns"]),
    "KSTART_UNALIGNED": ("param-range", ["kStartPt=136", "multiple of 16"]),
    "DST_ALIGN": ("ub-align", ["dst", "not 512-byte aligned"]),
    "SHORT_FMAP": ("uninit-read", ["src", "c1=1", "9x9 NC1HWC0 feature map"]),
    "NO_RESET_CONFIG": ("unsupported", ["IsResetLoad3dConfig{0, 0}", "SetFmatrix"]),
}


@pytest.mark.parametrize("bug", sorted(PLANTED))
def test_planted_bug_is_reported_at_the_loaddata_line(bug, rng):
    art = build_kernel(SRC, "conv_img2col<half>")
    x, wt = conv_inputs("s1_p1", rng, lambda a: a.astype(np.float16))
    res = run_kernel(art, conv_args("s1_p1", x, wt, poisoned((81, 32), np.float32), bug), block_dim=1)
    rule, words = PLANTED[bug]
    assert [d.rule for d in res.errors] == [rule], res.report()
    d = res.errors[0]
    assert d.api == "LoadData(3Dv2)"
    assert "(a2, x1, p);" in SRC.splitlines()[d.line - 1]
    for word in words:
        assert word in d.message


def test_cost_only_run_times_like_the_full_run(rng):
    art = build_kernel(SRC, "conv_img2col<half>")
    x, wt = conv_inputs("s1_p1", rng, lambda a: a.astype(np.float16))
    full = run_kernel(art, conv_args("s1_p1", x, wt, poisoned((81, 32), np.float32)), block_dim=2)
    args = conv_args("s1_p1", x, wt, None)
    args[:3] = [gm(args[0].shape, np.float16), gm(args[1].shape, np.float16), gm((81, 32), np.float32)]
    cost = run_kernel(art, args, block_dim=2, cost_only=True)
    assert full.ok and cost.ok, cost.report()
    assert cost.cost.time_us == pytest.approx(full.cost.time_us)
    assert full.cost.pipe_busy_us["MTE1"] > 0
    assert cost.cost.pipe_busy_us["MTE1"] == pytest.approx(full.cost.pipe_busy_us["MTE1"])
