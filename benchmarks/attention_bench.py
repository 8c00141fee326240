"""Attention with its scores on chip (streamed products) against the same op as phases through GM.

For each case, the bundled example's kernel (phases: the scores stored to a GM scratch, softmaxed
there, read back by the second product) and a kernel of benchmarks/attention_kernels/ (one phase of
streamed products: docs/dsl.md, "Streamed products"), lowered and modeled on the simulator; a kernel
the lowering refuses at that shape prints its reason. docs/performance.md records the results
(issue 30: no GM tensor of S x S scores; faster than the phases, with the ratio).

    python3 benchmarks/attention_bench.py [--only sdpa_long] [--chip 910B2] [--trials 1]
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ascendcraft.mkb_shapes import mkb_2026_constants, with_constants  # noqa: E402

KERNELS = ROOT / "benchmarks" / "attention_kernels"
SDPA = ROOT / "examples" / "attention" / "scaled_dot_product_attention"
CAUSAL = ROOT / "examples" / "attention" / "causal_attention"

#: name -> (example folder, shape constants (None: MultiKernelBench 2026's), streamed kernels)
CASES = {
    "sdpa_mkb": (SDPA, None, ("flash.dsl", "rows.dsl")),
    "sdpa_long": (SDPA, {"batch_size": 4, "num_heads": 8, "sequence_length": 2048, "embedding_dimension": 128},
                  ("flash.dsl",)),
    "causal_mkb": (CAUSAL, None, ("causal_streamed.dsl",)),
}


def _cell(run) -> str:
    return f"{run.cost.time_us:,.0f} ({run.efficiency:.0%})"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", help="comma-separated case names: " + ", ".join(CASES))
    ap.add_argument("--chip", default="910B2")
    ap.add_argument("--trials", type=int, default=1)
    args = ap.parse_args()
    from ascendcraft.errors import AscendcraftError
    from ascendcraft.lower import lower

    names = args.only.split(",") if args.only else list(CASES)
    print("| case | shapes | phases µs (eff.) | streamed kernel | streamed µs (eff.) | phases / streamed |")
    print("|---|---|---|---|---|---|")
    for name in names:
        example, values, kernels = CASES[name]
        source = (example / "op.py").read_text()
        values = values or mkb_2026_constants(source, str(example / "op.py"))
        shapes = ", ".join(f"{k} {v}" for k, v in values.items())
        with tempfile.TemporaryDirectory() as tmp:
            op = Path(tmp) / example.name / "op.py"
            op.parent.mkdir()
            op.write_text(with_constants(source, values, str(example / "op.py")))
            phases = lower(example / "kernel.dsl", op, chip=args.chip, backend="sim", trials=args.trials)
            for kernel in kernels:
                try:
                    run = lower(KERNELS / kernel, op, chip=args.chip, backend="sim", trials=args.trials)
                except AscendcraftError as err:
                    why = str(err.message).splitlines()[0]
                    print(f"| {name} | {shapes} | {_cell(phases)} | {kernel} | refused: {why} | |", flush=True)
                    continue
                print(f"| {name} | {shapes} | {_cell(phases)} | {kernel} | {_cell(run)} | "
                      f"{phases.cost.time_us / run.cost.time_us:.2f}× |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
