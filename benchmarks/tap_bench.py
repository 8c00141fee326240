"""Tap products (docs/dsl.md, "Tap products"): a convolution over a channel-last image as an implicit
GEMM on the cube cores, lowered and modeled at a large shape beside its HBM floor.

The case: MultiKernelBench's conv_standard_1d sizes (batch 32, 64 -> 128 channels, length 131,072,
kernel 3) with the sequence channel-last ([N, L, CI]; MultiKernelBench's is [N, CI, L], whose
relayout in the same kernel is not built) and the weight as [KW, CO, CI]: an op file of our own.

    python3 benchmarks/tap_bench.py [--trials 1]
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

OP = """import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x, wt):
        return torch.nn.functional.conv1d(x.permute(0, 2, 1), wt.permute(1, 2, 0))


N = {n}
L = {length}
CI = {ci}
CO = {co}
KW = {kw}


def get_inputs():
    return [torch.randn(N, L, CI), torch.randn(KW, CO, CI)]


def get_init_inputs():
    return []
"""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=1)
    args = ap.parse_args()
    from ascendcraft.lower import lower
    with tempfile.TemporaryDirectory() as tmp:
        op = Path(tmp) / "conv1d_nlc" / "op.py"
        op.parent.mkdir()
        op.write_text(OP.format(n=32, length=131072, ci=64, co=128, kw=3))
        run = lower(ROOT / "benchmarks" / "tap_kernels" / "conv1d_nlc.dsl", op, chip="910B2", backend="sim",
                    trials=args.trials)
        print(f"conv1d_nlc, 32 x 131072 x 64 -> 128, kernel 3: {run.cost.time_us:,.0f} us modeled, "
              f"{run.efficiency:.0%} of its floor ({run.cost.bound}-bound)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
