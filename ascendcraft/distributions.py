"""The inputs of verification trials: the op's own draw, and draws that exercise every branch.

Most MultiKernelBench tasks draw ``torch.rand`` (every value in [0, 1)), so a kernel that is
wrong for negative, large or zero inputs would pass on the op's own inputs alone. Trial 0
keeps the op's ``get_inputs()`` (the task's contract); later trials draw from the
distributions in :data:`DERIVED`, cycling:

* ``signed``: standard normal (half the values negative; the branch of every activation);
* ``edges``: a mixture per element: exact zeros, ties from a small value set, magnitudes
  from 1e-3 to 1e3 with either sign (cancellation in sums), and standard normal values;
* ``near_one``: ±(1 + 0.03·N(0, 1)): long products and powers stay finite and informative;
* ``offset``: 6 + N(0, 1): a mean well above the spread, which stresses cancellation in
  variance-like reductions;
* ``scaled``: rows (the slices along the last axis; segments of a 1-D tensor) of different
  scales, 1e-3 to 1e6, about half of them offset by several times their scale, and one row in
  eight far larger (up to 1e30, within the dtype's range): what real logits and activations
  look like, and what a kernel that mixes up rows, keeps a running value in a narrow type, or
  compares with a fixed threshold gets wrong;
* ``specials``: the op's own draw with IEEE specials in a quarter of the rows of its plain float
  inputs (±inf and subnormals, or ±0 and subnormals, one element in eight there; no NaN, see
  :data:`SPECIAL_VARIANTS`; the infinities in the first such input only, the others getting the
  finite specials): a kernel must give what PyTorch gives on them (a relu written as
  ``(x + abs(x)) * 0.5`` gives NaN at -inf; ``a * b`` at an infinite ``a``).

Inputs that carry structure keep it (:func:`analyse` reads it off the op's own draw):
integer tensors stay within the range the op drew (indices stay valid), bool tensors stay
masks (with about the op's density of True), a floating tensor drawn from a small value set
(±1 targets, 0/1 labels) is drawn from that set, probability rows (non-negative, summing to 1
along an axis) stay probability rows, Python scalars stay as the op gave them.

Where the derived draw leaves the reference's domain (it raises, or its result turns
non-finite where the op's own draw gave a finite one) the caller tries the variants of the
same draw in order (:func:`variants`): for ``scaled`` first a moderate one (scales up to 1e5,
no far larger rows), then non-negative (tensors the op drew non-negative), then squashed into
the range of values the op drew. ``specials`` is not refused where its result is non-finite
(that is its point; the elements whose reference is NaN or inf are not judged); its variants leave out +inf, then the infinities (zeros and subnormals
only), for ops whose result would be NaN or constant everywhere. Everything is
deterministic in the seed.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:   # numpy and torch are imported where they are used: the CLI reads this module's
    import numpy as np     # constants, and `ascendcraft --help` need not load them (40 ms for numpy)
    import torch

#: Input policies: ``adversarial`` (trial 0 the op's own draw, then derived draws) or ``op`` (every
#: trial the op's own get_inputs(), as MultiKernelBench does).
INPUT_POLICIES = ("adversarial", "op")
#: The commands' ``--inputs`` help.
INPUTS_HELP = ("verification inputs: adversarial (default: the op's own get_inputs() for trial 0, then signed, "
               "edge-case, near-one, offset, row-scaled and IEEE-special draws that keep the op's structure) or op "
               "(every trial from get_inputs(), as MultiKernelBench does); docs/verification.md")
#: Distributions of trials 1, 2, ... (cycling); trial 0 is the op's own ``get_inputs()``.
DERIVED = ("signed", "edges", "near_one", "offset", "scaled", "specials")
#: Domain-safe variants of a derived draw, tried in order when the reference leaves its domain.
VARIANTS = ("as drawn", "non-negative", "op's range")
#: ``scaled``'s milder form, tried after it as drawn: scales up to 1e5, no far larger rows.
MODERATE = "moderate"
#: The variants of ``specials`` (its own ladder), each a set of special values to place.
#: NaN is not placed: on the 910B the vector Max/Min return the number beside a NaN (IEEE maxNum;
#: CANN's NaN-propagating ``__hmax_nan`` exists only on later chips), where torch propagates it,
#: and the simulator cannot say which a given instruction does.
#: Zeros are not placed beside infinities: 0 * inf is a NaN inside the op, and what follows it is
#: the implementation's choice (torch's CPU attention skips a NaN score in its row max and gives 0)
#: (exact zeros are the ``edges`` draw's).
SPECIAL_VARIANTS = {"as drawn": ("inf", "-inf", "sub", "-sub"),
                    "no +inf": ("-inf", "sub", "-sub"),
                    "zeros and subnormals": ("0", "-0", "sub", "-sub")}
#: Distributions whose draws may make the reference NaN/inf where the op's own draw does not; in
#: their trials those elements are not judged (:func:`nonfinite_unjudged`).
NONFINITE_JUDGED = ("specials",)


def nonfinite_unjudged(label: str) -> bool:
    """Whether a trial drawn as ``label`` ("specials, no +inf") leaves non-finite references unjudged."""
    return label.split(",")[0] in NONFINITE_JUDGED
#: Trials per verification by default: the op's own draw and one per derived distribution.
DEFAULT_TRIALS = 1 + len(DERIVED)
#: At most this many distinct values make a floating tensor a value set (±1 targets, labels).
MAX_SET = 16
_PROB_TOL = 1e-3
_TIES = (-2.0, -1.0, -0.5, 0.5, 1.0, 2.0)
#: Softmax temperature of derived probability rows, per distribution.
_PROB_SCALE = {"signed": 1.0, "edges": 6.0, "near_one": 0.05, "offset": 3.0}


@dataclass(frozen=True)
class Structure:
    """What the op's own draw says about one input."""

    kind: str                   # float | int | bool | set | prob | other
    lo: float = 0.0             # observed range (float, int)
    hi: float = 0.0
    values: tuple = ()          # set: the values drawn
    axis: int = -1              # prob: the axis along which rows sum to 1
    true_frac: float = 0.5      # bool: share of True
    nonfinite: bool = False     # float, set: the op placed NaN/inf values, which derived draws keep

    def describe(self) -> str:
        if self.kind == "int":
            return f"integers in [{int(self.lo)}, {int(self.hi)}]"
        if self.kind == "set":
            return "values from {" + ", ".join(f"{v:g}" for v in self.values) + "}"
        if self.kind == "prob":
            return f"probability rows along axis {self.axis}"
        if self.kind == "bool":
            return f"a mask ({self.true_frac:.0%} True)"
        if self.nonfinite:
            return f"{self.kind}, its NaN/inf kept in place"
        return self.kind


def analyse(inputs: list) -> list[Structure]:
    """The structure of each input of the op's own draw."""
    return [_analyse_one(x) for x in inputs]


def _analyse_one(x) -> Structure:
    import torch
    if not isinstance(x, torch.Tensor):
        return Structure("other")
    if x.dtype == torch.bool:
        frac = float(x.float().mean()) if x.numel() else 0.5
        return Structure("bool", true_frac=min(max(frac, 0.1), 0.9))
    if not x.dtype.is_floating_point:
        if x.numel() == 0:
            return Structure("other")
        return Structure("int", lo=float(x.min()), hi=float(x.max()))
    v = x.detach().double()
    finite = torch.isfinite(v)
    if v.numel() == 0 or not bool(finite.any()):
        return Structure("other")
    if not bool(finite.all()):
        # NaN/inf the op put somewhere (a mask of -inf, a poisoned element) stay where they are; the
        # finite elements are drawn like any other floats (kept whole, every derived trial would
        # repeat the op's draw and prove nothing)
        f = v[finite]
        lo, hi = float(f.min()), float(f.max())
        distinct = torch.unique(f)
        if 2 <= distinct.numel() <= MAX_SET:
            return Structure("set", lo, hi, values=tuple(float(d) for d in distinct), nonfinite=True)
        return Structure("float", lo, hi, nonfinite=True)
    lo, hi = float(v.min()), float(v.max())
    # a sample rules most tensors out cheaply: unique() over millions of values takes a second
    if v.numel() > 2 * MAX_SET and torch.unique(v.reshape(-1)[:4096]).numel() <= MAX_SET:
        distinct = torch.unique(v)
        if 2 <= distinct.numel() <= MAX_SET:
            return Structure("set", lo, hi, values=tuple(float(d) for d in distinct))
    if lo >= 0 and v.dim() >= 1:
        for axis in range(v.dim() - 1, -1, -1):
            if v.shape[axis] > 1 and bool(torch.allclose(v.sum(axis), torch.ones((), dtype=v.dtype),
                                                          atol=_PROB_TOL, rtol=0)):
                return Structure("prob", lo, hi, axis=axis)
    return Structure("float", lo, hi)


def variants(distribution: str, structures: list[Structure]) -> list[str]:
    """The variants of ``distribution`` to try, in order (see the module docstring)."""
    if distribution == "specials":
        return list(SPECIAL_VARIANTS)
    out = [v for v in VARIANTS if v != "non-negative" or non_negative_inputs(structures)]
    return out[:1] + [MODERATE] + out[1:] if distribution == "scaled" else out


def derived_inputs(op_inputs: list, structures: list[Structure], distribution: str, variant: str,
                   seed: int) -> list:
    """A draw from ``distribution`` (one of :data:`DERIVED`) shaped like ``op_inputs``."""
    import numpy as np
    names = list(SPECIAL_VARIANTS) if distribution == "specials" else [*VARIANTS, MODERATE]
    rng = np.random.default_rng([seed, DERIVED.index(distribution), names.index(variant)])
    if distribution == "specials":
        # Infinities go into one input, the first plain float one; the others get the variant's
        # finite values: infinities from two inputs meet inside the op (inf - inf in a dot product),
        # and what follows a NaN made there is the implementation's choice (torch's CPU attention
        # skips a NaN score in its row max), not a result PyTorch defines.
        kinds = SPECIAL_VARIANTS[variant]
        finite = tuple(k for k in kinds if k not in ("inf", "-inf"))
        first = next((i for i, st in enumerate(structures) if st.kind == "float"), None)
        return [_specials(x, st, kinds if i == first else finite, rng)
                for i, (x, st) in enumerate(zip(op_inputs, structures))]
    return [_draw(x, s, distribution, variant, rng) for x, s in zip(op_inputs, structures)]


def _draw(x, s: Structure, dist: str, variant: str, rng: np.random.Generator):
    import numpy as np
    import torch
    if s.kind == "other":
        return x.clone() if isinstance(x, torch.Tensor) else x
    shape = tuple(x.shape)
    if s.kind == "bool":
        return torch.from_numpy(rng.random(shape) < s.true_frac)
    if s.kind == "int":
        vals = rng.integers(int(s.lo), int(s.hi) + 1, size=shape)
        return torch.from_numpy(vals).to(x.dtype)
    if s.kind == "set":
        vals = rng.choice(np.array(s.values), size=shape)
    elif s.kind == "prob":
        logits = rng.standard_normal(shape) * _PROB_SCALE[dist]
        e = np.exp(logits - logits.max(axis=s.axis, keepdims=True))
        vals = e / e.sum(axis=s.axis, keepdims=True)
    elif dist == "scaled":
        vals = _scaled(shape, x.dtype, variant == "as drawn", rng)
        if variant == "non-negative" and s.lo >= 0:
            vals = np.abs(vals)
        elif variant == "op's range":
            vals = s.lo + (s.hi - s.lo) * (0.5 + 0.5 * np.tanh(vals / (2 * max(np.abs(vals).max(), 1e-30))))
    else:
        vals = _floats(dist, shape, rng)
        if variant == "non-negative" and s.lo >= 0:
            vals = np.abs(vals)
        elif variant == "op's range":
            vals = s.lo + (s.hi - s.lo) * (0.5 + 0.5 * np.tanh(vals / 2))
    if s.nonfinite:
        ref = x.detach().double().numpy()
        vals = np.where(np.isfinite(ref), vals, ref)
    return torch.from_numpy(np.asarray(vals, dtype=np.float64)).to(x.dtype)


def _floats(dist: str, shape: tuple, rng: np.random.Generator) -> np.ndarray:
    import numpy as np
    if dist == "signed":
        return rng.standard_normal(shape)
    if dist == "near_one":
        sign = np.where(rng.random(shape) < 0.5, -1.0, 1.0)
        return sign * (1.0 + 0.03 * rng.standard_normal(shape))
    if dist == "offset":
        return 6.0 + rng.standard_normal(shape)
    if dist == "edges":
        pick = rng.random(shape)
        sign = np.where(rng.random(shape) < 0.5, -1.0, 1.0)
        wide = sign * 10.0 ** rng.uniform(-3, 3, shape)
        ties = rng.choice(np.array(_TIES), size=shape)
        normal = rng.standard_normal(shape)
        return np.where(pick < 0.15, 0.0, np.where(pick < 0.4, ties, np.where(pick < 0.6, wide, normal)))
    raise ValueError(f"unknown distribution {dist!r}")


def _rows(shape: tuple) -> tuple[int, int]:
    """(rows, row length) of a tensor read as rows along its last axis; a 1-D tensor is cut into
    up to 8 segments, a scalar is one row."""
    import math
    if len(shape) >= 2:
        return math.prod(shape[:-1]), shape[-1]
    n = math.prod(shape)
    seg = max(1, -(-n // 8))
    return -(-n // seg), seg


def _scaled(shape: tuple, dtype, huge: bool, rng: np.random.Generator) -> np.ndarray:
    """Rows of N(0, 1) at scales 10^U(-3, 6) (10^U(-3, 5) when not ``huge``), about half offset by
    U(-8, 8) times the scale; with ``huge``, one row in eight at 10^U(6, 30). Scales stay three
    decades below the dtype's largest finite value."""
    import math

    import numpy as np
    import torch
    n = math.prod(shape)
    rows, length = _rows(shape)
    top = math.log10(torch.finfo(dtype).max) - 3
    exps = rng.uniform(-3, 6 if huge else 5, rows)
    if huge:
        far = rng.random(rows) < 0.125
        exps = np.where(far, rng.uniform(6, 30, rows), exps)
    scale = 10.0 ** np.minimum(exps, top)
    offset = np.where(rng.random(rows) < 0.5, rng.uniform(-8, 8, rows), 0.0) * scale
    vals = offset[:, None] + scale[:, None] * rng.standard_normal((rows, length))
    return vals.reshape(-1)[:n].reshape(shape)


_SPECIAL = {"inf": float("inf"), "-inf": float("-inf"), "0": 0.0, "-0": -0.0}


def _specials(x, s: Structure, kinds: tuple, rng: np.random.Generator):
    """The op's own floating tensor ``x`` with values of ``kinds`` placed in about a quarter of its
    rows (at least one), one element in eight there (at least one per row); other inputs (integers,
    masks, value sets, probability rows) as the op drew them."""
    import numpy as np
    import torch
    if s.kind != "float" or not isinstance(x, torch.Tensor) or x.numel() == 0:
        return x.clone() if isinstance(x, torch.Tensor) else x
    shape = tuple(x.shape)
    rows, length = _rows(shape)
    vals = np.zeros(rows * length)
    vals[:x.numel()] = x.detach().double().numpy().reshape(-1)
    vals = vals.reshape(rows, length)
    chosen = rng.random(rows) < 0.25
    chosen[rng.integers(rows)] = True
    place = (rng.random((rows, length)) < 0.125) & chosen[:, None]
    place[np.flatnonzero(chosen), rng.integers(length, size=int(chosen.sum()))] = True
    tiny = float(torch.finfo(x.dtype).tiny)
    table = np.array([_SPECIAL.get(k, 0.0) for k in kinds])
    pick = rng.integers(len(kinds), size=(rows, length))
    sub = tiny * rng.uniform(0.01, 0.9, (rows, length))
    special = np.where(np.array(kinds)[pick] == "sub", sub, np.where(np.array(kinds)[pick] == "-sub", -sub,
                                                                     table[pick]))
    vals = np.where(place, special, vals).reshape(-1)[:x.numel()]
    return torch.from_numpy(vals.reshape(shape)).to(x.dtype)


def non_negative_inputs(structures: list[Structure]) -> bool:
    """Whether the non-negative variant differs from the draw (some float input the op drew >= 0)."""
    return any(s.kind == "float" and s.lo >= 0 for s in structures)
