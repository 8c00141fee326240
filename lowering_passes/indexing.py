"""Select rules for the indexing ops (docs/dsl.md "Indexing"): which AscendC calls compute them.

``gather(t, idx)`` of a 1-D tile by a 1-D index tile is AscendC ``Gather``, which takes byte
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

from .base import call, int_literal, lit

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
    axis = e.kwarg("axis")
    if len(t.shape) != 1 or len(idx.shape) != 1 or not (axis is None or int_literal(axis) in (0, -1)):
        raise no_rule(text + f"a gather of a rank-{len(t.shape)} tile by a rank-{len(idx.shape)} index tile (it lowers for a "
                      "1-D tile and a 1-D index tile: gather one row at a time, e.g. gather(load(x[r, :]), "
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


def argrows_elems(cols):
    """Elements (4 bytes each) of an ArgMaxRows/ArgMinRows buffer for a tile of ``cols`` columns, as an
    expression: with A = cols rounded up to 64 (Compare works on whole 256-byte repeats), the indices,
    the running extreme and a copy of the current row take A each, the comparison's mask A / 32."""
    from .base import binary
    a = binary("*", call("cdiv", cols, A.Int(64)), A.Int(64))
    return binary("+", binary("*", a, A.Int(3)), binary("+", binary("//", a, A.Int(32)), A.Int(8)))


def argeachrow_elems(rows, cols):
    """Elements (4 bytes each) of an ArgMaxEachRow/ArgMinEachRow buffer for a [rows, cols] tile, as an
    expression: with A = cols rounded up to 64 (Compare works on whole 256-byte repeats), the indices
    (rows rounded up to 8), a copy of the row, the selected indices and the index ramp (A each), the
    reduction's result (8) and work area (A / 64 rounded up to 8, + 16), the comparison's mask (A / 32 + 8)."""
    from .base import binary
    a = binary("*", call("cdiv", cols, A.Int(64)), A.Int(64))
    out = binary("*", call("cdiv", rows, A.Int(8)), A.Int(8))
    work = binary("+", binary("*", call("cdiv", binary("//", a, A.Int(64)), A.Int(8)), A.Int(8)), A.Int(16))
    mask = binary("+", binary("//", a, A.Int(32)), A.Int(8))
    return binary("+", binary("+", out, binary("*", a, A.Int(3))), binary("+", A.Int(8), binary("+", work, mask)))
