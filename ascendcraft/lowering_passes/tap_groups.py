"""How far the vector cores may run ahead of the cube cores in a loop of phases whose last phase is
tap products (docs/dsl.md, "Tap products"; the hand-off is codegen/taps.py's ``_loop_aiv``).

In such a loop each iteration's vector phases write what its tap products read (an image laid out
channel-last, a group of images at a time). The vector cores hand each iteration to the cube cores
and may go on with the next ones while the cube computes: iteration i's vector phases then run
beside the tap products of iterations i - 1 ... i - ahead + 1. That keeps the meaning of the loop
only if none of those overlap in memory: the vector phases of an iteration write nothing the tap
products of the iterations before it read or write, and read nothing they write. This module
checks that at every shape set, as the tap pass checks its tiles (the regions are affine in the
loop variables: their extremes are at the variables' first and last values), and gives the loop
``ahead`` iterations of slack where it holds, else 1 (lock step), with the reason in the notes. Only
distances the shape sets show are taken: a loop of k iterations at most runs at most k - 1 ahead.
"""
from __future__ import annotations

import itertools
from dataclasses import replace

from ascendcraft.dsl import ast as A
from ascendcraft.dsl.symbols import evaluate

from .base import map_names
from .pipeline import shape_set_values

#: iterations the vector cores may be ahead of the cube cores (each a flag on the counter of 15)
AHEAD = 4


class _Unknown(Exception):
    """A region whose extent at some iteration cannot be computed from dims and loop variables."""


def with_groups(loop: A.For, kernel: A.Kernel, ctx) -> A.For:
    """``loop`` with ``groups=`` on its tap products: how many iterations the vector cores may be
    ahead (AHEAD where no iteration's vector phases touch memory the tap products of the AHEAD - 1
    iterations before it use, fewer where the shape sets have fewer iterations, else 1)."""
    ahead, why = _ahead(loop, kernel, ctx)
    ctx.notes.append(f"cube: the vector cores run up to {ahead - 1} iterations of the loop over {loop.var} ahead "
                     f"of the tap products" + (f" ({why})" if why else ""))
    tap = loop.body[-1]

    def mark(s):
        if isinstance(s, A.Store) and A.is_tap_product(s.value):
            kw = tuple(k for k in s.value.kwargs if k.name != "groups") + (A.Keyword("groups", A.Int(ahead)),)
            return replace(s, value=replace(s.value, kwargs=kw))
        if isinstance(s, (A.ParallelFor, A.For)):
            return replace(s, body=tuple(mark(b) for b in s.body))
        return s
    return replace(loop, body=loop.body[:-1] + (mark(tap),))


def _ahead(loop: A.For, kernel: A.Kernel, ctx) -> tuple[int, str]:
    vector = [(p, _accesses(p, ctx)) for p in loop.body[:-1]]
    taps = _accesses(loop.body[-1], ctx)
    longest = 1          # the most iterations of a shape set: the distances checked are below it
    for env in shape_set_values(kernel, ctx):
        try:
            its = list(range(*(evaluate(x, env) for x in (loop.start, loop.stop, loop.step))))
        except (KeyError, ZeroDivisionError, TypeError, ValueError):
            return 1, "its bounds are not dims and constants"
        longest = max(longest, len(its))
        boxes: dict = {}

        def box(access, i):
            key = (id(access), i)
            if key not in boxes:
                root, region, _, scope = access
                boxes[key] = _box(region, scope, dict(env, **{loop.var: its[i]}), ctx)
            return boxes[key]
        for later in range(len(its)):
            for earlier in range(max(0, later - AHEAD + 1), later):
                for phase, accesses in vector:
                    for v, t in itertools.product(accesses, taps):
                        if v[0] != t[0] or not (v[2] or t[2]):
                            continue
                        try:
                            a, b = box(v, later), box(t, earlier)
                        except _Unknown:
                            return 1, f"a region of {v[0]} is not one it can bound from the loop variables"
                        if v[1].base.id != t[1].base.id:   # a view and its tensor: their elements' offsets
                            a, b = _flat(a, v[1].base.id, env, ctx), _flat(b, t[1].base.id, env, ctx)
                        if all(lo <= t_hi and t_lo <= hi for (lo, hi), (t_lo, t_hi) in zip(a, b)):
                            line = phase.span.line if phase.span else "?"
                            return 1, (f"iteration {its[later]}'s vector phase at line {line} touches {v[0]} where "
                                       f"iteration {its[earlier]}'s tap products do")
    if longest < AHEAD:  # only what was checked: iterations fewer apart than the shape sets have
        return longest, f"the shapes it was lowered for have at most {longest} iterations"
    return AHEAD, ""


def _accesses(phase: A.ParallelFor, ctx) -> list:
    """(root tensor, region, writes, scope) of every GM access of the phase. The scope binds what
    the region's indices may use: the phase's variables with their extents, its scalar assignments,
    the loops inside it and a tap product's tap variable, each with its range."""
    out = []

    def visit(stmts, scope):
        for s in stmts:
            if isinstance(s, A.Assign) and not isinstance(s.value, (A.Load, A.Call, A.Index)):
                scope["scalars"][s.target] = s.value
            if isinstance(s, A.For):
                visit(s.body, {"ranges": scope["ranges"] + [(s.var, s.start, s.stop, s.step)],
                               "scalars": dict(scope["scalars"])})
                continue
            for n in A.walk(s):
                if isinstance(n, A.Store) and isinstance(n.dst, A.Index):
                    out.append((ctx.symbols.root(n.dst.base.id), n.dst, True, scope))
                    if A.is_tap_product(n.value):
                        var, start, stop, step, a_t, b_t = n.value.kwarg("taps").items
                        tap = {"ranges": scope["ranges"] + [(var.id, start, stop, step)], "scalars": scope["scalars"]}
                        for r, sc in ((n.value.args[0], scope), (n.value.args[1], scope), (a_t, tap), (b_t, tap)):
                            out.append((ctx.symbols.root(r.base.id), r, False, sc))
                elif isinstance(n, A.Load) and isinstance(n.src, A.Index):
                    out.append((ctx.symbols.root(n.src.base.id), n.src, False, scope))
    visit(phase.body, {"ranges": [(v, A.Int(0), e, A.Int(1)) for v, e in zip(phase.vars, phase.extents)],
                       "scalars": {}})
    return out


#: a range of at most this many values is taken whole; a longer one by its first and last value,
#: which bound only indices affine in it
WHOLE = 64
#: the most points a region is evaluated at
POINTS = 4096


def _flat(box, name: str, env: dict, ctx) -> list:
    """A box of tensor or view ``name`` as the one interval of element offsets in its root's memory
    it lies within (every stride positive: the least at the low corner, the greatest at the high)."""
    strides = ctx.symbols.strides_at(name, env)
    return [(sum(lo * s for (lo, _), s in zip(box, strides)), sum(hi * s for (_, hi), s in zip(box, strides)))]


def _box(region: A.Index, scope: dict, env: dict, ctx):
    """Per axis of the region's tensor (or view), the least and greatest index the region takes over
    the scope's ranges."""
    base = region.base.id
    dims = ctx.symbols.dims_at(base, env)

    def resolve(e):
        return map_names(e, lambda n: resolve(scope["scalars"][n.id]) if n.id in scope["scalars"] else n)
    subs = [resolve(x) if not isinstance(x, A.Slice) else
            A.Slice(*(None if y is None else resolve(y) for y in (x.start, x.stop, x.step)))
            for x in A.whole_subscripts(region, len(dims))]
    points, sampled = [{}], set()
    for var, start, stop, step in scope["ranges"]:
        grown = []
        for p in points:
            try:
                values = range(*(evaluate(resolve(x), dict(env, **p)) for x in (start, stop, step)))
            except (KeyError, ZeroDivisionError, TypeError, ValueError):
                raise _Unknown from None
            if len(values) > WHOLE:
                sampled.add(var)
                values = sorted({values[0], values[-1]})
            grown += [dict(p, **{var: v}) for v in values]
        points = grown
        if len(points) > POINTS:
            raise _Unknown
    if not points:
        return [(1, 0)] * len(dims)            # no iteration: an empty box (flat too: 1 > 0 at every axis)
    for sub in subs:
        for e in (sub.start, sub.stop) if isinstance(sub, A.Slice) else (sub,):
            if e is not None and not _affine(e, sampled):
                raise _Unknown
    box = []
    for axis, sub in enumerate(subs):
        lo, hi = [], []
        for p in points:
            at = dict(env, **p)
            try:
                if isinstance(sub, A.Slice):
                    lo.append(max(0 if sub.start is None else evaluate(sub.start, at), 0))
                    hi.append(min(dims[axis] if sub.stop is None else evaluate(sub.stop, at), dims[axis]) - 1)
                else:
                    lo.append(evaluate(sub, at))
                    hi.append(lo[-1])
            except (KeyError, ZeroDivisionError, TypeError, ValueError):
                raise _Unknown from None
        box.append((min(lo), max(hi)))
    return box


def _affine(e, variables: set) -> bool:
    """Whether ``e`` is affine in ``variables`` (sums, differences and constant multiples of them;
    any other term free of them): its extremes over their ranges are at their ends."""
    if not variables or not (set(A.names_in(e)) & variables):
        return True
    if isinstance(e, A.Name):
        return True
    if isinstance(e, A.Binary) and e.op in "+-":
        return _affine(e.lhs, variables) and _affine(e.rhs, variables)
    if isinstance(e, A.Binary) and e.op == "*":
        return (not set(A.names_in(e.lhs)) & variables and _affine(e.rhs, variables)) or \
            (not set(A.names_in(e.rhs)) & variables and _affine(e.lhs, variables))
    if isinstance(e, A.Unary) and e.op == "-":
        return _affine(e.operand, variables)
    return False
