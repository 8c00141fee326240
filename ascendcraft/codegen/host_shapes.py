"""Shape reads of the host code for star tensors (``x: gm f32[*B, N]``): any rank serves.

A star tensor declared with ``r`` axes has ``r - 1`` trailing ones: its star dim B is the product
of the op's leading axes, all but the last ``r - 1`` (1 when there are none), and declared axis
``k >= 1`` is axis ``k - r`` counted from the end. Helpers of the generated C++ (``LeadingProduct``,
``StarShape``, ``CheckStarTensor``) are defined in the templates, each only where a line calls it
(the host code compiles with ``-Wall -Werror``). A tensor without a star reads as it always did.
"""
from __future__ import annotations

from dataclasses import dataclass

from .names import cpp_name
from .spec import TensorArg

# Functions of the templates that are emitted only where the generated lines call them.
HELPERS = ("CheckTensor", "CheckStarTensor", "LeadingProduct", "StarShape")


def helpers_called(lines: list[str]) -> set[str]:
    """The helpers ``lines`` call: the templates define those only."""
    return {h for h in HELPERS if any(f"{h}(" in line for line in lines)}


def _from_end(t: TensorArg, axis: int) -> int:
    """How far from the end declared axis ``axis`` (>= 1) of star tensor ``t`` is."""
    return t.trailing + 1 - axis


def _minus(expr: str, n: int) -> str:
    return f"{expr} - {n}" if n else expr


def _plus(expr: str, n: int) -> str:
    return f"{expr} + {n}" if n else expr


@dataclass(frozen=True)
class GertShape:
    """A ``gert::Shape`` of the op host: ``expr`` is a reference (TilingFunc) or a pointer (InferShape)."""

    expr: str
    pointer: bool = False

    def call(self, method: str) -> str:
        return f"{self.expr}{'->' if self.pointer else '.'}{method}"

    def extent(self, t: TensorArg, axis: int) -> str:
        """Declared axis ``axis`` of ``t`` in this shape."""
        if not t.star:
            return self.call(f"GetDim({axis})")
        if axis == 0:
            return f"LeadingProduct({'*' if self.pointer else ''}{self.expr}, {t.trailing})"
        return self.call(f"GetDim({_minus(self.call('GetDimNum()'), _from_end(t, axis))})")

    def rank_check(self, t: TensorArg, failed: str) -> list[str]:
        """Return ``failed`` when the shape has fewer axes than ``t`` declares after its star."""
        if not t.star or not t.trailing:
            return []
        return [f"if ({self.call('GetDimNum()')} < {t.trailing}) {{", f"    return {failed};", "}"]


def tiling_shape(t: TensorArg, storage: str, reads: dict[str, list[str]]) -> GertShape:
    """``t``'s ``storage`` shape in TilingFunc. A star tensor's is read into a local first, once,
    as its extents read it several times (the local and its rank check go to ``reads``)."""
    if not t.star:
        return GertShape(storage)
    shape = GertShape(f"{cpp_name(t.name)}Shape")
    local = f"const gert::Shape& {shape.expr} = {storage};"
    reads.setdefault(t.name, [local] + shape.rank_check(t, "ge::GRAPH_FAILED"))
    return shape


def infer_star_output(out: GertShape, t: TensorArg, origin: GertShape, source: TensorArg,
                      values: list[str]) -> list[str]:
    """InferShape of star output ``t``: the leading axes of ``source`` (the star input its star dim
    is read from, whose shape is ``origin``), then its trailing ``values``. Its rank follows the
    input's: the input's leading axes, whatever their number, and ``t``'s trailing ones."""
    lead = f"{cpp_name(t.name)}Lead"
    lines = [f"const size_t {lead} = {_minus(origin.call('GetDimNum()'), source.trailing)};",
             out.call(f"SetDimNum({_plus(lead, t.trailing)});"),
             f"for (size_t axis = 0; axis < {lead}; ++axis) {{",
             "    " + out.call(f"SetDim(axis, {origin.call('GetDim(axis)')});"),
             "}"]
    return lines + [out.call(f"SetDim({_plus(lead, k)}, {v});") for k, v in enumerate(values)]


def reads_star(t: TensorArg, axis: int) -> bool:
    """Whether axis ``axis`` of ``t`` is its star dim (the product of its leading axes)."""
    return t.star and axis == 0


def star_source(origins: dict, t: TensorArg) -> TensorArg | None:
    """The star input whose leading axes output ``t`` takes: the one its star dim is read from
    (``origins``: dim -> where the host reads it), if it is a star there. None for other outputs,
    which have their declared rank."""
    o = origins[t.shape[0]] if t.star else None
    return o.tensor if o is not None and o.star else None


# ----------------------------------------------------------------------------- torch bindings

def torch_extent(t: TensorArg, axis: int) -> tuple[str, str]:
    """(C++ value, its name in error messages) of declared axis ``axis`` of input ``t``."""
    var = cpp_name(t.name)
    if not t.star:
        return f"{var}.size({axis})", f"{t.name}.size({axis})"
    if axis == 0:
        return f"LeadingProduct({var}, {t.trailing})", f"the product of {t.name}'s leading axes"
    return f"{var}.size(-{_from_end(t, axis)})", f"{t.name}.size(-{_from_end(t, axis)})"


def torch_check(t: TensorArg, aten_dtype: str) -> str:
    """The dtype and rank check of input ``t``: a star tensor needs its trailing axes only."""
    helper, rank = ("CheckStarTensor", t.trailing) if t.star else ("CheckTensor", len(t.shape))
    return f'{helper}({cpp_name(t.name)}, "{t.name}", {aten_dtype}, {rank});'


def torch_star_sizes(source: TensorArg, values: list[str]) -> str:
    """The sizes of a star output: the leading axes of ``source`` (the star input its star dim is
    read from), then the output's trailing ``values``."""
    return f"StarShape({cpp_name(source.name)}, {source.trailing}, {{{', '.join(values)}}})"
