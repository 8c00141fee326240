"""The op table: every builtin of the tile DSL, shared by the checker, the NumPy
interpreter and (later) the AscendC emitter, so they cannot drift apart.

Each op has a *kind* that fixes how arguments are typed and evaluated:

* ``elementwise`` — tiles and scalars broadcast NumPy-style; operands share one dtype
  (scalars take the tile's dtype); the result has that dtype, or ``bool`` for comparisons.
* ``reduce`` (axis=None|int, keepdims), ``scan`` (axis, reverse, exclusive),
  ``window`` (kernel, stride, padding, dilation over the trailing axes), ``matmul``,
  ``cast``, ``select`` (where), ``construct`` (zeros/full/iota), ``scalar`` (integer helpers).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from .. import dtypes as D


@dataclass(frozen=True)
class OpDef:
    name: str
    kind: str
    nargs: int                      # positional arguments
    dtypes: frozenset[str]          # accepted operand dtypes
    numpy: Callable | None          # implementation on NumPy arrays in the compute dtype
    doc: str
    kwargs: dict = field(default_factory=dict)   # keyword -> default
    result: str | None = None       # fixed result dtype ("bool" for comparisons), else operand dtype
    # API-level ops (lowered forms) only: the operand form, the v1 op whose meaning they have,
    # and the AscendC function the emitter calls.
    form: str | None = None
    of: str | None = None
    api: str | None = None


def _torch_erf(a: np.ndarray) -> np.ndarray:
    import torch  # numpy has no erf; torch is a dependency anyway
    a = np.asarray(a)
    out = torch.special.erf(torch.from_numpy(np.ascontiguousarray(a, dtype=np.float32))).numpy()
    return out.reshape(a.shape)     # ascontiguousarray makes a 0-d array 1-d


def _sigmoid(a):
    return 1.0 / (1.0 + np.exp(-a))


_F, _N, _I = D.FLOATS, D.NUMERIC, D.INTS
_B = frozenset({"bool"})
_ALL = frozenset(D.ALL)

_UNARY = [
    ("neg", _N, np.negative, "-x"),
    ("abs", _N, np.abs, "|x|"),
    ("exp", _F, np.exp, "e**x"),
    ("log", _F, np.log, "natural logarithm"),
    ("sqrt", _F, np.sqrt, "square root"),
    ("rsqrt", _F, lambda a: 1.0 / np.sqrt(a), "1/sqrt(x)"),
    ("reciprocal", _F, lambda a: 1.0 / a, "1/x"),
    ("relu", _N, lambda a: np.maximum(a, np.zeros((), a.dtype)), "max(x, 0)"),
    ("tanh", _F, np.tanh, "hyperbolic tangent"),
    ("sigmoid", _F, _sigmoid, "1/(1+e**-x)"),
    ("erf", _F, _torch_erf, "error function (for gelu: 0.5*x*(1+erf(x/sqrt(2))))"),
    ("floor", _F, np.floor, "round down to an integer value"),
    ("ceil", _F, np.ceil, "round up to an integer value"),
    ("not", _B | _I, np.invert, "~x: logical not (bool) or bitwise not (int)"),
]
_BINARY = [
    ("add", _N, np.add, "x + y"),
    ("sub", _N, np.subtract, "x - y"),
    ("mul", _N, np.multiply, "x * y"),
    ("div", _F, np.true_divide, "x / y (float)"),
    ("floordiv", _I, np.floor_divide, "x // y (integer)"),
    ("mod", _I, np.mod, "x % y (integer)"),
    ("pow", _F, np.power, "x ** y"),
    ("minimum", _N, np.minimum, "element-wise min"),
    ("maximum", _N, np.maximum, "element-wise max"),
    ("and", _B | _I, np.bitwise_and, "x & y: logical and (bool) or bitwise and (int)"),
    ("or", _B | _I, np.bitwise_or, "x | y: logical or (bool) or bitwise or (int)"),
]
_COMPARE = [
    ("lt", np.less, "x < y"), ("le", np.less_equal, "x <= y"), ("gt", np.greater, "x > y"),
    ("ge", np.greater_equal, "x >= y"), ("eq", np.equal, "x == y"), ("ne", np.not_equal, "x != y"),
]

OPS: dict[str, OpDef] = {}
for _name, _dt, _fn, _doc in _UNARY:
    OPS[_name] = OpDef(_name, "elementwise", 1, _dt, _fn, _doc)
for _name, _dt, _fn, _doc in _BINARY:
    OPS[_name] = OpDef(_name, "elementwise", 2, _dt, _fn, _doc)
for _name, _fn, _doc in _COMPARE:
    OPS[_name] = OpDef(_name, "elementwise", 2, _ALL, _fn, _doc, result="bool")
OPS["clamp"] = OpDef("clamp", "elementwise", 3, _N, lambda a, lo, hi: np.minimum(np.maximum(a, lo), hi),
                     "clamp(x, lo, hi) = minimum(maximum(x, lo), hi)")

_REDUCE_KW = {"axis": None, "keepdims": False}
OPS["sum"] = OpDef("sum", "reduce", 1, _N, np.sum, "sum along an axis (all axes if none)", dict(_REDUCE_KW))
OPS["max"] = OpDef("max", "reduce", 1, _N, np.max, "max along an axis", dict(_REDUCE_KW))
OPS["min"] = OpDef("min", "reduce", 1, _N, np.min, "min along an axis", dict(_REDUCE_KW))
OPS["mean"] = OpDef("mean", "reduce", 1, _F, np.sum, "mean along an axis (float)", dict(_REDUCE_KW))
OPS["prod"] = OpDef("prod", "reduce", 1, _N, np.prod, "product along an axis", dict(_REDUCE_KW))

_SCAN_KW = {"axis": -1, "reverse": False, "exclusive": False}
OPS["cumsum"] = OpDef("cumsum", "scan", 1, _N, np.cumsum, "running sum along an axis", dict(_SCAN_KW))
OPS["cumprod"] = OpDef("cumprod", "scan", 1, _N, np.cumprod, "running product along an axis", dict(_SCAN_KW))

_WINDOW_KW = {"kernel": None, "stride": None, "padding": 0, "dilation": 1}
OPS["window_max"] = OpDef("window_max", "window", 1, _N, np.max,
                          "max over sliding windows of the trailing axes (max pooling)", dict(_WINDOW_KW))
OPS["window_avg"] = OpDef("window_avg", "window", 1, _F, np.sum,
                          "average over sliding windows, padding counted (avg pooling)", dict(_WINDOW_KW))

OPS["matmul"] = OpDef("matmul", "matmul", 2, frozenset({"f16", "bf16", "f32", "i8"}), None,
                      "cube matrix product of two l1 tiles into an l0c tile (f32, or i32 for i8)",
                      {"transpose_a": False, "transpose_b": False})
OPS["cast"] = OpDef("cast", "cast", 2, _ALL, None,
                    "cast(x, dtype, round=...): float->int truncates, narrowing floats round to nearest even",
                    {"round": None})
OPS["where"] = OpDef("where", "select", 3, _ALL, np.where, "where(mask, a, b): a where mask else b")
OPS["zeros"] = OpDef("zeros", "construct", 2, _ALL, None,
                     "zeros(shape, dtype, space=ub): a new tile of zeros (space=l0c: a cube accumulator)",
                     {"space": None})
OPS["full"] = OpDef("full", "construct", 3, _ALL, None, "full(shape, value, dtype): a new tile filled with value")
OPS["iota"] = OpDef("iota", "construct", 2, _N, None, "iota(n, dtype, start=0): [start, start+1, ...]",
                    {"start": 0})
# Indexing (ascendcraft/dsl/indexing.py: checker and interpreter rules, PyTorch's tie and NaN rules)
OPS["argmax"] = OpDef("argmax", "argreduce", 1, _N, None,
                      "argmax(x, axis=None, keepdims=False, dtype=i64): position of the first maximum",
                      dict(_REDUCE_KW, dtype=None))
OPS["argmin"] = OpDef("argmin", "argreduce", 1, _N, None,
                      "argmin(x, axis=None, keepdims=False, dtype=i64): position of the first minimum",
                      dict(_REDUCE_KW, dtype=None))
OPS["scatter"] = OpDef("scatter", "scatter", 3, _ALL, None,
                       "scatter(t, idx, v, axis=-1): t with v written at idx (repeated index: the last wins)",
                       {"axis": -1})
OPS["scatter_add"] = OpDef("scatter_add", "scatter", 3, _N, None,
                           "scatter_add(t, idx, v, axis=-1): t with v added at idx (repeated indices accumulate)",
                           {"axis": -1})
OPS["gather"] = OpDef("gather", "gather", 2, _ALL, None,
                      "gather(t, idx, axis=-1): take_along_dim (idx of t's rank) or index_select (1-D idx)",
                      {"axis": -1})
# Triangles of the trailing two axes (torch.tril/triu): ``diagonal`` is a scalar (a loop variable's
# expression), so a tile of a larger matrix passes its own offset, e.g. tril(t, diagonal=m - n + d)
# The axes of a 2-D tile swapped: a channel-first block laid out channel-last (torch's t.T)
OPS["transpose"] = OpDef("transpose", "transpose", 1, _ALL, None,
                         "transpose(x): the 2-D tile x with its two axes swapped ([R, C] -> [C, R])")
OPS["tril"] = OpDef("tril", "triangle", 1, _ALL, None,
                    "tril(x, diagonal=0): x with the elements above the diagonal (column - row > diagonal) zeroed",
                    {"diagonal": 0})
OPS["triu"] = OpDef("triu", "triangle", 1, _ALL, None,
                    "triu(x, diagonal=0): x with the elements below the diagonal (column - row < diagonal) zeroed",
                    {"diagonal": 0})
OPS["cdiv"] = OpDef("cdiv", "scalar", 2, _I, None, "cdiv(a, b): ceiling division of integer scalars")


def _exclusive_scan(fn, identity):
    def scan(a):
        out = np.empty_like(a)
        if a.size:
            out[:1] = identity
            out[1:] = fn(a[:-1])
        return out
    return scan


# The meaning of the exclusive scan API ops (their ``of``): 1-D, forward (the interpreter flips a
# reverse scan). Internal: their names are no DSL identifier, so no kernel can call them.
_EXCLUSIVE = {"cumsum": "exclusive cumsum", "cumprod": "exclusive cumprod"}
for _of, _fn, _ident in (("cumsum", np.cumsum, 0), ("cumprod", np.cumprod, 1)):
    OPS[_EXCLUSIVE[_of]] = OpDef(_EXCLUSIVE[_of], "internal", 1, _N, _exclusive_scan(_fn, _ident),
                                 f"{_of}(x, exclusive=True) of a 1-D tile")

# ---------------------------------------------------------------- API-level ops (lowered forms)
# One DSL op per AscendC call, with the meaning of a v1 op (``of``). Operand forms:
#   unary (tile), binary (tile, tile: same shape), scalar (tile, scalar), reduce (tile -> scalar),
#   compare (tile, tile|scalar, mode=...), select (mask, tile, tile|scalar), cast (tile, dtype),
#   duplicate (shape, value, dtype), getvalue (tile with one element -> scalar), copy (tile),
#   rows (2-D tile -> its rows reduced into one row), scan (1-D tile, reverse=...),
#   window (tile, kernel=..., stride=...: pooling over the trailing axes),
#   rowvec ([R, C] with [C], either order), colvec ([R, C] with [R, 1] on the right),
#   rowreduce ([R, C] -> [R] or, keepdims=True, [R, 1]).
# Names, operand orders and dtype support: shared/research/ascendc_api.md section 3 (level-2 APIs).
_HF = frozenset({"f16", "f32"})    # 910B's vector math: half and float, no bf16 (only Casts; ascendcraft/lowering_passes/widen.py)
_API = [
    ("Exp", "unary", "exp", _HF), ("Ln", "unary", "log", _HF), ("Abs", "unary", "abs", _HF),
    ("Sqrt", "unary", "sqrt", _HF), ("Rsqrt", "unary", "rsqrt", _HF), ("Reciprocal", "unary", "reciprocal", _HF),
    ("Relu", "unary", "relu", frozenset({"f16", "f32", "i32"})),
    ("Add", "binary", "add", frozenset({"f16", "f32", "i16", "i32"})),
    ("Sub", "binary", "sub", frozenset({"f16", "f32", "i16", "i32"})),
    ("Mul", "binary", "mul", frozenset({"f16", "f32", "i16", "i32"})),
    ("Div", "binary", "div", _HF),
    ("Max", "binary", "maximum", frozenset({"f16", "f32", "i16", "i32"})),
    ("Min", "binary", "minimum", frozenset({"f16", "f32", "i16", "i32"})),
    ("Adds", "scalar", "add", frozenset({"f16", "f32", "i16", "i32"})),
    ("Muls", "scalar", "mul", frozenset({"f16", "f32", "i16", "i32"})),
    ("Maxs", "scalar", "maximum", frozenset({"f16", "f32", "i16", "i32"})),
    ("Mins", "scalar", "minimum", frozenset({"f16", "f32", "i16", "i32"})),
    # Axpy(acc, x, s) = acc + x * s, accumulated in acc's place (select fuses a Muls into the Add that
    # consumes it; the 910B's Axpy takes float: the simulator's vec.h)
    ("Axpy", "axpy", "add", frozenset({"f32"})),
    ("ReduceSum", "reduce", "sum", frozenset({"f16", "f32"})),
    ("ReduceMax", "reduce", "max", frozenset({"f16", "f32"})),
    ("ReduceMin", "reduce", "min", frozenset({"f16", "f32"})),
    # composite: product of a tile's elements (Mul over 64-element rows, then the scalar unit)
    ("ReduceProd", "reduce", "prod", frozenset({"f16", "f32"})),
    # composite: scans of a 1-D tile, as Gather (transpose to 64 chunks) + row Adds/Muls + Gather back
    ("CumSum", "scan", "cumsum", frozenset({"f16", "f32"})),
    ("CumProd", "scan", "cumprod", frozenset({"f16", "f32"})),
    # composite: the exclusive scans (the same algorithm, each row taking the previous row's values:
    # an exact shift, right where an element is 0 or infinite)
    ("CumSumExclusive", "scan", _EXCLUSIVE["cumsum"], frozenset({"f16", "f32"})),
    ("CumProdExclusive", "scan", _EXCLUSIVE["cumprod"], frozenset({"f16", "f32"})),
    # composite: pooling windows (padding 0; dilation=) over the last one or two axes of a tile,
    # as Gathers of the strided views (widths, then rows) combined with Max / Add (+ Muls for avg)
    ("WindowMax", "window", "window_max", frozenset({"f16", "f32", "i16", "i32"})),
    ("WindowAvg", "window", "window_avg", frozenset({"f16", "f32"})),
    # composite: reduce each row of a 2-D tile (ReduceSum/Max/Min per row, values set on the scalar unit)
    ("SumEachRow", "rowreduce", "sum", frozenset({"f16", "f32"})),
    ("MaxEachRow", "rowreduce", "max", frozenset({"f16", "f32"})),
    ("MinEachRow", "rowreduce", "min", frozenset({"f16", "f32"})),
    # composite: the product of each row (per row: Mul of 64-element chunks, then 64 lanes on the scalar unit)
    ("ProdEachRow", "rowreduce", "prod", frozenset({"f16", "f32"})),
    # composite: a 2-D tile [R, C] with a row vector [C] (either operand; one level-2 op per row)
    # or with a column vector [R, 1] on the right (per row: GetValue, then the tile-scalar op)
    # (the row vector is [C] or [1, C]; i32 rows use the integer Add/Sub/Mul/Max/Min, Adds/Muls/Maxs/Mins)
    *[(f"{n}RowVec", "rowvec", of, frozenset({"f16", "f32"} | ({"i32"} if n != "Div" else set()))) for n, of in
      (("Add", "add"), ("Sub", "sub"), ("Mul", "mul"), ("Div", "div"), ("Max", "maximum"), ("Min", "minimum"))],
    *[(f"{n}ColVec", "colvec", of, frozenset({"f16", "f32"} | ({"i32"} if n != "Div" else set())))
      for n, of in
      (("Add", "add"), ("Sub", "sub"), ("Mul", "mul"), ("Div", "div"), ("Max", "maximum"), ("Min", "minimum"))],
    # composite: a column [R, 1] with a row [C] or [1, C], either order, into [R, C] (codegen/outer.py:
    # per row, the column's element on the scalar unit and one tile-scalar or Duplicate + binary op)
    *[(f"Outer{n}", "outer", of, frozenset({"f16", "f32"} | ({"i32"} if n != "Div" else set()))) for n, of in
      (("Add", "add"), ("Sub", "sub"), ("Mul", "mul"), ("Div", "div"), ("Max", "maximum"), ("Min", "minimum"))],
    # composite: reduce the rows of a 2-D tile into one row, as a loop of Add/Max/Min over rows
    ("SumRows", "rows", "sum", frozenset({"f16", "f32", "i16", "i32"})),
    ("MaxRows", "rows", "max", frozenset({"f16", "f32", "i16", "i32"})),
    ("MinRows", "rows", "min", frozenset({"f16", "f32", "i16", "i32"})),
    ("ProdRows", "rows", "prod", frozenset({"f16", "f32", "i16", "i32"})),
    # int32: mode eq only on 910B (dav_c220 kernel_operator_vec_cmp_impl.h; the simulator enforces it)
    ("Compare", "compare", None, frozenset({"f16", "f32", "i32"})),
    ("CompareScalar", "compare", None, frozenset({"f16", "f32", "i32"})),
    # Select moves bits: 16- and 32-bit integers are selected as their bits viewed as f16 / f32
    ("Select", "select", "where", frozenset({"f16", "f32", "i16", "i32"})),
    # logic on masks (bit masks, as Compare writes them) and bitwise ops on integers, on 16-bit views
    ("Not", "unary", "not", frozenset({"bool", "i16", "i32", "i64"})),
    ("And", "binary", "and", frozenset({"bool", "i16", "i32", "i64"})),
    ("Or", "binary", "or", frozenset({"bool", "i16", "i32", "i64"})),
    ("Cast", "cast", "cast", _ALL),
    # composite: where(m, a, b) with a [R, 1] bool mask of bytes over [R, C] values (tiles of the result's
    # shape or scalars): per row, the mask's byte on the scalar unit and one copy (Muls by 1) or Duplicate
    ("SelectRows", "selectrows", "where", frozenset({"f16", "f32", "i16", "i32"})),
    # composite: tril/triu of a 2-D tile (tile, diagonal): a copy and, per row, a Duplicate of zeros or a
    # Muls by 1 over the row's leading elements (a row's start is 32-byte aligned; its kept part need not be)
    ("Tril", "triangle", "tril", frozenset({"f16", "f32", "i16", "i32"})),
    # transpose of a 2-D tile: per output row, a Gather of the input's column (2- and 4-byte elements)
    ("Transpose", "transpose", "transpose", frozenset({"f16", "f32", "i16", "i32"})),
    ("Triu", "triangle", "triu", frozenset({"f16", "f32", "i16", "i32"})),
    ("Duplicate", "duplicate", "full", frozenset({"f16", "f32", "i16", "i32"})),
    ("GetValue", "getvalue", None, _ALL),
    ("Copy", "copy", None, _ALL),
    # the high-level Matmul API: GM regions in, a GM region out (as a store's value: one core's
    # single-core block with the base block base=(baseM, baseN, baseK)) or one base block handed to
    # UB (as an assignment's value: a fused epilogue's product tile)
    ("Matmul", "gemm", "matmul", frozenset({"f16", "bf16", "f32"})),
]
API_COMPARE_MODES = {"lt": "LT", "gt": "GT", "eq": "EQ", "le": "LE", "ge": "GE", "ne": "NE"}
for _name, _form, _of, _dt in _API:
    _kw = {"out": None}
    if _form == "compare":
        _kw["mode"] = None
    if _form == "cast":
        _kw["round"] = None
    if _form == "scan":
        _kw["reverse"] = False
    if _form == "window":
        _kw.update(kernel=None, stride=None, dilation=None)
    if _form == "rowreduce":
        _kw["keepdims"] = False
    if _form == "transpose":
        _kw["rows"] = None     # the source's static row bound (bufferize): the output's row pitch
    if _form == "gemm":
        _kw = {"transpose_a": False, "transpose_b": False, "base": None, "out": None, "strip": None, "workspace": None,
               "staged": None, "ahead": None, "defer": False, "taps": None, "resident": False, "groups": None}
    OPS[_name] = OpDef(_name, "api", {"unary": 1, "binary": 2, "scalar": 2, "reduce": 1, "compare": 2,
                                      "select": 3, "cast": 2, "duplicate": 3, "getvalue": 1, "copy": 1, "rows": 1, "scan": 1, "window": 1, "rowvec": 2, "colvec": 2, "rowreduce": 1, "outer": 2,
                                      "triangle": 2, "selectrows": 3, "axpy": 3, "transpose": 1,
                                      "gemm": 2}[_form],
                       _dt, None, f"AscendC {_name}", _kw, "bool" if _form == "compare" else None,
                       form=_form, of=_of, api=_name)

# Indexing API form (dsl/indexing.py defines its checking and meaning, codegen/indexing.py its AscendC)
OPS["Gather"] = OpDef("Gather", "api", 2, frozenset({"f16", "f32", "i16", "i32"}), None, "AscendC Gather",
                      {"out": None}, form="gather", api="Gather")
# composite: a scalar-unit loop over the indices (GetValue / SetValue), the tile copied first (operand dtypes:
# the f32/i32 tile and values, the i32/i64 indices)
for _name, _of in (("Scatter", "scatter"), ("ScatterAdd", "scatter_add")):
    OPS[_name] = OpDef(_name, "api", 3, frozenset({"f32", "i32", "i64"}), None, "AscendC GetValue/SetValue per index",
                       {"out": None}, form="scatter", of=_of)
# composite: the i32 row index of the first extreme of each column of a 2-D tile (per row: Compare + Select
# of the index, Max/Min of the running extreme)
for _name, _of in (("ArgMaxRows", "argmax"), ("ArgMinRows", "argmin")):
    OPS[_name] = OpDef(_name, "api", 1, frozenset({"f32"}), None, "AscendC Compare + Select + Max/Min per row",
                       {"out": None}, form="argrows", of=_of)
# composite: the i32 column index of the first extreme of each row of a 2-D tile, a NaN winning (per row:
# Compare for NaN, ReduceMax/Min, CompareScalar for the extreme, Select of an index ramp, ReduceMin)
for _name, _of in (("ArgMaxEachRow", "argmax"), ("ArgMinEachRow", "argmin")):
    OPS[_name] = OpDef(_name, "api", 1, frozenset({"f32"}), None,
                       "AscendC Compare + Select + ReduceMax/Min + ReduceMin per row", {"out": None},
                       form="argeachrow", of=_of)

BINARY_OPERATORS = {"+": "add", "-": "sub", "*": "mul", "/": "div", "//": "floordiv", "%": "mod",
                    "**": "pow", "&": "and", "|": "or", "<": "lt", "<=": "le", ">": "gt", ">=": "ge",
                    "==": "eq", "!=": "ne"}
UNARY_OPERATORS = {"-": "neg", "~": "not"}

ROUND_MODES = ("rint", "floor", "ceil", "round", "trunc")

# Names that are not ops but mean something in expressions.
CONSTANT_NAMES = {"inf": float("inf"), "nan": float("nan"), "True": True, "False": False}
# Functions that are not ops: they are statements or loop headers (the parser reads them).
STATEMENT_FUNCS = ("load", "store", "atomic_add", "range", "parallel", "free")
# Op names, STATEMENT_FUNCS and memory spaces are not reserved: a variable may take any name that
# is not a keyword (ascendcraft.dsl.parser.keywords(), read from the grammar), and a call names an
# op whatever variables exist.


def apply_round(a: np.ndarray, mode: str) -> np.ndarray:
    return {"rint": np.rint, "floor": np.floor, "ceil": np.ceil, "trunc": np.trunc,
            "round": lambda x: np.sign(x) * np.floor(np.abs(x) + 0.5)}[mode](a)
