"""Comparing one kernel output with one reference: the tolerances, the poison that marks
unwritten elements, the GM convention of NumPy buffers, and the float slack.

The policy around it (which inputs, which reference, what counts as evidence) is
:mod:`ascendcraft.verify`; its docstring explains the rules these functions apply.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import torch

from .dtypes import NUMPY as _NP
from .tensorspec import TensorSpec, dtype_name

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
    ref_error: float | None = None       # rel-L2 of the op's own float result against the float64 one
    against: str = ""                    # "" = the judged reference; else what it matched instead
    degenerate: str = ""                 # why this trial is no evidence for this output ("" = it is)

    def to_json(self) -> dict:
        return {"index": self.index, "name": self.name, "shape": list(self.shape), "dtype": self.dtype,
                "passed": self.passed, "max_abs_err": _j(self.max_abs_err), "max_rel_err": _j(self.max_rel_err),
                "rel_l2": _j(self.rel_l2), "n_unwritten": self.n_unwritten, "n_mismatched": self.n_mismatched,
                "worst": [{"index": list(i), "expected": _j(e), "got": _j(g)} for i, e, g in self.worst],
                "problem": self.problem, "reference_f32_rel_l2": _j(self.ref_error),
                "evidence": not self.degenerate, "degenerate": self.degenerate,
                "matched": self.against or "judged reference"}


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


def compare(got, expected: torch.Tensor, index: int, name: str = "", dtype: str | None = None,
            slack: tuple = (None, 0.0), nonfinite_unjudged: bool = False) -> OutputResult:
    """Compare one kernel output (a NumPy buffer) with one reference tensor.

    ``dtype``: the output's DSL dtype when ``expected`` holds it in a wider type (the float64
    reference judges a float32 output); by default, ``expected``'s own dtype. ``slack``:
    (per-element absolute error or None, relative-L2 error) that float arithmetic of this dtype
    cannot avoid on these inputs (:func:`float_slack`); the tolerances rise to them where larger.
    ``nonfinite_unjudged``: elements where the reference is NaN or infinite may hold anything (an
    IEEE-special draw: whether a NaN made inside survives a Max or Min is the hardware's choice, and
    the sign or NaN-ness of an infinite result follows the order of a sum of infinities and whether
    a tiny weight underflowed to 0 before it met an inf, not the kernel's correctness).
    """
    if dtype is None:
        exp, dtype = to_numpy(expected)
    else:
        exp = expected.detach().cpu().double().numpy() if dtype in TOLERANCES else to_numpy(expected)[0]
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
    return _compare_float(got, exp, res, slack, nonfinite_unjudged)


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


def _tolerances(res: OutputResult, slack: tuple):
    """(atol, rtol, the per-element atol with the float slack, the relative-L2 bound)."""
    atol, rtol = TOLERANCES[res.dtype]
    return atol, rtol, (atol if slack[0] is None else np.maximum(atol, slack[0])), \
        max(REL_L2_BOUND[res.dtype], slack[1])


def _tolerance_text(res: OutputResult, atol, rtol, l2_bound, slack, any_wrong: bool) -> tuple[str, str]:
    """The verdict's (extra, tol) words, shared by the general and the finite path."""
    extra = ""
    if res.rel_l2 is not None and res.rel_l2 > l2_bound:
        extra = f"relative L2 error {res.rel_l2:.3g} > {l2_bound:.3g}"
        if not any_wrong:
            extra += f" (every element is within atol={atol:g} rtol={rtol:g}, but the result is not accurate)"
    tol = f"atol={atol:g} rtol={rtol:g}" + ("" if slack[0] is None else
                                             f" + {SLACK_ULPS:g} eps x the sum of magnitudes per element")
    return extra, tol


def _compare_float(got: np.ndarray, exp: np.ndarray, res: OutputResult,
                   slack: tuple = (None, 0.0), nonfinite_unjudged: bool = False) -> OutputResult:
    atol, rtol, atol_each, l2_bound = _tolerances(res, slack)
    if got.size and got.flags.c_contiguous and exp.flags.c_contiguous:
        g = got.astype(np.float64)
        e = exp if exp.dtype == np.float64 else exp.astype(np.float64)
        # One pass decides the usual case: a finite sum means no NaN (so no poison) and no Inf on
        # either side; an overflowing sum of finite values just takes the general path.
        with np.errstate(over="ignore", invalid="ignore"):     # inf - inf: NaN, quietly
            finite = np.isfinite(np.add.reduce(g, axis=None)) and np.isfinite(np.add.reduce(e, axis=None))
        if finite:
            return _compare_finite(g, e, res, atol, rtol, atol_each, l2_bound, slack)
    return _compare_general(got, exp, res, slack, nonfinite_unjudged)


def _compare_general(got: np.ndarray, exp: np.ndarray, res: OutputResult,
                     slack: tuple = (None, 0.0), nonfinite_unjudged: bool = False) -> OutputResult:
    atol, rtol, atol_each, l2_bound = _tolerances(res, slack)
    bits = got.view(np.uint16 if got.dtype == np.float16 else np.uint32)
    unwritten = bits == POISON_BITS["f16" if got.dtype == np.float16 else "f32"]
    g = got.astype(np.float64)
    e = exp.astype(np.float64)
    g_nan, e_nan = np.isnan(g), np.isnan(e)
    nonfinite_bad = ((g_nan != e_nan) | ((g == np.inf) != (e == np.inf)) | ((g == -np.inf) != (e == -np.inf))) \
        & ~unwritten
    if nonfinite_unjudged:
        nonfinite_bad &= np.isfinite(e)
    both = np.isfinite(g) & np.isfinite(e)
    diff = np.abs(np.where(both, g, 0.0) - np.where(both, e, 0.0))
    absref = np.abs(e)
    outside = both & (diff > atol_each + rtol * absref)
    wrong = outside | nonfinite_bad
    res.n_unwritten, res.n_mismatched = int(unwritten.sum()), int(wrong.sum())
    if both.any():
        res.max_abs_err = float(diff.max())
        nonzero = both & (absref > 0)   # where the reference is 0 only the absolute error means anything
        if nonzero.any():
            res.max_rel_err = float((diff[nonzero] / absref[nonzero]).max())
        ref_norm = l2_norm(np.where(both, e, 0.0))
        if ref_norm > 0:
            res.rel_l2 = l2_norm(diff) / ref_norm
    score = np.where(unwritten | nonfinite_bad, np.inf, diff)
    failing = unwritten | wrong
    l2_bad = res.rel_l2 is not None and res.rel_l2 > l2_bound
    idx = _worst(score, failing if failing.any() else (both if l2_bad else failing))
    res.worst = [(_index(i, res.shape), float(e.reshape(-1)[i]),
                  "unwritten" if unwritten.reshape(-1)[i] else float(g.reshape(-1)[i])) for i in idx]
    extra, tol = _tolerance_text(res, atol, rtol, l2_bound, slack, bool(failing.any()))
    return _finish(res, extra=extra, tol=tol, nonfinite=int(nonfinite_bad.sum()))


def _compare_finite(g: np.ndarray, e: np.ndarray, res: OutputResult, atol, rtol, atol_each, l2_bound,
                    slack) -> OutputResult:
    """The general path's result when every element of both (C-contiguous, float64) is finite:
    nothing is unwritten or misplaced non-finite, so its masks are constant; the same values are
    computed in the same order, without the arrays that would hold only those constants."""
    diff = np.abs(g - e)
    absref = np.abs(e)
    outside = diff > atol_each + rtol * absref
    n_wrong = int(np.count_nonzero(outside))
    res.n_unwritten, res.n_mismatched = 0, n_wrong
    res.max_abs_err = float(diff.max())
    nonzero = absref > 0
    n_nonzero = int(np.count_nonzero(nonzero))
    if n_nonzero == nonzero.size:
        res.max_rel_err = float((diff / absref).max())
    elif n_nonzero:
        res.max_rel_err = float((diff[nonzero] / absref[nonzero]).max())
    ref_norm = l2_norm(e)
    if ref_norm > 0:
        res.rel_l2 = l2_norm(diff) / ref_norm
    l2_bad = res.rel_l2 is not None and res.rel_l2 > l2_bound
    if n_wrong:
        idx = _worst(diff, outside)
    elif l2_bad:
        idx = _worst(diff, np.ones(diff.shape, bool))
    else:
        idx = []
    res.worst = [(_index(i, res.shape), float(e.reshape(-1)[i]), float(g.reshape(-1)[i])) for i in idx]
    extra, tol = _tolerance_text(res, atol, rtol, l2_bound, slack, bool(n_wrong))
    return _finish(res, extra=extra, tol=tol, nonfinite=0)


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


def l2_norm(a: np.ndarray) -> float:
    """The L2 norm of finite float64 values, scaled by the largest magnitude first: the plain sum of
    squares overflows to inf above about 1e154 (huge but finite references, e.g. a cumprod of
    adversarial inputs), and a relative L2 of inf / inf is NaN, which no bound rejects."""
    peak = float(np.max(np.abs(a))) if a.size else 0.0
    if peak == 0.0 or not math.isfinite(peak):
        return peak
    return peak * float(np.linalg.norm(a / peak))


def _as_float64(t: torch.Tensor) -> np.ndarray:
    return t.detach().cpu().double().numpy() if t.dtype != torch.bool else t.cpu().numpy().astype(np.float64)


#: Rounding a kernel of the op's float dtype may make, in units of the dtype's machine epsilon
#: times the output's condition magnitude (see :func:`float_slack`). A float32 sum of n terms
#: accumulated in blocks is off by up to about log2(n)/2 eps x sum|terms|; the cube's K-loop over
#: 8192 wide values (a matmul on the `edges` draw) measured about 6 eps there. 32 covers that with
#: room, and stays far below the error of a kernel that drops or misplaces a term of typical size.
SLACK_ULPS = 32.0
#: A kernel rounds its intermediates as well as its inputs: this many times the reference's change
#: under one rounding of the inputs (:func:`ascendcraft.verify.input_sensitivity`) is error it
#: cannot be blamed for. Measured on the bundled attention kernels at MultiKernelBench's shapes
#: (docs/verification.md): up to 36 times it where torch's own float32 result is up to 14 times.
#: A wrong kernel, off by the order of its values, is thousands of times outside.
SENSITIVITY_FACTOR = 64.0
_EPS = {"f32": 2.0 ** -23, "f16": 2.0 ** -10, "bf16": 2.0 ** -7}


def float_slack(magnitude: torch.Tensor | None, truth: torch.Tensor, dtype: str,
                spread: torch.Tensor | None = None) -> tuple:
    """(per-element absolute, relative-L2) error a kernel of ``dtype`` cannot be blamed for.

    A float sum of n terms is off by up to about eps * sum|terms| whatever its order; where the
    terms cancel (a signed cumsum near a zero crossing, a matmul of wide values) that is more
    than ``atol``, even for a correct float32 kernel (torch's CPU cumsum accumulates in double,
    so its own result is no guide). ``spread`` (:func:`ascendcraft.verify.input_sensitivity`) is the
    op's own conditioning: where one rounding of the inputs moves the result (the exponent of a
    softmax of large logits), the kernel's roundings move it too. The tolerances never go below
    the per-dtype ones, and a wrong kernel, off by the order of the values, stays outside.
    """
    if dtype not in _EPS:
        return None, 0.0
    floor = None
    if magnitude is not None and magnitude.shape == truth.shape:
        m = np.abs(_as_float64(magnitude))
        floor = SLACK_ULPS * _EPS[dtype] * np.where(np.isfinite(m), m, 0.0)
    if spread is not None and spread.shape == truth.shape:
        s = SENSITIVITY_FACTOR * _as_float64(spread)
        floor = s if floor is None else np.maximum(floor, s)
    if floor is None:
        return None, 0.0
    t = _as_float64(truth)
    norm = l2_norm(np.where(np.isfinite(t), t, 0.0))
    return floor, (l2_norm(floor) / norm if norm > 0 else 0.0)
