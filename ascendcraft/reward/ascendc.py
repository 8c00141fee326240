"""A reply written in AscendC, MultiKernelBench's custom-operator form: the project it holds is
built and run on the simulator, its host code deciding the tiling, and verified against the task
by the same policy as a DSL kernel (``ascendcraft.cann``). Its stages: ``extract`` (the six
strings), ``compile`` (host code and kernel build), ``correct`` (a run fails or its outputs are
wrong); the DSL's parse, check, verify and lower do not apply.

The reply is never executed as Python (``ascendcraft.cann.reply``); its C++ runs only inside the
simulator's sandbox, host code included.
"""
from __future__ import annotations

import tempfile
from pathlib import Path

from ..errors import AscendcraftError
from .score import RewardResult, RewardSettings, correct_result, load_checked_task, scored


def score_ascendc(task_path: str | Path, completion: str, settings: RewardSettings, say, label: str) -> RewardResult:
    from ..cann.check import check_project
    from ..cann.reply import ReplyFormError, extract_project
    from ..sim.build import SimBuildError

    try:
        sources = extract_project(completion)
    except ReplyFormError as err:
        return scored(label, "extract", settings, error=str(err))
    try:
        task = load_checked_task(task_path, settings.max_bytes)
    except AscendcraftError as err:
        return scored(label, "compile", settings, error=str(err), status="task_error")
    with tempfile.TemporaryDirectory(prefix="ascendcraft-reply-") as folder:
        project = sources.write(Path(folder) / sources.op)
        try:
            say({"stage": "building the reply's operator", "at": "compile"})
            result = check_project(project, task.path, trials=settings.trials, seed=settings.seed,
                                   chip=settings.chip, max_bytes=settings.max_bytes, inputs=settings.inputs,
                                   precision=settings.precision, model_time=settings.lower,
                                   progress=lambda m: say({"stage": m, "at": "correct" if m.startswith("verifying")
                                                           else "compile"}))
        except SimBuildError as err:         # host or kernel code that does not build (HostBuildError too)
            return scored(label, "compile", settings, error=str(err))
        except AscendcraftError as err:      # its host code failing, or a run the simulator stopped
            return scored(label, "correct", settings, error=str(err),
                          status="internal_error" if err.ours else "scored")
    if not result.passed:
        return scored(label, "correct", settings, error=result.first_failure())
    return correct_result(label, task, result.time_us, settings, bound=result.bound)
