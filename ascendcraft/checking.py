"""The stages every command shares: parse a kernel, bind it to an op, check it at the
op's real shapes, and verify it with the interpreter at verification shapes."""
from __future__ import annotations

import copy
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from .binding import Plan, bind, gm_arrays, instance, parameter_arrays
from .chips import DEFAULT_CHIP, load_chip
from .dsl import ast as A
from .dsl.bounds import check_gm_bounds
from .dsl.checker import CheckedKernel, check, check_at
from .dsl.interpreter import Interpreter
from .memo import Memo, tensor_bytes
from .dsl.parser import parse, parse_file
from .garbage import fewer_full_collections
from .progress import reporter
from .acceptance import check_precision_name
from .errors import UserError
from .groups import input_dtypes, is_group, largest
from .tensorspec import fmt_bytes


@dataclass
class CheckResult:
    kernel: A.Kernel
    task: object
    real: CheckedKernel          # static check at the op's real shapes (footprint, types)
    checked: CheckedKernel       # the kernel as verified (reduced shapes when the real ones are too big)
    shapes: object               # ascendcraft.task.TaskShapes used for verification
    report: object               # ascendcraft.verify.VerifyReport
    draws: list = field(default_factory=list)   # the trials' inputs and references (verify.Draw), reused
                                                # by the lowering's checks and the backend run
    second: "OtherShapes | None" = None         # the same kernel verified at a second shape set
    extents: tuple = ()                          # ... at each shape set keeping one constant real (OtherShapes)
    extents_skipped: tuple = ()                  # (constant, why) whose real extent does not fit the budget
    residues_skipped: str = ""                   # why no set has every constant's real residue ("" if one did)
    groups: tuple = ()                           # a group task's other groups, verified (OtherShapes)
    groups_skipped: tuple = ()                   # (group index, why) of the groups not verified
    plan: object = None                          # ascendcraft.plan.BufferPlan (check_kernel(plan=True))
    outputs: list = field(default_factory=list, repr=False)   # the interpreter's outputs on the first
                                                # KEPT_OUTPUTS draws: the lowering's level 0 on them

    @property
    def other_sets(self) -> list:
        """The shape sets verified beside the main one (OtherShapes): the second, then the real extents."""
        return ([self.second] if self.second is not None else []) + list(self.extents) + list(self.groups)

    @property
    def lowered_sets(self) -> list:
        """The other shape sets the lowering runs at: those where the kernel has the instance it has
        at the real shapes (a generic kernel is lowered once per dtype; the same kernel otherwise)."""
        return [o for o in self.other_sets if o.checked.kernel is self.real.kernel]

    def instance_checks(self) -> list["CheckResult"]:
        """For a generic kernel on a group task, one check result per instance other than the real
        shapes' (the groups of other dtypes): its largest verified group as its real and main
        shapes, the others as its group sets. ``lower`` lowers each, so every verified group runs
        on the backend."""
        by_instance: dict[int, list] = {}
        for o in self.groups:
            if o.checked.kernel is not self.real.kernel and o.report.passed:
                by_instance.setdefault(id(o.checked.kernel), []).append(o)
        subs = []
        for sets in by_instance.values():
            main = largest(sets, lambda o: o.shapes)
            subs.append(CheckResult(self.kernel, InstanceTask(self.task, main.shapes), main.checked, main.checked,
                                    main.shapes, main.report, main.draws,
                                    groups=tuple(o for o in sets if o is not main)))
        return subs

    @property
    def reports(self) -> list:
        """Every verification report: the main shapes', then the other shape sets'."""
        return [self.report] + [o.report for o in self.other_sets]

    @property
    def passed(self) -> bool:
        return all(r.passed for r in self.reports)

    def skipped_lines(self) -> list[str]:
        """One line per real extent, and the residue set, not verified (and why)."""
        return [f"real extent of {name} not verified: {why}" for name, why in self.extents_skipped] + \
            ([f"residues of the real shapes not verified: {self.residues_skipped}"] if self.residues_skipped else []) + \
            [f"group {i} not verified: {why}" for i, why in self.groups_skipped]

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
            "second_shapes_verification": self.second.report.to_json() if self.second is not None else None,
            "real_extent_verifications": [o.extent_json(o.report) for o in self.extents],
            "real_extents_not_verified": [{"constant": n, "why": why} for n, why in self.extents_skipped],
            "residues_not_verified": self.residues_skipped or None,
            "groups": ([{"group": self.shapes.index, "inputs": self.shapes.shapes_text(), "passed": self.report.passed}]
                       + [{"group": o.shapes.index, "inputs": o.shapes.shapes_text(), "passed": o.report.passed,
                           "verification": o.report.to_json()} for o in self.groups]
                       if self.groups or self.groups_skipped else None),
            "groups_not_verified": [{"group": i, "why": why} for i, why in self.groups_skipped],
            "warnings": [{"message": w.message, "hint": w.hint, "location": _location(w, self.kernel),
                          "text": _warning_line(w, self.kernel)} for w in self.real.warnings],
            "plan": self.plan.to_json() if self.plan is not None else None,
        }

    def summary(self) -> str:
        chip = self.real.chip
        peaks = [f"{sp.upper()} {self.real.peak[sp][0]:,} / {chip.capacity(sp):,}"
                 for sp in ("ub", "l1", "l0c") if sp == "ub" or self.real.peak[sp][0]]
        head = (f"{'PASS' if self.passed else 'FAIL'}  kernel {self.kernel.name} vs "
                f"{self.task.folder.name if getattr(self.task, 'folder', None) else Path(self.task.path).name} "
                f"on {chip.name} ({self.real.cores} cores); on-chip peak at real shapes: {', '.join(peaks)} bytes")
        text = head + "\n" + self.report.summary()
        if self.second is not None:
            text += "\nsecond shapes:\n" + self.second.report.summary()
        for o in self.extents:
            text += f"\n{o.title()}:\n" + o.report.summary()
        if self.groups or self.groups_skipped:
            text += "\n" + self._groups_summary()
        for line in self.skipped_lines():
            text += "\n" + line
        for w in self.real.warnings:       # legal but suspicious (the checker's warnings): one line each
            text += "\n" + _warning_line(w, self.kernel)
        if self.plan is not None:
            text += "\n" + self.plan.summary()
        return text

    def _groups_summary(self) -> str:
        """One line for the groups that passed, with their dtypes and ranks; the failing group's report."""
        done = [o for o in self.groups if o.report.passed]
        sets = [self.shapes] + [o.shapes for o in done]
        dtypes = sorted({d for g in sets for d in input_dtypes(g)})
        ranks = sorted({len(s.shape) for g in sets for s in g.input_specs if hasattr(s, "shape")})
        empty = sum(1 for g in sets if any(hasattr(s, "shape") and 0 in s.shape for s in g.input_specs))
        total = len(self.groups) + 1 + len(self.groups_skipped)
        text = (f"groups: {len(sets)} of {total} verified (the main shapes are {self.shapes.title()}); dtypes "
                f"{', '.join(dtypes)}; ranks {', '.join(map(str, ranks))}" + (f"; {empty} with an empty tensor" if empty else ""))
        for o in self.groups:
            if not o.report.passed:
                text += f"\n{o.shapes.describe()}:\n" + o.report.summary()
        return text


class InstanceTask:
    """A group task seen from one instance of a generic kernel: its ``real`` shapes are that
    instance's largest group (the static checks and the modeled time of its lowering)."""

    def __init__(self, task, real):
        self._task, self.real = task, real

    def __getattr__(self, name):
        return getattr(self._task, name)


def _location(w, kernel: A.Kernel) -> dict | None:
    """Where a checker warning points: the kernel's file, line and column."""
    if w.span is None:
        return None
    source = w.source or kernel.source
    return {"file": source.name if source is not None else None, "line": w.span.line, "column": w.span.column}


def _warning_line(w, kernel: A.Kernel) -> str:
    """``file:line:col: warning: message (hint)`` for a checker warning."""
    where = _location(w, kernel)
    at = f"{where['file'] or '<kernel>'}:{where['line']}:{where['column']}: " if where else ""
    return f"{at}warning: {w.message}" + (f" ({w.hint})" if w.hint else "")


@dataclass
class OtherShapes:
    """Verification at a shape set beside the main one: the second, derived from the seed (see
    ``Task.variant``: a kernel keyed on one shape, a hard-coded extent or a bound that holds only at
    one size, differs there), or one keeping a shape constant at its real value (``label``, see
    ``Task.real_extents``: a tile counted twice when the real extent is a multiple of it, an index
    kept in a type too narrow for the real extent)."""

    shapes: object               # TaskShapes
    checked: CheckedKernel
    report: object               # VerifyReport (the first SECOND_TRIALS trials of the policy)
    draws: list
    label: str = ""              # the constant kept real; "" for the second shape set
    modulus: int = 1             # > 1: the constant is held at a smaller value with the real one's residue

    def title(self) -> str:
        """How reports name this shape set."""
        return shape_set_title(self.shapes, self.label, self.modulus)


    def extent_json(self, report) -> dict:
        """A real-extent or residue set and ``report`` (the interpreter's or the backend's) in report.json."""
        residue = self.modulus > 1
        return {"constant": self.label, "modulus": self.modulus if residue else None,
                "values": {n: self.shapes.overrides[n] for n in self.label.split(", ")} if residue else None,
                "verification": report.to_json()}


def shape_set_title(shapes, label: str, modulus: int = 1) -> str:
    """The name of an other shape set: the second, a real extent, or one whose constants ``label``
    have their real values' residues modulo ``modulus``."""
    if not label:
        return "second shapes"
    if is_group(shapes):
        return shapes.title()
    if modulus > 1:
        names = label.split(", ")
        held = ", ".join(f"{n}={shapes.overrides[n]} as {shapes.original[n]}" for n in names)
        return f"residue{'s' if len(names) > 1 else ''} of {label} modulo {modulus} ({held})"
    return f"real extent of {label}"


def load_kernel(kernel) -> A.Kernel:
    """A kernel from a path, DSL text, or an already parsed Kernel."""
    if isinstance(kernel, A.Kernel):
        return kernel
    if not isinstance(kernel, (str, Path)):
        raise UserError(f"a kernel is a path to a .dsl file, DSL text or a parsed Kernel, not "
                        f"{type(kernel).__name__}", hint="ascendcraft.compile('kernel.dsl', 'op.py')")
    if isinstance(kernel, Path) or "\n" not in str(kernel):  # kernel text always spans several lines
        from .inputs import check_file
        check_file(kernel, "kernel file")     # a regular file of bounded size, before it is read
        try:
            text, name = Path(kernel).read_text(), str(Path(kernel))
        except (OSError, UnicodeDecodeError):
            return parse_file(kernel)      # which says what is wrong with the file
    else:
        text, name = str(kernel), None
    # Parsing is a pure function of the text and the name it is reported under, and the AST is
    # immutable: the same text gives the same object (so check results keyed by it are found).
    k = _PARSED.get((text, name))
    if k is None:
        k = parse(text, name) if name is not None else parse(text)
        _PARSED.put((text, name), k)
    return k


_PARSED = Memo(entries=64)


def interpreter_runner(checked: CheckedKernel, plan: Plan, parameters: dict, keep: list | None = None,
                       keep_first: int = 0):
    """A verification runner that executes the kernel with the NumPy interpreter (compiled once
    for all trials). The output buffers of its first ``keep_first`` runs are appended to ``keep``
    (nothing writes them after the run: the judge only reads)."""
    compiled = []

    def run(inputs, outputs):
        if not compiled:
            compiled.append(Interpreter(checked))
        compiled[0].run(gm_arrays(plan, inputs, outputs, parameters))
        if keep is not None and len(keep) < keep_first:
            keep.append(outputs)
    return run


@fewer_full_collections()
def check_kernel(kernel, op, *, trials: int | None = None, seed: int = 0, chip: str = DEFAULT_CHIP,
                 max_bytes: int = 64 << 20, full_shapes: bool = False, inputs: str = "adversarial",
                 other_shapes: bool = True, progress: Callable[[str], None] | None = None,
                 plan: bool = False, precision: str = "ours") -> CheckResult:
    """Parse, bind, check (at real and verification shapes) and verify a kernel against an op.

    ``trials`` (default :data:`~ascendcraft.verify.DEFAULT_TRIALS`) and ``inputs`` (the input
    policy, ``adversarial`` or ``op``) are the verification policy's (docs/verification.md);
    ``other_shapes`` also verifies at the other shape sets: a second one derived from the seed
    (``Task.variant``) and, when the verification shapes are reduced, one per size constant kept at
    its real value (``Task.real_extents``).
    ``precision`` is whose acceptance decides: ``ours`` or the benchmark's (``task``,
    :mod:`ascendcraft.acceptance`).
    ``plan`` also runs the lowering passes statically at the real shapes and keeps the buffer
    plan ``lower`` would use (``ascendcraft.plan``), or the lowering's refusal, located.
    ``progress``, if given, receives a short line at each stage (the CLI prints them to stderr).
    """
    from .task import load_task

    say = reporter(progress)
    check_precision_name(precision)
    k = load_kernel(kernel)
    say(f"loading op {op if not hasattr(op, 'real') else op.path}")
    task = op if hasattr(op, "real") else load_task(op)
    # A check is a pure function of the kernel (an immutable AST; one object per text and name, see
    # load_kernel), the task (one object per op file path and text, see task.load_task) and the
    # options. The entry holds both objects, so their ids are not reused while it lives.
    key = (id(k), id(task), chip, trials, seed, max_bytes, full_shapes, inputs, other_shapes, plan, precision)
    hit = _CHECKS.get(key)
    if hit is not None:
        result, said = hit[2], hit[3]
        for msg in said:       # the progress lines of the run that made it, in order
            say(msg)
        return copy.copy(result)
    said: list[str] = []

    def record(msg: str) -> None:
        said.append(msg)
        say(msg)
    policy = (inputs, precision)
    result = _check_kernel(k, task, chip, trials, seed, max_bytes, full_shapes, policy, other_shapes, record, plan)
    _CHECKS.put(key, (k, task, result, said), _held_bytes(result))
    return copy.copy(result)


def _held_bytes(result: CheckResult) -> int:
    """Bytes of arrays a kept check result holds alive: the kept outputs, every draw."""
    draws = result.draws + [d for o in result.other_sets for d in o.draws]
    return tensor_bytes(result.outputs, [(d.inputs, d.native, d.truth) for d in draws])


#: Check results (see check_kernel): ``lower`` after ``check`` of the same kernel, or a candidate
#: checked again, costs nothing the second time. Results that raise are never kept.
_CHECKS = Memo(entries=8, max_bytes=1 << 30)


def _check_kernel(k, task, chip, trials, seed, max_bytes, full_shapes, policy, other_shapes, say, plan):
    from .verify import DEFAULT_TRIALS

    chip_profile = load_chip(chip)
    try:
        k_real = instance(k, task.real)
        real_binding, real_plan = bind(k_real, task.real)
        real = check(k_real, real_binding, chip_profile)
    except UserError as err:
        if task.groups:          # the real shapes are one of the groups: say which
            err.message = f"at {task.real.describe()}: {err.message}"
        raise
    # every GM index inside its tensor at the real dims (and at the index inputs' real values), before any run
    check_gm_bounds(real, _real_index_values(task, real_plan))
    shapes = task.shapes(max_bytes=max_bytes, full=full_shapes)
    say(f"verifying on {'reduced' if shapes.reduced else 'real'} shapes")
    outputs: list = []
    checked, draws, report = _interpret_at(k, shapes, chip_profile, DEFAULT_TRIALS if trials is None else trials,
                                           seed, policy, say, real=real, keep=outputs)
    result = CheckResult(k, task, real, checked, shapes, report, draws, outputs=outputs)
    if report.passed and other_shapes:
        result.second = _verify_second(k, task, shapes, chip_profile, seed, max_bytes, policy, say,
                                       min(len(draws), SECOND_TRIALS))
    if result.passed and other_shapes and shapes.reduced:
        result.extents, result.extents_skipped, result.residues_skipped = _verify_extents(k, task, shapes, real, chip_profile, seed, max_bytes,
                                                                 policy, say, min(len(draws), SECOND_TRIALS))
    if result.passed and task.groups:
        result.groups, result.groups_skipped = _verify_groups(k, task, shapes, chip_profile, seed, max_bytes,
                                                              full_shapes, policy, say, min(len(draws), SECOND_TRIALS))
    if plan:
        from .plan import buffer_plan
        say("planning the lowering's buffers at real shapes")
        result.plan = buffer_plan(real.kernel, task, real, (shapes, *(o.shapes for o in result.lowered_sets)))
    return result


def _verify_groups(k, task, main, chip_profile, seed, max_bytes, full_shapes, policy, say, trials):
    """Verify at each group of a group task besides ``main`` (those within ``max_bytes`` unless
    ``full_shapes``), until one fails: (OtherShapes per group, (index, why) per group not verified)."""
    done, skipped = [], [(i, why) for i, why in task.groups_unsupported]
    for g in task.groups:
        if g is main:
            continue
        if done and not done[-1].report.passed:
            skipped.append((g.index, f"not reached: {done[-1].shapes.title()} failed"))
        elif not full_shapes and g.nbytes > max_bytes:
            skipped.append((g.index, f"its {fmt_bytes(g.nbytes)} exceed --max-bytes {fmt_bytes(max_bytes)} "
                                     f"(raise it or pass --full-shapes)"))
        else:
            say(f"verifying at {g.title()} ({g.shapes_text()})")
            done.append(_verify_other(k, g, chip_profile, seed, policy, say, trials, (g.title(), 1),
                                      g.describe(), "one kernel serves every group: a type variable for the "
                                      "dtypes (kernel k[T: (f16, bf16, f32)]), a *B dim for any rank"))
    return tuple(done), tuple(sorted(skipped))


def _real_index_values(task, plan: Plan) -> dict:
    """The op's integer inputs at the real size (``Task.real_integer_inputs``) by kernel parameter
    name (``plan``: the kernel bound at the real shapes)."""
    tensors = [i for i, s in enumerate(task.real.input_specs) if hasattr(s, "shape")]
    drawn = task.real_integer_inputs()
    return {name: drawn[i] for name, i in zip(plan.forward_inputs, tensors) if i in drawn}


#: Trials at the second shape set (the op's own draw and a signed one, under the default policy).
SECOND_TRIALS = 2


#: The shape sets that keep one constant at its real value get this share of ``--max-bytes`` (the
#: whole of it when the real extent needs more): the others shrink as far as they can (the point
#: is the one real extent), and each set costs less.
EXTENT_SHARE = 4


def _verify_extents(k, task, shapes, real, chip_profile, seed, max_bytes, policy, say, trials
                    ) -> tuple[tuple, tuple, str]:
    """Verify at each shape set of ``task.real_extents`` (a set with its residue may stand in for a
    real extent that does not fit) and at ``task.residue_set``: (OtherShapes per set, (constant,
    why) per constant whose real extent does not fit, why there is no residue set or "")."""
    done, skipped = [], []
    modulus = tile_modulus(real)
    for e in task.real_extents(shapes, (max(max_bytes // EXTENT_SHARE, 1), max_bytes), modulus):
        if e.why:
            stand_in = (f"; verified instead at {e.name}={e.shapes.overrides[e.name]}, which has the real value's "
                        f"residue modulo {e.modulus} (the kernel's tile sizes and cores)" if e.shapes else "")
            skipped.append((e.name, e.why + stand_in))
        if e.shapes is None:
            continue
        title = shape_set_title(e.shapes, e.name, e.modulus)
        say(f"verifying at the {title} ({e.shapes.shapes_text()})")
        other = _verify_other(k, e.shapes, chip_profile, seed, policy, say, trials, (e.name, e.modulus),
                              f"the {title} (the other size constants shrunk: {e.shapes.shapes_text()})",
                              "the kernel must hold at the op's real size of every axis: a tile counted twice when "
                              "the extent is a multiple of it, an index or count kept in a type too narrow for it")
        done.append(other)
        if not other.report.passed:
            return tuple(done), tuple(skipped), ""
    residues, why = task.residue_set(shapes, modulus, max_bytes) if modulus > 1 else (None, "")
    if residues is not None and any(o.shapes.overrides == residues.overrides for o in done):
        residues = None      # a residue stand-in already was this set
    if residues is not None:
        names = ", ".join(n for n in sorted(residues.overrides)
                          if (residues.original[n] - residues.overrides[n]) % modulus == 0)
        title = shape_set_title(residues, names, modulus)
        say(f"verifying at the {title}")
        done.append(_verify_other(k, residues, chip_profile, seed, policy, say, trials, (names, modulus),
                                  f"the {title}",
                                  "the kernel must hold where every axis has the real size's tail and split over "
                                  "the cores: a tile counted twice when an extent is a multiple of it"))
    return tuple(done), tuple(skipped), why


def tile_modulus(real: CheckedKernel) -> int:
    """The least common multiple of the kernel's constant loop steps (its tile sizes: a step that
    does not depend on the dims) and its core count: an extent with the real one's residue modulo
    it has the same tails and the same uneven split over the cores."""
    steps = {real.cores}
    for node in A.walk(real.kernel):
        if isinstance(node, A.For):
            step = real.symbols.canonical(node.step)
            if not any(isinstance(n, A.Name) for n in A.walk(step)):
                value = real.symbols.extent(step)
                if isinstance(value, int) and value > 1:
                    steps.add(value)
    return math.lcm(*steps)


def _verify_second(k, task, shapes, chip_profile, seed, max_bytes, policy, say, trials) -> OtherShapes | None:
    second = task.variant(shapes, seed, max_bytes)
    if second is None:
        return None
    say("verifying on second shapes " + second.shapes_text())
    return _verify_other(k, second, chip_profile, seed, policy, say, trials, ("", 1),
                         f"the second verification shapes ({second.shapes_text()}; {task.path.name}'s size "
                         f"constants moved so that a kernel keyed on one shape shows it)",
                         "write extents as dim names from the signature, not as numbers: the kernel must hold for "
                         "every size the op's constants can take")


def _verify_other(k, shapes, chip_profile, seed, policy, say, trials, label: tuple[str, int], where: str,
                  hint: str) -> OtherShapes:
    """Verify at the other shape set ``shapes``; an error there says ``where`` it happened."""
    try:
        checked, draws, report = _interpret_at(k, shapes, chip_profile, trials, seed, policy, say)
    except UserError as err:
        err.message = f"at {where}: {err.message}"
        err.hint = hint + (f"; {err.hint}" if err.hint else "")
        raise
    return OtherShapes(shapes, checked, report, draws, label=label[0], modulus=label[1])


#: Runs of the source kernel whose outputs a check keeps (``CheckResult.outputs``): the lowering
#: compares its first level with them instead of running the source again (passes.PASS_TRIALS).
KEPT_OUTPUTS = 2


def _interpret_at(k, shapes, chip_profile, trials, seed, policy, say, real=None, keep=None):
    """Bind and check ``k`` at ``shapes`` (reusing ``real``, its check at the real shapes, when the
    binding is the same) and verify it with the interpreter under ``policy`` (the input policy and the
    precision, as check_kernel takes them): (checked, draws, report)."""
    from .verify import make_draws, verify
    inputs, precision = policy
    k = instance(k, shapes)
    binding, plan = bind(k, shapes)
    checked = check_at(k, binding, chip_profile, real)
    draws = make_draws(shapes, trials=trials, seed=seed, inputs=inputs, progress=say)
    report = verify(interpreter_runner(checked, plan, parameter_arrays(plan, shapes), keep, KEPT_OUTPUTS), shapes,
                    draws=draws, progress=say, precision=precision)
    return checked, draws, report
