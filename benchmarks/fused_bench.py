"""Fused epilogues against the same op as phases through GM, and against the GEMM alone.

For each bundled example with a ``phases.dsl`` beside its ``kernel.dsl`` (the fused form), at the
MultiKernelBench 2026 shapes of its op file: the modeled time and efficiency of the fused kernel,
of the phases, and of the bare product ``x @ W^T`` at the same M, K, N (the same tiles, its C
stored as it comes off the cube), and the ratios. docs/performance.md records the results; the
targets (issue 30): the fused kernel within 5 points of the GEMM's efficiency alone, and faster
than the phases.

    python3 benchmarks/fused_bench.py [--only matmul_bias_relu] [--chip 910B2] [--trials 1]
"""
from __future__ import annotations

import argparse
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ascendcraft.mkb_shapes import mkb_2026_constants, with_constants  # noqa: E402

#: each fused example's product: the op file's constants giving M, K and N
PRODUCTS = {
    "matmul_bias_relu": ("batch_size", "in_features", "out_features"),
    "matmul_sigmoid_sum": ("batch_size", "input_size", "hidden_size"),
}

GEMM_OP = '''import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x, w):
        return x @ w.T


rows = {m}
depth = {k}
cols = {n}


def get_inputs():
    return [torch.rand(rows, depth), torch.rand(cols, depth)]


def get_init_inputs():
    return []
'''


def gemm_kernel(fused: str) -> str:
    """The fused kernel's product phase alone: its constants and K loop, C stored as it is."""
    tiles = "\n".join(line for line in fused.splitlines() if re.match(r"\s+const T[MNK] = ", line))
    return f'''kernel gemm(x: gm f32[M, K], w: gm f32[N, K]) -> (y: gm f32[M, N]):
{tiles}
    for i, j in parallel(cdiv(M, TM), cdiv(N, TN)):
        m = i * TM
        n = j * TN
        a = load(x[m:m + TM, 0:TK], space=l1)
        acc = matmul(a, load(w[n:n + TN, 0:TK], space=l1), transpose_b=True)
        for k in range(TK, K, TK):
            a = load(x[m:m + TM, k:k + TK], space=l1)
            acc = acc + matmul(a, load(w[n:n + TN, k:k + TK], space=l1), transpose_b=True)
        store(y[m:m + TM, n:n + TN], acc)
'''


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", help="comma-separated example names")
    ap.add_argument("--chip", default="910B2")
    ap.add_argument("--trials", type=int, default=1)
    args = ap.parse_args()
    from ascendcraft.lower import lower

    names = args.only.split(",") if args.only else sorted(PRODUCTS)
    print("| example | M × K × N | fused µs (eff.) | phases µs (eff.) | GEMM alone µs (eff.) | phases / fused "
          "| GEMM eff. − fused eff. |")
    print("|---|---|---|---|---|---|---|")
    for name in names:
        d = next(ROOT.glob(f"examples/*/{name}/"))
        source = (d / "op.py").read_text()
        values = mkb_2026_constants(source, str(d / "op.py"))
        m, k, n = (values[c] for c in PRODUCTS[name])
        with tempfile.TemporaryDirectory() as tmp:
            op = Path(tmp) / name / "op.py"
            op.parent.mkdir()
            op.write_text(with_constants(source, values, str(d / "op.py")))
            gemm_op = Path(tmp) / "gemm" / "op.py"
            gemm_op.parent.mkdir()
            gemm_op.write_text(GEMM_OP.format(m=m, k=k, n=n))
            (Path(tmp) / "gemm.dsl").write_text(gemm_kernel((d / "kernel.dsl").read_text()))
            runs = [lower(kernel, o, chip=args.chip, backend="sim", trials=args.trials)
                    for kernel, o in ((d / "kernel.dsl", op), (d / "phases.dsl", op), (Path(tmp) / "gemm.dsl", gemm_op))]
        fused, phases, gemm = runs
        cells = [f"{r.cost.time_us:,.0f} ({r.efficiency:.0%})" for r in runs]
        print(f"| {name} | {m} × {k} × {n} | {' | '.join(cells)} | {phases.cost.time_us / fused.cost.time_us:.2f}× "
              f"| {100 * (gemm.efficiency - fused.efficiency):+.1f} points |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
