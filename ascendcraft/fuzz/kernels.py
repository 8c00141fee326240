"""Hypothesis strategies generating random, valid DSL kernels over the forms the lowering accepts.

:func:`fuzz_cases` draws a :class:`~ascendcraft.fuzz.differential.FuzzCase`: the kernel text and
its op description (input shapes, dtypes and value ranges, output shapes, attribute values).
Every generated kernel must pass ``check`` and write every element of its outputs; a kernel
that does not is a bug of this generator (``differential.run_case`` reports it with stage
``check``/``unwritten``).

Forms (each a ``FORMS`` key; the tags a case carries in ``FuzzCase.forms`` say which choices it
made):

* ``map1d``     element-wise math over a 1-D tensor in tiles with a tail: a parallel loop over
                tile indices, a ``parallel(CORES)`` loop over balanced ranges of tiles, or one
                element per iteration (0-d tiles: scalar-unit math);
* ``rows2d``    element-wise math over rows of a 2-D tensor, a ``range`` loop over tiles of each
                row, with a row-vector input ``v: [C]`` sliced like the row;
* ``blocks2d``  2-D ``[RB, TC]`` tiles over a ``(row block, column block)`` grid, with ``[C]``
                row-vector and ``[R, 1]`` column-vector broadcasts, ``[R, 1]`` columns from
                ``sum/max/min(t, axis=1, keepdims=True)`` of whole rows, and reductions along
                axis 1 stored to ``[R]`` / ``[R, 1]`` outputs;
* ``rowreduce`` an accumulator (``0.0``, ``-inf``, ``inf``, ``1.0``) carried across a ``range``
                loop of row tiles: ``sum``/``max``/``min``/``prod``, the mean as ``sum * (1/C)``;
* ``colreduce`` reductions along axis 0 of ``[RB, TC]`` tiles accumulated across row blocks
                (sum_dim1 form), and element-wise accumulators (rms_norm form);
* ``scan``      ``cumsum``/``cumprod`` (forward or ``reverse=True``) of row tiles with a carry;
* ``window``    ``window_max``/``window_avg`` over 1-D rows or 2-D planes, halos loaded with
                ``pad=`` (``-inf``/``0.0``), strides, tails;
* ``twophase``  per-core partials in a ``scratch`` tensor combined after the phase on one core
                (mse form), per-row statistics in scratch used by a second phase (optionally a
                loop of phases over row groups), 2-D scratch partials ``[R, NB]`` combined per
                row;
* ``atomic``    an output zeroed first, then ``atomic_add`` of per-core partials (0-d or
                ``[C]`` outputs);

with scalar attributes (``alpha: f32 = ...``, sometimes bound from the op file), bool mask
inputs (``where(load(m[...]), a, b)``) and ``f16`` inputs/outputs through ``cast`` (f16
arithmetic does not lower; docs/dsl.md).

Expressions: ``+ - * /``, ``maximum minimum clamp where``, comparisons, ``abs relu -x exp log
sqrt rsqrt reciprocal tanh sigmoid erf floor ceil``, ``** 2``/``** 3``/``** -2``/``** 0.5``/``** 1.5``, tile op
scalar and scalar op tile (literals, attributes, 0-d reductions of a tile). Values stay finite
and away from the edges of each function's domain by construction (see ``AVOID``).

``AVOID`` lists what the generator never produces and why; ``KNOWN_BUGS`` lists forms that
the lowering gets wrong today (the finds of this fuzzer): with ``avoid_known=True`` (the
bounded test) they are not generated, so a new find fails the test and a known one does not.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from hypothesis import strategies as st

from .differential import FuzzCase, OpDesc, TensorDesc

#: Forms the generator never produces, with the reason (all are rejected by ``check``, give
#: the interpreter and the simulator legitimately different results, or do not lower by the
#: documentation).
AVOID = {
    "matmul": "cube phases have their own strict form (docs/lowering.md 'Cube phases'); not fuzzed here",
    "exclusive scans, iota, tile slices, windows with padding=/dilation=, rank-3 tiles, f16/bf16 arithmetic":
        "documented as not lowering yet (docs/dsl.md 'Writing kernels that lower to AscendC')",
    "broadcasts other than [R, C] with [C] or [R, 1]": "documented as not lowering",
    "log/sqrt/rsqrt/reciprocal/division of arbitrary values":
        "operands are guarded (abs(e) + 1.0, ...) so both sides stay finite; NaN/Inf placement at a "
        "domain edge differs legitimately between NumPy and the simulator's approximations",
    "exp of large values": "exp is only applied to expressions bounded by 4 in magnitude (no overflow)",
    "floor/ceil and ==/!= of inexact values": "a 1-ulp difference (x / s is Muls(x, 1/s) on Ascend, "
        "exp/tanh are approximations) flips them; only applied to exactly computed values",
    "cumprod/prod of arbitrary values": "products of hundreds of values under/overflow; the factors are "
        "1 + e/64 with |e| <= 4",
    "window tiles shorter than the window": "check accepts it but the interpreter fails at run time "
        "(a tail tile shorter than the window): halos are always loaded with pad= at full length",
    "a name reassigned inside a parallel loop after being defined before it": "check rejects it",
    "scratch read in the phase that writes it": "a race the interpreter reports",
    "where with two scalar branches": "check rejects it (make one branch a tile)",
    "outputs not fully written": "the comparison would see poison on both sides",
    "values that cancel to ~0 in a float sum": "not avoidable in general; with inputs in [-1, 1) the "
        "reductions are of random signs so this is rare (a find of rel-L2 on a near-zero sum is noise)",
}

#: Finds of this fuzzer that are fixed; they are generated again and kept as regression tests.
FIXED_BUGS = {
    "scratch_column": "load(part[:, j]) of a 2-D scratch (strided GM region) is mis-copied "
                      "(codegen/kernel.py: a region keeping a non-last axis was copied as contiguous)",
    "reverse_scan_tail": "a range loop with a negative step whose first tile is the short tail "
                         "(range(LAST, -1, -T) with C % T != 0): the prefetch pass's output is invalid "
                         "(value tile f32[tail] does not fit region [T])",
    "two_scalar_loads": "two loaded one-value tiles read in one statement (load(x[i]) + load(z[i])): "
                        "prefetch._sink_reads swaps the two GetValue reads forever (the lowering hangs)",
    "erf_scalar": "erf of a 0-d tile gives a [1] tile in the interpreter (store then fails: shape (1,) does "
                  "not fit region ()); ascendcraft/dsl/ops.py or interpreter erf",
    "loopvar_reused": "a name that is a range-loop variable in one phase and a plain scalar in another was not "
                      "declared in C++ (build: 'j' was not declared in this scope)",
    "store_of_load": "store(y[...], t) of a tile t that is a load's result, unchanged: the emitted code DeQue'd "
                     "the vecin queue twice (simulator: deque-empty)",
    "scalar_store_region": "store(y[a:b], 0.0) (a scalar broadcast to a region of several elements) stored "
                           "from a one-element Duplicate (simulator: uninitialised read in DataCopyPad)",
    "mean": "select had no rule for mean(...); now every reduction (sum/max/min/prod/mean) of all elements, "
            "and sum/max/min/mean along axis 1 / axis 0 of a 2-D tile, lowers; the mean divides by the run-time "
            "element count (the sum of a tile of ones, so tails count right) (lowering_passes/select.py _reduce_all)",
    "colvec_left_sub_div": "[R, 1] - [R, C] and [R, 1] / [R, C] were not selected: now Muls(t, -1) + AddColVec and "
                           "Reciprocal(t) + MulColVec (lowering_passes/select.py _broadcast)",
    "sub_negative_literal": "t - -1.5 became Adds(t, -(-1.5)), emitted as '--1.5f' (C++ decrement); scalar negation "
                            "is now emitted as (-(x)) (codegen/kernel.py scalar)",
    "scalar_functions": "relu/tanh/sigmoid/erf/floor/ceil/clamp/where/comparisons/cast(round=) of 0-d tiles "
                        "(scalar-unit values) could not be emitted; now scalar helpers with NumPy's NaN/inf meaning "
                        "(codegen/kernel.py scalar, _HELPERS, _SCALAR_METHODS)",
    "scalar_pow2": "x ** 2 of a 0-d tile was exp(2 ln x): NaN for x < 0; ScalarPow now takes integral exponents by "
                   "repeated squaring (and tile x ** n for integer literals n by Mul chains) (codegen/kernel.py, "
                   "lowering_passes/select.py _integer_power)",
    "floor_ceil": "floor/ceil selected Cast(t, f32, round=\"floor\"), which the interpreter rejected: the checker "
                  "does not type API Cast's round= literal; the interpreter now reads an untyped string literal "
                  "(ascendcraft/dsl/interpreter.py _const_kw)",
    "where_scalar_branch_tail": "where(c, 2.0, t) on a tile with a tail: the scalar branch was a Duplicate of the "
                                "static shape; now Select(CompareScalar(t, nan, eq), t, 2.0), a tile of t's run-time "
                                "shape (lowering_passes/select.py _where)",
    "scratch_const_dim": "a scratch sized by a const (f32[R, NB], const NB = cdiv(C, T)): the host workspace "
                         "expression named NB; consts are now expanded into plain C++ over tiling fields "
                         "(codegen/kernel.py _workspace_expr/_host_int; codegen/tiling.py evaluates ?:)",
    "rowvec_short_vector": "[R, C] + [C] with C shorter than a 32-byte block (C = 1): the per-row op covers whole "
                           "padded rows, reading the row vector's unwritten padding (simulator: uninit-read in Add); "
                           "the emitter now fills the vector's padding with 1 first (codegen/kernel.py _broadcast)",
    "rows_copy_padding": "sum(t, axis=0) (SumRows) into another buffer copied row 0 with a DataCopy of whole 32-byte "
                         "blocks, reading the padding of a row shorter than a block, which abs(...) had not written "
                         "(simulator: uninit-read in DataCopy); now Muls(row 0, 1) over its elements "
                         "(codegen/kernel.py _api, rows form)",
}

#: Forms the lowering gets wrong today (finds), by key. ``avoid_known=True`` keeps them out.
KNOWN_BUGS: dict[str, str] = {
}

# ----------------------------------------------------------------------------- options


@dataclass(frozen=True)
class Options:
    avoid_known: bool = True          # leave out the forms of KNOWN_BUGS
    max_depth: int = 3                # expression depth
    f16: bool = True


# ----------------------------------------------------------------------------- expressions


@dataclass(frozen=True)
class Ex:
    """An expression: its DSL text, a bound on its magnitude, and whether both sides compute it
    bit-exactly (loads and + - * abs relu -x maximum minimum of exact values)."""

    text: str
    mag: float
    exact: bool = False


_LITERALS = (2.0, 0.5, -1.5, 3.0, 0.25, -0.75)
_MAG_CAP = 1e4


def _fmt(v: float) -> str:
    return repr(float(v))


class _Exprs:
    """Draws tile expressions over ``leaves`` (all of one shape) with hypothesis ``draw``.

    ``scalars``: scalar operands (Ex); ``masks``: bool tile texts of the leaves' shape;
    ``vecs``: broadcast operands (row or column vectors) with ``vec_kind`` "row" or "col";
    ``reducible``: leaves whose 0-d reductions may serve as scalars; ``numel``: elements per tile.
    """

    def __init__(self, draw, opts: Options, leaves, *, scalars=(), masks=(), vecs=(), vec_kind=None,
                 numel: int = 1, scalar_mode: bool = False, tags: list | None = None):
        self.draw, self.opts = draw, opts
        self.leaves, self.scalars, self.masks = list(leaves), list(scalars), list(masks)
        self.vecs, self.vec_kind, self.numel = list(vecs), vec_kind, max(numel, 1)
        self.scalar_mode = scalar_mode
        self.tags = tags if tags is not None else []

    def tag(self, t: str):
        if t not in self.tags:
            self.tags.append(t)

    def scalar(self) -> Ex:
        """A scalar operand: a literal, an attribute, or a 0-d reduction of a leaf."""
        kinds = ["lit"] + (["given"] if self.scalars else []) + ([] if self.scalar_mode else ["reduce"])
        k = self.draw(st.sampled_from(kinds))
        if k == "lit":
            v = self.draw(st.sampled_from(_LITERALS))
            return Ex(_fmt(v), abs(v), True)
        if k == "given":
            return self.draw(st.sampled_from(self.scalars))
        leaf = self.draw(st.sampled_from(self.leaves))
        red = self.draw(st.sampled_from(["max", "sum", "min"]))
        self.tag(f"scalar_{red}")
        return Ex(f"{red}({leaf.text})", leaf.mag * (self.numel if red == "sum" else 1), red != "sum")

    def nonzero_scalar(self) -> Ex:
        k = self.draw(st.sampled_from(["lit"] + (["given"] if self.scalars else [])))
        if k == "given":
            s = self.draw(st.sampled_from(self.scalars))
            if s.text[0].isalpha():     # an attribute: nonzero by construction
                return s
        v = self.draw(st.sampled_from(_LITERALS))
        return Ex(_fmt(v), abs(v), True)

    def expr(self, depth: int | None = None) -> Ex:
        depth = self.opts.max_depth if depth is None else depth
        if depth <= 0 or self.draw(st.integers(0, 3)) == 0:
            return self.draw(st.sampled_from(self.leaves))
        kinds = ["unary", "binary", "scalar", "where", "clamp"]
        if self.vecs:
            kinds.append("bcast")
        kind = self.draw(st.sampled_from(kinds))
        e = getattr(self, f"_{kind}")(depth)
        if e.mag > _MAG_CAP:
            self.tag("tanh")
            return Ex(f"tanh({e.text})", 1.0)
        return e

    # -- node kinds
    def _unary(self, depth) -> Ex:
        a = self.expr(depth - 1)
        ops = ["abs", "relu", "neg", "exp", "log", "sqrt", "rsqrt", "reciprocal", "tanh", "sigmoid", "erf",
               "square", "cube", "pow_neg2", "pow_half", "pow_15", "floor", "ceil"]
        op = self.draw(st.sampled_from(ops))
        if op == "exp" and a.mag > 4:
            op = "tanh"
        if op in ("floor", "ceil") and not a.exact:
            op = "abs"
        self.tag(op)
        t = a.text
        table = {
            "abs": (f"abs({t})", a.mag, a.exact),
            "relu": (f"relu({t})", a.mag, a.exact),
            "neg": (f"(-{t})", a.mag, a.exact),
            "exp": (f"exp({t})", math.exp(min(a.mag, 700.0)), False),   # the table is built for every op
            "log": (f"log(abs({t}) + 1.0)", math.log(a.mag + 1.0), False),
            "sqrt": (f"sqrt(abs({t}))", math.sqrt(a.mag), False),
            "rsqrt": (f"rsqrt(abs({t}) + 1.0)", 1.0, False),
            "reciprocal": (f"reciprocal(abs({t}) + 0.5)", 2.0, False),
            "tanh": (f"tanh({t})", 1.0, False),
            "sigmoid": (f"sigmoid({t})", 1.0, False),
            "erf": (f"erf({t})", 1.0, False),
            "square": (f"({t} ** 2)", a.mag * a.mag, a.exact),
            "cube": (f"({t} ** 3)", a.mag * a.mag * a.mag, False),
            "pow_neg2": (f"((abs({t}) + 0.5) ** -2)", 4.0, False),
            "pow_half": (f"(abs({t}) ** 0.5)", math.sqrt(a.mag), False),
            "pow_15": (f"((abs({t}) + 0.5) ** 1.5)", (a.mag + 0.5) ** 1.5, False),
            "floor": (f"floor({t})", a.mag + 1, a.exact),
            "ceil": (f"ceil({t})", a.mag + 1, a.exact),
        }
        text, mag, exact = table[op]
        return Ex(text, mag, exact)

    def _binary(self, depth) -> Ex:
        a, b = self.expr(depth - 1), self.expr(depth - 1)
        op = self.draw(st.sampled_from(["+", "-", "*", "/", "maximum", "minimum"]))
        self.tag({"+": "add", "-": "sub", "*": "mul", "/": "div"}.get(op, op))
        return _combine(op, a, b)

    def _scalar(self, depth) -> Ex:
        a = self.expr(depth - 1)
        op = self.draw(st.sampled_from(["+", "-", "*", "/", "maximum", "minimum"]))
        left = self.draw(st.booleans())
        s = self.nonzero_scalar() if op == "/" and not left else self.scalar()
        self.tag(("scalar_" if left else "") + {"+": "add", "-": "sub", "*": "mul", "/": "div"}.get(op, op)
                 + ("" if left else "_scalar"))
        return _combine(op, s, a) if left else _combine(op, a, s)

    def _clamp(self, depth) -> Ex:
        a = self.expr(depth - 1)
        lo = self.draw(st.sampled_from([-0.5, -1.0, 0.0]))
        hi = self.draw(st.sampled_from([0.5, 1.0, 2.0]))
        self.tag("clamp")
        return Ex(f"clamp({a.text}, {_fmt(lo)}, {_fmt(hi)})", max(abs(lo), abs(hi)), a.exact)

    def _where(self, depth) -> Ex:
        kinds = ["cmp", "cmp_scalar"] + (["mask"] if self.masks else [])
        k = self.draw(st.sampled_from(kinds))
        if k == "mask":
            cond = self.draw(st.sampled_from(self.masks))
            self.tag("where_mask")
        else:
            l = self.expr(depth - 1)
            r = self.expr(depth - 1) if k == "cmp" else self.scalar()
            ops = ["<", "<=", ">", ">="] + (["==", "!="] if l.exact and r.exact else [])
            op = self.draw(st.sampled_from(ops))
            cond = f"({l.text} {op} {r.text})"
            self.tag("where_" + k)
        # check: at least one branch is a tile (AVOID["where with two scalar branches"])
        branches = self.draw(st.sampled_from(["tt", "ts", "st"])) if not self.scalar_mode else "tt"
        a = self.expr(depth - 1) if branches[0] == "t" else self.scalar()
        b = self.expr(depth - 1) if branches[1] == "t" else self.scalar()
        return Ex(f"where({cond}, {a.text}, {b.text})", max(a.mag, b.mag), a.exact and b.exact)

    def _bcast(self, depth) -> Ex:
        a = self.expr(depth - 1)
        v = self.draw(st.sampled_from(self.vecs))
        if self.draw(st.integers(0, 2)) == 1:           # a little math on the vector first
            op = self.draw(st.sampled_from(["abs", "exp", "neg", "mul2"]))
            v = {"abs": Ex(f"abs({v.text})", v.mag, v.exact),
                 "exp": Ex(f"exp({v.text})", math.exp(v.mag)) if v.mag <= 4 else v,
                 "neg": Ex(f"(-{v.text})", v.mag, v.exact),
                 "mul2": Ex(f"({v.text} * 2.0)", 2 * v.mag, v.exact)}[op]
        op = self.draw(st.sampled_from(["+", "-", "*", "/", "maximum", "minimum"]))
        vec_left = self.draw(st.booleans())
        self.tag(f"bcast_{self.vec_kind}{'_left' if vec_left else ''}")
        return _combine(op, v, a) if vec_left else _combine(op, a, v)


def _combine(op: str, a: Ex, b: Ex) -> Ex:
    if op == "+":
        return Ex(f"({a.text} + {b.text})", a.mag + b.mag, a.exact and b.exact)
    if op == "-":
        return Ex(f"({a.text} - {b.text})", a.mag + b.mag, a.exact and b.exact)
    if op == "*":
        return Ex(f"({a.text} * {b.text})", a.mag * b.mag, a.exact and b.exact)
    if op == "/":
        if _is_literal_or_attr(b):
            return Ex(f"({a.text} / {b.text})", a.mag / 0.25, False)
        return Ex(f"({a.text} / (abs({b.text}) + 1.0))", a.mag, False)
    return Ex(f"{op}({a.text}, {b.text})", max(a.mag, b.mag), a.exact and b.exact)


def _is_literal_or_attr(e: Ex) -> bool:
    return e.text[0] in "-0123456789" and "(" not in e.text or e.text in ("alpha", "beta")


# ----------------------------------------------------------------------------- kernels


class _Kernel:
    """Collects a kernel's parameters, constants and body lines, and its op description."""

    def __init__(self, draw, opts: Options):
        self.draw, self.opts = draw, opts
        self.inputs: list[tuple[str, TensorDesc]] = []
        self.attrs: list[str] = []
        self.op_attrs: list[tuple[str, float]] = []
        self.outputs: list[tuple[str, TensorDesc]] = []
        self.consts: list[str] = []
        self.scratch: list[str] = []
        self.body: list[str] = []
        self.tags: list[str] = []
        self.scalars: list[Ex] = []

    def tag(self, t: str):
        if t not in self.tags:
            self.tags.append(t)

    def inp(self, name: str, dims: str, shape, dtype: str = "f32", lo: float = -1.0, hi: float = 1.0):
        self.inputs.append((f"{name}: gm {dtype}[{dims}]", TensorDesc(tuple(shape), dtype, lo, hi)))

    def out(self, name: str, dims: str, shape, dtype: str = "f32"):
        self.outputs.append((f"{name}: gm {dtype}[{dims}]", TensorDesc(tuple(shape), dtype)))

    def const(self, name: str, value):
        self.consts.append(f"    const {name} = {value}")

    def line(self, depth: int, text: str):
        self.body.append("    " * depth + text)

    def maybe_attrs(self):
        """Zero, one or two scalar attributes; each default or bound from the op file."""
        n = self.draw(st.integers(0, 2))
        for name in ("alpha", "beta")[:n]:
            default = self.draw(st.sampled_from([0.75, -1.25, 2.0, 0.5]))
            self.attrs.append(f"{name}: f32 = {_fmt(default)}")
            value = default
            if self.draw(st.booleans()):
                value = self.draw(st.sampled_from([1.5, -0.5, 0.25]))
                self.op_attrs.append((name, value))
                self.tag("attr_bound")
            self.scalars.append(Ex(name, abs(value), True))
            self.tag("attr")

    def case(self, form: str) -> FuzzCase:
        params = [d for d, _ in self.inputs] + self.attrs
        outs = ", ".join(d for d, _ in self.outputs)
        head = f"kernel fz({', '.join(params)}) -> ({outs}):"
        text = "\n".join([head, *self.consts, *self.scratch, *self.body]) + "\n"
        op = OpDesc(tuple(t for _, t in self.inputs), tuple(t for _, t in self.outputs), tuple(self.op_attrs))
        return FuzzCase(text, op, tuple([form] + self.tags))


_TILES = (8, 16, 1, 3, 5, 17, 32, 64, 100, 128, 256, 1000)


def _tile(draw, limit: int | None = None) -> int:
    t = draw(st.sampled_from(_TILES))
    return t if limit is None else min(t, limit)


def _exprs(k: _Kernel, leaves, **kw) -> _Exprs:
    return _Exprs(k.draw, k.opts, leaves, scalars=k.scalars, tags=k.tags, **kw)


def _f16_inputs(k: _Kernel) -> bool:
    return k.opts.f16 and k.draw(st.integers(0, 4)) == 4


def _leaf_loads(k: _Kernel, n: int, dims: str, shape, region: str, *, f16: bool = False, masks: bool = True):
    """Declare ``n`` float inputs (and maybe a bool mask) of ``shape``; leaves loading ``region``."""
    leaves, mask_texts = [], []
    for i in range(n):
        dtype = "f16" if f16 and i == 0 else "f32"
        k.inp(f"x{i}", dims, shape, dtype)
        text = f"load(x{i}[{region}])"
        if dtype == "f16":
            text = f"cast({text}, f32)"
            k.tag("f16_in")
        leaves.append(Ex(text, 1.0, True))
    if masks and k.draw(st.integers(0, 3)) == 3:
        k.inp("m", dims, shape, "bool")
        mask_texts.append(f"load(m[{region}])")
        k.tag("mask_input")
    return leaves, mask_texts


def _bind_leaves(k: _Kernel, depth: int, leaves: list[Ex], *, bind: bool) -> list[Ex]:
    """Optionally bind each leaf to a name first (t0 = load(...)), as hand-written kernels do."""
    if not bind:
        return leaves
    out = []
    for i, leaf in enumerate(leaves):
        k.line(depth, f"t{i} = {leaf.text}")
        out.append(Ex(f"t{i}", leaf.mag, leaf.exact))
    return out


def _computed(k: _Kernel, e: Ex) -> Ex:
    """``e`` as stored. (A bare load stored unchanged was FIXED_BUGS["store_of_load"]: no longer wrapped.)"""
    return e


def _store_value(k: _Kernel, e: Ex, out_f16: bool) -> str:
    e = _computed(k, e)
    return f"cast({e.text}, f16)" if out_f16 else e.text


# -- map1d
def _map1d(draw, opts: Options) -> FuzzCase:
    k = _Kernel(draw, opts)
    k.maybe_attrs()
    n = draw(st.integers(1, 2000))
    f16 = _f16_inputs(k)
    out_f16 = f16 and draw(st.booleans())
    nin = draw(st.integers(1, 3))
    style = draw(st.sampled_from(["blocks", "cores", "elements"]))
    k.tag(f"map1d_{style}")
    if style == "elements":
        n = min(n, 300)
        leaves, masks = _leaf_loads(k, nin, "N", (n,), "i", f16=f16, masks=False)
        k.out("y", "N", (n,), "f16" if out_f16 else "f32")
        k.line(1, "for i in parallel(N):")
        leaves = _bind_leaves(k, 2, leaves, bind=opts.avoid_known or draw(st.booleans()))
        e = _exprs(k, leaves, scalar_mode=True).expr()
        k.line(2, f"store(y[i], {_store_value(k, e, out_f16)})")
        return k.case("map1d")
    t = _tile(draw)
    k.const("T", t)
    leaves, masks = _leaf_loads(k, nin, "N", (n,), "j:j + T", f16=f16)
    k.out("y", "N", (n,), "f16" if out_f16 else "f32")
    if style == "blocks":
        k.line(1, "for b in parallel(cdiv(N, T)):")
        d = 2
    else:
        k.const("U", "cdiv(N, T)")
        k.line(1, "for c in parallel(CORES):")
        k.line(2, "for b in range(c * U // CORES, (c + 1) * U // CORES):")
        d = 3
    k.line(d, "j = b * T")
    leaves = _bind_leaves(k, d, leaves, bind=draw(st.booleans()))
    e = _exprs(k, leaves, masks=masks, numel=t).expr()
    k.line(d, f"store(y[j:j + T], {_store_value(k, e, out_f16)})")
    return k.case("map1d")


# -- rows2d
def _rows2d(draw, opts: Options) -> FuzzCase:
    k = _Kernel(draw, opts)
    k.maybe_attrs()
    r, c = draw(st.integers(1, 60)), draw(st.integers(1, 300))
    t = _tile(draw)
    k.const("T", t)
    f16 = _f16_inputs(k)
    out_f16 = f16 and draw(st.booleans())
    leaves, masks = _leaf_loads(k, draw(st.integers(1, 2)), "R, C", (r, c), "r, j:j + T", f16=f16)
    if draw(st.booleans()):
        k.inp("v", "C", (c,))
        leaves.append(Ex("load(v[j:j + T])", 1.0, True))
        k.tag("row_input")
    k.out("y", "R, C", (r, c), "f16" if out_f16 else "f32")
    k.line(1, "for r in parallel(R):")
    k.line(2, "for j in range(0, C, T):")
    leaves = _bind_leaves(k, 3, leaves, bind=draw(st.booleans()))
    e = _exprs(k, leaves, masks=masks, numel=t).expr()
    k.line(3, f"store(y[r, j:j + T], {_store_value(k, e, out_f16)})")
    return k.case("rows2d")


# -- blocks2d
def _blocks2d(draw, opts: Options) -> FuzzCase:
    k = _Kernel(draw, opts)
    k.maybe_attrs()
    r, c = draw(st.integers(1, 40), ), draw(st.integers(1, 200))
    rb = draw(st.sampled_from([2, 1, 3, 4, 8]))
    whole_rows = draw(st.booleans())
    k.const("RB", rb)
    if whole_rows:
        region, cols, numel = "r:r + RB, :", "C", rb * c
        k.tag("whole_rows")
    else:
        tc = _tile(draw)
        k.const("TC", tc)
        region, cols, numel = "r:r + RB, c:c + TC", "c:c + TC", rb * tc
    leaves, masks = _leaf_loads(k, draw(st.integers(1, 2)), "R, C", (r, c), region)
    vec_kind = draw(st.sampled_from([None, "row", "col"]))
    vecs = []
    if vec_kind == "row":
        k.inp("v", "C", (c,))
        vecs.append(Ex("load(v)" if whole_rows else "load(v[c:c + TC])", 1.0, True))
    elif vec_kind == "col":
        k.inp("w", "R, 1", (r, 1))
        vecs.append(Ex("load(w[r:r + RB, :])", 1.0, True))
    out_kind = draw(st.sampled_from(["tile", "rowred", "rowred_keep"])) if whole_rows else "tile"
    if out_kind == "tile":
        k.out("y", "R, C", (r, c))
    elif out_kind == "rowred":
        k.out("y", "R", (r,))
    else:
        k.out("y", "R, 1", (r, 1))
    if whole_rows:
        k.line(1, "for rb in parallel(cdiv(R, RB)):")
        k.line(2, "r = rb * RB")
    else:
        k.line(1, "for rb, cb in parallel(cdiv(R, RB), cdiv(C, TC)):")
        k.line(2, "r = rb * RB")
        k.line(2, "c = cb * TC")
    leaves = _bind_leaves(k, 2, leaves, bind=draw(st.booleans()) or (whole_rows and vec_kind is None))
    if whole_rows and vec_kind is None and draw(st.booleans()):
        # a column vector from a keepdims reduction of a whole-row tile
        red = draw(st.sampled_from(["sum", "max", "min"]))
        src = draw(st.sampled_from(leaves))
        k.line(2, f"cv = {red}({src.text}, axis=1, keepdims=True)")
        k.tag(f"keepdims_{red}")
        vec_kind, vecs = "col", [Ex("cv", src.mag * (c if red == "sum" else 1), red != "sum")]
    if vec_kind:
        k.tag(f"{vec_kind}_vec")
    e = _exprs(k, leaves, masks=masks, vecs=vecs, vec_kind=vec_kind, numel=numel).expr()
    if out_kind == "tile":
        k.line(2, f"store(y[{region}], {_computed(k, e).text})")
    else:
        red = draw(st.sampled_from(["sum", "max", "min"]))
        keep = ", keepdims=True" if out_kind == "rowred_keep" else ""
        k.tag(f"axis1_{red}{'_keep' if keep else ''}")
        dst = "y[r:r + RB]" if out_kind == "rowred" else "y[r:r + RB, :]"
        k.line(2, f"store({dst}, {red}({e.text}, axis=1{keep}))")
    return k.case("blocks2d")


# -- rowreduce
def _rowreduce(draw, opts: Options) -> FuzzCase:
    k = _Kernel(draw, opts)
    k.maybe_attrs()
    r, c = draw(st.integers(1, 60)), draw(st.integers(1, 400))
    red = draw(st.sampled_from(["sum", "max", "min", "mean", "prod"]))
    k.tag(f"rowreduce_{red}")
    t = _tile(draw)
    k.const("T", t)
    leaves, masks = _leaf_loads(k, draw(st.integers(1, 2)), "R, C", (r, c), "r, j:j + T")
    k.out("y", "R", (r,))
    k.line(1, "for r in parallel(R):")
    single = red == "mean" and draw(st.booleans())
    if single:     # mean of a whole row in one tile (FIXED_BUGS["mean"])
        leaves = [Ex(l.text.replace("j:j + T", ":"), l.mag, l.exact) for l in leaves]
        masks = [m.replace("j:j + T", ":") for m in masks]
        e = _exprs(k, leaves, masks=masks, numel=c).expr()
        k.line(2, f"store(y[r], mean({e.text}))")
        return k.case("rowreduce")
    if red == "mean":
        red = "sum"
    init = {"sum": "0.0", "max": "-inf", "min": "inf", "prod": "1.0"}[red]
    k.line(2, f"acc = {init}")
    k.line(2, "for j in range(0, C, T):")
    e = _exprs(k, leaves, masks=masks, numel=t).expr()
    if red == "prod":
        e = Ex(f"({_bounded(e).text} * 0.015625 + 1.0)", 1.0)
    comb = {"sum": "acc + {}", "max": "maximum(acc, {})", "min": "minimum(acc, {})", "prod": "acc * {}"}[red]
    k.line(3, "acc = " + comb.format(f"{red}({e.text})"))
    post = draw(st.sampled_from(["acc", "mean", "scaled"]))
    if "rowreduce_mean" in k.tags or post == "mean" and red == "sum":
        k.line(2, "store(y[r], acc * (1.0 / C))")
    elif post == "scaled":
        s = _exprs(k, [Ex("acc", 1.0)], scalar_mode=True).nonzero_scalar()
        k.line(2, f"store(y[r], acc * {s.text})")
    else:
        k.line(2, "store(y[r], acc)")
    return k.case("rowreduce")


def _bounded(e: Ex) -> Ex:
    return e if e.mag <= 4 else Ex(f"tanh({e.text})", 1.0)


# -- colreduce
def _colreduce(draw, opts: Options) -> FuzzCase:
    k = _Kernel(draw, opts)
    k.maybe_attrs()
    r, c = draw(st.integers(1, 40)), draw(st.integers(1, 200))
    style = draw(st.sampled_from(["axis0", "elementwise"]))
    k.tag(f"colreduce_{style}")
    tc = _tile(draw)
    k.const("TC", tc)
    k.out("y", "C", (c,))
    if style == "axis0":
        rb = draw(st.sampled_from([2, 1, 3, 8]))
        k.const("RB", rb)
        leaves, masks = _leaf_loads(k, draw(st.integers(1, 2)), "R, C", (r, c), "n:n + RB, c:c + TC")
        red = draw(st.sampled_from(["sum", "max", "min"]))
        k.tag(f"axis0_{red}")
        comb = {"sum": "acc + {}", "max": "maximum(acc, {})", "min": "minimum(acc, {})"}[red]
        k.line(1, "for cb in parallel(cdiv(C, TC)):")
        k.line(2, "c = cb * TC")
        ex = _exprs(k, leaves, masks=masks, numel=rb * tc)
        e0 = ex.expr()
        k.line(2, f"acc = {red}({e0.text.replace('n:n + RB', '0:RB')}, axis=0)")
        k.line(2, "for n in range(RB, R, RB):")
        e1 = ex.expr()
        k.line(3, "acc = " + comb.format(f"{red}({e1.text}, axis=0)"))
        k.line(2, f"store(y[c:c + TC], acc)")
        return k.case("colreduce")
    leaves, masks = _leaf_loads(k, 1, "R, C", (r, c), "n, c:c + TC")
    k.line(1, "for cb in parallel(cdiv(C, TC)):")
    k.line(2, "c = cb * TC")
    ex = _exprs(k, leaves, masks=masks, numel=tc)
    e0 = _computed(k, _bounded(ex.expr()))
    k.line(2, f"acc = {e0.text.replace('n, c:c + TC', '0, c:c + TC')}")
    k.line(2, "for n in range(1, R):")
    e1 = _bounded(ex.expr())
    op = draw(st.sampled_from(["+", "maximum", "minimum"]))
    k.line(3, "acc = " + ("acc + " + e1.text if op == "+" else f"{op}(acc, {e1.text})"))
    k.line(2, f"store(y[c:c + TC], acc)")
    return k.case("colreduce")


# -- scan
def _scan(draw, opts: Options) -> FuzzCase:
    k = _Kernel(draw, opts)
    r, c = draw(st.integers(1, 30), ), draw(st.integers(1, 300))
    op = draw(st.sampled_from(["cumsum", "cumprod"]))
    reverse = draw(st.booleans())
    k.tag(f"{op}{'_reverse' if reverse else ''}")
    t = _tile(draw)
    k.const("T", t)
    leaves, masks = _leaf_loads(k, 1, "R, C", (r, c), "r, j:j + T")
    k.out("y", "R, C", (r, c))
    k.line(1, "for r in parallel(R):")
    k.line(2, f"carry = {'0.0' if op == 'cumsum' else '1.0'}")
    if reverse:
        k.const("LAST", "(cdiv(C, T) - 1) * T")
        k.line(2, "for j in range(LAST, -1, -T):")
    else:
        k.line(2, "for j in range(0, C, T):")
    e = _bounded(_exprs(k, leaves, masks=masks, numel=t).expr())
    if op == "cumprod":
        e = Ex(f"({e.text} * 0.015625 + 1.0)", 1.0)
    k.line(3, f"s = {e.text}")
    rev = ", reverse=True" if reverse else ""
    if op == "cumsum":
        k.line(3, f"store(y[r, j:j + T], cumsum(s{rev}) + carry)")
        k.line(3, "carry = carry + sum(s)")
    else:
        k.line(3, f"store(y[r, j:j + T], cumprod(s{rev}) * carry)")
        k.line(3, "carry = carry * prod(s)")
    return k.case("scan")


# -- window
def _window(draw, opts: Options) -> FuzzCase:
    k = _Kernel(draw, opts)
    op = draw(st.sampled_from(["window_max", "window_avg"]))
    pad_value = "-inf" if op == "window_max" else "0.0"
    two_d = draw(st.booleans())
    ks = draw(st.integers(1, 4))
    s = draw(st.integers(1, 3))
    p = draw(st.integers(0, (ks - 1) // 2 + 1)) if ks > 1 else 0
    p = min(p, ks // 2)
    as_attrs = draw(st.booleans())
    if as_attrs:
        k.attrs += [f"k: i32 = {ks}", f"s: i32 = {s}", f"p: i32 = {p}"]
        K, S, P = "k", "s", "p"
        k.tag("window_attrs")
    else:
        K, S, P = str(ks), str(s), str(p)
    k.tag(f"{op}_{'2d' if two_d else '1d'}")
    post = draw(st.sampled_from(["none", "math"]))
    if not two_d:
        n, length = draw(st.integers(1, 12)), draw(st.integers(ks, 200))
        lo = (length + 2 * p - ks) // s + 1
        k.inp("x", "N, L", (n, length))
        k.out("y", "N, LO", (n, lo))
        tl = _tile(draw)
        k.const("TL", tl)
        k.const("IL", f"(TL - 1) * {S} + {K}")
        k.line(1, "for i, lb in parallel(N, cdiv(LO, TL)):")
        k.line(2, "l = lb * TL")
        k.line(2, f"li = l * {S} - {P}")
        k.line(2, f"t = load(x[i, li:li + IL], pad={pad_value})")
        w = f"{op}(t, kernel=({K},), stride=({S},))"
        dst = "y[i, l:l + TL]"
        numel = tl
    else:
        n = draw(st.integers(1, 4))
        h, wd = draw(st.integers(ks, 40)), draw(st.integers(ks, 60))
        ho, wo = (h + 2 * p - ks) // s + 1, (wd + 2 * p - ks) // s + 1
        k.inp("x", "N, H, W", (n, h, wd))
        k.out("y", "N, HO, WO", (n, ho, wo))
        th, tw = draw(st.sampled_from([4, 1, 3, 8])), _tile(draw, 64)
        k.const("TH", th)
        k.const("TWO", tw)
        k.const("IH", f"(TH - 1) * {S} + {K}")
        k.const("IW", f"(TWO - 1) * {S} + {K}")
        k.line(1, "for i, hb, wb in parallel(N, cdiv(HO, TH), cdiv(WO, TWO)):")
        k.line(2, "h = hb * TH")
        k.line(2, "w = wb * TWO")
        k.line(2, f"hi = h * {S} - {P}")
        k.line(2, f"wi = w * {S} - {P}")
        k.line(2, f"t = load(x[i, hi:hi + IH, wi:wi + IW], pad={pad_value})")
        w = f"{op}(t, kernel=({K}, {K}), stride=({S}, {S}))"
        dst = "y[i, h:h + TH, w:w + TWO]"
        numel = th * tw
    if post == "math":
        k.line(2, f"p0 = {w}")
        e = _exprs(k, [Ex("p0", 1.0, op == "window_max")], numel=numel).expr(2)
        k.line(2, f"store({dst}, {e.text})")
    else:
        k.line(2, f"store({dst}, {w})")
    return k.case("window")


# -- twophase
def _twophase(draw, opts: Options) -> FuzzCase:
    k = _Kernel(draw, opts)
    k.maybe_attrs()
    styles = ["cores", "rowstats", "groups", "partials2d", "column"]
    style = draw(st.sampled_from(styles))
    k.tag(f"twophase_{style}")
    r, c = draw(st.integers(1, 60)), draw(st.integers(1, 300))
    t = _tile(draw)
    k.const("T", t)
    if style == "cores":        # mse form: balanced tile ranges per core, partials, one-core finish
        leaves, masks = _leaf_loads(k, draw(st.integers(1, 2)), "R, C", (r, c), "f // NT, j:j + T")
        k.out("loss", "", ())
        k.const("NT", "cdiv(C, T)")
        k.const("U", "R * NT")
        k.scratch.append("    scratch part: f32[CORES]")
        red = draw(st.sampled_from(["sum", "max"]))
        k.line(1, "for c in parallel(CORES):")
        k.line(2, f"acc = {'0.0' if red == 'sum' else '-inf'}")
        k.line(2, "for f in range(c * U // CORES, (c + 1) * U // CORES):")
        k.line(3, "j = f % NT * T")
        e = _exprs(k, leaves, masks=masks, numel=t).expr()
        if red == "sum":
            k.line(3, f"acc = acc + sum({e.text})")
            k.line(2, "store(part[c], acc)")
            k.line(1, "store(loss, sum(load(part)) * (1.0 / (R * C)))")
        else:
            k.line(3, f"acc = maximum(acc, max({e.text}))")
            k.line(2, "store(part[c], acc)")
            k.line(1, "store(loss, max(load(part)))")
        k.tag(f"final_{red}")
        return k.case("twophase")
    if style == "partials2d" or style == "column":
        leaves, masks = _leaf_loads(k, 1, "R, C", (r, c), "i, j:j + T")
        k.const("NB", "cdiv(C, T)")
        k.scratch.append("    scratch part: f32[R, NB]")      # FIXED_BUGS["scratch_const_dim"]
        k.line(1, "for i, jb in parallel(R, NB):")
        k.line(2, "j = jb * T")
        e = _exprs(k, leaves, masks=masks, numel=t).expr()
        k.line(2, f"store(part[i, jb], sum({e.text}))")
        if style == "partials2d":
            k.out("y", "R", (r,))
            k.line(1, "for i in parallel(R):")
            k.line(2, "store(y[i], sum(load(part[i, 0:NB])))")
        else:                   # FIXED_BUGS["scratch_column"]
            k.out("y", "NBO", (-(-c // t),))
            k.line(1, "for jb in parallel(NB):")
            k.line(2, "store(y[jb], sum(load(part[:, jb])))")
        return k.case("twophase")
    # rowstats / groups: per-row statistic to scratch, then a second phase normalises the row
    leaves, masks = _leaf_loads(k, 1, "R, C", (r, c), "i, j:j + T")
    k.out("y", "R, C", (r, c))
    k.scratch.append("    scratch st: f32[R]")
    d = 1
    if style == "groups":
        g = draw(st.sampled_from([4, 1, 7, 16]))
        k.const("G", g)
        k.line(1, "for g in range(0, R, G):")
        d = 2
        par, row = "parallel(minimum(G, R - g))", "g + q"
    else:
        par, row = "parallel(R)", "q"
    red = draw(st.sampled_from(["sum", "max"]))
    k.line(d, f"for q in {par}:")
    k.line(d + 1, f"i = {row}")
    k.line(d + 1, f"acc = {'0.0' if red == 'sum' else '-inf'}")
    k.line(d + 1, "for j in range(0, C, T):")
    e = _exprs(k, leaves, masks=masks, numel=t).expr()
    k.line(d + 2, "acc = " + ("acc + sum({})" if red == "sum" else "maximum(acc, max({}))").format(e.text))
    k.line(d + 1, "store(st[i], acc)")
    k.line(d, f"for q in {par}:")
    k.line(d + 1, f"i = {row}")
    k.line(d + 1, "s = load(st[i])")
    k.line(d + 1, "for j in range(0, C, T):")
    sc = Ex("s", (c if red == "sum" else 1.0) * 40.0, False)
    ex2 = _Exprs(draw, opts, leaves, scalars=k.scalars + [sc], masks=masks, numel=t, tags=k.tags)
    e2 = _combine(draw(st.sampled_from(["-", "*", "/", "+"])), ex2.expr(), sc)
    k.line(d + 2, f"store(y[i, j:j + T], {e2.text})")
    return k.case("twophase")


# -- atomic
def _atomic(draw, opts: Options) -> FuzzCase:
    k = _Kernel(draw, opts)
    k.maybe_attrs()
    target = draw(st.sampled_from(["scalar", "vector"]))
    k.tag(f"atomic_{target}")
    r, c = draw(st.integers(1, 60)), draw(st.integers(1, 200))
    if target == "scalar":
        t = _tile(draw)
        k.const("T", t)
        leaves, masks = _leaf_loads(k, draw(st.integers(1, 2)), "R, C", (r, c), "i, j:j + T")
        k.out("loss", "", ())
        k.line(1, "store(loss, 0.0)")
        k.line(1, "for i in parallel(R):")
        k.line(2, "acc = 0.0")
        k.line(2, "for j in range(0, C, T):")
        e = _exprs(k, leaves, masks=masks, numel=t).expr()
        k.line(3, f"acc = acc + sum({e.text})")
        k.line(2, "atomic_add(loss, acc * (1.0 / R))")
        return k.case("atomic")
    tc = _tile(draw)
    rb = draw(st.sampled_from([2, 1, 3, 8]))
    k.const("TC", tc)
    k.const("RB", rb)
    leaves, masks = _leaf_loads(k, 1, "R, C", (r, c), "r:r + RB, c:c + TC")
    k.out("y", "C", (c,))
    k.line(1, "for cb in parallel(cdiv(C, TC)):")
    if draw(st.booleans()):
        k.line(2, "store(y[cb * TC:cb * TC + TC], 0.0)")       # FIXED_BUGS["scalar_store_region"]
    else:
        k.line(2, "store(y[cb * TC:cb * TC + TC], full((TC,), 0.0, f32))")
    k.line(1, "for rb, cb in parallel(cdiv(R, RB), cdiv(C, TC)):")
    k.line(2, "r = rb * RB")
    k.line(2, "c = cb * TC")
    e = _exprs(k, leaves, masks=masks, numel=rb * tc).expr()
    k.line(2, f"atomic_add(y[c:c + TC], sum({e.text}, axis=0))")
    return k.case("atomic")


FORMS = {
    "map1d": _map1d, "rows2d": _rows2d, "blocks2d": _blocks2d, "rowreduce": _rowreduce,
    "colreduce": _colreduce, "scan": _scan, "window": _window, "twophase": _twophase, "atomic": _atomic,
}


@st.composite
def fuzz_cases(draw, forms: tuple[str, ...] | None = None, options: Options = Options()) -> FuzzCase:
    """A random valid kernel (and its op description) of one of ``forms`` (default: all)."""
    form = draw(st.sampled_from(list(forms or FORMS)))
    return FORMS[form](draw, options)


def known_bug(result) -> str | None:
    """The KNOWN_BUGS key a failed ``DiffResult`` matches, or None (a new find, or no find; a
    fixed bug that comes back is a new find)."""
    key = _matching_bug(result)
    return key if key in KNOWN_BUGS else None


def _matching_bug(result) -> str | None:
    import re

    if result.ok:
        return None
    msg, text = result.message, result.case.text if result.case is not None else ""
    if result.stage == "interpret" and "erf(" in text and "does not fit the region of shape ()" in msg:
        return "erf_scalar"
    if result.generator_bug:
        return None
    if result.stage == "lower" and re.search(r"selection rule for mean\(", msg):
        return "mean"
    if result.stage == "lower" and re.search(r"selection rule for (sub|div) of tiles of shapes \[\d+, 1\] and "
                                             r"\[\d+, \d+\]", msg):
        return "colvec_left_sub_div"
    if result.stage == "mismatch" and re.search(r"load\(\w+\[:, ", text):
        return "scratch_column"
    if result.stage == "lower" and result.pass_name == "select" and "does not fit the region" in msg and \
            re.search(r"where\([^\n]*, -?[\d.]+[,)]", text):
        return "where_scalar_branch_tail"
    if result.stage == "sim" and "which is not a tiling field" in msg and "workspace expression" in msg:
        return "scratch_const_dim"
    if result.stage == "build" and "lvalue required as decrement operand" in msg:
        return "sub_negative_literal"
    if result.stage == "emit" and re.search(r"scalar function \w+ cannot be emitted", msg):
        return "scalar_functions"
    if result.stage == "timeout" and result.pass_name == "prefetch":
        return "two_scalar_loads"
    if result.stage == "lower" and "round= is not a known constant" in msg:
        return "floor_ceil"
    if result.stage == "lower" and result.pass_name == "prefetch" and "does not fit region" in msg and \
            re.search(r"range\(\w+, -1, -", text):
        return "reverse_scan_tail"
    if result.stage == "mismatch" and re.search(r"\*\* 2", text) and "parallel(N)" in text:
        return "scalar_pow2"
    return None
