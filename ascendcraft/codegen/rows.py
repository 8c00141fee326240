"""Per-row work of 2-D tiles: reductions along each row (``SumEachRow``, ``MaxEachRow``, ...),
element-wise ops with a column ``[R, 1]`` (``SubColVec``, ``MulColVec``, ...) and with a row
vector ``[C]`` (``AddRowVec``, ...).

Row by row, each row costs a vector op and the scalar unit's wait for it (its value read with
``GetValue``), which bounds short rows: attention's [64, 128] score tiles spent more time on the
scalar unit than on the cube. On float and half tiles whose rows fit the level-0 APIs (a row at
most 255 blocks apart from the next, a reduced row at most one 32-byte block of 64-lane chunks)
the whole tile is a few instructions, one repeat per row (WholeReduce.md, Brcb.md; the strides
are in 32-byte blocks):

* a reduction: ``WholeReduce{Sum,Max,Min}`` of each row's 64-lane (half: 128-lane) chunks into
  the lanes of one block per row in ``rwork``, then of those lanes into the result, one value
  per row (a row of one chunk: straight into the result);
* a column op: the column's values (one per 32-byte block) gathered contiguously by a
  ``WholeReduceMax`` over one lane, each spread over a block by ``Brcb``, then one op per 64-lane
  chunk of the rows with that block as the second operand (block stride 0, repeat stride 1);
* a row-vector op: one op per 64-lane chunk of the rows, the vector's repeat stride 0.

Other tiles (longer rows, other dtypes, ``prod``) take the row loop. The row padding of a
column op's result is written as the loop writes it (whole rows up to the pitch, the last row to
its length), so later ops over whole rows read defined lanes.
"""
from __future__ import annotations

from .. import dtypes as D
from .emit_common import UB_CTYPES, Tile

_LEVEL0 = ("float", "half")
_REDUCE = {"sum": "WholeReduceSum", "max": "WholeReduceMax", "min": "WholeReduceMin"}


def work_view(em, ctype: str) -> tuple[str, str] | None:
    """rwork as a tensor of ``ctype`` and its length in those elements (None: the kernel has none)."""
    rwork = em.work.get("rwork")
    if rwork is None:
        return None
    own = UB_CTYPES[em.buffers[rwork].type.dtype]
    elems = f"static_cast<int64_t>({em._buffer_elems(rwork)}) * sizeof({own}) / sizeof({ctype})"
    return (rwork if own == ctype else f"{rwork}.ReinterpretCast<{ctype}>()"), elems


def _order(fn: str) -> str:
    return "" if fn == "WholeReduceSum" else ", AscendC::ReduceOrder::ORDER_ONLY_VALUE"


def emit_row_reduce(em, target: str, e, op, ct: str, out: str) -> Tile:
    src = em.tiles[e.args[0].id]
    keep = bool(em._kw(e, "keepdims", False))
    per_block = 32 // D.ITEMSIZE[src.dtype]
    if keep:   # one value per 32-byte row: zero the rest so element-wise ops read defined lanes
        em.emit(f"AscendC::Duplicate({target}, static_cast<{ct}>(0), static_cast<int32_t>({src.rows} * "
                f"{per_block}));")
    fn = _REDUCE.get(op.of)
    work = work_view(em, src.ctype)
    if fn is None or src.ctype not in _LEVEL0 or work is None:
        _row_reduce_loop(em, target, e, op, src, keep, per_block)
    else:
        lanes = 256 // D.ITEMSIZE[src.dtype]
        em.emit("{")
        em.depth += 1
        em.emit(f"const int64_t rr_ = {src.rows}, cc_ = {src.cols}, sp_ = ({src.pitch}) / {per_block}, "
                f"nch_ = AcCdiv(cc_, {lanes});")
        em.emit(f"if (nch_ <= {per_block} && sp_ <= 255 && AcMin<int64_t>(rr_, 255) * {per_block} <= {work[1]} && "
                f"cc_ > 0) {{")
        rwork = "w_"
        em.emit(f"    AscendC::LocalTensor<{src.ctype}> w_ = {work[0]};")
        em.depth += 1
        dst_rep = per_block if keep else 1
        em.emit("for (int64_t q_ = 0; q_ < rr_; q_ += 255) {")
        em.depth += 1
        em.emit("const int32_t n_ = static_cast<int32_t>(AcMin<int64_t>(rr_ - q_, 255));")
        em.emit("if (nch_ == 1) {")
        em.emit(f"    AscendC::{fn}<{ct}>({target}[q_ * {dst_rep}], {e.args[0].id}[q_ * ({src.pitch})], "
                f"static_cast<int32_t>(cc_), n_, {dst_rep}, 1, static_cast<int32_t>(sp_){_order(fn)});")
        em.emit("} else {")
        em.emit("    for (int64_t j_ = 0; j_ < nch_; ++j_) {")
        em.emit(f"        AscendC::{fn}<{ct}>({rwork}[j_], {e.args[0].id}[q_ * ({src.pitch}) + j_ * {lanes}], "
                f"static_cast<int32_t>(AcMin<int64_t>(cc_ - j_ * {lanes}, {lanes})), n_, {per_block}, 1, "
                f"static_cast<int32_t>(sp_){_order(fn)});")
        em.emit("    }")
        em.emit("    AscendC::PipeBarrier<PIPE_V>();")
        em.emit(f"    AscendC::{fn}<{ct}>({target}[q_ * {dst_rep}], {rwork}, static_cast<int32_t>(nch_), n_, "
                f"{dst_rep}, 1, 1{_order(fn)});")
        em.emit("    AscendC::PipeBarrier<PIPE_V>();")
        em.emit("}")
        em.depth -= 1
        em.emit("}")
        em.depth -= 1
        em.emit("} else {")
        em.depth += 1
        _row_reduce_loop(em, target, e, op, src, keep, per_block)
        em.depth -= 1
        em.emit("}")
        em.depth -= 1
        em.emit("}")
    return (Tile(ct, src.dtype, src.rows, "1", str(per_block), out) if keep
            else Tile(ct, src.dtype, "1", src.rows, f"AcAlignUp({src.rows}, {per_block})", out))


def _row_reduce_loop(em, target: str, e, op, src: Tile, keep: bool, per_block: int):
    at = f"r_{f' * {per_block}' if keep else ''}"
    em.emit(f"for (int64_t r_ = 0; r_ < {src.rows}; ++r_) {{")
    if op.of == "prod":
        # no ReduceProd API: the row (copied into swork, padded with ones to whole 64-element
        # chunks) folded in halves with Mul, then one 32-byte block's lanes on the scalar unit
        swork = em.work["swork"]
        em.emit(f"    const int64_t k_ = AcAlignUp({src.cols}, 64);")
        em.emit(f"    AscendC::Duplicate({swork}, static_cast<{src.ctype}>(1), static_cast<int32_t>(k_));")
        em.emit("    AscendC::PipeBarrier<PIPE_V>();")
        em.emit(f"    AcCopy({swork}, {e.args[0].id}[r_ * {src.pitch}], {src.cols});")
        em.emit("    int64_t rows_ = k_ / 64;")
        em.depth += 1
        em._fold_product(swork, src.ctype, per_block)
        em.depth -= 1
        em.emit(f"    {target}.SetValue({at}, p_);")
    else:
        fn = {"sum": "ReduceSum", "max": "ReduceMax", "min": "ReduceMin"}[op.of]
        em.emit(f"    AscendC::LocalTensor<{src.ctype}> w_ = {work_view(em, src.ctype)[0]};")
        em.emit(f"    AscendC::{fn}<{src.ctype}>(w_, {e.args[0].id}[r_ * {src.pitch}], w_, "
                f"static_cast<int32_t>({src.cols}));")
        em.emit(f"    {target}.SetValue({at}, w_.GetValue(0));")
    em.emit("}")


def emit_column_op(em, target: str, x: Tile, nx: str, y: Tile, ny: str, name: str) -> bool:
    """``x`` op column ``y`` ([R, C] with [R, 1], rows ``y.pitch`` apart) into ``target`` on the vector
    unit alone when the tile fits the level-0 forms (else the caller's row loop runs, in the
    ``else`` branch this leaves open: returns True when it did so)."""
    work = work_view(em, x.ctype)
    if x.ctype not in _LEVEL0 or work is None or name not in ("Add", "Sub", "Mul", "Div", "Max", "Min"):
        return False
    rwork = "w_"
    per_block = 32 // D.ITEMSIZE[x.dtype]
    lanes = 256 // D.ITEMSIZE[x.dtype]
    # rwork: [0, rows rounded to 8 blocks) the spread column, then its values contiguously
    em.emit(f"const int64_t rr_ = {x.rows}, r8_ = AcAlignUp(rr_, 8), xp_ = ({x.pitch}) / {per_block}, "
            f"vo_ = r8_ * {per_block};")
    em.emit(f"if (xp_ <= 255 && r8_ <= 2040 && vo_ + AcAlignUp(r8_, {per_block}) <= {work[1]}) {{")
    em.depth += 1
    em.emit(f"AscendC::LocalTensor<{x.ctype}> w_ = {work[0]};")
    # the values past the last row (to a whole Brcb repeat) are defined, though no row reads them
    em.emit(f"AscendC::Duplicate({rwork}[vo_], static_cast<{x.ctype}>(0), static_cast<int32_t>(r8_));")
    em.emit("AscendC::PipeBarrier<PIPE_V>();")
    em.emit("for (int64_t q_ = 0; q_ < rr_; q_ += 255) {")
    em.emit(f"    AscendC::WholeReduceMax<{x.ctype}>({rwork}[vo_ + q_], {ny}[q_ * ({y.pitch})], 1, "
            f"static_cast<int32_t>(AcMin<int64_t>(rr_ - q_, 255)), 1, 1, ({y.pitch}) / {per_block}, "
            f"AscendC::ReduceOrder::ORDER_ONLY_VALUE);")
    em.emit("}")
    em.emit("AscendC::PipeBarrier<PIPE_V>();")
    em.emit(f"AscendC::Brcb({rwork}, {rwork}[vo_], static_cast<uint8_t>(r8_ / 8), AscendC::BrcbRepeatParams(1, 8));")
    em.emit("AscendC::PipeBarrier<PIPE_V>();")
    _chunks(em, x, lanes, name, target, (f"{nx}[first_ * ({x.pitch}) + j_]", "xp_"),
            (f"{rwork}[first_ * {per_block}]", "1"), block_stride1=0)
    em.depth -= 1
    em.emit("} else {")
    return True


def emit_row_vector_op(em, target: str, x: Tile, nx: str, y: Tile, ny: str, name: str, big_is_x: bool) -> bool:
    """``x`` op ``y`` where one is [R, C] and the other a row [C] (its padding defined to the pitch by
    the caller): one op per 64-lane chunk over every row, the row's repeat stride 0 (else the
    caller's row loop, in the ``else`` branch this leaves open: returns True when it did so)."""
    big = x if big_is_x else y
    if big.ctype not in _LEVEL0 or name not in ("Add", "Sub", "Mul", "Div", "Max", "Min"):
        return False
    per_block = 32 // D.ITEMSIZE[big.dtype]
    lanes = 256 // D.ITEMSIZE[big.dtype]
    em.emit(f"const int64_t rr_ = {big.rows}, xp_ = ({big.pitch}) / {per_block};")
    em.emit("if (xp_ <= 255) {")
    em.depth += 1
    rows = (f"{nx if big_is_x else ny}[first_ * ({big.pitch}) + j_]", "xp_")
    vector = (f"{ny if big_is_x else nx}[j_]", "0")
    _chunks(em, big, lanes, name, target, *((rows, vector) if big_is_x else (vector, rows)))
    em.depth -= 1
    em.emit("} else {")
    return True


def _chunks(em, big: Tile, lanes: int, name: str, target: str, src0: tuple, src1: tuple, block_stride1: int = 1):
    """``name`` over ``big``'s rows, one call per 64-lane chunk and 255 rows: rows up to the pitch
    but the last, which ends at its length (the row loop's padding rule). ``src0``/``src1``: each
    operand's element at row ``first_``, column ``j_`` and its repeat stride in blocks."""
    em.emit("for (int64_t q_ = 0; q_ < rr_; q_ += 255) {")
    em.depth += 1
    em.emit("const int64_t n_ = AcMin<int64_t>(rr_ - q_, 255);")
    em.emit("for (int64_t part_ = 0; part_ < 2; ++part_) {")
    em.depth += 1
    em.emit("const int64_t first_ = part_ == 0 ? q_ : q_ + n_ - 1, rows_ = part_ == 0 ? "
            "(q_ + n_ == rr_ ? n_ - 1 : n_) : (q_ + n_ == rr_ ? 1 : 0);")
    em.emit(f"const int64_t width_ = part_ == 0 ? ({big.pitch}) : ({big.cols});")
    em.emit("if (rows_ <= 0) continue;")
    em.emit(f"for (int64_t j_ = 0; j_ < width_; j_ += {lanes}) {{")
    em.emit(f"    AscendC::{name}({target}[first_ * ({big.pitch}) + j_], {src0[0]}, {src1[0]}, "
            f"static_cast<uint64_t>(AcMin<int64_t>(width_ - j_, {lanes})), static_cast<uint8_t>(rows_), "
            f"AscendC::BinaryRepeatParams(1, 1, {block_stride1}, static_cast<uint8_t>(xp_), "
            f"static_cast<uint8_t>({src0[1]}), static_cast<uint8_t>({src1[1]})));")
    em.emit("}")
    em.depth -= 1
    em.emit("}")
    em.depth -= 1
    em.emit("}")
