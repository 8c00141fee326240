"""Interpreter throughput next to plain NumPy doing the same math.

    python3 benchmarks/interp_bench.py [--repeat 3]

Cases: a 16M-element elementwise kernel (y = relu(x) * 2 + 1, tiles of 16K f32) and a
row softmax over 4096 x 4096 f32, written two ways: one pass over 2 whole rows per tile
(rows this short fit the UB) and the general three-pass kernel over tiles of 4096. "numpy" is the same
math written directly on whole arrays (no tiling), the fastest plain-NumPy version.
Prints the best of --repeat runs for each and the ratio interpreter / numpy.
"""
from __future__ import annotations

import argparse

import numpy as np

from ascendcraft.chips import load_chip
from ascendcraft.dsl import Binding, check, interpret, parse
from timing import best  # benchmarks/timing.py (the script's own folder)

ELEMENTWISE = """kernel ew(x: gm f32[N]) -> (y: gm f32[N]):
    const T = 16384
    for i in parallel(cdiv(N, T)):
        t = load(x[i * T:i * T + T])
        store(y[i * T:i * T + T], relu(t) * 2.0 + 1.0)
"""

# Rows of 4096 f32 fit the UB: one pass over 2 rows per tile, as a tuned kernel would do.
SOFTMAX_ONE_PASS = """kernel softmax(x: gm f32[B, N]) -> (y: gm f32[B, N]):
    const R = 2
    for i in parallel(cdiv(B, R)):
        t = load(x[i * R:i * R + R, :])
        e = exp(t - max(t, axis=1, keepdims=True))
        store(y[i * R:i * R + R, :], e / sum(e, axis=1, keepdims=True))
"""

# The general kernel for rows of any length: three passes over tiles of 4096.
SOFTMAX = """kernel softmax(x: gm f32[B, N]) -> (y: gm f32[B, N]):
    const T = 4096
    for b in parallel(B):
        m = -inf
        for j in range(0, N, T):
            m = maximum(m, max(load(x[b, j:j + T])))
        s = 0.0
        for j in range(0, N, T):
            s = s + sum(exp(load(x[b, j:j + T]) - m))
        for j in range(0, N, T):
            store(y[b, j:j + T], exp(load(x[b, j:j + T]) - m) / s)
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    chip = load_chip("910B2")
    rng = np.random.default_rng(0)

    n = 16 * 1024 * 1024
    x = rng.random(n, dtype=np.float32)
    y = np.empty_like(x)
    ck = check(parse(ELEMENTWISE), Binding({"N": n}, {}), chip)
    t_int = best(lambda: interpret(ck, {"x": x, "y": y}), args.repeat)
    t_np = best(lambda: np.maximum(x, 0) * np.float32(2) + np.float32(1), args.repeat)
    assert np.allclose(y, np.maximum(x, 0) * 2 + 1)
    print(f"elementwise 16M f32       interpreter {t_int * 1e3:8.1f} ms   numpy {t_np * 1e3:8.1f} ms   "
          f"ratio {t_int / t_np:.2f}")

    b = nn = 4096
    x2 = rng.random((b, nn), dtype=np.float32)
    y2 = np.empty_like(x2)

    def np_softmax():
        m = x2.max(axis=1, keepdims=True)
        e = np.exp(x2 - m)
        return e / e.sum(axis=1, keepdims=True)
    t_np2 = best(np_softmax, args.repeat)
    for label, src in (("softmax 4096x4096, 1 pass ", SOFTMAX_ONE_PASS), ("softmax 4096x4096, 3 pass ", SOFTMAX)):
        ck2 = check(parse(src), Binding({"B": b, "N": nn}, {}), chip)
        y2.fill(np.nan)
        t_int2 = best(lambda: interpret(ck2, {"x": x2, "y": y2}), args.repeat)
        assert np.allclose(y2, np_softmax(), rtol=1e-4)
        print(f"{label} interpreter {t_int2 * 1e3:8.1f} ms   numpy {t_np2 * 1e3:8.1f} ms   "
              f"ratio {t_int2 / t_np2:.2f}")


if __name__ == "__main__":
    main()
