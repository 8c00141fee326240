"""The yardstick: a task that carries a hand-written operator (NPUKernelBench's task folders hold
CANN's own as ``answer/0``) has it run on the same backend model at the same case as the task's
kernel, so bench can say how our kernel compares with what a kernel engineer shipped
(docs/bench.md, "Against hand-written kernels").

The answer is verified against the task's reference as ``sim-op`` verifies a project, then timed
at the task's real shapes (its largest group), where the kernel was timed; only a matching
answer's time is a yardstick.
"""
from __future__ import annotations

from pathlib import Path


def answer_project(op: Path) -> Path | None:
    """The hand-written project of the task at ``op`` (a task folder with ``answer/0``), else None."""
    from ..cann.corpus import ANSWER
    project = Path(op) / ANSWER
    return project if (project / "op_kernel").is_dir() and (project / "op_host").is_dir() else None


def handwritten(op: Path, options, send) -> dict | None:
    """The hand-written answer's outcome at the task's real shapes: ``time_us`` (None unless it
    matched its reference and its time was modeled) and ``note`` (why there is no time); None when
    the task has none."""
    from ..cann.corpus import run_answer
    project = answer_project(op)
    if project is None:
        return None
    send({"stage": "hand-written"})
    out = run_answer(Path(op), trials=options.trials, seed=options.seed, inputs=options.inputs,
                     precision=options.precision, max_bytes=options.max_bytes, model_time=True, chip=options.chip)
    note = None
    if not out.matched:
        note = f"the hand-written operator is not a yardstick here ({out.failure}): {out.detail}"
    elif out.time_us is None:
        note = f"the hand-written operator matched but has no modeled time: {out.detail or 'none was modeled'}"
    return {"project": str(project), "time_us": out.time_us if out.matched else None, "matched": out.matched,
            "failure": out.failure, "note": note}
