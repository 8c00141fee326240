"""Modeled performance of the bundled examples at MultiKernelBench 2026 shapes.

For each example, the op file's size constants are set to the MultiKernelBench "v2026"
values its ``# MKB 2026 shapes:`` line states (shared/research/peers_benchmarks.md section
1.4; optimizer shapes from MKB HEAD 460a972), the kernel is lowered (verified on reduced
shapes: the real tensors are GBs) and the simulator's cost model times it at the full shapes.
The floor is the HBM time of reading every input and writing every output once or, for cube
kernels, the cube time of their MACs if longer, plus the launch overhead; efficiency = floor /
modeled time. Beside it, the modeled eager bound of the same op (``ascendcraft.eager``) and the
speedup over it; a summary line gives, over the examples of the categories issue 29 targets
(activation, loss, math, normalization, optimizer, pooling, reduce, matmul, broadcast, index),
the geometric-mean speedup, fast_1 (the share at 1x or more) and the count at 0.9x or more.

    python3 benchmarks/lower_bench.py [--only softmax,gelu] [--chip 910B2] [--trials 3]
"""
from __future__ import annotations

import argparse
import math
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ascendcraft.mkb_shapes import mkb_2026_constants, with_constants  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", help="comma-separated example names")
    ap.add_argument("--chip", default="910B2")
    ap.add_argument("--trials", type=int, default=3)
    args = ap.parse_args()
    from ascendcraft.eager import estimate_eager_file
    from ascendcraft.errors import AscendcraftError
    from ascendcraft.lower import lower

    # the examples with MultiKernelBench 2026 sizes (group tasks have none: benchmarks/group_examples.py)
    names = args.only.split(",") if args.only else [
        d.name for d in sorted(ROOT.glob("examples/*/*/")) if "MKB 2026 shapes" in (d / "op.py").read_text()
        or "KernelBench shapes" in (d / "op.py").read_text()]
    print("| example | MKB 2026 shape constants | modeled µs | floor µs | efficiency | bound | eager µs | speedup | wall s |")
    print("|---|---|---|---|---|---|---|---|---|")
    speedups = []
    for name in names:
        d = next(d for d in sorted(ROOT.glob(f"examples/*/{name}/")) if "get_input_groups" not in
                 (d / "op.py").read_text())
        source = (d / "op.py").read_text()
        values = mkb_2026_constants(source, str(d / "op.py"))
        consts = ", ".join(f"{k}={v}" for k, v in values.items())
        with tempfile.TemporaryDirectory() as tmp:
            op = Path(tmp) / name / "op.py"
            op.parent.mkdir()
            op.write_text(with_constants(source, values, str(d / "op.py")))
            t0 = time.perf_counter()
            try:
                r = lower(d / "kernel.dsl", op, chip=args.chip, backend="sim", trials=args.trials)
            except AscendcraftError as err:
                print(str(err), file=sys.stderr)      # the whole message, for the record
                first = str(err).splitlines()[0]
                print(f"| {name} | {consts} | not lowered: {first[:90]} | | | | | | |")
                continue
            wall = time.perf_counter() - t0
            c = r.cost
            eager = estimate_eager_file(str(op), args.chip).time_us
            if d.parent.name in TARGETED:
                speedups.append(eager / c.time_us)
            print(f"| {name} | {consts} | {c.time_us:,.0f} | {r.floor_us:,.0f} | {r.efficiency:.0%} | {c.bound} "
                  f"| {eager:,.0f} | {eager / c.time_us:.2f}x | {wall:.0f} |", flush=True)
    if speedups:
        geomean = math.exp(sum(map(math.log, speedups)) / len(speedups))
        print(f"\n{len(speedups)} examples of {', '.join(TARGETED)}: geometric-mean speedup {geomean:.2f}x, "
              f"fast_1 {sum(s >= 1 for s in speedups) / len(speedups):.0%}, "
              f"{sum(s >= 0.9 for s in speedups)} at 0.9x or more")
    return 0


# the categories whose bundled examples issue 29's targets cover
TARGETED = ("activation", "loss", "math", "normalization", "optimizer", "pooling", "reduce", "matmul", "broadcast",
            "index")


if __name__ == "__main__":
    sys.exit(main())
