"""The checker's expressions: names, operators, GM regions and loads, and every call of the op
table (reductions, scans, windows, matmul, casts, selects, constructors) with its types and
shapes. A mixin of ``checker.Checker``.
"""
from __future__ import annotations

from .. import dtypes as D
from . import ast as A
from . import indexing
from .check_common import Linear, broadcast_shapes, check_error, suggest
from .ops import (
    BINARY_OPERATORS,
    CONSTANT_NAMES,
    OPS,
    ROUND_MODES,
    UNARY_OPERATORS,
)
from .types import TGM, VECTOR_READS, TDType, TRegion, TScalar, TStr, TTile, TTuple, vector_operand
from .torch_forms import torch_form_hint


class ExpressionChecker:
    # ------------------------------------------------------------ expressions
    def expr(self, e):
        t = self._expr(e)
        self.expr_types[id(e)] = t
        return t

    def _expr(self, e):
        if isinstance(e, A.Int):
            return TScalar("int", e.value)
        if isinstance(e, A.Float):
            return TScalar("float", e.value)
        if isinstance(e, A.Str):
            return TStr(e.value)
        if isinstance(e, A.Tuple):
            return TTuple(tuple(self.expr(i) for i in e.items))
        if isinstance(e, A.Name):
            return self._name(e)
        if isinstance(e, A.Unary):
            return self._apply(OPS[UNARY_OPERATORS[e.op]], [e.operand], e)
        if isinstance(e, A.Binary):
            return self._binary(e)
        if isinstance(e, A.Index):
            return self._index(e)
        if isinstance(e, A.Load):
            return self._load(e)
        if isinstance(e, A.Call):
            return self._call(e)
        if isinstance(e, A.Slice):
            raise check_error("a slice a:b is only valid inside [...]", e)
        raise check_error(f"checker: unknown expression {type(e).__name__}", e, kind="internal error")

    def _name(self, e: A.Name):
        if e.id in self.env:
            return self.env[e.id]
        if e.id in CONSTANT_NAMES:
            v = CONSTANT_NAMES[e.id]
            return TScalar("bool" if isinstance(v, bool) else "float", v)
        if e.id in D.ALL:
            return TDType(e.id)
        if e.id in OPS:
            raise check_error(f"{e.id} is an op; call it: {e.id}(...)", e)
        raise check_error(f"name {e.id!r} is not defined", e, hint=suggest(e.id, set(self.env) | set(CONSTANT_NAMES)))

    def _binary(self, e: A.Binary):
        op = OPS[BINARY_OPERATORS[e.op]]
        a, b = self.expr(e.lhs), self.expr(e.rhs)
        if isinstance(a, TScalar) and isinstance(b, TScalar) and e.op in ("+", "-", "*", "//", "%") \
                and a.is_int and b.is_int:
            value = None
            if isinstance(a.value, int) and isinstance(b.value, int):
                if e.op in ("//", "%") and b.value == 0:
                    raise check_error("integer division by zero", e)
                value = {"+": a.value + b.value, "-": a.value - b.value, "*": a.value * b.value,
                         "//": a.value // b.value if b.value else 0, "%": a.value % b.value if b.value else 0}[e.op]
            strong = a.dtype if a.dtype != "int" else b.dtype
            return TScalar(strong, value)
        if e.op == "**":
            if not isinstance(b, (TScalar, TTile)):   # a tile exponent broadcasts like any operand
                raise check_error("the exponent of ** must be a scalar or a tile", e.rhs)
        return self._apply(op, [e.lhs, e.rhs], e, types=[a, b])

    def _apply(self, op, args, node, types=None):
        types = types or [self.expr(a) for a in args]
        tiles = [t for t in types if isinstance(t, TTile)]
        for a, t in zip(args, types):
            if isinstance(t, (TGM, TRegion)):
                raise check_error(f"{op.name} needs on-chip values; {t.describe()} is in GM", a,
                           hint="load(...) it into a tile first")
            if not isinstance(t, (TScalar, TTile)):
                raise check_error(f"{op.name} cannot take a {t.describe()}", a)
        if not tiles:
            return self._scalar_op(op, types, node)
        spaces = {t.space for t in tiles}
        space = "ub"
        if spaces == {"l0c"} and op.name == "add" and len(tiles) == 2:
            space = "l0c"  # cube accumulation: c = c + matmul(a, b)
        elif not spaces <= VECTOR_READS:
            raise check_error(f"{op.name} runs on the vector unit, which reads ub tiles and the cube's "
                       f"finished product (got {', '.join(sorted(spaces))})", node,
                       hint="l1 tiles feed matmul; load(..., space=ub) for vector work")
        dtypes = {t.dtype for t in tiles}
        if len(dtypes) > 1:
            raise check_error(f"{op.name} mixes {' and '.join(sorted(dtypes))} tiles", node,
                       hint="cast(x, dtype) one operand so both have the same dtype")
        dtype = dtypes.pop()
        for a, t in zip(args, types):
            if isinstance(t, TScalar):
                self._scalar_fits(t, dtype, a)
        if dtype not in op.dtypes:
            allowed = "float" if op.dtypes <= D.FLOATS else "/".join(sorted(op.dtypes))
            raise check_error(f"{op.name} needs {allowed} operands, got {dtype}", node,
                       hint="cast(x, f32) first" if allowed == "float" else None)
        shape = broadcast_shapes([t.shape for t in tiles], node)
        return TTile(op.result or dtype, shape, space)

    def _scalar_op(self, op, types, node):
        allowed = {k for k, group in (("bool", {"bool"}), ("float", D.FLOATS), ("int", D.INTS)) if op.dtypes & group}
        if op.name in ("div", "floordiv", "mod", "pow"):
            allowed |= {"int", "float"}  # scalar arithmetic follows Python here
        for t in types:
            kind = "bool" if t.dtype == "bool" else "float" if t.is_float else "int"
            if kind not in allowed:
                raise check_error(f"{op.name} cannot take a {kind} scalar", node)
        kinds = {t.dtype for t in types}
        strong = [k for k in kinds if k not in ("int", "float", "bool")]
        if len(set(strong)) > 1:
            raise check_error(f"{op.name} mixes scalar types {', '.join(sorted(strong))}", node)
        if strong:
            dtype = strong[0]
        elif "float" in kinds or op.name in ("div", "pow") or op.dtypes <= D.FLOATS:
            dtype = "float"
        elif "int" in kinds:
            dtype = "int"
        else:
            dtype = "bool"
        value = None
        if all(t.value is not None for t in types) and op.numpy is not None:
            import numpy as np
            with np.errstate(all="ignore"):
                value = op.numpy(*[np.float64(t.value) if dtype == "float" else t.value for t in types])
            value = value.item() if hasattr(value, "item") else value
        return TScalar(op.result or dtype, value)

    def _index(self, e: A.Index):
        base = self.expr(e.base)
        if isinstance(base, TGM):
            shape = base.shape
        elif isinstance(base, TTile):
            shape = base.shape
        else:
            raise check_error(f"cannot index a {base.describe()}", e.base)
        if len(e.subscripts) > len(shape):
            raise check_error(f"{len(e.subscripts)} subscripts for a rank-{len(shape)} value", e, kind="shape error")
        out = []
        for axis, sub in enumerate(e.subscripts):
            dim = shape[axis]
            if isinstance(sub, A.Slice):
                for b in (sub.start, sub.stop):
                    if b is not None:
                        self._int_scalar(b, "a slice bound")
                out.append(-(-self._extent(sub, dim) // self._step(sub)))
            else:
                t = self._int_scalar(sub, "an index", one_value_tiles=True)
                # an axis of extent 0 (an empty tensor) is indexed only by code that never runs at these
                # shapes (a phase with no iteration), or wrongly: the interpreter refuses that when it runs
                if isinstance(t.value, int) and not 0 <= t.value < dim and dim != 0:
                    raise check_error(f"index {t.value} is out of range for an axis of extent {dim}", sub,
                               kind="shape error")
        out += list(shape[len(e.subscripts):])
        if isinstance(base, TGM):
            return TRegion(base, tuple(out))
        return TTile(base.dtype, tuple(out), base.space)

    def _step(self, sub: A.Slice) -> int:
        """The step of a slice: a positive integer known before the kernel runs (a literal, dim,
        const or integer attribute), so every tile has a static shape."""
        if sub.step is None:
            return 1
        t = self._int_scalar(sub.step, "a slice step")
        if not isinstance(t.value, int):
            raise check_error("a slice step must be known before the kernel runs", sub.step,
                              hint="use an integer, a dim, a const or an integer attribute: x[a:b:stride]")
        if t.value < 1:
            raise check_error(f"a slice step must be positive, got {t.value}", sub.step, kind="shape error",
                              hint="walk forwards: x[a:b:s] takes a, a + s, ... below b")
        return t.value

    def _extent(self, sub: A.Slice, dim: int) -> int:
        start = self.expr_types.get(id(sub.start)) if sub.start is not None else TScalar("int", 0)
        stop = self.expr_types.get(id(sub.stop)) if sub.stop is not None else TScalar("int", dim)
        if isinstance(start.value, int) and isinstance(stop.value, int):
            lo, hi = min(max(start.value, 0), dim), min(max(stop.value, 0), dim)
            return max(hi - lo, 0)
        if sub.start is not None and sub.stop is not None:
            diff = self._span_bound(sub.stop, sub.start)
            if diff is not None:
                return max(min(diff, dim), 0)
        return dim

    def _span_bound(self, stop, start) -> int | None:
        """An upper bound of ``stop - start`` known before run time: their difference as linear forms
        (``j + T - j``), where a ``minimum(...)`` stop or a ``maximum(...)`` start is bounded by any of
        its arguments (``r:minimum(r + RB, e)`` takes at most RB)."""
        for side, fn in ((stop, "minimum"), (start, "maximum")):
            if isinstance(side, A.Call) and side.func == fn and not side.kwargs:
                bounds = [self._span_bound(a, start) if side is stop else self._span_bound(stop, a)
                          for a in side.args]
                bounds = [b for b in bounds if b is not None]
                return min(bounds) if bounds else None
        if isinstance(stop, A.Binary) and stop.op == "+" and stop.lhs == start:
            bound = self._upper(stop.rhs)     # start + E: at most E (kw:kw + minimum(TL, LO - l))
            if bound is not None:
                return bound
        return Linear.difference(stop, start, self.env)

    def _upper(self, e) -> int | None:
        """An upper bound of integer expression ``e`` known before the run: its value, or for a
        ``minimum(...)`` the least bound of its arguments (as the lowering bounds it)."""
        t = self.expr_types.get(id(e))
        if isinstance(t, TScalar) and isinstance(t.value, int):
            return t.value
        if isinstance(e, A.Call) and e.func == "minimum" and not e.kwargs:
            bounds = [b for b in (self._upper(a) for a in e.args) if b is not None]
            return min(bounds) if bounds else None
        return None

    def _load(self, e: A.Load):
        src = self._gm_region(e.src, "load copies on chip")
        shape = src.shape
        if e.pad is not None:
            pad = self.expr(e.pad)
            if not isinstance(pad, TScalar):
                raise check_error("pad must be a scalar", e.pad)
            self._scalar_fits(pad, src.gm.dtype, e.pad)
            shape = self._padded_shape(e.src, src)
        t = TTile(src.gm.dtype, shape, e.space)
        return self._placed(e.out, t, e) if e.space == "ub" else t

    def _padded_shape(self, index, region: TRegion):
        """With pad=..., a slice keeps its full extent even where it leaves the tensor."""
        if not isinstance(index, A.Index):
            return region.shape
        out, subs = [], index.subscripts
        for axis, sub in enumerate(subs):
            if isinstance(sub, A.Slice):
                if sub.start is None or sub.stop is None:
                    out.append(region.gm.shape[axis])
                    continue
                diff = Linear.difference(sub.stop, sub.start, self.env)
                if diff is None:
                    raise check_error("with pad=..., each slice needs a constant length such as i-1:i+T+1", sub)
                out.append(-(-max(diff, 0) // self._step(sub)))
        out += list(region.gm.shape[len(subs):])
        return tuple(out)

    # ------------------------------------------------------------ calls
    def _kw_const(self, call: A.Call, name, default):
        e = call.kwarg(name)
        if e is None:
            return default
        t = self.expr(e)
        if isinstance(t, TTuple):
            if not all(isinstance(i, TScalar) and isinstance(i.value, int) for i in t.items):
                raise check_error(f"{name}= needs constant integers", e)
            return tuple(i.value for i in t.items)
        if isinstance(t, TStr):
            return t.value
        if not (isinstance(t, TScalar) and t.value is not None):
            raise check_error(f"{name}= needs a constant", e)
        return t.value

    def _call(self, e: A.Call):
        if e.func in ("store", "atomic_add"):
            raise check_error(f"{e.func}(...) is a statement; it has no value", e)
        if e.func in ("range", "parallel"):
            raise check_error(f"{e.func}(...) is only valid in a for loop header", e)
        op = OPS.get(e.func)
        if op is None or op.kind == "internal":
            what = f"{e.func!r} is a variable here, not a function" if e.func in self.env else \
                f"unknown function {e.func!r}"
            raise check_error(what, e, hint=torch_form_hint(e.func) or
                              suggest(e.func, {n for n, o in OPS.items() if o.kind != "internal"} | {"load"}))
        if e.func in self.env and e.func not in self._warned:
            # a call names the op whatever variables exist: neg = ...; neg(t) negates t
            self._warned.add(e.func)
            self.warnings.append(check_error(f"{e.func}(...) calls the op {e.func}; the variable {e.func!r} defined in "
                                      f"this kernel is not called", e, kind="warning",
                                      hint=f"rename the variable (e.g. {e.func}_) if this reads ambiguously"))
        allowed = set(op.kwargs)
        for k in e.kwargs:
            if k.name not in allowed:
                raise check_error(f"{e.func} has no keyword argument {k.name!r}", k,
                           hint=f"keywords of {e.func}: {', '.join(sorted(allowed)) or 'none'}")
        if len(e.args) != op.nargs and not (op.kind == "reduce" and len(e.args) == 1):
            hint = None
            if op.name in ("max", "min") and len(e.args) == 2:
                hint = f"{op.name}(x) reduces; use {op.name}imum(a, b) for the element-wise {op.name}"
            raise check_error(f"{e.func} takes {op.nargs} positional argument(s), got {len(e.args)}", e, hint=hint)
        if op.kind == "elementwise":
            return self._apply(op, list(e.args), e)
        if op.kind == "api":
            return self._api(op, e)
        return getattr(self, f"_{op.kind}")(op, e)

    def _tile_arg(self, e, opname, space="ub"):
        t = self.expr(e)
        if isinstance(t, (TGM, TRegion)):
            raise check_error(f"{opname} needs an on-chip tile; {t.describe()} is in GM", e, hint="load(...) it first")
        if not isinstance(t, TTile):
            raise check_error(f"{opname} needs a tile, got {t.describe()}", e)
        if space == "ub" and t.space in VECTOR_READS:
            return vector_operand(t)
        if space and t.space != space:
            raise check_error(f"{opname} needs a {space} tile, got {t.describe()}", e)
        return t

    def _axis(self, e, axis, rank):
        if not isinstance(axis, int) or isinstance(axis, bool):
            raise check_error("axis must be an integer", e)
        if not -rank <= axis < rank:
            raise check_error(f"axis {axis} is out of range for a rank-{rank} tile", e, kind="shape error")
        return axis % rank

    def _reduce(self, op, e):
        t = self._tile_arg(e.args[0], op.name)
        if t.dtype not in op.dtypes:
            raise check_error(f"{op.name} needs a {'float' if op.dtypes <= D.FLOATS else 'numeric'} tile, got {t.dtype}", e)
        axis = self._kw_const(e, "axis", None)
        keep = self._kw_const(e, "keepdims", False)
        if axis is None:
            return TTile(t.dtype, (1,) * len(t.shape) if keep else (), t.space)
        if not t.shape:
            raise check_error(f"{op.name} with an axis needs a tile of rank >= 1", e)
        ax = self._axis(e, axis, len(t.shape))
        shape = tuple(1 if i == ax else d for i, d in enumerate(t.shape)) if keep else \
            tuple(d for i, d in enumerate(t.shape) if i != ax)
        return TTile(t.dtype, shape, t.space)

    def _argreduce(self, op, e):    # argmax / argmin: ascendcraft/dsl/indexing.py
        return indexing.check_argreduce(self, op, e)

    def _gather(self, op, e):       # gather(t, idx, axis=...): ascendcraft/dsl/indexing.py
        return indexing.check_gather(self, op, e)

    def _scatter(self, op, e):      # scatter / scatter_add(t, idx, v, axis=...): ascendcraft/dsl/indexing.py
        return indexing.check_scatter(self, op, e)

    def _transpose(self, op, e):
        """transpose(x) of a 2-D on-chip tile: [R, C] -> [C, R]."""
        t = self._tile_arg(e.args[0], op.name)
        if len(t.shape) != 2:
            raise check_error(f"transpose swaps the two axes of a 2-D tile, got {t.describe()}", e.args[0],
                              kind="shape error")
        return TTile(t.dtype, (t.shape[1], t.shape[0]), t.space)

    def _triangle(self, op, e):
        """tril/triu(x, diagonal=d) of a tile of rank >= 2 (its trailing two axes), on chip or the cube's
        accumulator (stored as the cube lowering's masked product); d an integer scalar."""
        t = self.expr(e.args[0])
        if not (isinstance(t, TTile) and t.space in ("ub", "l0c")):
            raise check_error(f"{op.name} needs an on-chip tile, got {t.describe()}", e.args[0],
                              hint="load(...) it first" if isinstance(t, (TGM, TRegion)) else None)
        if len(t.shape) < 2:
            raise check_error(f"{op.name} needs a tile of rank >= 2 (a matrix, or a stack of them), got {t.describe()}",
                              e.args[0], kind="shape error")
        d = e.kwarg("diagonal")
        if d is not None:
            self._int_scalar(d, f"{op.name}(..., diagonal=...)")
        return t

    def _scan(self, op, e):
        t = self._tile_arg(e.args[0], op.name)
        if t.dtype not in op.dtypes:
            raise check_error(f"{op.name} needs a numeric tile, got {t.dtype}", e)
        if not t.shape:
            raise check_error(f"{op.name} needs a tile of rank >= 1", e)
        self._axis(e, self._kw_const(e, "axis", -1), len(t.shape))
        for kw in ("reverse", "exclusive"):
            if not isinstance(self._kw_const(e, kw, False), bool):
                raise check_error(f"{kw}= must be True or False", e)
        return t

    def window_params(self, e, rank):
        """(kernel, stride, padding, dilation) tuples for a window op over the trailing axes."""
        kernel = self._kw_const(e, "kernel", None)
        if kernel is None:
            raise check_error(f"{e.func} needs kernel=(k, ...)", e)
        kernel = (kernel,) if isinstance(kernel, int) else kernel
        n = len(kernel)
        if not 1 <= n <= rank:
            raise check_error(f"kernel has {n} axes but the tile has rank {rank}", e, kind="shape error")

        def expand(name, default):
            v = self._kw_const(e, name, default)
            v = (v,) * n if isinstance(v, int) else v
            if len(v) != n or not all(isinstance(x, int) for x in v):
                raise check_error(f"{name}= needs {n} integer(s)", e)
            return v
        stride = expand("stride", kernel)
        padding, dilation = expand("padding", 0), expand("dilation", 1)
        if any(k < 1 for k in kernel) or any(s < 1 for s in stride) or any(d < 1 for d in dilation) \
                or any(p < 0 for p in padding):
            raise check_error("kernel, stride and dilation must be >= 1 and padding >= 0", e)
        return kernel, stride, padding, dilation

    def _window(self, op, e):
        t = self._tile_arg(e.args[0], op.name)
        if t.dtype not in op.dtypes:
            raise check_error(f"{op.name} does not support {t.dtype}", e)
        kernel, stride, padding, dilation = self.window_params(e, len(t.shape))
        lead = t.shape[:len(t.shape) - len(kernel)]
        out = []
        for size, k, s, p, d in zip(t.shape[len(lead):], kernel, stride, padding, dilation):
            n = (size + 2 * p - d * (k - 1) - 1) // s + 1
            if n < 1:
                raise check_error(f"window of {k} (dilation {d}, padding {p}) does not fit an axis of {size}", e,
                           kind="shape error")
            out.append(n)
        return TTile(t.dtype, lead + tuple(out), t.space)

    def _product_shape(self, a: tuple, b: tuple, e: A.Call) -> tuple[int, int]:
        """(m, n) of a matmul of 2-D operands shaped ``a`` and ``b`` under its transpose_a/b flags."""
        ta, tb = self._kw_const(e, "transpose_a", False), self._kw_const(e, "transpose_b", False)
        m, k = a[::-1] if ta else a
        k2, n = b[::-1] if tb else b
        if k != k2:
            raise check_error(f"{e.func} inner extents differ: {k} and {k2}", e, kind="shape error")
        return m, n

    def _cube_operand(self, e) -> TTile:
        """A matmul operand: an l1 tile (the cube's own tile, sized for L0A/L0B), a GM region (the
        cube streams it through L1 in base blocks: no size limit) or a vector tile (the lowering hands
        it to the cube through a workspace in L2)."""
        t = self.expr(e)
        if isinstance(t, TGM):
            t = TRegion(t, t.shape)
        if isinstance(t, TRegion):
            return TTile(t.gm.dtype, t.shape, "gm")
        if isinstance(t, TTile) and t.space in VECTOR_READS:
            return vector_operand(t)
        if not (isinstance(t, TTile) and t.space == "l1"):
            raise check_error(f"matmul multiplies l1 tiles, GM regions or ub tiles, got {t.describe()}", e)
        return t

    def _matmul(self, op, e):
        a, b = self._cube_operand(e.args[0]), self._cube_operand(e.args[1])
        if len(a.shape) != 2 or len(b.shape) != 2:
            raise check_error("matmul multiplies 2-D tiles", e, kind="shape error")
        if a.dtype != b.dtype or a.dtype not in op.dtypes:
            raise check_error(f"matmul needs two f16, bf16, f32 or i8 tiles of one dtype, got {a.dtype} and {b.dtype}", e)
        if a.dtype == "i8" and (a.space, b.space) != ("l1", "l1"):
            raise check_error("an i8 product multiplies two l1 tiles", e)
        m, n = self._product_shape(a.shape, b.shape, e)
        for t, space in ((a, "l0a"), (b, "l0b")):
            if t.space == "l1" and t.nbytes > self.chip.capacity(space):
                raise check_error(f"a matmul operand of {t.nbytes:,} bytes does not fit {space.upper()} "
                           f"({self.chip.capacity(space):,} bytes on {self.chip.name})", e, kind="memory error",
                           hint="use smaller cube tiles (e.g. 128x64 f16)")
        # a product of streamed operands (GM regions, vector tiles) is handed to the vector unit whole
        space = "l0c" if (a.space, b.space) == ("l1", "l1") else "ub"
        return TTile("i32" if a.dtype == "i8" else "f32", (m, n), space)

    def _cast(self, op, e):
        x = self.expr(e.args[0])
        target = self.expr(e.args[1])
        if not isinstance(target, TDType):
            raise check_error(f"cast(x, dtype): the second argument must be a dtype ({', '.join(D.ALL)})", e.args[1])
        mode = self._kw_const(e, "round", None)
        if mode is not None and mode not in ROUND_MODES:
            raise check_error(f"unknown rounding mode {mode!r}", e, hint=f"one of: {', '.join(ROUND_MODES)}")
        if isinstance(x, TScalar):
            return TScalar(target.name, None)
        if not isinstance(x, TTile) or x.space not in VECTOR_READS:
            raise check_error(f"cast needs a ub tile or a scalar, got {x.describe()}", e.args[0])
        return TTile(target.name, x.shape, "ub")

    def _select(self, op, e):
        mask, a, b = (self.expr(x) for x in e.args)
        if not ((isinstance(mask, TTile) or isinstance(mask, TScalar)) and mask.dtype == "bool"):
            raise check_error(f"where(mask, a, b) needs a bool mask, got {mask.describe()}", e.args[0],
                       hint="build masks with comparisons such as x > 0")
        if not (isinstance(a, TTile) or isinstance(b, TTile)):
            if isinstance(mask, TTile):
                raise check_error("where(mask, a, b) with two scalar branches: make one branch a tile, "
                           "e.g. full((T,), a, f32)", e)
            # the branches' common type (no value: where's numpy takes three arguments), then the value
            # when all three are known before the kernel runs
            from dataclasses import replace as _replace
            t = self._scalar_op(_replace(op, numpy=None), [a, b], e)
            if mask.value is not None and a.value is not None and b.value is not None:
                return TScalar(t.dtype, a.value if mask.value else b.value)
            return TScalar(t.dtype)
        value = self._apply(op, [e.args[1], e.args[2]], e, types=[a, b])
        if isinstance(mask, TTile):
            if mask.space != "ub":
                raise check_error("the mask must be a ub tile", e.args[0])
            shape = broadcast_shapes([mask.shape, value.shape], e)
            return TTile(value.dtype, shape, "ub")
        return value

    def _shape_arg(self, e):
        t = self.expr(e)
        if isinstance(t, TScalar) and isinstance(t.value, int):
            return (t.value,)
        if isinstance(t, TTuple) and all(isinstance(i, TScalar) and isinstance(i.value, int) for i in t.items):
            return tuple(i.value for i in t.items)
        raise check_error("a tile shape is a tuple of constant integers, e.g. (T,) or (R, C) or () for one value", e)

    def _construct(self, op, e):
        if op.name == "iota":
            n = self._shape_arg(e.args[0])
            if len(n) != 1:
                raise check_error("iota(n, dtype) makes a 1-D tile", e)
            dt = self.expr(e.args[1])
            start = e.kwarg("start")
            if start is not None:
                st = self.expr(start)
                if not isinstance(st, TScalar) or st.dtype == "bool":
                    raise check_error(f"iota(..., start=...) needs a scalar, got {st.describe()}", start)
                if isinstance(dt, TDType):
                    self._scalar_fits(st, dt.name, start)
        elif op.name == "zeros":
            n = self._shape_arg(e.args[0])
            dt = self.expr(e.args[1])
        else:
            n = self._shape_arg(e.args[0])
            v = self.expr(e.args[1])
            dt = self.expr(e.args[2])
            if not isinstance(v, TScalar):
                raise check_error("full(shape, value, dtype): value must be a scalar", e.args[1])
            if isinstance(dt, TDType):
                self._scalar_fits(v, dt.name, e.args[1])
        if not isinstance(dt, TDType):
            raise check_error(f"{op.name}: the dtype argument must be one of {', '.join(D.ALL)}", e)
        if any(d < 0 for d in n):
            raise check_error("tile extents cannot be negative", e, kind="shape error")
        space = "ub"
        if e.kwarg("space") is not None:
            s = e.kwarg("space")
            if not (isinstance(s, A.Name) and s.id in ("ub", "l0c")):
                raise check_error("zeros(..., space=...) must be ub or l0c (a cube accumulator)", s)
            space = s.id
            if space == "l0c" and dt.name not in ("f32", "i32"):
                raise check_error("an l0c accumulator holds f32 (or i32 for i8 inputs)", e)
        return TTile(dt.name, n, space)

    def _scalar(self, op, e):
        a = self._int_scalar(e.args[0], f"{op.name}'s first argument")
        b = self._int_scalar(e.args[1], f"{op.name}'s second argument")
        if b.value == 0:
            raise check_error("cdiv by zero", e)
        v = -(-a.value // b.value) if isinstance(a.value, int) and isinstance(b.value, int) else None
        return TScalar("int", v)

