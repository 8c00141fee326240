"""A convolution as an implicit GEMM on a mixed launch, written by hand (benchmarks/implicit_gemm/): what
the lowering could emit for MultiKernelBench's conv_standard_2d (issue 30: no GM im2col matrix, >= 50 %
of the cube's peak). Checks the kernel against torch at a small shape on the simulator, then models it
at MultiKernelBench 2026's shape (cost only) beside the floor the lower_bench table uses.

    python3 benchmarks/implicit_gemm_bench.py
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ascendcraft.chips import load_chip  # noqa: E402
from ascendcraft.sim import build_kernel, gm, run_kernel  # noqa: E402
from ascendcraft.sim.cost import CUBE_RATE  # noqa: E402

CI, KS, S, P, KT = 3, 11, 4, 2, 3
GROUP = 16    # images the AIVs hand the AICs at a time (MultiKernelBench's 256 in 16 groups)
C2 = CI * S * S


def pack(weight: np.ndarray, bias: np.ndarray, ow: int):
    """wt[kh' * 3 + kw'][co][(ci * S + a) * S + b] = weight[co, ci, S*kh' + a, S*kw' + b] (0 past the
    kernel); the bias as column 0 of a [co, 8] matrix, and an [ow, 8] matrix of ones in column 0."""
    co = weight.shape[0]
    wt = np.zeros((KT * KT, co, C2), np.float32)
    for kh2 in range(KT):
        for kw2 in range(KT):
            for ci in range(CI):
                for a in range(S):
                    for b in range(S):
                        kh, kw = S * kh2 + a, S * kw2 + b
                        if kh < KS and kw < KS:
                            wt[kh2 * KT + kw2, :, (ci * S + a) * S + b] = weight[:, ci, kh, kw]
    ba = np.zeros((co, 8), np.float32)
    ba[:, 0] = bias
    ones = np.zeros((ow, 8), np.float32)
    ones[:, 0] = 1.0
    return wt, ba, ones


def shapes(n, h, w):
    hs, ws = -(-(h + 2 * P) // S), -(-(w + 2 * P) // S)
    oh, ow = (h + 2 * P - KS) // S + 1, (w + 2 * P - KS) // S + 1
    return hs, ws, oh, ow


def main() -> int:
    src = (ROOT / "benchmarks" / "implicit_gemm" / "conv2d_s2d.cpp").read_text()
    art = build_kernel(src, "conv2d_s2d")
    rng = np.random.default_rng(0)
    n, h, w, co = 2, 40, 40, 96
    hs, ws, oh, ow = shapes(n, h, w)
    x = rng.standard_normal((n, CI, h, w)).astype(np.float32)
    weight = (rng.standard_normal((co, CI, KS, KS)) * 0.1).astype(np.float32)
    bias = rng.standard_normal(co).astype(np.float32)
    wt, ba, ones = pack(weight, bias, ow)
    y = np.full((n, co, oh, ow), np.nan, np.float32)
    res = run_kernel(art, [x, wt, ba, ones, y, None, n, h, w, co, 1], block_dim=4, outputs=["y"],
                     workspace_bytes=n * hs * ws * C2 * 4)
    if not res.ok:
        print(res.report())
        return 1
    ref = torch.nn.functional.conv2d(torch.from_numpy(x).double(), torch.from_numpy(weight).double(),
                                     torch.from_numpy(bias).double(), stride=S, padding=P).numpy()
    err = float(np.max(np.abs(res.outputs[4] - ref)))
    print(f"small shape n={n} h=w={h} co={co}: max |error| {err:.2e} against float64 torch")
    if not err < 1e-3:
        return 1
    # MultiKernelBench 2026: batch 256, 3 -> 96 channels, 224 x 224 (cost only)
    n, h, w, co = 256, 224, 224, 96
    hs, ws, oh, ow = shapes(n, h, w)
    t0 = time.time()
    big = run_kernel(art, [gm((n, CI, h, w), "float32"), gm((KT * KT, co, C2), "float32"), gm((co, 8), "float32"),
                           gm((ow, 8), "float32"), gm((n, co, oh, ow), "float32"), None, n, h, w, co, GROUP],
                     block_dim=24, cost_only=True, workspace_bytes=n * hs * ws * C2 * 4, timeout_s=1800)
    if not big.ok:
        print(big.report())
        return 1
    macs = n * co * oh * ow * CI * KS * KS
    chip = load_chip("910B2")
    # the floor lower_bench uses: the MACs on every cube core at the f32 rate, plus the launch
    floor = macs / (chip.aic_cores * chip.cube_macs_per_cycle * CUBE_RATE["f32"] * chip.freq_mhz * 1e6) * 1e6 + \
        chip.launch_overhead_us
    print(f"MKB 2026 shape: {big.cost.summary()} ({time.time() - t0:.0f} s)")
    print(f"  {macs:,} MACs: f32 cube floor {floor:.0f} us, efficiency {floor / big.cost.time_us:.0%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
