"""Hoist: one-value loads in loops read from tiles loaded once, whole or a block at a time.

A one-value load in a loop (a channel's bias, a row's index) is a GM copy whose value the
scalar unit must wait for before the iteration can go on: every iteration pays the GM read
latency, and since the scalar unit's wait for a copy waits for every copy issued before it on
MTE2, the next tile's copy-in cannot run ahead of it either. When nothing writes the tensor in
the phase (a kernel input, or scratch written in an earlier phase), the values come from UB:

* a tensor of one or two axes, at most ``WHOLE_BYTES`` at every shape set, is loaded whole at
  the top of the parallel loop and each read takes its element (``b = _w0[c]``);
* a larger one, read at the loop's own variable (``idx[k]``, or ``idx[r, k]`` with ``r`` fixed in
  the loop, or the tensor's every axis at the variables the parallel loop unpacks from its flat
  index: ``idx[b, s]`` with ``b = f0 // S; s = f0 % S``, read through a flat view), is loaded
  ``BLOCK_BYTES`` at a time: the loop becomes a loop over blocks, each loading the block of values
  its iterations read, around the original loop over the block.

Before::

    for core0 in parallel(CORES):
        for f0 in range(lo, hi):
            c = f0 % C
            b = load(bias[c])
            d = load(indices[f0])
            ...

After::

    for core0 in parallel(CORES):
        _w0 = load(bias[0:C])
        for _kb0 in range(lo, hi, 256):
            _k0 = load(indices[_kb0:_kb0 + 256])
            for f0 in range(_kb0, minimum(_kb0 + 256, hi)):
                c = f0 % C
                b = _w0[c]
                d = _k0[f0 - _kb0]
                ...

The index is the same and so is its range: an index outside the tensor is refused by the element
read as it was by the load. A core reads at most ``WHOLE_BYTES`` it does not use (the whole small
tensor; from L2 after the first core), or the rest of its last block.

Establishes: no one-value load, inside a loop, of a tensor the phase does not write, where the
value can come from a whole tile or from a block loaded for the loop.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from ascendcraft import dtypes as D
from ascendcraft.dsl import ast as A
from ascendcraft.dsl.symbols import evaluate

from .base import LoweringPass, Names, binary, call, dim_expr
from .partition import unpacked

#: the largest tensor loaded whole (at every shape set): small next to the 192 KiB UB, so the tile
#: leaves the kernel's own tiles their room, and read once per core
WHOLE_BYTES = 8192
#: the bytes of values a block loads for a loop (256 i64 indices)
BLOCK_BYTES = 2048
#: element reads the scalar unit does of these types (GetValue of a UB tile)
_SCALAR_DTYPES = ("f16", "f32", "i32", "i64")


@dataclass(frozen=True)
class Hoist(LoweringPass):
    name: str = "hoist"
    establishes: tuple[str, ...] = ("no one-value load in a loop of a tensor the phase does not write, where a "
                                    "whole tile or a block loaded for the loop can hold its values",)

    def run(self, kernel: A.Kernel, ctx) -> A.Kernel:
        tensors = [p.name for p in kernel.inputs if isinstance(p.type, A.TensorType)] + \
            [s.name for s in kernel.body if isinstance(s, A.Scratch)]
        names, decls, flat, body = Names(kernel), [], {}, []
        for s in kernel.body:
            if isinstance(s, A.ParallelFor):
                written = {ctx.symbols.root(_base(n.dst)) for n in A.walk(s) if isinstance(n, A.Store)}
                readable = {t for t in tensors if t not in written and ctx.tensor(t).dtype in _SCALAR_DTYPES}
                phase = _Phase(readable, names, ctx, flat)
                s = phase.rewrite(s)
                decls += phase.decls
            body.append(s)
        if not decls:
            return replace(kernel, body=tuple(body))
        # the flat views need only their tensor's dims (and their own size constant): before the first
        # statement that is not a declaration, so before every phase that reads through them
        cut = next((i for i, s in enumerate(body) if not isinstance(s, (A.Const, A.View, A.Scratch))), len(body))
        return replace(kernel, body=tuple(body[:cut]) + tuple(decls) + tuple(body[cut:]))


class _Phase:
    """One parallel loop: its one-value loads inside loops, read from whole tiles or blocks."""

    def __init__(self, readable: set, names: Names, ctx, flat: dict):
        self.names, self.ctx = names, ctx
        self.whole_ok = {t for t in readable if 1 <= len(ctx.tensor(t).dims) <= 2 and _fits(ctx.tensor(t), ctx.envs())}
        self.readable = readable
        self.whole: dict[str, str] = {}       # tensor -> the tile holding it
        self.flat = flat                      # tensor -> its flat view (blocks read at a flat index), every phase's
        self.decls: list = []                 # the declarations of the views this phase made
        self.hoisted: list[tuple] = []        # (tensor, values per block), for the note

    def rewrite(self, phase: A.ParallelFor) -> A.ParallelFor:
        body = tuple(self._stmt(s, None) for s in phase.body)
        if not (self.whole or self.hoisted):
            return phase
        loads = tuple(A.Assign(tile, A.Load(A.Index(A.Name(t), tuple(
            A.Slice(A.Int(0), dim_expr(d)) for d in self.ctx.tensor(t).dims)), span=phase.span), span=phase.span)
            for t, tile in self.whole.items())
        if self.whole:
            self.ctx.notes.append(f"{', '.join(self.whole)} loaded whole once per core, not one value per iteration")
        for t, n in self.hoisted:
            self.ctx.notes.append(f"{t} read in blocks of {n} values, not one value per iteration")
        return replace(phase, body=loads + body)

    def _stmt(self, s, loop: A.For | None):
        if isinstance(s, A.For):
            return self._loop(replace(s, body=tuple(self._stmt(b, s) for b in s.body)))
        if loop is not None and isinstance(s, A.Assign) and _one_value(s.value, self.whole_ok):
            t = s.value.src.base.id
            if t not in self.whole:
                self.whole[t] = self.names.fresh("_w")
            return replace(s, value=A.Index(A.Name(self.whole[t]), s.value.src.subscripts, span=s.value.span))
        return s

    def _loop(self, loop: A.For):
        """``loop`` over blocks of the values its one-value loads read at its own variable, if any."""
        if not (isinstance(loop.step, A.Int) and loop.step.value == 1):
            return loop
        defs: dict = {}          # every name the loop assigns (its loops' variables too), with its values
        for n in A.walk(loop):
            if isinstance(n, A.Assign):
                defs.setdefault(n.target, []).append(n.value)
            elif isinstance(n, A.For):
                defs.setdefault(n.var, []).append(None)
        blocked: dict[str, tuple] = {}     # tensor -> (fixed subscripts, read through its flat view)
        reads: dict[int, str] = {}         # statement of the loop's body -> the tensor its block holds
        for i, s in enumerate(loop.body):
            if isinstance(s, A.Assign) and _one_value(s.value, self.readable):
                t = s.value.src.base.id
                at = self._at_loop_variable(s.value.src, loop, defs)
                if at is not None and blocked.setdefault(t, at) == at:
                    reads[i] = t
        if not reads:
            return loop
        kb = self.names.fresh("_kb")
        tiles = {t: self.names.fresh("_k") for t in blocked}
        step = min(BLOCK_BYTES // D.ITEMSIZE[self.ctx.tensor(t).dtype] for t in blocked)
        loads = []
        for t, (fixed, flat) in blocked.items():
            source = self._flat_view(t) if flat else t
            region = A.Index(A.Name(source), fixed + (A.Slice(A.Name(kb), binary("+", A.Name(kb), A.Int(step))),))
            loads.append(A.Assign(tiles[t], A.Load(region, span=loop.span), span=loop.span))
            self.hoisted.append((t, step))
        element = binary("-", A.Name(loop.var), A.Name(kb))
        body = tuple(replace(s, value=A.Index(A.Name(tiles[reads[i]]), (element,), span=s.value.span))
                     if i in reads else s for i, s in enumerate(loop.body))
        inner = replace(loop, start=A.Name(kb), stop=call("minimum", binary("+", A.Name(kb), A.Int(step)), loop.stop),
                        body=body)
        return A.For(kb, loop.start, loop.stop, A.Int(step), tuple(loads) + (inner,), loop.span)

    def _at_loop_variable(self, src: A.Index, loop: A.For, defs: dict):
        """How a block holding ``src`` (a one-value region) at ``k - kb``, for the loop's variable ``k``,
        is loaded: ``(fixed subscripts, False)`` for ``tensor[fixed..., kb:kb + n]``, ``((), True)`` for
        ``flat_view[kb:kb + n]``; None if the element is not read so. ``defs``: what the loop assigns."""
        t, subs, k = src.base.id, src.subscripts, loop.var
        if isinstance(subs[-1], A.Name) and subs[-1].id == k and \
                not any(A.names_in(e) & (set(defs) | {k}) for e in subs[:-1]):
            return tuple(subs[:-1]), False
        return ((), True) if self._unpacked(t, subs, loop, defs) else None

    def _flat_view(self, t: str) -> str:
        """A one-axis view of tensor ``t``, declared once for every phase."""
        if t not in self.flat:
            size, self.flat[t] = self.names.fresh("_n"), self.names.fresh("_flat")
            dims = [dim_expr(d) for d in self.ctx.tensor(t).dims]
            total = dims[0]
            for d in dims[1:]:
                total = binary("*", total, d)
            self.decls += [A.Const(size, total), A.View(self.flat[t], t, (size,))]
        return self.flat[t]

    def _unpacked(self, t: str, subs, loop: A.For, defs: dict) -> bool:
        """The subscripts are the variables the loop unpacks from its own (flat) index over extents
        that are the tensor's dims, as partition writes them (``b = f0 // S``, ``s = f0 % S``), each
        assigned nowhere else in the loop: the element's flat offset in the tensor is the loop's variable."""
        dims = [dim_expr(d) for d in self.ctx.tensor(t).dims]
        if len(subs) < 2 or len(subs) != len(dims) or not all(isinstance(e, A.Name) for e in subs):
            return False
        unpack = {s.target: s.value for s in loop.body if isinstance(s, A.Assign)}
        return all(v.id in unpack and defs.get(v.id) == [e] and unpack[v.id] == e
                   for v, e in zip(subs, unpacked(loop.var, dims)))


def _one_value(e, tensors: set) -> bool:
    return isinstance(e, A.Load) and e.pad is None and e.space == "ub" and e.out is None and \
        isinstance(e.src, A.Index) and isinstance(e.src.base, A.Name) and e.src.base.id in tensors and \
        not any(isinstance(sub, A.Slice) for sub in e.src.subscripts)


def _fits(tensor, envs) -> bool:
    """The whole tensor is at most WHOLE_BYTES at every shape set (and not empty at any)."""
    for env in envs:
        try:
            n = 1
            for d in tensor.dims:
                n *= evaluate(dim_expr(d), env)
        except (KeyError, TypeError):
            return False
        if not 0 < n * D.ITEMSIZE[tensor.dtype] <= WHOLE_BYTES:
            return False
    return True


def _base(e) -> str | None:
    while isinstance(e, A.Index):
        e = e.base
    return e.id if isinstance(e, A.Name) else None
