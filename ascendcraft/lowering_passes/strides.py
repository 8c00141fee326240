"""Strides: a strided slice read on chip becomes a contiguous read and a pick of every step-th element.

Before (three-address form)::

    t = load(x[n, c, r, q:q + S * OW:S], pad=0.0)
    u = v[0:R:2, :]

After (same values)::

    _sp0 = load(x[n, c, r, q:q + S * OW], pad=0.0)
    t = window_max(_sp0, kernel=(1,), stride=(S,))
    _sp1 = v[0:R, :]
    u = window_max(_sp1, kernel=(1, 1), stride=(2, 1))

A window of one element at stride ``s`` keeps elements 0, s, 2s, ... of each axis it slides over:
``(L - 1) // s + 1`` of them, the ``cdiv(L, s)`` a slice ``a:b:s`` of the same ``L = b - a`` (or its
clamped part) takes. It lowers to the pooling windows' ``Gather`` by byte offsets, and with one
element per window no ``Max`` runs, so any value (NaN, -0.0) is copied as it is. The contiguous
read is ``s`` times the data on that axis (one ``DataCopy`` of whole rows instead of one copy per
element). Strided stores stay: the emitter writes them element by element (``CopyOutStrided``).

A load's step on an axis other than the tensor's last is a row stride of the copy and stays (as
does every step of a column ``x[a:b:s, j]``, copied element by element).

Establishes: no tile slice has a step; a load has one only as a row stride or in a column.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from ascendcraft.dsl import ast as A
from ascendcraft.dsl.types import TTile
from ascendcraft.errors import DSLError

from .base import LoweringPass, Names, call, rewrite_block
from .bufferize import column_region

# the dtypes Gather moves (by 2- or 4-byte offsets) and a one-element window lowers for
PICKABLE = ("f16", "f32", "i16", "i32")


@dataclass(frozen=True)
class Strides(LoweringPass):
    name: str = "strides"
    establishes: tuple[str, ...] = ("tile slices and the last axis of a load have no step",)

    def run(self, kernel: A.Kernel, ctx) -> A.Kernel:
        names = Names(kernel)

        def stmt(s):
            if not isinstance(s, A.Assign):
                return [s]
            e = s.value
            index = e.src if isinstance(e, A.Load) else e if isinstance(e, A.Index) else None
            if not isinstance(index, A.Index) or not any(isinstance(x, A.Slice) and x.stepped()
                                                         for x in index.subscripts):
                return [s]
            t = ctx.type_of(e)
            if not isinstance(t, TTile):
                return [s]
            steps = _kept_steps(index, len(t.shape))
            if any(st is not None for st in steps[:-2]):
                raise _refusal("an axis before the last two of the tile", index.span or s.span)
            if isinstance(e, A.Load):
                if column_region(index, ctx.symbols):
                    return [s]      # a column x[a:b:s, j]: copied element by element, at any stride
                # a step on an earlier axis is a row stride of the copy; the last axis's is picked
                steps = [None] * (len(steps) - 1) + steps[-1:]
                if steps[-1] is None:
                    return [s]
            if t.dtype not in PICKABLE:
                raise _refusal(f"a {t.dtype} tile", index.span or s.span)
            kept = steps[-2:] if len(steps) >= 2 and steps[-2] is not None else steps[-1:]
            last = len(index.subscripts) - 1 if isinstance(e, A.Load) else None
            plain = replace(index, subscripts=tuple(
                replace(x, step=None) if isinstance(x, A.Slice) and (last is None or i == last) else x
                for i, x in enumerate(index.subscripts)))
            spread = names.fresh("_sp")
            ones = A.Tuple(tuple(A.Int(1) for _ in kept))
            stride = A.Tuple(tuple(st if st is not None else A.Int(1) for st in kept))
            read = replace(e, src=plain) if isinstance(e, A.Load) else plain
            return [A.Assign(spread, read, s.span),
                    replace(s, value=call("window_max", A.Name(spread), kernel=ones, stride=stride))]

        return replace(kernel, body=rewrite_block(kernel.body, stmt))


def _refusal(what: str, span) -> DSLError:
    return DSLError(f"strides: a slice with a step on {what} does not lower (a strided read is a contiguous read "
                    f"and a Gather of every step-th element of the last one or two axes, of {', '.join(PICKABLE)} "
                    f"values; a load's step on another axis is a row stride)", span, kind="lowering error",
                    hint="read f32, f16, i16 or i32 values (cast after the read), or put the step on one of the "
                         "tile's last two axes")


def _kept_steps(index: A.Index, rank: int) -> list:
    """Per axis of the tile ``index`` reads (integer subscripts drop theirs): the step, None for 1."""
    steps = [x.step if x.stepped() else None for x in index.subscripts if isinstance(x, A.Slice)]
    return steps + [None] * (rank - len(steps))
