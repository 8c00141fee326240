"""``generate``: k samples, each a repair loop, and the verified kernel they found.

Python API (the CLI's ``ascendcraft gen`` is a thin layer over it)::

    from ascendcraft.llm.generate import generate
    g = generate("examples/activation/softmax/op.py", model="openai/gpt-4o", samples=3)
    g.verified, g.dsl, g.check.summary(), g.report["usage"], g.save("kernels_out/softmax")

Nothing is written until :meth:`GenerationResult.save`, which writes atomically.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from ..chips import DEFAULT_CHIP, load_chip
from ..distributions import DEFAULT_TRIALS
from ..errors import UserError
from .cache import ResponseCache
from .client import LLMClient, LLMError
from .config import resolve
from .prompt import Prompt, build_prompt
from .sample import Sample, run_sample
from .stages import Evaluator
from ..progress import reporter

if TYPE_CHECKING:
    from ..task import Task

DEFAULT_TURNS = 4


def default_temperature(samples: int) -> float:
    """Near-greedy for one sample; more varied when several samples should differ (pass@k)."""
    return 0.2 if samples == 1 else 0.8


def modeled_time(check, after) -> float | None:
    """The default ``score`` for ``best``: the modeled time (us) of the lowered kernel, if there is one."""
    cost = getattr(after, "cost", None)
    t = getattr(cost, "time_us", None)
    return float(t) if t is not None else None


@dataclass
class GenerationResult:
    op_name: str
    verified: bool
    dsl: str | None                 # the verified kernel
    check: object                   # its checking.CheckResult
    after: object                   # what after_verify returned for it (lowering / backend result)
    report: dict
    samples: list[Sample] = field(default_factory=list)
    compiled: object = None         # the compiled kernel handle, once lowering is wired in

    def save(self, out: Path | str, *, force: bool = False,
             write_extra: Callable[[Path], None] | None = None) -> Path:
        """Write kernels_out/<op>/ atomically; returns the directory written.

        A failed generation goes to ``out`` when it is free (or ``force``), else beside it in
        ``<out>.failed`` (replaced), so a good earlier result is never overwritten by a failure.
        ``write_extra(staging_dir)`` adds files (e.g. the lowering's AscendC sources).
        """
        from .report import write_result
        return write_result(self, Path(out), force=force, write_extra=write_extra)

    def summary(self) -> str:
        from .report import summary_text
        return summary_text(self.report)


def _load_task(op):
    from ..task import Task, load_task
    if isinstance(op, Task):
        return op
    path = getattr(op, "__file__", None) if not isinstance(op, (str, Path)) else op
    if path is None:
        raise UserError(f"cannot load an op from {type(op).__name__}",
                        hint="pass the op file's path (class Model, get_inputs, get_init_inputs) or its module")
    return load_task(path)


def first_prompt(op, *, chip: str = DEFAULT_CHIP, max_bytes: int = 64 << 20, full_shapes: bool = False,
                 examples_dir: Path | str | None = None, n_examples: int = 2,
                 lowering: bool = True) -> tuple[Task, Prompt]:
    """The loaded op and the messages every sample of :func:`generate` starts with (system, then
    the task), exactly as the model receives them; no model, no network (``gen --dry-run``).

    ``lowering``: whether verified replies are lowered to AscendC too (the system message says so).
    """
    task = _load_task(op)
    chip_profile = load_chip(chip)
    shapes = task.shapes(max_bytes=max_bytes, full=full_shapes)
    _ = shapes.output_specs   # op problems (a forward that fails) surface now, not as the model's fault
    prompt = build_prompt(task, shapes, chip_profile, examples_dir=Path(examples_dir) if examples_dir else None,
                          n_examples=n_examples, lowering=lowering)
    return task, prompt


def generate(op, *, model: str | None = None, api_base: str | None = None, samples: int = 1,
             turns: int = DEFAULT_TURNS, temperature: float | None = None, best: bool = False,
             chip: str = DEFAULT_CHIP, backend: str = "auto", trials: int = DEFAULT_TRIALS, seed: int = 0,
             max_bytes: int = 64 << 20, full_shapes: bool = False, inputs: str = "adversarial",
             after_verify: Callable | None = None, score: Callable | None = None,
             cache: str | ResponseCache | None = None, client: LLMClient | None = None,
             examples_dir: Path | str | None = None, n_examples: int = 2,
             progress: Callable[[str], None] | None = None, debug: bool = False,
             optimize: int = 0, precision: str = "ours") -> GenerationResult:
    """Generate a verified tile-DSL kernel for ``op`` (a task file path, its module, or a loaded Task).

    ``samples`` independent conversations of at most ``turns`` replies each; sample ``i``
    (1-based) sends request seed ``seed + i - 1``. Stops at the first verified sample, or with
    ``best`` runs them all and keeps the verified one with the lowest ``score(check, after)``
    (default: the modeled time of ``after``; with no score, the first verified one).
    ``after_verify(check_result)`` runs the stages after interpretation (lowering, backend)
    and raises an AscendcraftError on failure. ``optimize``: after a sample verifies, up to that
    many more replies in which the model is shown its kernel's modeled speed
    (:mod:`ascendcraft.speed`) and asked for a faster kernel; the sample keeps its fastest
    verified kernel (needs ``after_verify``, which models the time). Provider problems raise
    :class:`~ascendcraft.llm.client.LLMError`; a sample that never verifies does not raise:
    ``result.verified`` is False and ``result.report`` says where each sample died.
    """
    started = time.perf_counter()
    for name, value in (("samples", samples), ("turns", turns), ("trials", trials)):
        if not isinstance(value, int) or value < 1:
            raise UserError(f"{name} must be a positive integer, not {value!r}")
    if not isinstance(optimize, int) or optimize < 0:
        raise UserError(f"optimize must be a non-negative integer, not {optimize!r}")
    if optimize and after_verify is None:
        raise UserError("optimising needs the modeled time of the lowered kernel, and this run does not lower",
                        hint="drop --no-lower (or pass after_verify), or drop --optimize")
    if temperature is None:
        temperature = default_temperature(samples)
    if not 0.0 <= temperature <= 2.0:
        raise UserError(f"temperature must be between 0 and 2, not {temperature:g}")
    say = reporter(progress)

    if client is None:
        client = LLMClient(resolve(model, api_base),
                           cache=cache if isinstance(cache, ResponseCache) else ResponseCache(mode=cache))
    if client.on_retry is None:
        client.on_retry = lambda attempt, delay, err: say(client.retry_note(attempt, delay, err))

    task, prompt = first_prompt(op, chip=chip, max_bytes=max_bytes, full_shapes=full_shapes,
                                examples_dir=examples_dir, n_examples=n_examples, lowering=after_verify is not None)
    for note in prompt.warnings:
        say("warning: " + note)
    if (best or optimize) and score is None:
        score = modeled_time
    evaluate = Evaluator(task, chip=chip, trials=trials, seed=seed, max_bytes=max_bytes, full_shapes=full_shapes,
                         inputs=inputs, after_verify=after_verify, progress=None, precision=precision)

    speed = _speed_of(task, chip) if optimize else None

    done: list[Sample] = []
    stopped = None
    for i in range(1, samples + 1):
        try:
            s = run_sample(client, prompt.messages, evaluate, index=i, of=samples, turns=turns,
                           temperature=temperature, seed=seed + i - 1, say=say, debug=debug,
                           optimize=optimize, speed=speed)
        except LLMError as err:
            if not any(d.verified for d in done):
                raise
            stopped = err.message  # keep what is verified already rather than lose it
            say(f"stopping early: {err.message}")
            break
        if s.verified and score is not None:
            s.score = score(s.evaluation.check, s.evaluation.after)
        done.append(s)
        if s.stopped_early is not None:
            stopped = s.stopped_early
            say(f"stopping early: {s.stopped_early}")
            break
        if s.verified and not best:
            break

    chosen = _choose(done)
    from .report import build_report
    result = GenerationResult(task.name, chosen is not None, chosen.evaluation.dsl if chosen else None,
                              chosen.evaluation.check if chosen else None,
                              chosen.evaluation.after if chosen else None, report={}, samples=done)
    result.report = build_report(result, task=task, client=client, prompt=prompt, chosen=chosen,
                                 settings={"samples": samples, "turns": turns, "temperature": temperature,
                                           "best": best, "optimize": optimize, "chip": chip, "backend": backend, "trials": trials, "inputs": inputs, "precision": precision,
                                           "seed": seed, "max_bytes": max_bytes, "full_shapes": full_shapes,
                                           "cache": client.cache.mode, "cache_dir": str(client.cache.directory)},
                                 wall_s=time.perf_counter() - started, stopped=stopped)
    return result


def _speed_of(task, chip: str) -> Callable:
    """``speed(evaluation)`` for the optimisation turns: (modeled µs, the facts as text), or
    (None, why there is no modeled time). Modeled eager is estimated once, for every turn."""
    from ..errors import AscendcraftError
    from ..eager import estimate_eager
    from ..speed import speed_facts
    try:
        eager_us = estimate_eager(task, chip).time_us
    except AscendcraftError:      # the comparison is missing, the rest of the facts stand
        eager_us = None

    def speed(evaluation):
        facts = speed_facts(evaluation.after, eager_us) if evaluation.after is not None else None
        if facts is None:
            return None, getattr(evaluation.after, "cost_note", None) or "the kernel was not lowered"
        return facts.time_us, facts.text()
    return speed


def _choose(done: list[Sample]) -> Sample | None:
    """The verified sample with the lowest score; samples without a score rank after, the first first."""
    verified = [s for s in done if s.verified]
    if not verified:
        return None
    return min(verified, key=lambda s: (s.score is None, s.score if s.score is not None else 0.0, s.index))
