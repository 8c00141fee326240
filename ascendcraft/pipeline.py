"""The stages every command shares: parse a kernel, bind it to an op, check it at the
op's real shapes, and verify it with the interpreter at verification shapes."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from .binding import Plan, bind, gm_arrays
from .chips import DEFAULT_CHIP, load_chip
from .dsl import ast as A
from .dsl.checker import CheckedKernel, check
from .dsl.interpreter import interpret
from .dsl.parser import parse, parse_file


@dataclass
class CheckResult:
    kernel: A.Kernel
    task: object
    real: CheckedKernel          # static check at the op's real shapes (footprint, types)
    checked: CheckedKernel       # the kernel as verified (reduced shapes when the real ones are too big)
    shapes: object               # ascendcraft.task.TaskShapes used for verification
    report: object               # ascendcraft.verify.VerifyReport

    @property
    def passed(self) -> bool:
        return self.report.passed

    def to_json(self) -> dict:
        return {
            "kernel": self.kernel.name,
            "source": self.kernel.source.name if self.kernel.source else None,
            "op": str(self.task.path),
            "chip": self.real.chip.name,
            "cores": self.real.cores,
            "passed": self.passed,
            "real_shapes": {"dims": self.real.binding.dims,
                            "peak_bytes": {sp: self.real.peak[sp][0] for sp in ("ub", "l1", "l0c")},
                            "capacity_bytes": {sp: self.real.chip.capacity(sp) for sp in ("ub", "l1", "l0c")}},
            "verification": self.report.to_json(),
        }

    def summary(self) -> str:
        chip = self.real.chip
        peaks = [f"{sp.upper()} {self.real.peak[sp][0]:,} / {chip.capacity(sp):,}"
                 for sp in ("ub", "l1", "l0c") if sp == "ub" or self.real.peak[sp][0]]
        head = (f"{'PASS' if self.passed else 'FAIL'}  kernel {self.kernel.name} vs {Path(self.task.path).name} "
                f"on {chip.name} ({self.real.cores} cores); on-chip peak at real shapes: {', '.join(peaks)} bytes")
        return head + "\n" + self.report.summary()


def load_kernel(kernel) -> A.Kernel:
    """A kernel from a path, DSL text, or an already parsed Kernel."""
    if isinstance(kernel, A.Kernel):
        return kernel
    if isinstance(kernel, Path) or "\n" not in str(kernel):  # kernel text always spans several lines
        return parse_file(kernel)
    return parse(str(kernel))


def interpreter_runner(checked: CheckedKernel, plan: Plan, parameters: dict):
    """A verification runner that executes the kernel with the NumPy interpreter."""
    def run(inputs, outputs):
        interpret(checked, gm_arrays(plan, inputs, outputs, parameters))
    return run


def check_kernel(kernel, op, *, trials: int = 3, seed: int = 0, chip: str = DEFAULT_CHIP,
                 max_bytes: int = 64 << 20, full_shapes: bool = False,
                 progress: Callable[[str], None] | None = None) -> CheckResult:
    """Parse, bind, check (at real and verification shapes) and verify a kernel against an op.

    ``progress``, if given, receives a short line at each stage (the CLI prints them to stderr).
    """
    from .task import load_task
    from .verify import verify

    say = progress or (lambda msg: None)
    k = load_kernel(kernel)
    say(f"loading op {op if not hasattr(op, 'real') else op.path}")
    task = op if hasattr(op, "real") else load_task(op)
    chip_profile = load_chip(chip)
    real_binding, _ = bind(k, task.real)
    real = check(k, real_binding, chip_profile)
    shapes = task.shapes(max_bytes=max_bytes, full=full_shapes)
    say(f"verifying on {'reduced' if shapes.reduced else 'real'} shapes")
    binding, plan = bind(k, shapes)
    checked = real if binding == real_binding else check(k, binding, chip_profile)
    params = {}
    if plan.parameters:
        from .verify import to_numpy
        values = shapes.parameter_values()
        params = {name: to_numpy(values[name])[0] for name in plan.parameters}
    report = verify(interpreter_runner(checked, plan, params), shapes, trials=trials, seed=seed, progress=say)
    return CheckResult(k, task, real, checked, shapes, report)
