"""One reply scored in this process: the stages of ``gen`` (extract, parse, check, verify, lower,
compile, correct), the modeled speed against modeled eager, and the shaped reward.

The task is the caller's (an op file or task folder it trusts); the reply is untrusted text,
which is only ever parsed as the tile DSL, never run as Python. A loaded task, its verification
draws and references, and its eager estimate stay cached in this process (``ascendcraft.memo``),
so a worker that scores the same task again pays for them once; builds are cached on disk.
"""
from __future__ import annotations

import time
import weakref
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Callable

from ..chips import DEFAULT_CHIP
from ..distributions import DEFAULT_TRIALS, INPUT_POLICIES
from ..errors import AscendcraftError, UserError
from .shaping import STAGES, Shaping


@dataclass(frozen=True)
class RewardSettings:
    """What every reply of a run is judged by; the same settings and seed give the same results."""
    chip: str = DEFAULT_CHIP
    backend: str = "sim"
    trials: int = DEFAULT_TRIALS
    seed: int = 0
    inputs: str = "adversarial"
    precision: str = "ours"
    max_bytes: int = 64 << 20
    lower: bool = True                 # False: the reward stops at the interpreter's verdict, no speed
    shaping: Shaping = field(default_factory=Shaping)

    def __post_init__(self):
        if not isinstance(self.trials, int) or self.trials < 1:
            raise UserError(f"trials must be a positive integer, not {self.trials!r}")
        if self.inputs not in INPUT_POLICIES:
            raise UserError(f"unknown input policy {self.inputs!r}", hint=f"choose one of {', '.join(INPUT_POLICIES)}")
        if self.backend not in ("sim", "npu"):
            raise UserError(f"the reward runs kernels on 'sim' or 'npu', not {self.backend!r}")


@dataclass(frozen=True)
class RewardResult:
    """The verdict on one reply (docs/training.md lists the fields).

    ``status``: ``scored``; ``timeout`` (cut off at its time limit, scored as failed at the stage it
    had reached); ``internal_error`` (a bug of ascendcraft: ``reward`` is None, drop the sample);
    ``task_error`` (the task, not the reply, failed: it does not load or its reference fails;
    ``reward`` None)."""
    task: str
    stage: str                        # where the reply stopped; "correct" with correct=True when it passed
    correct: bool
    reward: float | None
    status: str = "scored"
    error: str | None = None          # the first error, as the model would be shown it
    time_us: float | None = None      # the lowered kernel's modeled time at the task's real shapes
    floor_us: float | None = None
    efficiency: float | None = None
    bound: str | None = None
    eager_us: float | None = None     # modeled PyTorch eager at the same shapes
    speedup: float | None = None
    unverifiable: bool = False        # the task's reference is no evidence (the same on every draw)
    wall_s: float = 0.0               # the only field that differs between two runs of one input

    def to_json(self) -> dict:
        return asdict(self)


def scored(task: str, stage: str, settings: RewardSettings, *, error: str | None = None,
           status: str = "scored", **facts) -> RewardResult:
    """A failed reply's result: the credit of ``stage`` (None for our own or the task's failures)."""
    stage = stage if stage in STAGES else "lower"
    reward = None if status in ("internal_error", "task_error") else settings.shaping.reward(stage, False, None)
    return RewardResult(task, stage, False, reward, status=status, error=error, **facts)


#: Each loaded task's modeled eager time by chip. Keyed by the Task object (load_task gives the same
#: one for the same file text), so an op file edited during a long run is estimated again.
_EAGER: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def eager_us(task, chip: str) -> float | None:
    per_chip = _EAGER.setdefault(task, {})
    if chip not in per_chip:
        from ..eager import estimate_eager
        try:
            per_chip[chip] = estimate_eager(task, chip).time_us
        except AscendcraftError:           # no baseline: the speed term is left out, the rest stands
            per_chip[chip] = None
    return per_chip[chip]


def load_checked_task(task_path, max_bytes: int):
    """The task, its own failures (an op that does not load, a forward that fails) raised now, so
    they are the task's error and not the reply's."""
    from ..task import load_task
    task = load_task(task_path)
    _ = task.shapes(max_bytes=max_bytes, full=False).output_specs
    return task


def score_reply(task_path: str | Path, completion: str, settings: RewardSettings,
                send: Callable[[dict], None] | None = None, *, label: str | None = None) -> RewardResult:
    """Score ``completion`` (a model's whole reply) for the task at ``task_path``, in this process.
    ``send`` gets ``{"stage": message, "at": stage}`` as the stages go (the pool's time limit uses
    it); ``label`` is the task as the caller named it (default: the path)."""
    from ..llm.client import Reply
    from ..llm.stages import Evaluator, StageFailure, lowering_after_verify, stage_reporter

    started = time.perf_counter()
    label = label if label is not None else str(task_path)
    send = send or (lambda message: None)
    say = stage_reporter(send)

    def result(r: RewardResult) -> RewardResult:
        return replace(r, wall_s=round(time.perf_counter() - started, 3))

    if not isinstance(completion, str):
        raise UserError(f"a completion is the model's reply as text, not {type(completion).__name__}")
    from .ascendc import is_ascendc
    if is_ascendc(completion):
        from .ascendc import score_ascendc
        return result(score_ascendc(task_path, completion, settings, send, label))
    after = (lowering_after_verify(settings.chip, settings.backend, settings.trials, settings.seed, say)
             if settings.lower else None)
    evaluate = Evaluator(None, chip=settings.chip, trials=settings.trials, seed=settings.seed,
                         max_bytes=settings.max_bytes, full_shapes=False, inputs=settings.inputs,
                         after_verify=after, progress=say, precision=settings.precision)
    try:
        # extract and parse first: a reply that fails there costs no task loading
        dsl = evaluate.extract(Reply(completion))
        kernel = evaluate.parse(dsl)
        try:
            evaluate.task = load_checked_task(task_path, settings.max_bytes)
        except AscendcraftError as err:
            return result(scored(label, "check", settings, error=str(err), status="task_error"))
        evaluation = evaluate.evaluate_kernel(kernel, dsl)
    except StageFailure as fail:
        if fail.final:
            return result(scored(label, fail.stage, settings, error=fail.error, status="task_error",
                                 unverifiable=True))
        return result(scored(label, fail.stage, settings, error=fail.error,
                             status="internal_error" if fail.ours else "scored"))
    except AscendcraftError as err:       # the op's reference failing on a draw: the task's fault
        return result(scored(label, evaluate.stage, settings, error=str(err), status="task_error"))
    except Exception as err:  # noqa: BLE001 - a bug of ours: reported, never the policy's penalty
        return result(scored(label, evaluate.stage, settings, status="internal_error",
                             error=f"internal error: {type(err).__name__}: {err}"))
    return result(_correct(label, evaluate.task, evaluation.after, settings))


def _correct(label: str, task, lowered, settings: RewardSettings) -> RewardResult:
    from ..llm.stages import timing
    t = timing(lowered) if lowered is not None else {"kernel_us": None}
    return correct_result(label, task, t["kernel_us"], settings, floor_us=t.get("floor_us"),
                          efficiency=t.get("efficiency"), bound=t.get("bound"))


def correct_result(label: str, task, time_us: float | None, settings: RewardSettings, **facts) -> RewardResult:
    """A correct reply's result: its speedup over modeled eager (when it has a modeled time) and the reward."""
    eager = eager_us(task, settings.chip) if time_us is not None else None
    speedup = eager / time_us if eager and time_us else None
    return RewardResult(label, "correct", True, settings.shaping.reward("correct", True, speedup), time_us=time_us,
                        eager_us=eager, speedup=speedup, **facts)
