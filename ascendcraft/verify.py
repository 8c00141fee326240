"""Verification: run a kernel on fresh random inputs and compare it with PyTorch.

One function, :func:`verify`, used by everything that needs to know whether a kernel
is right. Per trial ``t`` it draws fresh inputs with seed ``seed + t``, runs the torch
reference, hands the kernel NumPy copies of the inputs and *poisoned* output buffers,
and compares what the kernel wrote with the reference.

GM convention (how tensors are held in NumPy): f16 -> float16, f32 -> float32,
bf16 -> float32 holding bf16-exact values, integers -> the NumPy integer of the same
width, bool -> ``np.bool_`` for inputs. Output buffers are poisoned before each run:

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

import math
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
import torch

from .dtypes import NUMPY as _NP
from .errors import UserError
from .task import TaskShapes, TensorSpec, dtype_name

Runner = Callable[[list, list], None]

#: (atol, rtol) per output dtype; integer and bool outputs must match exactly.
TOLERANCES: dict[str, tuple[float, float]] = {"f32": (1e-4, 1e-4), "f16": (1e-2, 1e-2), "bf16": (1e-2, 1e-2)}
#: Largest accepted ||got - ref|| / ||ref|| per float dtype (see the module docstring).
REL_L2_BOUND: dict[str, float] = {"f32": 2e-4, "f16": 2e-2, "bf16": 2e-2}
#: Bit patterns of the poison NaNs (quiet NaNs with a payload arithmetic never makes).
POISON_BITS = {"f32": 0x7FC0DEAD, "f16": 0x7E5B}
BOOL_POISON = 0xAB
WORST = 5  # elements listed per failing output



# --------------------------------------------------------------------------- conversion

def to_numpy(tensor: torch.Tensor) -> tuple[np.ndarray, str]:
    """A NumPy copy of ``tensor`` in the GM convention, and its DSL dtype name."""
    dtype = dtype_name(tensor.dtype)
    t = tensor.detach().cpu()
    if dtype == "bf16":
        t = t.float()  # exact: every bf16 is a float32
    return np.array(t.numpy(), dtype=_NP[dtype], order="C", copy=True), dtype


def poison_buffer(spec: TensorSpec) -> np.ndarray:
    """A fresh output buffer for ``spec`` filled with the poison value."""
    d = spec.dtype
    if d == "bool":
        return np.full(spec.shape, BOOL_POISON, dtype=np.uint8)
    if d in ("f32", "bf16"):
        return np.full(spec.shape, POISON_BITS["f32"], dtype=np.uint32).view(np.float32)
    if d == "f16":
        return np.full(spec.shape, POISON_BITS["f16"], dtype=np.uint16).view(np.float16)
    info = np.iinfo(_NP[d])
    return np.full(spec.shape, info.min if info.min < 0 else info.max, dtype=_NP[d])


def buffer_dtype(dtype: str) -> np.dtype:
    """The NumPy dtype of an output buffer for a DSL dtype (bool outputs are uint8)."""
    return np.dtype(np.uint8) if dtype == "bool" else np.dtype(_NP[dtype])


# --------------------------------------------------------------------------- report

@dataclass
class OutputResult:
    index: int
    name: str
    shape: tuple[int, ...]
    dtype: str
    passed: bool
    max_abs_err: float = 0.0
    max_rel_err: float = 0.0             # max |got - ref| / |ref| over elements with ref != 0
    rel_l2: float | None = None          # None: ||ref|| == 0 (allclose decides alone)
    n_unwritten: int = 0
    n_mismatched: int = 0                # written elements outside tolerance or NaN/Inf misplaced
    worst: list[tuple[tuple[int, ...], object, object]] = field(default_factory=list)  # (index, expected, got)
    problem: str = ""                    # why it failed, one short sentence

    def to_json(self) -> dict:
        return {"index": self.index, "name": self.name, "shape": list(self.shape), "dtype": self.dtype,
                "passed": self.passed, "max_abs_err": _j(self.max_abs_err), "max_rel_err": _j(self.max_rel_err),
                "rel_l2": _j(self.rel_l2), "n_unwritten": self.n_unwritten, "n_mismatched": self.n_mismatched,
                "worst": [{"index": list(i), "expected": _j(e), "got": _j(g)} for i, e, g in self.worst],
                "problem": self.problem}


@dataclass
class TrialResult:
    seed: int
    passed: bool
    outputs: list[OutputResult]
    problem: str = ""   # a trial-level failure (wrong number of outputs)

    def to_json(self) -> dict:
        return {"seed": self.seed, "passed": self.passed, "problem": self.problem,
                "outputs": [o.to_json() for o in self.outputs]}


@dataclass
class VerifyReport:
    passed: bool
    trials: list[TrialResult]
    shapes: dict            # TaskShapes.to_json(): reduced, overrides, original, inputs, outputs, bytes
    shapes_text: str        # TaskShapes.describe()

    def summary(self) -> str:
        lines = []
        for i, t in enumerate(self.trials):
            errs = [o for o in t.outputs]
            abs_ = max((o.max_abs_err for o in errs), default=0.0)
            rel = max((o.max_rel_err for o in errs), default=0.0)
            l2s = [o.rel_l2 for o in errs if o.rel_l2 is not None]
            l2 = _fmt(max(l2s)) if l2s else "-"
            line = (f"trial {i} (seed {t.seed}): {'PASS' if t.passed else 'FAIL'}  "
                    f"max abs {_fmt(abs_)}  max rel {_fmt(rel)}  rel-L2 {l2}")
            if not t.passed:
                line += f"  -- {_trial_problem(t)}"
            lines.append(line)
        lines.append(("PASS" if self.passed else "FAIL") + f" ({sum(t.passed for t in self.trials)}/"
                     f"{len(self.trials)} trials) on {self.shapes_text}")
        return "\n".join(lines)

    def first_failure(self) -> str | None:
        """The first failure, precisely and briefly (fed back to the LLM in repair loops)."""
        for t in self.trials:
            if t.passed:
                continue
            head = f"trial seed {t.seed}"
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
        return {"passed": self.passed, "trials": [t.to_json() for t in self.trials], "shapes": self.shapes,
                "tolerances": {d: {"atol": a, "rtol": r, "rel_l2": REL_L2_BOUND[d]} for d, (a, r) in TOLERANCES.items()}}


def _trial_problem(t: TrialResult) -> str:
    if t.problem:
        return t.problem
    bad = [o for o in t.outputs if not o.passed]
    return "; ".join(f"output {o.index}: {o.problem}" for o in bad[:2]) + (" ..." if len(bad) > 2 else "")


def _fmt(x: float | None) -> str:
    if x is None:
        return "-"
    if isinstance(x, float) and not math.isfinite(x):
        return str(x)
    return f"{x:.3g}"


def _val(v) -> str:
    if isinstance(v, str):
        return v
    if isinstance(v, (bool, np.bool_)):
        return str(bool(v))
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    return f"{float(v):.7g}"


def _j(v):
    """JSON-safe: non-finite floats become the strings 'nan', 'inf', '-inf'."""
    if isinstance(v, float) and not math.isfinite(v):
        return str(v)
    return v


# --------------------------------------------------------------------------- comparing

def _index(flat: int, shape: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(int(i) for i in np.unravel_index(flat, shape)) if shape else ()


def _scalar(a: np.ndarray, i: int, dtype: str):
    v = a.reshape(-1)[i]
    if dtype in TOLERANCES:
        return float(v)
    return int(v)


def _worst(score: np.ndarray, candidates: np.ndarray, k: int = WORST) -> np.ndarray:
    """Flat indices of the ``k`` highest scores among ``candidates`` (a bool mask), highest
    first; equal scores in index order (so unwritten elements are listed from the first)."""
    idx = np.flatnonzero(candidates.reshape(-1))
    s = score.reshape(-1)[idx]
    if idx.size > k:
        kth = np.partition(s, idx.size - k)[idx.size - k]
        above = s > kth
        ties = np.flatnonzero(s == kth)[: k - int(above.sum())]
        keep = np.concatenate([np.flatnonzero(above), ties])
        idx, s = idx[keep], s[keep]
    order = np.lexsort((idx, -s))
    return idx[order]


def compare(got, expected: torch.Tensor, index: int, name: str = "") -> OutputResult:
    """Compare one kernel output (a NumPy buffer) with one reference tensor."""
    exp, dtype = to_numpy(expected)
    shape = tuple(exp.shape)
    name = name or f"output {index}"
    res = OutputResult(index, name, shape, dtype, passed=False)
    if not isinstance(got, np.ndarray):
        res.problem = f"is a {type(got).__name__}, not a NumPy array"
        return res
    if tuple(got.shape) != shape:
        res.problem = f"has shape {list(got.shape)}, the reference has {list(shape)}"
        return res
    want = buffer_dtype(dtype)
    if got.dtype != want and not (dtype == "bool" and got.dtype == np.bool_):
        res.problem = f"has NumPy dtype {got.dtype}, expected {want} for {dtype}"
        return res
    if dtype == "bool":
        return _compare_bool(got, exp, res)
    if dtype not in TOLERANCES:
        return _compare_int(got, exp, res)
    return _compare_float(got, exp, res)


def _compare_bool(got: np.ndarray, exp: np.ndarray, res: OutputResult) -> OutputResult:
    g = got.view(np.uint8) if got.dtype == np.bool_ else got
    e = exp.astype(np.uint8)
    unwritten = g == BOOL_POISON
    wrong = (g != e) & ~unwritten
    res.n_unwritten, res.n_mismatched = int(unwritten.sum()), int(wrong.sum())
    res.max_abs_err = float(wrong.any())
    res.max_rel_err = res.max_abs_err
    bad = unwritten | wrong
    idx = _worst(unwritten.astype(np.int8), bad)
    res.worst = [(_index(i, res.shape), bool(e.reshape(-1)[i]),
                  "unwritten" if unwritten.reshape(-1)[i] else int(g.reshape(-1)[i]) if g.reshape(-1)[i] > 1
                  else bool(g.reshape(-1)[i])) for i in idx]
    invalid = int(((g > 1) & ~unwritten).sum())
    return _finish(res, extra=f"{invalid} elements are neither 0 nor 1" if invalid else "")


def _compare_int(got: np.ndarray, exp: np.ndarray, res: OutputResult) -> OutputResult:
    info = np.iinfo(got.dtype)
    poison = info.min if info.min < 0 else info.max
    unwritten = (got == poison) & (exp != poison)
    wrong = (got != exp) & ~unwritten
    res.n_unwritten, res.n_mismatched = int(unwritten.sum()), int(wrong.sum())
    diff = np.abs(got.astype(np.float64) - exp.astype(np.float64))
    if wrong.any():
        d = np.where(wrong, diff, 0)
        res.max_abs_err = float(d.max())
        res.max_rel_err = float(np.max(np.where(wrong, d / np.maximum(np.abs(exp.astype(np.float64)), 1), 0)))
    score = np.where(unwritten, np.inf, diff)
    idx = _worst(score, unwritten | wrong)
    res.worst = [(_index(i, res.shape), int(exp.reshape(-1)[i]),
                  "unwritten" if unwritten.reshape(-1)[i] else int(got.reshape(-1)[i])) for i in idx]
    return _finish(res)


def _compare_float(got: np.ndarray, exp: np.ndarray, res: OutputResult) -> OutputResult:
    dtype = res.dtype
    atol, rtol = TOLERANCES[dtype]
    bits = got.view(np.uint16 if got.dtype == np.float16 else np.uint32)
    unwritten = bits == POISON_BITS["f16" if got.dtype == np.float16 else "f32"]
    g = got.astype(np.float64)
    e = exp.astype(np.float64)
    g_nan, e_nan = np.isnan(g), np.isnan(e)
    nonfinite_bad = ((g_nan != e_nan) | ((g == np.inf) != (e == np.inf)) | ((g == -np.inf) != (e == -np.inf))) \
        & ~unwritten
    both = np.isfinite(g) & np.isfinite(e)
    diff = np.where(both, np.abs(g - e), 0.0)
    absref = np.abs(e)
    outside = both & (diff > atol + rtol * absref)
    wrong = outside | nonfinite_bad
    res.n_unwritten, res.n_mismatched = int(unwritten.sum()), int(wrong.sum())
    if both.any():
        res.max_abs_err = float(diff.max())
        nonzero = both & (absref > 0)   # where the reference is 0 only the absolute error means anything
        if nonzero.any():
            res.max_rel_err = float((diff[nonzero] / absref[nonzero]).max())
        ref_norm = float(np.linalg.norm(np.where(both, e, 0.0)))
        if ref_norm > 0:
            res.rel_l2 = float(np.linalg.norm(diff)) / ref_norm
    score = np.where(unwritten | nonfinite_bad, np.inf, diff)
    failing = unwritten | wrong
    l2_bad = res.rel_l2 is not None and res.rel_l2 > REL_L2_BOUND[dtype]
    idx = _worst(score, failing if failing.any() else (both if l2_bad else failing))
    res.worst = [(_index(i, res.shape), float(e.reshape(-1)[i]),
                  "unwritten" if unwritten.reshape(-1)[i] else float(g.reshape(-1)[i])) for i in idx]
    extra = ""
    if l2_bad:
        extra = f"relative L2 error {res.rel_l2:.3g} > {REL_L2_BOUND[dtype]:g}"
        if not failing.any():
            extra += f" (every element is within atol={atol:g} rtol={rtol:g}, but the result is not accurate)"
    return _finish(res, extra=extra, tol=f"atol={atol:g} rtol={rtol:g}", nonfinite=int(nonfinite_bad.sum()))


def _finish(res: OutputResult, extra: str = "", tol: str = "exact", nonfinite: int = 0) -> OutputResult:
    n = max(math.prod(res.shape), 1)
    parts = []
    if res.n_unwritten:
        parts.append(f"{res.n_unwritten} of {n} elements unwritten (still hold the poison value)")
    if res.n_mismatched:
        what = f"{res.n_mismatched} of {n} elements wrong ({tol}"
        what += f"; {nonfinite} with NaN/Inf where the reference differs)" if nonfinite else ")"
        parts.append(what)
    if extra:
        parts.append(extra)
    res.passed = not parts
    res.problem = "; ".join(parts)
    return res


# --------------------------------------------------------------------------- verify

def verify(run: Runner, shapes: TaskShapes, *, trials: int = 3, seed: int = 0,
           progress: Callable[[str], None] | None = None) -> VerifyReport:
    """Run ``run(inputs, outputs)`` for ``trials`` fresh input sets and compare with torch.

    ``inputs`` are NumPy arrays (GM convention) or Python scalars in forward-argument
    order; ``outputs`` are poisoned NumPy buffers that ``run`` fills in place. Errors
    raised by ``run`` propagate unchanged (AscendcraftError is rendered by the caller).
    """
    if trials < 1:
        raise UserError(f"the number of trials must be at least 1, not {trials}")
    results: list[TrialResult] = []
    for t in range(trials):
        seed_t = seed + t
        if progress is not None:
            progress(f"trial {t + 1}/{trials} (seed {seed_t})")
        inputs = shapes.make_inputs(seed_t)
        np_inputs = [to_numpy(x)[0] if isinstance(x, torch.Tensor) else x for x in inputs]
        # The reference gets its own copies: a forward that modifies its inputs in place
        # must not change what the kernel sees (np_inputs are copies already).
        expected = shapes.reference([x.clone() if isinstance(x, torch.Tensor) else x for x in inputs])
        out_specs = [TensorSpec.of(e, f"output {i} of Model.forward") for i, e in enumerate(expected)]
        buffers = [poison_buffer(s) for s in out_specs]
        outputs = list(buffers)
        run(np_inputs, outputs)  # any exception propagates; AscendcraftError is rendered by the caller
        if len(outputs) != len(expected):
            results.append(TrialResult(seed_t, False, [], problem=(
                f"the kernel left {len(outputs)} output buffers, the reference has {len(expected)} outputs")))
            continue
        per = [compare(g, e, i) for i, (g, e) in enumerate(zip(outputs, expected))]
        results.append(TrialResult(seed_t, all(o.passed for o in per), per))
    return VerifyReport(all(r.passed for r in results), results, shapes.to_json(), shapes.describe())
