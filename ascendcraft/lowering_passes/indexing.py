"""Select rules for the indexing ops (docs/dsl.md "Indexing"): which AscendC calls compute them.

``gather(t, idx)`` of a 1-D tile by a 1-D index tile (or along the rows of a 2-D tile by a 2-D index
tile of its rows: one Gather per row, from that row) is AscendC ``Gather``, which takes byte
offsets as uint32 (asc-devkit impl/basic_api/dav_c220/kernel_operator_vec_gather_impl.h): an i64
index tile is narrowed with ``Cast`` (int64 -> int32 takes CAST_NONE on A2: vconv_s642s32 in
kernel_operator_vec_vconv_impl.h), then scaled by the element size with ``Muls``. Indices are
below 2**31 / sizeof(T) because the gathered tile lives in UB (192 KiB), so both steps are exact.
The interpreter has checked every index against the tile's extent; the simulator checks the
offsets again (gather-range).
"""
from __future__ import annotations

from ascendcraft import dtypes as D
from ascendcraft.dsl import ast as A

from .base import binary, call, int_literal, lit

#: the DSL ops these rules lower
OPS = ("gather", "argmax", "argmin", "scatter", "scatter_add")


def select(sel, op: str, args: list, e, prev, no_rule) -> list:
    """API calls computing ``e`` (``prev`` names the previous call's result); ``no_rule(why)`` is
    raised for a form these rules do not cover."""
    from ascendcraft.dsl.printer import expr as print_expr
    text = f"`{print_expr(e)}`, "
    if op in ("argmax", "argmin"):
        return _arg(sel, op, args[0], e, prev, no_rule, text)
    if op in ("scatter", "scatter_add"):
        return _scatter(sel, op, args, e, no_rule, text)
    t, idx = (sel.ctx.type_of(a) for a in args[:2])
    axis = int_literal(e.kwarg("axis")) if e.kwarg("axis") is not None else -1
    one_d = len(t.shape) == 1 and len(idx.shape) == 1 and axis in (0, -1)
    # take_along_dim along the rows of a 2-D tile: a Gather per row, from that row of t
    rows = len(t.shape) == 2 and len(idx.shape) == 2 and axis in (1, -1) and idx.shape[0] == t.shape[0]
    if not (one_d or rows):
        raise no_rule(text + f"a gather of a rank-{len(t.shape)} tile by a rank-{len(idx.shape)} index tile along axis "
                      f"{axis} (it lowers for a 1-D tile and a 1-D index tile, and along axis 1 of a 2-D tile by an "
                      "index tile of its rows: otherwise gather one row at a time, e.g. gather(load(x[r, :]), "
                      "load(idx[r, k:k + T])))")
    if t.dtype not in ("f16", "f32", "i16", "i32"):
        raise no_rule(text + f"a gather of a {t.dtype} tile (AscendC Gather moves 16- and 32-bit elements)")
    steps = []
    offsets = args[1]
    if idx.dtype == "i64":
        steps.append(call("Cast", offsets, A.Name("i32")))
        offsets = prev
    elif idx.dtype != "i32":
        raise no_rule(text + f"a gather by a {idx.dtype} index tile (indices lower as i32 or i64 tiles)")
    steps += [call("Muls", offsets, lit(D.ITEMSIZE[t.dtype])), call("Gather", args[0], prev)]
    return steps


def _arg(sel, op, x, e, prev, no_rule, text) -> list:
    """``argmax(t, axis=0)`` of a 2-D f32 tile: ArgMaxRows; ``argmax(t, axis=1)``: ArgMaxEachRow (both
    i32), widened when the result is i64."""
    t, result = sel.ctx.type_of(x), sel.ctx.type_of(e)
    keep = e.kwarg("keepdims")
    axis = int_literal(e.kwarg("axis"))
    if len(t.shape) != 2 or axis not in (0, -2, 1, -1) or t.dtype != "f32" or \
            (isinstance(keep, A.Name) and keep.id == "True"):
        raise no_rule(text + f"{op} of a {t.dtype} tile of rank {len(t.shape)} (it lowers along axis 0 or 1 of a "
                      f"2-D f32 tile, without keepdims: the first extreme of each column or row; for a 1-D row "
                      f"load it as a [1, C] tile and take axis=1)")
    kind = "Rows" if axis in (0, -2) else "EachRow"
    steps = [call(("ArgMax" if op == "argmax" else "ArgMin") + kind, x)]
    if result.dtype != "i32":
        steps.append(call("Cast", prev, A.Name(result.dtype)))
    return steps


def _scatter(sel, op, args, e, no_rule, text) -> list:
    """``scatter(t, idx, v)`` / ``scatter_add`` of 1-D tiles: Scatter / ScatterAdd, a loop on the scalar
    unit in index order (no vector scatter accumulates repeated indices; A2's vector units have none)."""
    t, idx, v = (sel.ctx.type_of(a) for a in args[:3])
    if len(t.shape) != 1 or t.dtype not in ("f32", "i32") or idx.dtype not in ("i32", "i64"):
        raise no_rule(text + f"{op} of a rank-{len(t.shape)} {t.dtype} tile by {idx.dtype} indices (it lowers for a "
                      "1-D f32/i32 tile and i32/i64 indices: scatter one row at a time)")
    return [call("Scatter" if op == "scatter" else "ScatterAdd", *args[:3])]


#: The arg-reductions' output buffers (codegen/indexing.py writes them, bufferize sizes them): their
#: parts in order, each a size in 4-byte elements as {term: count}, the terms made of A = the columns
#: rounded up to 64 (Compare works on whole 256-byte repeats) and O = the rows rounded up to 8.
ARG_LAYOUTS = {
    # the column indices, the running extreme, a copy of the current row, the comparison's mask and
    # the running extreme's NaN mask
    "argrows": (("indices", {"A": 1}), ("best", {"A": 1}), ("row", {"A": 1}), ("mask", {"align8(A/32)": 1, "1": 8}),
                ("nan", {"align8(A/32)": 1, "1": 8})),
    # the row indices, a copy of the row, the selected indices, the index ramp, the reduction's result
    # and work area, the comparison's mask
    "argeachrow": (("indices", {"O": 1}), ("row", {"A": 1}), ("sel", {"A": 1}), ("ramp", {"A": 1}),
                   ("red", {"1": 8}), ("work", {"align8(A/64)": 1, "1": 16}), ("mask", {"A/32": 1, "1": 8})),
}


def _terms(parts) -> dict:
    total: dict = {}
    for _, size in parts:
        for term, n in size.items():
            total[term] = total.get(term, 0) + n
    return total


def arg_buffer_elems(form: str, rows, cols):
    """Elements of an ArgMax/ArgMin output buffer of ``form`` for a [rows, cols] tile, as a DSL expression."""
    a = binary("*", call("cdiv", cols, A.Int(64)), A.Int(64))
    terms = {"A": a, "O": binary("*", call("cdiv", rows, A.Int(8)), A.Int(8)), "1": A.Int(1),
             "A/32": binary("//", a, A.Int(32)),
             "align8(A/64)": binary("*", call("cdiv", binary("//", a, A.Int(64)), A.Int(8)), A.Int(8)),
             "align8(A/32)": binary("*", call("cdiv", binary("//", a, A.Int(32)), A.Int(8)), A.Int(8))}
    out = None
    for term, n in _terms(ARG_LAYOUTS[form]).items():
        part = A.Int(n) if term == "1" else terms[term] if n == 1 else binary("*", terms[term], A.Int(n))
        out = part if out is None else binary("+", out, part)
    return out


def arg_buffer_offsets(form: str, a: str, o: str) -> dict[str, str]:
    """C++ offsets (in elements) of each part of an ArgMax/ArgMin output buffer of ``form``, given the
    C++ names of A and O."""
    terms = {"A": a, "O": o, "A/32": f"{a} / 32", "align8(A/64)": f"AcAlignUp({a} / 64, 8)",
             "align8(A/32)": f"AcAlignUp({a} / 32, 8)"}
    layout, offsets = ARG_LAYOUTS[form], {}
    for i, (part, _) in enumerate(layout):
        before = _terms(layout[:i])
        offsets[part] = " + ".join(str(n) if term == "1" else terms[term] if n == 1 else f"{n} * {terms[term]}"
                                   for term, n in before.items()) or "0"
    return offsets
