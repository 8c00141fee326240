"""The bench table: stage rates, pass@k, fast_p and the mean speedup, per category and overall.

Definitions (docs/bench.md explains each against MultiKernelBench's own metrics):

* A sample is one kernel: one ``--kernels`` file, or one model sample (its last reply).
  It ends at the first stage it fails, or ``correct``; it passed every stage before.
* pass@k is the unbiased estimator of Chen et al. 2021 (HumanEval), as KernelBench uses it:
  with n samples of which c are correct, ``1 - C(n-c, k) / C(n, k)``, averaged over tasks.
* fast_p is the share of all tasks whose best correct kernel is correct and at least p times
  faster than the modeled eager time; fast_0 is the share of tasks solved.
* ours ÷ hand-written is a correct task's kernel time over its hand-written operator's at the same
  case (bench/handwritten.py), for the tasks that carry one that matched; its geometric mean is
  over those tasks (below 1: ours is faster).
* A sample stopped by a bug of ascendcraft (an internal error, or a failure it recognises as its
  own: ``stopped_by_us``) is no evidence about the kernel: the stage rates leave it out and count
  it apart (``stopped_by_us``); it is not correct, so pass@k and fast_p count it as unsolved.
* A task that did not run for an outside reason (a full disk, a worker killed from outside:
  bench/faults.py) is no evidence either, but it is one of the tasks: it counts as ``not_run``,
  its ``k`` samples in the stage rates' denominators having passed nothing, and unsolved in
  pass@k and fast_p; so the table and the headline ("2 of 5 correct; 3 not run") agree.
"""
from __future__ import annotations

import math
from collections import defaultdict

from .faults import is_outside, kinds

#: The stages a sample passes, in order; a sample that fails none ends at ``correct``.
STAGES = ("parse", "check", "verify", "lower", "compile", "correct")
#: The p of fast_p: 0, 1, 1.5 and 2, and the 0.2 and 0.8 the AscendCraft paper reports.
FAST_P = (0.0, 0.2, 0.8, 1.0, 1.5, 2.0)


def pass_at_k(n: int, c: int, k: int) -> float:
    """Probability that at least one of k samples drawn from n (c of them correct) is correct."""
    if n < 1 or not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"pass@k needs 1 <= k <= n and 0 <= c <= n (n={n}, c={c}, k={k})")
    if n - c < k:
        return 1.0
    # 1 - C(n-c, k)/C(n, k) as a product, which neither overflows nor loses precision
    return 1.0 - math.prod(1.0 - k / i for i in range(n - c + 1, n + 1))


def stages_passed(ended_at: str) -> tuple[str, ...]:
    """The stages a sample that ended at ``ended_at`` passed (``correct``: all of them)."""
    if ended_at == "correct":
        return STAGES
    if ended_at == "extract":        # no kernel in the reply: it did not even parse
        return ()
    return STAGES[:STAGES.index(ended_at)] if ended_at in STAGES else ()


def summarise(records: list[dict], k: int) -> dict:
    """The summary of finished task records (see bench.worker for their fields)."""
    groups: dict[str, list[dict]] = defaultdict(list)
    for r in records:
        groups[r["category"]].append(r)
    return {"overall": _summary(records, k),
            "categories": {c: _summary(rs, k) for c, rs in sorted(groups.items())}}


def _summary(records: list[dict], k: int) -> dict:
    tasks = len(records)
    ran = [r for r in records if not is_outside(r)]
    not_run = tasks - len(ran)
    samples = [s for r in ran for s in r.get("samples", [])]
    judged = [s for s in samples if not s.get("stopped_by_us")]
    counted = len(judged) + k * not_run          # a task not run: k samples that passed no stage
    rates = {}
    for stage in STAGES:
        passed = sum(stage in stages_passed(s["ended_at"]) for s in judged)
        rates[stage] = {"passed": passed, "rate": passed / counted if counted else None}
    ks = sorted({1, k})
    passes = {}
    for kk in ks:
        per_task = [pass_at_k(len(r["samples"]), _correct(r), kk) if len(r.get("samples", [])) >= kk else 0.0
                    for r in ran]
        passes[f"pass@{kk}"] = sum(per_task) / tasks if tasks else None
    speedups = [r["speedup"] for r in ran if r.get("correct") and r.get("speedup")]
    against = [r["vs_handwritten"] for r in ran if r.get("correct") and r.get("vs_handwritten")]
    fast = {f"fast_{p:g}": (sum(1 for r in ran if r.get("correct") and (r.get("speedup") or 0) >= p) / tasks
                            if tasks else None) for p in FAST_P}
    usage = [r.get("usage") or {} for r in records]
    costs = [u.get("cost_usd") for u in usage if u]
    return {"tasks": tasks, "samples": len(samples) + k * not_run,
            "finished": sum(r["status"] == "done" for r in ran),
            "timed_out": sum(r["status"] == "timeout" for r in ran),
            "crashed": sum(r["status"] == "crashed" for r in ran),
            "errors": sum(r["status"] == "error" for r in ran),
            "not_run": not_run, "outside": kinds(records),
            "correct_tasks": sum(bool(r.get("correct")) for r in ran),
            "stopped_by_us": len(samples) - len(judged),
            "unverifiable_tasks": sum(any(s.get("unverifiable") for s in r.get("samples", [])) for r in ran),
            "stages": rates, **passes, **fast,
            "geomean_speedup": _geomean(speedups),
            "handwritten_tasks": len(against), "geomean_vs_handwritten": _geomean(against),
            "tokens_in": sum(u.get("tokens_in") or 0 for u in usage),
            "tokens_out": sum(u.get("tokens_out") or 0 for u in usage),
            "cost_usd": None if any(c is None for c in costs) and costs else round(sum(c or 0 for c in costs), 6)}


def _geomean(values: list[float]) -> float | None:
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def _correct(record: dict) -> int:
    return sum(s["ended_at"] == "correct" for s in record.get("samples", []))
