"""Toolchain speed: wall time of ``check`` and ``lower`` on every bundled example, cold and warm,
and the CLI's cold start.

    python3 benchmarks/toolchain_speed.py [--only softmax,gelu] [--repeat 2] [--no-edited]
                                          [--baseline <other checkout>]

Per example, two fresh child processes (so "cold" means what a new process pays: lazy imports such
as torch's meta-device kernels, loading the op, a simulator build when it is not cached yet):

* ``check_kernel(kernel, op)``: the first call (cold), then the best of ``--repeat`` further calls
  (warm: the same kernel again, the definition of the targets), then one call on the kernel with a
  comment appended ("edited": a kernel the process has not seen, on an op it has, which is what a
  repair loop or a sweep over candidate kernels pays; caches keyed by the kernel text miss);
* ``lower(kernel, op, backend="sim")``, the same way, in another child.

Then ``ascendcraft --help`` is started ``--help-repeat`` times (best of). The Markdown table on
stdout ends with which targets are met (warm check <= 0.5 s and warm lower <= 2 s per example,
``--help`` < 0.2 s). Wall times on a shared machine are noisy: best-of-N takes the least disturbed
call. It imports ``ascendcraft`` from wherever Python finds it (``PYTHONPATH=<checkout>`` to
measure another checkout); ``--baseline <checkout>`` also measures that checkout, each child right
after the current one's (so both see the same load), and prints both side by side.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
EXAMPLES = HERE.parent / "examples"
sys.path.insert(0, str(HERE))

from timing import best  # noqa: E402

TARGET_CHECK_S, TARGET_LOWER_S, TARGET_HELP_S = 0.5, 2.0, 0.2

_CHILD = r"""
import json, sys, time
what, kernel, op, repeat, edited = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5] == "1"
if what == "check":
    from ascendcraft.checking import check_kernel
    call = lambda k: check_kernel(k, op)
else:
    from ascendcraft.lower import lower
    call = lambda k: lower(k, op, backend="sim")
def timed(k):
    t0 = time.perf_counter()
    call(k)
    return time.perf_counter() - t0
out = {"cold": timed(kernel)}
out["warm"] = min(timed(kernel) for _ in range(repeat))
if edited:   # the same kernel with a comment appended: text-keyed caches miss
    text = open(kernel).read().rstrip("\n") + "\n# edited for toolchain_speed\n"
    out["edited"] = timed(text)
print("RESULT " + json.dumps(out))
"""


def examples(only: set[str] | None) -> list[Path]:
    found = sorted(p for p in EXAMPLES.glob("*/*") if (p / "kernel.dsl").is_file())
    if only:
        missing = only - {d.name for d in found}
        if missing:
            raise SystemExit(f"no example named {', '.join(sorted(missing))}")
    return [d for d in found if not only or d.name in only]


def _env(checkout: str | None) -> dict | None:
    if checkout is None:
        return None
    return {**os.environ, "PYTHONPATH": os.pathsep.join([checkout] + [p for p in [os.environ.get("PYTHONPATH")] if p])}


def child(what: str, d: Path, repeat: int, edited: bool, checkout: str | None = None) -> dict:
    """Time ``what`` (check or lower) on example ``d`` in a fresh interpreter (importing
    ``checkout`` first when given)."""
    proc = subprocess.run([sys.executable, "-c", _CHILD, what, str(d / "kernel.dsl"), str(d / "op.py"),
                           str(repeat), "1" if edited else "0"], capture_output=True, text=True, env=_env(checkout))
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:])
    return {"error": (proc.stderr.strip().splitlines() or [f"exit status {proc.returncode}"])[-1][:200]}


def help_start(repeat: int, checkout: str | None = None) -> tuple[float | None, int | None]:
    """Best wall time of ``ascendcraft --help`` in a new process (the installed entry point, else
    ``python -m ascendcraft``), and its exit status (timed whatever it is; reported when not 0)."""
    exe = shutil.which("ascendcraft")
    cmd = [exe, "--help"] if exe else [sys.executable, "-m", "ascendcraft", "--help"]
    codes = []

    def run():
        codes.append(subprocess.run(cmd, capture_output=True, env=_env(checkout)).returncode)
    try:
        run()   # page cache, .pyc files
    except OSError:
        return None, None
    return best(run, repeat), codes[-1]


def fmt(x) -> str:
    return "-" if x is None else f"{x:.2f}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", help="comma-separated example names (default: all)")
    ap.add_argument("--repeat", type=int, default=2, help="warm calls per example; the best counts (default 2)")
    ap.add_argument("--help-repeat", type=int, default=5, help="ascendcraft --help starts; the best counts")
    ap.add_argument("--no-edited", action="store_true", help="skip the edited-kernel call")
    ap.add_argument("--no-lower", action="store_true", help="time check only")
    ap.add_argument("--json", help="also write the measurements to this file")
    ap.add_argument("--baseline", metavar="CHECKOUT",
                    help="also measure this checkout (PYTHONPATH), each child right after the current one's")
    args = ap.parse_args(argv)

    import ascendcraft
    sides = [("after", None)] + ([("before", args.baseline)] if args.baseline else [])
    rows = []
    for d in examples(set(args.only.split(",")) if args.only else None):
        row = {"name": d.name}
        for what in ("check",) + (() if args.no_lower else ("lower",)):
            for side, checkout in sides:
                row[(side, what)] = child(what, d, args.repeat, not args.no_edited, checkout)
        rows.append(row)
        for side, _ in sides:
            c, lo = row[(side, "check")], row.get((side, "lower"), {})
            print(f"{d.name:34s} {side:6s} check cold {fmt(c.get('cold'))} warm {fmt(c.get('warm'))} edited "
                  f"{fmt(c.get('edited'))} | lower cold {fmt(lo.get('cold'))} warm {fmt(lo.get('warm'))} edited "
                  f"{fmt(lo.get('edited'))}" + "".join(f"  [{k} error: {v['error']}]" for k, v in (("check", c), ("lower", lo))
                                                       if "error" in v), file=sys.stderr, flush=True)
    helps = {side: help_start(args.help_repeat, checkout) for side, checkout in sides}

    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    print(f"ascendcraft from {Path(ascendcraft.__file__).parent}"
          + (f", baseline {args.baseline}" if args.baseline else "")
          + f"; {os.cpu_count()} CPUs, load average {load:.2f} at the end; warm = best of {args.repeat}; wall seconds\n")
    cols = [("check", "cold"), ("check", "warm"), ("check", "edited"), ("lower", "cold"), ("lower", "warm"),
            ("lower", "edited")]
    cols = [c for c in cols if not (args.no_lower and c[0] == "lower") and not (args.no_edited and c[1] == "edited")]

    def cell(row, what, kind):
        vals = [fmt(row.get((side, what), {}).get(kind)) for side, _ in sides]
        return " / ".join(reversed(vals)) if len(vals) > 1 else vals[0]
    print(("(before / after)\n\n" if args.baseline else "") + "| example | " + " | ".join(f"{w} {k}" for w, k in cols)
          + " |\n|---|" + "---|" * len(cols))
    for r in rows:
        print(f"| {r['name']} | " + " | ".join(cell(r, w, k) for w, k in cols) + " |")
    print()
    for side, _ in sides:
        if len(sides) > 1:
            print(f"{side}:")
        worst_c = max(((r[(side, "check")].get("warm", float("inf")), r["name"]) for r in rows), default=None)
        worst_l = max(((r[(side, "lower")].get("warm", float("inf")), r["name"]) for r in rows if (side, "lower") in r),
                      default=None)
        help_s, help_rc = helps[side]
        verdicts = []
        if worst_c is not None:
            verdicts.append(f"warm check <= {TARGET_CHECK_S} s for every example: "
                            f"{'met' if worst_c[0] <= TARGET_CHECK_S else 'NOT met'} "
                            f"(slowest {worst_c[1]}, {worst_c[0]:.2f} s)")
        if worst_l is not None:
            verdicts.append(f"warm lower <= {TARGET_LOWER_S} s for every example: "
                            f"{'met' if worst_l[0] <= TARGET_LOWER_S else 'NOT met'} "
                            f"(slowest {worst_l[1]}, {worst_l[0]:.2f} s)")
        verdicts.append(f"`ascendcraft --help` cold start < {TARGET_HELP_S} s: " + (
            "not measured (no entry point)" if help_s is None else
            f"{'met' if help_s < TARGET_HELP_S else 'NOT met'} ({help_s:.3f} s, best of {args.help_repeat}"
            + (f"; it exits with status {help_rc}" if help_rc else "") + ")"))
        for v in verdicts:
            print(f"- {v}")
    if args.json:
        Path(args.json).write_text(json.dumps({
            "rows": [{"name": r["name"], **{f"{side}_{what}": v for (side, what), v in
                                            ((k, v) for k, v in r.items() if isinstance(k, tuple))}} for r in rows],
            "help": {side: {"seconds": h[0], "exit_status": h[1]} for side, h in helps.items()},
            "load": load}, indent=1))
    failed = [r["name"] for r in rows if any("error" in v for k, v in r.items() if isinstance(k, tuple))]
    if failed:
        print(f"\nerrors in: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
