"""Select: each tile operation becomes the AscendC vector calls that compute it.

Before (three-address form)::

    _t1 = exp(_t0)
    _t2 = _t1 * r
    _s0 = sum(_t2)
    _t3 = 1.0 - _t2

After (API-level ops; same values)::

    _t1 = Exp(_t0)
    _t2 = Muls(_t1, r)
    _s0 = ReduceSum(_t2)
    _a0 = Muls(_t2, -1.0)
    _t3 = Adds(_a0, 1.0)

Rules follow the level-2 API (shared/research/ascendc_api.md section 3): tile-scalar forms
for scalars (``x - s`` is ``Adds(x, -s)``, ``x / s`` is ``Muls(x, 1 / s)``), compositions of
basic ops for sigmoid, tanh and erf (as the research notes recommend, to avoid host tiling
structs), reductions to a scalar, 0-d loads read with ``GetValue``, scalar stores through a
one-element tile. Establishes: every tile op is an API op. An operation with no rule stops the
pass with a message naming it (or, with an LLM configured, is offered to the model, whose
answer is checked like any pass output).
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from ascendcraft import dtypes as D
from ascendcraft.dsl import ast as A
from ascendcraft.dsl.ops import BINARY_OPERATORS, OPS, UNARY_OPERATORS
from ascendcraft.dsl.types import TScalar, TTile
from ascendcraft.errors import DSLError

from . import indexing
from .base import LoweringPass, Names, call, lit, rewrite_block
from .linearize import is_gemm, is_vector
from .select_steps import (
    FLIP,
    P,
    NoRule,
    _dsl_text,
    _int_literal,
    _number,
    _PLACEHOLDER,
    _row_scan,
    _step,
    _Steps,
    _subst,
    _true,
)
from .select_fuse import fuse_axpy
from .select_where import WhereRules
from .unstack import unstacked_statements

_UNARY = {"exp": "Exp", "log": "Ln", "abs": "Abs", "sqrt": "Sqrt", "rsqrt": "Rsqrt",
          "reciprocal": "Reciprocal", "relu": "Relu"}
_BINARY = {"add": "Add", "sub": "Sub", "mul": "Mul", "div": "Div", "maximum": "Max", "minimum": "Min"}
_SCALAR = {"add": "Adds", "mul": "Muls", "maximum": "Maxs", "minimum": "Mins"}
_REDUCE_ALL = {"sum": "ReduceSum", "max": "ReduceMax", "min": "ReduceMin", "prod": "ReduceProd",
               "mean": "ReduceSum"}
_SCAN = {"cumsum": "CumSum", "cumprod": "CumProd"}
_ROWS = {"sum": "SumRows", "max": "MaxRows", "min": "MinRows", "prod": "ProdRows"}
_ROWS_ALL = {**_ROWS, "mean": None}
_EACH_ROW = {"sum": "SumEachRow", "max": "MaxEachRow", "min": "MinEachRow", "prod": "ProdEachRow"}
_COMPARE = {"lt", "le", "gt", "ge", "eq", "ne"}
# erf(|x|) = 1 - (a1 t + a2 t^2 + a3 t^3 + a4 t^4 + a5 t^5) exp(-x^2), t = 1 / (1 + p |x|):
# Abramowitz & Stegun, Handbook of Mathematical Functions, 7.1.26 (|error| <= 1.5e-7).
_ERF_P = 0.3275911
_ERF_A = (0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429)


@dataclass(frozen=True)
class Select(LoweringPass):
    name: str = "select"
    establishes: tuple[str, ...] = ("every tile operation is one AscendC API op",)

    def run(self, kernel: A.Kernel, ctx) -> A.Kernel:
        sel = _Selector(kernel, ctx)
        return replace(kernel, body=fuse_axpy(rewrite_block(kernel.body, sel.stmt), ctx.type_of))


class _Selector(WhereRules):
    def __init__(self, kernel, ctx):
        self.ctx, self.names, self.kernel = ctx, Names(kernel), kernel
        self.bit_masks: set[str] = set()   # names holding Compare results (one bit per element)
        self.mask_like: dict[str, tuple] = {}  # bit mask -> (a float tile of its shape, its dtype)
        # bit mask -> the byte width of the values it was compared as: bit (r, c) of a 2-D mask sits at
        # r * pitch + c, the pitch of those values (rows start on 32-byte blocks), so a mask is read by a
        # Select of values of that width, or combined with masks of that width, only (see WhereRules._bits)
        self.mask_lanes: dict[str, int] = {}
        self.mask_shapes: dict[str, tuple] = {}    # bit mask -> its static shape

    # ------------------------------------------------------------ statements
    def stmt(self, s) -> list:
        try:
            if isinstance(s, A.Assign):
                out = self._assign(s)
            elif isinstance(s, A.Store):
                out = self._store(s)
            else:
                return [s]
        except NoRule as why:
            return self._no_rule(s, str(why))
        # every statement a rule made is this one's: an error in it names this line (left without an
        # origin, it would take the next statement's)
        return [x if x.span is not None else replace(x, span=s.span) for x in out]

    def _no_rule(self, s, why: str) -> list:
        from .assist import assist_select
        answer = assist_select(self.ctx, self.kernel, s, why)
        if answer is not None:
            return answer
        if id(s) in unstacked_statements(self.kernel):
            why += (" (this line's tile has rank 3 or more: the lowering computes it one leading index at a time, "
                    "and the operation above is its form on one such slice)")
        raise DSLError(f"select: no AscendC selection rule for {why}", s.span, kind="lowering error",
                       hint="rewrite this statement with the forms the language reference (docs/dsl.md) lists "
                            "under \"Writing kernels that lower to AscendC\"")

    def _scalar_like(self, e) -> bool:
        t = self.ctx.type_of(e)
        return isinstance(t, TScalar) or (isinstance(t, TTile) and t.shape == ())

    def _store(self, s: A.Store) -> list:
        if isinstance(s.value, A.Name) and s.value.id in self.bit_masks:   # bits -> bool bytes in GM
            from .select_int import store_mask
            return store_mask(self, s)
        if not self._scalar_like(s.value):
            return [s]
        from .bufferize import region_extents
        region = self.ctx.type_of(s.dst)
        dtype = region.gm.dtype if hasattr(region, "gm") else region.dtype
        tmp = self.names.fresh("_v")
        # a scalar stored to a region of several elements (store(y[i, :], 0.0)) is broadcast:
        # the one-value tile gets the region's (static) shape
        shape = region_extents(s.dst, self.ctx)
        if all(isinstance(d, A.Int) and d.value == 1 for d in shape):
            shape = ()
        dup = call("Duplicate", A.Tuple(tuple(shape)), s.value, A.Name(dtype))
        return [A.Assign(tmp, dup), replace(s, value=A.Name(tmp))]

    def _assign(self, s: A.Assign) -> list:
        e, t = s.value, self.ctx.type_of(s.value)
        if isinstance(e, A.Load):
            if isinstance(t, TTile) and t.shape == () and e.space == "ub":
                tmp = self.names.fresh("_v")
                return [A.Assign(tmp, e), A.Assign(s.target, call("GetValue", A.Name(tmp)))]
            return [s]
        if isinstance(e, A.Index) and isinstance(e.base, A.Name) and e.base.id in self.bit_masks:
            return self._mask_index(s, e, t)
        if isinstance(e, A.Index):
            return [replace(s, value=self._index(e, t))]
        if isinstance(e, A.Name) and is_vector(t) and t.space == "ub":
            # an alias linearize kept (it holds an older value of a reassigned tile): a copy
            return [replace(s, value=call("Copy", e))]
        if not self._is_vector_op(e) or is_gemm(e):   # the cube's tile handed to UB stays as it is
            return [s]
        steps = self.select(e)
        self._dtypes_supported(e, steps)
        targets = [self.names.fresh("_a") for _ in steps[:-1]] + [s.target]
        # steps name earlier results with placeholders ($prev: the one before, $step<k>: the k-th),
        # which no DSL identifier can spell: a writer's variable _prev or _step0 is left alone
        out = [A.Assign(tgt, _subst(v, targets[:i])) for i, (tgt, v) in enumerate(zip(targets, steps))]
        last = out[-1].value
        if isinstance(last, A.Call) and (last.func in ("Compare", "CompareScalar") or
                                         last.func in ("Not", "And", "Or") and t.dtype == "bool"):
            self.bit_masks.add(s.target)
            self.mask_lanes[s.target] = getattr(steps, "mask_lanes", None) or self._compared_lanes(last)
            self.mask_shapes[s.target] = tuple(t.shape)
            # a float tile of the mask's shape (a broadcast mask is expanded through its 0/1 values):
            # the writer's compared tile, or one an operand mask has
            for a in last.args:
                at = self.ctx.type_of(a) if isinstance(a, A.Name) else None
                if last.func.startswith("Compare") and isinstance(at, TTile) and at.dtype in ("f16", "f32"):
                    self.mask_like[s.target] = (a.id, at.dtype)
                elif isinstance(a, A.Name) and a.id in self.mask_like:
                    self.mask_like[s.target] = self.mask_like[a.id]
                if s.target in self.mask_like:
                    break
        like = getattr(steps, "mask_like", None)    # a rule's own tile of the mask's shape (select_int)
        if like is not None and s.target in self.bit_masks:
            self.mask_like[s.target] = (targets[like[0]] if isinstance(like[0], int) else like[0], like[1])
        return out

    def _compared_lanes(self, c: A.Call) -> int:
        """The byte width of the values a Compare of the writer's tiles compared (a rule that compares
        values it made sets ``mask_lanes`` on its steps instead)."""
        t = self.ctx.type_of(c.args[0]) if isinstance(c.args[0], A.Name) else None
        if not isinstance(t, TTile) or t.dtype not in ("f16", "f32", "i32"):
            raise NoRule(f"a mask made by {c.func} of values of an unknown width (internal: the rule must say)")
        return 2 if t.dtype == "f16" else 4

    def _index(self, e: A.Index, t):
        """A slice or element of a tile: ``t[a:b]``, ``t[:, a:b]``, ``t[i]`` are copies (Gathers from the
        tile, any start); one element ``t[i, j]`` is read on the scalar unit."""
        base = self.ctx.type_of(e.base)
        if not (isinstance(base, TTile) and base.space == "ub"):
            raise NoRule(f"`{_dsl_text(e)}`, a slice of an {base.space} tile (only ub tiles are sliced on chip: "
                         "slice the region you load instead, load(x[a:b, :], space=...))")
        if len(base.shape) > 2:
            raise NoRule(f"`{_dsl_text(e)}`, a slice of a rank-{len(base.shape)} tile (tiles on chip have one or two "
                         "axes: load a region of one or two axes instead, e.g. load(x[i, :, a:b]))")
        return call("GetValue", e) if t.shape == () else call("Copy", e)

    def _scalar_tile(self, st: "_Steps", like, dtype: str, value):
        """A tile of the scalar expression ``value`` with ``like``'s run-time shape."""
        f = like if dtype in ("f16", "f32") else self._float_like(st, like, dtype)   # a mask of like's pitch
        none = st.add(call("CompareScalar", f, A.Name("nan"), mode=A.Str("eq")))
        return st.add(call("Select", none, like, value))

    def _minus_one(self, x):
        """-1 in ``x``'s dtype (negation of an integer tile multiplies by the integer -1)."""
        t = self.ctx.type_of(x)
        return lit(-1.0) if getattr(t, "dtype", "f32") in ("f16", "bf16", "f32") else lit(-1)

    def _dtypes_supported(self, e, steps):
        """Refuse, in the writer's terms, an operation whose API ops do not take its operands' dtype
        (``sum`` of an i32 tile: ReduceSum adds floats), rather than emit a program the checker rejects."""
        for c in steps:
            if not (isinstance(c, A.Call) and c.func in OPS and OPS[c.func].kind == "api"
                    and OPS[c.func].form not in ("cast", "copy", "getvalue", "duplicate")):
                continue
            for a in c.args:
                t = self.ctx.type_of(a) if isinstance(a, A.Name) and not a.id.startswith(_PLACEHOLDER) else None
                if isinstance(t, TTile) and t.dtype not in OPS[c.func].dtypes and \
                        not (t.dtype == "bool" and OPS[c.func].form in ("select", "selectrows", "binary", "unary")):
                    allowed = "/".join(sorted(d for d in OPS[c.func].dtypes if d != "bool"))
                    raise NoRule(f"`{_dsl_text(e)}` on {t.dtype} tiles (it lowers for {allowed} tiles; cast(x, f32) "
                                 "first where that is exact)")

    def _is_vector_op(self, e) -> bool:
        if isinstance(e, (A.Name, A.Int, A.Float)):
            return False
        if is_vector(self.ctx.type_of(e)):
            return True
        kids = e.args if isinstance(e, A.Call) else (e.lhs, e.rhs) if isinstance(e, A.Binary) else \
            (e.operand,) if isinstance(e, A.Unary) else ()
        return any(is_vector(self.ctx.type_of(k)) for k in kids)

    # ------------------------------------------------------------ expressions
    def select(self, e) -> list:
        """API calls computing ``e``, in order; later calls name the previous result ``P`` (``$prev``)
        and the k-th ``_step(k)`` (``$step<k>``)."""
        if isinstance(e, A.Unary):
            return self._op(UNARY_OPERATORS[e.op], [e.operand], e)
        if isinstance(e, A.Binary):
            return self._op(BINARY_OPERATORS[e.op], [e.lhs, e.rhs], e)
        if isinstance(e, A.Call):
            return self._op(e.func, list(e.args), e)
        raise NoRule(f"`{_dsl_text(e)}`")

    def _op(self, op: str, args: list, e) -> list:
        tiles = [is_vector(self.ctx.type_of(a)) for a in args]
        if op in _UNARY and tiles == [True]:
            return [call(_UNARY[op], args[0])]
        if op == "neg":
            return [call("Muls", args[0], self._minus_one(args[0]))]
        if op == "sigmoid":    # 1 / (1 + exp(-x))
            return [call("Muls", args[0], lit(-1.0)), call("Exp", P), call("Adds", P, lit(1.0)),
                    call("Reciprocal", P)]
        if op == "tanh":       # 1 - 2 / (exp(2x) + 1): saturates to +-1 without inf/inf
            return [call("Muls", args[0], lit(2.0)), call("Exp", P), call("Adds", P, lit(1.0)),
                    call("Reciprocal", P), call("Muls", P, lit(-2.0)), call("Adds", P, lit(1.0))]
        if op == "erf":
            return self._erf(args[0])
        if op in ("floor", "ceil") and tiles == [True]:
            # float -> float Cast rounds to an integer value (ascendc_api.md: Cast pairs on A2)
            return [call("Cast", args[0], A.Name(self.ctx.type_of(e).dtype), round=A.Str(op))]
        if op in _COMPARE:
            dtypes = {self.ctx.type_of(a).dtype for a, tile in zip(args, tiles) if tile}
            if not dtypes <= {"f16", "f32"} and not dtypes & {"bool", "bf16"}:   # exact integer comparisons
                from .select_int import int_compare
                return int_compare(self, op, args, tiles, e)
            if not dtypes <= {"f16", "f32"}:
                raise NoRule(f"a comparison of {'/'.join(sorted(dtypes))} tiles (the vector unit compares float "
                             "tiles; cast(x, f32) first when the values are below 2**24 in magnitude)")
            if tiles == [True, True]:
                return [call("Compare", args[0], args[1], mode=A.Str(op))]
            if tiles == [True, False]:
                return [call("CompareScalar", args[0], args[1], mode=A.Str(op))]
            return [call("CompareScalar", args[1], args[0], mode=A.Str(FLIP[op]))]
        if op in _BINARY or op == "pow":
            return self._binary(op, args, tiles, e)
        if op == "clamp" and tiles[0] and not any(tiles[1:]):
            return [call("Maxs", args[0], args[1]), call("Mins", P, args[2])]
        if op == "where":
            return self._where(args, e)
        if op in ("and", "or", "not") and tiles[0] and (all(tiles) or self.ctx.type_of(args[0]).dtype != "bool"):
            return self._logic(op, args, tiles)
        if op in _REDUCE_ALL and isinstance(e, A.Call) and self._reduces_all(e):
            return self._reduce_all(op, args[0], e)
        if op in _SCAN and isinstance(e, A.Call) and _row_scan(self.ctx.type_of(args[0]).shape, e.kwarg("axis")):
            rev = e.kwarg("reverse")
            # exclusive: its own composite (a shift, exact where an element is 0 or infinite: not the
            # inclusive scan less or divided by the element)
            name = _SCAN[op] + ("Exclusive" if _true(e.kwarg("exclusive")) else "")
            return [call(name, args[0], **({"reverse": rev} if rev is not None else {}))]
        if op in ("window_max", "window_avg") and isinstance(e, A.Call) and self._plain_window(e):
            kw = {k: e.kwarg(k) for k in ("kernel", "stride", "dilation") if e.kwarg(k) is not None}
            return [call("WindowMax" if op == "window_max" else "WindowAvg", args[0], **kw)]
        if (op in _EACH_ROW or op == "mean") and isinstance(e, A.Call) and self._last_axis_of_2d(e):
            kw = {"keepdims": e.kwarg("keepdims")} if e.kwarg("keepdims") is not None else {}
            if op == "mean":   # the row sums over each row's element count (tails: the real count)
                return [call("SumEachRow", args[0], **kw), *self._ones(args[0]), call("SumEachRow", P, **kw),
                        call("Div", _step(0), P)]
            return [call(_EACH_ROW[op], args[0], **kw)]
        if op in _ROWS_ALL and isinstance(e, A.Call) and self._axis0_of_2d(e):
            st = _Steps([call(_ROWS.get(op, "SumRows"), args[0])])
            if op == "mean":
                st += [*self._ones(args[0]), call("SumRows", P), call("Div", _step(0), P)]
            if _true(e.kwarg("keepdims")):
                self._as_row(st, args[0])
            return st
        if op == "cast" and tiles[0]:
            kw = {"round": e.kwarg("round")} if e.kwarg("round") is not None else {}
            src_dtype = self.ctx.type_of(args[0]).dtype
            dst = self.ctx.type_of(e).dtype
            if isinstance(args[0], A.Name) and args[0].id in self.bit_masks and dst != "bool":
                # a comparison's mask holds bits, not bytes: its 0/1 values in f32, then the dtype asked for
                if dst not in ("f32", "f16", "i32"):
                    raise NoRule(f"`{_dsl_text(e)}`: a comparison cast to {dst} (it lowers to f32, f16 and i32; "
                                 f"cast to i32 first)")
                st = _Steps()
                values = self._mask_values(st, args[0].id, e, "a cast of a mask that is not a comparison")
                if dst != "f32":
                    st.add(call("Cast", values, A.Name(dst), **({"round": A.Str("rint")} if dst == "i32" else {})))
                return st
            if src_dtype == self.ctx.type_of(e).dtype and not (kw and src_dtype in ("f16", "bf16", "f32")):
                return [call("Copy", args[0])]   # a cast to the tile's own dtype is the value itself
            return [call("Cast", args[0], args[1], **kw)]
        if op == "iota":
            return self._iota(args, e)
        if op in ("zeros", "full"):
            dtype = args[-1]
            value = lit(0.0 if self.ctx.type_of(e).dtype in ("f16", "bf16", "f32") else 0) if op == "zeros" \
                else args[1]
            return [call("Duplicate", args[0], value, dtype)]
        if op == "transpose" and tiles[0]:
            t = self.ctx.type_of(args[0])
            if D.ITEMSIZE[t.dtype] not in (2, 4):
                raise NoRule(f"`{_dsl_text(e)}` (transpose of a {t.dtype} tile: its Gathers move 2- and 4-byte elements)")
            return [call("Transpose", args[0])]
        if op in ("tril", "triu") and tiles[0] and isinstance(e, A.Call):
            d = e.kwarg("diagonal")
            return [call(op.capitalize(), args[0], d if d is not None else A.Int(0))]
        if op in indexing.OPS and isinstance(e, A.Call):   # gather: ascendcraft/lowering_passes/indexing.py
            return indexing.select(self, op, args, e, P, NoRule)
        raise NoRule(f"`{_dsl_text(e)}` ({op} of {', '.join(self._describe(a) for a in args)})")

    def _iota(self, args, e) -> list:
        """``iota(n, dtype, start=s)``: the exclusive running sum of n f32 ones is 0, 1, ..., n - 1,
        exact below 2**24 (every partial sum is an integer), plus ``start``; cast once to the result's
        dtype (rounding as the interpreter's quantize does), integers offset after the cast so a large
        ``start`` stays exact. (CreateVecIndex, dav_c220 half/int16/float/int32, builds half values by
        repeated half Adds, which round past 2048.)"""
        dtype = self.ctx.type_of(e).dtype
        start = e.kwarg("start")
        if dtype not in ("f32", "f16", "i32"):
            raise NoRule(f"`{_dsl_text(e)}` of {dtype} (iota lowers for f32, f16, bf16 and i32 tiles)")
        st = _Steps()
        ones = st.add(call("Duplicate", args[0], lit(1.0), A.Name("f32")))
        idx = st.add(call("CumSumExclusive", ones))
        if dtype == "i32":
            idx = st.add(call("Cast", idx, A.Name("i32"), round=A.Str("rint")))
            if start is not None:
                st.add(call("Adds", idx, start))
            return st
        if start is not None:
            idx = st.add(call("Adds", idx, start))
        if dtype != "f32":
            st.add(call("Cast", idx, A.Name(dtype)))
        if not st or st[-1] is ones:
            st.add(call("Muls", idx, lit(1.0)))
        return st

    def _reduces_all(self, e) -> bool:
        """A reduction to one value: no axis, or the only axis of a 1-D tile."""
        axis = e.kwarg("axis")
        if axis is None:
            return True
        shape = self.ctx.type_of(e.args[0]).shape
        return len(shape) == 1 and _int_literal(axis) in (0, -1)

    def _reduce_all(self, op, x, e) -> list:
        """sum/max/min/prod/mean of all elements: one value on the scalar unit; keepdims=True makes it a
        one-element tile of the kept rank. The mean divides by the tile's element count at run time
        (a tail tile is shorter than its static shape), counted as the sum of a tile of ones."""
        steps = [call(_REDUCE_ALL[op], x)]
        if op == "mean":
            steps += [*self._ones(x), call("ReduceSum", P), A.Binary("/", _step(0), P)]
        keep = e.kwarg("keepdims")
        if isinstance(keep, A.Name) and keep.id == "True":
            t = self.ctx.type_of(e)
            steps.append(call("Duplicate", A.Tuple(tuple(A.Int(1) for _ in t.shape)), P, A.Name(t.dtype)))
        return steps

    @staticmethod
    def _ones(like) -> list:
        """A tile of ones with ``like``'s run-time shape (not its static shape, which a tail tile does
        not fill): Select from an all-false mask (x == NaN is false for every x, NaN included)."""
        return [call("CompareScalar", like, A.Name("nan"), mode=A.Str("eq")), call("Select", P, like, lit(1.0))]

    def _plain_window(self, e) -> bool:
        """Windows without padding (halos come from load(..., pad=v), or the windows pass) on 1-D/2-D
        tiles, any dilation."""
        def one(v):
            return v is None or (isinstance(v, A.Int) and v.value == 1) or \
                (isinstance(v, A.Tuple) and all(isinstance(i, A.Int) and i.value == 1 for i in v.items))

        def zero(v):
            return v is None or (isinstance(v, A.Int) and v.value == 0) or \
                (isinstance(v, A.Tuple) and all(isinstance(i, A.Int) and i.value == 0 for i in v.items))
        return len(self.ctx.type_of(e.args[0]).shape) <= 2 and zero(e.kwarg("padding"))

    def _last_axis_of_2d(self, e) -> bool:
        t = self.ctx.type_of(e.args[0])
        axis = e.kwarg("axis")
        return isinstance(t, TTile) and len(t.shape) == 2 and _int_literal(axis) in (1, -1)

    def _axis0_of_2d(self, e) -> bool:
        t = self.ctx.type_of(e.args[0])
        return isinstance(t, TTile) and len(t.shape) == 2 and _int_literal(e.kwarg("axis")) in (0, -2)

    def _as_row(self, st: "_Steps", x):
        """The last step's [C] result as the [1, C] tile keepdims=True asks for (the same row in UB;
        the DSL has no reshape): added to zeros shaped like x's first row at run time."""
        v = _step(len(st) - 1)
        row = st.add(call("Copy", A.Index(x, (A.Slice(A.Int(0), A.Int(1)), A.Slice(None, None)))))
        zero, _ = self._filled(st, row, self.ctx.type_of(x).dtype, 0)
        st.add(call("AddRowVec", zero, v))

    def _float_like(self, st: "_Steps", x, dtype: str):
        """An f32 tile with ``x``'s run-time shape (a tail tile is shorter than its static shape):
        ``x`` itself, or its values cast to f32 (a bool tile from GM holds bytes: u8 -> f16 -> f32)."""
        if dtype == "f32":
            return x
        if dtype == "bool":
            x = st.add(call("Cast", x, A.Name("f16")))
        if dtype in ("bool", "f16", "i32"):
            return st.add(call("Cast", x, A.Name("f32")))
        raise NoRule(f"a where or broadcast on {dtype} tiles")

    def _filled(self, st: "_Steps", like, dtype: str, value) -> tuple:
        """(a tile of ``value`` with ``like``'s run-time shape, its dtype): ``like`` (its f32 values for
        a bool tile) selected from an all-false mask (x == NaN is false for every x, NaN included)."""
        # compared at like's own width, so the mask has the pitch of the values Select moves
        f = like if dtype in ("f16", "f32") else self._float_like(st, like, dtype)
        none = st.add(call("CompareScalar", f, A.Name("nan"), mode=A.Str("eq")))
        if dtype == "bool":
            like, dtype = f, "f32"
        return st.add(call("Select", none, like, lit(float(value) if dtype in ("f16", "bf16", "f32") else int(value)))), \
            dtype

    def _describe(self, a) -> str:
        t = self.ctx.type_of(a)
        return t.describe() if hasattr(t, "describe") else type(a).__name__

    def _binary(self, op, args, tiles, e) -> list:
        a, b = args
        ta, tb = (self.ctx.type_of(x) for x in args)
        if op == "pow" and tiles[1]:     # a tile exponent: torch.pow's meaning for every sign
            from .select_pow import tensor_pow
            return tensor_pow(self, a, b, e)
        if tiles == [True, True]:
            if ta.shape != tb.shape:
                return self._broadcast(op, a, b, ta.shape, tb.shape)
            if op == "pow":
                raise NoRule("pow of two tiles")
            return [call(_BINARY[op], a, b)]
        if op == "pow":
            if not tiles[0]:
                raise NoRule("a scalar raised to a tile power")
            n = _number(b)
            if n is not None and float(n).is_integer() and abs(n) <= 1024:
                return self._integer_power(a, int(n))
            if n == 0.5:
                return [call("Sqrt", a)]
            if n == -0.5:
                return [call("Rsqrt", a)]
            # x ** s = exp(s * ln x): NumPy's value for x >= 0 and a non-integral literal s (NaN for
            # x < 0); an exponent known only at run time takes the tile exponent's rule (select_pow)
            if n is None and ta.dtype == "f32":
                from .select_pow import scalar_pow
                return scalar_pow(self, a, b)
            return [call("Ln", a), call("Muls", P, b), call("Exp", P)]
        if tiles == [True, False]:
            if op in _SCALAR:
                return [call(_SCALAR[op], a, b)]
            if op == "sub":
                return [call("Adds", a, A.Unary("-", b))]
            if op == "div":
                return [call("Muls", a, A.Binary("/", lit(1.0), b))]
        else:  # scalar op tile
            if op in _SCALAR:
                return [call(_SCALAR[op], b, a)]
            if op == "sub":
                return [call("Muls", b, self._minus_one(b)), call("Adds", P, a)]
            if op == "div":
                return [call("Reciprocal", b), call("Muls", P, a)]
        raise NoRule(f"{op} of {self._describe(a)} and {self._describe(b)}")

    def _integer_power(self, x, n: int) -> list:
        """x ** n for an integer n, any sign of x: square-and-multiply with Mul (x ** 0 = 1 everywhere,
        NaN included, as NumPy), then Reciprocal for n < 0."""
        if n == 0:
            return self._ones(x)
        steps, base, result, m = [], x, None, abs(n)
        while m:
            if m & 1:
                if result is None:
                    result = base
                else:
                    steps.append(call("Mul", result, base))
                    result = _step(len(steps) - 1)
            m >>= 1
            if m:
                steps.append(call("Mul", base, base))
                base = _step(len(steps) - 1)
        if n < 0:
            return steps + [call("Reciprocal", result)]
        return steps or [call("Muls", x, lit(1.0))]

    def _broadcast(self, op, a, b, sa, sb) -> list:
        """[R, C] with a row vector [C] or a column vector [R, 1], on either side."""
        from .select_bcast import broadcast_rule
        steps = broadcast_rule(self, op, a, b, sa, sb)   # one-value tiles, outer broadcasts
        if steps is not None:
            return steps
        name = _BINARY.get(op)
        if name is None:
            raise NoRule(f"{op} of tiles of shapes {list(sa)} and {list(sb)}")
        if len(sa) == 2 and sb in ((sa[1],), (1, sa[1])) or len(sb) == 2 and sa in ((sb[1],), (1, sb[1])):
            return [call(f"{name}RowVec", a, b)]     # a row vector [C] or [1, C], on either side
        if len(sa) == 2 and sb == (sa[0], 1):
            return [call(f"{name}ColVec", a, b)]
        if len(sb) == 2 and sa == (sb[0], 1):   # the column vector on the left
            if op in ("add", "mul", "maximum", "minimum"):   # commutative
                return [call(f"{name}ColVec", b, a)]
            if op == "sub":     # v - t = (-t) + v (negation is exact)
                return [call("Muls", b, self._minus_one(b)), call("AddColVec", P, a)]
            if op == "div":     # v / t = (1 / t) * v
                return [call("Reciprocal", b), call("MulColVec", P, a)]
        raise NoRule(f"{op} of tiles of shapes {list(sa)} and {list(sb)} (only [R, C] with [C], [1, C] or [R, 1] "
                     "broadcast)")

    def _erf(self, x) -> list:
        # erf(x) = sign(x) erf(|x|) with erf(|x|) = 1 - poly(t) exp(-x^2); the polynomial's
        # coefficients negated, so the product is -poly exp(-x^2) and one Adds gives 1 - it. The sign is
        # x * 1e30 clamped to [-1, 1]: +-1, and 0 or -0 at x = +-0 (x / max(|x|, 1e-30) before, an
        # inf / inf = NaN at x = inf that a clamp of x to [-10, 10] had to avoid: three ops more,
        # one of them a division). At x = inf, t = 0 and exp(-inf) = 0, so erf(|x|) = 1.
        a1, a2, a3, a4, a5 = _ERF_A
        t = _step(3)
        return [
            call("Abs", x), call("Muls", P, lit(_ERF_P)), call("Adds", P, lit(1.0)), call("Reciprocal", P),  # t
            call("Muls", t, lit(-a5)), call("Adds", P, lit(-a4)), call("Mul", P, t), call("Adds", P, lit(-a3)),
            call("Mul", P, t), call("Adds", P, lit(-a2)), call("Mul", P, t), call("Adds", P, lit(-a1)),
            call("Mul", P, t),                                                       # step 12: -poly(t)
            call("Mul", x, x), call("Muls", P, lit(-1.0)), call("Exp", P),           # exp(-x^2)
            call("Mul", _step(12), P), call("Adds", P, lit(1.0)),                    # step 17: erf(|x|)
            call("Muls", x, lit(1e30)), call("Maxs", P, lit(-1.0)), call("Mins", P, lit(1.0)),  # sign(x)
            call("Mul", _step(17), P),
        ]
