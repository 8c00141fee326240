"""The Outer* API ops: a column [R, 1] with a row [C] or [1, C] (either order) into an [R, C] tile.

Per row r of the result: the column's element ``v`` on the scalar unit, then one level-2 op over
the row vector -- ``Adds/Muls/Maxs/Mins(row, v)`` for ``+ * maximum minimum`` and ``row - v`` (exact:
IEEE addition of ``-v``); ``v - row`` as ``Muls(row, -1)`` then ``Adds(v)``; division, where
``x * (1 / v)`` would not be the quotient, as ``Duplicate(v)`` then ``Div``. Rows are written up to
the pitch (all but the last), as the emitter's other broadcasts do, so the row padding of the
result is defined for later element-wise ops over whole rows.
"""
from __future__ import annotations

from .. import dtypes as D
from ..dsl.broadcast import outer_operands
from .emit_common import Tile


def emit_outer(em, target: str, e, op, ct: str, out: str):
    types = [em.ck.expr_types.get(id(a)) for a in e.args]
    col_i, row_i = outer_operands(*(tuple(t.shape) for t in types))
    col, row = em.tiles[e.args[col_i].id], em.tiles[e.args[row_i].id]
    ncol, nrow = e.args[col_i].id, e.args[row_i].id
    name = op.name[len("Outer"):]
    per_block = 32 // D.ITEMSIZE[row.dtype]
    pitch = f"AcAlignUp({row.pitch}, {per_block})"
    # whole rows read the row vector up to the pitch: define its padding (1: harmless for every op)
    em.emit(f"if ({col.rows} > 1) {{ const int64_t n_ = {row.cols}, a_ = AcAlignUp(n_, {per_block}), "
            f"p_ = {pitch}; for (int64_t i_ = n_; i_ < a_ && i_ < p_; ++i_) {{ {nrow}.SetValue(i_, "
            f"static_cast<{row.ctype}>(1)); }} if (p_ > a_) {{ AscendC::Duplicate({nrow}[a_], "
            f"static_cast<{row.ctype}>(1), static_cast<int32_t>(p_ - a_)); }} }}")
    n = f"static_cast<int32_t>(r_ + 1 < {col.rows} ? {pitch} : {row.cols})"
    em.emit(f"for (int64_t r_ = 0; r_ < {col.rows}; ++r_) {{")
    em.emit(f"    const {ct} v_ = {ncol}.GetValue(r_ * {col.pitch});")
    dst = f"{target}[r_ * {pitch}]"
    col_first = col_i == 0
    scalar = {"Add": "Adds", "Mul": "Muls", "Max": "Maxs", "Min": "Mins"}.get(name)
    if scalar is not None:
        em.emit(f"    AscendC::{scalar}({dst}, {nrow}, v_, {n});")
    elif name == "Sub" and not col_first:      # row - v
        em.emit(f"    AscendC::Adds({dst}, {nrow}, static_cast<{ct}>(-v_), {n});")
    elif name == "Sub":                        # v - row = (-row) + v
        em.emit(f"    AscendC::Muls({dst}, {nrow}, static_cast<{ct}>(-1), {n});")
        em.emit("    AscendC::PipeBarrier<PIPE_V>();")
        em.emit(f"    AscendC::Adds({dst}, {dst}, v_, {n});")
    else:                                      # Div: the quotient itself
        em.emit(f"    AscendC::Duplicate({dst}, v_, {n});")
        em.emit("    AscendC::PipeBarrier<PIPE_V>();")
        operands = f"{dst}, {nrow}" if col_first else f"{nrow}, {dst}"
        em.emit(f"    AscendC::Div({dst}, {operands}, {n});")
    em.emit("}")
    return Tile(ct, row.dtype, col.rows, row.cols, pitch, out)
