"""How `check` scales with a kernel's length (issue: the front end must stay near linear).

    python3 benchmarks/kernel_length.py [--lines 250 1000 2000 4000 10000]

Each kernel is a leaky ReLU over rows whose body repeats one statement N times
(`t = where(t >= 0.0, t, t * 1.0)`), checked in this process against a tiny op (2 x 16 f32,
so the interpreter's own work is negligible) with one trial: what remains is parsing, type
checking, the footprint and the buffer plan (which runs the lowering passes). Prints the
wall-clock seconds per length and per 1,000 lines.
"""
from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

OP = """\
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return torch.nn.functional.leaky_relu(x, 0.01)


def get_inputs():
    return [torch.randn(2, 16)]


def get_init_inputs():
    return []
"""

HEAD = """kernel leaky_relu(x: gm f32[B, N]) -> (y: gm f32[B, N]):
    const T = 8192
    const TW = minimum(N, T)
    const RB = maximum(1, T // TW)
    for rb, cb in parallel(cdiv(B, RB), cdiv(N, TW)):
        r = rb * RB
        c = cb * TW
        t = load(x[r:r + RB, c:c + TW])
"""


def kernel(lines: int) -> str:
    return HEAD + "        t = where(t >= 0.0, t, t * 1.0)\n" * lines + \
        "        store(y[r:r + RB, c:c + TW], where(t >= 0.0, t, t * 0.01))\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lines", type=int, nargs="+", default=[250, 1000, 2000, 4000, 10000])
    args = ap.parse_args()
    from ascendcraft.checking import check_kernel
    with tempfile.TemporaryDirectory() as d:
        op = Path(d) / "op.py"
        op.write_text(OP)
        check_kernel(kernel(1), str(op), trials=1)      # imports and the op's load, once
        for n in args.lines:
            t0 = time.perf_counter()
            result = check_kernel(kernel(n), str(op), trials=1, plan=True)
            s = time.perf_counter() - t0
            print(f"{n:>6} lines: {s:7.1f} s ({s / n * 1000:5.1f} s per 1,000 lines), "
                  f"{'PASS' if result.passed else 'FAIL'}", flush=True)


if __name__ == "__main__":
    main()
