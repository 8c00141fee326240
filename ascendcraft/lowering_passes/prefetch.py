"""Prefetch: issue the copy-in of the next tile before computing the current one.

A loop that reduces each tile to a scalar (``ReduceSum`` then ``GetValue``), or each row of a
tile (``SumEachRow``: a ``GetValue`` per row), makes the scalar unit wait for the vector unit
once per tile; a load written after that wait cannot start before it, so copy-in and compute
take turns instead of overlapping. Loading one iteration
ahead keeps MTE2 busy through the wait (the second queue slot holds the next tile).

Before::

    for j in range(0, N, T):
        t = load(x[b, j:j + T], out=qin0)
        _s0 = ReduceSum(t)
        free(t)
        ...

After::

    _pf0 = load(x[b, 0:0 + T], out=qin0)
    for j in range(0, N, T):
        t = _pf0
        _pf0 = load(x[b, j + T:j + T + T], out=qin0)
        _s0 = ReduceSum(t)
        free(t)
        ...
    free(_pf0)

The last iteration's prefetch is made empty: a region along the loop's own axis is past the
tensor's end already (clamped away), any other has its first slice moved past the end once the
loop variable's next value reaches the loop's stop (else a core's last iteration would read the
first tile of the next core's share); a region of single elements reads one clamped element.
The slot is freed after the loop, which also covers loops that run zero times. Only loads of kernel inputs (never written while the
kernel runs) from double-buffered queues are moved, and only when their region depends on
the loop variable and on names fixed during the loop (scalar names computed earlier in the
body from the loop variable are substituted).

A prefetched one-value tile that the body reads with ``GetValue`` and frees is loaded again
only after that ``free``: the scalar unit's wait for a copy is a flag that waits for every copy
issued before it on MTE2, so a read issued after the next index's copy would wait for it too.

Also, in every block, the read of a loaded one-value tile (``x = GetValue(v)``, with its
``free(v)``) moves down to just before the first use of ``x``: the copy is issued where it was
written, and the scalar unit waits for it only when it needs the value (a class index or a
picked logit then overlaps the row's work instead of stalling it).

Establishes: in loops with a scalar reduction, the next tile's copy-in is issued before the
current tile's compute; one-value reads wait at their first use.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, replace

from ascendcraft.dsl import ast as A
from ascendcraft.dsl.check_lowered import SCALAR_RESERVE

from .base import LoweringPass, Names, binary, call, dim_expr, loop_name, map_names
from .bufferize import bounded_difference


@dataclass(frozen=True)
class Prefetch(LoweringPass):
    name: str = "prefetch"
    establishes: tuple[str, ...] = ("copy-in of tile i+1 is issued before the compute of tile i",
                                    "one-value reads wait at the first use of their value")

    def run(self, kernel: A.Kernel, ctx) -> A.Kernel:
        return _Prefetcher(kernel, ctx).run(kernel)


class _Prefetcher:
    def __init__(self, kernel, ctx):
        self.k, self.ctx, self.names = kernel, ctx, Names(kernel)
        # names this pass made: prefetched tiles (_pf<k>), and the scalars computing an inner loop's
        # first region (known by name, never by their spelling: a writer may name a variable _pf0)
        self.prefetched: set[str] = set()
        self.made: set[str] = set()
        self.queues = {s.name for s in kernel.body if isinstance(s, A.Buffer) and s.type.space == "vecin"
                       and s.depth >= 2}
        self.inputs = {p.name for p in kernel.inputs}
        self.decls = {s.name: s for s in kernel.body if isinstance(s, A.Buffer)}
        self.depth: dict[str, int] = {}          # queues that need a third slot (prefetch at two levels)
        self.new_queues: list[A.Buffer] = []     # queues of inner loops' first tiles, loaded an outer iteration ahead
        from .pipeline import buffers_bytes, shape_set_values, slot_bytes
        # a slot's bytes and the UB left, at the shape set where the buffers take the most
        budgets = shape_set_values(kernel, ctx)
        worst = max(budgets, key=lambda v: buffers_bytes(self.decls.values(), v))
        self.slot_bytes = {n: max(slot_bytes(b.type, v) for v in budgets) for n, b in self.decls.items()}
        self.ub_free = ctx.chip.capacity("ub") - SCALAR_RESERVE - buffers_bytes(self.decls.values(), worst)

    def run(self, kernel) -> A.Kernel:
        body = self.block(kernel.body)
        body = [replace(s, depth=self.depth[s.name]) if isinstance(s, A.Buffer) and s.name in self.depth else s
                for s in body]
        if self.new_queues:
            cut = max(i for i, s in enumerate(body) if isinstance(s, A.Buffer)) + 1
            body[cut:cut] = self.new_queues
        return replace(kernel, body=tuple(body))

    def block(self, stmts) -> list:
        out = []
        for s in stmts:
            if isinstance(s, A.ParallelFor):
                out.append(replace(s, body=tuple(self.block(s.body))))
            elif isinstance(s, A.For):
                out += self._loop(replace(s, body=tuple(self.block(s.body))))
            else:
                out.append(s)
        return _sink_reads(out)

    def _loop(self, loop: A.For) -> list:
        step = _known_step(self.ctx, loop)
        if not _has_scalar_reduction(loop.body) or not step:
            return [loop]
        assigned = {n.target for b in loop.body for n in A.walk(b) if isinstance(n, A.Assign)}
        scalars: dict[str, A.Expr] = {}   # integer scalars computed earlier in the body, in order
        body, before, after = [], [], []
        deferred: dict[str, list] = {}    # one-value tile -> its next load, issued after its read
        peel: dict[str, str] = {}         # inner prefetched tile -> the name of its first tile, from a queue of its own
        for s in loop.body:
            if isinstance(s, A.For) and s.body and isinstance(s.body[0], A.Assign) and \
                    isinstance(s.body[0].value, A.Name) and s.body[0].value.id in peel:
                pf = s.body[0].value.id
                body += self._peeled(s, pf, peel.pop(pf))
                continue
            # (scalars this pass made for an inner loop, such as `_j0 = 0`, have no type yet)
            if isinstance(s, A.Assign) and (_is_int_scalar(self.ctx, s.value) or self._made_here(s)):
                scalars[s.target] = s.value
            if self._movable(s, loop, assigned, scalars):
                pre = self.names.fresh("_pf")
                self.prefetched.add(pre)
                first = self._region_at(s.value.src, scalars, loop.var, loop.start)
                nxt = self._region_at(s.value.src, scalars, loop.var, binary("+", A.Name(loop.var), loop.step))
                if not (A.names_in(loop.stop) & assigned):
                    nxt = self._empty_past_end(*nxt, loop.stop, step > 0)
                load = s.value
                if s.target in self.prefetched and self._own_queue(s.value.out):
                    # an inner loop's first tile: from a queue of its own, its inner loop peeled
                    load = replace(load, out=self.new_queues[-1].name)
                    current = self.names.fresh("_first")
                    peel[s.target] = current
                    body.append(A.Assign(current, A.Name(pre)))
                else:
                    body.append(A.Assign(s.target, A.Name(pre)))
                before += first[0] + [A.Assign(pre, replace(load, src=first[1]))]
                load_next = nxt[0] + [A.Assign(pre, replace(load, src=nxt[1]))]
                if _read_later(loop.body, s.target):
                    deferred[s.target] = load_next
                else:
                    body += load_next
                after.append(A.Free(pre))
                continue
            body.append(s)
            # A one-value tile's next load goes after this one's read (and free): the scalar unit's
            # wait for the read is a flag that waits for every copy issued before it on MTE2
            # (docs/simulator.md, "Events"), the next index's copy and its latency included.
            if isinstance(s, A.Free) and s.name in deferred:
                body += deferred.pop(s.name)
        for rest in deferred.values():
            body += rest
        if not before:
            return [loop]
        self.ctx.notes.append(f"prefetch: {loop_name(loop, self.ctx)} loads {len(after)} tile(s) one iteration ahead")
        return before + [replace(loop, body=tuple(body))] + after

    def _own_queue(self, queue: str) -> bool:
        """A queue of two slots, like ``queue``, for an inner loop's first tile prefetched one outer
        iteration ahead, if the UB and the 8 queues per position leave room. With a queue of its
        own, every queue loads one tile name, so each tile's ``DeQue`` can wait until its first use
        (a third slot in the inner loop's queue mixes two names: a ``DeQue``, which pops the oldest
        tile, must then follow each copy at once)."""
        if not self._room_for_own_queue(queue):
            return False
        self.ub_free -= 2 * self.slot_bytes[queue]
        self.new_queues.append(replace(self.decls[queue], name=self.names.fresh("qfirst"), depth=2))
        return True

    def _peeled(self, inner: A.For, pf: str, current: str) -> list:
        """``inner`` (its tiles prefetched as ``pf``) with its first iteration taken from ``current``:

            <the second tile's load into pf>
            for j in range(start, minimum(start + step, stop), step):   # at most once
                t = current; <the body without the load of the next tile and without free(t)>
            free(current)
            for j in range(start + step, stop, step):
                <the body>

        ``current``'s free follows the first loop, so it is freed when that loop runs no time too."""
        alias = inner.body[0].target
        at_load = next(i for i, s in enumerate(inner.body)
                       if isinstance(s, A.Assign) and s.target == pf and isinstance(s.value, A.Load))
        second = binary("+", inner.start, inner.step)
        renamed: dict[str, str] = {}
        prologue = []
        for s in inner.body[1:at_load + 1]:        # the next tile's load at j = start: the tile at start + step
            if not isinstance(s, A.Assign):
                continue
            def moved(n):
                return inner.start if n.id == inner.var else A.Name(renamed[n.id]) if n.id in renamed else n
            value = replace(s.value, src=map_names(s.value.src, moved)) if isinstance(s.value, A.Load) \
                else map_names(s.value, moved)
            if s.target == pf:
                prologue.append(A.Assign(pf, value))
            elif s.target in self.made:
                renamed[s.target] = self.names.fresh(f"_{s.target.lstrip('_')}")
                self.made.add(renamed[s.target])
                prologue.append(A.Assign(renamed[s.target], value))
        # a copy: a statement is one node in one place (the checker's facts are keyed by node)
        first_body = [A.Assign(alias, A.Name(current))] + \
            [copy.deepcopy(s) for i, s in enumerate(inner.body) if i > 0 and i != at_load
             and not (isinstance(s, A.Free) and s.name == alias)]
        first = replace(inner, stop=call("minimum", second, inner.stop), body=tuple(first_body))
        rest = replace(inner, start=second)
        self.ctx.notes.append(f"prefetch: the first iteration of the loop over {inner.var} is peeled: its tile comes "
                              f"from a queue of its own, loaded one outer iteration ahead")
        return prologue + [first, A.Free(current), rest]

    def _made_here(self, s: A.Assign) -> bool:
        """An integer scalar this pass introduced for an inner prefetch (a literal or name arithmetic)."""
        return s.target in self.made and all(isinstance(n, (A.Name, A.Int, A.Binary)) for n in A.walk(s.value))

    def _region_at(self, src, scalars: dict, var: str, value):
        """Statements computing the body scalars ``src`` needs with ``var`` = ``value``, and ``src`` then.

        The scalars get fresh names (so ``r:r + RB`` keeps its shape and the checker still sees a
        constant extent); ``var`` itself becomes a fresh name bound to ``value``.
        """
        renamed = {var: self.names.fresh(f"_{var}")}
        self.made.add(renamed[var])
        stmts = [A.Assign(renamed[var], value)]
        needed = A.names_in(src)
        for name in reversed(list(scalars)):          # close over the scalars the region uses
            if name in needed:
                needed |= A.names_in(scalars[name])
        for name, definition in scalars.items():
            if name in needed:
                renamed[name] = self.names.fresh(f"_{name}")
                self.made.add(renamed[name])
                stmts.append(A.Assign(renamed[name], map_names(definition, lambda n: A.Name(renamed[n.id])
                                                                 if n.id in renamed else n)))
        moved = map_names(src, lambda n: A.Name(renamed[n.id]) if n.id in renamed else n)
        return stmts, self._clamp_indices(moved, set(renamed.values()))

    def _empty_past_end(self, stmts: list, src, stop, up: bool):
        """The next iteration's region made empty when there is no next iteration: its first slice
        ``a:a + E`` moved to the tensor's end (``a + past * (D - a) : ... + E``, past = 1 once the
        loop variable's next value reaches ``stop``, from below when ``up``, else from above; the stop
        keeps its form at the moved start: ``r:minimum(r + RB, e)`` is ``m:minimum(m + RB, e)``).
        Otherwise a core's last iteration would copy in the first tile of the next core's share, HBM
        bytes read and never used; at a row's end the region is clamped away already. A region of
        integer indices only stays (one element, clamped)."""
        if not isinstance(src, A.Index):
            return stmts, src
        dims = self.ctx.tensor(src.base.id).dims
        nxt = stmts[0].target                       # the loop variable's next value
        if up and any(isinstance(sub, A.Slice) and sub.start == A.Name(nxt) and stop == dim_expr(dim)
                      for sub, dim in zip(src.subscripts, dims)):
            return stmts, src                       # x[b, j:j + T] over range(0, N, T): past N already
        for axis, (sub, dim) in enumerate(zip(src.subscripts, dims)):
            if not isinstance(sub, A.Slice):
                continue
            start = sub.start if sub.start is not None else A.Int(0)
            stop_at = sub.stop if sub.stop is not None else dim_expr(dim)
            extent = bounded_difference(start, stop_at)
            if extent is None or any(isinstance(n, A.Call) for n in A.walk(extent)):
                continue
            # the slice at the moved start keeps its stop's form: r:minimum(r + RB, e) becomes
            # m:minimum(m + RB, e) (m:m + RB would read past e, the rows of the next core's share)
            if not isinstance(start, A.Name) and any(isinstance(n, A.Call) for n in A.walk(stop_at)):
                continue
            past, moved = self.names.fresh("_past"), self.names.fresh("_from")
            self.made |= {past, moved}
            # the next value reached the stop: at or past it counting up, at or below it counting down
            ahead = (A.Name(nxt), copy.deepcopy(stop)) if up else (copy.deepcopy(stop), A.Name(nxt))
            over = binary("+", binary("-", *ahead), A.Int(1))
            stmts = stmts + [A.Assign(past, call("minimum", call("maximum", over, A.Int(0)), A.Int(1))),
                             # the axis's end when past (a start counting down may be below 0)
                             A.Assign(moved, binary("+", start, binary(
                                 "*", A.Name(past), binary("-", dim_expr(dim), copy.deepcopy(start)))))]
            subs = list(src.subscripts)
            new_stop = map_names(copy.deepcopy(stop_at), lambda n: A.Name(moved) if n.id == start.id else n) \
                if isinstance(start, A.Name) else binary("+", A.Name(moved), copy.deepcopy(extent))
            subs[axis] = replace(sub, start=A.Name(moved), stop=new_stop)
            return stmts, replace(src, subscripts=tuple(subs))
        return stmts, src

    def _clamp_indices(self, src, moved: set):
        """Integer indices of a prefetched region stay in range (one iteration past the end they
        would not): ``minimum(i, dim - 1)``, at worst a tile read and not used. Slices clamp anyway."""
        if not isinstance(src, A.Index):
            return src
        dims = self.ctx.tensor(src.base.id).dims
        subs = tuple(x if isinstance(x, A.Slice) or not (A.names_in(x) & moved) else
                     call("minimum", x, binary("-", dim_expr(d), A.Int(1)))
                     for x, d in zip(src.subscripts, dims))
        return replace(src, subscripts=subs + tuple(src.subscripts[len(subs):]))

    def _empty_axis(self, src) -> bool:
        """Whether an axis ``src`` indexes with an integer is empty at some shape set (a group task's
        empty tensor): the prefetch before the loop would index it at ``dim - 1 = -1`` even when the
        loop runs no time, so such a load stays where it is."""
        if not isinstance(src, A.Index):
            return False
        dims = self.ctx.tensor(src.base.id).dims
        axes = [d for sub, d in zip(src.subscripts, dims) if not isinstance(sub, A.Slice)]
        return any((d if isinstance(d, int) else env.get(d)) == 0 for d in axes for env in self.ctx.envs())

    def _vecin_slots(self) -> int:
        return sum(self.depth.get(n, b.depth) for n, b in self.decls.items() if b.type.space == "vecin") + \
            sum(b.depth for b in self.new_queues)

    def _room_for_own_queue(self, queue: str) -> bool:
        return self.decls[queue].depth == 2 and self._vecin_slots() + 2 <= 8 and \
            2 * self.slot_bytes[queue] <= self.ub_free

    def _third_slot(self, queue: str) -> bool:
        """An inner loop's prologue load moved one outer iteration ahead: its queue then holds the
        next outer tile, the current tile and the inner prefetch at once, so it needs 3 slots."""
        if self.depth.get(queue, 0) >= 3:
            return True
        decl = self.decls[queue]
        if decl.depth != 2 or self._vecin_slots() + 1 > 8 or self.slot_bytes[queue] > self.ub_free:
            return False
        self.ub_free -= self.slot_bytes[queue]
        self.depth[queue] = 3
        return True

    def _peelable(self, stmts, pf: str) -> bool:
        """Whether ``pf``, an inner loop's prefetched tile, is that loop's only one and its first
        statement's (``t = pf``): the loop whose first iteration takes it from a queue of its own."""
        for s in stmts:
            if isinstance(s, A.For) and any(isinstance(x, A.Assign) and x.value == A.Name(pf) for x in s.body):
                aliases = [x for x in s.body if isinstance(x, A.Assign) and isinstance(x.value, A.Name)
                           and x.value.id in self.prefetched]
                return len(aliases) == 1 and s.body[0] is aliases[0]
        return False

    def _movable(self, s, loop, assigned, scalars) -> bool:
        if not (isinstance(s, A.Assign) and isinstance(s.value, A.Load) and s.value.out in self.queues):
            return False
        src = s.value.src
        base = src.base if isinstance(src, A.Index) else src
        if not (isinstance(base, A.Name) and base.id in self.inputs):
            return False
        if not any(isinstance(f, A.Free) and f.name == s.target for f in loop.body):
            return False
        if s.target in self.prefetched and not (self._peelable(loop.body, s.target) and (
                self._room_for_own_queue(s.value.out) or self._third_slot(s.value.out))):
            return False
        def closure(e) -> set:
            names = A.names_in(e)
            for name in reversed(list(scalars)):
                if name in names:
                    names |= A.names_in(scalars[name])
            return names
        if self._empty_axis(src):
            return False
        names = closure(src)
        # an index read from a tile (x[b, idx[b - b0]]): one iteration ahead, that element may not exist
        reads_tile = any(isinstance(n, A.Index) for x in [src, *(scalars[n] for n in names if n in scalars)]
                         for n in A.walk(x) if n is not src)
        return not ((names - set(scalars)) & assigned) and loop.var in names and not reads_tile


def _read_later(stmts, name: str) -> bool:
    """Whether a top-level statement reads the one-value tile ``name`` with ``GetValue`` and
    another frees it (where its next load then goes)."""
    read = any(_is_read(s) and isinstance(s.value.args[0], A.Name) and s.value.args[0].id == name for s in stmts)
    return read and any(isinstance(s, A.Free) and s.name == name for s in stmts)


def _known_step(ctx, loop: A.For) -> int:
    """The loop's step if it is a known constant (its sign says which way the next value passes
    the stop), else 0."""
    t = ctx.type_of(loop.step)
    value = loop.step.value if isinstance(loop.step, A.Int) else getattr(t, "value", None)
    return value if isinstance(value, int) else 0


def _sink_reads(stmts: list) -> list:
    """Move each ``x = GetValue(v)`` of a loaded one-value tile (with its ``free(v)``) down to just
    before the first statement that uses ``x``: the scalar unit waits for the copy there, after
    issuing the work in between, instead of right after issuing the copy. It never moves past a
    statement that names ``v`` or ``x``, or places a tile in ``v``'s buffer (which could need its slot)."""
    homes = {s.target: s.value.out for s in stmts if isinstance(s, A.Assign) and isinstance(s.value, A.Load)}
    out = list(stmts)
    i = 0
    while i < len(out):
        s = out[i]
        v = s.value.args[0].id if isinstance(s, A.Assign) and isinstance(s.value, A.Call) and \
            s.value.func == "GetValue" and isinstance(s.value.args[0], A.Name) else None
        if v is None or v not in homes:
            i += 1
            continue
        moved = [s] + ([out[i + 1]] if i + 1 < len(out) and isinstance(out[i + 1], A.Free)
                       and out[i + 1].name == v else [])
        j = k = i + len(moved)
        # Stops at another one-value read too: two reads passing each other would swap forever.
        while k < len(out) and not ({s.target, v} & _mentions(out[k])) and not _places_in(out[k], homes[v]) \
                and not _is_read(out[k]):
            k += 1
        if k == j:
            i += 1
            continue
        out[i:k] = out[j:k] + moved   # out[i] is now another statement: look at it next
    return out


def _is_read(s) -> bool:
    """``x = GetValue(v)``: the scalar read of a one-value tile."""
    return isinstance(s, A.Assign) and isinstance(s.value, A.Call) and s.value.func == "GetValue"


def _mentions(s) -> set:
    """Every name a statement mentions: uses, assignment targets, loop variables, frees."""
    found = set()
    for n in A.walk(s):
        if isinstance(n, A.Name):
            found.add(n.id)
        elif isinstance(n, A.Assign):
            found.add(n.target)
        elif isinstance(n, A.For):
            found.add(n.var)
        elif isinstance(n, A.Free):
            found.add(n.name)
    return found


def _places_in(s, buffer: str | None) -> bool:
    """Does ``s`` (or a statement nested in it) put a tile into ``buffer``?"""
    for n in A.walk(s):
        out = n.out if isinstance(n, A.Load) else n.kwarg("out").id \
            if isinstance(n, A.Call) and n.kwarg("out") is not None else None
        if out is not None and out == buffer:
            return True
    return False


def _has_scalar_reduction(stmts) -> bool:
    """Does the loop body itself (not a nested loop) wait for a vector result on the scalar unit?"""
    from ascendcraft.dsl.ops import OPS
    return any(isinstance(n, A.Call) and n.func in OPS and OPS[n.func].form in ("reduce", "rowreduce", "getvalue")
               for s in stmts if not isinstance(s, (A.For, A.ParallelFor)) for n in A.walk(s))


def _is_int_scalar(ctx, e) -> bool:
    from ascendcraft.dsl.types import TScalar
    t = ctx.type_of(e)
    return isinstance(t, TScalar) and t.is_int
