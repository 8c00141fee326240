"""Cube: a phase that accumulates matmul tiles over K becomes one Matmul API call per core.

Before (each iteration computes one TM x TN tile of C, K in TK-deep steps through L1)::

    for i, j in parallel(cdiv(M, TM), cdiv(N, TN)):
        ta = load(a[i * TM:i * TM + TM, 0:TK], space=l1)
        acc = matmul(ta, load(b[0:TK, j * TN:j * TN + TN], space=l1))
        for k in range(TK, K, TK):
            ta = load(a[i * TM:i * TM + TM, k:k + TK], space=l1)
            acc = acc + matmul(ta, load(b[k:k + TK, j * TN:j * TN + TN], space=l1))
        store(c[i * TM:i * TM + TM, j * TN:j * TN + TN], acc)

After (the cores form a GM x GN grid; each computes one SM x SN block of C over the whole K
with the high-level Matmul API, whose base block is the kernel's tile)::

    const _gm0 = 4
    const _gn0 = 6
    const _sm0 = cdiv(cdiv(M, _gm0), 16) * 16
    const _sn0 = cdiv(cdiv(N, _gn0), 16) * 16
    for core0 in parallel(CORES):
        _r0 = core0 // _gn0 * _sm0
        _c0 = core0 % _gn0 * _sn0
        store(c[_r0:_r0 + _sm0, _c0:_c0 + _sn0],
              Matmul(a[_r0:_r0 + _sm0, 0:K], b[0:K, _c0:_c0 + _sn0], base=(TM, TN, TK)))

Why: per output tile, the operands cross HBM once per tile; per core block they cross once per
block and the Matmul API re-reads its base tiles from L2 (research/ascendc_api.md section 4.1:
the MultiKernelBench matmul kernels use the same single-core split). The grid is chosen at the
op's real shapes (see choose_grid); it is correct at every shape, since the blocks tile C
whatever its extents.

Batched products (leading GM axes indexed by parallel variables, B batched or shared) become
one Matmul call per (batch, block) work item, the items spread over the cores (see rewrite).

A C of few blocks over a long K (256 x 256 over K = 524288) is cut along K as well when the model
says it is faster (choose_k_split): a phase zeroes C, then each core adds the product of its K
slice into its block with ``atomic_add`` (the Matmul API's ``IterateAll(c, enAtomic = 1)``)::

    for _i0 in parallel(M):
        for _j0 in range(0, N, _tz0):
            store(c[_i0, _j0:_j0 + _tz0], full((_tz0,), 0.0, f32))
    for core0 in parallel(CORES):
        _b0 = core0 // _gk0
        _r0 = _b0 // _gn0 * _sm0
        _c0 = _b0 % _gn0 * _sn0
        _k0 = core0 % _gk0 * _sk0
        atomic_add(c[_r0:_r0 + _sm0, _c0:_c0 + _sn0],
                   Matmul(a[_r0:_r0 + _sm0, _k0:_k0 + _sk0], b[_k0:_k0 + _sk0, _c0:_c0 + _sn0], base=(TM, TN, TK)))

A product whose tile vector ops read after the K loop (a fused epilogue) keeps its phase: each
iteration's tile is one Matmul call into UB (Iterate + GetTensorC), the epilogue as written::

    for i, j in parallel(cdiv(M, TM), cdiv(N, TN)):
        acc = Matmul(a[i * TM:i * TM + TM, 0:K], b[0:K, j * TN:j * TN + TN], base=(TM, TN, TK))
        store(c[i * TM:i * TM + TM, j * TN:j * TN + TN], relu(acc + load(bias[j * TN:j * TN + TN])))

Establishes: no matmul tile op remains in a phase of this form. A phase that uses matmul in
any other way is reported with the reason (select has no rule for cube tiles).
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from ascendcraft.dsl import ast as A
from ascendcraft.dtypes import ITEMSIZE
from ascendcraft.sim.cost import COST_CONSTANTS, CUBE_RATE
from ascendcraft.dsl.types import TScalar
from ascendcraft.errors import DSLError

from .base import LoweringPass, Names, binary, call, is_phase_loop, map_names, name
from .cube_grid import block_extent, choose_grid, choose_k_split, hbm_bytes_per_cycle


#: The form, as a refusal's hint states it (the numbered rules are in the language reference,
#: docs/dsl.md "Cube (matmul)": the model reads them there, so a hint names no file).
PRODUCT_PHASE = ("a product phase is: `for i, j in parallel(cdiv(M, TM), cdiv(N, TN))` (and one parallel variable "
                 "per batch axis of C), `m = i * TM`, `n = j * TN`, l1 loads of a[m:m + TM, 0:TK] and b[0:TK, n:n + TN], "
                 "`acc = matmul(...)`, `for k in range(TK, K, TK):` with l1 loads of the k:k + TK tiles and "
                 "`acc = acc + matmul(...)`, then `store(c[m:m + TM, n:n + TN], acc)` or vector work on acc (a fused "
                 "epilogue); operands slice their last two "
                 "axes and index batch axes with C's batch variables (see the rules of \"Cube (matmul)\")")


class _NotGemm(Exception):
    """The phase is not the accumulate-over-K form; carries the reason and, if known, the statement."""

    def __init__(self, why: str, node=None, taps: bool = False):
        super().__init__(why)
        self.node, self.taps = node, taps   # taps: the phase is tap products (cube_taps.py)


@dataclass(frozen=True)
class Cube(LoweringPass):
    name: str = "cube"
    establishes: tuple[str, ...] = ("matmul phases are one Matmul API call per core",)

    def run(self, kernel: A.Kernel, ctx) -> A.Kernel:
        names = Names(kernel)
        body: list = []
        for s in kernel.body:
            if isinstance(s, A.ParallelFor) and _has_product(s):
                body += self._phase(s, kernel, ctx, names)
            elif is_phase_loop(s) and _has_product(s):
                # a loop of phases: tap products only (the cube cores take each iteration's tiles
                # after the vector cores' phases of that iteration, codegen/taps.py)
                inner: list = []
                for p in s.body:
                    inner += self._phase(p, kernel, ctx, names, outer=s) if _has_product(p) else [p]
                loop = replace(s, body=tuple(inner))
                if len(inner) >= 2 and A.is_tap_phase(inner[-1]) and not any(map(A.is_tap_phase, inner[:-1])):
                    from .tap_groups import with_groups
                    loop = with_groups(loop, kernel, ctx)
                body.append(loop)
            else:
                body.append(s)
        out = replace(kernel, body=tuple(body))
        from .cube_taps import refuse_mixed_taps
        refuse_mixed_taps(out)
        return out

    @staticmethod
    def _phase(s: A.ParallelFor, kernel: A.Kernel, ctx, names, outer: A.For | None = None) -> list:
        """The phase with its product rewritten (a Matmul API call, streamed or tap products);
        ``outer``: the loop of phases it is in, where only tap products lower."""
        from .cube_chain import STREAMED, is_streamed, streamed_rewrite
        streamed = outer is None and is_streamed(s, ctx)
        try:
            if streamed:
                return streamed_rewrite(s, kernel, ctx, names)
            g = _Gemm(s, kernel, ctx, outer)
            if outer is not None and not g.taps:
                raise _NotGemm("in a loop of phases only tap products lower (a product through the Matmul API is "
                               "a phase of its own, at the top level)", s)
            return g.rewrite(names)
        except _NotGemm as why:
            at = why.node.span if why.node is not None and why.node.span is not None else s.span
            from .cube_taps import TAPS
            what = "streamed products the lowering handles" if streamed else \
                "tap products the lowering handles" if why.taps else \
                "a K accumulation the Matmul API lowering handles"
            hint = STREAMED if streamed else TAPS if why.taps else PRODUCT_PHASE
            raise DSLError(f"cube: this phase uses matmul but is not {what}: {why}", at,
                           kind="lowering error", hint=hint) from None


def _has_product(s) -> bool:
    return any(isinstance(n, A.Call) and n.func == "matmul" for n in A.walk(s))


class _Gemm:
    """Matches one phase against the accumulate-over-K form and rewrites it."""

    def __init__(self, phase: A.ParallelFor, kernel: A.Kernel, ctx, outer: A.For | None = None):
        self.phase, self.kernel, self.ctx = phase, kernel, ctx
        self.outer = outer      # the loop of phases the phase is in (tap products only)
        # extents compare by value at every shape: a const is its definition (scratch dims may be consts)
        self.same = ctx.symbols.same
        self.scalars: dict[str, object] = {}   # index arithmetic, inlined when comparing regions
        self.l1: dict[str, A.Load] = {}
        self._match()

    # ------------------------------------------------------------ matching
    def resolve(self, e):
        return map_names(e, lambda n: self.resolve(self.scalars[n.id]) if n.id in self.scalars else n)

    def _operand(self, e, loads) -> A.Load:
        if isinstance(e, A.Name) and e.id in loads:
            e = loads[e.id]
        if not (isinstance(e, A.Load) and e.space == "l1" and isinstance(e.src, A.Index)
                and isinstance(e.src.base, A.Name) and len(e.src.subscripts) >= 2
                and len(e.src.subscripts) == len(self.ctx.tensor(e.src.base.id).dims)
                and all(isinstance(x, A.Slice) and not x.stepped() for x in e.src.subscripts[-2:])
                and not any(isinstance(x, A.Slice) for x in e.src.subscripts[:-2])):
            raise _NotGemm("matmul operands must be l1 loads of GM regions that slice the last two axes "
                           "(without a step) and index each leading (batch) axis", e)
        if e.pad is not None and not (isinstance(e.pad, (A.Int, A.Float)) and e.pad.value == 0):
            raise _NotGemm("a cube operand may only be padded with 0", e)
        if self.ctx.symbols.tensor(e.src.base.id).perm is not None:
            raise _NotGemm(f"{e.src.base.id} is a permuted view: a cube operand is a tensor, a reshape view or "
                           f"scratch in memory order (transpose_a/transpose_b read a transposed matrix)", e)
        return e

    def _product(self, e, loads):
        if not (isinstance(e, A.Call) and e.func == "matmul"):
            raise _NotGemm("expected matmul(...)", e)
        kw = {k.name: k.value for k in e.kwargs}
        flags = tuple(isinstance(kw.get(f), A.Name) and kw[f].id == "True" for f in ("transpose_a", "transpose_b"))
        return self._operand(e.args[0], loads), self._operand(e.args[1], loads), flags

    def _match(self):
        stmts = list(self.phase.body)
        acc = init = loop = None
        self.head: list = []      # the statements before the product (index arithmetic, l1 loads)
        self.epilogue: list = []  # the statements after the K loop
        for s in stmts:
            if loop is not None:
                self.epilogue.append(s)
            elif isinstance(s, A.Assign) and init is None and isinstance(self.ctx.type_of(s.value), TScalar):
                if s.target in self.scalars:
                    raise _NotGemm(f"{s.target} is assigned twice", s)
                self.scalars[s.target] = s.value
                self.head.append(s)
            elif isinstance(s, A.Assign) and isinstance(s.value, A.Load) and s.value.space == "l1" and init is None:
                self.l1[s.target] = s.value
            elif isinstance(s, A.Assign) and init is None and isinstance(s.value, A.Call) and s.value.func == "matmul":
                acc, init = s.target, self._product(s.value, self.l1)
            elif isinstance(s, A.For) and init is not None:
                loop = s
            else:
                raise _NotGemm("unexpected statement (before the product: index arithmetic and l1 loads; vector "
                               "work on the product goes after the K loop)", s)
        if init is None or loop is None or not self.epilogue:
            raise _NotGemm("expected acc = matmul(...), a K loop accumulating into acc, then store(c[...], acc) "
                           "or vector work on acc (a fused epilogue)")
        self.a0, self.b0, self.flags = init
        self.acc, self.loop = acc, loop
        self._match_loop()
        if self.taps:
            from .cube_taps import match_taps
            match_taps(self)
            return
        st = self.epilogue[0]
        self.fused = not (len(self.epilogue) == 1 and isinstance(st, A.Store) and stores_product(st, acc))
        if self.fused:
            from .cube_fused import match_fused
            self.fused_tile = match_fused(self)
        else:
            self.store = st
            self._match_store()

    def _match_loop(self):
        loads, step = dict(self.l1), None
        for s in self.loop.body:
            if isinstance(s, A.Assign) and isinstance(s.value, A.Load):
                loads[s.target] = s.value
            elif isinstance(s, A.Assign) and s.target == self.acc and isinstance(s.value, A.Binary) \
                    and s.value.op == "+" and step is None:
                lhs, rhs = s.value.lhs, s.value.rhs
                other = rhs if isinstance(lhs, A.Name) and lhs.id == self.acc else \
                    lhs if isinstance(rhs, A.Name) and rhs.id == self.acc else None
                if other is None:
                    raise _NotGemm("the K loop must update acc = acc + matmul(...)", s)
                step = self._product(other, loads)
            else:
                raise _NotGemm("the K loop may only load l1 tiles and accumulate into acc", s)
        if step is None:
            raise _NotGemm("the K loop does not accumulate into acc", self.loop)
        a1, b1, flags = step
        if flags != self.flags:
            raise _NotGemm("the transposes of the first and the accumulated products differ", self.loop)
        ta, tb = self.flags
        k_var = A.Name(self.loop.var)
        self.a_name, self.b_name = self.a0.src.base.id, self.b0.src.base.id
        if a1.src.base.id != self.a_name or b1.src.base.id != self.b_name:
            raise _NotGemm("the K loop multiplies other tensors than the first product", self.loop)
        self.a1, self.b1, self.taps = a1, b1, False
        from .cube_taps import is_tap_loop
        if is_tap_loop(self):      # a convolution's taps, not K steps (cube_taps.py)
            self.taps = True
            return
        a_k, b_k = (1 if not ta else 0), (0 if not tb else 1)
        depth = self._first_k_slice(self.a0, a_k)
        if not self.same(self.resolve(self._first_k_slice(self.b0, b_k)), self.resolve(depth)):
            raise _NotGemm("A and B tiles have different K depths", self.loop)
        start, step_, stop = (self.resolve(x) for x in (self.loop.start, self.loop.step, self.loop.stop))
        if not (self.same(start, self.resolve(depth)) and self.same(step_, self.resolve(depth))):
            raise _NotGemm("the K loop must start at the first tile's depth and step by it", self.loop)
        k_dim = self._dim(self.a_name, a_k)
        if not (self.same(stop, k_dim) or self.same(stop, self._dim(self.b_name, b_k))):
            raise _NotGemm("the K loop must run to the K extent of the operands", self.loop)
        want = A.Slice(k_var, binary("+", k_var, self.resolve(depth)))
        for load, axis in ((a1, a_k), (b1, b_k)):
            sub = _mat(load)[axis]
            if not (self.same(self.resolve(sub.start), want.start) and self.same(self.resolve(sub.stop), want.stop)):
                raise _NotGemm("the K loop's tiles must be k:k + depth along K", self.loop)
        for first, later, axis in ((self.a0, a1, 1 - a_k), (self.b0, b1, 1 - b_k)):
            if self.resolve(_mat(first)[axis]) != self.resolve(_mat(later)[axis]) or \
                    self._lead(first) != self._lead(later):
                raise _NotGemm("the K loop's tiles must cover the same rows (columns) as the first product", self.loop)
        self.depth, self.k_dim = depth, k_dim

    def _first_k_slice(self, load: A.Load, axis: int):
        sub = _mat(load)[axis]
        if not (sub.start is None or self.same(self.resolve(sub.start), A.Int(0))) or sub.stop is None:
            raise _NotGemm("the first product's tiles must start at K = 0 (write the product over all of K: "
                           "the lowering cuts K over the cores itself when C has too few blocks for them)", load)
        return sub.stop

    def _dim(self, tensor: str, axis: int):
        """Extent of axis 0 (rows) or 1 (columns) of a tensor's matrices (its last two axes)."""
        return self.ctx.tensor(tensor).dim_expr(axis - 2)

    def _match_store(self):
        st = self.store
        value, self.mask = st.value, None
        if isinstance(value, A.Call) and value.func in ("tril", "triu") and value.args:
            # a triangle of the product: tiles wholly outside it are not computed (cube_triangle.py)
            d = value.kwarg("diagonal")
            self.mask, value = (value.func, d if d is not None else A.Int(0)), value.args[0]
        if st.accumulate or not (isinstance(value, A.Name) and value.id == self.acc):
            raise _NotGemm("the tile must be stored once with store(c[...], acc) (or tril/triu(acc, diagonal=...))",
                           st)
        if not (isinstance(st.dst, A.Index) and isinstance(st.dst.base, A.Name) and len(st.dst.subscripts) >= 2
                and len(st.dst.subscripts) == len(self.ctx.tensor(st.dst.base.id).dims)
                and all(isinstance(x, A.Slice) and not x.stepped() for x in st.dst.subscripts[-2:])
                and not any(isinstance(x, A.Slice) for x in st.dst.subscripts[:-2])):
            raise _NotGemm("the store must write a 2-D slice of C's last two axes (without a step), indexing each "
                           "batch axis", st)
        if self.ctx.symbols.tensor(st.dst.base.id).perm is not None:
            raise _NotGemm(f"{st.dst.base.id} is a permuted view: C is a tensor, a reshape view or scratch in memory "
                           f"order", st)
        ta, tb = self.flags
        rows_a = self.resolve(_mat(self.a0)[0 if not ta else 1])
        cols_b = self.resolve(_mat(self.b0)[1 if not tb else 0])
        rows_c, cols_c = (self.resolve(x) for x in st.dst.subscripts[-2:])
        if not (self._same_slice(rows_c, rows_a) and self._same_slice(cols_c, cols_b)):
            raise _NotGemm("the stored tile must be the rows of A's tile by the columns of B's", st)
        self.c_name = st.dst.base.id
        # the Matmul API takes C's row stride from B's N and its rows from A's M
        if not (self.same(self._dim(self.c_name, 0), self._dim(self.a_name, 1 if ta else 0)) and
                self.same(self._dim(self.c_name, 1), self._dim(self.b_name, 0 if tb else 1))):
            raise _NotGemm("C must be declared with A's row extent and B's column extent", st)
        # each parallel variable must walk one axis of C in whole tiles: start v * T, length T,
        # v in range(cdiv(extent, T)), so the tiles cover C exactly
        self.axes = {}
        for axis, sl in enumerate((rows_c, cols_c)):
            var, tile = self._tile_of(sl)
            if var not in self.phase.vars or var in [v for v, _ in self.axes.values()]:
                raise _NotGemm("each parallel variable must select the row or the column block of C")
            extent = self.phase.extents[self.phase.vars.index(var)]
            if not self.same(self.resolve(extent), call("cdiv", self._dim(self.c_name, axis), tile)):
                raise _NotGemm(f"the parallel extent of {var} must be cdiv(<C extent>, {show(tile)})")
            self.axes[axis] = (var, tile)
        self._match_batches(st)
        if len(self.phase.vars) != 2 + len(self.batch):
            raise _NotGemm("the phase must run over (batch indices..., row block, column block)")

    def _same_slice(self, a: A.Slice, b: A.Slice) -> bool:
        return all(x is y is None or None not in (x, y) and self.same(x, y)
                   for x, y in ((a.start, b.start), (a.stop, b.stop)))

    def _lead(self, load) -> tuple:
        return tuple(self.resolve(x) for x in load.src.subscripts[:-2])

    def _match_batches(self, st):
        """Batch axes: each leading (integer) subscript of C is a parallel variable of its own; A's and
        B's leading subscripts are C's last ones (matmul's broadcasting of batch axes, aligned from the
        right, without extent-1 stretching)."""
        self.batch = []   # (variable, its parallel extent) per leading axis of C
        for sub in st.dst.subscripts[:-2]:
            sub = self.resolve(sub)
            if not (isinstance(sub, A.Name) and sub.id in self.phase.vars) or \
                    sub.id in [v for v, _ in self.batch] + [v for v, _ in self.axes.values()]:
                raise _NotGemm("each batch axis of C must be indexed by a parallel variable of its own", st)
            # the items run over the phase's own batch extents (the checker bounded its indices at every
            # shape, so they lie inside C's and the operands' batch axes, whatever those are declared as)
            self.batch.append((sub.id, self.phase.extents[self.phase.vars.index(sub.id)]))
        # A's and B's batch indices are C's: each (batch, block) item reads the operands at the indices the
        # phase read them at (bounded at every shape by the checker), whatever their declared extents
        c_lead = tuple(self.resolve(x) for x in st.dst.subscripts[:-2])
        for load, what in ((self.a0, "A"), (self.b0, "B")):
            lead = self._lead(load)
            if len(lead) > len(c_lead) or lead != c_lead[len(c_lead) - len(lead):]:
                raise _NotGemm(f"{what}'s batch indices must be C's last ones (c[z, ...] = a[z, ...] @ b[z, ...], "
                               f"or a batch of A times one matrix B)", st)

    @staticmethod
    def _tile_of(sl: A.Slice):
        start = sl.start
        if isinstance(start, A.Binary) and start.op == "*":
            for var, tile in ((start.lhs, start.rhs), (start.rhs, start.lhs)):
                if isinstance(var, A.Name) and sl.stop in (binary("+", start, tile), binary("+", tile, start)):
                    return var.id, tile
        raise _NotGemm("C tiles must be v * T:v * T + T slices of a parallel variable v")

    # ------------------------------------------------------------ rewriting
    def _zero_phase(self, names) -> list:
        """``store(c[i, j:j + T], full((T,), 0, dtype))`` over C's rows, in row chunks of up to 4096."""
        n_dim = self._dim(self.c_name, 1)
        t, i, j = names.fresh("_tz"), names.fresh("_i"), names.fresh("_j")
        dtype = self.dtype(self.c_name)
        zero = call("full", A.Tuple((name(t),)), A.Float(0.0), name(dtype))
        loop = A.For(j, A.Int(0), n_dim, name(t),
                     (A.Store(A.Index(name(self.c_name), (name(i), A.Slice(name(j), binary("+", name(j), name(t))))),
                              zero),), self.phase.span)
        return [A.Const(t, call("minimum", n_dim, A.Int(4096))),
                A.ParallelFor((i,), (self._dim(self.c_name, 0),), (loop,), self.phase.span)]

    def matmul_call(self, zs: list, rows: A.Slice, cols: A.Slice, k_part: A.Slice) -> A.Call:
        """``Matmul(a[...], b[...], base=...)`` of C's block ``rows`` x ``cols`` over ``k_part`` of K, for
        the batch indices ``zs`` (C's leading axes in order; A and B take their last ones)."""
        ta, tb = self.flags
        lead = {v: name(z) for (v, _), z in zip(self.batch, zs)}
        a_lead = tuple(lead[x.id] for x in self._lead(self.a0))
        b_lead = tuple(lead[x.id] for x in self._lead(self.b0))
        a = A.Index(name(self.a_name), a_lead + ((k_part, rows) if ta else (rows, k_part)))
        b = A.Index(name(self.b_name), b_lead + ((cols, k_part) if tb else (k_part, cols)))
        kwargs = {k: name("True") for k, f in (("transpose_a", ta), ("transpose_b", tb)) if f}
        (_, tm), (_, tn) = self.axes[0], self.axes[1]
        return call("Matmul", a, b, **kwargs, base=A.Tuple((tm, tn, self.depth)))

    def batch_indices(self, flat, zs: list, span=None) -> list:
        """``z = ...`` for each batch index of the flat batch index ``flat``, the last axis fastest."""
        out, rest = [], flat
        for (_, d), z in zip(reversed(self.batch), reversed(zs)):
            out.append(A.Assign(z, binary("%", rest, d), span))
            rest = binary("//", rest, d)
        return out

    def foldable(self) -> bool:
        """A batch of A's matrices times one B into C, every batch of A and C in the phase: A's batch
        and row axes are one row axis of A's memory (and C's of C's), so the batch is one product
        of [batches x M, K] by B, whose blocks the grid chooses freely (no per-batch re-streaming
        of B, no batch of small blocks)."""
        ta, _ = self.flags
        if ta or not self.batch or self._lead(self.b0) or len(self._lead(self.a0)) != len(self.batch):
            return False
        for name_ in (self.a_name, self.c_name):
            t = self.ctx.symbols.tensor(name_)
            if t.base is not None or t.perm is not None:   # a view: its own base may not be in row order
                return False
        return all(self.same(self.resolve(d), self._batch_dim(self.c_name, i)) and
                   self.same(self.resolve(d), self._batch_dim(self.a_name, i))
                   for i, (_, d) in enumerate(self.batch))

    def dtype(self, tensor: str) -> str:
        return self.ctx.tensor(tensor).dtype

    def _batch_dim(self, tensor: str, axis: int):
        return self.ctx.tensor(tensor).dim_expr(axis)

    def fold(self, names: Names) -> list:
        """The batch as one product over views of A and C with the batch axes merged into the rows."""
        rows, av, cv = names.fresh("_fm"), names.fresh("_av"), names.fresh("_cv")
        extent = self._dim(self.c_name, 0)
        for i in range(len(self.batch)):
            extent = binary("*", self._batch_dim(self.c_name, i), extent)
        k_dim, n_dim = self._dim(self.a_name, 1), self._dim(self.c_name, 1)
        dims = {av: (name(rows), k_dim), cv: (name(rows), n_dim)}
        flat = _FoldedGemm(self, av, cv, dims)
        views = [A.Const(rows, extent, self.phase.span),
                 A.View(av, self.a_name, (rows, _dim_of(k_dim)), self.phase.span),
                 A.View(cv, self.c_name, (rows, _dim_of(n_dim)), self.phase.span)]
        self.ctx.notes.append(f"cube: the batch ax{'is' if len(self.batch) == 1 else 'es'} of {self.a_name} and {self.c_name} merged "
                              f"into their rows ({self.b_name} is one matrix for every batch)")
        return views + flat.rewrite(names, extents={av: extent, cv: extent})

    def rewrite(self, names: Names, extents=None) -> list:
        if self.taps:
            from .cube_taps import taps_rewrite
            return taps_rewrite(self)
        if self.fused:
            from .cube_fused import fused_rewrite
            return fused_rewrite(self, names)
        if self.mask is not None:
            from .cube_triangle import triangle_rewrite
            return triangle_rewrite(self, names)
        if self.foldable():
            return self.fold(names)
        ctx = self.ctx
        (_, tm), (_, tn) = self.axes[0], self.axes[1]
        m_dim, n_dim = self._dim(self.c_name, 0), self._dim(self.c_name, 1)
        size = ctx.symbols.extent     # at the real shapes
        if extents:   # folded: the rows are a new const, measured by what it is made of
            size = lambda d: ctx.symbols.extent(extents[self.c_name] if d == m_dim else d)   # noqa: E731
        value = lambda e: ctx.type_of(e).value   # noqa: E731
        dtype = self.dtype(self.a_name)
        batches = 1
        for _, d in self.batch:
            batches *= size(d)
        base = (value(tm), value(tn))
        rates = (ctx.chip.cube_macs_per_cycle * CUBE_RATE[dtype], ITEMSIZE[dtype], COST_CONSTANTS["l2_bpc"])
        if self.batch:
            (gm, gn), gk = choose_grid(size(m_dim), size(n_dim), ctx.checked.cores, base, *rates, batches=batches), 1
        else:
            gm, gn, gk = choose_k_split(size(m_dim), size(n_dim), size(self.k_dim), ctx.checked.cores, base,
                                        value(self.depth), *rates, hbm_bytes_per_cycle(ctx.chip))
        g_m, g_n, s_m, s_n = (names.fresh(s) for s in ("_gm", "_gn", "_sm", "_sn"))
        core, r, c = names.fresh("core"), names.fresh("_r"), names.fresh("_c")

        def share(dim, parts):
            return binary("*", call("cdiv", call("cdiv", dim, name(parts)), A.Int(16)), A.Int(16))
        consts = [A.Const(g_m, A.Int(gm)), A.Const(g_n, A.Int(gn)),
                  A.Const(s_m, share(m_dim, g_m)), A.Const(s_n, share(n_dim, g_n))]
        rows = A.Slice(name(r), binary("+", name(r), name(s_m)))
        cols = A.Slice(name(c), binary("+", name(c), name(s_n)))
        k_part = A.Slice(A.Int(0), self.k_dim)
        if gk > 1:   # each core's K slice: GK slices of whole base depths
            g_k, s_k, k0 = names.fresh("_gk"), names.fresh("_sk"), names.fresh("_k")
            consts += [A.Const(g_k, A.Int(gk)),
                       A.Const(s_k, binary("*", call("cdiv", call("cdiv", self.k_dim, name(g_k)), self.depth),
                                           self.depth))]
            k_part = A.Slice(name(k0), binary("+", name(k0), name(s_k)))
        zs = [names.fresh("_z") for _ in self.batch]     # the batch indices, C's leading axes in order
        product = self.matmul_call(zs, rows, cols, k_part)
        # K slices add into C (atomic_add: the Matmul API's IterateAll with enAtomic)
        store = A.Store(A.Index(name(self.c_name), tuple(name(z) for z in zs) + (rows, cols)), product,
                        accumulate=gk > 1)
        if gk > 1:
            # cores numbered block-major: core // GK is the block, core % GK the slice
            blk = names.fresh("_b")
            body = (A.Assign(blk, binary("//", name(core), name(g_k))),
                    A.Assign(r, binary("*", binary("//", name(blk), name(g_n)), name(s_m))),
                    A.Assign(c, binary("*", binary("%", name(blk), name(g_n)), name(s_n))),
                    A.Assign(k0, binary("*", binary("%", name(core), name(g_k)), name(s_k))),
                    store)
            ctx.notes.append(f"cube: {self.c_name} = {self.a_name} @ {self.b_name} on a {gm} x {gn} grid of blocks "
                             f"({block_extent(size(m_dim), gm)} x {block_extent(size(n_dim), gn)} at the real "
                             f"shapes), K cut into {gk} slices on cores of their own and added into {self.c_name} "
                             f"(zeroed first), base block {base_block((tm, tn, self.depth), value)}")
            return consts + self._zero_phase(names) + [A.ParallelFor((core,), (name("CORES"),), body,
                                                                     self.phase.span)]
        if not self.batch:
            body = (A.Assign(r, binary("*", binary("//", name(core), name(g_n)), name(s_m))),
                    A.Assign(c, binary("*", binary("%", name(core), name(g_n)), name(s_n))),
                    store)
            ctx.notes.append(f"cube: {self.c_name} = {self.a_name} @ {self.b_name} on a {gm} x {gn} grid of cores "
                             f"(blocks of {block_extent(size(m_dim), gm)} x {block_extent(size(n_dim), gn)} at the "
                             f"real shapes, base block {base_block((tm, tn, self.depth), value)})")
            return consts + [A.ParallelFor((core,), (name("CORES"),), body, self.phase.span)]
        # batches: one work item per (batch, block) pair, batch-major (a core's consecutive items
        # share a batch, so its A rows or B columns are still in L2), items spread over the cores
        # in balanced contiguous runs by the parallel loop itself
        work, flat = names.fresh("_w"), names.fresh("_zf")
        per_batch = binary("*", name(g_m), name(g_n))
        items = per_batch
        for _, d in self.batch:
            items = binary("*", d, items)
        body = [A.Assign(flat, binary("//", name(work), per_batch)),
                A.Assign(r, binary("*", binary("//", binary("%", name(work), per_batch), name(g_n)), name(s_m))),
                A.Assign(c, binary("*", binary("%", name(work), name(g_n)), name(s_n)))]
        body += self.batch_indices(name(flat), zs)
        body.append(store)
        ctx.notes.append(f"cube: {self.c_name} = {self.a_name} @ {self.b_name}, {batches} batches of {gm} x {gn} "
                         f"blocks of {block_extent(size(m_dim), gm)} x {block_extent(size(n_dim), gn)} at the real "
                         f"shapes spread over the cores, base block {base_block((tm, tn, self.depth), value)}")
        return consts + [A.ParallelFor((work,), (items,), tuple(body), self.phase.span)]


class _FoldedGemm(_Gemm):
    """A matched batched phase seen as one product over views (``fold``): the same matches, with A
    and C the views (not in the symbol table until the pass's output is checked: their extents are
    given) and no batch axes."""

    def __init__(self, gemm: _Gemm, av: str, cv: str, dims: dict):
        self.__dict__.update(gemm.__dict__)
        self._bases = {av: gemm.a_name, cv: gemm.c_name}
        self.a_name, self.c_name, self.batch, self._dims = av, cv, [], dims
        self.a0 = replace(gemm.a0, src=A.Index(name(av), _mat(gemm.a0)))

    def _dim(self, tensor: str, axis: int):
        return self._dims[tensor][axis] if tensor in self._dims else super()._dim(tensor, axis)

    def dtype(self, tensor: str) -> str:
        return super().dtype(self._bases.get(tensor, tensor))

    def foldable(self) -> bool:
        return False


def stores_product(st: A.Store, acc: str) -> bool:
    """``store(c[...], acc)`` or of ``tril``/``triu(acc, ...)``: the unfused product phase's store."""
    v = st.value
    if isinstance(v, A.Call) and v.func in ("tril", "triu") and v.args:
        v = v.args[0]
    return isinstance(v, A.Name) and v.id == acc


def _dim_of(e) -> A.Dim:
    """An extent expression as a view's dim (a name or an int)."""
    return e.id if isinstance(e, A.Name) else e.value


def _mat(load) -> tuple:
    """The row and column slices of a GM region (its last two subscripts)."""
    return load.src.subscripts[-2:]


def show(e) -> str:
    """A tile size as the note spells it: its constant's name or its value."""
    return e.id if isinstance(e, A.Name) else str(getattr(e, "value", e))


def base_block(sizes, value) -> str:
    """The Matmul API's base block as a note gives it: the sizes at the real shapes, then the
    constants' names (``128 x 256 x 64 (TM x TN x TK)``); ``value``: a constant's value."""
    def number(e):
        try:
            return str(value(e))
        except (KeyError, AttributeError, TypeError):
            return None
    numbers = [number(e) if isinstance(e, A.Name) else show(e) for e in sizes]
    if None in numbers:
        return " x ".join(show(e) for e in sizes)
    names = " x ".join(show(e) for e in sizes)
    return " x ".join(numbers) + (f" ({names})" if any(isinstance(e, A.Name) for e in sizes) else "")
