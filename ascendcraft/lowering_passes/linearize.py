"""Linearize: one tile operation per statement (three-address form).

Before::

    s = s * exp(m - m_new) + sum(exp(t - m_new))
    store(y[b, j:j + T], exp(load(x[b, j:j + T]) - m) * r)

After::

    _t0 = t - m_new
    _t1 = exp(_t0)
    _s0 = sum(_t1)
    s = s * exp(m - m_new) + _s0
    _t2 = load(x[b, j:j + T])
    _t3 = _t2 - m
    _t4 = exp(_t3)
    _t5 = _t4 * r
    store(y[b, j:j + T], _t5)

Establishes: every load, tile-valued op and reduction is the whole right-hand side of its own
assignment, and stores write a name. Scalar arithmetic stays inline: it runs on the scalar
unit. Later passes select one AscendC call per statement.

Tile aliases (``a = t``: another name for a tile's value) are resolved here: the uses of ``a``
become uses of ``t`` when that is the same value (``a`` is assigned once, all its uses follow
in the same block, and ``t`` is not reassigned before the last of them), so no later pass sees
two names for one buffer. An alias that must keep an older value (``prev = t`` carried across
iterations while ``t`` is reloaded) stays, and ``select`` makes it a copy.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from ascendcraft.dsl import ast as A
from ascendcraft.dsl.types import TTile

from .base import LoweringPass, Names, rename_names, rewrite_block


def _is_matmul(e) -> bool:
    return isinstance(e, A.Call) and e.func == "matmul"


@dataclass(frozen=True)
class Linearize(LoweringPass):
    name: str = "linearize"
    establishes: tuple[str, ...] = ("one load, tile op or reduction per statement",)

    def run(self, kernel: A.Kernel, ctx) -> A.Kernel:
        lin = _Linearizer(kernel, ctx)
        body = rewrite_block(lin.loop_bounds(kernel.body), lin.stmt)
        tiles = {s.target for s in A.walk(kernel) if isinstance(s, A.Assign) and is_vector(ctx.type_of(s.value))}
        return replace(kernel, body=resolve_aliases(body, tiles))


def _assigns(node) -> dict:
    """How often each name is assigned (or is a loop variable) in ``node``."""
    out: dict = {}
    for n in A.walk(node):
        for t in ((n.target,) if isinstance(n, A.Assign) else (n.var,) if isinstance(n, A.For) else
                  n.vars if isinstance(n, A.ParallelFor) else ()):
            out[t] = out.get(t, 0) + 1
    return out


def _uses(node, name: str) -> int:
    return sum(1 for n in A.walk(node) if isinstance(n, A.Name) and n.id == name or
               isinstance(n, A.Free) and n.name == name)


def resolve_aliases(body: tuple, tiles: set) -> tuple:
    """Replace each alias ``a = t`` of a tile by ``t`` where that is the same value (see the module
    docstring); chains (``b = a``) resolve in order. ``tiles``: the names of (non 0-d) tiles."""
    whole = A.Kernel("", (), (), body)
    assigned = _assigns(whole)
    total = {n: _uses(whole, n) for n in tiles}

    def block(stmts) -> list:
        stmts = list(stmts)
        out = []
        i = 0
        while i < len(stmts):
            s = stmts[i]
            if isinstance(s, A.Assign) and isinstance(s.value, A.Name) and s.target in tiles \
                    and s.value.id in tiles and s.target != s.value.id and assigned.get(s.target) == 1:
                a, t = s.target, s.value.id
                rest = stmts[i + 1:]
                using = [k for k, r in enumerate(rest) if _uses(r, a)]
                if sum(_uses(r, a) for r in rest) == total[a] and \
                        not any(_assigns(r).get(t) for r in rest[:(using[-1] + 1) if using else 0]):
                    stmts[i + 1:] = [rename_names(r, {a: t}) for r in rest]
                    total[t] = total.get(t, 0) + total[a] - 1
                    i += 1
                    continue
            if isinstance(s, (A.For, A.ParallelFor)):
                s = replace(s, body=tuple(block(s.body)))
            out.append(s)
            i += 1
        return out
    return tuple(block(body))


def is_gemm(e) -> bool:
    """``Matmul(a[...], b[...])``, the high-level Matmul API (see the cube pass)."""
    return isinstance(e, A.Call) and e.func == "Matmul"


def is_vector(t) -> bool:
    """A tile with at least one axis. 0-d tiles (a reduction's result) are scalar-unit values."""
    return isinstance(t, TTile) and t.shape != ()


def is_tile_op(e, ctx) -> bool:
    """Does evaluating ``e`` itself need the vector unit or a copy (as opposed to scalar arithmetic)?"""
    if isinstance(e, (A.Name, A.Int, A.Float, A.Str, A.Tuple)):
        return False
    if isinstance(e, A.Load) or is_vector(ctx.type_of(e)):
        return True
    return isinstance(e, (A.Call, A.Index)) and any(
        is_vector(ctx.type_of(a)) for a in (e.args if isinstance(e, A.Call) else (e.base,)))


class _Linearizer:
    def __init__(self, kernel, ctx):
        self.ctx, self.names = ctx, Names(kernel)

    def stmt(self, s) -> list:
        if isinstance(s, A.Assign):
            pre: list = []
            value = self.expr(s.value, pre, top=True)
            return pre + [replace(s, value=value)]
        if isinstance(s, A.Store) and is_gemm(s.value):
            return [s]   # Matmul streams GM to GM: it stays the store's value
        if isinstance(s, A.Store):
            pre = []
            value = self.expr(s.value, pre, top=False)
            return pre + [replace(s, value=value)]
        return [s]

    def loop_bounds(self, stmts) -> tuple:
        """A loop bound read from GM (``range(load(n[k]))``, a one-value integer tile) becomes a name
        assigned before the loop, so select reads it on the scalar unit like any 0-d load."""
        out = []
        for s in stmts:
            if isinstance(s, (A.For, A.ParallelFor)):
                s = replace(s, body=self.loop_bounds(s.body))
            if isinstance(s, A.For) and any(isinstance(self.ctx.type_of(e), TTile) for e in (s.start, s.stop)):
                pre: list = []
                s = replace(s, start=self.expr(s.start, pre, False), stop=self.expr(s.stop, pre, False))
                out += pre
            out.append(s)
        return tuple(out)

    def expr(self, e, pre: list, top: bool):
        """Rewrite ``e`` so its tile-valued parts are names; emit their computations into ``pre``.

        ``top``: ``e`` is the whole right-hand side of an assignment, so it may stay an operation.
        """
        ctx = self.ctx
        if not is_tile_op(e, ctx):
            if isinstance(e, (A.Binary, A.Unary, A.Call)):
                return self._rebuild(e, pre)
            return e
        rebuilt = self._rebuild(e, pre)
        if top:
            return rebuilt
        stem = "_t" if isinstance(ctx.type_of(e), TTile) else "_s"
        n = self.names.fresh(stem)
        pre.append(A.Assign(n, rebuilt))
        return A.Name(n)

    def _rebuild(self, e, pre):
        if isinstance(e, A.Binary):
            if e.op == "+" and isinstance(self.ctx.type_of(e), TTile) and self.ctx.type_of(e).space == "l0c":
                # acc + matmul(a, b) is one cube instruction (Mmad accumulating in place): keep it whole
                return replace(e, lhs=self._rebuild(e.lhs, pre) if _is_matmul(e.lhs) else self.expr(e.lhs, pre, False),
                               rhs=self._rebuild(e.rhs, pre) if _is_matmul(e.rhs) else self.expr(e.rhs, pre, False))
            return replace(e, lhs=self.expr(e.lhs, pre, False), rhs=self.expr(e.rhs, pre, False))
        if isinstance(e, A.Unary):
            return replace(e, operand=self.expr(e.operand, pre, False))
        if isinstance(e, A.Call):
            args = tuple(self.expr(a, pre, False) for a in e.args)
            return replace(e, args=args)
        if isinstance(e, A.Index) and isinstance(self.ctx.type_of(e), TTile):
            return replace(e, base=self.expr(e.base, pre, False))
        if isinstance(e, A.Load) and isinstance(e.src, A.Index):   # a tile index: load(x[b, load(t[b])])
            subs = tuple(x if isinstance(x, A.Slice) else self.expr(x, pre, False) for x in e.src.subscripts)
            return replace(e, src=replace(e.src, subscripts=subs))
        return e
