"""Cube: a phase whose products stream their operands (docs/dsl.md, "Streamed products").

A ``matmul`` whose operands are GM regions or vector tiles, not l1 tiles, is a product the cube
computes over all of its K through L1 by itself, and hands to the vector unit whole: attention's
``q @ k^T`` of a row block and ``p @ v`` of its softmaxed scores, one after the other in one
iteration, with loop-carried running values (flash attention's online softmax) between them. No
product here is stored to GM: the scores stay on chip but for a staging copy per core.

Before (one iteration of a row block of attention)::

    for b, h, i in parallel(B, H, cdiv(S, TM)):
        m = i * TM
        t = matmul(q[b, h, m:m + TM, :], k[b, h, 0:TN, :], transpose_b=True)
        p = exp(t - max(t, axis=1, keepdims=True))
        acc = acc * alpha + matmul(p, v[b, h, 0:TN, :])
        ...

After (the iterations dealt to the cores, so each core has its own workspace slot)::

    const _nt0 = B * H * cdiv(S, TM)
    scratch _ws0: f32[CORES, TM, TN]
    for core0 in parallel(CORES):
        _lo0 = ...
        _hi0 = ...
        for _f0 in range(_lo0, _hi0):
            i = _f0 % cdiv(S, TM)
            h = _f0 // cdiv(S, TM) % H
            b = _f0 // cdiv(S, TM) // H
            m = i * TM
            t = Matmul(q[b, h, m:m + TM, :], k[b, h, 0:TN, :], transpose_b=True, base=(TM, TN, <bk>))
            p = exp(t - max(t, axis=1, keepdims=True))
            _p0 = Matmul(p, v[b, h, 0:TN, :], base=(TM, <D aligned>, <bk>), staged=_ws0[core0, :, :])
            acc = acc * alpha + _p0
            ...

Each product is one Matmul API call whose result is one base block in UB (Iterate and
GetTensorC): its rows and columns, rounded up to 16, are the base block, and base K is the
deepest step whose A and B tiles, double-buffered, fit L0A and L0B. A vector-tile operand is
copied to the core's slot of a GM workspace (``staged=``: it stays in L2) for the cube to read:
A2 has no path from the Unified Buffer to L1 but through GM.
"""
from __future__ import annotations

from dataclasses import replace

from ascendcraft.dsl import ast as A
from ascendcraft.dsl.symbols import evaluate
from ascendcraft.dsl.types import TGM, TRegion, TTile
from ascendcraft.dtypes import ITEMSIZE

from .base import Names, binary, call, name
from .bufferize import region_extents
from .cube import _NotGemm
from .pipeline import shape_set_values

#: The form, as a refusal's hint states it (the rules are in docs/dsl.md, "Streamed products").
STREAMED = ("streamed products read GM regions (2-D slices of a tensor's last two axes, each leading axis indexed) "
            "or one ub tile assigned earlier in the phase, and no l1 tiles; a product that vector ops read fits L0C "
            "(rows x columns x 4 bytes <= 128 KiB), a product stored as it is goes to GM in blocks (see \"Streamed "
            "products\" in \"Cube (matmul)\")")

#: Reductions whose ``axis=`` drops (or, with keepdims, keeps as 1) an axis of their operand.
_REDUCTIONS = ("sum", "max", "min", "mean", "prod")


def is_streamed(phase: A.ParallelFor, ctx) -> bool:
    """Whether a product of the phase reads a GM region or a vector tile (the streamed form)."""
    return any(A.is_product(n) and any(not _is_l1(x, ctx) for x in n.args[:2]) for n in A.walk(phase))


def _is_l1(e, ctx) -> bool:
    t = ctx.type_of(e)
    return isinstance(t, TTile) and t.space == "l1"


def streamed_rewrite(phase: A.ParallelFor, kernel: A.Kernel, ctx, names: Names) -> list:
    """The phase with each product a Matmul call into UB, its iterations dealt to the cores."""
    for n in A.walk(phase):
        if A.is_product(n) and any(_is_l1(x, ctx) for x in n.args[:2]):
            raise _NotGemm("a phase whose products read GM regions or ub tiles has no product of l1 tiles "
                           "(write each product of the phase with GM regions or ub tiles)", n)
    core = names.fresh("core")
    chain = _Chain(ctx, names, core, shape_set_values(kernel, ctx))
    chain.written = {ctx.symbols.root(s.dst.base.id if isinstance(s.dst, A.Index) else s.dst.id)
                     for s in A.statements(phase.body) if isinstance(s, A.Store)}
    body = chain.block(phase.body)
    _, decls, dealt = deal(phase, names, core, lambda f, lo, hi: body)
    ctx.notes.append(f"cube: {len(chain.products)} streamed product(s) in one phase, each one Matmul call whose "
                     f"tile the vector unit takes in UB"
                     + (f"; {sum(1 for p in chain.products if p.kwarg('staged') is not None)} ub operand(s) staged "
                        f"through a workspace slot per core in L2" if chain.workspaces else "")
                     + (f"; {chain.ahead} computed an iteration ahead of the vector work" if chain.ahead else "")
                     + (f"; {chain.deferred} started as soon as its operands are and taken at its first use"
                        if chain.deferred else ""))
    return decls + chain.decls + [dealt]


def deal(phase: A.ParallelFor, names: Names, core: str, body_of) -> tuple[str, list, A.ParallelFor]:
    """The phase's iterations in one flat order (its last variable fastest), dealt to the cores in
    balanced contiguous runs, as the partition deals any loop (returns ``_nt0``'s name too)::

        const _nt0 = <iterations>
        for core in parallel(CORES):
            _lo0 = ...
            _hi0 = ...
            for _f0 in range(_lo0, _hi0):
                <the phase's variables from _f0>
                <body_of(_f0, _lo0, _hi0)>
    """
    nt, lo, hi, f = (names.fresh(x) for x in ("_nt", "_lo", "_hi", "_f"))
    total = phase.extents[0]
    for e in phase.extents[1:]:
        total = binary("*", total, e)
    cores = name("CORES")
    per, extra = binary("//", name(nt), cores), binary("%", name(nt), cores)
    unpack: list = []
    rest = name(f)
    for v, e in reversed(list(zip(phase.vars, phase.extents))):
        unpack.append(A.Assign(v, binary("%", rest, e) if v != phase.vars[0] else rest, phase.span))
        rest = binary("//", rest, e)
    loop = A.For(f, name(lo), name(hi), A.Int(1), tuple(unpack) + tuple(body_of(f, lo, hi)), phase.span)
    bounds = [A.Assign(lo, binary("+", binary("*", name(core), per), call("minimum", name(core), extra)), phase.span),
              A.Assign(hi, binary("+", binary("*", binary("+", name(core), A.Int(1)), per),
                                  call("minimum", binary("+", name(core), A.Int(1)), extra)), phase.span)]
    return nt, [A.Const(nt, total, phase.span)], A.ParallelFor((core,), (cores,), tuple(bounds) + (loop,), phase.span)


class _Chain:
    """Rewrites a phase's statements: products taken out of expressions into assignments of their
    own, each a Matmul call; tracks the extents of the tiles a product may read (upper bounds as
    expressions of dims and constants, as the buffers are sized)."""

    def __init__(self, ctx, names: Names, core: str, values: list[dict]):
        self.ctx, self.names, self.core, self.values = ctx, names, core, values
        self.shapes: dict[str, tuple] = {}
        self.products: list = []
        self.workspaces: list = []
        self.decls: list = []      # the workspaces and the constants their extents are
        self.ahead = 0             # products computed an iteration ahead
        self.deferred = 0          # products started early and taken at their first use
        self.written: set[str] = set()   # the tensors the phase stores to

    def block(self, stmts) -> tuple:
        out: list = []
        for s in stmts:
            if isinstance(s, A.For):
                out.append(self._ahead(replace(s, body=self.block(s.body))))
                continue
            if isinstance(s, A.ParallelFor):
                raise _NotGemm("a phase with streamed products holds no parallel loop", s)
            value = s.value if isinstance(s, (A.Assign, A.Store)) else None
            if isinstance(s, A.Assign) and A.is_product(value):
                out.append(self._product(s.target, value, s.span))
                continue
            if isinstance(s, A.Store) and A.is_product(value) and not s.accumulate and self._streams_to(s):
                out.append(replace(s, value=self._call(value, to_gm=True)))
                continue
            shape = self._shape(value) if isinstance(s, A.Assign) else None
            if value is not None:
                s = replace(s, value=self._hoist(value, out, s.span))
            out.append(s)
            if isinstance(s, A.Assign):
                if shape is not None:
                    old = self.shapes.get(s.target)
                    self.shapes[s.target] = shape if old is None or old == shape or len(old) != len(shape) else \
                        tuple(a if a == b else call("maximum", a, b) for a, b in zip(old, shape))
        return self._early(out)

    def _early(self, stmts: list) -> tuple:
        """Each product of a staged ub tile started as soon as its operands are: moved up to just
        after the last statement of the block that assigns a name it reads, and marked ``defer=``
        (the emitter starts it there, Iterate<false> into the core's ``workspace=`` slot, and takes
        it with GetTensorC<false> before the first statement that reads it), so the vector work in
        between runs while the cube computes it. Not past a store (it may write the operands)."""
        out = list(stmts)
        for k in range(len(out)):
            s = out[k]
            if not (isinstance(s, A.Assign) and A.is_product(s.value) and s.value.kwarg("staged") is not None
                    and s.value.kwarg("ahead") is None):
                continue
            reads = A.names_in(s.value)
            at = k
            while at > 0 and not isinstance(out[at - 1], (A.Store, A.For)) and \
                    not (isinstance(out[at - 1], A.Assign) and out[at - 1].target in reads | {s.target}) and \
                    s.target not in A.names_in(out[at - 1]):
                at -= 1
            used = next((j for j in range(k + 1, len(out)) if s.target in A.names_in(out[j])), len(out))
            if at == k and used == k + 1:
                continue        # nothing to overlap the product with
            bm, bn = s.value.kwarg("base").items[:2]
            ws = self.names.fresh("_wd")
            scratch = A.Scratch(ws, A.TensorType("f32", ("CORES", self._dim(binary("*", bm, bn), s.span))), s.span)
            self.workspaces.append(scratch)
            self.decls.append(scratch)
            value = replace(s.value, kwargs=s.value.kwargs + (
                A.Keyword("defer", name("True")),
                A.Keyword("workspace", A.Index(name(ws), (name(self.core), A.Slice(None, None))))))
            self.deferred += 1
            out[at + 1:k + 1] = out[at:k]
            out[at] = replace(s, value=value)
        return tuple(out)

    def _ahead(self, loop: A.For) -> A.For:
        """The loop's first product of GM regions that only the loop variable moves, computed one
        iteration ahead: while the vector unit works on this iteration's tile, the cube computes the
        next one into the core's workspace (``ahead=(n, start, stop, step, next A, next B)``; the
        Matmul API's Iterate<false> and GetTensorC<false>). Not when the phase writes an operand's
        tensor (the next tile would be read before this iteration wrote it)."""
        assigned = {s.target for s in A.statements(loop.body) if isinstance(s, A.Assign)}
        assigned |= {s.var for s in A.statements(loop.body) if isinstance(s, A.For)}
        for k, s in enumerate(loop.body):
            if not (isinstance(s, A.Assign) and A.is_product(s.value)) or s.value.kwarg("staged") is not None:
                continue
            regions = s.value.args[:2]
            moved = set().union(*(A.names_in(r) for r in regions)) & (assigned | {loop.var})
            if moved != {loop.var} or any(self.ctx.symbols.root(x.base.id) in self.written for x in regions):
                continue
            nxt = [A.map_names(r, lambda n: binary("+", n, loop.step) if n.id == loop.var else n) for r in regions]
            bm, bn = s.value.kwarg("base").items[:2]
            size = self._dim(binary("*", bm, bn), s.span)
            ws = self.names.fresh("_wa")
            scratch = A.Scratch(ws, A.TensorType("f32", ("CORES", size)), s.span)
            self.workspaces.append(scratch)
            self.decls.append(scratch)
            ahead = A.Tuple((name(loop.var), loop.start, loop.stop, loop.step, *nxt))
            value = replace(s.value, kwargs=s.value.kwargs + (
                A.Keyword("ahead", ahead), A.Keyword("workspace", A.Index(name(ws), (name(self.core), A.Slice(None, None))))))
            self.ahead += 1
            return replace(loop, body=loop.body[:k] + (replace(s, value=value),) + loop.body[k + 1:])
        return loop

    def _hoist(self, e, out: list, span):
        """``e`` with each product inside it assigned to a fresh name first (appended to ``out``)."""
        if A.is_product(e):
            target = self.names.fresh("_p")
            out.append(self._product(target, e, span))
            return name(target)
        if isinstance(e, A.Binary):
            return replace(e, lhs=self._hoist(e.lhs, out, span), rhs=self._hoist(e.rhs, out, span))
        if isinstance(e, A.Unary):
            return replace(e, operand=self._hoist(e.operand, out, span))
        if isinstance(e, A.Call):
            return replace(e, args=tuple(self._hoist(a, out, span) for a in e.args))
        return e

    # ------------------------------------------------------------ products
    def _product(self, target: str, e: A.Call, span) -> A.Assign:
        self.shapes[target] = self._product_shape(e)
        return A.Assign(target, self._call(e), span)

    def _streams_to(self, s: A.Store) -> bool:
        """Whether the Matmul API can write the stored product straight to C: a 2-D slice of C's last
        two axes (each leading axis indexed), C in memory order with B's column extent (the API
        takes C's row pitch from B)."""
        dst, e = s.dst, s.value
        if not (isinstance(dst, A.Index) and isinstance(dst.base, A.Name)):
            return False
        c = self.ctx.tensor(dst.base.id)
        tb = isinstance(e.kwarg("transpose_b"), A.Name) and e.kwarg("transpose_b").id == "True"
        b = e.args[1]
        if not isinstance(b, A.Index) or c.perm is not None or len(dst.subscripts) != len(c.dims):
            return False
        return (all(isinstance(x, A.Slice) and not x.stepped() for x in dst.subscripts[-2:])
                and not any(isinstance(x, A.Slice) for x in dst.subscripts[:-2])
                and self.ctx.symbols.same(c.dim_expr(-1), self.ctx.tensor(b.base.id).dim_expr(-2 if tb else -1)))

    def _call(self, e: A.Call, to_gm: bool = False) -> A.Call:
        """``Matmul(...)`` of product ``e``: into UB, one base block of the whole product; to GM (a
        store's value), blocks of at most 128 x 256 that the API walks."""
        ta, tb = (isinstance(e.kwarg(f), A.Name) and e.kwarg(f).id == "True" for f in ("transpose_a", "transpose_b"))
        a, b = e.args[:2]
        for x in (a, b):
            if isinstance(x, A.Index):
                self._region(x)
        tiles = [x for x in (a, b) if not isinstance(x, A.Index)]
        if len(tiles) > 1:
            raise _NotGemm("a product reads at most one ub tile (the other operand a GM region)", e)
        kwargs = {k: name("True") for k, f in (("transpose_a", ta), ("transpose_b", tb)) if f}
        if tiles:
            kwargs["staged"] = self._stage(tiles[0], e)
        rows, cols = self._product_shape(e)
        bm, bn = _align16(rows), _align16(cols)
        if to_gm:
            bm, bn = _at_most(bm, 128), _at_most(bn, 256)
        dtype = self._dtype(a)
        c0 = 32 // ITEMSIZE[dtype]
        # base K: the deepest step (at most 64) whose A and B tiles fit L0A and L0B twice over
        room = A.Int(self.ctx.chip.capacity("l0a") // 2 // ITEMSIZE[dtype])
        bk = call("maximum", A.Int(c0), binary("*", binary("//", call("minimum", A.Int(64),
                                                                      binary("//", room, call("maximum", bm, bn))),
                                                           A.Int(c0)), A.Int(c0)))
        if not to_gm:
            self._fits_l0c(bm, bn, e)
        product = replace(e, func="Matmul", args=(a, b),
                          kwargs=tuple(A.Keyword(k, v) for k, v in kwargs.items()) +
                          (A.Keyword("base", A.Tuple((bm, bn, bk))),))
        self.products.append(product)
        return product

    def _product_shape(self, e: A.Call) -> tuple:
        """The product's rows and columns (upper bounds)."""
        ta, tb = (isinstance(e.kwarg(f), A.Name) and e.kwarg(f).id == "True" for f in ("transpose_a", "transpose_b"))
        return self._extents(e.args[0], e)[1 if ta else 0], self._extents(e.args[1], e)[0 if tb else 1]

    def _region(self, x: A.Index):
        t = self.ctx.tensor(x.base.id) if isinstance(x.base, A.Name) else None
        if t is None or not (len(x.subscripts) == len(t.dims)
                             and all(isinstance(s, A.Slice) and not s.stepped() for s in x.subscripts[-2:])
                             and not any(isinstance(s, A.Slice) for s in x.subscripts[:-2])):
            raise _NotGemm("a GM operand of matmul slices its tensor's last two axes (without a step) and indexes "
                           "each leading axis", x)
        if t.perm is not None:
            raise _NotGemm(f"{x.base.id} is a permuted view: a cube operand is a tensor, a reshape view or scratch in "
                           f"memory order (transpose_a/transpose_b read a transposed matrix)", x)

    def _stage(self, tile, e: A.Call) -> A.Index:
        """The core's slot of a new GM workspace, as large as the tile can be."""
        rows, cols = self._extents(tile, e)
        ws = self.names.fresh("_ws")
        dtype = self._dtype(tile)
        dims = [self._dim(x, e.span) for x in (rows, cols)]
        scratch = A.Scratch(ws, A.TensorType(dtype, ("CORES", *dims)), e.span)
        self.workspaces.append(scratch)
        self.decls.append(scratch)
        return A.Index(name(ws), (name(self.core), A.Slice(None, None), A.Slice(None, None)))

    def _fits_l0c(self, bm, bn, e):
        """The base block is the whole product in L0C (f32), at every shape set the kernel runs at."""
        cap = self.ctx.chip.capacity("l0c")
        for env in self.values:
            try:
                m, n = evaluate(bm, env), evaluate(bn, env)
            except (KeyError, TypeError, ValueError):
                continue
            if m * n * 4 > cap:
                raise _NotGemm(f"this product's tile is {m} x {n} f32 ({m * n * 4:,} bytes) at shapes "
                               f"{_show_env(env, self.ctx)}; a streamed product is one base block of the cube, which "
                               f"holds {cap:,} bytes in L0C: make its rows or columns fewer (a smaller row block, "
                               f"a narrower tile of k or v)", e)

    def _extents(self, x, e) -> tuple:
        if not (isinstance(x, A.Index) or isinstance(x, A.Name) and x.id in self.shapes):
            raise _NotGemm("a ub operand of matmul is a tile assigned earlier in the phase (p = ..., then "
                           "matmul(p, v[...]))", x)
        shape = region_extents(x, self.ctx) if isinstance(x, A.Index) else self.shapes[x.id]
        if shape is None or len(shape) != 2:
            raise _NotGemm("matmul multiplies 2-D operands", e)
        return shape

    def _dtype(self, x) -> str:
        t = self.ctx.type_of(x)
        if isinstance(t, (TGM, TRegion)):
            return (t.gm if isinstance(t, TRegion) else t).dtype
        if isinstance(t, TTile):
            return t.dtype
        return self.ctx.tensor(x.base.id).dtype if isinstance(x, A.Index) else "f32"

    def _dim(self, e, span):
        """A scratch dim: a name or a number as written, else a new constant of the expression."""
        if isinstance(e, A.Name):
            return e.id
        if isinstance(e, A.Int):
            return e.value
        c = self.names.fresh("_we")
        self.decls.append(A.Const(c, e, span))
        return c

    # ------------------------------------------------------------ extents of tiles
    def _shape(self, e) -> tuple | None:
        """Upper bounds of the extents of tile value ``e`` as expressions, or None (not a tile, or a form
        whose extents are not followed: a product cannot read it)."""
        t = self.ctx.type_of(e)
        if isinstance(e, A.Name):
            return self.shapes.get(e.id)
        if A.is_product(e):
            return self._product_shape(e)
        if not isinstance(t, TTile):
            return None
        if isinstance(e, A.Load):
            return region_extents(e.src, self.ctx)
        if isinstance(e, A.Call) and e.func in ("full", "zeros") and isinstance(e.args[0], A.Tuple):
            return tuple(e.args[0].items)
        if isinstance(e, A.Call) and e.func in _REDUCTIONS and e.kwarg("axis") is not None:
            src = self._shape(e.args[0])
            if src is None:
                return None
            axis = getattr(e.kwarg("axis"), "value", None)
            if not isinstance(axis, int):
                return None
            axis %= len(src)
            keep = isinstance(e.kwarg("keepdims"), A.Name) and e.kwarg("keepdims").id == "True"
            return tuple(A.Int(1) if i == axis else d for i, d in enumerate(src) if keep or i != axis)
        operands = (e.operand,) if isinstance(e, A.Unary) else (e.lhs, e.rhs) if isinstance(e, A.Binary) else \
            e.args if isinstance(e, A.Call) else ()
        # element-wise: each axis from an operand that spans it (broadcasting, aligned from the right)
        out = []
        for axis in range(len(t.shape)):
            found = None
            for x in operands:
                xt, xs = self.ctx.type_of(x), None
                if not (isinstance(xt, TTile) and len(xt.shape) >= len(t.shape) - axis):
                    continue
                k = axis - (len(t.shape) - len(xt.shape))
                if xt.shape[k] == t.shape[axis]:
                    xs = self._shape(x)
                if xs is not None:
                    found = xs[k]
                    break
            if found is None:
                return None
            out.append(found)
        return tuple(out)


def _at_most(e, n: int):
    """``minimum(e, n)``, or ``n`` when ``e`` is a larger number."""
    if isinstance(e, A.Int):
        return A.Int(min(e.value, n))
    return call("minimum", e, A.Int(n))


def _align16(e):
    """``e`` rounded up to a multiple of 16 (a constant multiple of 16 stays as it is)."""
    if isinstance(e, A.Int) and e.value % 16 == 0:
        return e
    return binary("*", call("cdiv", e, A.Int(16)), A.Int(16))


def _show_env(env: dict, ctx) -> str:
    dims = [d for d in ctx.checked.binding.dims]
    return ", ".join(f"{d}={env[d]}" for d in dims if d in env)
