"""Rewards per second of ``ascendcraft.reward``, by kind of reply: verified (checked, lowered,
built, run on the simulator and timed), wrong (the interpreter finds the mismatch) and
unparseable (the parser stops it).

    python3 benchmarks/reward_throughput.py [--replies 24] [--jobs N] [--trials 5] [--no-lower] [--examples a,b]
    python3 benchmarks/reward_throughput.py --ascendc [--replies 8]

Each kind is scored as one batch of ``--replies`` replies spread over the bundled examples named
(round-robin), in a pool of ``--jobs`` workers, once cold (fresh workers: each loads its tasks
and computes their references) and once warm (the same pool again: what an RL run sees after its
first batches). A private simulator build cache is used, so "cold" also pays each kernel's first
build; the warm batch rebuilds nothing. docs/performance.md ("Reward throughput") records the
figures. ``--ascendc``: replies in AscendC instead, MultiKernelBench's direct-launch form (the test operator
tests/cann/direct/leaky against tests/cann/leaky_op.py; wrong: its slope doubled; unparseable: broken JSON),
each made distinct by a comment in its ModelNew.py, so the warm batch's C++ is in the build cache.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
CANN_TESTS = ROOT / "tests" / "cann"


def _ascendc_reply(kind: str, tag: str) -> str:
    import importlib.util
    spec = importlib.util.spec_from_file_location("direct_helpers", CANN_TESTS / "direct_helpers.py")
    h = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(h)
    files = h.edited("ModelNew.py", "import torch", f"# reply {tag}\nimport torch")
    if kind == "wrong":
        files = h.edited("kernel/leaky_kernel.cpp", "static_cast<T>(slope), n)", "static_cast<T>(slope * 2), n)", files)
    text = h.direct_reply(files)
    return text.replace('"sources": [', '"sources": [[', 1) if kind == "unparseable" else text


def _replies(example: str) -> dict[str, str]:
    kernel = (EXAMPLES / example / "kernel.dsl").read_text()
    # wrong on purpose: the value of the last store scaled by 2
    i = kernel.rindex("store(")
    j = kernel.index("], ", i) + 3
    end = kernel.index("\n", j)
    wrong = kernel[:j] + "2.0 * (" + kernel[j:end].rstrip()[:-1] + "))" + kernel[end:]
    return {"verified": f"```dsl\n{kernel}```", "wrong": f"```dsl\n{wrong}```",
            "unparseable": "```dsl\nkernel broken(x: gm f32[N] -> (y: gm f32[N]):\n    pass\n```"}


def _distinct(reply: str, tag: str) -> str:
    """The reply with a constant of its own, so no two replies are one kernel: the check of each is
    computed, not remembered (its build is the same C++, so the build cache serves it once warm)."""
    lines = reply.split("\n")
    at = next((i for i, line in enumerate(lines) if line.startswith("kernel ")), None)
    if at is None:
        return reply
    return "\n".join(lines[:at + 1] + [f"    const REPLY_{tag.upper()} = 1"] + lines[at + 1:])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--replies", type=int, default=24, help="replies per kind (default 24)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="worker processes (default: cores)")
    ap.add_argument("--trials", type=int, default=None, help="verification trials (default: the policy's)")
    ap.add_argument("--no-lower", action="store_true", help="stop at the interpreter's verdict (no lowering)")
    ap.add_argument("--examples", default="activation/leaky_relu,activation/softmax,reduce/sum_reduction_over_a_dimension",
                    help="comma-separated bundled examples the replies are for")
    ap.add_argument("--ascendc", action="store_true", help="AscendC replies in the direct-launch form (see above)")
    args = ap.parse_args(argv)
    os.environ.setdefault("ASCENDCRAFT_CACHE_DIR", tempfile.mkdtemp(prefix="reward-bench-"))

    from ascendcraft.reward import RewardPool, RewardSettings
    examples = args.examples.split(",")
    replies = {e: _replies(e) for e in examples}
    settings = RewardSettings(lower=not args.no_lower, **({"trials": args.trials} if args.trials else {}))
    what = "the direct-launch AscendC test operator" if args.ascendc else ", ".join(examples)
    print(f"{args.jobs} workers, {args.replies} replies per kind over {what}, trials {settings.trials}"
          + ("" if settings.lower else ", no lowering"),
          file=sys.stderr)
    rows = []
    with RewardPool(settings, workers=args.jobs, time_limit=600) as pool:
        for kind in ("unparseable", "wrong", "verified"):
            for phase in ("cold", "warm"):
                if phase == "cold":
                    pool.close()          # fresh workers: nothing loaded, nothing computed
                if args.ascendc:
                    items = [(CANN_TESTS / "leaky_op.py", _ascendc_reply(kind, f"{phase}{i}")) for i in range(args.replies)]
                else:
                    items = [(EXAMPLES / examples[i % len(examples)] / "op.py",
                              _distinct(replies[examples[i % len(examples)]][kind], f"{phase}{i}"))
                             for i in range(args.replies)]
                started = time.perf_counter()
                results = pool.score(items)
                wall = time.perf_counter() - started
                expected = {"verified": "correct", "wrong": "correct" if args.ascendc else "verify",
                            "unparseable": "extract" if args.ascendc else "parse"}[kind]
                off = [r for r in results if r.stage != expected]
                if off:
                    print(f"warning: {len(off)} {kind} replies ended elsewhere: {off[0].stage}: {off[0].error}",
                          file=sys.stderr)
                rate = len(results) / wall
                rows.append((kind, phase, wall, rate, rate / args.jobs))
                print(f"{kind:12s} {phase}: {wall:7.1f} s, {rate:7.2f}/s, {rate / args.jobs:7.2f}/s per core",
                      file=sys.stderr)
    print("| reply | workers | cold: rewards/s (per core) | warm: rewards/s (per core) |")
    print("|---|---|---|---|")
    for kind in ("verified", "wrong", "unparseable"):
        cold, warm = [r for r in rows if r[0] == kind]
        print(f"| {kind} | {args.jobs} | {cold[3]:.2f} ({cold[4]:.2f}) | {warm[3]:.2f} ({warm[4]:.2f}) |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
