// ascendcraft AscendC CPU simulator: the bodies of load3d.h's functions, compiled once per
// library version and linked into every kernel (build.py), so a kernel's build compiles only itself.
#include "kernel_operator.h"

namespace asc_sim {

MapPos img2col_src(const Img2col& g, uint64_t row, uint64_t kb) {
    const int64_t taps = g.fh * g.fw, tap = static_cast<int64_t>(kb) % taps;
    MapPos p{static_cast<int64_t>(kb) / taps, static_cast<int64_t>(row) / g.wo * g.sh - g.pad_t + tap / g.fw * g.dh,
             static_cast<int64_t>(row) % g.wo * g.sw - g.pad_l + tap % g.fw * g.dw, -1};
    if (p.h >= 0 && p.w >= 0 && p.h < g.l1h && p.w < g.l1w) p.off = ((p.c1 * g.l1h + p.h) * g.l1w + p.w) * g.c0;
    return p;
}

uint64_t l3d_dst_off(L3dDst d, uint64_t m, uint64_t k, uint64_t m16, uint64_t k16, uint64_t c0, uint64_t kc) {
    if (d == L3dDst::A && c0 != 16) return ((m / 16) * kc + k / c0) * 16 * c0 + (m % 16) * c0 + k % c0;
    if (d == L3dDst::A) return ((m / 16) * k16 + k / 16) * 256 + (m % 16) * 16 + k % 16;
    if (d == L3dDst::AT) return ((k / 16) * m16 + m / 16) * 256 + (k % 16) * 16 + m % 16;
    return ((m / 16) * k16 + k / 16) * 256 + (k % 16) * 16 + m % 16;
}

}  // namespace asc_sim

namespace AscendC {

void SetFmatrix(uint16_t l1H, uint16_t l1W, const uint8_t padList[4], const FmatrixMode& fmatrixMode, ::asc_sim::Loc asc_loc_) {
    (void)padList;
    asc_sim::enter("SetFmatrix", asc_loc_);
    asc_sim::l3d_range("SetFmatrix", asc_loc_, "l1H", l1H, 1, 32767);
    asc_sim::l3d_range("SetFmatrix", asc_loc_, "l1W", l1W, 1, 32767);
    if (fmatrixMode != FmatrixMode::FMATRIX_LEFT)
        asc_sim::fail("param-range", "SetFmatrix", asc_loc_, "SetFmatrix: only FmatrixMode::FMATRIX_LEFT is supported");
}

void SetLoadDataRepeat(const LoadDataRepeatParam& p, ::asc_sim::Loc asc_loc_) {
    asc_sim::enter("SetLoadDataRepeat", asc_loc_);
    if (p.repeatTime != 1 || p.repeatMode != 0)
        asc_sim::fail("unsupported", "SetLoadDataRepeat", asc_loc_,
                      asc_sim::fmt("SetLoadDataRepeat(repeatStride=%u, repeatTime=%u, repeatMode=%u): repeated LoadData "
                                   "3-D is not simulated (only the default repeatTime=1)", p.repeatStride, p.repeatTime,
                                   p.repeatMode));
}

}  // namespace AscendC
