"""AscendC for the indexing API form (docs/dsl.md "Indexing"; ascendcraft/lowering_passes/indexing.py).

``Gather(src, offsets)``: ``AscendC::Gather(dst, src, offsets, srcBaseAddr, count)`` reads
``dst[i] = src[(srcBaseAddr + offsets[i]) / sizeof(T)]``, the offsets a uint32 tensor of byte
offsets (asc-devkit impl/basic_api/dav_c220/kernel_operator_vec_gather_impl.h). The offsets tile
is i32 in the program (non-negative, below the UB size): its bits are the uint32 offsets.
"""
from __future__ import annotations

from ascendcraft.lowering_passes.indexing import arg_buffer_offsets

from .. import dtypes as D
from .emit_common import cast_pitch


def emit_gather(em, target: str, e, ct: str, dtype: str, out: str, tile_cls):
    """One Gather; for a 2-D source, one per row: row r's offsets read from row r of the source
    (srcBaseAddr = r * its pitch in bytes) into row r of the result, whose pitch is that of a tile
    of its dtype (the offsets are i32: a 2-byte result has rows of 16-element blocks)."""
    src, offsets = (a.id for a in e.args[:2])
    off, t = em.tiles[offsets], em.tiles[src]
    if t.rows == "1" and off.rows == "1":
        em.emit(f"AscendC::Gather({target}, {src}, {offsets}.ReinterpretCast<uint32_t>(), static_cast<uint32_t>(0), "
                f"static_cast<uint32_t>({off.count}));")
        return tile_cls(ct, dtype, off.rows, off.cols, off.pitch, out)
    pitch = cast_pitch(off, off.pitch, dtype) or off.pitch
    # a Gather writes exactly cols elements of each row: zero the gaps (whole rows but the last), so
    # element-wise ops that cover whole rows read defined values
    em.emit(f"if (({off.rows}) > 1 && ({off.cols}) < ({pitch})) {{ AcZeroFill({target}, (({off.rows}) - 1) * "
            f"({pitch})); AscendC::PipeBarrier<PIPE_V>(); }}")
    em.emit(f"for (int64_t r_ = 0; r_ < {off.rows}; ++r_) {{")
    em.emit(f"    AscendC::Gather({target}[r_ * ({pitch})], {src}, {offsets}[r_ * ({off.pitch})].ReinterpretCast<uint32_t>(), "
            f"static_cast<uint32_t>(r_ * ({t.pitch}) * {D.ITEMSIZE[dtype]}), static_cast<uint32_t>({off.cols}));")
    em.emit("}")
    return tile_cls(ct, dtype, off.rows, off.cols, pitch, out)


def emit_argrows(em, target: str, e, op, ct: str, out: str, tile_cls):
    """``ArgMaxRows(t)`` / ``ArgMinRows(t)`` of a 2-D f32 tile: the i32 row index of each column's first
    extreme, a NaN winning (as torch.argmax/argmin). The output buffer (its parts:
    ascendcraft/lowering_passes/indexing.ARG_LAYOUTS) holds, A = cols rounded up to 64, the indices, the
    running extreme, a copy of the current row (A each) and two masks. Per row: Compare(row <= best)
    (>= for argmin) and Compare(best != best), or'ed: true where the running pair stays (the row is
    not strictly better, so the first of equal extremes keeps its index; or the pair holds a NaN, the
    first one); where false the row's number and value replace it (Select, both). A NaN row replaces
    a pair that holds none (a comparison with NaN is false). No step depends on how Max or Min treat
    a NaN. Compare works on whole 256-byte repeats (A elements): when the columns are a multiple of
    64 the tile's own rows are compared, otherwise a copy of each whose tail is zeroed first (the
    tile's rows may end before A)."""
    src = em.tiles[e.args[0].id]
    x = e.args[0].id
    largest = op.of == "argmax"
    cols = f"static_cast<int32_t>({src.cols})"
    em.emit("{")
    em.depth += 1
    at = arg_buffer_offsets("argrows", "a_", "o_")
    em.emit(f"const int64_t a_ = AcAlignUp({src.cols}, 64);")
    em.emit(f"AscendC::LocalTensor<float> best_ = {target}[{at['best']}].ReinterpretCast<float>();")
    em.emit(f"AscendC::LocalTensor<float> row_ = {target}[{at['row']}].ReinterpretCast<float>();")
    em.emit(f"AscendC::LocalTensor<uint8_t> mask_ = {target}[{at['mask']}].ReinterpretCast<uint8_t>();")
    em.emit(f"AscendC::LocalTensor<uint8_t> nan_ = {target}[{at['nan']}].ReinterpretCast<uint8_t>();")
    # the tile's own rows are whole repeats: compared in place, no copy per row
    em.emit(f"const bool inPlace_ = a_ == ({src.cols}) && ({src.pitch}) == a_;")
    em.emit(f"AscendC::Duplicate({target}, static_cast<int32_t>(0), {cols});")
    em.emit("AscendC::Duplicate(best_, 0.0f, static_cast<int32_t>(a_));")
    em.emit("AscendC::Duplicate(row_, 0.0f, static_cast<int32_t>(a_));")
    em.emit("AscendC::PipeBarrier<PIPE_V>();")
    em.emit(f"AscendC::Muls(best_, {x}, 1.0f, {cols});")
    em.emit(f"for (int64_t r_ = 1; r_ < {src.rows}; ++r_) {{")
    em.depth += 1
    em.emit(f"AscendC::LocalTensor<float> cur_ = inPlace_ ? {x}[r_ * {src.pitch}] : row_;")
    em.emit("AscendC::PipeBarrier<PIPE_V>();")
    em.emit(f"if (!inPlace_) {{ AscendC::Muls(row_, {x}[r_ * {src.pitch}], 1.0f, {cols}); "
            "AscendC::PipeBarrier<PIPE_V>(); }")
    em.emit(f"AscendC::Compare(mask_, cur_, best_, AscendC::CMPMODE::{'LE' if largest else 'GE'}, "
            "static_cast<uint32_t>(a_));")
    em.emit("AscendC::Compare(nan_, best_, best_, AscendC::CMPMODE::NE, static_cast<uint32_t>(a_));")
    em.emit("AscendC::PipeBarrier<PIPE_V>();")
    em.emit("AscendC::Or(mask_.ReinterpretCast<uint16_t>(), mask_.ReinterpretCast<uint16_t>(), "
            "nan_.ReinterpretCast<uint16_t>(), static_cast<int32_t>(a_ / 16));")
    em.emit("AscendC::PipeBarrier<PIPE_V>();")
    em.emit(f"AscendC::Select({target}.ReinterpretCast<float>(), mask_, {target}.ReinterpretCast<float>(), "
            f"AcBitsAs<float>(static_cast<int32_t>(r_)), AscendC::SELMODE::VSEL_TENSOR_SCALAR_MODE, "
            f"static_cast<uint32_t>({src.cols}));")
    em.emit("AscendC::Select(best_, mask_, best_, cur_, AscendC::SELMODE::VSEL_TENSOR_TENSOR_MODE, "
            f"static_cast<uint32_t>({src.cols}));")
    em.depth -= 1
    em.emit("}")
    em.depth -= 1
    em.emit("}")
    return tile_cls(ct, "i32", "1", src.cols, f"AcAlignUp({src.cols}, 8)", out)


def emit_argeachrow(em, target: str, e, op, ct: str, out: str, tile_cls):
    """``ArgMaxEachRow(t)`` / ``ArgMinEachRow(t)`` of a 2-D f32 tile: the i32 column index of each row's
    first extreme, a NaN winning (as torch.argmax/argmin). The output buffer (sized by
    ascendcraft/lowering_passes/indexing.ARG_LAYOUTS) holds the indices, then, A = cols rounded up to 64, a copy
    of the row (its tail past the columns set to the value that never wins), the selected indices and an
    index ramp (f32, exact below 2**24), the reduction's result and work area and the mask. Per row:
    Compare(row != row) marks NaNs, Select of the ramp there (else A) and ReduceMin give the first NaN;
    ReduceMax (ReduceMin) gives the extreme, CompareScalar(row == extreme) and the same Select and
    ReduceMin its first position; the scalar unit keeps the first NaN if there is one. No step depends
    on how ReduceMax treats a NaN."""
    src = em.tiles[e.args[0].id]
    x = e.args[0].id
    largest = op.of == "argmax"
    # the tail's value never wins: -inf for argmax, +inf for argmin (bit patterns: no <cmath> on the device)
    pad = f"AcBitsAs<float>(static_cast<int32_t>({'0xFF800000u' if largest else '0x7F800000u'}))"
    cols = f"static_cast<int32_t>({src.cols})"
    em.emit("{")
    em.depth += 1
    at = arg_buffer_offsets("argeachrow", "a_", "o_")
    em.emit(f"const int64_t a_ = AcAlignUp({src.cols}, 64), o_ = AcAlignUp({src.rows}, 8);")
    for part, part_ct in (("row", "float"), ("sel", "float"), ("ramp", "float"), ("red", "float"),
                          ("work", "float"), ("mask", "uint8_t")):
        em.emit(f"AscendC::LocalTensor<{part_ct}> {part}_ = {target}[{at[part]}].ReinterpretCast<{part_ct}>();")
    em.emit("AscendC::CreateVecIndex(ramp_, 0.0f, static_cast<uint32_t>(a_));")
    em.emit(f"for (int64_t r_ = 0; r_ < {src.rows}; ++r_) {{")
    em.depth += 1
    em.emit(f"AscendC::Duplicate(row_, {pad}, static_cast<int32_t>(a_));")
    em.emit("AscendC::PipeBarrier<PIPE_V>();")
    em.emit(f"AscendC::Muls(row_, {x}[r_ * {src.pitch}], 1.0f, {cols});")
    em.emit("AscendC::PipeBarrier<PIPE_V>();")
    em.emit("AscendC::Compare(mask_, row_, row_, AscendC::CMPMODE::NE, static_cast<uint32_t>(a_));")
    em.emit("AscendC::PipeBarrier<PIPE_V>();")
    em.emit("AscendC::Select(sel_, mask_, ramp_, static_cast<float>(a_), AscendC::SELMODE::VSEL_TENSOR_SCALAR_MODE, "
            "static_cast<uint32_t>(a_));")
    em.emit("AscendC::PipeBarrier<PIPE_V>();")
    em.emit("AscendC::ReduceMin<float>(red_, sel_, work_, static_cast<int32_t>(a_));")
    em.emit("const float nan_at_ = red_.GetValue(0);")
    em.emit(f"AscendC::{'ReduceMax' if largest else 'ReduceMin'}<float>(red_, row_, work_, {cols});")
    em.emit("const float best_ = red_.GetValue(0);")
    em.emit("AscendC::CompareScalar(mask_, row_, best_, AscendC::CMPMODE::EQ, static_cast<uint32_t>(a_));")
    em.emit("AscendC::PipeBarrier<PIPE_V>();")
    em.emit("AscendC::Select(sel_, mask_, ramp_, static_cast<float>(a_), AscendC::SELMODE::VSEL_TENSOR_SCALAR_MODE, "
            "static_cast<uint32_t>(a_));")
    em.emit("AscendC::PipeBarrier<PIPE_V>();")
    em.emit("AscendC::ReduceMin<float>(red_, sel_, work_, static_cast<int32_t>(a_));")
    em.emit("const float at_ = nan_at_ < static_cast<float>(a_) ? nan_at_ : red_.GetValue(0);")
    em.emit(f"{target}.SetValue(r_, static_cast<int32_t>(at_));")
    em.depth -= 1
    em.emit("}")
    em.depth -= 1
    em.emit("}")
    return tile_cls(ct, "i32", "1", src.rows, f"AcAlignUp({src.rows}, 8)", out)


def emit_scatter(em, target: str, e, op, out: str, tile_cls):
    """``Scatter(t, idx, v)`` / ``ScatterAdd``: t copied into the output (AcCopy), then per index, in order,
    ``out[idx[i]] = v[i]`` (or ``+=``) on the scalar unit: GetValue/SetValue, ordered after the vector
    copy and before later readers by the compiler's automatic synchronisation of scalar UB accesses
    (docs/simulator.md). Repeated indices: the last value stays / all are added, in index order."""
    t, idx, v = (a.id for a in e.args[:3])
    src, ix = em.tiles[t], em.tiles[idx]
    if out != src.home:
        em.emit(f"AcCopy({target}, {t}, {src.count});")
    value = f"{v}.GetValue(i_)"
    if op.of == "scatter_add":
        value = f"{target}.GetValue(k_) + {value}"
    em.emit(f"for (int64_t i_ = 0; i_ < {ix.count}; ++i_) {{")
    em.emit(f"    const int64_t k_ = static_cast<int64_t>({idx}.GetValue(i_));")
    em.emit(f"    {target}.SetValue(k_, {value});")
    em.emit("}")
    return tile_cls(src.ctype, src.dtype, src.rows, src.cols, src.pitch, out)
