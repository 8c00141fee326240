"""The interpreter's calls of the op table by kind (reductions, arg-reductions, gather/scatter,
scans, windows, matmul, casts, selects, constructors, API-level ops, scalar helpers), each
compiled into ``env -> value``. A mixin of ``interpreter.Interpreter``."""
from __future__ import annotations

import itertools

import numpy as np

from .. import dtypes as D
from . import ast as A
from . import indexing
from .interp_values import (
    SPACE_INDEX,
    Tile,
    cast_array,
    cast_scalar,
    matmul_tiles,
    runtime_error,
)
from .ops import OPS
from .types import TGM, TRegion, on_vector


class CallInterpreter:
    def _k_reduce(self, op, e):
        arg = self.expr(e.args[0])
        axis, keep = self._const_kw(e, "axis", None), self._const_kw(e, "keepdims", False)
        name, fn = op.name, op.numpy

        def run(env):
            t = arg(env)
            a = t.data
            if name == "mean":
                n = a.size if axis is None else a.shape[axis]
                s = np.sum(a, axis=axis, keepdims=keep, dtype=a.dtype)
                out = s / a.dtype.type(max(n, 1)) if n else np.full(s.shape, np.nan, a.dtype)
            elif name in ("max", "min") and a.size == 0:
                ident = D.lowest(t.dtype) if name == "max" else D.highest(t.dtype)
                out = np.full(np.sum(a, axis=axis, keepdims=keep).shape, ident, a.dtype)
            elif name in ("max", "min"):
                out = fn(a, axis=axis, keepdims=keep)
            else:
                out = fn(a, axis=axis, keepdims=keep, dtype=a.dtype)
            return Tile(D.quantize(np.asarray(out), t.dtype), t.dtype, on_vector(t.space))
        return run

    def _k_argreduce(self, op, e):  # argmax / argmin: ascendcraft/dsl/indexing.py
        return indexing.run_argreduce(self, op, e, runtime_error)

    def _k_gather(self, op, e):     # gather(t, idx, axis=...): ascendcraft/dsl/indexing.py
        return indexing.run_gather(self, op, e, runtime_error)

    def _k_scatter(self, op, e):    # scatter / scatter_add(t, idx, v, axis=...): ascendcraft/dsl/indexing.py
        return indexing.run_scatter(self, op, e, runtime_error)

    def _k_scan(self, op, e):
        arg = self.expr(e.args[0])
        axis = self._const_kw(e, "axis", -1)
        reverse, exclusive = self._const_kw(e, "reverse", False), self._const_kw(e, "exclusive", False)
        name, fn = op.name, op.numpy

        def run(env):
            t = arg(env)
            a = t.data
            if reverse:
                a = np.flip(a, axis)
            if t.dtype == "f16":
                # accumulated in f32 and rounded once per result, as torch does on the CPU and NumPy's
                # sums of a half row do (the lowering widens the scan so)
                out = fn(a.astype(np.float32), axis=axis).astype(np.float16)
            else:
                out = fn(a, axis=axis, dtype=a.dtype)
            if t.dtype == "bf16":
                out = D.round_bf16(out)  # hardware rounds every partial; this rounds the results (close, not exact)
            if exclusive and out.shape[axis]:
                first = np.take(out, [0], axis=axis)
                ident = np.zeros_like(first) if name == "cumsum" else np.ones_like(first)
                out = np.concatenate([ident, np.take(out, range(out.shape[axis] - 1), axis=axis)], axis=axis)
            if reverse:
                out = np.flip(out, axis)
            return Tile(np.ascontiguousarray(out), t.dtype, on_vector(t.space))
        return run

    def _k_transpose(self, op, e):
        return self._transposed(self.expr(e.args[0]))

    @staticmethod
    def _transposed(arg):
        """transpose / Transpose: the 2-D tile's axes swapped, on the vector unit."""
        def run(env):
            t = arg(env)
            return Tile(np.ascontiguousarray(t.data.T), t.dtype, on_vector(t.space))
        return run

    def _k_triangle(self, op, e):
        arg = self.expr(e.args[0])
        d = e.kwarg("diagonal")
        diagonal = self.expr(d) if d is not None else (lambda env: 0)
        return self._triangle_of(op.name, arg, diagonal)

    def _triangle_of(self, name, arg, diagonal):
        fn = np.tril if name == "tril" else np.triu
        l0c = SPACE_INDEX["l0c"]

        def run(env):
            t = arg(env)
            if t.space == "l0c":
                # the accumulator masked as it is stored (the cube lowering): it holds no L0C of its own
                self.temps[l0c] -= t.nbytes
            return Tile(np.ascontiguousarray(fn(t.data, k=int(diagonal(env)))), t.dtype, t.space)
        return run

    def _k_window(self, op, e):
        arg = self.expr(e.args[0])
        kernel = self._const_kw(e, "kernel", None)
        kernel = (kernel,) if isinstance(kernel, int) else tuple(kernel)
        n = len(kernel)

        def expand(name, default):
            v = self._const_kw(e, name, default)
            return (v,) * n if isinstance(v, int) else tuple(v)
        stride, padding, dilation = expand("stride", kernel), expand("padding", 0), expand("dilation", 1)
        extents = tuple((k - 1) * d + 1 for k, d in zip(kernel, dilation))
        count = int(np.prod(kernel))
        is_max = op.name == "window_max"

        def run(env):
            t = arg(env)
            a = t.data
            lead = a.ndim - n
            if any(padding):
                ident = D.lowest(t.dtype) if is_max else 0
                a = np.pad(a, [(0, 0)] * lead + [(p, p) for p in padding], constant_values=ident)
            for size, ext in zip(a.shape[lead:], extents):
                if size < ext:
                    raise runtime_error(f"{op.name}: a window spanning {ext} elements does not fit a tile axis of {size} "
                                "at run time", e, kind="shape error",
                                hint="a tail tile is shorter than the window; load halos with pad=... so tiles "
                                     "keep their full length")
            if is_max:
                # the maximum over the window's offsets, one strided view of the tile each: a max is
                # exact in any order, and NumPy reduces a window view's small axes very slowly
                counts = [(size - ext) // s + 1 for size, ext, s in zip(a.shape[lead:], extents, stride)]
                out = None
                for offsets in itertools.product(*(range(k) for k in kernel)):
                    view = a[(slice(None),) * lead + tuple(slice(o * d, o * d + (m - 1) * s + 1, s) for o, d, m, s
                                                           in zip(offsets, dilation, counts, stride))]
                    out = np.array(view) if out is None else np.maximum(out, view, out=out)
                return Tile(D.quantize(out, t.dtype), t.dtype, on_vector(t.space))
            win = np.lib.stride_tricks.sliding_window_view(a, extents, axis=tuple(range(lead, a.ndim)))
            win = win[(slice(None),) * lead + tuple(slice(None, None, s) for s in stride) +
                      tuple(slice(None, None, d) for d in dilation)]
            red = tuple(range(a.ndim, a.ndim + n))
            out = np.sum(win, axis=red, dtype=a.dtype) / a.dtype.type(count)
            return Tile(D.quantize(np.ascontiguousarray(out), t.dtype), t.dtype, on_vector(t.space))
        return run

    def _cube_operand(self, x):
        """A product's operand: a GM region read as a tile, or a tile."""
        if isinstance(self.types.get(id(x)), (TGM, TRegion)):
            return self._load_value(A.Load(x, span=x.span))
        return self.expr(x)

    def _k_matmul(self, op, e):
        fa, fb = (self._cube_operand(x) for x in e.args)
        ta, tb = self._const_kw(e, "transpose_a", False), self._const_kw(e, "transpose_b", False)
        space = self.types[id(e)].space    # a product of streamed operands is handed to UB whole
        if space == "l0c":
            return lambda env: matmul_tiles(fa(env), fb(env), ta, tb, e)

        def run(env):
            c = matmul_tiles(fa(env), fb(env), ta, tb, e)
            return Tile(c.data, c.dtype, space)
        return run

    def _k_gemm(self, e):
        """``Matmul(a[...], b[...])``: the product of two GM regions (fp32 accumulation), as a "gm"
        tile in the store's dtype, or a "ub" tile (an assignment's value: the fused form). An operand
        may be a ub tile (``staged=``: where the emitted kernel copies it for the cube)."""
        fa, fb = (self._cube_operand(x) for x in e.args)
        ta, tb = self._const_kw(e, "transpose_a", False), self._const_kw(e, "transpose_b", False)
        out, space = self.types[id(e)].dtype, self.types[id(e)].space
        taps = e.kwarg("taps")
        if taps is not None:     # the first product plus one per tap t (cube_taps.py), summed in f32
            var = taps.items[0].id
            fstart, fstop, fstep = (self.expr(x) for x in taps.items[1:4])
            fat, fbt = (self._cube_operand(x) for x in taps.items[4:])

            def run_taps(env):
                c = matmul_tiles(fa(env), fb(env), ta, tb, e).data.astype(np.float32)
                for t in range(int(fstart(env)), int(fstop(env)), int(fstep(env))):
                    at = dict(env)
                    at[var] = t
                    c = c + matmul_tiles(fat(at), fbt(at), ta, tb, e).data.astype(np.float32)
                return Tile(D.quantize(c.astype(D.NUMPY[out]), out), out, space)
            return run_taps

        def run(env):
            c = matmul_tiles(fa(env), fb(env), ta, tb, e)
            return Tile(D.quantize(c.data.astype(D.NUMPY[out]), out), out, space)
        return run

    def _k_cast(self, op, e):
        fx, target, mode = self.expr(e.args[0]), e.args[1].id, self._const_kw(e, "round", None)

        def run(env):
            x = fx(env)
            if type(x) is not Tile:
                return cast_scalar(x, target, mode)
            return Tile(cast_array(x.data, x.dtype, target, mode), target, on_vector(x.space))
        return run

    def _k_select(self, op, e):
        fm, fa, fb = (self.expr(x) for x in e.args)

        def run(env):
            mask, a, b = fm(env), fa(env), fb(env)
            tiles = [v for v in (a, b) if type(v) is Tile]
            if not tiles:
                return a if mask else b
            dtype = tiles[0].dtype
            np_t = D.NUMPY[dtype]
            m = mask.data if type(mask) is Tile else bool(mask)
            out = np.where(m, a.data if type(a) is Tile else np_t(a), b.data if type(b) is Tile else np_t(b))
            return Tile(out.astype(np_t, copy=False), dtype, "ub")
        return run

    def _k_construct(self, op, e):
        shape = self.types[id(e)].shape          # constant: the checker computed it
        dtype = self.types[id(e)].dtype
        space = self.types[id(e)].space
        np_t = D.NUMPY[dtype]
        if op.name == "zeros":
            return lambda env: Tile(np.zeros(shape, np_t), dtype, space)
        if op.name == "full":
            fv = self.expr(e.args[1])
            return lambda env: Tile(D.quantize(np.full(shape, fv(env), np_t), dtype), dtype)
        start = e.kwarg("start")
        fs = self.expr(start) if start is not None else (lambda env: 0)
        return lambda env: Tile(D.quantize(np.arange(fs(env), fs(env) + shape[0]), dtype), dtype)

    def _k_api(self, op, e):
        """API-level ops: the meaning of the v1 op they implement, on fresh arrays."""
        form = op.form
        if form == "gemm":
            return self._k_gemm(e)
        if form in indexing.API_FORMS:    # Gather, ArgMaxRows/ArgMinRows: dsl/indexing.py
            return indexing.run_api(self, op, e, runtime_error)
        args = [self.expr(a) for a in e.args]
        if form == "getvalue":
            def getvalue(env):
                t = args[0](env)
                if t.data.size != 1:
                    raise runtime_error(f"GetValue needs a tile of one element, got {list(t.data.shape)}", e)
                return t.data.reshape(()).item()
            return getvalue
        if form == "copy":
            return lambda env: (lambda t: Tile(t.data.copy(), t.dtype, t.space))(args[0](env))
        if form == "reduce":
            fn = OPS[op.of].numpy

            def reduce(env):
                t = args[0](env)
                if t.data.size == 0:
                    raise runtime_error(f"{op.name} of an empty tile", e)
                acc = fn(t.data.astype(np.float32) if t.dtype == "f16" else t.data)
                return float(D.quantize(np.asarray(acc, dtype=D.NUMPY[t.dtype]), t.dtype))
            return reduce
        if form == "window":
            return self._k_window(OPS[op.of], e)
        if form == "triangle":
            return self._triangle_of(op.of, args[0], args[1])
        if form == "transpose":
            return self._transposed(args[0])
        if form == "rowreduce":
            fn, keep = OPS[op.of].numpy, self._const_kw(e, "keepdims", False)

            def rowreduce(env):
                t = args[0](env)
                if t.data.shape[1] == 0:
                    raise runtime_error(f"{op.name} of a tile with empty rows", e)
                data = t.data.astype(np.float32) if t.dtype == "f16" else t.data
                return Tile(D.quantize(np.ascontiguousarray(fn(data, axis=1, keepdims=keep)), t.dtype), t.dtype)
            return rowreduce
        if form == "scan":
            fn, reverse = OPS[op.of].numpy, self._const_kw(e, "reverse", False)

            def scan(env):
                t = args[0](env)
                flat = t.data.reshape(-1)     # a [1, C] row scans as its C values
                data = flat[::-1] if reverse else flat
                out = fn(data.astype(np.float32) if t.dtype == "f16" else data)
                out = (out[::-1] if reverse else out).reshape(t.data.shape)
                return Tile(D.quantize(np.ascontiguousarray(out), t.dtype), t.dtype, on_vector(t.space))
            return scan
        if form == "rows":
            fn = OPS[op.of].numpy

            def rows(env):
                t = args[0](env)
                if t.data.shape[0] == 0:
                    raise runtime_error(f"{op.name} of a tile with no rows", e)
                return Tile(D.quantize(fn(t.data, axis=0), t.dtype), t.dtype, on_vector(t.space))
            return rows
        if form == "duplicate":
            shape, dtype = self.types[id(e)].shape, self.types[id(e)].dtype
            fv = args[1]
            return lambda env: Tile(D.quantize(np.full(shape, fv(env), D.NUMPY[dtype]), dtype), dtype)
        if form == "cast":
            target, mode = e.args[1].id, self._const_kw(e, "round", None)
            return lambda env: (lambda x: Tile(cast_array(x.data, x.dtype, target, mode), target))(args[0](env))
        if form == "compare":
            cmp = OPS[self._const_kw(e, "mode", None)]
            return lambda env: self._elementwise(cmp, [f(env) for f in args])
        if form in ("select", "selectrows"):   # SelectRows: where with its [R, 1] mask broadcast
            return self._k_select(OPS["where"], e)
        if form == "axpy":    # acc + x * s: the product rounded, then the sum (two roundings, as Muls then Add)
            return lambda env: self._elementwise(OPS["add"], [args[0](env), self._elementwise(
                OPS["mul"], [args[1](env), args[2](env)])])
        of = OPS[op.of]
        return lambda env: self._elementwise(of, [f(env) for f in args])

    def _k_scalar(self, op, e):
        fa, fb = self.expr(e.args[0]), self.expr(e.args[1])

        def run(env):
            a, b = fa(env), fb(env)
            if b == 0:
                raise runtime_error("cdiv by zero", e)
            return -(-a // b)
        return run

