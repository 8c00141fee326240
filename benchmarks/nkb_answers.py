"""NPUKernelBench's hand-written answers on the simulator, unchanged: how many build, tile and match
their reference on every case, and why the others do not (``ascendcraft.cann.corpus``).

    python3 benchmarks/nkb_answers.py <NPUKernelBench>/tasks [--jobs 2] [--timeout 900] [--trials 1]
                                      [--max-bytes 16777216] [--only Gelu,RmsNorm] [--out answers.jsonl]

The corpus is NPUKernelBench's repository (weich97/NPUKernelBench) checked out on disk; nothing of
it is in this repository. Each answer runs in a process of its own under ``--timeout``; a line per
answer goes to ``--out`` (JSON) and a table to stdout. docs/simulator.md records the figures.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

_ONE = """
import json, sys
from pathlib import Path
from ascendcraft.cann.corpus import run_answer
r = run_answer(Path(sys.argv[1]), trials=int(sys.argv[2]), max_bytes=int(sys.argv[3]), model_time=sys.argv[4] == "1")
print("RESULT " + json.dumps(r.to_json()))
"""


def _run(folder: Path, args) -> dict:
    from ascendcraft.cann.corpus import task_label
    started = time.perf_counter()
    try:
        p = subprocess.run([sys.executable, "-c", _ONE, str(folder), str(args.trials), str(args.max_bytes),
                            "1" if args.model_time else "0"], capture_output=True, text=True, timeout=args.timeout)
    except subprocess.TimeoutExpired:
        return {"task": task_label(folder), "built": None, "tiled": None, "matched": False, "failure": "timeout",
                "detail": f"over {args.timeout:g} s", "wall_s": round(time.perf_counter() - started, 1)}
    line = next((ln for ln in p.stdout.splitlines() if ln.startswith("RESULT ")), None)
    if line is None:
        return {"task": task_label(folder), "built": None, "tiled": None, "matched": False, "failure": "crash",
                "detail": (p.stderr.strip().splitlines() or ["no output"])[-1][:300],
                "wall_s": round(time.perf_counter() - started, 1)}
    return json.loads(line[len("RESULT "):])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tasks", help="NPUKernelBench's tasks/ folder (or one task folder)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=900.0, help="seconds per answer")
    ap.add_argument("--trials", type=int, default=1, help="verification trials per case")
    ap.add_argument("--max-bytes", type=int, default=16 << 20, help="cases larger than this are not verified")
    ap.add_argument("--model-time", action="store_true", help="also model each matching answer's time")
    ap.add_argument("--only", help="comma-separated substrings of task paths")
    ap.add_argument("--out", help="write one JSON line per answer here")
    args = ap.parse_args(argv)
    from ascendcraft.cann.corpus import answer_folders
    folders = answer_folders(Path(args.tasks))
    if args.only:
        folders = [f for f in folders if any(s in str(f) for s in args.only.split(","))]
    print(f"{len(folders)} answers, {args.jobs} at once", file=sys.stderr)
    results = []
    with ThreadPoolExecutor(args.jobs) as pool:
        for r in pool.map(lambda f: _run(f, args), folders):
            results.append(r)
            print(f"[{len(results)}/{len(folders)}] {r['task']}: "
                  + ("matched" if r["matched"] else f"{r['failure']}: {r.get('detail')}"), file=sys.stderr, flush=True)
    if args.out:
        Path(args.out).write_text("".join(json.dumps(r) + "\n" for r in results))
    n = len(results)
    built = sum(bool(r.get("built")) for r in results)
    tiled = sum(bool(r.get("tiled")) for r in results)
    matched = sum(bool(r.get("matched")) for r in results)
    print(f"| answers | build | tile (host code ran) | match every verified case |\n|---|---|---|---|\n"
          f"| {n} | {built} | {tiled} | {matched} |\n")
    classes: dict[str, int] = {}
    for r in results:
        if not r["matched"]:
            classes[r["failure"]] = classes.get(r["failure"], 0) + 1
    print("| failure | answers |\n|---|---|")
    for cls, count in sorted(classes.items(), key=lambda kv: -kv[1]):
        print(f"| {cls} | {count} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
