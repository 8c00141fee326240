"""Shape reads of the host code for tensors with star dims (``x: gm f32[*A(dim), D, *B]``): any rank serves.

A star dim stands for a run of the op tensor's axes (ascendcraft.dsl.star_groups has the rule): a
counted one (``*A(dim)``) covers the count's axes, taken against the rank of the first input that
holds it, a free one the axes the others leave. The host code reads each declared axis at its start
(the runs before it added up) as one axis or the product of its run. :class:`ShapeAccess` spells
those reads in one piece of host code (TilingFunc and InferShape on ``gert::Shape``, the torch
bindings on ``at::Tensor``, ModelNew in Python). Helpers of the generated C++ (``AxisProduct``,
``StarRun``, ``AppendAxes``, ``CheckStarTensor``) are defined in the templates, each only where a
line calls it (the host code compiles with ``-Wall -Werror``). A tensor without a star dim reads as
it always did.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from .names import cpp_name
from .spec import KernelSpec, TensorArg

# Functions of the templates that are emitted only where the generated lines call them.
HELPERS = ("CheckTensor", "CheckStarTensor", "AxisProduct", "StarRun", "AppendAxes")


def helpers_called(lines: list[str]) -> set[str]:
    """The helpers ``lines`` call: the templates define those only."""
    return {h for h in HELPERS if any(f"{h}(" in line for line in lines)}


# ----------------------------------------------------------------------------- linear expressions

@dataclass(frozen=True)
class Lin:
    """A sum of terms (expressions of the host code, each with a coefficient) and a constant."""

    terms: tuple[tuple[str, int], ...] = ()
    const: int = 0

    @staticmethod
    def of(term: str) -> "Lin":
        return Lin(((term, 1),))

    def __add__(self, other: "Lin") -> "Lin":
        terms = dict(self.terms)
        for t, c in other.terms:
            terms[t] = terms.get(t, 0) + c
        return Lin(tuple((t, c) for t, c in terms.items() if c), self.const + other.const)

    def __neg__(self) -> "Lin":
        return Lin(tuple((t, -c) for t, c in self.terms), -self.const)

    def __sub__(self, other: "Lin") -> "Lin":
        return self + (-other)

    def text(self) -> str:
        parts = []
        for t, c in self.terms:
            mag = t if abs(c) == 1 else f"{abs(c)} * {t}"
            parts.append((" - " if c < 0 else " + " if parts else "") + mag)
        if not parts:
            return str(self.const)
        if self.const:
            parts.append(f" {'-' if self.const < 0 else '+'} {abs(self.const)}")
        text = "".join(parts)
        return f"-{text[3:]}" if text.startswith(" - ") else text


# ----------------------------------------------------------------------------- where shapes are read

@dataclass(frozen=True)
class ShapeAccess:
    """How one piece of host code reads shapes: ``kind`` is ``gert`` (``expr`` names a
    ``gert::Shape`` reference), ``gert*`` (a pointer), ``torch`` (an ``at::Tensor``) or ``python`` (a
    ``torch.Tensor``); ``expr(t)`` is the expression for tensor ``t``, ``attr(name)`` an attribute's value."""

    kind: str
    expr: Callable[[TensorArg], str]
    attr: Callable[[str], str] = field(default=lambda name: name)

    def rank(self, t: TensorArg) -> str:
        e = self.expr(t)
        return {"gert": f"{e}.GetDimNum()", "gert*": f"{e}->GetDimNum()"}.get(self.kind, f"{e}.dim()")

    def dim(self, t: TensorArg, index: str) -> str:
        e = self.expr(t)
        return {"gert": f"{e}.GetDim({index})", "gert*": f"{e}->GetDim({index})", "torch": f"{e}.size({index})",
                "python": f"{e}.shape[{index}]"}[self.kind]

    def product(self, t: TensorArg, start: Lin, count: Lin) -> str:
        e = self.expr(t)
        if self.kind == "python":
            return f"math.prod({e}.shape[{start.text()}:{(start + count).text()}])"
        return f"AxisProduct({'*' if self.kind == 'gert*' else ''}{e}, {start.text()}, {count.text()})"


class Layout:
    """The declared axes of ``spec``'s tensors in the op's tensors, read through ``access``."""

    def __init__(self, spec: KernelSpec, access: ShapeAccess):
        self.spec, self.access = spec, access
        self.counts = dict(spec.star_counts)

    # ---- counted runs
    def holder(self, d: str) -> TensorArg:
        """The input whose rank counted star dim ``d``'s count is taken against."""
        return next(t for t in self.spec.inputs if d in t.stars)

    def run_of(self, d: str) -> Lin:
        """Counted star dim ``d``'s run: a local of the C++ host code (:meth:`run_lines`); inline in Python."""
        if self.access.kind != "python":
            return Lin.of(f"{cpp_name(d)}Run")
        count, rank = self._count(d), self.access.rank(self.holder(d))
        return Lin.of(f"({count} if {count} >= 0 else {count} + {rank})")

    def _count(self, d: str) -> str:
        c = self.counts[d]
        return self.access.attr(c) if isinstance(c, str) else str(c)

    def counted(self, tensors) -> list[str]:
        """The counted star dims ``tensors`` hold, in order."""
        return list(dict.fromkeys(d for t in tensors for d in t.shape if d in t.stars and d in self.counts))

    def run_lines(self, tensors, failed: str) -> list[str]:
        """The locals holding the runs of the counted star dims that ``tensors`` hold: the count (an
        attribute, as torch's dim: negative counts from the rank) must lie in [-rank, rank]."""
        lines = []
        for d in self.counted(tensors):
            holder, var = self.holder(d), f"{cpp_name(d)}Run"
            rank = self.access.rank(holder)
            if self.access.kind == "torch":
                lines.append(f'const int64_t {var} = StarRun({self._count(d)}, {rank}, "{holder.name}");')
            else:
                lines += [f"size_t {var} = 0;", f"if (!StarRun({self._count(d)}, {rank}, {var})) {{",
                          f"    return {failed};", "}"]
        return lines

    # ---- runs and starts
    def runs(self, t: TensorArg) -> list[Lin]:
        """How many of the op tensor's axes each declared axis of ``t`` covers."""
        need, _ = self.minimum_rank(t)
        rest = Lin.of(self.access.rank(t)) - need          # a free star dim's run
        return [Lin(const=1) if d not in t.stars else self.run_of(d) if d in self.counts else rest for d in t.shape]

    def start(self, t: TensorArg, axis: int) -> Lin:
        total = Lin()
        for run in self.runs(t)[:axis]:
            total = total + run
        return total

    def extent(self, t: TensorArg, axis: int) -> str:
        """Declared axis ``axis`` of ``t``: one axis of the op's tensor, or the product of a star dim's run."""
        start = self.start(t, axis)
        if t.shape[axis] in t.stars:
            return self.access.product(t, start, self.runs(t)[axis])
        return self.access.dim(t, start.text())

    def minimum_rank(self, t: TensorArg) -> tuple[Lin, bool]:
        """(the rank ``t``'s declared axes need, whether a larger one is taken by a free star dim)."""
        free = any(d in t.stars and d not in self.counts for d in t.shape)
        need = Lin(const=sum(1 for d in t.shape if d not in t.stars))
        for d in self.counted([t]):
            need = need + self.run_of(d)
        return need, free

    def rank_check(self, t: TensorArg, failed: str) -> list[str]:
        """Return ``failed`` when the op tensor's rank does not fit ``t``'s declared axes (C++ gert)."""
        if not t.star:
            return []
        need, free = self.minimum_rank(t)
        if free and need == Lin():
            return []
        return [f"if ({self.access.rank(t)} {'<' if free else '!='} {need.text()}) {{", f"    return {failed};", "}"]

    def torch_rank_check(self, t: TensorArg) -> list[str]:
        """The rank check of input ``t`` once the counted runs are known (the torch bindings)."""
        need, free = self.minimum_rank(t)
        if not self.counted([t]):
            return []       # CheckStarTensor checked the plain axes
        rank = self.access.rank(t)
        cmp, what = (">=", "at least ") if free else ("==", "")
        return [f'TORCH_CHECK({rank} {cmp} {need.text()}, "{t.name} must have {what}", {need.text()}, '
                f'" axes here, got ", {rank});']

    # ---- outputs
    def _segments(self, t: TensorArg, origins: dict) -> list:
        """Per declared axis of output ``t``: (input, start, run) where the axis takes the axes star dim
        ``d`` stands for in the input it is read from; None where it is one axis of its own extent (a
        plain dim, or a star dim read as one axis there)."""
        out = []
        for d in t.shape:
            o = origins[d] if d in t.stars else None
            out.append((o.tensor, self.start(o.tensor, o.axis), self.runs(o.tensor)[o.axis])
                       if o is not None and o.star else None)
        return out

    def output_rank(self, t: TensorArg, origins: dict) -> Lin:
        """The rank of output ``t``: each star dim's run as in the input it is read from."""
        total = Lin()
        for seg in self._segments(t, origins):
            total = total + (seg[2] if seg else Lin(const=1))
        return total

    def infer_output(self, out: str, t: TensorArg, origins: dict, values: list[str]) -> list[str]:
        """InferShape of output ``t`` (``out``: its ``gert::Shape*``): each star dim's axes copied from
        the input it is read from, each other axis its value (``values``, per declared axis)."""
        segments = self._segments(t, origins)
        if not any(segments):
            return [f"{out}->SetDimNum({len(t.shape)});"] + [f"{out}->SetDim({axis}, {v});"
                                                              for axis, v in enumerate(values)]
        at = f"{cpp_name(t.name)}Axis"
        lines = [f"{out}->SetDimNum({self.output_rank(t, origins).text()});", f"size_t {at} = 0;"]
        for seg, v in zip(segments, values):
            if seg:
                src, start, run = seg
                lines += [f"for (size_t axis = 0; axis < {run.text()}; ++axis) {{",
                          f"    {out}->SetDim({at}++, {self.access.dim(src, (start + Lin.of('axis')).text())});",
                          "}"]
            else:
                lines.append(f"{out}->SetDim({at}++, {v});")
        return lines

    def torch_output_sizes(self, t: TensorArg, origins: dict, values: list[str]) -> tuple[list[str], str]:
        """(lines, the sizes expression) of output ``t`` for ``at::empty`` in the torch bindings."""
        segments = self._segments(t, origins)
        if not any(segments):
            return [], "{" + ", ".join(values) + "}"
        var = f"{cpp_name(t.name)}Sizes"
        lines = [f"std::vector<int64_t> {var};"]
        for seg, v in zip(segments, values):
            if seg:
                src, start, run = seg
                lines.append(f"AppendAxes({var}, {self.access.expr(src)}, {start.text()}, {run.text()});")
            else:
                lines.append(f"{var}.push_back({v});")
        return lines, var

    def python_output_shape(self, t: TensorArg, source: Callable[[str], tuple[TensorArg, int] | None],
                            extent: Callable[[object], str]) -> str:
        """``t``'s shape as a Python tuple expression: each star dim's axes from the tensor ``source``
        finds it in, each other axis ``extent(d)``."""
        parts = []
        for d in t.shape:
            found = source(d) if d in t.stars else None
            if found is not None:
                s, axis = found
                start, run = self.start(s, axis), self.runs(s)[axis]
                parts.append(f"tuple({self.access.expr(s)}.shape[{start.text()}:{(start + run).text()}])")
            else:
                parts.append(f"({extent(d)},)")
        return " + ".join(parts) if parts else "()"


# ----------------------------------------------------------------------------- torch bindings

def torch_check(t: TensorArg, aten_dtype: str) -> str:
    """The dtype and rank check of input ``t``: a star tensor needs its plain axes at least (its
    counted runs are checked once known: :meth:`Layout.torch_rank_check`)."""
    if not t.star:
        return f'CheckTensor({cpp_name(t.name)}, "{t.name}", {aten_dtype}, {len(t.shape)});'
    plain = sum(1 for d in t.shape if d not in t.stars)
    return f'CheckStarTensor({cpp_name(t.name)}, "{t.name}", {aten_dtype}, {plain});'


def torch_label(t: TensorArg, axis: int) -> str:
    """Declared axis ``axis`` of ``t`` as error messages name it."""
    d = t.shape[axis]
    if d in t.stars:
        return f"the product of the axes of {t.name} that *{d} stands for"
    return f"{t.name}.size({axis})" if not t.star else f"the axis of {t.name} declared {d}"
