"""Whether a trial is evidence about an output (docs/verification.md, "Degenerate references are no
evidence"): an output whose reference is constant, or unchanged from an earlier draw although the
inputs changed, proves nothing about a kernel in that trial; PASS needs evidence for every output.
"""
from __future__ import annotations

import numpy as np
import torch

from .compare import _as_float64, _val


def why_no_evidence(out: torch.Tensor, earlier: list[tuple[int, torch.Tensor]], nonfinite_unjudged: bool = False) -> str:
    """Why ``out`` is no evidence (constant, or the same as an earlier trial's), or "". With
    ``nonfinite_unjudged`` (a specials draw) its NaN and infinite elements are not judged, so they
    do not count."""
    a = _as_float64(out)
    if a.size == 0:
        return ""      # an empty output (a dim of 0) is all there: no draw can show more
    if nonfinite_unjudged and not np.isfinite(a).all():
        judged = a[np.isfinite(a)]
        if judged.size == 0:
            return "is NaN/Inf everywhere"
        if judged.min() == judged.max():
            return f"is {_val(float(judged[0]))} wherever it is finite"
    if a.size >= 2:
        finite = np.isfinite(a)
        if not finite.any():
            return "is NaN/Inf everywhere"
        b = np.where(np.isnan(a), np.inf, a)   # as np.unique counts: NaNs with +Inf, -0.0 with 0.0
        if b.min() == b.max() and not _another_constant(float(b.reshape(-1)[0]), earlier):
            return f"is {_val(float(a.reshape(-1)[0]))} everywhere"
    elif a.size == 1 and not np.isfinite(a).all():
        return "is NaN/Inf"
    for trial, e in earlier:
        if e.shape == out.shape and np.array_equal(a, _as_float64(e), equal_nan=True):
            return f"equals trial {trial}'s although it is another draw"
    return ""


def _another_constant(value: float, earlier: list[tuple[int, torch.Tensor]]) -> bool:
    """Whether an earlier draw's output is constant at another value: an output that is constant by
    the op's nature (a fill) is evidence once draws give it different constants, which no kernel
    writing one fixed value matches."""
    for _, e in earlier:
        b = _as_float64(e)
        if b.size and np.isfinite(b).all() and b.min() == b.max() and float(b.reshape(-1)[0]) != value:
            return True
    return False


def why_unverifiable(draws: list) -> str:
    """Why some output has no trial that is evidence, or ""."""
    n = min(len(d.degenerate) for d in draws)
    for i in range(n):
        if all(d.degenerate[i] for d in draws):
            why = "; ".join(f"trial {d.trial} ({d.label}): {d.degenerate[i]}" for d in draws)
            return f"output {i} is no evidence in any trial ({why})"
    return ""
