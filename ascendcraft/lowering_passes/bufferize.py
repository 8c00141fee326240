"""Bufferize: place every UB tile in a declared buffer, reusing buffers by liveness.

Before (API-level ops)::

    for j in range(0, N, T):
        t = load(x[b, j:j + T])
        _t0 = Adds(t, -m)
        _t1 = Exp(_t0)
        _s0 = ReduceSum(_t1)

After::

    const _n0 = cdiv(T, 64) * 64
    buffer b0: veccalc f32[_n0]
    buffer b1: veccalc f32[_n0]
    buffer rwork: veccalc f32[...]          # ReduceSum's work area (ascendc_api.md 3.3)
    ...
        t = load(x[b, j:j + T], out=b0)
        _t0 = Adds(t, -m, out=b1)
        _t1 = Exp(_t0, out=b0)               # t is dead here: its buffer is reused
        _s0 = ReduceSum(_t1)

Each tile's size is a constant expression of the kernel's dims and constants (its slices'
extents), so one lowered program serves every shape. A tile's buffer holds its rows padded to
32 bytes and is rounded up to 256 bytes (Compare works on whole 256-byte repeats). Two tiles
share a buffer only if their live ranges (with loops taken into account: a value used in a
loop stays live through it, a loop-carried value through the whole loop) do not overlap; the
assignment is a greedy colouring of the interference graph (colour_intervals). The interpreter checks
the result: reading a tile after its buffer received another value is an error.

Work areas the emitter's expansions need are declared here too, so the UB budget sees them:
rwork (reductions), swork/sidx (scans, products), wwork/widx (windows), gidx (the Gather offsets
of slices of tiles, ``t[:, a:b]``), and xwork/xidx for copies of *strided* GM regions
(``x[a:b, j]``: the tile's last axis is not the tensor's last axis), which move one element per
32-byte block and are packed with Gather. Those are their roles; each is
named by its role, or the role and a number if the kernel uses the name already (a variable
``rwork``), and the emitter finds them by role (:func:`work_buffers`), never by a fixed name.

Establishes: every UB tile has ``out=<buffer>``; buffers fit the UB at the op's real shapes.
"""
from __future__ import annotations

from dataclasses import dataclass, fields, is_dataclass, replace

from ascendcraft import dtypes as D
from ascendcraft.dsl import ast as A
from ascendcraft.dsl.footprint import same_type_operands
from ascendcraft.dsl.indexing import API_FORMS
from ascendcraft.dsl.ops import OPS
from ascendcraft.dsl.types import TTile
from ascendcraft.errors import DSLError

from .base import LoweringPass, Names, binary, call, dim_expr
from .colouring import colour_intervals

BLOCK = 32        # UB rows start on 32-byte blocks
REPEAT = 256      # one vector repeat
STRIDED_CHUNK = 256    # most elements one strided GM copy moves per DataCopyPad (one 32-byte block each)


def aligned_elems(shape: tuple, dtype: str):
    """Symbolic element count of a tile with rows padded to 32 bytes, rounded up to 256 bytes."""
    per_block = BLOCK // D.ITEMSIZE[dtype]
    per_repeat = REPEAT // D.ITEMSIZE[dtype]
    if not shape:
        return A.Int(per_repeat)
    last = binary("*", call("cdiv", shape[-1], A.Int(per_block)), A.Int(per_block))
    n = last
    for d in reversed(shape[:-1]):
        n = binary("*", d, n)
    return binary("*", call("cdiv", n, A.Int(per_repeat)), A.Int(per_repeat))


def tile_value(e) -> bool:
    return isinstance(e, A.Load) and e.space == "ub" or (
        isinstance(e, A.Call) and e.func in OPS and OPS[e.func].kind == "api"
        and OPS[e.func].form not in ("reduce", "getvalue"))


@dataclass(frozen=True)
class Bufferize(LoweringPass):
    name: str = "bufferize"
    establishes: tuple[str, ...] = ("every ub tile lives in a declared buffer (out=...)",
                                    "buffers are reused by liveness and fit the UB")

    def run(self, kernel: A.Kernel, ctx) -> A.Kernel:
        return _Bufferizer(kernel, ctx).run()


class _Bufferizer:
    def __init__(self, kernel, ctx):
        self.k, self.ctx, self.names = kernel, ctx, Names(kernel)
        self.pos = 0
        self.defs: dict[str, list[int]] = {}
        self.uses: dict[str, list[int]] = {}
        self.loops: list[tuple[int, int, set, set]] = []   # (start, end, names used, names defined)
        self.shape: dict[str, tuple] = {}                  # tile name -> symbolic extents
        self.dtype: dict[str, str] = {}
        self.reduced: list[str] = []                       # tiles reduced by ReduceSum/Max/Min
        # (rows, dtype) of the 2-D tiles reduced along each row or combined with a column: their
        # level-0 forms stage a 32-byte block per row in rwork (codegen/rows.py)
        self.row_work: list[tuple] = []
        self.scanned: list[tuple[str, str]] = []           # (tile, op) of CumSum/CumProd/ReduceProd
        self.windows: list[tuple[str, str]] = []           # (input tile, output tile) of WindowMax/Avg
        self.apart: list[tuple[str, str]] = []             # tiles that must not share a buffer
        self.in_place: list[tuple[str, str]] = []          # (result, operand of its shape) of element-wise ops
        self.strided: list = []                            # inner extents of strided GM regions copied
        self.gathers: list = []                            # elements per Gather of tile slices (gidx)
        self.consts = {c.name for c in kernel.body if isinstance(c, A.Const)} | \
            {d for p in kernel.inputs + kernel.outputs if isinstance(p.type, A.TensorType)
             for d in p.type.shape if isinstance(d, str)} | \
            {p.name for p in kernel.inputs if isinstance(p.type, A.ScalarType)} | {"CORES"}

    def run(self) -> A.Kernel:
        self._scan(self.k.body)
        intervals = self._intervals()
        colour = self._colour(intervals)
        sizes: dict[int, list] = {}
        for n, c in colour.items():
            sizes.setdefault(c, []).append(aligned_elems(self.shape[n], self.dtype[n]))
        decls = []
        buf_of_colour = {}
        for c in sorted(sizes):
            const = self.names.fresh("_n")
            decls.append(A.Const(const, _maximum(sizes[c])))
            bname = self.names.fresh("b")
            buf_of_colour[c] = bname
            dtype = next(self.dtype[n] for n, cc in colour.items() if cc == c)
            decls.append(A.Buffer(bname, A.TensorType(dtype, (const,), "veccalc")))
        decls += self._work_buffers()
        placement = {n: buf_of_colour[c] for n, c in colour.items()}
        body = self._place(self.k.body, placement)
        cut = next((i for i, s in enumerate(body) if not isinstance(s, (A.Const, A.Scratch, A.View))), len(body))
        body = tuple(body[:cut]) + tuple(decls) + tuple(body[cut:])
        # buffers the input already declared (lowered forms written in the source) under a name of
        # a work buffer's form get other names, so the work buffers are the only ones of that form
        clash = {s.name: self.names.fresh("b") for s in self.k.body
                 if isinstance(s, A.Buffer) and work_role(s.name) is not None}
        if clash:
            body = tuple(rename_buffers(s, clash) for s in body)
        return replace(self.k, body=body)

    def _work_name(self, role: str) -> str:
        """The work buffer of ``role``: the role itself, or the role and a number when the kernel
        already uses that name (a variable ``rwork``): the emitter finds it by :func:`work_buffers`."""
        return self.names.fresh(role, bare=True)

    # ------------------------------------------------------------ analysis
    def _use(self, node):
        for n in A.walk(node):
            if isinstance(n, A.Name):
                self.uses.setdefault(n.id, []).append(self.pos)

    def _scan(self, stmts):
        for s in stmts:
            self.pos += 1
            if isinstance(s, A.Assign):
                self._use(s.value)
                self.defs.setdefault(s.target, []).append(self.pos)
                if isinstance(s.value, A.Load) and s.value.space == "ub":
                    self._note_strided(s.value.src)
                if tile_value(s.value):
                    self._record_tile(s)
                    self._note_in_place(s)
                func = s.value.func if isinstance(s.value, A.Call) else None
                if func in OPS and OPS[func].form in ("reduce", "rowreduce") and func not in _SCANNED:
                    self.reduced.append(s.value.args[0].id)
                if func in OPS and OPS[func].form in ("rowreduce", "colvec"):
                    shaped = s.value.args[0].id if OPS[func].form == "rowreduce" else s.target
                    if len(self.shape.get(shaped, ())) == 2:
                        self.row_work.append((self.shape[shaped][0], self.dtype[shaped]))
                if func in _SCANNED:
                    self.scanned.append((s.value.args[0].id, func))
                if func in OPS and OPS[func].form in ("rowvec", "colvec", "rowreduce", "outer", "selectrows"):
                    # the output is written row by row while a vector operand (the one not of the
                    # result's shape) or, for per-row reductions, the rows are still read at other
                    # offsets: never in place
                    result = self.ctx.type_of(s.value)
                    for a in s.value.args:
                        t = self.ctx.type_of(a)
                        if isinstance(a, A.Name) and a.id in self.shape and (
                                OPS[func].form == "rowreduce" or t is None or result is None
                                or tuple(t.shape) != tuple(result.shape)):
                            self.apart.append((a.id, s.target))
                if func in OPS and OPS[func].form in API_FORMS:
                    # Gather reads its source at data-dependent places and its offsets while it writes;
                    # ArgMaxRows reads every row while it writes; a Scatter reads its indices and values
                    self.apart += [(a.id, s.target) for a in s.value.args if isinstance(a, A.Name)]
                if func in ("Tril", "Triu"):
                    # the output is zeroed (Tril) or copied whole before rows are patched from the input
                    self.apart.append((s.value.args[0].id, s.target))
                if func == "Transpose":
                    # gathered column by column from its source (never in place); gidx holds a column's
                    # offsets, one per source row
                    self.apart.append((s.value.args[0].id, s.target))
                    self.gathers.append(self.shape[s.value.args[0].id][0])
                if func == "Copy" and isinstance(s.value.args[0], A.Index):
                    # a slice is gathered from its tile: never in place
                    self.apart.append((s.value.args[0].base.id, s.target))
                    self.gathers.append(self._index_shape(s.value.args[0])[-1])
                if isinstance(s.value, A.Call) and s.value.func in ("WindowMax", "WindowAvg"):
                    self.windows.append((s.value.args[0].id, s.target))
                    # a window writes its output while it still gathers from its input: never in place
                    self.apart.append((s.value.args[0].id, s.target))
            elif isinstance(s, A.Store):
                self._use(s.dst)
                self._use(s.value)
                if not (isinstance(s.value, A.Call) and s.value.func == "Matmul"):
                    self._note_strided(s.dst)
            elif isinstance(s, A.Free):
                self.uses.setdefault(s.name, []).append(self.pos)
            elif isinstance(s, (A.For, A.ParallelFor)):
                for e in ((s.start, s.stop, s.step) if isinstance(s, A.For) else s.extents):
                    self._use(e)
                start = self.pos
                self._scan(s.body)
                inner = [n for b in s.body for n in A.walk(b)]
                used = {n.id for n in inner if isinstance(n, A.Name)}
                defined = {n.target for n in inner if isinstance(n, A.Assign)}
                self.loops.append((start, self.pos, used, defined))

    def _note_in_place(self, s: A.Assign):
        """An element-wise op may write over an operand of its result's type (the footprint's rule)."""
        self.in_place += [(s.target, a.id) for a in same_type_operands(s.value, self.ctx.checked.expr_types)
                          if isinstance(a, A.Name) and a.id in self.shape]

    def _note_strided(self, region):
        if strided_region(region, self.ctx.symbols):
            self.strided.append(region_extents(region, self.ctx)[-1])

    def _record_tile(self, s: A.Assign):
        t = self.ctx.type_of(s.value)
        if not isinstance(t, TTile):
            raise DSLError(f"bufferize: no tile type for {s.target}", s.span, kind="lowering error")
        shape, dtype = self._symbolic_shape(s.value), t.dtype
        old = self.shape.get(s.target)
        if old is not None and old != shape:
            shape = tuple(call("maximum", a, b) if a != b else a for a, b in zip(old, shape)) \
                if len(old) == len(shape) else shape
        self.shape[s.target] = shape
        self.dtype[s.target] = dtype

    def _symbolic_shape(self, e) -> tuple:
        """Upper bounds of a tile's extents as expressions of dims and constants."""
        if isinstance(e, A.Load):
            return region_extents(e.src, self.ctx)
        op = OPS[e.func]
        if op.form == "gemm":   # GetTensorC lays the product's rows out a base block's width apart
            return tuple(e.kwarg("base").items[:2])
        if op.form == "window":
            return self._window_shape(e)
        if op.form == "rowreduce":
            rows = self.shape[e.args[0].id][0]
            keep = e.kwarg("keepdims")
            return (rows, A.Int(1)) if isinstance(keep, A.Name) and keep.id == "True" else (rows,)
        if op.form == "outer":    # the column's rows, the row's columns
            from ascendcraft.dsl.broadcast import outer_operands
            col, row = outer_operands(*(self.ctx.type_of(a).shape for a in e.args))
            return (self.shape[e.args[col].id][0], self.shape[e.args[row].id][-1])
        if op.form in ("argrows", "argeachrow"):   # the indices and the work parts (indexing.ARG_LAYOUTS)
            from .indexing import arg_buffer_elems
            rows, cols = self.shape[e.args[0].id][:2]
            return (arg_buffer_elems(op.form, rows, cols),)
        if op.form == "transpose":   # [R, C] -> [C, R]
            return tuple(self.shape[e.args[0].id][::-1])
        if op.form == "duplicate":
            shape = e.args[0]
            return tuple(shape.items) if isinstance(shape, A.Tuple) else (shape,)
        src = e.args[1] if op.form in ("select", "gather") else e.args[0]   # Gather: the offsets' shape
        if op.form in ("rowvec", "colvec", "selectrows"):   # the operand of the result's shape gives the shape
            result = self.ctx.type_of(e)
            src = next((a for a in e.args if getattr(self.ctx.type_of(a), "shape", None) == getattr(result, "shape", ())),
                       e.args[0])
        if op.form == "copy" and isinstance(src, A.Index):
            return self._index_shape(src)
        if isinstance(src, A.Name) and src.id in self.shape:
            return self.shape[src.id][1:] if op.form == "rows" else self.shape[src.id]
        t = self.ctx.type_of(e)
        return tuple(A.Int(d) for d in t.shape)

    def _index_shape(self, ix) -> tuple:
        """Extents of a tile slice ``t[a:b, j]`` as expressions: each slice's length (``slice_extent``),
        integer indices dropping their axis, axes without a subscript whole."""
        base = self.shape[ix.base.id]
        out = []
        for axis, sub in enumerate(ix.subscripts):
            if isinstance(sub, A.Slice):
                out.append(slice_extent(sub, base[axis], self.consts))
        return tuple(out) + tuple(base[len(ix.subscripts):])

    def _window_shape(self, e) -> tuple:
        src = self.shape[e.args[0].id]
        kernel, stride = window_kwargs(e)
        lead = src[:len(src) - len(kernel)]
        return lead + tuple(binary("+", binary("//", binary("-", n, k), s), A.Int(1))
                            for n, k, s in zip(src[len(lead):], kernel, stride))

    def _intervals(self) -> dict[str, list[int]]:
        iv = {}
        for n in self.shape:
            lo = min(self.defs[n])
            hi = max(self.uses.get(n, [lo]) + [lo])
            iv[n] = [lo, hi]
        changed = True
        while changed:  # loops can extend each other's ranges; repeat until stable
            changed = False
            for start, end, used, defined in self.loops:
                for n, r in iv.items():
                    if n not in used:
                        continue
                    first_def_inside = min((d for d in self.defs[n] if start <= d <= end), default=None)
                    uses_inside = [u for u in self.uses.get(n, []) if start <= u <= end]
                    carried = n not in defined or (first_def_inside is not None and uses_inside
                                                   and min(uses_inside) <= first_def_inside)
                    if carried:
                        new = [min(r[0], start), max(r[1], end)] if n in defined else [r[0], max(r[1], end)]
                        if new != r:
                            iv[n] = new
                            changed = True
        return iv

    def _colour(self, iv) -> dict[str, int]:
        return colour_intervals(iv, self.dtype, self.apart, self.in_place)

    def _work_buffers(self) -> list:
        return self._reduce_work() + self._scan_work() + self._window_work() + self._strided_work() + \
            self._gather_work()

    def _gather_work(self) -> list:
        """Slices of tiles (``t[:, a:b]``) are Gathers from the tile (any start, 32-byte aligned or not):
        gidx holds the byte offsets of one Gather (a row of the slice, or a column's elements)."""
        if not self.gathers:
            return []
        n = self.names.fresh("_n")
        return [A.Const(n, binary("*", call("cdiv", _maximum(self.gathers), A.Int(8)), A.Int(8))),
                A.Buffer(self._work_name("gidx"), A.TensorType("i32", (n,), "veccalc"))]

    def _strided_work(self) -> list:
        """Copies of strided GM regions (a column ``x[a:b, j]``: the elements of the tile's last
        axis are not adjacent in GM) go through xwork: K 32-byte blocks, one element each, which
        DataCopyPad fills from GM (every block lands 32-byte aligned, ascendc_api.md 2.2) and Gather
        packs into the tile (xidx: the K byte offsets 32 * i), or Brcb spreads the tile into for
        the way back. K covers the longest strided extent, at most STRIDED_CHUNK."""
        if not self.strided:
            return []
        k = call("minimum", _maximum([binary("*", call("cdiv", e, A.Int(16)), A.Int(16)) for e in self.strided]),
                 A.Int(STRIDED_CHUNK))
        work, idx = self.names.fresh("_n"), self.names.fresh("_n")
        return [A.Const(work, binary("*", k, A.Int(BLOCK // 4))),
                A.Buffer(self._work_name("xwork"), A.TensorType("i32", (work,), "veccalc")),
                A.Const(idx, binary("*", call("cdiv", k, A.Int(64)), A.Int(64))),
                A.Buffer(self._work_name("xidx"), A.TensorType("i32", (idx,), "veccalc"))]

    def _window_work(self) -> list:
        """Pooling works through wwork (every input row pooled along its width, and room for one
        gathered view) and widx (the Gather offsets of the width pass, then of the row pass)."""
        if not self.windows:
            return []
        dtype = self.dtype[self.windows[0][0]]
        mids, tables = [], []
        for src, dst in self.windows:
            in_shape, out_shape = self.shape[src], self.shape[dst]
            rows_in = in_shape[0] if len(in_shape) == 2 else A.Int(1)
            mid = aligned_elems((rows_in, out_shape[-1]), dtype)
            mids.append(binary("*", A.Int(2), mid))     # the pooled rows, and one gathered view
            tables.append(binary("+", mid, aligned_elems(out_shape, dtype)))
        work, idx = self.names.fresh("_n"), self.names.fresh("_n")
        return [A.Const(work, _maximum(mids)),
                A.Buffer(self._work_name("wwork"), A.TensorType(dtype, (work,), "veccalc")),
                A.Const(idx, _maximum(tables)),
                A.Buffer(self._work_name("widx"), A.TensorType("i32", (idx,), "veccalc"))]

    def _scan_work(self) -> list:
        """Scans and ReduceProd work on a copy (swork: the tile plus one 64-element row); scans also
        need their two Gather offset tables (sidx: 2 x the tile, as 32-bit byte offsets)."""
        if not self.scanned:
            return []
        dtype = self.dtype[self.scanned[0][0]]
        size = _maximum([aligned_elems(self.shape[n], self.dtype[n]) for n, _ in self.scanned])
        work, idx = self.names.fresh("_n"), self.names.fresh("_n")
        out = [A.Const(work, binary("+", size, A.Int(64))),
               A.Buffer(self._work_name("swork"), A.TensorType(dtype, (work,), "veccalc"))]
        if any(op not in ("ReduceProd", "ProdEachRow") for _, op in self.scanned):
            out += [A.Const(idx, binary("*", A.Int(2), size)),
                    A.Buffer(self._work_name("sidx"), A.TensorType("i32", (idx,), "veccalc"))]
        return out

    def _reduce_work(self) -> list:
        """The ReduceSum/Max/Min work area, sized for the largest reduced tile (ascendc_api.md 3.3),
        and for the per-row forms' blocks: one per row (to a whole 8 rows), then the rows' values."""
        if not self.reduced and not self.row_work:
            return []
        dtype = self.dtype[self.reduced[0]] if self.reduced else self.row_work[0][1]
        sizes = []

        def in_rwork(elems, of: str):   # a count of ``of`` elements as rwork's (possibly narrower) elements
            widen = -(-D.ITEMSIZE[of] // D.ITEMSIZE[dtype])
            return elems if widen == 1 else binary("*", elems, A.Int(widen))
        for n in self.reduced:
            per_repeat = REPEAT // D.ITEMSIZE[self.dtype[n]]
            per_block = BLOCK // D.ITEMSIZE[self.dtype[n]]
            first = call("cdiv", aligned_elems(self.shape[n], self.dtype[n]), A.Int(per_repeat))
            sizes.append(in_rwork(binary("+", binary("*", call("cdiv", first, A.Int(per_block)), A.Int(per_block)),
                                         A.Int(per_repeat)), self.dtype[n]))
        for rows, row_dtype in self.row_work:
            per_block = BLOCK // D.ITEMSIZE[row_dtype]
            rows8 = binary("*", call("cdiv", rows, A.Int(8)), A.Int(8))
            sizes.append(in_rwork(binary("+", binary("*", rows8, A.Int(per_block)),
                                         binary("*", call("cdiv", rows8, A.Int(per_block)), A.Int(per_block))),
                                  row_dtype))
        const = self.names.fresh("_n")
        return [A.Const(const, _maximum(sizes)),
                A.Buffer(self._work_name("rwork"), A.TensorType(dtype, (const,), "veccalc"))]

    # ------------------------------------------------------------ rewrite
    def _place(self, stmts, placement) -> list:
        out = []
        for s in stmts:
            if isinstance(s, A.Assign) and s.target in placement and tile_value(s.value):
                value = with_out(s.value, placement[s.target])
                if isinstance(value, A.Call) and value.func == "Transpose":
                    # the output's rows are the source's static row bound long, as its buffer was sized
                    value = replace(value, kwargs=value.kwargs + (A.Keyword("rows", self.shape[s.target][-1]),))
                out.append(replace(s, value=value))
            elif isinstance(s, (A.For, A.ParallelFor)):
                out.append(replace(s, body=tuple(self._place(s.body, placement))))
            else:
                out.append(s)
        return out


#: The UB work areas bufferize declares for the emitter's expansions, by role: rwork (reductions),
#: swork/sidx (scans, ReduceProd, ProdEachRow), wwork/widx (windows), xwork/xidx (strided GM copies),
#: gidx (slices of tiles).
#: The work buffers bufferize declares, by role, and what each holds (as messages name them).
WORK_ROLES = {"rwork": "the reductions' work area", "swork": "the scans' and products' work area",
              "sidx": "the scans' offset tables", "wwork": "the windows' work area", "widx": "the windows' offsets",
              "xwork": "the strided copies' staging area", "xidx": "the strided copies' offsets",
              "gidx": "the tile slices' offsets"}

#: Ops that work on a copy in swork (64-element rows folded, then 64 lanes on the scalar unit).
_SCANNED = ("CumSum", "CumProd", "CumSumExclusive", "CumProdExclusive", "ReduceProd", "ProdEachRow")


def slice_extent(sub, base, consts: set):
    """The static length of a tile slice ``a:b`` of an axis of static extent ``base`` (what its
    buffer is sized by): ``b - a`` when the slice's text gives it (``j:j + T``, ``0:H``) in dims,
    constants and attributes only, else ``base``."""
    start = sub.start if sub.start is not None else A.Int(0)
    if sub.stop is None and base is None:
        return None
    stop = sub.stop if sub.stop is not None else base
    ext = _difference(start, stop, base)
    if ext is None:
        return None
    names = A.names_in(ext)
    return ext if names <= consts else base


def work_role(name: str) -> str | None:
    """The role of a buffer named ``name`` if it has a work buffer's form (a role, then digits)."""
    stem = name.rstrip("0123456789")
    return stem if stem in WORK_ROLES else None


def work_buffers(kernel: A.Kernel, spelled=lambda n: n) -> dict[str, str]:
    """role -> name of each work buffer a bufferized kernel declares. Bufferize names them by
    ``Names.fresh(role, bare=True)`` (fresh with respect to every name of the kernel, the writer's
    included) and renames any other buffer of that form, so each role has at most one buffer of
    its form. ``spelled`` maps a declared name to its DSL name (``codegen.names.dsl_name`` for a
    program in C++ spelling)."""
    out = {}
    for s in kernel.body:
        if isinstance(s, A.Buffer) and s.type.space == "veccalc":
            role = work_role(spelled(s.name))
            if role is not None:
                out[role] = s.name
    return out


def rename_buffers(node, mapping: dict):
    """``node`` with the buffers in ``mapping`` renamed: their declarations, ``out=`` of loads and
    ``out=<buffer>`` of ops. Nodes that do not change are kept (types keyed by ``id`` stay valid)."""
    if isinstance(node, tuple):
        items = tuple(rename_buffers(x, mapping) for x in node)
        return node if all(a is b for a, b in zip(items, node)) else items
    if not is_dataclass(node) or isinstance(node, A.TensorType):
        return node
    changes = {}
    for f in fields(node):
        if f.name in ("span", "source"):
            continue
        v = getattr(node, f.name)
        if isinstance(v, str):
            if (isinstance(node, A.Name) and f.name == "id" or isinstance(node, A.Load) and f.name == "out"
                    or isinstance(node, A.Buffer) and f.name == "name") and v in mapping:
                changes[f.name] = mapping[v]
        elif isinstance(v, tuple) or is_dataclass(v):
            new = rename_buffers(v, mapping)
            if new is not v:
                changes[f.name] = new
    return replace(node, **changes) if changes else node


def window_kwargs(e) -> tuple[tuple, tuple]:
    """(kernel, stride) expressions of a window op; the stride defaults to the kernel."""
    def items(v):
        return tuple(v.items) if isinstance(v, A.Tuple) else (v,)
    kernel = items(e.kwarg("kernel"))
    stride = items(e.kwarg("stride")) if e.kwarg("stride") is not None else kernel
    return kernel, stride


def with_out(e, buf: str):
    if isinstance(e, A.Load):
        return replace(e, out=buf)
    kwargs = tuple(k for k in e.kwargs if k.name != "out") + (A.Keyword("out", A.Name(buf)),)
    return replace(e, kwargs=kwargs)


def _maximum(exprs: list):
    unique = []
    for e in exprs:
        if e not in unique:
            unique.append(e)
    out = unique[0]
    for e in unique[1:]:
        out = call("maximum", out, e)
    return out


def strided_region(src, symbols) -> bool:
    """Whether consecutive elements of the last axis a GM region keeps are not adjacent in GM: it is a
    column (:func:`column_region`), or that axis has a step (``x[i, a:b:2]``)."""
    if column_region(src, symbols):
        return True
    return isinstance(src, A.Index) and len(src.subscripts) == len(symbols.strides(src.base.id)) and \
        isinstance(src.subscripts[-1], A.Slice) and src.subscripts[-1].stepped()


def column_region(src, symbols) -> bool:
    """Whether the last axis a GM region keeps is not adjacent elements in GM: not the tensor's last
    (``x[a:b, j]``, ``x[:, i, j]``), or a permuted view's axis that is not its tensor's last."""
    name = (src.base if isinstance(src, A.Index) else src).id
    strides = symbols.strides(name)
    kept = [i for i, x in enumerate(A.whole_subscripts(src, len(strides))) if isinstance(x, A.Slice)]
    return bool(kept) and strides[kept[-1]] != ()


def region_extents(src, ctx) -> tuple:
    """Extents of a GM region ``x[i, a:a + T, :]`` as expressions (integer indices drop their axis)."""
    tensor = ctx.tensor((src.base if isinstance(src, A.Index) else src).id)
    dim_exprs = [dim_expr(d) for d in tensor.dims]
    if not isinstance(src, A.Index):
        return tuple(dim_exprs)
    out = []
    for axis, sub in enumerate(src.subscripts):
        if not isinstance(sub, A.Slice):
            continue
        start = sub.start if sub.start is not None else A.Int(0)
        stop = sub.stop if sub.stop is not None else dim_exprs[axis]
        ext = _difference(start, stop, dim_exprs[axis])
        out.append(call("cdiv", ext, sub.step) if sub.stepped() else ext)
    out += dim_exprs[len(src.subscripts):]
    return tuple(out)


def _difference(start, stop, dim):
    """An upper bound of ``stop - start`` (the usual ``j:j + T`` gives ``T``), else the dim."""
    ext = bounded_difference(start, stop)
    return dim if ext is None else ext


def bounded_difference(start, stop):
    """``stop - start`` when it is syntactically ``start + E``, or a linear difference; a
    ``minimum(...)`` stop or a ``maximum(...)`` start is bounded by its arguments whose difference is
    known (``r:minimum(r + RB, e)`` takes at most ``RB``, as the checker bounds it); else None."""
    for side, fn in ((stop, "minimum"), (start, "maximum")):
        if isinstance(side, A.Call) and side.func == fn and not side.kwargs:
            known = [d for d in (bounded_difference(start, a) if side is stop else bounded_difference(a, stop)
                                 for a in side.args) if d is not None]
            return known[0] if len(known) == 1 else call("minimum", *known) if known else None
    if isinstance(stop, A.Binary) and stop.op == "+" and stop.lhs == start:
        return stop.rhs
    if isinstance(start, A.Int) and start.value == 0:
        return stop
    if isinstance(start, A.Binary) and start.op == "-" and isinstance(stop, A.Binary) and stop.op == "+" \
            and start.lhs == stop.lhs:   # h - p : h + E + p style halos
        return binary("+", stop.rhs, start.rhs)
    return _linear_difference(start, stop)


def _linear_difference(start, stop):
    """``stop - start`` of sums, differences and products of terms when every term of ``start``
    cancels against ``stop`` (``h - 1:h + T + 1`` -> ``T + 2``; products distribute over sums, so
    ``S * i:S * (i + T)`` -> ``S * T``), else None."""
    terms: dict = {}          # a term's key -> [term, coefficient]; constants under None
    for sign, side in ((1, stop), (-1, start)):
        for c, t in _expand(side):
            key = None if t is None else repr(t)
            entry = terms.setdefault(key, [t, 0])
            entry[1] += sign * c
    const = terms.pop(None, [None, 0])[1]
    if any(c < 0 for _, c in terms.values()):
        return None
    out = None
    for e, c in terms.values():
        if c:
            term = e if c == 1 else binary("*", e, A.Int(c))
            out = term if out is None else binary("+", out, term)
    if out is None:
        return A.Int(const) if const > 0 else None
    if const:
        out = binary("+" if const > 0 else "-", out, A.Int(abs(const)))
    return out


def _expand(e) -> list:
    """``e`` as (coefficient, term) pairs, the term None for a constant: sums and differences
    flattened, products of sums distributed (a product's factors in a canonical order)."""
    if isinstance(e, A.Int):
        return [(e.value, None)]
    if isinstance(e, A.Unary) and e.op == "-":
        return [(-c, t) for c, t in _expand(e.operand)]
    if isinstance(e, A.Binary) and e.op in ("+", "-"):
        rhs = _expand(e.rhs)
        return _expand(e.lhs) + (rhs if e.op == "+" else [(-c, t) for c, t in rhs])
    if isinstance(e, A.Binary) and e.op == "*":
        a, b = _expand(e.lhs), _expand(e.rhs)
        if len(a) * len(b) <= 16:
            return [(ca * cb, _times(ta, tb)) for ca, ta in a for cb, tb in b]
    return [(1, e)]


def _times(a, b):
    """The product term of two terms (None: 1)."""
    if a is None or b is None:
        return b if a is None else a
    first, second = sorted((a, b), key=repr)
    return binary("*", first, second)

