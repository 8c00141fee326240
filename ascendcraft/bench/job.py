"""One bench task, run inside its worker process: the op's eager estimate, then its kernel (given,
or written by a model) through the same stages as ``gen``, and its folder under ``tasks/``.

The record it returns is one line of results.jsonl (docs/bench.md lists the fields).
"""
from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from ..errors import AscendcraftError
from .faults import disk_full
from ..llm.stages import lowering_after_verify, stage_reporter, timing
from .tasks import BenchTask


@dataclass(frozen=True)
class BenchOptions:
    chip: str = "910B2"
    backend: str = "sim"
    trials: int = 5
    seed: int = 0
    inputs: str = "adversarial"
    precision: str = "ours"        # whose acceptance: ascendcraft.acceptance
    max_bytes: int = 64 << 20
    samples: int = 1               # model mode: samples per task (the k of pass@k)
    turns: int = 4                 # model mode: replies per sample
    optimize: int = 0              # model mode: replies asking for a faster kernel after one verifies
    model: str | None = None       # None: --kernels mode
    api_base: str | None = None
    temperature: float | None = None
    cache: str | None = None
    llm_timeout: float | None = None
    handwritten: bool = True       # time a task's hand-written operator beside a correct kernel (bench/handwritten.py)


def run_task(task: BenchTask, options: BenchOptions, folder: Path, send: Callable[[dict], None]) -> dict:
    """Run ``task``; ``send`` streams ``{"stage": ...}`` messages to the parent as it goes."""
    started = time.perf_counter()
    record = {"task": task.id, "category": task.category, "name": task.name, "op": str(task.op),
              "kernel": str(task.kernel) if task.kernel else None, "mode": "model" if options.model else "kernels",
              "status": "done", "samples": [], "correct": False}
    send({"stage": "load"})
    try:
        from ..task import load_task
        loaded = load_task(task.op)
    except AscendcraftError as err:
        return _finish(record, started, status="error", error=_error(err, "load"))
    record["eager"] = _eager(loaded, options.chip, send)
    try:
        if options.model:
            _model_samples(record, loaded, options, folder, send)
        else:
            _kernel_sample(record, task, loaded, options, folder, send)
    except AscendcraftError as err:        # the provider, or the output folder: the task stops here
        return _finish(record, started, status="error", error=_error(err, record.get("stage", "run")),
                       outside=disk_full(err))
    best = [s for s in record["samples"] if s["ended_at"] == "correct"]
    if best:
        chosen = min(best, key=lambda s: (s.get("kernel_us") is None, s.get("kernel_us") or 0.0))
        record.update(correct=True, kernel_us=chosen.get("kernel_us"), efficiency=chosen.get("efficiency"))
        eager_us = (record.get("eager") or {}).get("time_us")
        if eager_us and chosen.get("kernel_us"):
            record["speedup"] = eager_us / chosen["kernel_us"]
        if options.handwritten:
            _against_handwritten(record, task, options, send)
    return _finish(record, started)


def _against_handwritten(record: dict, task: BenchTask, options: BenchOptions, send) -> None:
    """The yardstick: the task's hand-written operator at the same case, and ours ÷ its time."""
    from .handwritten import handwritten
    try:
        hw = handwritten(task.op, options, send)
    except Exception as err:  # noqa: BLE001 - a bug of ours: the yardstick is missing, the kernel's record stands
        hw = {"time_us": None, "note": f"internal error timing the hand-written operator: {type(err).__name__}: {err}"}
    if hw is None:
        return
    record["handwritten"] = hw
    if hw.get("time_us") and record.get("kernel_us"):
        record["vs_handwritten"] = record["kernel_us"] / hw["time_us"]


def _finish(record: dict, started: float, *, status: str = "done", error: dict | None = None,
            outside: str | None = None) -> dict:
    record.pop("stage", None)       # where the task was, for its error only
    record["status"] = status
    if error is not None:
        record["error"] = error
    if outside:                     # not the task's failure: counted as not run, run again by --resume
        record["outside"] = outside
    record["wall_s"] = round(time.perf_counter() - started, 3)
    return record


def _error(err: BaseException, stage: str) -> dict:
    return {"stage": stage, "kind": getattr(err, "kind", type(err).__name__), "message": str(err)}


def _eager(loaded, chip: str, send) -> dict:
    send({"stage": "eager"})
    try:
        from ..eager import estimate_eager
        return estimate_eager(loaded, chip).to_json()
    except AscendcraftError as err:
        return {"time_us": None, "note": str(err).splitlines()[0]}


def _evaluator(loaded, options: BenchOptions, send, assist=None):
    from ..llm.stages import Evaluator
    say = stage_reporter(send)
    return Evaluator(loaded, chip=options.chip, trials=options.trials, seed=options.seed,
                     max_bytes=options.max_bytes, full_shapes=False, inputs=options.inputs,
                     after_verify=lowering_after_verify(options.chip, options.backend, options.trials, options.seed, say, assist), progress=say, precision=options.precision)


def _kernel_sample(record: dict, task: BenchTask, loaded, options: BenchOptions, folder: Path, send) -> None:
    from ..llm.stages import StageFailure
    if task.kernel is None:
        record["samples"].append({"ended_at": "parse", "error": "no kernel for this task in the --kernels folder"})
        return
    text = task.kernel.read_text()
    evaluate = _evaluator(loaded, options, send)
    try:
        evaluation = evaluate.evaluate_dsl(text, str(task.kernel))
    except StageFailure as fail:
        record["samples"].append({"ended_at": fail.stage, "error": fail.error, "stopped_by_us": fail.ours,
                                  **({"unverifiable": fail.error} if fail.final else {})})
        _write_failure(folder, record, text, fail.stage, fail.error)
        return
    except Exception as err:  # noqa: BLE001 - a bug of ours: the sample stops, the task is recorded
        if disk_full(err):     # no bug: the task stops, recorded as not run (an outside fault)
            raise
        stage = evaluate.stage if evaluate.stage in ("parse", "check", "verify", "lower") else "lower"
        error = f"internal error: {type(err).__name__}: {err}"
        record["samples"].append({"ended_at": stage, "error": error, "stopped_by_us": True, "internal_error": error})
        _write_failure(folder, record, text, stage, error)
        return
    record["samples"].append({"ended_at": "correct", **timing(evaluation.after)})
    record["stage"] = "write"
    from ..results import write_output
    write_output(evaluation.after, folder, force=True)


def _model_samples(record: dict, loaded, options: BenchOptions, folder: Path, send) -> None:
    from ..llm.command import save_generation
    from ..llm.config import resolve
    from ..llm.cache import ResponseCache
    from ..llm.client import LLMClient
    from ..llm.generate import generate
    say = stage_reporter(send)
    client = LLMClient(resolve(options.model, options.api_base, timeout=options.llm_timeout),
                       cache=ResponseCache(mode=options.cache))
    record["stage"] = "model"
    # every sample runs (no early stop), so pass@k counts what each would have done alone
    result = generate(loaded, samples=options.samples, turns=options.turns, temperature=options.temperature,
                      best=True, chip=options.chip, backend=options.backend, trials=options.trials,
                      seed=options.seed, inputs=options.inputs, precision=options.precision,
                      max_bytes=options.max_bytes, client=client,
                      progress=say, after_verify=lowering_after_verify(options.chip, options.backend, options.trials, options.seed, say, client.ask), optimize=options.optimize)
    for s in result.samples:
        sample = {"sample": s.index, "turns": len(s.turns), "ended_at": "correct" if s.verified else (s.died_at or "parse"),
                  **s.totals()}
        if s.verified:
            sample.update(timing(s.evaluation.after))
            if any(t.optimizing for t in s.turns):   # what the optimisation turns gained over the first kernel
                times = [t.time_us for t in s.turns if t.time_us is not None]
                sample.update(best_turn=s.best_turn, first_verified_us=times[0] if times else None,
                              optimization_turns=sum(t.optimizing for t in s.turns))
        elif s.turns:
            sample["error"] = s.turns[-1].error
        if s.internal_error:
            sample["internal_error"] = s.internal_error
        if s.stopped_by_us:
            sample["stopped_by_us"] = True
        if s.unverifiable:
            sample["unverifiable"] = s.unverifiable
        record["samples"].append(sample)
    record["usage"] = result.report.get("usage")
    record["stage"] = "write"
    save_generation(result, folder, force=True)


def _write_failure(folder: Path, record: dict, text: str, stage: str, error: str) -> None:
    from ..outdir import atomic_output_dir
    with atomic_output_dir(folder, force=True) as d:
        (d / "kernel.dsl").write_text(text)
        (d / "report.md").write_text(f"# {record['task']}: failed at {stage}\n\nop: `{record['op']}`\n\n"
                                     f"```\n{error.rstrip()}\n```\n")
        (d / "report.json").write_text(json.dumps({"task": record["task"], "stage": stage, "error": error},
                                                  indent=2) + "\n")
