"""NPUKernelBench's hand-written answers as a corpus: each task folder's ``answer/0`` project run
through ``check_project`` against the task's own reference and cases, unchanged, and every
failure classified by where it stopped (docs/simulator.md, "NPUKernelBench's answers").

The classes, in pipeline order: ``task`` (our loader cannot load the task's reference or cases),
``host header`` / ``host API`` (op_host includes a header or calls a host API our headers lack),
``host build`` (op_host does not compile for another reason), ``host run`` (its TilingFunc or
InferShape fails, crashes or is stopped), ``kernel build`` (op_kernel does not compile against
the simulator's headers: the API named where the compiler names one), ``binding`` (the task's
forward does not bind to the OpDef), ``simulator rule`` (a run stopped by a rule: out of bounds,
alignment, capacity ...), ``mismatch`` (outputs wrong on a case: the answer's defect or the
simulator's, told apart by hand), ``other``.
"""
from __future__ import annotations

import re
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from ..errors import AscendcraftError

ANSWER = "answer/0"


@dataclass(frozen=True)
class AnswerOutcome:
    task: str                 # level/family/Op
    built: bool               # host and kernel code compiled
    tiled: bool               # the host code ran for a case
    matched: bool             # every verified case matched the reference
    failure: str | None       # the class (module docstring), None when matched
    detail: str | None        # the first line of the error, or the first failing case (matched: why no time)
    cases: int = 0            # cases (groups) verified
    not_verified: int = 0     # cases left out (too large, or not reached after a failure)
    time_us: float | None = None
    wall_s: float = 0.0

    def to_json(self) -> dict:
        return asdict(self)


def answer_folders(root: Path) -> list[Path]:
    """Every task folder under ``root`` (a ``tasks/`` tree, or one task) with ``answer/0`` and
    ``validation/``."""
    root = Path(root)
    if (root / ANSWER).is_dir():
        return [root]
    return sorted(p.parent.parent for p in root.rglob("answer/0") if (p.parent.parent / "validation").is_dir())


def task_label(folder: Path) -> str:
    parts = folder.resolve().parts
    level = next((i for i, p in enumerate(parts) if p.startswith("level")), len(parts) - 3)
    return "/".join(parts[level:])


def run_answer(folder: Path, *, trials: int = 1, max_bytes: int = 16 << 20, model_time: bool = False,
               chip: str = "910B2", seed: int = 0, inputs: str = "adversarial",
               precision: str = "ours") -> AnswerOutcome:
    """Run task ``folder``'s answer against its reference on its cases (those within ``max_bytes``)."""
    from ..sim.build import SimBuildError
    from ..sim.host_build import HostBuildError
    from ..sim.host_run import HostRunError
    from ..task import load_task
    from .check import ProjectRunError, check_project

    started, label = time.perf_counter(), task_label(folder)

    def outcome(built, tiled, matched, failure, detail, **more) -> AnswerOutcome:
        return AnswerOutcome(label, built, tiled, matched, failure, _first_line(detail) if detail else None,
                             wall_s=round(time.perf_counter() - started, 2), **more)
    try:
        load_task(folder)
    except AscendcraftError as err:
        return outcome(False, False, False, "task", str(err))
    try:
        result = check_project(folder / ANSWER, folder, trials=trials, seed=seed, chip=chip, max_bytes=max_bytes,
                               inputs=inputs, precision=precision, model_time=model_time)
    except HostBuildError as err:
        cls = "host header" if err.missing_headers else "host API" if err.missing_apis else "host build"
        return outcome(False, False, False, cls, str(err))
    except HostRunError as err:
        return outcome(True, False, False, "host run", str(err))
    except SimBuildError as err:
        return outcome(False, True, False, "kernel build", str(err))
    except ProjectRunError as err:
        return outcome(True, True, False, "simulator rule", str(err))
    except AscendcraftError as err:
        cls = "binding" if "operator" in str(err) and ("input" in str(err) or "attribute" in str(err)) else "other"
        return outcome(True, True, False, cls, str(err))
    except Exception as err:  # noqa: BLE001 - a bug of ours: recorded, the corpus goes on
        return outcome(False, False, False, "other", f"internal error: {type(err).__name__}: {err}")
    cases = len(result.checks)
    if not result.passed:
        return outcome(True, True, False, "mismatch", result.first_failure(), cases=cases,
                       not_verified=len(result.skipped))
    return outcome(True, True, True, None, result.time_note if model_time and result.time_us is None else None,
                   cases=cases, not_verified=len(result.skipped), time_us=result.time_us)


def _first_line(text: str) -> str:
    lines = [ln for ln in str(text).splitlines() if ln.strip()]
    line = lines[0] if lines else ""
    line = re.sub(r"^error: ", "", line)
    # the compiler's line names the API the kernel needs: keep the first one after the headline
    if len(lines) > 1 and ("does not compile" in line or "does not build" in line or line.endswith(":")):
        line += " | " + lines[1].strip()
    return line[:300]
