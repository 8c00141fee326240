"""``ascendcraft lower``: a checked DSL kernel through the pass chain to AscendC, run on a backend.

Stages: check the kernel against the op (interpreter vs torch), run the lowering passes (each
re-checked by the interpreter), emit the AscendC kernel and its spec, then on the backend:
build, verify against torch on fresh inputs, and model the time at the op's real shapes.
"""
from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from .binding import bind, gm_arrays, gm_op_shapes, gm_specs, parameter_arrays
from .chips import DEFAULT_CHIP, load_chip
from .codegen.kernel import emit_kernel
from .codegen.tiling import tiling_values
from .groups import input_dtypes, is_group
from .errors import AscendcraftError, UserError
from .garbage import fewer_full_collections
from .sim.build import SimBuildError
from .passes import LoweringRun
from .checking import CheckResult, check_kernel, load_kernel
from .progress import reporter


def default_passes():
    from ascendcraft.lowering_passes.bufferize import Bufferize
    from ascendcraft.lowering_passes.collapse import Collapse
    from ascendcraft.lowering_passes.cube import Cube
    from ascendcraft.lowering_passes.deepen import Deepen
    from ascendcraft.lowering_passes.fit import Fit
    from ascendcraft.lowering_passes.hoist import Hoist
    from ascendcraft.lowering_passes.linearize import Linearize
    from ascendcraft.lowering_passes.partition import Partition
    from ascendcraft.lowering_passes.pipeline import Pipeline
    from ascendcraft.lowering_passes.prefetch import Prefetch
    from ascendcraft.lowering_passes.select import Select
    from ascendcraft.lowering_passes.strides import Strides
    from ascendcraft.lowering_passes.unstack import Unstack
    from ascendcraft.lowering_passes.widen import Widen
    from ascendcraft.lowering_passes.windows import Windows
    return (Cube(), Partition(), Collapse(), Linearize(), Hoist(), Strides(), Unstack(), Windows(), Widen(), Select(), Fit(), Bufferize(), Pipeline(),
            Prefetch(), Deepen())


class KernelMismatch(AscendcraftError):
    """The kernel (as written, or as compiled) computes something else than the op. Exit code 1."""

    kind = "verification failed"


class GeneratedKernelFailed(KernelMismatch):
    """The emitted AscendC kernel fails or computes something else where the DSL kernel and every
    lowered level passed: a bug of ascendcraft's, not of the kernel."""

    ours = True


def _emit(level):
    """The AscendC kernel of the last level; an emitter error is ours (every level checked)."""
    try:
        return emit_kernel(level.kernel, level.real)
    except AscendcraftError as err:
        err.ours = True
        raise


@dataclass
class Lowered:
    check: CheckResult
    run: LoweringRun
    spec: object                        # codegen.spec.KernelSpec
    tiling_header: str
    backend: str
    chip: str
    verification: object = None         # VerifyReport of the compiled kernel on the backend
    other_verifications: list = field(default_factory=list)   # (checking.OtherShapes, VerifyReport) of
                                        # the compiled kernel at the check's other shape sets
    cost: object = None                 # sim CostReport at the op's real shapes
    floor_us: float | None = None       # launch + the larger of the HBM floor (bytes the op must move /
                                        # bandwidth) and, for cube kernels, the cube floor
    floor_kind: str = "HBM"             # which of the two floors is the larger
    op_bytes: int | None = None         # GM bytes the op must move: every input read once, every output
                                        # written once (the HBM floor's numerator)
    timings: dict = field(default_factory=dict)
    artifact: object = None             # the built simulator kernel (sim backend)
    project_note: str | None = None     # why the CANN project files were not written, if they were not
    cost_note: str | None = None        # why there is no modeled time, if there is none
    llm: dict | None = None             # the model the passes could ask (lower --model), and its usage
    timeline: object = None             # sim Timeline of the real-shape cost run (ascendcraft.sim.timeline)
    timeline_files: dict = field(default_factory=dict)   # what write_timeline wrote ({"json": ..., "png": ...})
    timeline_note: str | None = None    # why there is no timeline picture, if there is none
    timeline_json_cores: tuple | None = None   # (cores in timeline.json, cores traced)
    instances: list = field(default_factory=list)   # a generic kernel's other instances (Lowered), one per
                                        # dtype of a group task's groups besides the real shapes'

    def instance_lines(self) -> list[str]:
        """One line per other instance of a generic kernel (where it ran, its modeled time), and one for
        the groups no instance ran at: for the summary and report.md."""
        lines = []
        for r in self.instances:
            ran = [r.check.shapes.index] + [o.shapes.index for o, v in r.other_verifications if v.passed]
            time_us = f"; modeled {r.cost.time_us:,.1f} us at {r.check.shapes.title()}" if r.cost is not None else ""
            lines.append(f"{_dtypes_text(r.check.shapes)} instance: lowered, compiled and verified on "
                         f"{r.backend} at groups {', '.join(map(str, sorted(ran)))}{time_us}")
        other = self.groups_not_lowered()
        if other:
            kinds = sorted({_dtypes_text(o.shapes) for o in other})
            lines.append(f"{len(other)} groups verified by the interpreter only ({'; '.join(kinds)}): their "
                         f"instance was not lowered (a group that failed, or one not reached)")
        return lines

    def groups_not_lowered(self) -> list:
        """The group sets the interpreter verified that no lowered instance ran at."""
        ran = {id(o.shapes) for r in [self, *self.instances] for o in r.check.lowered_sets}
        ran |= {id(r.check.shapes) for r in self.instances}
        return [o for o in self.check.groups if id(o.shapes) not in ran]

    @property
    def sandboxed(self) -> bool | None:
        """Whether the kernel ran in the simulator's seccomp sandbox (None: it did not run on the simulator)."""
        return None if self.artifact is None else bool(getattr(self.artifact, "sandboxed", False))

    @property
    def sandbox_line(self) -> str | None:
        """The one line every output and report gives on the sandbox (docs/simulator.md, "Sandbox")."""
        if self.sandboxed is None:
            return None
        if self.sandboxed:
            return "sandbox: the kernel ran in the simulator's seccomp sandbox"
        from .sim.build import sandbox_support
        why = sandbox_support()[1] or "the kernel was built without it"
        return f"NOT SANDBOXED: the kernel ran without the simulator's seccomp sandbox ({why})"

    @property
    def efficiency(self) -> float | None:
        if self.cost is None or not self.floor_us:
            return None
        return self.floor_us / self.cost.time_us

    def to_json(self) -> dict:
        c = self.cost
        return {
            "kernel": self.check.kernel.name,
            "op": str(self.check.task.path),
            "chip": self.chip,
            "backend": self.backend,
            "sandboxed": self.sandboxed,
            "sandbox_note": self.sandbox_line if self.sandboxed is False else None,
            "source_check": self.check.to_json(),
            "passes": [{"name": lv.pass_name, "checked": True, "notes": lv.notes} for lv in self.run.levels[1:]],
            "backend_verification": self.verification.to_json() if self.verification is not None else None,
            "backend_second_shapes_verification": next((r.to_json() for o, r in self.other_verifications
                                                        if not o.label), None),
            "backend_real_extent_verifications": [o.extent_json(r) for o, r in self.other_verifications
                                                  if o.label and not _is_group(o)],
            "backend_group_verifications": [{"group": o.shapes.index, "inputs": o.shapes.shapes_text(),
                                             "verification": r.to_json()} for o, r in self.other_verifications
                                            if _is_group(o)],
            "groups_not_lowered": [{"group": o.shapes.index, "inputs": o.shapes.shapes_text()}
                                   for o in self.groups_not_lowered()],
            "instances": [{"dtypes": _dtypes_text(r.check.shapes), "group": r.check.shapes.index,
                           "backend_verification": r.verification.to_json() if r.verification else None,
                           "backend_group_verifications": [{"group": o.shapes.index, "verification": v.to_json()}
                                                           for o, v in r.other_verifications],
                           "modeled_time_us": r.cost.time_us if r.cost is not None else None}
                          for r in self.instances],
            "modeled_note": self.cost_note,
            "modeled": None if c is None else {
                "shapes": "real", "time_us": c.time_us, "body_us": c.body_us, "launch_us": c.launch_us,
                "bound": c.bound, "gm_bytes": c.gm_bytes, "pipe_busy_us": c.pipe_busy_us,
                "floor_us": self.floor_us, "floor_kind": self.floor_kind, "efficiency": self.efficiency},
            "timings_s": self.timings,
            "llm": self.llm,
            "project": self.project_note or "written",
            "timeline": None if self.timeline is None else {
                **self.timeline.summary(), "files": dict(self.timeline_files), "note": self.timeline_note,
                "json_cores": self.timeline_json_cores},
        }

    def summary(self) -> str:
        lines = [f"PASS  {self.check.kernel.name}: source verified, {len(self.run.levels) - 1} passes checked, "
                 f"compiled and verified on {self.backend} ({self.chip})"]
        if self.verification is not None:
            lines.append("  " + self.verification.summary().splitlines()[-1])
        groups = [(o, r) for o, r in self.other_verifications if _is_group(o)]
        for o, r in self.other_verifications:
            if not _is_group(o) or not r.passed:
                lines.append(f"  {o.title()}: " + r.summary().splitlines()[-1])
        if groups:
            passed = sum(r.passed for _, r in groups)
            lines.append(f"  other groups: {passed} of {len(groups)} PASS on {self.backend} "
                         f"({', '.join(str(o.shapes.index) for o, _ in groups)})")
        lines += ["  " + line for line in self.check.skipped_lines()]
        lines += ["  " + line for line in self.instance_lines()]
        if self.sandbox_line is not None:
            lines.append("  " + self.sandbox_line)
        if self.cost_note is not None:
            lines.append(f"  {self.cost_note}")
        if self.cost is not None:
            eff = self.efficiency
            lines.append(f"  modeled at real shapes: {self.cost.time_us:,.1f} us, {self.cost.bound}-bound; "
                         f"{self.floor_kind} floor {self.floor_us:,.1f} us" + (f" (efficiency {eff:.0%})" if eff else ""))
        return "\n".join(lines)


def _is_group(o) -> bool:
    return is_group(o.shapes)


def _dtypes_text(shapes) -> str:
    return ", ".join(input_dtypes(shapes))


def resolve_backend(backend: str) -> str:
    if backend not in ("auto", "sim", "npu"):
        raise UserError(f"unknown backend {backend!r}", hint="choose auto, sim or npu")
    if backend == "sim":
        return "sim"
    try:
        from .backends import npu
    except ImportError:
        npu = None
    if backend == "npu":
        if npu is None:
            raise UserError("the npu backend is not available in this build", hint="use --backend sim")
        npu.require_npu()
        return "npu"
    return npu.default_backend() if npu is not None else "sim"


def lower(kernel, op, *, chip: str = DEFAULT_CHIP, backend: str = "auto", trials: int | None = None,
          seed: int = 0, max_bytes: int = 64 << 20, model_time: bool = True, inputs: str = "adversarial",
          assist: Callable[[str], str] | None = None, progress: Callable[[str], None] | None = None,
          precision: str = "ours") -> Lowered:
    """Check, lower, emit, build and verify ``kernel`` for ``op``. Raises on any failure.

    ``trials``, ``seed`` and ``inputs`` are the verification policy's (docs/verification.md):
    the source check and the backend run use every trial, each pass the first two. ``precision``
    is whose acceptance judges the source and the backend run (``ours`` or ``task``,
    :mod:`ascendcraft.acceptance`); the passes are compared with the source as always."""
    say = reporter(progress)
    backend = resolve_backend(backend)
    t0 = time.perf_counter()
    source = load_kernel(kernel)
    checked = check_kernel(source, op, trials=trials, seed=seed, chip=chip, max_bytes=max_bytes, inputs=inputs,
                           progress=say, precision=precision)
    if not checked.passed:
        what = "cannot be verified" if checked.report.verdict == "NOT VERIFIABLE" else "does not match the op"
        raise KernelMismatch(f"kernel {source.name} {what} before lowering:\n"
                             f"{checked.report.summary()}", hint="fix the kernel first (ascendcraft check)")
    check_s = time.perf_counter() - t0
    result = lower_checked(checked, chip=chip, backend=backend, trials=trials, seed=seed, model_time=model_time,
                           assist=assist, progress=progress)
    result.timings = {"check": check_s, **result.timings}
    return result


def lower_checked(checked: CheckResult, *, chip: str = DEFAULT_CHIP, backend: str = "auto",
                  trials: int | None = None, seed: int = 0, model_time: bool = True,
                  assist: Callable[[str], str] | None = None,
                  progress: Callable[[str], None] | None = None) -> Lowered:
    """Lower a kernel that already passed ``check_kernel`` (``ascendcraft gen`` calls this after
    each verified reply). Errors carry ``stage``: ``lower`` for the passes, ``backend`` for the
    build and run of the AscendC kernel. The check's draws (its trials' inputs and references)
    are reused: the first :data:`~ascendcraft.passes.PASS_TRIALS` for each pass, all of them on
    the backend; ``trials`` and ``seed`` only matter for a check result without draws.

    A generic kernel on a group task is lowered once per instance (per dtype the groups have):
    the real shapes' first, the others into ``Lowered.instances``."""
    say = reporter(progress)
    result = _lower_one(checked, chip=chip, backend=backend, trials=trials, seed=seed, model_time=model_time,
                        assist=assist, progress=progress)
    for sub in checked.instance_checks():
        dtypes = _dtypes_text(sub.shapes)
        say(f"lowering the kernel's {dtypes} instance")
        try:
            result.instances.append(_lower_one(sub, chip=chip, backend=backend, trials=trials, seed=seed,
                                               model_time=model_time, assist=assist, progress=progress))
        except AscendcraftError as err:
            err.message = f"the kernel's {dtypes} instance (at {sub.shapes.title()}): {err.message}"
            raise
    return result


@fewer_full_collections()
def _lower_one(checked: CheckResult, *, chip, backend, trials, seed, model_time, assist, progress) -> Lowered:
    from .passes import PASS_TRIALS, PassChain
    from .sim.runner import RunQueue
    from .verify import DEFAULT_TRIALS, make_draws
    say = reporter(progress)
    backend = resolve_backend(backend)
    timings = {}
    chip_profile = load_chip(chip)
    if not checked.draws:
        checked.draws = make_draws(checked.shapes, trials=trials or DEFAULT_TRIALS, seed=seed)
    t0 = time.perf_counter()
    # Runs the simulator starts before the passes are verified (see _start_on_sim); any failure
    # (a pass that computes something else, Ctrl-C) stops them when this block is left.
    with RunQueue() as queue:
        early = None
        try:
            chain = PassChain(checked.real.kernel, default_passes(), task=checked.task, shapes=checked.shapes,
                              chip=chip_profile, assist=assist, progress=say, draws=checked.draws[:PASS_TRIALS],
                              source_checks=(checked.real, checked.checked),
                              source_outputs=checked.outputs[:PASS_TRIALS],
                              other_shapes=tuple(o.shapes for o in checked.lowered_sets))
            chain.apply()
            # Not beside a kernel with matmuls: the interpreter's BLAS threads then wait for a core
            # the kernel processes hold (a lowering took 3 s instead of 0.5)
            if backend == "sim" and chain.failure is None and not any(lv.real.uses_cube for lv in chain.levels):
                early = _start_on_sim(chain, checked, backend, chip_profile, model_time, queue)
            run = chain.verify(tick=queue.poll)
            final = run.final
            if early is None:
                spec = _emit(final)
            elif isinstance(early.spec, BaseException):
                raise early.spec
            else:
                spec = early.spec
        except AscendcraftError as err:
            err.stage = "lower"
            raise
        timings["passes"] = time.perf_counter() - t0 - (early.seconds if early is not None else 0.0)
        from .codegen.tiling import render_tiling_header
        if early is None:
            header = render_tiling_header(spec)
            result = Lowered(checked, run, spec, header, backend, chip_profile.name, timings=timings)
        elif isinstance(early.header, BaseException):
            raise early.header
        else:                      # the same kernel, spec and header, made before the passes were verified
            result = early.result
            result.run, result.timings = run, timings
        try:
            if backend == "sim":
                _run_on_sim(result, chip_profile, model_time, say, early)
            else:
                from .backends import npu
                say("building with CANN")
                result.verification = npu.verify_on_npu(result, draws=checked.draws)
                for other in checked.lowered_sets:
                    result.other_verifications.append(
                        (other, npu.verify_on_npu(result, draws=other.draws, shapes=other.shapes)))
        except AscendcraftError as err:
            err.stage = "backend"
            err.lowered = result       # what was emitted, for the failure folder
            if isinstance(err, SimBuildError):     # the emitted kernel does not compile
                err.ours = True
            raise
    return result


@dataclass
class _Early:
    """What ``lower`` prepared for the simulator before the passes were verified: each step's
    result, or the exception it raised (raised where the step comes when one follows the other)."""

    spec: object                  # KernelSpec or exception
    header: object = None         # the tiling header or exception
    result: Lowered | None = None
    artifact: object = None       # KernelArtifact or exception
    build_s: float = 0.0
    main: object = None           # verification runner (sim_runner) at the check's shapes, or exception
    others: list = field(default_factory=list)   # ... at each of the check's other shape sets, or exception
    cost: int | None = None       # the real-shape cost run's index in the queue
    seconds: float = 0.0          # time spent here (counted as build, not as passes)


def _start_on_sim(chain, checked: CheckResult, backend: str, chip, model_time: bool, queue) -> _Early | None:
    """Emit, build and queue every simulator run of the last level's AscendC kernel while its
    levels are still to be verified by the interpreter (``chain.apply()`` made them; the
    verification neither changes them nor depends on the runs): the kernel processes run beside
    the interpreter. Nothing here is said or raised: ``lower_checked`` and ``_run_on_sim`` do both
    where one step after the other would, and a failed pass check stops the runs. None: not
    worth it (no compiler; the simulator path then runs as usual)."""
    import shutil
    from .codegen.tiling import render_tiling_header
    from .passes import LoweringRun
    from .sim import build_kernel
    if shutil.which("g++") is None:
        return None
    t0 = time.perf_counter()
    final = chain.final
    try:
        spec = _emit(final)
    except Exception as err:   # noqa: BLE001 - raised after the passes are verified
        return _Early(err, seconds=time.perf_counter() - t0)
    try:
        header = render_tiling_header(spec)
    except Exception as err:   # noqa: BLE001 - raised where the header is made
        return _Early(spec, header=err, seconds=time.perf_counter() - t0)
    early = _Early(spec, header, Lowered(checked, LoweringRun(chain.levels), spec, header, backend, chip.name,
                                         timings={}))
    try:
        early.artifact = build_kernel(spec.kernel_source, spec.op_name, tiling_header=header, chip=chip.name)
    except Exception as err:   # noqa: BLE001 - raised where the build comes
        early.artifact = err
    early.build_s = time.perf_counter() - t0
    if not isinstance(early.artifact, BaseException):
        result = early.result
        result.artifact = early.artifact
        for name, shapes, draws in (("main", checked.shapes, checked.draws),
                                    *((None, o.shapes, o.draws) for o in checked.lowered_sets)):
            try:
                runner = sim_runner(result, shapes, queue=queue, draws=draws)
            except Exception as err:   # noqa: BLE001 - raised where these runs begin
                runner = err
            if name == "main":
                early.main = runner
            else:
                early.others.append(runner)
        if model_time:
            early.cost = queue.add(lambda: start_real_shape_run(result, trace=_trace_limit(result.run.final.real.cores)))
    early.seconds = time.perf_counter() - t0
    return early


def _workspace_bytes(spec, tiling: dict, cores: int) -> int:
    """User workspace (scratch tensors), with the host's integer arithmetic over the launch's tiling
    values (dims and attributes: a scratch may be sized by a const of either)."""
    from .codegen.tiling import workspace_size
    return workspace_size(spec, tiling, cores)


def sim_runner(result: Lowered, shapes, *, queue=None, draws: list | None = None):
    """``run(inputs, outputs)`` executing the built kernel on the simulator for ``shapes`` (the
    dims, attributes and parameters are taken from them); outputs are filled in place.

    With a ``queue`` (``sim.runner.RunQueue``) and the ``draws`` the runner will be called on, in
    order, every draw's run is queued at once, on the inputs and poisoned buffers ``verify``
    would pass; each call then takes its draw's result, in the same order (so a failure is
    raised at the same trial as when one run follows the other)."""
    from .codegen.tiling import scratch_layout
    from .sim.runner import start_kernel

    spec, final = result.spec, result.run.final.kernel
    gm_params = _gm_parameters(result)
    binding, plan = bind(final, shapes)
    params = parameter_arrays(plan, shapes)
    cores = result.run.final.real.cores

    op_shapes = gm_op_shapes(plan, shapes)

    def launch(inputs, outputs):
        arrays = gm_arrays(plan, inputs, outputs, params)
        tiling = tiling_values(spec, {n: op_shapes[n] for n in gm_params}, binding.attrs)
        return start_kernel(result.artifact, [arrays[n] for n in gm_params], tiling=tiling,
                            block_dim=cores, workspace_bytes=_workspace_bytes(spec, tiling, cores),
                            chip=result.chip, outputs=[gm_params.index(n) for n in plan.outputs],
                            dtypes=_bf16_params(result), scratch=scratch_layout(spec, tiling, cores))

    def finish(res, outputs):
        if not res.ok:
            raise GeneratedKernelFailed(f"the generated AscendC kernel failed on the simulator:\n"
                                 f"{_with_dsl_lines(res.failure(), spec, result)}",
                                 hint="this is a lowering bug (ours): report it with the results folder; until it "
                                      "is fixed, rewriting the DSL line named above differently may avoid it")
        for out, name in zip(outputs, plan.outputs):
            out[...] = res.outputs[gm_params.index(name)].reshape(out.shape)

    if queue is None:
        return lambda inputs, outputs: finish(launch(inputs, outputs).wait(), outputs)

    def start(draw):
        from .verify import TensorSpec, poison_buffer
        outputs = [poison_buffer(TensorSpec.of(e, f"output {i} of Model.forward")) for i, e in enumerate(draw.native)]
        return launch(draw.numpy_inputs, outputs)
    pending = iter([queue.add(lambda d=d: start(d)) for d in draws])

    def take(inputs, outputs):
        finish(queue.result(next(pending)), outputs)
    take.queue = queue
    return take


def _with_dsl_lines(report: str, spec, result: Lowered) -> str:
    """Each ``kernel.cpp:N:`` of a simulator report followed by the DSL line it was emitted for."""
    source = result.run.levels[0].kernel.source
    lines = source.text.splitlines() if source else []

    def dsl(m):
        n = spec.dsl_line(int(m.group(1)))
        if not n or n > len(lines):
            return m.group(0)
        return f"{m.group(0)} [{source.name}:{n}: {lines[n - 1].strip()}]"
    return re.sub(r"kernel\.cpp:(\d+):", dsl, report)


def _real_gm(result: Lowered):
    """The lowered kernel's GM parameters in order, their shape specs at the op's real shapes,
    and the real binding and plan."""
    final, real = result.run.final.kernel, result.check.task.real
    gm_params = _gm_parameters(result)
    real_binding, real_plan = bind(final, real)
    return gm_params, gm_specs(real_plan, real), real_binding, real_plan


def real_shape_run(result: Lowered, *, trace: int | bool = False):
    """The cost-only simulator run of the lowered kernel at the op's real shapes (nothing is
    allocated: GM arguments are shapes); its cost is the modeled time. Also what
    benchmarks/sensitivity.py repeats under other cost constants."""
    return start_real_shape_run(result, trace=trace).wait()


def start_real_shape_run(result: Lowered, *, trace: int | bool = False):
    """:func:`real_shape_run`, started: its ``sim.runner.KernelRun``."""
    from .codegen.tiling import scratch_layout
    from .dtypes import NUMPY
    from .sim import gm
    from .sim.runner import start_kernel

    spec = result.spec
    gm_params, specs, real_binding, real_plan = _real_gm(result)
    args = [gm(specs[n].shape, NUMPY[specs[n].dtype]) for n in gm_params]
    op_shapes = gm_op_shapes(real_plan, result.check.task.real)
    tiling = tiling_values(spec, {n: op_shapes[n] for n in gm_params}, real_binding.attrs)
    cores = result.run.final.real.cores
    return start_kernel(result.artifact, args, tiling=tiling, block_dim=cores, cost_only=True,
                        workspace_bytes=_workspace_bytes(spec, tiling, cores), chip=result.chip,
                        timeout_s=600, outputs=[gm_params.index(n) for n in real_plan.outputs], trace=trace,
                        dtypes=_bf16_params(result), scratch=scratch_layout(spec, tiling, cores))


def _gm_parameters(result: Lowered) -> list[str]:
    """The lowered kernel's GM parameters, inputs then outputs: the entry's GM arguments in order."""
    return [t.name for t in result.run.final.real.symbols.parameters()]


def _bf16_params(result: Lowered) -> dict:
    """The GM arguments (by position: the entry's GM parameters come first, in the kernel's order)
    holding bf16 (2-byte) data, which the GM convention holds as float32 arrays."""
    return {i: "bfloat16" for i, t in enumerate(result.run.final.real.symbols.parameters()) if t.dtype == "bf16"}


def _run_on_sim(result: Lowered, chip, model_time, say, early: _Early | None = None):
    from .sim import build_kernel
    from .sim.runner import RunQueue
    from .verify import verify

    spec = result.spec
    _require_compiler()
    if model_time:
        _preload_plotting()
    t0 = time.perf_counter()
    say("compiling on the simulator")
    if early is None:
        art = build_kernel(spec.kernel_source, spec.op_name, tiling_header=result.tiling_header, chip=chip.name)
        result.timings["build"] = time.perf_counter() - t0
    elif isinstance(early.artifact, BaseException):
        raise early.artifact
    else:
        art = early.artifact
        result.timings["build"] = early.build_s
    result.artifact = art
    shapes = result.check.shapes
    others = result.check.lowered_sets
    t0 = time.perf_counter()
    # The simulator runs below are independent of each other: they are queued at once and go a
    # few at a time (one per CPU; started before the passes were verified, when lower_checked
    # could) while the results are judged in the order of one run after the other, with the same
    # verdicts and errors. The real-shape cost run is queued last and read once the kernel is
    # verified; runs whose result is not taken (after a failure) are stopped.
    with RunQueue() as own:
        queue = own
        say("verifying the AscendC kernel on the simulator")
        if early is None:
            main = sim_runner(result, shapes, queue=queue, draws=result.check.draws)
            extra = []
            for other in others:
                try:
                    extra.append(sim_runner(result, other.shapes, queue=queue, draws=other.draws))
                except Exception as err:   # noqa: BLE001 - raised where that shape set's runs begin
                    extra.append(err)
            cost = (queue.add(lambda: start_real_shape_run(result, trace=_trace_limit(result.run.final.real.cores)))
                    if model_time else None)
        else:
            if isinstance(early.main, BaseException):
                raise early.main
            main, extra, cost = early.main, early.others, early.cost
            queue = main.queue
        # the backend is judged as the source was (the check's precision: ours or the task's)
        report = verify(main, shapes, draws=result.check.draws, progress=say, precision=result.check.report.precision)
        result.verification = report
        if not report.passed:
            raise GeneratedKernelFailed(f"the generated AscendC kernel does not match the op on the simulator:\n"
                                 f"{report.summary()}", hint="this is a lowering bug: report it")
        for other, runner in zip(others, extra):
            where = f"the {other.title() if other.label else 'second verification shapes'} ({other.shapes.shapes_text()})"
            say(f"verifying the AscendC kernel on the simulator at {where}")
            try:
                if isinstance(runner, Exception):
                    raise runner
                report = verify(runner, other.shapes, draws=other.draws, progress=say,
                                precision=other.report.precision)
            except AscendcraftError as err:   # say which shapes: the real ones passed
                err.message = f"at {where}: {err.message}"
                raise
            result.other_verifications.append((other, report))
            if not report.passed:
                raise GeneratedKernelFailed(f"the generated AscendC kernel does not match the op on the simulator at "
                                     f"{where}:\n{report.summary()}",
                                     hint="this is a lowering bug: report it")
        result.timings["sim_verify"] = time.perf_counter() - t0
        if not model_time:
            return
        t0 = time.perf_counter()
        say("modelling time at the op's real shapes")
        res = queue.result(cost)
    result.timings["cost_model"] = time.perf_counter() - t0   # the wait for it: it ran beside the others
    if res.errors or (res.crash and "time limit" not in res.crash):
        # The real-shape run is a checked run: a rule the kernel breaks only at the real size
        # (an index past the end of a tensor, a race) fails the lowering, never a note beside PASS.
        from .sim.result import distinct
        problems = [_with_dsl_lines(d, spec, result) for d in distinct(res.errors)[:5]] + \
            ([f"crash: {res.crash}"] if res.crash else [])
        raise KernelMismatch("the AscendC kernel breaks a hardware rule at the op's real shapes (simulator, "
                             "cost-only run; the data runs were at smaller shapes):\n  " + "\n  ".join(problems),
                             hint="the DSL kernel's indices or loop bounds go wrong only at the real size: write "
                                  "extents and bounds as the signature's dims, never their values; if the DSL kernel "
                                  "is right at every size, this is a lowering bug: report it")
    if not res.ok or res.cost is None:
        why = res.crash or "no cost report"
        result.cost_note = (f"no modeled time, and the kernel was not run at the real shapes: the cost-only run "
                            f"stopped ({str(why).splitlines()[0][:200]})")
    else:
        result.cost = res.cost
        result.timeline = res.timeline
        from .dtypes import ITEMSIZE
        gm_params, specs, _, _ = _real_gm(result)
        # bytes in GM (a bf16 value is 2, though the GM convention holds it in a float32 array)
        moved = sum(int(np.prod(specs[n].shape)) * ITEMSIZE[specs[n].dtype] for n in gm_params)
        result.op_bytes = moved
        hbm_us = moved / (chip.hbm_gbps * 1e3)
        cube_us = _cube_floor_us(result.run.final, res.cost, chip)
        result.floor_kind = "cube" if cube_us > hbm_us else "HBM"
        result.floor_us = max(hbm_us, cube_us) + chip.launch_overhead_us
        _floor_is_a_law(result)


#: Timeline records the real-shape cost run keeps over all blocks: the per-block cap is this over
#: the block count, between 20 000 and 200 000 (trace.bin: 32 bytes a record).
TRACE_RECORDS = 2_000_000


def _preload_plotting() -> None:
    """Import matplotlib's Agg parts on a thread while the simulator builds and verifies (steps
    that mostly wait for child processes), so drawing timeline.png adds little to ``lower``."""
    import threading

    def load():
        try:
            import matplotlib.backends.backend_agg  # noqa: F401
            import matplotlib.figure  # noqa: F401
        except Exception:   # missing or broken: write_timeline says so
            pass
    threading.Thread(target=load, name="ascendcraft-preload-matplotlib").start()


def _trace_limit(blocks: int) -> int:
    return max(20_000, min(200_000, TRACE_RECORDS // max(1, blocks)))


def _floor_is_a_law(result: Lowered) -> None:
    """A modeled time below the physical floor is an error, never a result: the kernel skips
    work at the real shapes (writes part of an output, reads part of an input), or the cost
    model is wrong."""
    if result.cost.time_us >= result.floor_us * (1 - 1e-9):
        return
    raise KernelMismatch(
        f"the modeled time at the op's real shapes, {result.cost.time_us:,.1f} us, is below the {result.floor_kind} "
        f"floor of {result.floor_us:,.1f} us (efficiency {result.floor_us / result.cost.time_us:.0%}): no kernel "
        f"that reads every input and writes every output can be that fast",
        hint="check that the kernel covers every element at the real size (a bound such as minimum(N, 200000) "
             "holds at the verification shapes only); if it does, this is a cost-model bug: report it")


def _require_compiler() -> None:
    """The simulator builds kernels with g++: a missing compiler is the user's to install (exit 2)."""
    import shutil
    if shutil.which("g++") is None:
        raise UserError("the simulator needs the C++ compiler g++, which is not on PATH",
                        hint="install it (Debian/Ubuntu: apt-get install g++; Fedora: dnf install gcc-c++), "
                             "or run with --backend npu on a machine with CANN")


def _cube_floor_us(level, cost, chip) -> float:
    """The cube's time for the kernel's MACs on every AIC at the operand dtype's rate (an operand
    may be a parameter or a scratch tensor: the level's symbol table knows both)."""
    from .dsl import ast as A
    from .lowering_passes.linearize import is_gemm
    from .sim.cost import CUBE_RATE
    # a product's operands share a dtype; one of them is in GM (the other may be a staged ub tile)
    operands = [level.real.symbols.tensor(next(x for x in n.value.args[:2] if isinstance(x, A.Index)).base.id).dtype
                for n in A.walk(level.kernel) if isinstance(n, (A.Store, A.Assign)) and is_gemm(n.value)]
    if not operands:
        return 0.0
    macs = sum(c.cube_macs for c in cost.per_core)
    per_s = chip.aic_cores * chip.cube_macs_per_cycle * CUBE_RATE[operands[0]] * chip.freq_mhz * 1e6
    return macs / per_s * 1e6
