"""What verification costs on the bundled examples: ``check`` and ``lower`` (no cost model), in CPU
seconds (this process and its children: the simulator runs), which other load on the machine
changes far less than wall time.

    python3 benchmarks/verify_bench.py [--only softmax,cumsum] [--lower] [--trials N] [--markdown]

Run it in two checkouts to compare policies (docs/performance.md, "Verification cost", has the
figures for the policy before and after the adversarial inputs, float64 reference and second
shape set). It imports ``ascendcraft`` from wherever Python finds it (PYTHONPATH=<checkout>).
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def _cpu() -> float:
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", help="comma-separated example names")
    ap.add_argument("--lower", action="store_true", help="also time lower (passes, build, backend verification)")
    ap.add_argument("--markdown", action="store_true", help="print a markdown table")
    ap.add_argument("--trials", type=int, default=None, help="verification trials (default: the policy's)")
    args = ap.parse_args(argv)

    import ascendcraft
    from ascendcraft.lower import lower
    try:
        from ascendcraft.checking import check_kernel
    except ImportError:            # a checkout from before the rename (to compare policies)
        from ascendcraft.pipeline import check_kernel

    only = set(args.only.split(",")) if args.only else None
    rows = []
    for d in sorted(p for p in EXAMPLES.glob("*/*") if (p / "kernel.dsl").is_file()):
        if only and d.name not in only:
            continue
        t0 = _cpu()
        trials = {} if args.trials is None else {"trials": args.trials}
        ok = check_kernel(str(d / "kernel.dsl"), str(d / "op.py"), **trials).passed
        check_s = _cpu() - t0
        lower_s = None
        if args.lower:
            t0 = _cpu()
            lower(str(d / "kernel.dsl"), str(d / "op.py"), backend="sim", model_time=False, **trials)
            lower_s = _cpu() - t0
        rows.append((d.name, ok, check_s, lower_s))
        print(f"{d.name:34s} {'PASS' if ok else 'FAIL'}  check {check_s:6.1f} s"
              + (f"  lower {lower_s:6.1f} s" if lower_s is not None else ""), file=sys.stderr, flush=True)
    total_c = sum(r[2] for r in rows)
    total_l = sum(r[3] for r in rows if r[3] is not None)
    if args.markdown:
        print(f"ascendcraft from {Path(ascendcraft.__file__).parent}")
        print("| example | check CPU s | lower CPU s |\n|---|---|---|")
        for name, ok, c, lo in rows:
            print(f"| {name}{'' if ok else ' (FAIL)'} | {c:.1f} | {'' if lo is None else f'{lo:.1f}'} |")
        print(f"| **total** | {total_c:.1f} | {total_l:.1f} |")
    else:
        print(f"total: check {total_c:.1f} s" + (f", lower {total_l:.1f} s" if args.lower else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
