"""Indexing ops of the tile DSL: arg-reductions, gathers and scatters of on-chip tiles.

* ``argmax(t, axis=None, keepdims=False, dtype=i64)`` / ``argmin(...)``: the position of the
  largest / smallest element along ``axis`` (of the flattened tile when ``axis`` is omitted), an
  ``i64`` tile like ``torch.argmax`` (``dtype=i32`` for index arithmetic on chip). Ties go to the
  **first** occurrence and a NaN counts as the extreme (the first NaN wins), PyTorch's rules.
* ``gather(t, idx, axis=-1)``: ``idx`` an integer tile. Same rank as ``t``:
  ``torch.take_along_dim`` (``out[..., k, ...] = t[..., idx[..., k, ...], ...]``, the other
  axes of ``idx`` of ``t``'s extent or 1); a 1-D ``idx`` with a tile of rank >= 2:
  ``torch.index_select`` along ``axis``.
* ``scatter(t, idx, v, axis=-1)`` / ``scatter_add(...)``: a copy of ``t`` with ``v`` written /
  added at ``idx`` (``idx`` and ``v`` of one shape). Repeated indices: ``scatter_add`` adds all
  of them in index order; ``scatter`` keeps the last in index order (PyTorch leaves the winner
  unspecified; its CPU kernel, which verification runs, writes in index order).

Every index must lie in ``[0, extent)``: an index outside is a run-time index error naming the
line and the index (no negative wrap-around, as everywhere in the DSL).

GM-side indexing (rows picked or scattered by a one-value integer tile, ``load(x[r, :])``,
``store(y[r, :], v)``, ``atomic_add(y[r, :], v)`` with ``r = load(idx[k])``) is the subscript
rule of the checker and interpreter; docs/dsl.md "Indexing" shows both.

The checker and interpreter call the functions below from one-line hooks (``_argreduce``,
``_gather``, ``_scatter`` and their ``_k_`` twins; API forms from ``_api`` / ``_k_api``), so the op
table rows in ops.py and this module are the whole definition.
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as D
from . import ast as A
from .check_common import check_error
from .types import TTile

INDEX_DTYPE = "i64"   # torch's index dtype: an argmax is stored to an int64 output as it is
INDEX_DTYPES = ("i64", "i32")


# ---------------------------------------------------------------- checker
def check_argreduce(ck, op, e):
    from .types import TDType
    t = ck._tile_arg(e.args[0], op.name)
    if t.dtype not in op.dtypes:
        raise check_error(f"{op.name} needs a numeric tile, got {t.dtype}", e.args[0])
    axis = ck._kw_const(e, "axis", None)
    keep = ck._kw_const(e, "keepdims", False)
    if not isinstance(keep, bool):
        raise check_error("keepdims= must be True or False", e)
    dtype = INDEX_DTYPE
    if e.kwarg("dtype") is not None:
        dt = ck.expr(e.kwarg("dtype"))
        if not (isinstance(dt, TDType) and dt.name in INDEX_DTYPES):
            raise check_error(f"{op.name}(..., dtype=...) is i64 (torch's index dtype) or i32 (on-chip index arithmetic "
                       "that lowers: where, +, Select)", e.kwarg("dtype"))
        dtype = dt.name
    if axis is None:
        return TTile(dtype, (1,) * len(t.shape) if keep else (), t.space)
    if not t.shape:
        raise check_error(f"{op.name} with an axis needs a tile of rank >= 1", e, kind="shape error")
    ax = ck._axis(e, axis, len(t.shape))
    shape = tuple(1 if i == ax else d for i, d in enumerate(t.shape)) if keep else \
        tuple(d for i, d in enumerate(t.shape) if i != ax)
    return TTile(dtype, shape, t.space)


def check_gather(ck, op, e):
    t = ck._tile_arg(e.args[0], "gather")
    idx = ck.expr(e.args[1])
    if not isinstance(idx, TTile):
        raise check_error(f"gather(t, idx): idx must be an integer tile, got {idx.describe()}", e.args[1],
                   hint="load the indices first, e.g. idx = load(index[r, k:k + T])")
    if idx.space != "ub":
        raise check_error(f"gather(t, idx): idx must be a ub tile, got {idx.describe()}", e.args[1])
    if idx.dtype not in D.INTS:
        raise check_error(f"gather(t, idx): idx must be an integer tile (i32 or i64), got {idx.dtype}", e.args[1],
                   hint="indices come from an integer tensor; cast(x, i32) a float tile of whole numbers")
    if not t.shape:
        raise check_error("gather(t, idx): t must have rank >= 1 (a one-value tile has nothing to choose from)",
                   e.args[0], kind="shape error")
    ax = ck._axis(e, ck._kw_const(e, "axis", -1), len(t.shape))
    if len(idx.shape) == len(t.shape):
        for i, (a, b) in enumerate(zip(idx.shape, t.shape)):
            if i != ax and a not in (1, b):
                raise check_error(f"gather(t, idx, axis={ax}): idx {list(idx.shape)} and t {list(t.shape)} differ on axis "
                           f"{i} (every axis but the gathered one must match, or be 1 in idx)", e,
                           kind="shape error")
        shape = tuple(idx.shape[i] if i == ax else t.shape[i] for i in range(len(t.shape)))
    elif len(idx.shape) == 1:
        shape = t.shape[:ax] + idx.shape + t.shape[ax + 1:]
    else:
        raise check_error(f"gather(t, idx): idx has rank {len(idx.shape)}; it needs t's rank ({len(t.shape)}: "
                   "take_along_dim) or rank 1 (index_select)", e.args[1], kind="shape error")
    return TTile(t.dtype, shape, t.space)


def check_scatter(ck, op, e):
    t = ck._tile_arg(e.args[0], op.name)
    if t.dtype not in op.dtypes:
        raise check_error(f"{op.name} needs a numeric tile, got {t.dtype}", e.args[0])
    idx, v = ck.expr(e.args[1]), ck.expr(e.args[2])
    if not (isinstance(idx, TTile) and idx.space == "ub" and idx.dtype in D.INTS):
        raise check_error(f"{op.name}(t, idx, v): idx must be an integer ub tile, got {idx.describe()}", e.args[1],
                   hint="load the indices first, e.g. idx = load(index[r, k:k + T])")
    if not (isinstance(v, TTile) and v.space == "ub"):
        raise check_error(f"{op.name}(t, idx, v): v must be a ub tile of the values, got {v.describe()}", e.args[2])
    if v.dtype != t.dtype:
        raise check_error(f"{op.name}(t, idx, v): v is {v.dtype} but t is {t.dtype}", e.args[2], hint="cast(v, ...) first")
    if not t.shape:
        raise check_error(f"{op.name}(t, idx, v): t must have rank >= 1", e.args[0], kind="shape error")
    ax = ck._axis(e, ck._kw_const(e, "axis", -1), len(t.shape))
    if len(idx.shape) != len(t.shape) or v.shape != idx.shape or \
            any(a != b for i, (a, b) in enumerate(zip(idx.shape, t.shape)) if i != ax):
        raise check_error(f"{op.name}(t, idx, v, axis={ax}): idx and v need one shape, t's on every axis but {ax}; got t "
                   f"{list(t.shape)}, idx {list(idx.shape)}, v {list(v.shape)}", e, kind="shape error")
    return t


# ---------------------------------------------------------------- interpreter
def _first_extreme(a: np.ndarray, axis, largest: bool) -> np.ndarray:
    """Index of the first maximum / minimum along ``axis`` (None: of the flattened array), a NaN
    winning as in PyTorch (NumPy's argmax also returns the first NaN)."""
    return np.argmax(a, axis=axis) if largest else np.argmin(a, axis=axis)


def run_argreduce(interp, op, e, fail):
    arg = interp.expr(e.args[0])
    axis, keep = interp._const_kw(e, "axis", None), interp._const_kw(e, "keepdims", False)
    largest = op.name == "argmax"
    dt = e.kwarg("dtype")
    dtype = dt.id if isinstance(dt, A.Name) else INDEX_DTYPE

    def run(env):
        t = arg(env)
        a = t.data
        n = a.size if axis is None else a.shape[axis]
        if n == 0:
            raise fail(f"{op.name} of an empty tile (shape {list(a.shape)}): there is no position to return", e)
        out = _first_extreme(a, axis, largest)
        if keep:
            out = np.reshape(out, (1,) * a.ndim) if axis is None else np.expand_dims(out, axis)
        return type(t)(np.asarray(out, dtype=D.NUMPY[dtype]), dtype, t.space)
    return run


def run_gather(interp, op, e, fail):
    src, index = interp.expr(e.args[0]), interp.expr(e.args[1])
    axis_kw = interp._const_kw(e, "axis", -1)

    def run(env):
        t, ix = src(env), index(env)
        a, i = t.data, ix.data
        ax = axis_kw % a.ndim
        _check_indices(i, a.shape[ax], "gather", "gathered", e, fail)
        if i.ndim == a.ndim:
            shape = tuple(i.shape[k] if k == ax else a.shape[k] for k in range(a.ndim))
            out = np.take_along_axis(a, np.broadcast_to(i, shape).astype(np.intp), axis=ax)
        else:
            out = np.take(a, i.astype(np.intp), axis=ax)
        return type(t)(np.ascontiguousarray(out), t.dtype, t.space)
    return run


def _check_indices(i, n: int, name: str, verb: str, e, fail) -> None:
    """A located index error for the first index of ``i`` outside ``[0, n)``."""
    bad = (i < 0) | (i >= n)
    if bad.any():
        pos = tuple(int(p) for p in np.argwhere(bad)[0])
        raise fail(f"{name}: index {int(i[pos])} (at position {list(pos)} of idx) is out of range for an axis "
                   f"of extent {n}", e, kind="index error",
                   hint=f"indices count from 0 and must be below the {verb} axis's extent")


def run_scatter(interp, op, e, fail):
    dst, index, values = (interp.expr(a) for a in e.args[:3])
    name = op.of or op.name              # the API ops Scatter / ScatterAdd have the meaning of their `of`
    axis_kw, add = interp._const_kw(e, "axis", -1), name == "scatter_add"

    def run(env):
        t, ix, v = dst(env), index(env), values(env)
        a, i = t.data, ix.data
        ax = axis_kw % a.ndim
        _check_indices(i, a.shape[ax], name, "scattered", e, fail)
        out = np.moveaxis(a.copy(), ax, -1)
        iv, vv = np.moveaxis(i, ax, -1), np.moveaxis(v.data, ax, -1)
        for row in np.ndindex(*out.shape[:-1]):
            k, x = iv[row].astype(np.intp), vv[row]
            if add:     # in index order, as PyTorch's CPU kernel and the lowered scalar loop add them
                np.add.at(out[row], k, x)
            else:       # a repeated index keeps the last value in index order
                last = len(k) - 1 - np.unique(k[::-1], return_index=True)[1]
                out[row][k[last]] = x[last]
        return type(t)(np.ascontiguousarray(np.moveaxis(out, -1, ax)), t.dtype, t.space)
    return run


# ---------------------------------------------------------------- API-level form (lowered programs)
# Gather(src, offsets): AscendC Gather of a 1-D tile, dst[i] = src[offsets[i] / sizeof(T)], the offsets
# in bytes as an i32 tile (asc-devkit impl/basic_api/dav_c220/kernel_operator_vec_gather_impl.h: b16/b32
# data, uint32 byte offsets from the source's base address).
# ArgMaxRows(t) / ArgMinRows(t): the i32 index of the first largest / smallest row of each column of a
# 2-D f32 tile (argmax(t, axis=0)); codegen/indexing.py expands it into per-row AscendC calls.
# Scatter(t, idx, v) / ScatterAdd(t, idx, v) of 1-D tiles: t copied, then v written / added at idx on
# the scalar unit in index order (codegen/indexing.py).
# ArgMaxEachRow(t) / ArgMinEachRow(t): the i32 index of the first largest / smallest element of each row
# of a 2-D f32 tile, a NaN winning (argmax(t, axis=1)); codegen/indexing.py expands it per row.
API_FORMS = ("gather", "argrows", "argeachrow", "scatter")


def check_api(ck, op, e, types, out):
    if op.form == "scatter":
        t, idx, v = types[:3]
        if not all(isinstance(x, TTile) and x.space == "ub" and len(x.shape) == 1 for x in (t, idx, v)) or \
                t.dtype not in ("f32", "i32") or v.dtype != t.dtype or idx.dtype not in ("i32", "i64") or v.shape != idx.shape:
            raise check_error(f"{op.name}(t, idx, v) takes 1-D ub tiles: t and v of one dtype (f32/i32), idx i32/i64 of v's "
                       f"shape", e, kind="shape error")
        return ck._placed(out.id if out is not None else None, t, e)
    if op.form in ("argrows", "argeachrow"):
        t = types[0]
        if not (isinstance(t, TTile) and t.space == "ub" and t.dtype == "f32" and len(t.shape) == 2):
            raise check_error(f"{op.name}(t) takes a 2-D f32 ub tile, got {t.describe()}", e, kind="shape error")
        kept = t.shape[1:] if op.form == "argrows" else t.shape[:1]     # one index per column / per row
        return ck._placed(out.id if out is not None else None, TTile("i32", kept), e)
    src, off = types[0], types[1]
    ranks_ok = (len(src.shape), len(off.shape)) == (1, 1) or (
        (len(src.shape), len(off.shape)) == (2, 2) and src.shape[0] == off.shape[0])   # row by row
    if not all(isinstance(t, TTile) and t.space == "ub" for t in (src, off)) or src.dtype not in op.dtypes or \
            off.dtype != "i32" or not ranks_ok:
        raise check_error(f"Gather(src, offsets) takes a 1-D {'/'.join(sorted(op.dtypes))} ub tile and a 1-D i32 ub tile "
                   f"of byte offsets (or 2-D ones of the same rows: each row's offsets into its row), got "
                   f"{src.describe()} and {off.describe()}", e, kind="shape error")
    return ck._placed(out.id if out is not None else None, TTile(src.dtype, off.shape), e)


def run_api(interp, op, e, fail):
    if op.form == "scatter":
        return run_scatter(interp, op, e, fail)
    if op.form in ("argrows", "argeachrow"):
        # ArgMaxRows reduces over the rows (axis 0), ArgMaxEachRow within each row (axis 1)
        arg, largest = interp.expr(e.args[0]), op.of == "argmax"
        axis, what = (0, "rows") if op.form == "argrows" else (1, "columns")

        def arg_extreme(env):
            t = arg(env)
            if t.data.shape[axis] == 0:
                raise fail(f"{op.name} of a tile with no {what}", e)
            return type(t)(_first_extreme(t.data, axis, largest).astype(np.int32), "i32", "ub")
        return arg_extreme
    src, offsets = interp.expr(e.args[0]), interp.expr(e.args[1])

    def gather(env):
        t, o = src(env), offsets(env)
        size = D.ITEMSIZE[t.dtype]
        off = o.data.astype(np.int64)
        n = t.data.shape[-1]      # a 2-D source: each row's offsets address that row
        bad = (off < 0) | (off % size != 0) | (off // size >= n)
        if bad.any():
            k = [int(p) for p in np.argwhere(bad)[0]]
            raise fail(f"Gather: byte offset {int(off[tuple(k)])} (element {k}) is not a multiple of {size} inside the "
                       f"{n}-element source", e, kind="index error")
        if t.data.ndim == 1:
            return type(t)(t.data[off // size], t.dtype, "ub")
        if t.data.shape[0] != off.shape[0]:
            raise fail(f"Gather: a source of {t.data.shape[0]} rows and offsets of {off.shape[0]}", e)
        return type(t)(np.take_along_axis(t.data, off // size, axis=1), t.dtype, "ub")
    return gather
