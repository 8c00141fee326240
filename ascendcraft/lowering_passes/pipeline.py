"""Pipeline: loaded and stored tiles move through double-buffered queues.

Before (every tile in a TBuf)::

    for j in range(0, N, T):
        t = load(x[b, j:j + T], out=b0)
        _t1 = Muls(t, r, out=b1)
        store(y[b, j:j + T], _t1)

After::

    buffer qin0: vecin f32[_n0] * 2
    buffer qout0: vecout f32[_n1] * 2
    ...
    for j in range(0, N, T):
        t = load(x[b, j:j + T], out=qin0)        # CopyIn: AllocTensor, DataCopy, EnQue
        _t1 = Muls(t, r, out=qout0)             # Compute: DeQue, op, EnQue
        free(t)                                 # FreeTensor after the last use
        store(y[b, j:j + T], _t1)               # CopyOut: DeQue, DataCopy
        free(_t1)

With two slots per queue, the copy-in of tile j+1 overlaps the compute of tile j and the
copy-out of tile j-1 (the queues carry the MTE2 -> V -> MTE3 dependencies). A tile qualifies
when it is inside a loop, is assigned once and all its uses are in the block that loads (or
stores) it. Depth 2 is used while the UB, the 8-buffers-per-position limit and the 64-buffer
limit allow it, then depth 1, else the tile stays in its TBuf (synchronised with flags by the
emitter).

Establishes: CopyIn/Compute/CopyOut stages with double buffering; every queue slot is freed.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from ascendcraft import dtypes as D
from ascendcraft.dsl import ast as A
from ascendcraft.dsl.check_lowered import SCALAR_RESERVE
from ascendcraft.dsl.symbols import evaluate

from .base import LoweringPass, Names
from .bufferize import aligned_elems, region_extents, tile_value, with_out, work_buffers


@dataclass(frozen=True)
class Pipeline(LoweringPass):
    name: str = "pipeline"
    establishes: tuple[str, ...] = ("loads and stores go through vecin/vecout queues with double buffering",
                                    "every queue slot is freed after its last use")

    def run(self, kernel: A.Kernel, ctx) -> A.Kernel:
        return _Pipeliner(kernel, ctx).run()


class _Pipeliner:
    def __init__(self, kernel, ctx):
        self.k, self.ctx, self.names = kernel, ctx, Names(kernel)
        self.buffers = {s.name: s for s in kernel.body if isinstance(s, A.Buffer)}
        self.values = const_values(kernel, {**ctx.checked.binding.attrs, **ctx.checked.binding.dims},
                                   ctx.checked.cores)
        # the UB in use at every shape set the kernel runs at (real first): a queue must fit at each
        self.budgets = shape_set_values(kernel, ctx)
        self.used = [buffers_bytes(self.buffers.values(), v) for v in self.budgets]
        self.count = {"vecin": 0, "vecout": 0, "all": sum(b.depth for b in self.buffers.values())}
        self.defs: dict[str, int] = {}
        self.uses: dict[str, int] = {}
        for n in A.walk(kernel):
            if isinstance(n, A.Assign):
                self.defs[n.target] = self.defs.get(n.target, 0) + 1
            if isinstance(n, A.Name):
                self.uses[n.id] = self.uses.get(n.id, 0) + 1
        self.queues: list[A.Buffer] = []
        self.candidates: list[tuple] = []        # (loop depth, bytes, tile, position, TBuf, GM region, line)
        self.chosen: dict[str, str] | None = None
        # tiles placed in each TBuf: a TBuf whose only tile moves to a queue gives its bytes back
        self.occupants: dict[str, int] = {}
        for n in A.walk(kernel):
            out = n.out if isinstance(n, A.Load) else n.kwarg("out").id \
                if isinstance(n, A.Call) and n.kwarg("out") is not None else None
            if out is not None:
                self.occupants[out] = self.occupants.get(out, 0) + 1

    def _region_bytes(self, region, dtype: str) -> int:
        """Bytes a copy of ``region`` moves at the op's real shapes (what a queue would carry)."""
        try:
            return evaluate(aligned_elems(region_extents(region, self.ctx), dtype), self.values) * \
                D.ITEMSIZE[dtype]
        except (KeyError, TypeError):
            return 0

    def run(self) -> A.Kernel:
        self._block(self.k.body)      # collect candidates
        self._choose()
        body = self._block(self.k.body)
        still_used = set().union(*(A.names_in(s) for s in body)) | \
            {n.out for s in body for n in A.walk(s) if isinstance(n, A.Load) and n.out} | \
            set(work_buffers(self.k).values())    # bufferize's work areas: the emitter uses them
        body = [s for s in body if not (isinstance(s, A.Buffer) and s.name not in still_used)]
        decl = (A.Buffer, A.Const, A.Scratch, A.View)
        cut = max(i for i, s in enumerate(body) if isinstance(s, decl) and all(isinstance(x, decl) for x in body[:i + 1])) + 1
        return replace(self.k, body=tuple(body[:cut]) + tuple(self.queues) + tuple(body[cut:]))

    def _queue(self, position: str, buf: str, region=None) -> str | None:
        """A new queue shaped like TBuf ``buf``, or like the GM region the tile is loaded from or
        stored to, which may be much smaller than the TBuf it shared (a one-value store): depth 2
        if it fits, else 1, else None."""
        decl = self.buffers[buf]
        size_const = None
        if region is not None:
            size = aligned_elems(region_extents(region, self.ctx), decl.type.dtype)
            size_const = self.names.fresh("_n")
            self.values[size_const] = evaluate(size, self.values)
            for v in self.budgets:
                v[size_const] = evaluate(size, v)
            slot_type = replace(decl.type, shape=(size_const,))
        else:
            slot_type = decl.type
        # a TBuf whose only tile moves to the queue will be unused: its bytes and slot come back
        freed = self.occupants.get(buf) == 1
        freed_slots = decl.depth if freed else 0
        freed_bytes = [slot_bytes(decl.type, v) * decl.depth if freed else 0 for v in self.budgets]
        room = self.ctx.chip.capacity("ub") - SCALAR_RESERVE
        for depth in (2, 1):
            extra = [slot_bytes(slot_type, v) * depth for v in self.budgets]
            if self.count[position] + depth <= 8 and self.count["all"] - freed_slots + depth <= 64 and \
                    all(u - f + e <= room for u, f, e in zip(self.used, freed_bytes, extra)):
                if freed_slots:
                    self.occupants[buf] = 0
                self.used = [u - f + e for u, f, e in zip(self.used, freed_bytes, extra)]
                self.count[position] += depth
                self.count["all"] += depth - freed_slots
                name = self.names.fresh("qin" if position == "vecin" else "qout")
                if size_const is not None:
                    self.queues.append(A.Const(size_const, size))
                self.queues.append(A.Buffer(name, replace(slot_type, space=position), depth))
                return name
        return None

    def _block(self, stmts, depth: int = 0) -> list:
        """Collect queue candidates (first walk), or place the chosen ones in queues (second walk)."""
        stmts = [replace(s, body=tuple(self._block(s.body, depth + isinstance(s, A.For))))
                 if isinstance(s, (A.For, A.ParallelFor)) else s for s in stmts]
        frees: dict[int, list[str]] = {}
        out = list(stmts)
        uses = _uses_by_statement(stmts)
        for i, s in enumerate(stmts):
            if not (isinstance(s, A.Assign) and tile_value(s.value) and self.defs.get(s.target) == 1):
                continue
            last = self._last_use_in_block(s.target, uses, i)
            if last is None:
                continue
            stored = isinstance(stmts[last], A.Store) and isinstance(stmts[last].value, A.Name) \
                and stmts[last].value.id == s.target
            if isinstance(s.value, A.Load):
                position = "vecin"
            elif stored:
                position = "vecout"
            else:
                continue
            buf = s.value.out if isinstance(s.value, A.Load) else s.value.kwarg("out").id
            if depth == 0:
                continue   # copied once per core: a queue would only take a slot a loop could use
            if self.chosen is None:
                region = s.value.src if isinstance(s.value, A.Load) else stmts[last].dst
                self.candidates.append((depth, self._region_bytes(region, self.buffers[buf].type.dtype), s.target,
                                        position, buf, region, s.span.line if s.span is not None else None))
                continue
            q = self.chosen.get(s.target)
            if q is None:
                continue
            out[i] = replace(s, value=with_out(s.value, q))
            frees.setdefault(last, []).append(s.target)
        result = []
        for i, s in enumerate(out):
            result.append(s)
            result += [A.Free(n) for n in frees.get(i, [])]
        return result

    def _choose(self):
        """Queues go first to tiles in the most deeply nested loops, then to the biggest copies:
        those move the most data, while a one-element load outside the hot loop gains nothing."""
        self.chosen = {}
        for _, _, target, position, buf, region, line in sorted(self.candidates, key=lambda c: (-c[0], -c[1])):
            q = self._queue(position, buf, region)
            if q is not None:
                self.chosen[target] = q
            elif line is not None:      # no room: the copy stays in its work buffer, unoverlapped
                self.ctx.unqueued.append(line)

    def _last_use_in_block(self, name: str, uses: dict, i: int) -> int | None:
        """Index of the last statement of the block after ``i`` using ``name``, if every use is in
        the block after ``i`` (``uses``: :func:`_uses_by_statement` of the block)."""
        after = [(j, k) for j, k in uses.get(name, ()) if j > i]
        if not after or sum(k for _, k in after) != self.uses.get(name, 0):
            return None
        return after[-1][0]


def _uses_by_statement(stmts) -> dict[str, list[tuple[int, int]]]:
    """Per name, ``(statement index, uses in it)`` in order: one walk of the block, so finding each
    tile's last use stays linear in the block's length."""
    uses: dict[str, list[tuple[int, int]]] = {}
    for j, s in enumerate(stmts):
        for name, k in A.name_counts(s).items():
            uses.setdefault(name, []).append((j, k))
    return uses


def shape_set_values(kernel: A.Kernel, ctx) -> list[dict]:
    """The kernel's constants, dims and attributes at every shape set it runs at, the real shapes
    first: buffers must fit the UB at each (:func:`const_values`)."""
    return [const_values(kernel, env, ctx.checked.cores) for env in ctx.envs()]


def buffers_bytes(buffers, values: dict) -> int:
    """UB bytes of ``buffers`` (declarations) with every slot, at ``values``."""
    return sum(slot_bytes(b.type, values) * b.depth for b in buffers)


def slot_bytes(t: A.TensorType, values: dict) -> int:
    """UB bytes of one slot of a buffer of type ``t`` (rounded up to 32 bytes, as InitBuffer does)."""
    n = D.ITEMSIZE[t.dtype]
    for d in t.shape:
        n *= values[d] if isinstance(d, str) else d
    return -(-n // 32) * 32


def const_values(kernel: A.Kernel, dims: dict, cores: int) -> dict:
    """Values of the kernel's top-level constants given dims and attributes (integer arithmetic only)."""
    env = dict(dims)
    env["CORES"] = cores
    for s in kernel.body:
        if isinstance(s, A.Const):
            try:
                env[s.name] = evaluate(s.value, env)
            except (KeyError, TypeError):
                pass
    return env
