"""One reply through the stages: extract -> parse -> check -> verify -> (lower, backend).

Every failure becomes a :class:`StageFailure` holding the stage and the one message the
model gets back: the rendered error with its caret for parse and check errors, and the
first failing output with its worst elements (expected vs got) for a numeric mismatch.
The optional ``after_verify(check_result)`` hook runs the later stages (lowering, the
backend); it raises an :class:`~ascendcraft.errors.AscendcraftError` on failure, whose
``stage`` attribute, if set, names the stage (default ``lower``).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ..errors import AscendcraftError, InterpreterError
from .client import Reply
from .extract import extract_dsl
from .prompt import repair_prompt
from ..progress import reporter

STAGES = ("extract", "parse", "check", "verify", "lower", "backend")
KERNEL_FILE = "kernel.dsl"   # the file name errors show the model


class StageFailure(Exception):
    """``ours``: the failure is a bug of ascendcraft (AscendcraftError.ours), not the kernel's;
    ``final``: no reply can pass (a property of the task: its reference is the same on every draw),
    so the sample ends here."""

    def __init__(self, stage: str, error: str, feedback: str, dsl: str | None = None, *, ours: bool = False,
                 final: bool = False):
        super().__init__(f"{stage}: {error}")
        self.stage, self.error, self.feedback, self.dsl = stage, error, feedback, dsl
        self.ours, self.final = ours, final


@dataclass
class Evaluation:
    dsl: str
    check: object              # checking.CheckResult
    after: object = None       # what after_verify returned (e.g. the lowered kernel)


class Evaluator:
    """Runs the stages on a reply; ``stage`` tells, at any moment, which one is running."""

    def __init__(self, task, *, chip: str, trials: int, seed: int, max_bytes: int, full_shapes: bool,
                 inputs: str = "adversarial", after_verify: Callable | None = None, progress: Callable[[str], None] | None = None,
                 precision: str = "ours"):
        self.task, self.chip, self.trials, self.seed = task, chip, trials, seed
        self.max_bytes, self.full_shapes, self.inputs, self.precision = max_bytes, full_shapes, inputs, precision
        self.after_verify = after_verify
        self.say = reporter(progress)
        self.stage = "extract"

    def __call__(self, reply: Reply) -> Evaluation:
        return self.evaluate_dsl(self.extract(reply))

    def extract(self, reply: Reply) -> str:
        """The extract stage alone: the kernel's text in the reply."""
        self.stage = "extract"
        dsl = extract_dsl(reply.text)
        if dsl is None:
            error = "the reply has no ```dsl code block holding a kernel" + \
                    (" (it was cut off at the output token limit)" if reply.truncated else "")
            raise StageFailure("extract", error, repair_prompt("extract", error, truncated=reply.truncated))
        return dsl

    def evaluate_dsl(self, dsl: str, filename: str = KERNEL_FILE) -> Evaluation:
        """The stages after extraction, on a kernel's text (``bench --kernels`` starts here);
        errors name ``filename``."""
        return self.evaluate_kernel(self.parse(dsl, filename), dsl)

    def parse(self, dsl: str, filename: str = KERNEL_FILE):
        """The parse stage alone: it needs no task (the reward parses before it loads one)."""
        from ..dsl.parser import parse

        self.stage = "parse"
        try:
            return parse(dsl, filename)
        except AscendcraftError as err:
            raise self._failed("parse", err, dsl) from None

    def evaluate_kernel(self, kernel, dsl: str) -> Evaluation:
        """The stages from check on, for a parsed kernel (``dsl`` its text)."""
        from ..checking import check_kernel

        self.stage = "check"
        try:
            result = check_kernel(kernel, self.task, trials=self.trials, seed=self.seed, chip=self.chip,
                                  max_bytes=self.max_bytes, full_shapes=self.full_shapes,
                                  inputs=self.inputs, progress=self._checking, precision=self.precision)
        except AscendcraftError as err:
            raise self._failed(self.stage if isinstance(err, InterpreterError) else "check", err, dsl) from None
        if not result.passed:
            shapes = result.shapes.describe()
            error = result.report.first_failure() or result.report.summary()
            if result.report.unverifiable:   # the op's references are no evidence, whatever the kernel: no repair
                raise StageFailure("verify", f"not verifiable on these inputs: {result.report.unverifiable}", "",
                                   dsl, final=True)
            raise StageFailure("verify", error, repair_prompt("verify", error, mismatch=True, shapes=shapes), dsl)

        after = None
        if self.after_verify is not None:
            self.stage = "lower"
            try:
                after = self.after_verify(result)
            except AscendcraftError as err:
                raise self._failed(getattr(err, "stage", None) or "lower", err, dsl) from None
        self.stage = "verified"
        return Evaluation(dsl, result, after)

    def _checking(self, msg: str) -> None:
        if msg.startswith("verifying"):
            self.stage = "verify"   # the static checks are done; what fails from here on is a run
        self.say(msg)

    def _failed(self, stage: str, err: AscendcraftError, dsl: str) -> StageFailure:
        text = str(err)   # the one renderer: file:line:col, the line, a caret, the hint
        shapes = ""
        if stage == "verify":
            try:
                shapes = self.task.shapes(max_bytes=self.max_bytes, full=self.full_shapes).describe()
            except AscendcraftError:
                shapes = "the op's shapes"
        return StageFailure(stage, text, repair_prompt(stage, text, shapes=shapes, ours=err.ours), dsl,
                            ours=err.ours)


def lowering_after_verify(chip: str, backend: str, trials: int, seed: int, say: Callable[[str], None],
                          assist: Callable[[str], str] | None = None) -> Callable:
    """``after_verify`` for bench and the reward: lower and run on the backend, naming a build
    failure ``compile`` and any other backend failure ``correct`` (the table's stages)."""
    from ..lower import lower_checked
    from ..sim.build import SimBuildError

    def after_verify(checked):
        try:
            return lower_checked(checked, chip=chip, backend=backend, trials=trials, seed=seed, assist=assist,
                                 progress=say)
        except AscendcraftError as err:
            if getattr(err, "stage", None) == "backend":
                err.stage = "compile" if isinstance(err, SimBuildError) else "correct"
            raise
    return after_verify


def stage_reporter(send: Callable[[dict], None]) -> Callable[[str], None]:
    """The ``progress`` callback for check, lower and gen: each message goes to ``send`` with the
    table's stage it shows the kernel has reached (so work cut off by its time limit is counted
    at that stage)."""
    at = ["parse"]

    def say(message: str) -> None:
        text = message.lower()
        for prefix, stage in _STAGE_OF_MESSAGE:
            if text.startswith(prefix):
                at[0] = stage
                break
        send({"stage": message, "at": at[0]})
    return say


#: The progress messages (checking.py, passes.py, lower.py) that open each stage of the table.
_STAGE_OF_MESSAGE = (("loading op", "check"), ("verifying on", "verify"), ("pass ", "lower"),
                     ("compiling on the simulator", "compile"), ("building with cann", "compile"),
                     ("verifying the ascendc kernel", "correct"), ("modelling time", "correct"))


def timing(after) -> dict:
    """The lowered kernel's modeled time, floor, efficiency and bound (``kernel_us`` None without one)."""
    cost = getattr(after, "cost", None)
    if cost is None:
        return {"kernel_us": None}
    return {"kernel_us": cost.time_us, "floor_us": after.floor_us, "efficiency": after.efficiency,
            "bound": cost.bound}
