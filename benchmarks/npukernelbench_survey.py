"""NPUKernelBench tasks: which load, and how the bundled group-task examples fare.

    python3 benchmarks/npukernelbench_survey.py --mkb PATH/TO/MultiKernelBench/reference
    python3 benchmarks/npukernelbench_survey.py --nkb PATH/TO/NPUKernelBench/tasks
    python3 benchmarks/npukernelbench_survey.py --examples

``--mkb`` loads every task of ``npukernelbench_level0`` ... ``level4`` under a MultiKernelBench
checkout's ``reference/`` (not part of this repository) and prints one row per task: its groups,
the groups set aside (a dtype Ascend kernels do not take, a reference that does not run on the
CPU), or why the task does not load; ``--nkb`` does the same for every task folder of an
NPUKernelBench checkout's ``tasks/`` (``level*/<family>/<Op>/``). ``--examples`` checks and lowers every kernel under
``examples/npukernelbench/`` and prints, per example, its groups, the check's verdict over them,
the dtypes the lowering built (one build per dtype), the groups those builds passed on the
simulator, and the modeled time at the largest group. Results are recorded in docs/bench.md ("NPUKernelBench").
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def survey(tasks: list[tuple[str, Path]]) -> int:
    """Load each (name, op file or task folder) and print one row per task, then the totals."""
    from ascendcraft.errors import AscendcraftError
    from ascendcraft.task import load_task

    print("| task | groups | set aside | own precision rule | load |")
    print("|---|---|---|---|---|")
    loaded = ruled = 0
    for name, op in tasks:
        try:
            task = load_task(op)
        except AscendcraftError as err:
            first = str(err).splitlines()[0].replace("|", "/")
            print(f"| {name} | | | | not loaded: {first[:160]} |", flush=True)
            continue
        loaded += 1
        rule = callable(task.real._mod.ns.get("custom_check_precision"))
        ruled += rule
        aside = task.groups_unsupported
        why = f" (first: {aside[0][1][:100]})" if aside else ""
        print(f"| {name} | {len(task.groups)} | {len(aside)}{why} | {'yes' if rule else ''} | loaded |", flush=True)
    print(f"\n{loaded} of {len(tasks)} tasks load; {ruled} of them have their own custom_check_precision")
    return 0


def mkb_tasks(reference: Path) -> list[tuple[str, Path]]:
    return [(f"level{level}/{op.stem}", op) for level in range(5)
            for op in sorted((reference / f"npukernelbench_level{level}").glob("*.py"),
                             key=lambda p: int(p.stem.split("_")[0]))]


def nkb_tasks(tasks: Path) -> list[tuple[str, Path]]:
    return [(str(f.relative_to(tasks)), f) for f in sorted(tasks.glob("level*/*/*")) if (f / "validation").is_dir()]


def examples() -> int:
    from ascendcraft.checking import check_kernel
    from ascendcraft.groups import input_dtypes
    from ascendcraft.lower import lower_checked

    print("| example | groups | check | built for | groups passed on the simulator | modeled µs | wall s |")
    print("|---|---|---|---|---|---|---|")
    for d in sorted((ROOT / "examples" / "npukernelbench").iterdir()):
        t0 = time.perf_counter()
        checked = check_kernel(d / "kernel.dsl", d / "op.py")
        verified = len(checked.groups) + 1
        total = verified + len(checked.groups_skipped)
        if not checked.passed:
            print(f"| {d.name} | {total} | FAIL | | | | |")
            continue
        r = lower_checked(checked)
        builds = [r, *r.instances]              # one per dtype of the groups
        ran = sum(1 + sum(1 for _, rep in b.other_verifications if rep.passed) for b in builds)
        dtypes = "; ".join(", ".join(input_dtypes(b.check.shapes)) for b in builds)
        print(f"| {d.name} | {total} | PASS ({verified} verified) | {dtypes} | {ran} | {r.cost.time_us:,.1f} "
              f"| {time.perf_counter() - t0:.0f} |", flush=True)
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mkb", type=Path, help="a MultiKernelBench checkout's reference/ folder")
    ap.add_argument("--nkb", type=Path, help="an NPUKernelBench checkout's tasks/ folder")
    ap.add_argument("--examples", action="store_true", help="check and lower examples/npukernelbench/")
    args = ap.parse_args()
    if args.mkb is None and args.nkb is None and not args.examples:
        ap.error("give --mkb PATH, --nkb PATH, --examples or several")
    if args.mkb is not None:
        if not (args.mkb / "npukernelbench_level0").is_dir():
            print(f"{args.mkb} has no npukernelbench_level0/: pass MultiKernelBench's reference/ folder",
                  file=sys.stderr)
            return 2
        survey(mkb_tasks(args.mkb))
    if args.nkb is not None:
        found = nkb_tasks(args.nkb)
        if not found:
            print(f"{args.nkb} has no level*/<family>/<Op>/validation/: pass NPUKernelBench's tasks/ folder",
                  file=sys.stderr)
            return 2
        survey(found)
    if args.examples:
        examples()
    return 0


if __name__ == "__main__":
    sys.exit(main())
