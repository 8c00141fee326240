"""Our kernels against NPUKernelBench's hand-written ones (issue 32's yardstick): ``ascendcraft
bench`` over the task folders that have a kernel in ``--kernels``, each hand-written answer run at
the case our kernel is timed at (the task's largest group), and ours ÷ hand-written per task.

    python3 benchmarks/yardstick.py <NPUKernelBench>/tasks [--kernels benchmarks/nkb_kernels]
                                    [--jobs 2] [--trials 2] [--out kernels_out/yardstick]

The corpus is NPUKernelBench's repository (weich97/NPUKernelBench) checked out on disk; nothing of
it is in this repository. The kernels in benchmarks/nkb_kernels are ours, one per task, named by
the task's folder (``Gelu.dsl`` for ``tasks/level2/Activation/Gelu``). docs/performance.md records
the figures.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tasks", help="NPUKernelBench's tasks/ folder")
    ap.add_argument("--kernels", default=str(HERE / "nkb_kernels"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--trials", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=900.0)
    ap.add_argument("--out", default="kernels_out/yardstick")
    args = ap.parse_args(argv)
    from ascendcraft.bench import run_bench
    from ascendcraft.bench.job import BenchOptions
    from ascendcraft.bench.tasks import find_tasks, kernel_for
    kernels = Path(args.kernels)
    tasks = [t for t in find_tasks([args.tasks]) if kernel_for(t, kernels) is not None]
    if not tasks:
        print(f"no task under {args.tasks} has a kernel in {kernels}", file=sys.stderr)
        return 2
    b = run_bench([str(t.op) for t in tasks], kernels=kernels, out=args.out, force=True, jobs=args.jobs,
                  timeout=args.timeout, options=BenchOptions(backend="sim", trials=args.trials))
    print("| task | ours µs | hand-written µs | ours ÷ hand-written | note |")
    print("|---|---:|---:|---:|---|")
    for r in sorted(b.records, key=lambda r: r["task"]):
        hw = r.get("handwritten") or {}
        ours = "wrong" if not r.get("correct") else f"{r['kernel_us']:,.1f}"
        theirs = "—" if hw.get("time_us") is None else f"{hw['time_us']:,.1f}"
        ratio = "—" if r.get("vs_handwritten") is None else f"{r['vs_handwritten']:.2f}"
        note = hw.get("note") or ("" if r.get("correct") else (r.get("error") or {}).get("message", ""))
        print(f"| {r['task']} | {ours} | {theirs} | {ratio} | {(note or '').splitlines()[0] if note else ''} |")
    o = b.summary["overall"]
    g = o.get("geomean_vs_handwritten")
    print(f"\n{o['correct_tasks']} of {o['tasks']} kernels correct; {o['handwritten_tasks']} against a matching "
          f"hand-written operator, geometric mean ours ÷ hand-written "
          + ("—" if g is None else f"{g:.2f}"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
