"""A CANN custom-operator project checked against an op file, as ``check`` checks a DSL kernel.

The project's host code decides the tiling for each case (``ascendcraft.sim.host``), its kernel
runs on the simulator, and its outputs are judged by the verification policy against the op's
PyTorch reference (``ascendcraft.verify``): every trial at the verification shapes, the second
shape set, every group of a group task within ``max_bytes``. Its time is modeled at the op's real
shapes in a cost-only run, with the tiling its host code picks there.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

from ..chips import DEFAULT_CHIP
from ..distributions import DEFAULT_TRIALS
from ..errors import AscendcraftError, UserError
from ..progress import reporter
from .bind import bind_case


class ProjectRunError(UserError):
    """The operator built but a run failed on the simulator (a rule it broke, a crash): stage ``correct``."""
    stage = "correct"


def inputs_text(shapes) -> str:
    """The shape set's tensors, ``x: f32[37, 1001]``: what differs between shape sets."""
    return ", ".join(f"{n}: {s}" for n, s in zip(shapes.input_names, shapes.input_specs) if hasattr(s, "shape"))


@dataclass(frozen=True)
class ShapeCheck:
    label: str                 # "main shapes", "second shapes", "group 3"
    shapes: object             # TaskShapes
    report: object             # VerifyReport


@dataclass
class ProjectCheck:
    op_file: str
    operator: str
    checks: list = field(default_factory=list)      # ShapeCheck per shape set, the main one first
    skipped: list = field(default_factory=list)     # (label, why) of shape sets not verified
    block_dim: int | None = None                    # the host's choice at the real shapes
    tiling_key: int | None = None
    time_us: float | None = None                    # modeled at the real shapes
    bound: str | None = None
    time_note: str | None = None                    # why there is no modeled time
    sandboxed: bool | None = None

    @property
    def passed(self) -> bool:
        return bool(self.checks) and all(c.report.passed for c in self.checks)

    def first_failure(self) -> str | None:
        for c in self.checks:
            if not c.report.passed:
                return f"at {c.label} ({inputs_text(c.shapes)}): " + (c.report.first_failure() or c.report.summary())
        return None

    def summary(self) -> str:
        head = "PASSED" if self.passed else "FAILED"
        lines = [f"{head}  operator {self.operator} against {self.op_file}"]
        for c in self.checks:
            trials = c.report.trials
            lines.append(f"  {c.label} ({inputs_text(c.shapes)}): {sum(t.passed for t in trials)} of "
                         f"{len(trials)} trials passed")
        for label, why in self.skipped:
            lines.append(f"  {label}: not verified ({why})")
        if not self.passed:
            lines.append("  " + (self.first_failure() or "").replace("\n", "\n  "))
        if self.time_us is not None:
            key = f"tiling key {self.tiling_key}, " if self.tiling_key is not None else ""
            lines.append(f"  modeled {self.time_us:,.1f} us at the real shapes on {self.block_dim} blocks "
                         f"({key}{self.bound}-bound)")
        elif self.time_note:
            lines.append(f"  no modeled time: {self.time_note}")
        return "\n".join(lines)

    def to_json(self) -> dict:
        return {"op_file": self.op_file, "operator": self.operator, "passed": self.passed,
                "checks": [{"label": c.label, "shapes": inputs_text(c.shapes), "passed": c.report.passed,
                            "verification": c.report.to_json()} for c in self.checks],
                "not_verified": [{"label": label, "why": why} for label, why in self.skipped],
                "block_dim": self.block_dim, "tiling_key": self.tiling_key, "time_us": self.time_us,
                "bound": self.bound, "time_note": self.time_note, "sandboxed": self.sandboxed}


def check_project(project: str | Path, op: str | Path, *, trials: int = DEFAULT_TRIALS, seed: int = 0,
                  chip: str = DEFAULT_CHIP, max_bytes: int = 64 << 20, inputs: str = "adversarial",
                  precision: str = "ours", model_time: bool = True,
                  progress: Callable[[str], None] | None = None) -> ProjectCheck:
    """Verify the CANN project at ``project`` against the op file ``op`` (docs/simulator.md, "CANN
    projects"). Build and host errors raise (``HostBuildError``, ``HostRunError``, ``SimBuildError``:
    stage ``compile``); a failed simulator run raises :class:`ProjectRunError`; wrong outputs are a
    failed check."""
    from ..sim.host import describe_project
    from ..task import load_task
    say = reporter(progress)
    task = load_task(op)
    say(f"building the host code of {project}")
    sig = describe_project(project)
    result = ProjectCheck(str(op), sig.name)
    verify_shape_sets(result, task, seed, max_bytes, say,
                      lambda shapes: _verify_at(project, sig, shapes, trials, seed, chip, inputs, precision, say),
                      lambda shapes: _unregistered(sig, shapes))
    if model_time and result.passed:
        _model_time(result, project, sig, task.real, chip, say)
    return result


def verify_shape_sets(result: ProjectCheck, task, seed: int, max_bytes: int, say, verify_at,
                      set_aside=lambda shapes: None) -> None:
    """``verify_at(shapes)``'s report at each shape set (_shape_sets) in turn, into ``result``, up to the
    first that fails; a group ``set_aside(shapes)`` gives a reason for is listed as skipped with it."""
    for label, shapes in _shape_sets(task, seed, max_bytes, result.skipped):
        why = set_aside(shapes) if label.startswith("group") else None
        if why:
            result.skipped.append((label, why))
            continue
        say(f"verifying {result.operator} at {label} ({inputs_text(shapes)})")
        report = verify_at(shapes)
        result.checks.append(ShapeCheck(label, shapes, report))
        if not report.passed:
            break


def cost_only_inputs(real) -> list:
    """The op's forward inputs at its real shapes for a cost-only run: tensors as gm() specs, the rest as given."""
    from ..dtypes import NUMPY
    from ..sim.runner import gm
    return [gm(s.shape, NUMPY[s.dtype]) if hasattr(s, "shape") else s for s in real.input_specs]


def _shape_sets(task, seed: int, max_bytes: int, skipped: list) -> list:
    """The (label, shapes) an operator is verified at: the main shape set, the second one, every group of a
    group task within ``max_bytes`` (the others are added to ``skipped`` with why)."""
    from ..groups import is_group
    main = task.shapes(max_bytes=max_bytes)
    sets = [(main.title() if is_group(main) else "main shapes", main)]
    second = task.variant(main, seed, max_bytes)
    if second is not None:
        sets.append(("second shapes", second))
    for g in getattr(task, "groups", ()) or ():
        if g is main:
            continue
        if g.nbytes > max_bytes:
            skipped.append((g.title(), f"larger than --max-bytes {max_bytes:,}"))
        else:
            sets.append((g.title(), g))
    return sets


def _unregistered(sig, shapes) -> str | None:
    """Why the operator cannot take a group's inputs (a dtype combination its OpDef does not register,
    as a generic kernel's project for one of its dtypes), or None."""
    from ..dtypes import NUMPY
    from ..sim.host_op import unregistered
    from ..sim.host_project import dtype
    specs = [s for s in shapes.input_specs if s is None or hasattr(s, "dtype")]
    given = [None if s is None else dtype("bfloat16" if s.dtype == "bf16" else NUMPY[s.dtype]) for s in specs]
    if len(given) != len(sig.inputs):
        return None         # bound by name or with attributes between: bind_case decides
    return unregistered(sig, given)


def _verify_at(project, sig, shapes, trials, seed, chip, inputs, precision, say):
    from ..sim.host_op import run_op
    from ..verify import make_draws, verify

    written_as: list = []       # the float dtypes the operator writes its outputs in (judged at theirs)

    def run(ins: list, outs: list) -> None:
        case = bind_case(sig, shapes, ins)
        written = outs[len(sig.outputs):]     # the op's further outputs: inputs the operator writes in place
        outs = outs[:len(sig.outputs)]
        # the op's outputs are the OpDef's first ones, at the op's shapes in the operator's own dtypes
        # (IsFinite writes bool where its reference gives 0.0 and 1.0 in x's dtype: compared as those);
        # further OpDef outputs (a norm's mean and rstd) are inferred by the host code, written by the
        # kernel and not judged
        given = [(b.shape, None) for b in outs] + [(None, None)] * (len(sig.outputs) - len(outs))
        r = run_op(project, list(case.inputs), case.attrs, outputs=given, chip=chip, dtypes=case.dtypes)
        if not r.ok:
            raise ProjectRunError(f"operator {sig.name} failed on the simulator at {inputs_text(shapes)}:\n"
                                  + r.result.failure())
        written_as[:] = [FLOAT_NAMES.get(d) for d in r.tiling.output_dtypes]
        for buf, got in zip(outs, r.outputs):
            if tuple(buf.shape) != tuple(got.shape):
                raise ProjectRunError(f"operator {sig.name}'s output is {tuple(got.shape)}, the op's "
                                      f"{tuple(buf.shape)}", hint="check the project's InferShape")
            buf[...] = got.astype(buf.dtype, copy=False)
        if written:
            _in_place(sig, case, r.inputs, written)

    draws = make_draws(shapes, trials=trials, seed=seed, inputs=inputs, progress=say)
    return verify(run, shapes, draws=draws, progress=say, precision=precision, written_as=written_as)


#: the float outputs an operator may write coarser than its reference (bf16 where torch promotes to f32)
FLOAT_NAMES = {"float16": "f16", "bfloat16": "bf16", "float32": "f32"}


def _in_place(sig, case, after: tuple, written: list) -> None:
    """The op's outputs past the OpDef's (an operator with fewer outputs, Sscal's ``x = alpha * x``):
    each is the next OpDef input of its dtype and element count, as the run left it."""
    taken = set()
    for buf in written:
        for k, (before, now) in enumerate(zip(case.inputs, after)):
            tensor = before[0] if isinstance(before, list) else before
            if k in taken or now is None or not hasattr(tensor, "shape") or now.size != buf.size \
                    or np.dtype(now.dtype).kind != np.dtype(buf.dtype).kind:
                continue
            taken.add(k)
            buf[...] = np.asarray(now).reshape(buf.shape).astype(buf.dtype, copy=False)
            break
        else:
            raise ProjectRunError(f"operator {sig.name} has {len(sig.outputs)} outputs and the op "
                                  f"{len(sig.outputs) + len(written)}; no input of its writes in place matches output "
                                  f"{len(sig.outputs) + len(taken)} ({buf.dtype}, {buf.size} elements)")


def _model_time(result: ProjectCheck, project, sig, real, chip, say) -> None:
    from ..sim.host_op import run_op
    say(f"modelling time at the real shapes ({inputs_text(real)})")
    ins = cost_only_inputs(real)
    try:
        case = bind_case(sig, real, ins)
        # in the operator's own dtypes, as the verification runs it (IsFinite writes bool, not x's dtype)
        outs = [(s.shape, None) for s in real.output_specs][:len(sig.outputs)]
        r = run_op(project, list(case.inputs), case.attrs, outputs=outs + [(None, None)] * (len(sig.outputs) - len(outs)),
                   chip=chip, cost_only=True, dtypes=case.dtypes)
    except AscendcraftError as err:
        result.time_note = str(err).splitlines()[0]
        return
    result.block_dim, result.tiling_key, result.sandboxed = r.tiling.block_dim, r.tiling.tiling_key, r.result.sandboxed
    if r.result.cost is None or not r.ok:
        result.time_note = r.result.failure() if not r.ok else "the run modeled no time"
        return
    result.time_us, result.bound = r.result.cost.time_us, getattr(r.result.cost, "bound", None)
