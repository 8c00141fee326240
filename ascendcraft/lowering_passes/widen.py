"""Widen: 16-bit float arithmetic the vector unit cannot do as the DSL means it runs in f32.

Before (three-address form, a bf16 tile ``t``)::

    _t1 = exp(t)
    _s0 = sum(_t1)

After (same values)::

    _w0 = cast(t, f32)
    _w1 = exp(_w0)
    _t1 = cast(_w1, bf16)
    _w2 = cast(_t1, f32)
    _w3 = sum(_w2)
    _s0 = cast(_w3, bf16)

Why: Atlas A2 (910B) has no bf16 vector arithmetic, only ``Cast`` to and from float (asc-devkit
impl/basic_api/dav_c220: the vector intrinsics take half/float; bf16 appears only in the Cast
pairs bf16<->f32; the simulator rejects the rest with the same reason). The DSL's bf16 meaning
is "compute in f32, round to bf16 after every op" (ascendcraft/dtypes.py), so widening each op
to f32 and rounding its result back (``Cast`` f32->bf16, round to nearest even) is that meaning
exactly, not an approximation.

f16 arithmetic stays f16 (the vector unit computes half natively, and the DSL says f16 math is
f16 math) except where the lowered form of an op would not be the interpreter's value:

* ``erf``, ``tanh``, ``sigmoid`` and non-literal powers are compositions of several API ops
  (select.py), each rounding in f16 (erf's sign, x * 1e30 clamped to +-1, would overflow half);
  the interpreter evaluates them in f32 and rounds once, which is what the widened form does;
* ``sum``/``mean``/``prod`` of a whole tile or of each row: the interpreter's NumPy reduction of
  a contiguous half axis accumulates in float (pairwise), so the lowered one accumulates in f32;
  reductions across rows (axis 0) are sequential half additions in NumPy and stay f16;
* scans (``cumsum``/``cumprod``) of f16 tiles: the interpreter accumulates them in f32 and rounds
  each result once (as torch does on the CPU); the scan composite in half would round every
  partial.

Establishes: no vector op (other than copies, loads, stores and casts) has a bf16 operand.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from ascendcraft.dsl import ast as A
from ascendcraft.dsl.ops import BINARY_OPERATORS, UNARY_OPERATORS
from ascendcraft.dsl.types import TTile

from .base import LoweringPass, Names, call, int_literal, rewrite_block
from .linearize import is_vector

# f16 ops widened to f32 (see the module docstring); reductions only along a contiguous axis
_F16_COMPOSITES = frozenset({"erf", "tanh", "sigmoid"})
_F16_REDUCTIONS = frozenset({"sum", "mean", "prod"})
_SCANS = frozenset({"cumsum", "cumprod"})
# forms that move bits or only build tiles from scalars: no arithmetic on a 16-bit value
_KEEP = frozenset({"matmul", "cast"})


@dataclass(frozen=True)
class Widen(LoweringPass):
    name: str = "widen"
    establishes: tuple[str, ...] = ("no vector arithmetic on bf16 tiles",)

    def run(self, kernel: A.Kernel, ctx) -> A.Kernel:
        w = _Widener(kernel, ctx)
        return replace(kernel, body=rewrite_block(kernel.body, w.stmt))


def _op_of(e) -> str | None:
    if isinstance(e, A.Call):
        return e.func
    if isinstance(e, A.Binary):
        return BINARY_OPERATORS.get(e.op)
    if isinstance(e, A.Unary):
        return UNARY_OPERATORS.get(e.op)
    return None


def _operands(e) -> list:
    if isinstance(e, A.Call):
        return list(e.args)
    if isinstance(e, A.Binary):
        return [e.lhs, e.rhs]
    if isinstance(e, A.Unary):
        return [e.operand]
    return []


def _with_operands(e, new: list):
    if isinstance(e, A.Call):
        return replace(e, args=tuple(new))
    if isinstance(e, A.Binary):
        return replace(e, lhs=new[0], rhs=new[1])
    return replace(e, operand=new[0])


class _Widener:
    def __init__(self, kernel, ctx):
        self.ctx, self.names = ctx, Names(kernel)

    def _dtype(self, e):
        t = self.ctx.type_of(e)
        return t.dtype if isinstance(t, TTile) else None

    def stmt(self, s) -> list:
        if not isinstance(s, A.Assign):
            return [s]
        e = s.value
        op = _op_of(e)
        if op is None or op in _KEEP and not self._cast_through_f32(e):
            return [s]
        rt = self.ctx.type_of(e)
        args = _operands(e)
        types = [self.ctx.type_of(a) for a in args]
        if not (is_vector(rt) or any(is_vector(t) for t in types)):
            return [s]      # scalar-unit arithmetic (0-d values): no vector op
        dtypes = {t.dtype for t in [rt, *types] if isinstance(t, TTile)}
        if "bf16" in dtypes:
            return self._widen(s, e, args, types, "bf16")
        if "f16" in dtypes:
            if op in _SCANS or op in _F16_COMPOSITES or op == "pow" and not _literal(args[1]) or \
                    op in _F16_REDUCTIONS and self._contiguous(e):
                return self._widen(s, e, args, types, "f16")
        return [s]

    def _cast_through_f32(self, e) -> bool:
        """A cast between a 16-bit float and anything but f32 (no such Cast pair on A2 for bf16) goes
        through f32, which holds every f16/bf16 value exactly."""
        if not (isinstance(e, A.Call) and e.func == "cast" and is_vector(self.ctx.type_of(e))):
            return False
        src, dst = self._dtype(e.args[0]), self.ctx.type_of(e).dtype
        return e.kwarg("round") is None and src != dst and "bf16" in (src, dst) and "f32" not in (src, dst)

    def _contiguous(self, e) -> bool:
        """A reduction of a whole tile or along its last axis."""
        axis = e.kwarg("axis")
        rank = len(self.ctx.type_of(e.args[0]).shape)
        return axis is None or rank == 1 or int_literal(axis) in (rank - 1, -1)

    def _widen(self, s: A.Assign, e, args, types, narrow: str) -> list:
        out, new = [], []
        for a, t in zip(args, types):
            if isinstance(t, TTile) and t.dtype == narrow:
                w = self.names.fresh("_w")
                out.append(replace(s, target=w, value=replace(call("cast", a, A.Name("f32")), span=e.span)))
                a = A.Name(w)
            elif isinstance(a, A.Name) and a.id == narrow:    # a dtype argument (zeros, full, cast)
                a = replace(a, id="f32")
            new.append(a)
        wide = _with_operands(e, new)
        rt = self.ctx.type_of(e)
        if not (isinstance(rt, TTile) and rt.dtype == narrow):
            return out + [replace(s, value=wide)]         # a comparison's mask, or a cast out of f32
        w = self.names.fresh("_w")
        return out + [replace(s, target=w, value=wide),
                      replace(s, value=replace(call("cast", A.Name(w), A.Name(narrow)), span=e.span))]


def _literal(e) -> bool:
    return isinstance(e, (A.Int, A.Float)) or isinstance(e, A.Unary) and isinstance(e.operand, (A.Int, A.Float))

