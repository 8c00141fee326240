"""Verification: the one policy that decides whether a kernel computes what the op computes.

Used by ``check``, ``lower`` (the source, every pass, the backend run), ``gen`` and the
compiled-kernel handle. Per trial it draws inputs (:mod:`ascendcraft.distributions`), runs
the torch reference, hands the kernel NumPy copies of the inputs and *poisoned* output
buffers, and compares what the kernel wrote with the reference. docs/verification.md is
the user's page of this policy.

**Inputs.** Trial 0 is the op's own ``get_inputs()`` with ``torch.manual_seed(seed)`` (the
task's contract). Trials 1, 2, ... draw from the distributions of
:data:`~ascendcraft.distributions.DERIVED` (signed, edges, near_one, offset, scaled, specials,
cycling) with the op's structure kept. A derived draw is *screened* before the kernel sees it: if the
reference raises on it, turns non-finite where the op's own draw did not (``specials`` excepted:
there the elements whose reference is NaN or inf are not judged), is degenerate
(below), or is too ill-conditioned for float32 to decide (the op's own float32 result misses
the tolerance against float64), a domain-safe variant is tried, then the other
distributions, then the op's own draw with another seed; the report names the draw used and
why. ``inputs="op"`` gives every trial the op's own ``get_inputs()`` (MultiKernelBench's
behaviour).

**Degenerate references.** An output whose reference is constant (all equal, all zero, all
NaN/Inf) or unchanged from an earlier trial's is no evidence in that trial. The kernel is
still compared there, but PASS needs, for every output, at least one trial that is
evidence; otherwise the verdict is *not verifiable on these inputs*, with the reason.

**Reference precision.** The kernel is judged against the reference evaluated in float64
(inputs and module cast to double) where the op runs that way; the float32 reference's own
error against it is reported ("reference f32 error 2.0e-4"). Integer and bool outputs, and
ops that do not run in float64, use the op's own result, and the report says so.

**Comparison.** GM convention (how tensors are held in NumPy): f16 -> float16, f32 ->
float32, bf16 -> float32 holding bf16-exact values, integers -> the NumPy integer of the
same width, bool -> ``np.bool_`` for inputs. Output buffers are poisoned before each run:

* floats: a NaN with a distinctive payload (:data:`POISON_BITS`), so an element still
  holding it is reported as *unwritten*, apart from NaNs the kernel computed;
* signed ints: ``iinfo.min``; unsigned ints: ``iinfo.max`` (an element holding it
  counts as unwritten unless the reference has that very value there);
* bool: passed as ``np.uint8`` filled with ``0xAB``; the kernel writes 0 or 1.

A trial passes when every output has the reference's shape and dtype, no element is
unwritten, NaN/+Inf/-Inf sit at the same positions as in the reference, the finite
elements satisfy ``|got - ref| <= atol + rtol * |ref|`` (:data:`TOLERANCES`), and the
relative L2 error ``||got - ref|| / ||ref||`` over the finite elements is at most
:data:`REL_L2_BOUND` (skipped when ``||ref|| == 0``; allclose decides alone then).

Why the relative-L2 bound: ``allclose`` alone accepts an all-zero softmax over a long
row (every value is below atol=1e-4), as MultiKernelBench and KernelBench do. The bound
is ``2 * rtol``: a result whose every element satisfies the tolerance on its relative
merits (``|d| <= rtol*|ref| + atol`` with ``|ref| >= 1``) has rel-L2 <= 2*rtol, so the
bound only bites when results pass allclose because atol swamps small values. It is
far above rounding noise (f32 reordering gives ~1e-6; one f16/bf16 rounding ~5e-4/4e-3).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
import torch

from . import distributions as D
from .acceptance import TaskRule, as_tensors, rule_for
# the comparison's names, re-exported: callers import them from the policy module
from .compare import (_EPS, POISON_BITS, REL_L2_BOUND, SENSITIVITY_FACTOR, TOLERANCES, OutputResult,  # noqa: F401
                      _as_float64, _fmt, _val, buffer_dtype, compare, float_slack, l2_norm, poison_buffer, to_numpy)
from .errors import UserError
from .evidence import why_no_evidence, why_unverifiable
from .memo import Memo, tensor_bytes
from .progress import reporter
from .shapes import TaskShapes
from .tensorspec import TensorSpec, dtype_name

Runner = Callable[[list, list], None]

#: The float reference's own error (rel-L2 against float64) is shown in summaries from here up.
REF_ERROR_SHOWN = 1e-5
INPUT_POLICIES, DEFAULT_TRIALS = D.INPUT_POLICIES, D.DEFAULT_TRIALS


# --------------------------------------------------------------------------- report

@dataclass
class TrialResult:
    seed: int
    passed: bool
    outputs: list[OutputResult]
    problem: str = ""           # a trial-level failure (wrong number of outputs)
    distribution: str = "op"    # the draw used: Draw.label
    reference: str = "float64"  # what the kernel was judged against (Draw.reference)
    notes: list[str] = field(default_factory=list)   # draws tried and refused before this one
    judged_by: str = ""         # the benchmark's rule that decided ``passed`` ("" = ours did)
    ours: bool | None = None    # under a benchmark's rule: our policy's verdict, for comparison

    def to_json(self) -> dict:
        return {"seed": self.seed, "passed": self.passed, "problem": self.problem,
                "distribution": self.distribution, "reference": self.reference, "notes": self.notes,
                "judged_by": self.judged_by or "ours", "ours": self.passed if self.ours is None else self.ours,
                "outputs": [o.to_json() for o in self.outputs]}


@dataclass
class VerifyReport:
    passed: bool
    trials: list[TrialResult]
    shapes: dict            # TaskShapes.to_json(): reduced, overrides, original, inputs, outputs, bytes
    shapes_text: str        # TaskShapes.describe()
    unverifiable: str = ""  # why the trials are no evidence for some output ("" = they are)
    inputs: str = "adversarial"
    precision: str = "ours"  # whose acceptance decided (ascendcraft.acceptance)

    @property
    def verdict(self) -> str:
        """``PASS``, ``FAIL`` or ``NOT VERIFIABLE`` (every trial matched, but none is evidence)."""
        if self.passed:
            return "PASS"
        return "NOT VERIFIABLE" if self.unverifiable and all(t.passed for t in self.trials) else "FAIL"

    def summary(self) -> str:
        lines = []
        for i, t in enumerate(self.trials):
            errs = [o for o in t.outputs]
            abs_ = max((o.max_abs_err for o in errs), default=0.0)
            rel = max((o.max_rel_err for o in errs), default=0.0)
            l2s = [o.rel_l2 for o in errs if o.rel_l2 is not None]
            l2 = _fmt(max(l2s)) if l2s else "-"
            line = (f"trial {i} (seed {t.seed}, {t.distribution}): {'PASS' if t.passed else 'FAIL'}  "
                    f"max abs {_fmt(abs_)}  max rel {_fmt(rel)}  rel-L2 {l2}")
            ref_errs = [o.ref_error for o in errs if o.ref_error is not None]
            if ref_errs and max(ref_errs) >= REF_ERROR_SHOWN:
                line += f"  (reference f32 error {max(ref_errs):.1e})"
            if t.judged_by:
                line += f"  [judged by {t.judged_by} against the op's own result; ours: {'PASS' if t.ours else 'FAIL'}]"
            elif t.reference != "float64":
                line += f"  [judged against {t.reference}]"
            if not t.passed:
                line += f"  -- {_trial_problem(t)}"
            degenerate = [f"output {o.index} {o.degenerate}" for o in errs if o.degenerate]
            if degenerate:
                line += "  [no evidence: " + "; ".join(degenerate) + "]"
            lines.append(line)
            for o in t.outputs:
                if not o.passed and o.worst:
                    lines.append(f"    output {o.index} worst elements: " + "; ".join(
                        f"[{', '.join(map(str, i))}] expected {_val(e)} got {_val(g)}" for i, e, g in o.worst))
            lines += [f"    {n}" for n in t.notes]
        verdict = self.verdict
        tail = f" ({sum(t.passed for t in self.trials)}/{len(self.trials)} trials) on {self.shapes_text}"
        if verdict == "NOT VERIFIABLE":
            tail = f" on these inputs: {self.unverifiable}" + tail
        lines.append(verdict + tail)
        return "\n".join(lines)

    def first_failure(self) -> str | None:
        """The first failure, precisely and briefly (fed back to the LLM in repair loops)."""
        if self.verdict == "NOT VERIFIABLE":
            return f"not verifiable on these inputs: {self.unverifiable}"
        for t in self.trials:
            if t.passed:
                continue
            head = f"trial seed {t.seed} ({t.distribution} inputs)"
            if t.problem:
                return f"{head}: {t.problem}"
            for o in t.outputs:
                if o.passed:
                    continue
                label = f"output {o.index}" + (f" ({o.name})" if o.name != f"output {o.index}" else "")
                text = f"{head}: {label} {o.dtype}{list(o.shape)}: {o.problem}"
                if o.worst:
                    text += "; worst elements: " + "; ".join(
                        f"[{', '.join(map(str, i))}] expected {_val(e)} got {_val(g)}" for i, e, g in o.worst)
                return text
        return None

    def to_json(self) -> dict:
        return {"passed": self.passed, "verdict": self.verdict, "unverifiable": self.unverifiable,
                "inputs": self.inputs, "precision": self.precision, "trials": [t.to_json() for t in self.trials],
                "shapes": self.shapes,
                "tolerances": {d: {"atol": a, "rtol": r, "rel_l2": REL_L2_BOUND[d]} for d, (a, r) in TOLERANCES.items()}}


def _trial_problem(t: TrialResult) -> str:
    if t.problem:
        return t.problem
    bad = [o for o in t.outputs if not o.passed]
    return "; ".join(f"output {o.index}: {o.problem}" for o in bad[:2]) + (" ..." if len(bad) > 2 else "")


# --------------------------------------------------------------------------- draws

@dataclass
class Draw:
    """The inputs of one trial and the references on them (reusable across runs on one shape set)."""

    trial: int
    seed: int
    label: str                       # "op" or a derived distribution, with its variant
    inputs: list                     # as given to the reference (torch tensors, scalars)
    native: list                     # the op's reference, in the op's own dtypes
    truth: list                      # what the kernel is judged against, per output
    reference: str                   # "float64", or "float32 (why not float64)"
    degenerate: list                 # per output: why this draw is no evidence for it ("" = it is)
    notes: list = field(default_factory=list)
    policy: str = "adversarial"      # the input policy the draw was made under
    shapes: object = field(default=None, repr=False)   # the TaskShapes drawn for (for the magnitudes)
    _magnitudes: object = field(default=False, repr=False)
    _spread: dict = field(default_factory=dict, repr=False)
    _ref_errors: dict = field(default_factory=dict, repr=False)

    def ref_error(self, i: int) -> float | None:
        """:func:`_ref_error` of output ``i`` (the op's own float result against the judged one),
        computed once: every run judged on this draw reports it."""
        if i not in self._ref_errors:
            self._ref_errors[i] = _ref_error(self.native[i], self.truth[i])
        return self._ref_errors[i]

    def magnitude(self, i: int):
        """Output ``i`` of :func:`condition_magnitude` on these inputs, or None; computed on first
        need (only a comparison that fails the plain tolerances asks)."""
        if self._magnitudes is False:
            self._magnitudes = condition_magnitude(self.shapes, self.inputs) if self.shapes is not None else None
        m = self._magnitudes
        return m[i] if m is not None and i < len(m) else None

    def sensitivity(self, i: int):
        """Output ``i`` of :func:`input_sensitivity` on these inputs at the precision of its dtype, or
        None; computed on first need (once per dtype)."""
        dtype = dtype_name(self.native[i].dtype)
        if self.shapes is None or dtype not in _EPS:
            return None
        if dtype not in self._spread:
            self._spread[dtype] = input_sensitivity(self.shapes, self.inputs, self.seed, _EPS[dtype])
        s = self._spread[dtype]
        return s[i] if s is not None and i < len(s) else None

    def judge(self, got: np.ndarray, i: int, sensitivity: bool = True, written_as: str | None = None) -> OutputResult:
        """``got``, output ``i`` of a run (or the op's own result), against the judged reference:
        the per-dtype tolerances first, the float slack (the magnitudes of the terms and, with
        ``sensitivity``, the op's sensitivity to rounding) only where those fail. ``written_as``: the
        float dtype the run wrote the output in, when coarser than the reference's (an operator whose
        OpDef writes bf16 or f16 where torch promotes to f32): judged at its precision, in its buffer
        type (an f16 output the caller widened into the reference's f32 buffer narrows back exactly)."""
        truth = self.truth[i]
        dtype = dtype_name(self.native[i].dtype)
        if written_as in _EPS and dtype in _EPS and _EPS[written_as] > _EPS[dtype]:
            dtype = written_as
            got = got.astype(buffer_dtype(dtype), copy=False)
        free = self.nonfinite_unjudged
        res = compare(got, truth, i, dtype=dtype, nonfinite_unjudged=free)
        if not res.passed and dtype in _EPS and res.n_unwritten == 0:
            slack = float_slack(self.magnitude(i), truth, dtype, self.sensitivity(i) if sensitivity else None)
            if slack[0] is not None:
                res = compare(got, truth, i, dtype=dtype, slack=slack, nonfinite_unjudged=free)
        return res

    @property
    def nonfinite_unjudged(self) -> bool:
        """Whether elements whose reference is NaN or infinite may hold anything (the IEEE-special draws)."""
        return D.nonfinite_unjudged(self.label)

    @property
    def numpy_inputs(self) -> list:
        """Fresh NumPy copies in the GM convention (a kernel may write its inputs)."""
        return [to_numpy(x)[0] if isinstance(x, torch.Tensor) else x for x in self.inputs]


def _references(shapes: TaskShapes, inputs: list, nonfinite_unjudged: bool = False) -> tuple[list, list, str]:
    """(native outputs, judged outputs, what judges): float outputs against float64 where the op runs so.

    With ``nonfinite_unjudged`` (a specials draw) the judged outputs are also non-finite wherever
    torch's plain kernels (:func:`~ascendcraft.shapes.plain_kernels_only`) give NaN or inf: there
    PyTorch's result depends on the kernel it picks, so those elements are not judged either."""
    native = shapes.reference([x.clone() if isinstance(x, torch.Tensor) else x for x in inputs])
    wide, why = shapes.reference64([x.clone() if isinstance(x, torch.Tensor) else x for x in inputs])
    if wide is not None and (len(wide) != len(native) or any(w.shape != n.shape for w, n in zip(wide, native))):
        wide, why = None, "its float64 run returns other shapes"
    if wide is None:
        return native, native, f"float32 reference (no float64 run: {why})"
    truth = [_overflowed(w, n) if n.is_floating_point() and w.is_floating_point() else n
             for w, n in zip(wide, native)]
    if nonfinite_unjudged:
        plain, _ = shapes.reference64([x.clone() if isinstance(x, torch.Tensor) else x for x in inputs],
                                      plain_kernels=True)
        truth = [_nonfinite_of_either(t, p) for t, p in zip(truth, plain or [None] * len(truth))]
    return native, truth, "float64"


def _overflowed(wide: torch.Tensor, native: torch.Tensor) -> torch.Tensor:
    """The float64 reference ``wide`` with the values beyond ``native``'s dtype's range as ±inf: what
    rounding them to the output's dtype gives, so what every correct kernel stores there (a bf16
    ELU whose exp reaches 1e42 is -inf in bf16, and in PyTorch's own bf16 result)."""
    rounded = wide.to(native.dtype)
    return torch.where(torch.isinf(rounded) & torch.isfinite(wide), rounded.to(wide.dtype), wide)


def _nonfinite_of_either(truth: torch.Tensor, other: torch.Tensor | None) -> torch.Tensor:
    """``truth`` with ``other``'s NaN and infinite elements where ``other`` is a float tensor of its shape."""
    if other is None or other.shape != truth.shape or not (truth.is_floating_point() and other.is_floating_point()):
        return truth
    return torch.where(torch.isfinite(other), truth, other.to(truth.dtype))


#: A derived draw on which the op's own float result is this many times further from float64
#: than on the op's own draw (and outside the tolerance) is too ill-conditioned to judge by.
ILL_CONDITIONED = 10.0


def _ill_conditioned(draw: "Draw", op0: "Draw") -> str:
    """Why ``draw`` is too ill-conditioned for the op's float dtype to decide, or ""."""
    for i, (n, t) in enumerate(zip(draw.native, draw.truth)):
        if n is t or not n.is_floating_point():
            continue
        err, base = draw.ref_error(i), op0.ref_error(i) if i < len(op0.native) else None
        if err is None or err <= ILL_CONDITIONED * max(base or 0.0, 1e-12):
            continue
        # without the sensitivity slack: a draw the op's own float result cannot decide within the
        # magnitudes' slack is refused as it was before that slack existed (it judges kernels weakly)
        res = draw.judge(to_numpy(n)[0], i, sensitivity=False)
        if not res.passed:
            return (f"too ill-conditioned: the op's own {dtype_name(n.dtype)} result is {err:.1e} from float64 "
                    f"there (relative L2 of output {i}; {base or 0:.1e} on the op's own draw)")
    return ""


def _ref_error(native: torch.Tensor, truth: torch.Tensor) -> float | None:
    if native is truth or not native.is_floating_point():
        return None
    n, t = _as_float64(native), _as_float64(truth)
    both = np.isfinite(n) & np.isfinite(t)
    norm = l2_norm(np.where(both, t, 0.0))
    return l2_norm(np.where(both, n, 0.0) - np.where(both, t, 0.0)) / norm if norm > 0 else None


def condition_magnitude(shapes: TaskShapes, inputs: list) -> list | None:
    """The op on the absolute values of its floating inputs and of its parameters, in float64: per
    output element, the sum of the magnitudes that went into it (exactly so for sums, scans,
    convolutions and products of matrices; an order of magnitude otherwise). None when the op does
    not run that way."""
    xs = [x.abs() if isinstance(x, torch.Tensor) and x.is_floating_point() else x for x in inputs]
    outs, _ = shapes.reference64(xs, absolute_parameters=True)
    return outs


#: Draws of the inputs, each moved by up to one rounding of their dtype, that measure the op's
#: sensitivity (:func:`input_sensitivity`).
PERTURBATIONS = 2


def input_sensitivity(shapes: TaskShapes, inputs: list, seed: int, eps: float) -> list | None:
    """Per output element, the largest change of the float64 reference when every floating input
    element moves by a random fraction of ``eps`` (relative): the op's own conditioning on this
    draw (a softmax of large logits, attention, a near-singular sum), for a kernel that rounds
    its intermediates to a precision of ``eps`` (the judged output's dtype: an f16 input read
    into float32 arithmetic is not rounded again). Non-finite positions change by 0. None when
    the op does not run in float64."""
    base, _ = shapes.reference64(inputs)
    if base is None:
        return None
    gen = torch.Generator().manual_seed(seed)
    spread = [torch.zeros(b.shape, dtype=torch.float64) for b in base]
    for _ in range(PERTURBATIONS):
        xs = [x.double() * (1 + eps * (2 * torch.rand(x.shape, generator=gen, dtype=torch.float64) - 1))
              if isinstance(x, torch.Tensor) and x.is_floating_point() else x for x in inputs]
        outs, _ = shapes.reference64(xs)
        if outs is None or len(outs) != len(base):
            return None
        for k, (o, b) in enumerate(zip(outs, base)):
            if o.shape == b.shape and o.is_floating_point() and b.is_floating_point():
                d = (o.double() - b.double()).abs()
                spread[k] = torch.maximum(spread[k], torch.where(torch.isfinite(d), d, torch.zeros_like(d)))
    return spread


def _nonfinite(outputs: list, allowed: list[bool]) -> str:
    for i, (o, ok) in enumerate(zip(outputs, allowed)):
        if not ok and o.is_floating_point() and not bool(torch.isfinite(o).all()):
            return f"the reference's output {i} has NaN/Inf there (the op's own draw has none)"
    return ""


def _candidates(trial: int, structures: list) -> list[tuple[str, str]]:
    """(distribution, variant) to try for a derived trial, best first."""
    first = D.DERIVED[(trial - 1) % len(D.DERIVED)]
    order = [first] + [d for d in D.DERIVED if d != first]
    return [(d, v) for d in order for v in D.variants(d, structures)]


def make_draws(shapes: TaskShapes, *, trials: int = DEFAULT_TRIALS, seed: int = 0, inputs: str = "adversarial",
               progress: Callable[[str], None] | None = None) -> list[Draw]:
    """The trials' inputs and references under the input policy (see the module docstring)."""
    if trials < 1:
        raise UserError(f"the number of trials must be at least 1, not {trials}")
    if inputs not in INPUT_POLICIES:
        raise UserError(f"unknown input policy {inputs!r}", hint="choose " + " or ".join(INPUT_POLICIES))
    # The draws are a pure function of the shape set (its op file's text, seeded get_inputs() and
    # Model) and these arguments; the entry holds ``shapes`` so its id is not reused meanwhile.
    key = (id(shapes), trials, seed, inputs)
    hit = _DRAWS.get(key)
    if hit is not None and hit[0] is shapes:
        say = reporter(progress)
        for t in range(trials):
            say(f"drawing trial {t + 1}/{trials} inputs")
        return list(hit[1])
    draws = _make_draws(shapes, trials, seed, inputs, progress)
    _DRAWS.put(key, (shapes, draws), tensor_bytes(*[(d.inputs, d.native, d.truth) for d in draws]))
    return list(draws)


#: Draws kept for reuse (``check`` then ``lower`` on one op, a repair loop's candidate kernels).
_DRAWS = Memo(entries=16, max_bytes=1 << 30)


def _make_draws(shapes: TaskShapes, trials: int, seed: int, inputs: str,
                progress: Callable[[str], None] | None) -> list[Draw]:
    draws: list[Draw] = []

    def evaluate(t: int, seed_t: int, label: str, xs: list, notes: list) -> Draw:
        free = D.nonfinite_unjudged(label)
        native, truth, ref = _references(shapes, xs, free)
        same = next((k for k, d in enumerate(draws) if _same_inputs(d.inputs, xs)), None)
        earlier = [[(k, d.truth[i]) for k, d in enumerate(draws) if i < len(d.truth)] for i in range(len(truth))]
        degenerate = [f"has the same inputs as trial {same}" if same is not None else why_no_evidence(o, e, free)
                      for o, e in zip(truth, earlier)]
        return Draw(t, seed_t, label, xs, native, truth, ref, degenerate, notes, inputs, shapes)

    op0, structures, say = None, [], reporter(progress)
    for t in range(trials):
        seed_t = seed + t
        say(f"drawing trial {t + 1}/{trials} inputs")
        if t == 0 or inputs == "op":
            draw = evaluate(t, seed_t, "op", shapes.make_inputs(seed_t), [])
        else:
            draw = _derived_draw(t, seed_t, shapes, op0, structures, evaluate)
        if t == 0:
            op0 = draw
            structures = D.analyse(op0.inputs) if inputs != "op" else []
        draws.append(draw)
    # An output that another draw left unchanged does not depend on the inputs where it was
    # drawn: the first of the pair is no evidence either.
    for d in draws[1:]:
        for i, why in enumerate(d.degenerate):
            k = _EQUALS.match(why)
            if k and i < len(draws[int(k[1])].degenerate) and not draws[int(k[1])].degenerate[i]:
                draws[int(k[1])].degenerate[i] = f"equals trial {d.trial}'s although that is another draw"
    return draws


_EQUALS = re.compile(r"equals trial (\d+)'s although it is another draw")


def _same_inputs(a: list, b: list) -> bool:
    return len(a) == len(b) and all(
        (torch.equal(x, y) if isinstance(x, torch.Tensor) and isinstance(y, torch.Tensor) and x.shape == y.shape
         and x.dtype == y.dtype else (x == y if not isinstance(x, torch.Tensor) and not isinstance(y, torch.Tensor)
                                       else False)) for x, y in zip(a, b))


def _derived_draw(t: int, seed_t: int, shapes: TaskShapes, op0: Draw, structures: list, evaluate) -> Draw:
    """The first derived draw the reference can judge: in its domain, well-conditioned, informative."""
    finite_ok = [not bool(torch.isfinite(o).all()) if o.is_floating_point() else True for o in op0.truth]
    notes: list[str] = []
    best: tuple[int, Draw] | None = None
    for dist, variant in _candidates(t, structures):
        label = dist if variant == "as drawn" else f"{dist}, {variant}"
        xs = D.derived_inputs(op0.inputs, structures, dist, variant, seed_t)
        try:
            draw = evaluate(t, seed_t, label, xs, notes)
        except UserError as err:
            notes.append(f"{label}: the reference fails on it ({err.message.splitlines()[0][:120]})")
            continue
        allowed = [True] * len(finite_ok) if dist in D.NONFINITE_JUDGED else finite_ok
        # the op's own result too: a float64 value beyond the output dtype's range is no verdict
        why = _nonfinite(draw.truth, allowed) or _nonfinite(draw.native, allowed) or _ill_conditioned(draw, op0)
        if why:
            notes.append(f"{label}: {why}")
            continue
        n_degenerate = sum(bool(d) for d in draw.degenerate)
        if n_degenerate == 0:
            return draw
        notes.append(f"{label}: no evidence (" + "; ".join(
            f"output {i} {d}" for i, d in enumerate(draw.degenerate) if d) + ")")
        if best is None or n_degenerate < best[0]:
            best = (n_degenerate, draw)
    if best is not None:
        return best[1]
    # every derived draw left the reference's domain: the op's own distribution, another seed
    draw = evaluate(t, seed_t, "op (fallback)", shapes.make_inputs(seed_t + 7919 * t), notes)
    return draw


# --------------------------------------------------------------------------- verify

def verify(run: Runner, shapes: TaskShapes, *, trials: int = DEFAULT_TRIALS, seed: int = 0,
           inputs: str = "adversarial", draws: list[Draw] | None = None,
           progress: Callable[[str], None] | None = None, precision: str = "ours",
           written_as: list | None = None) -> VerifyReport:
    """Run ``run(inputs, outputs)`` on every trial's inputs and judge it against torch.

    ``inputs`` are NumPy arrays (GM convention) or Python scalars in forward-argument
    order; ``outputs`` are poisoned NumPy buffers that ``run`` fills in place. ``draws``
    (from :func:`make_draws` on the same shapes) saves drawing and evaluating the references
    again. Errors raised by ``run`` propagate unchanged (AscendcraftError is rendered by the
    caller). ``precision="task"`` accepts a trial by the benchmark's own check
    (:mod:`ascendcraft.acceptance`); ours is still computed and reported beside it. ``written_as``:
    per output, the dtype the run writes it in where that differs from the reference's (a CANN
    operator's OpDef), filled by ``run`` at its first call at the latest (:meth:`Draw.judge`).
    """
    rule = rule_for(shapes, precision)
    if draws is None:
        draws = make_draws(shapes, trials=trials, seed=seed, inputs=inputs, progress=progress)
    results: list[TrialResult] = []
    say = reporter(progress)
    for t, draw in enumerate(draws):
        say(f"trial {t + 1}/{len(draws)} (seed {draw.seed}, {draw.label} inputs)")
        out_specs = [TensorSpec.of(e, f"output {i} of Model.forward") for i, e in enumerate(draw.native)]
        outputs = [poison_buffer(s) for s in out_specs]
        run(draw.numpy_inputs, outputs)  # any exception propagates; AscendcraftError is rendered by the caller
        if len(outputs) != len(draw.native):
            results.append(TrialResult(draw.seed, False, [], problem=(
                f"the kernel left {len(outputs)} output buffers, the reference has {len(draw.native)} outputs"),
                distribution=draw.label, reference=draw.reference, notes=list(draw.notes)))
            continue
        per = []
        for i, (got, native, truth) in enumerate(zip(outputs, draw.native, draw.truth)):
            res = draw.judge(got, i, written_as=written_as[i] if written_as and i < len(written_as) else None)
            if not res.passed and truth is not native:
                # A kernel that reproduces the op's own rounding (f16 intermediates, torch's
                # summation order) is right by the op's contract too.
                own = compare(got, native, i, nonfinite_unjudged=draw.nonfinite_unjudged)
                if own.passed:
                    res = own
                    res.against = "the op's own result"
            res.ref_error = draw.ref_error(i)
            res.degenerate = draw.degenerate[i]
            per.append(res)
        trial = TrialResult(draw.seed, all(o.passed for o in per), per, distribution=draw.label,
                            reference=draw.reference, notes=list(draw.notes))
        if rule is not None:
            _judge_by(rule, trial, draw, outputs)
        results.append(trial)
    unverifiable = why_unverifiable(draws)
    passed = all(r.passed for r in results) and not unverifiable
    return VerifyReport(passed, results, shapes.to_json(), shapes.describe(), unverifiable, draws[0].policy, precision)


def _judge_by(rule: TaskRule, trial: TrialResult, draw: Draw, outputs: list) -> None:
    """Accept or refuse ``trial`` by ``rule`` (ours stays in ``trial.ours``); an element the kernel
    never wrote fails under every rule."""
    trial.ours, trial.judged_by = trial.passed, rule.name
    unwritten = sum(o.n_unwritten for o in trial.outputs)
    if unwritten:
        why = f"{unwritten} output elements were never written"
    else:
        why = rule.judge(list(draw.native), as_tensors(outputs, list(draw.native)))
        if why:   # the errors as ours measured them: a model that cannot read the task's rule can act on them
            why += " (" + "; ".join(f"output {o.index} max abs error {_fmt(o.max_abs_err)}, max rel error "
                                    f"{_fmt(o.max_rel_err)}" for o in trial.outputs) + ")"
    trial.passed = not why
    trial.problem = f"{rule.name}: {why}" if why else ""
