"""The checker's lowered forms: buffers and their UB budget, API-level ops with ``out=``
buffers, and Matmul API calls (the levels the lowering passes write). A mixin of
``checker.Checker``.
"""
from __future__ import annotations

from .. import dtypes as D
from . import ast as A
from . import indexing
from .check_common import check_error, suggest
from .ops import (
    API_COMPARE_MODES,
    OPS,
)
from .types import TDType, TScalar, TTile

#: UB bytes the emitter keeps beside the lowering's buffers in every kernel with a vector part
#: (``scalarBuf``: scalar exp/log/sqrt run on the vector unit); the buffer budget counts them.
SCALAR_RESERVE = 256


class LoweredFormsChecker:
    # ------------------------------------------------------------ lowered forms: buffers
    def _buffer(self, s: A.Buffer, depth):
        if depth:
            raise check_error("buffers are declared at the top of the kernel body", s)
        if s.type.dtype not in D.ALL:
            raise check_error(f"unknown dtype {s.type.dtype!r}", s.type)
        if s.name in self.buffers or s.name in self.env:
            raise check_error(f"{s.name!r} is already defined", s)
        queue = s.type.space in ("vecin", "vecout")
        if not 1 <= s.depth <= (8 if queue else 1):
            raise check_error(f"buffer depth {s.depth}: queues hold 1 to 8 slots, veccalc buffers 1", s)
        self._dims(s.type, s)
        self.buffers[s.name] = s
        self.fixed.add(s.name)

    def buffer_bytes(self, b: A.Buffer) -> int:
        """UB bytes of a buffer: each slot rounded up to 32 bytes (TPipe::InitBuffer does the same)."""
        n = D.ITEMSIZE[b.type.dtype]
        for d in self._dims(b.type, b):
            n *= d
        return -(-n // 32) * 32 * b.depth

    def _check_buffer_budget(self):
        """ascendc_api.md 1.3: at most 64 buffers, 8 allocated per position; their sum fits the UB."""
        total = sum(self.buffer_bytes(b) for b in self.buffers.values())
        cap = self.chip.capacity("ub") - SCALAR_RESERVE
        last = list(self.buffers.values())[-1]
        if total > cap:
            largest = sorted(self.buffers.values(), key=self.buffer_bytes, reverse=True)[:5]
            held = self._buffer_contents()
            listed = "; ".join(f"{held.get(b.name, (b.name, None))[0]}: {self.buffer_bytes(b):,} bytes"
                               + (f" ({b.depth} slots)" if b.depth > 1 else "") for b in largest)
            at = next((held[b.name][1] for b in largest if held.get(b.name, (0, None))[1] is not None), last)
            dims = ", ".join(f"{d}={v}" for d, v in self.binding.dims.items())
            raise check_error(f"the lowering's buffers take {total:,} bytes of UB at {dims or 'these shapes'}; "
                              f"{self.chip.name} has {cap:,} for them, {SCALAR_RESERVE} of its {cap + SCALAR_RESERVE:,} "
                              f"being kept for scalar math (largest: {listed})", at,
                              kind="memory error",
                              hint="smaller tiles (a tile size that is a const used only as a range step and slice "
                                   "length, T = 8192 or minimum(N, 8192), or as the tile count and position of a "
                                   "parallel loop, cdiv(S, T) and b * T, is shrunk by the lowering itself), fewer "
                                   "tiles live at once, or rows of a multiple of 8 values (each row of a 2-D tile "
                                   "takes a whole number of 32-byte blocks)")
        if sum(b.depth for b in self.buffers.values()) > 64:
            raise check_error("more than 64 buffers in one kernel (AscendC limit)", last, kind="memory error")
        for pos in ("vecin", "vecout"):
            n = sum(b.depth for b in self.buffers.values() if b.type.space == pos)
            if n > 8:
                raise check_error(f"{n} {pos} buffers: at most 8 per position can be allocated at once", last,
                           kind="memory error", hint="fewer queues or a smaller depth")

    def _buffer_contents(self) -> dict:
        """buffer name -> (what it holds, in the writer's terms, the statement of its first tile or None)."""
        from ascendcraft.lowering_passes.bufferize import WORK_ROLES, work_role
        from ascendcraft.lowering_passes.fit import placements
        lines: dict[str, list] = {}
        for s, out, _ in placements(self.kernel):
            lines.setdefault(out, []).append(s)
        held = {}
        for name in self.buffers:
            stmts = lines.get(name, [])
            if stmts:
                numbers = sorted({s.span.line for s in stmts if s.span is not None})
                what = f"the tiles of line{'s' if len(numbers) > 1 else ''} {', '.join(map(str, numbers))}" \
                    if numbers else f"the tiles of buffer {name}"
                held[name] = (what, stmts[0])
            elif work_role(name) is not None:
                held[name] = (WORK_ROLES[work_role(name)], None)
        return held

    def _placed(self, out: str | None, t: TTile, node):
        """``out=b``: the tile must fit buffer b (same dtype, enough elements)."""
        if out is None:
            if self.buffers and isinstance(t, TTile) and t.space == "ub":
                raise check_error("in a kernel with buffers every ub tile needs out=<buffer>", node)
            return t
        b = self.buffers.get(out)
        if b is None:
            raise check_error(f"out={out}: no buffer named {out!r}", node, hint=suggest(out, set(self.buffers)))
        if not isinstance(t, TTile):
            raise check_error(f"out={out}: only tiles are placed in buffers, this is a {t.describe()}", node)
        if b.type.dtype != t.dtype:
            raise check_error(f"out={out}: a {t.dtype} tile in a {b.type.dtype} buffer", node)
        need = 1
        for d in t.shape:
            need *= d
        have = 1
        for d in self._dims(b.type, b):
            have *= d
        if need > have:
            raise check_error(f"out={out}: the tile has {need} elements, the buffer {have}", node, kind="memory error")
        return t

    def _api(self, op, e: A.Call):
        form, args = op.form, e.args
        if form == "gemm":
            return self._gemm(op, e)
        types = [self.expr(a) for a in args]
        out = e.kwarg("out")
        if out is not None and not isinstance(out, A.Name):
            raise check_error("out= names a buffer", out)

        def tile(i, what="a ub tile"):
            t = types[i]
            if not (isinstance(t, TTile) and t.space == "ub"):
                raise check_error(f"{op.name}: argument {i + 1} must be {what}, got {t.describe()}", args[i])
            return t

        def dtype_ok(t, node):
            if t.dtype not in op.dtypes:
                raise check_error(f"{op.name} does not support {t.dtype}", node)

        def scalar(i, dtype):
            t = types[i]
            if not isinstance(t, TScalar):
                raise check_error(f"{op.name}: argument {i + 1} must be a scalar, got {t.describe()}", args[i])
            self._scalar_fits(t, dtype, args[i])

        if form == "getvalue":
            t = tile(0)
            return TScalar(t.dtype)
        if form in indexing.API_FORMS:    # Gather, ArgMaxRows/ArgMinRows: dsl/indexing.py
            return indexing.check_api(self, op, e, types, out)
        if form in ("rowvec", "colvec"):
            a, b = tile(0), tile(1)
            dtype_ok(a, args[0])
            # a row vector is [C] or [1, C] (keepdims=True along axis 0), on either side
            big, vec = (b, a) if form == "rowvec" and (len(a.shape) == 1 or len(b.shape) == 2 and a.shape[0] == 1
                                                       and b.shape[0] != 1) else (a, b)
            ok = len(big.shape) == 2 and big.dtype == vec.dtype and (
                vec.shape in ((big.shape[1],), (1, big.shape[1])) if form == "rowvec" else vec.shape == (big.shape[0], 1))
            if not ok:
                raise check_error(f"{op.name} takes a [R, C] tile and a {'[C]' if form == 'rowvec' else '[R, 1]'} vector "
                           f"of one dtype, got {a.describe()} and {b.describe()}", e, kind="shape error")
            return self._placed(out.id if out is not None else None, TTile(big.dtype, big.shape), e)
        if form == "outer":   # a column [R, 1] and a row [C] / [1, C], either order -> [R, C]
            from .broadcast import outer_shape
            a, b = tile(0), tile(1)
            dtype_ok(a, args[0])
            shape = outer_shape(a.shape, b.shape)
            if shape is None or a.dtype != b.dtype:
                raise check_error(f"{op.name} takes an [R, 1] column and a [C] or [1, C] row of one dtype, got {a.describe()} "
                           f"and {b.describe()}", e, kind="shape error")
            return self._placed(out.id if out is not None else None, TTile(a.dtype, shape), e)
        if form == "selectrows":   # ([R, 1] bool bytes, [R, C] tile or scalar, [R, C] tile or scalar)
            m = tile(0, "a bool mask tile")
            values = [t for t in types[1:] if isinstance(t, TTile)]
            if m.dtype != "bool" or len(m.shape) != 2 or m.shape[1] != 1 or not values or \
                    any(v.shape != (m.shape[0], values[0].shape[1]) or v.dtype != values[0].dtype or v.space != "ub"
                        for v in values) or len(values[0].shape) != 2:
                raise check_error(f"{op.name} takes an [R, 1] bool mask and [R, C] tiles (or scalars) of one dtype, got "
                                  f"{', '.join(t.describe() for t in types)}", e, kind="shape error")
            dtype_ok(values[0], args[0])
            for i, t in enumerate(types[1:], 1):
                if not isinstance(t, TTile):
                    scalar(i, values[0].dtype)
            return self._placed(out.id if out is not None else None, values[0], e)
        if form == "transpose":
            t = tile(0)
            dtype_ok(t, args[0])
            if len(t.shape) != 2:
                raise check_error(f"{op.name} swaps the axes of a 2-D tile, got {t.describe()}", args[0], kind="shape error")
            return self._placed(out.id if out is not None else None, TTile(t.dtype, t.shape[::-1], t.space), e)
        if form == "triangle":   # (tile, diagonal)
            t = tile(0)
            dtype_ok(t, args[0])
            if len(t.shape) != 2:
                raise check_error(f"{op.name} masks a 2-D tile, got {t.describe()}", args[0], kind="shape error")
            self._int_scalar(args[1], f"{op.name}'s diagonal")
            return self._placed(out.id if out is not None else None, t, e)
        if form == "window":
            t = tile(0)
            if not 1 <= len(self.window_params(e, len(t.shape))[0]) <= min(2, len(t.shape)) or len(t.shape) > 2:
                raise check_error(f"{op.name} pools over the last one or two axes of a 1-D or 2-D tile", e, kind="shape error")
            result = self._window(OPS[op.of], e)
            return self._placed(out.id if out is not None else None, result, e)
        if form == "duplicate":
            shape = self._shape_arg(args[0])
            dt = types[2]
            if not isinstance(dt, TDType):
                raise check_error("Duplicate(shape, value, dtype): the third argument is a dtype", args[2])
            scalar(1, dt.name)
            result = TTile(dt.name, shape)
        elif form == "cast":
            t = tile(0)
            if not isinstance(types[1], TDType):
                raise check_error("Cast(x, dtype): the second argument is a dtype", args[1])
            result = TTile(types[1].name, t.shape)
        elif form == "select":
            m, a = tile(0, "a bool mask tile"), tile(1)
            dtype_ok(a, args[1])
            if m.dtype != "bool" or m.shape != a.shape:
                raise check_error(f"{op.name}: the mask must be a bool tile of the value's shape", args[0])
            if isinstance(types[2], TScalar):
                scalar(2, a.dtype)
            elif tile(2).dtype != a.dtype or types[2].shape != a.shape:
                raise check_error(f"{op.name}: both values need one dtype and shape", e)
            result = a
        else:
            a = tile(0)
            dtype_ok(a, args[0])
            if form == "reduce":
                return TScalar(a.dtype)
            if form == "rowreduce":
                if len(a.shape) != 2:
                    raise check_error(f"{op.name} reduces each row of a 2-D tile, got {a.describe()}", args[0],
                               kind="shape error")
                keep = self._kw_const(e, "keepdims", False)
                result = TTile(a.dtype, (a.shape[0], 1) if keep else (a.shape[0],))
            elif form == "rows":
                if len(a.shape) != 2:
                    raise check_error(f"{op.name} reduces the rows of a 2-D tile, got {a.describe()}", args[0],
                               kind="shape error")
                result = TTile(a.dtype, a.shape[1:])
            elif form == "scan":
                if len(a.shape) != 1 and tuple(a.shape[:1]) != (1,) or len(a.shape) > 2:   # [C] or a [1, C] row
                    raise check_error(f"{op.name} scans a 1-D tile, got {a.describe()}", args[0], kind="shape error")
                if not isinstance(self._kw_const(e, "reverse", False), bool):
                    raise check_error(f"{op.name}(..., reverse=...) is True or False", e)
                result = a
            elif form in ("unary", "copy"):
                result = a
            elif form == "scalar" or (form == "compare" and op.name == "CompareScalar"):
                scalar(1, a.dtype)
                result = TTile(op.result or a.dtype, a.shape)
            else:  # binary, Compare, Axpy (acc, x, s): two tiles of one shape (the API does not broadcast)
                b = tile(1)
                if b.dtype != a.dtype or b.shape != a.shape:
                    raise check_error(f"{op.name} needs two tiles of one dtype and shape, got {a.describe()} and "
                               f"{b.describe()}", e, kind="shape error")
                if form == "axpy":
                    scalar(2, a.dtype)
                result = TTile(op.result or a.dtype, a.shape)
            if form == "compare" and self._kw_const(e, "mode", None) not in API_COMPARE_MODES:
                raise check_error(f"{op.name}(..., mode=...) is one of {', '.join(API_COMPARE_MODES)}", e)
        return self._placed(out.id if out is not None else None, result, e)

    def _gemm_operand(self, x, e: A.Call) -> TTile:
        """A Matmul operand: a GM region, or a ub tile with ``staged=`` the GM region it is copied to
        for the cube (at least the tile's extents, of its dtype, in an f32/f16/bf16 scratch tensor)."""
        t = self.expr(x)
        staged = e.kwarg("staged")
        if isinstance(t, TTile) and t.space == "ub":
            if staged is None:
                raise check_error("a ub tile read by Matmul is staged=<a scratch region> for the cube", x)
            ws = self._gm_region(staged, "Matmul's staged= is")
            if ws.gm.role != "scratch" or ws.gm.dtype != t.dtype or len(ws.shape) != len(t.shape) or \
                    any(w < d for w, d in zip(ws.shape, t.shape)):
                raise check_error(f"Matmul's staged= is a scratch region of the tile's dtype and at least its "
                                  f"extents ({t.describe()})", staged)
            return t
        r = self._gm_region(x, "Matmul reads")
        return TTile(r.gm.dtype, r.shape, "gm")

    def _taps(self, taps, a: TTile, b: TTile, e: A.Call, to_ub: bool):
        """``Matmul(a0, b0, transpose_b=True, taps=(t, start, stop, step, a_t, b_t))``: the first tiles'
        product plus, for each t of range(start, stop, step), the product of the regions a_t and b_t
        (their indices may use t, bound only there): tap products, on the cube core (cube_taps.py);
        ``base=(M, N, K)``, the tiles' extents before clipping, sizes the cube core's buffers;
        ``resident=True`` keeps every tap's A tile in L1 across C tiles (the emitter's choice of memory)."""
        if to_ub or e.kwarg("out") is not None or any(e.kwarg(k) is not None for k in
                                                       ("strip", "ahead", "workspace", "staged")):
            raise check_error("Matmul(..., taps=...) is a store's value alone: tap products go from the cube to GM", e)
        if not (isinstance(taps, A.Tuple) and len(taps.items) == 6 and isinstance(taps.items[0], A.Name)):
            raise check_error("taps=(t, start, stop, step, A of tap t, B of tap t)", taps)
        var = taps.items[0].id
        if var in self.env:
            raise check_error(f"taps=: the tap variable {var!r} shadows an existing name", taps)
        for item in taps.items[1:4]:
            self._int_scalar(item, "taps=(...)")
        self.env[var] = TScalar("int")
        try:
            for item, first in zip(taps.items[4:], (a, b)):
                r = self._gemm_operand(item, e)
                if r.shape != first.shape or r.dtype != first.dtype:
                    raise check_error(f"a tap's region has the first one's extents and dtype ({first.describe()})", item)
        finally:
            del self.env[var]

    def _gemm(self, op, e: A.Call):
        """``Matmul(a[...], b[...], transpose_b=..., base=(bm, bn, bk))``: GM regions in, the product
        streamed to GM by the store it is the value of (a "gm" tile holds no on-chip memory), or, as
        an assignment's value, one base block of the product handed to UB (an f32 tile, ``out=`` its
        buffer once bufferized: the cube pass's fused form, Iterate + GetTensorC)."""
        to_ub = e is self._assign_value
        if not to_ub and (e is not self._store_value or self._store_value is None):
            raise check_error("Matmul(...) is the value of a store (store(c[...], Matmul(...))) or of an "
                              "assignment (a product tile in UB)", e)
        if e.kwarg("out") is not None and not to_ub:
            raise check_error("Matmul(...) stored to GM has no out=", e)
        a, b = (self._gemm_operand(x, e) for x in e.args)
        for r, node in ((a, e.args[0]), (b, e.args[1])):
            if len(r.shape) != 2 or r.dtype not in op.dtypes:
                raise check_error(f"Matmul multiplies 2-D f16, bf16 or f32 regions, got {r.dtype}"
                           f"[{', '.join(map(str, r.shape))}]", node, kind="shape error")
        if a.dtype != b.dtype:
            raise check_error(f"Matmul operands differ in dtype: {a.dtype} and {b.dtype}", e)
        m, n = self._product_shape(a.shape, b.shape, e)
        taps = e.kwarg("taps")
        if taps is not None:
            self._taps(taps, a, b, e, to_ub)
            return TTile("f32", (m, n), "gm")
        if self._kw_const(e, "resident", False) or e.kwarg("groups") is not None:
            raise check_error("Matmul(..., resident=True, groups=n) are tap products' (weights kept in L1; the "
                              "iterations the vector cores may run ahead): only with taps=", e)
        base = self._kw_const(e, "base", None)
        if not (isinstance(base, tuple) and len(base) == 3 and all(v > 0 and v % 16 == 0 for v in base[:2])
                and base[2] > 0):
            raise check_error("Matmul needs base=(baseM, baseN, baseK): the cube's base block, baseM and baseN "
                       "multiples of 16", e)
        strip, workspace, ahead = e.kwarg("strip"), e.kwarg("workspace"), e.kwarg("ahead")
        if strip is not None and ahead is not None:
            raise check_error("Matmul takes strip= or ahead=, not both", e)
        if ahead is not None:
            if not to_ub or workspace is None or e.kwarg("staged") is not None:
                raise check_error("Matmul(..., ahead=(n, start, stop, step, next A, next B), workspace=...) computes the "
                                  "next iteration's product tile ahead: a tile in UB of two GM regions", e)
            if not (isinstance(ahead, A.Tuple) and len(ahead.items) == 6):
                raise check_error("ahead=(n, start, stop, step, next A, next B)", ahead)
            for item in ahead.items[:4]:
                self._int_scalar(item, "ahead=(...)")
            for item, now in zip(ahead.items[4:], (a, b)):
                r = self._gemm_operand(item, e)
                if len(r.shape) != 2 or r.dtype != now.dtype:
                    raise check_error("ahead='s next regions are 2-D regions of the operands' dtype", item)
        defer = self._kw_const(e, "defer", False)
        if defer and (not to_ub or workspace is None or strip is not None or ahead is not None):
            raise check_error("Matmul(..., defer=True, workspace=...) starts a product tile in UB early and takes it at "
                              "its first use: with a workspace, without strip= or ahead=", e)
        if (strip is None and ahead is None and not defer) != (workspace is None) or (strip is not None and not to_ub):
            raise check_error("Matmul(..., strip=(tile, first, end, widest), workspace=...) computes a product tile's "
                              "strip ahead: both together, on a product tile in UB", e)
        if workspace is not None:
            ws = self._gm_region(workspace, "Matmul's workspace is")
            if ws.gm.role != "scratch" or ws.gm.dtype != "f32":
                raise check_error("Matmul's workspace is a region of an f32 scratch tensor", workspace)
        if strip is not None:
            if not (isinstance(strip, A.Tuple) and len(strip.items) == 4):
                raise check_error("strip=(tile, first, end, widest): four integer scalars", strip)
            for item in strip.items:
                self._int_scalar(item, "strip=(...)")
        if to_ub:
            if m > base[0] or n > base[1]:
                raise check_error(f"a product tile in UB is one base block: its {m} x {n} exceeds base "
                                  f"{base[0]} x {base[1]}", e, kind="shape error")
            out = e.kwarg("out")
            return self._placed(out.id if out is not None else None, TTile("f32", (m, n), "ub"), e)
        # fp32 accumulation; f16/bf16 products may be written in their own dtype (Fixpipe converts)
        out = self._store_dtype if a.dtype != "f32" and self._store_dtype in ("f16", "bf16") else "f32"
        return TTile(out, (m, n), "gm")

