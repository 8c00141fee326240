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

from ascendcraft.dsl import ast as A
from ascendcraft.dsl.ops import BINARY_OPERATORS, UNARY_OPERATORS
from ascendcraft.dsl.types import TScalar, TTile
from ascendcraft.errors import DSLError

from .base import LoweringPass, Names, call, lit, map_names, rewrite_block
from .linearize import is_vector

_UNARY = {"exp": "Exp", "log": "Ln", "abs": "Abs", "sqrt": "Sqrt", "rsqrt": "Rsqrt",
          "reciprocal": "Reciprocal", "relu": "Relu"}
_BINARY = {"add": "Add", "sub": "Sub", "mul": "Mul", "div": "Div", "maximum": "Max", "minimum": "Min"}
_SCALAR = {"add": "Adds", "mul": "Muls", "maximum": "Maxs", "minimum": "Mins"}
_REDUCE_ALL = {"sum": "ReduceSum", "max": "ReduceMax", "min": "ReduceMin", "prod": "ReduceProd",
               "mean": "ReduceSum"}
_SCAN = {"cumsum": "CumSum", "cumprod": "CumProd"}
_ROWS = {"sum": "SumRows", "max": "MaxRows", "min": "MinRows", "prod": "ProdRows"}
_ROWS_ALL = {**_ROWS, "mean": None}
_EACH_ROW = {"sum": "SumEachRow", "max": "MaxEachRow", "min": "MinEachRow"}
_COMPARE = {"lt", "le", "gt", "ge", "eq", "ne"}
_FLIP = {"lt": "gt", "gt": "lt", "le": "ge", "ge": "le", "eq": "eq", "ne": "ne"}
# erf(|x|) = 1 - (a1 t + a2 t^2 + a3 t^3 + a4 t^4 + a5 t^5) exp(-x^2), t = 1 / (1 + p |x|):
# Abramowitz & Stegun, Handbook of Mathematical Functions, 7.1.26 (|error| <= 1.5e-7).
_ERF_P = 0.3275911
_ERF_A = (0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429)


class NoRule(Exception):
    """No selection rule for an operation; carries a description for the error message."""


@dataclass(frozen=True)
class Select(LoweringPass):
    name: str = "select"
    establishes: tuple[str, ...] = ("every tile operation is one AscendC API op",)

    def run(self, kernel: A.Kernel, ctx) -> A.Kernel:
        sel = _Selector(kernel, ctx)
        return replace(kernel, body=rewrite_block(kernel.body, sel.stmt))


class _Selector:
    def __init__(self, kernel, ctx):
        self.ctx, self.names, self.kernel = ctx, Names(kernel), kernel
        self.bit_masks: set[str] = set()   # names holding Compare results (one bit per element)

    # ------------------------------------------------------------ statements
    def stmt(self, s) -> list:
        try:
            if isinstance(s, A.Assign):
                return self._assign(s)
            if isinstance(s, A.Store):
                return self._store(s)
        except NoRule as why:
            return self._no_rule(s, str(why))
        return [s]

    def _no_rule(self, s, why: str) -> list:
        from .assist import assist_select
        answer = assist_select(self.ctx, self.kernel, s, why)
        if answer is not None:
            return answer
        raise DSLError(f"select: no AscendC selection rule for {why}", s.span, kind="lowering error",
                       hint="rewrite this statement with the forms docs/dsl.md lists under \"Writing kernels that "
                            "lower to AscendC\", or run lower with --model so the pass can ask an LLM to lower it")

    def _scalar_like(self, e) -> bool:
        t = self.ctx.type_of(e)
        return isinstance(t, TScalar) or (isinstance(t, TTile) and t.shape == ())

    def _store(self, s: A.Store) -> list:
        if not self._scalar_like(s.value):
            return [s]
        from .bufferize import region_extents
        region = self.ctx.type_of(s.dst)
        dtype = region.gm.dtype if hasattr(region, "gm") else region.dtype
        tmp = self.names.fresh("_v")
        # a scalar stored to a region of several elements (store(y[i, :], 0.0)) is broadcast:
        # the one-value tile gets the region's (static) shape
        shape = region_extents(s.dst, self.kernel, self.ctx)
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
        if not self._is_vector_op(e):
            return [s]
        steps = self.select(e)
        if isinstance(steps[-1], A.Call) and steps[-1].func in ("Compare", "CompareScalar"):
            self.bit_masks.add(s.target)
        targets = [self.names.fresh("_a") for _ in steps[:-1]] + [s.target]
        # steps name earlier results with placeholders ($prev: the one before, $step<k>: the k-th),
        # which no DSL identifier can spell: a writer's variable _prev or _step0 is left alone
        return [A.Assign(tgt, _subst(v, targets[:i])) for i, (tgt, v) in enumerate(zip(targets, steps))]

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
        raise NoRule(f"the expression {type(e).__name__}")

    def _op(self, op: str, args: list, e) -> list:
        tiles = [is_vector(self.ctx.type_of(a)) for a in args]
        if op in _UNARY and tiles == [True]:
            return [call(_UNARY[op], args[0])]
        if op == "neg":
            return [call("Muls", args[0], lit(-1.0))]
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
            if tiles == [True, True]:
                return [call("Compare", args[0], args[1], mode=A.Str(op))]
            if tiles == [True, False]:
                return [call("CompareScalar", args[0], args[1], mode=A.Str(op))]
            return [call("CompareScalar", args[1], args[0], mode=A.Str(_FLIP[op]))]
        if op in _BINARY or op == "pow":
            return self._binary(op, args, tiles, e)
        if op == "clamp" and tiles[0] and not any(tiles[1:]):
            return [call("Maxs", args[0], args[1]), call("Mins", P, args[2])]
        if op == "where":
            return self._where(args, tiles, e)
        if op in _REDUCE_ALL and isinstance(e, A.Call) and self._reduces_all(e):
            return self._reduce_all(op, args[0], e)
        if op in _SCAN and isinstance(e, A.Call) and len(self.ctx.type_of(args[0]).shape) == 1:
            rev = e.kwarg("reverse")
            scan = call(_SCAN[op], args[0], **({"reverse": rev} if rev is not None else {}))
            if _false(e.kwarg("exclusive")):
                return [scan]
            if op == "cumsum" and _true(e.kwarg("exclusive")):
                # the exclusive sum is the inclusive one less the element itself (the difference
                # is rounded once more: within the verification's float slack for long sums)
                return [scan, call("Sub", P, args[0])]
        if op in ("window_max", "window_avg") and isinstance(e, A.Call) and self._plain_window(e):
            kw = {k: e.kwarg(k) for k in ("kernel", "stride") if e.kwarg(k) is not None}
            return [call("WindowMax" if op == "window_max" else "WindowAvg", args[0], **kw)]
        if (op in _EACH_ROW or op == "mean") and isinstance(e, A.Call) and self._last_axis_of_2d(e):
            kw = {"keepdims": e.kwarg("keepdims")} if e.kwarg("keepdims") is not None else {}
            if op == "mean":   # the row sums over each row's element count (tails: the real count)
                return [call("SumEachRow", args[0], **kw), *self._ones(args[0]), call("SumEachRow", P, **kw),
                        call("Div", _step(0), P)]
            return [call(_EACH_ROW[op], args[0], **kw)]
        if op in _ROWS_ALL and isinstance(e, A.Call) and self._axis0_of_2d(e):
            if op == "mean":
                return [call("SumRows", args[0]), *self._ones(args[0]), call("SumRows", P), call("Div", _step(0), P)]
            return [call(_ROWS[op], args[0])]
        if op == "cast" and tiles[0]:
            kw = {"round": e.kwarg("round")} if e.kwarg("round") is not None else {}
            return [call("Cast", args[0], args[1], **kw)]
        if op in ("zeros", "full"):
            dtype = args[-1]
            value = lit(0.0 if self.ctx.type_of(e).dtype in ("f16", "bf16", "f32") else 0) if op == "zeros" \
                else args[1]
            return [call("Duplicate", args[0], value, dtype)]
        raise NoRule(f"{op}(...) on {', '.join(self._describe(a) for a in args)}")

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
        """Windows without padding or dilation (halos come from load(..., pad=v)) on 1-D/2-D tiles."""
        def one(v):
            return v is None or (isinstance(v, A.Int) and v.value == 1) or \
                (isinstance(v, A.Tuple) and all(isinstance(i, A.Int) and i.value == 1 for i in v.items))

        def zero(v):
            return v is None or (isinstance(v, A.Int) and v.value == 0) or \
                (isinstance(v, A.Tuple) and all(isinstance(i, A.Int) and i.value == 0 for i in v.items))
        return len(self.ctx.type_of(e.args[0]).shape) <= 2 and zero(e.kwarg("padding")) and one(e.kwarg("dilation"))

    def _last_axis_of_2d(self, e) -> bool:
        t = self.ctx.type_of(e.args[0])
        axis = e.kwarg("axis")
        return isinstance(t, TTile) and len(t.shape) == 2 and _int_literal(axis) in (1, -1)

    def _axis0_of_2d(self, e) -> bool:
        t = self.ctx.type_of(e.args[0])
        axis, keep = e.kwarg("axis"), e.kwarg("keepdims")
        return isinstance(t, TTile) and len(t.shape) == 2 and _int_literal(axis) in (0, -2) \
            and (keep is None or (isinstance(keep, A.Name) and keep.id == "False"))

    def _describe(self, a) -> str:
        t = self.ctx.type_of(a)
        return t.describe() if hasattr(t, "describe") else type(a).__name__

    def _binary(self, op, args, tiles, e) -> list:
        a, b = args
        ta, tb = (self.ctx.type_of(x) for x in args)
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
            # x < 0); an exponent known only at run time is correct for x > 0 only (docs/lowering.md)
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
                return [call("Muls", b, lit(-1.0)), call("Adds", P, a)]
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
        name = _BINARY.get(op)
        if name is None:
            raise NoRule(f"{op} of tiles of shapes {list(sa)} and {list(sb)}")
        if len(sa) == 2 and sb == (sa[1],) or len(sb) == 2 and sa == (sb[1],):
            return [call(f"{name}RowVec", a, b)]
        if len(sa) == 2 and sb == (sa[0], 1):
            return [call(f"{name}ColVec", a, b)]
        if len(sb) == 2 and sa == (sb[0], 1):   # the column vector on the left
            if op in ("add", "mul", "maximum", "minimum"):   # commutative
                return [call(f"{name}ColVec", b, a)]
            if op == "sub":     # v - t = (-t) + v (negation is exact)
                return [call("Muls", b, lit(-1.0)), call("AddColVec", P, a)]
            if op == "div":     # v / t = (1 / t) * v
                return [call("Reciprocal", b), call("MulColVec", P, a)]
        raise NoRule(f"{op} of tiles of shapes {list(sa)} and {list(sb)} (only [R, C] with [C] or [R, 1] "
                     "broadcast)")

    def _where(self, args, tiles, e) -> list:
        mask, a, b = args
        if not tiles[0]:
            raise NoRule("where with a scalar mask")
        dtype = A.Name(self.ctx.type_of(e).dtype)
        steps = []
        if not (isinstance(mask, A.Name) and mask.id in self.bit_masks):
            # a bool tile from GM holds one byte per element; Select reads a bit mask (Compare's
            # output): bytes -> f16 (Cast u8->half) -> CompareScalar != 0
            steps = [call("Cast", mask, A.Name("f16")), call("CompareScalar", P, lit(0.0), mode=A.Str("ne"))]
            mask = _step(1)
        if tiles[1]:
            return steps + [call("Select", mask, a, b)]
        # a is a scalar (Select's scalar operand is the second value): make it a tile of b's run-time
        # shape (a Duplicate of the static shape does not fit a tail), b where an all-false mask is set
        first = len(steps)
        return steps + [call("CompareScalar", b, A.Name("nan"), mode=A.Str("eq")),
                        call("Select", _step(first), b, a), call("Select", mask, _step(first + 1), b)]

    def _erf(self, x) -> list:
        a1, a2, a3, a4, a5 = _ERF_A
        ax, t = _step(0), _step(3)
        return [
            call("Abs", x), call("Muls", P, lit(_ERF_P)), call("Adds", P, lit(1.0)), call("Reciprocal", P),  # t
            call("Muls", t, lit(a5)), call("Adds", P, lit(a4)), call("Mul", P, t), call("Adds", P, lit(a3)),
            call("Mul", P, t), call("Adds", P, lit(a2)), call("Mul", P, t), call("Adds", P, lit(a1)),
            call("Mul", P, t),                                                       # step 12: the polynomial
            call("Mul", x, x), call("Muls", P, lit(-1.0)), call("Exp", P),           # exp(-x^2)
            call("Mul", _step(12), P), call("Muls", P, lit(-1.0)), call("Adds", P, lit(1.0)),  # erf(|x|)
            call("Maxs", ax, lit(1e-30)), call("Div", x, P),                         # sign(x); 0 at x = 0
            call("Mul", _step(18), P),
        ]


# Placeholders for earlier steps' results, replaced by _subst with the names select gives them.
# "$" is not an identifier character (dsl_grammar/tile.lark, NAME), so no name in a kernel is one.
_PLACEHOLDER = "$"
P = A.Name(_PLACEHOLDER + "prev")


def _false(e) -> bool:
    return e is None or (isinstance(e, A.Name) and e.id == "False")


def _true(e) -> bool:
    return isinstance(e, A.Name) and e.id == "True"


def _number(e):
    """The value of a numeric literal (``2``, ``-1.5``), else None."""
    if isinstance(e, (A.Int, A.Float)):
        return e.value
    if isinstance(e, A.Unary) and e.op == "-":
        v = _number(e.operand)
        return -v if v is not None else None
    return None


def _int_literal(e):
    v = _number(e)
    return v if isinstance(v, int) else None


def _step(k: int) -> A.Name:
    return A.Name(f"{_PLACEHOLDER}step{k}")


def _subst(e, earlier: list[str]):
    """Replace the placeholders $prev and $step<k> by the names of earlier results (no other name
    can start with $)."""
    def name(n):
        if not n.id.startswith(_PLACEHOLDER):
            return n
        if n.id == P.id:
            return A.Name(earlier[-1])
        return A.Name(earlier[int(n.id[len(_PLACEHOLDER) + len("step"):])])
    return map_names(e, name)
