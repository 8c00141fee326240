"""AscendC for the indexing API form (docs/dsl.md "Indexing"; lowering_passes/indexing.py).

``Gather(src, offsets)``: ``AscendC::Gather(dst, src, offsets, srcBaseAddr, count)`` reads
``dst[i] = src[(srcBaseAddr + offsets[i]) / sizeof(T)]``, the offsets a uint32 tensor of byte
offsets (asc-devkit impl/basic_api/dav_c220/kernel_operator_vec_gather_impl.h). The offsets tile
is i32 in the program (non-negative, below the UB size): its bits are the uint32 offsets.
"""
from __future__ import annotations


def emit_gather(em, target: str, e, ct: str, dtype: str, out: str, tile_cls):
    src, offsets = (a.id for a in e.args[:2])
    off = em.tiles[offsets]
    em.emit(f"AscendC::Gather({target}, {src}, {offsets}.ReinterpretCast<uint32_t>(), static_cast<uint32_t>(0), "
            f"static_cast<uint32_t>({off.count}));")
    return tile_cls(ct, dtype, off.rows, off.cols, off.pitch, out)
