"""Collapse: perfectly nested rectangular loops become one loop over their tiles.

Before::

    for h in range(0, H, R):
        for w in range(0, W, TW):
            t = load(x[b, c, h:h + R, w:w + TW])
            s = s + sum(t)

After::

    for _hw0 in range(0, cdiv(H - 0, R) * cdiv(W - 0, TW)):
        h = 0 + _hw0 // cdiv(W - 0, TW) * R
        w = 0 + _hw0 % cdiv(W - 0, TW) * TW
        t = load(x[b, c, h:h + R, w:w + TW])
        s = s + sum(t)

One loop over all tiles lets the later passes treat every tile alike: in particular
``prefetch`` can load the next tile even when the inner loop runs once per outer iteration
(a whole row per tile), which the nested form would serialise. Only loops whose outer body
is exactly the inner loop, with positive constant steps, scalar bounds (not a count loaded from GM)
and inner bounds that do not depend on the outer variable, are collapsed (so the iteration order
is unchanged).

Establishes: no perfectly nested rectangular ``range`` loops.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from ascendcraft.dsl import ast as A
from ascendcraft.dsl.types import TScalar

from .base import LoweringPass, Names, binary, call, loop_name, rename_names


@dataclass(frozen=True)
class Collapse(LoweringPass):
    name: str = "collapse"
    establishes: tuple[str, ...] = ("perfectly nested rectangular loops are one loop",)

    def run(self, kernel: A.Kernel, ctx) -> A.Kernel:
        c = _Collapser(kernel, ctx)
        return replace(kernel, body=tuple(c.block(kernel.body)))


class _Collapser:
    def __init__(self, kernel, ctx):
        self.ctx, self.names = ctx, Names(kernel)
        # names the kernel defines outside its parallel loops: a loop variable of that name inside a
        # phase becomes an assignment when collapsed, which a phase may not make to a kernel-level name
        self.kernel_level = _defined_outside_phases(kernel.body)
        self.in_phase = False

    def block(self, stmts) -> list:
        out = []
        for s in stmts:
            if isinstance(s, (A.For, A.ParallelFor)):
                was = self.in_phase
                self.in_phase = was or isinstance(s, A.ParallelFor)
                s = replace(s, body=tuple(self.block(s.body)))
                self.in_phase = was
            if isinstance(s, A.For):
                s = self._collapse(s)
            out.append(s)
        return out

    def _positive_step(self, e) -> bool:
        t = self.ctx.type_of(e)
        return isinstance(t, TScalar) and isinstance(t.value, int) and t.value > 0

    def _collapse(self, outer: A.For):
        if len(outer.body) != 1 or not isinstance(outer.body[0], A.For):
            return outer
        inner = outer.body[0]
        inner_bounds = A.names_in(inner.start) | A.names_in(inner.stop) | A.names_in(inner.step)
        if outer.var in inner_bounds or not (self._positive_step(outer.step) and self._positive_step(inner.step)):
            return outer
        if not all(isinstance(self.ctx.type_of(e), TScalar) for e in (outer.start, outer.stop, inner.start, inner.stop)):
            return outer    # a bound read from GM (a one-value tile) is a count the loop runs, not arithmetic
        n_outer = call("cdiv", binary("-", outer.stop, outer.start), outer.step)
        n_inner = call("cdiv", binary("-", inner.stop, inner.start), inner.step)
        flat = self.names.fresh(f"_{outer.var}{inner.var}")
        f = A.Name(flat)
        body, ov, iv = inner.body, outer.var, inner.var
        if self.in_phase:
            # rename_names renames uses only: a body that rebinds the name keeps it (and is refused later)
            assigned = {n.target for s in body for n in A.walk(s) if isinstance(n, A.Assign)}
            assigned |= {n.var for s in body for n in A.walk(s) if isinstance(n, A.For)}
            renames = {v: self.names.fresh(f"_{v}") for v in (ov, iv) if v in self.kernel_level and v not in assigned}
            if renames:
                body = tuple(rename_names(s, renames) for s in body)
                ov, iv = renames.get(ov, ov), renames.get(iv, iv)
        unpack = (A.Assign(ov, binary("+", outer.start, binary("*", binary("//", f, n_inner), outer.step))),
                  A.Assign(iv, binary("+", inner.start, binary("*", binary("%", f, n_inner), inner.step))))
        self.ctx.notes.append(f"collapse: {loop_name(outer, self.ctx)} and {loop_name(inner, self.ctx)} are one loop")
        # a negative trip count (stop < start) must stay an empty loop: clamp both counts at 0
        total = binary("*", call("maximum", n_outer, A.Int(0)), call("maximum", n_inner, A.Int(0)))
        return A.For(flat, A.Int(0), total, A.Int(1), unpack + body, outer.span)


def _defined_outside_phases(stmts) -> set:
    """Names assigned or looped over by statements that are not inside a parallel loop."""
    out = set()
    for s in stmts:
        if isinstance(s, A.ParallelFor):
            continue
        if isinstance(s, A.Assign):
            out.add(s.target)
        elif isinstance(s, A.For):
            out.add(s.var)
            out |= _defined_outside_phases(s.body)
    return out
