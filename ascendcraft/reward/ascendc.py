"""A reply written in AscendC, in MultiKernelBench's custom-operator form (the project it holds, its host
code deciding the tiling) or its direct-launch form (kernel sources and a pybind11 binding that tiles and
launches): built and run on the simulator and verified against the task by the same policy as a DSL kernel
(``ascendcraft.cann``). Its stages: ``extract`` (the six strings, or the JSON document of sources),
``compile`` (host code and kernel build), ``correct`` (host code or a run fails, or its outputs are wrong);
the DSL's parse, check, verify and lower do not apply.

The reply is never executed as Python (``ascendcraft.cann.reply``, ``ascendcraft.cann.direct_reply``); its
C++ runs only inside the simulator's sandbox, host code included.
"""
from __future__ import annotations

import tempfile
from pathlib import Path

from ..errors import AscendcraftError
from .score import RewardResult, RewardSettings, correct_result, load_checked_task, scored


def is_ascendc(completion: str) -> bool:
    """Whether a reply is AscendC in one of MultiKernelBench's forms (custom operator or direct launch)."""
    from ..cann.direct_reply import is_direct_reply
    from ..cann.reply import is_ascendc_reply
    return is_ascendc_reply(completion) or is_direct_reply(completion)


def score_ascendc(task_path: str | Path, completion: str, settings: RewardSettings, say, label: str) -> RewardResult:
    from ..cann.direct_reply import extract_direct
    from ..cann.reply import ReplyFormError, extract_project, is_ascendc_reply
    from ..sim.build import SimBuildError

    custom = is_ascendc_reply(completion)
    try:
        sources = extract_project(completion) if custom else extract_direct(completion)
    except ReplyFormError as err:
        return scored(label, "extract", settings, error=str(err))
    try:
        task = load_checked_task(task_path, settings.max_bytes)
    except AscendcraftError as err:
        return scored(label, "compile", settings, error=str(err), status="task_error")
    options = dict(trials=settings.trials, seed=settings.seed, chip=settings.chip, max_bytes=settings.max_bytes,
                   inputs=settings.inputs, precision=settings.precision, model_time=settings.lower,
                   progress=lambda m: say({"stage": m, "at": "correct" if m.startswith("verifying") else "compile"}))
    with tempfile.TemporaryDirectory(prefix="ascendcraft-reply-") as folder:
        try:
            say({"stage": "building the reply's operator", "at": "compile"})
            if custom:
                from ..cann.check import check_project
                result = check_project(sources.write(Path(folder) / sources.op), task.path, **options)
            else:
                from ..cann.direct_check import check_direct
                result = check_direct(sources, task.path, **options)
        except SimBuildError as err:         # host or kernel code that does not build (HostBuildError too)
            return scored(label, "compile", settings, error=str(err))
        except AscendcraftError as err:      # its host code failing, or a run the simulator stopped
            return scored(label, "correct", settings, error=str(err),
                          status="internal_error" if err.ours else "scored")
    if not result.passed:
        return scored(label, "correct", settings, error=result.first_failure())
    return correct_result(label, task, result.time_us, settings, bound=result.bound)
