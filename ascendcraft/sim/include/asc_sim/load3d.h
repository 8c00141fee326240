// ascendcraft AscendC CPU simulator: LoadData 3-D v2 (img2col) on Atlas A2 (dav_c220):
// L1 (NC1HWC0 feature map) --LoadData(LoadData3DParamsV2)--> L0A (ZZ, Mmad's A) or L0B (ZN, Mmad's B).
// Facts from the public asc-devkit repository:
//   docs/zh/api/SIMD-API/基础API/矩阵计算（ISASI）/矩阵计算的搬入/LoadData_3D.md (parameters, ranges, NOP cases,
//     alignments, the L0A/L0B paths and layouts, channelSize values),
//   docs/zh/api/SIMD-API/C-API/cube_datamove/asc_copy_l12l0a/asc_copy_l12l0a_arch_2201.md (stride/dilation >= 1),
//   examples/01_simd_cpp_api/03_basic_api/03_matrix_compute/load_data_l12l0/scripts/load3d.py (index mapping),
//   include/basic_api/kernel_struct_mm.h (field order), impl/basic_api/kernel_operator_mm_base_impl.h
//     (IsResetLoad3dConfig; the default config sets FMATRIX and the pad value from the params on every call).
// The img2col matrix: row m is output pixel (m / Wo, m % Wo), column k is ((c1 * Hk + kh) * Wk + kw) * C0 + c0;
// one call moves the window [mStartPt, +mExtension) x [kStartPt, +kExtension) of it.
// C0 is 32 bytes / sizeof(T): 16 for half / bfloat16_t, 8 for float (LoadData_3D.md: float channelSize 4, N*8,
// N*8+4; kStartPt / kExtension multiples of 8 for b32, no multiple for mExtension). float is emulated into L0A
// without enTranspose only: the ZZ form with 16 x 8 fractals that LoadData2DParams leaves for Mmad (LoadData_2D.md;
// the load_data_l12l0 example, scenario 12, uses this path for a float A). The float L0B form and the float
// enTranspose form are given only as figures (load3d_l1tol0b_b32_trans.png, load3d_l1tol0a_b32_trans.png: absent
// from the public mirror) and are reported as unsupported.
#pragma once
#include "cube.h"

namespace AscendC {

constexpr int32_t PAD_SIZE = 4;

struct IsResetLoad3dConfig {
    constexpr IsResetLoad3dConfig(const bool isSetFMatrixIn, const bool isSetPaddingIn)
        : isSetFMatrix(isSetFMatrixIn), isSetPadding(isSetPaddingIn) {}
    bool isSetFMatrix = true;
    bool isSetPadding = true;
};
constexpr IsResetLoad3dConfig IS_RESER_LOAD3D_DEFAULT_CONFIG = {true, true};  // sic: the public spelling

enum class FmatrixMode : uint8_t { FMATRIX_LEFT = 0, FMATRIX_RIGHT = 1 };

struct LoadDataRepeatParam {
    uint16_t repeatStride = 0;
    uint8_t repeatTime = 1;
    uint8_t repeatMode = 0;
    uint8_t reserved = 0;
    LoadDataRepeatParam() = default;
    LoadDataRepeatParam(uint16_t stride, uint8_t time, uint8_t mode) : repeatStride(stride), repeatTime(time), repeatMode(mode) {}
};

template <typename T> struct LoadData3DParamsV2 {
    uint8_t padList[PAD_SIZE] = {0, 0, 0, 0};  // left, right, top, bottom
    uint16_t l1H = 0, l1W = 0, channelSize = 0, kExtension = 0, mExtension = 0, kStartPt = 0, mStartPt = 0;
    uint8_t strideW = 1, strideH = 1, filterW = 1, filterH = 1, dilationFilterW = 1, dilationFilterH = 1;
    bool enTranspose = false;
    bool enSmallK = false;
    T padValue = 0;
    bool filterSizeW = false, filterSizeH = false, fMatrixCtrl = false;
    LoadData3DParamsV2() = default;
    LoadData3DParamsV2(const uint8_t padListIn[PAD_SIZE], uint16_t l1HIn, uint16_t l1WIn, uint16_t channelSizeIn,
                       uint16_t kExtensionIn, uint16_t mExtensionIn, uint16_t kStartPtIn, uint16_t mStartPtIn,
                       uint8_t strideWIn, uint8_t strideHIn, uint8_t filterWIn, uint8_t filterHIn, uint8_t dilationWIn,
                       uint8_t dilationHIn, bool enTransposeIn, bool enSmallKIn, T padValueIn,
                       bool filterSizeWIn = false, bool filterSizeHIn = false, bool fMatrixCtrlIn = false)
        : l1H(l1HIn), l1W(l1WIn), channelSize(channelSizeIn), kExtension(kExtensionIn), mExtension(mExtensionIn),
          kStartPt(kStartPtIn), mStartPt(mStartPtIn), strideW(strideWIn), strideH(strideHIn), filterW(filterWIn),
          filterH(filterHIn), dilationFilterW(dilationWIn), dilationFilterH(dilationHIn), enTranspose(enTransposeIn),
          enSmallK(enSmallKIn), padValue(padValueIn), filterSizeW(filterSizeWIn), filterSizeH(filterSizeHIn),
          fMatrixCtrl(fMatrixCtrlIn) {
        for (int32_t i = 0; i < PAD_SIZE; ++i) padList[i] = padListIn[i];
    }
};

}  // namespace AscendC

namespace asc_sim {

// One LoadData 3-D call's img2col matrix (C0 = 16 for 16-bit types, 8 for float; fractals of 16 rows x C0).
struct Img2col {
    int64_t l1h, l1w, c1, fh, fw, sh, sw, dh, dw, pad_l, pad_t, ho, wo, c0;
    uint64_t rows() const { return static_cast<uint64_t>(ho * wo); }
    uint64_t cols() const { return static_cast<uint64_t>(c1 * fh * fw * c0); }
};

// Where the C0 channels of img2col (row, column block kb) come from: map position (c1, h, w) and its L1
// element offset, -1 in the padding. Rows past Ho * Wo continue the same raster (the hardware computes
// them; kernels round a tail's mExtension up to 16), so they read the map below the last output row or the padding.
struct MapPos {
    int64_t c1, h, w, off;
};
MapPos img2col_src(const Img2col& g, uint64_t row, uint64_t kb);

// Destination forms: L0A as Mmad's A (ZZ: fractal (m/16, k/16) row-major, m rows inside); L0A with enTranspose
// as A = window^T (fractal (k/16, m/16), k rows inside); L0B as B = window (Mmad k = m, n = k: fractal
// (m/16, k/16), k rows inside, m contiguous) -- the layouts cube.h's Mmad reads. For float (c0 = 8) only the
// A form: fractal (m/16, k/8), 16 rows of 8; kc = the window's K fractals.
enum class L3dDst { A, AT, B };
uint64_t l3d_dst_off(L3dDst d, uint64_t m, uint64_t k, uint64_t m16, uint64_t k16, uint64_t c0 = 16, uint64_t kc = 0);

inline void l3d_range(const char* api, const Loc& loc, const char* name, uint32_t v, uint32_t lo, uint32_t hi) {
    if (v < lo || v > hi)
        fail("param-range", api, loc, fmt("%s: %s=%u is outside [%u, %u] (LoadData_3D.md)", api, name, v, lo, hi));
}

// Flags and values the documentation rules out, before the NOP cases (which need none of the geometry).
template <typename T> inline void l3d_check_params(const char* api, const Loc& loc, const AscendC::LoadData3DParamsV2<T>& p) {
    l3d_range(api, loc, "l1H", p.l1H, 0, 32767);
    l3d_range(api, loc, "l1W", p.l1W, 0, 32767);
    l3d_range(api, loc, "mStartPt", p.mStartPt, 0, 32767);
    // LoadData_3D.md lists [0, 63] / [0, 255]; 0 has no output grid, and the C-API page gives [1, 63] / [1, 255]
    l3d_range(api, loc, "strideW", p.strideW, 1, 63);
    l3d_range(api, loc, "strideH", p.strideH, 1, 63);
    l3d_range(api, loc, "dilationFilterW", p.dilationFilterW, 1, 255);
    l3d_range(api, loc, "dilationFilterH", p.dilationFilterH, 1, 255);
    const uint32_t c0 = 32 / sizeof(T);
    if (p.kStartPt % c0 != 0)
        fail("param-range", api, loc,
             fmt("%s: kStartPt=%u must be a multiple of %u for %s (a whole fractal column)", api, p.kStartPt, c0, type_name<T>()));
    if (p.enSmallK) fail("param-range", api, loc, fmt("%s: enSmallK=true is no longer supported by the hardware", api));
    if (p.fMatrixCtrl)
        fail("param-range", api, loc, fmt("%s: fMatrixCtrl=true: only false (the left FMATRIX) is supported", api));
    const uint32_t c = p.channelSize, r = c % c0;
    const bool documented = c0 == 16 ? c == 4 || c == 8 || (c > 16 && (r == 4 || r == 8)) || r == 0
                                     : c == 4 || (c > 8 && r == 4) || r == 0;
    if (!documented)
        fail("param-range", api, loc,
             fmt("%s: channelSize=%u: for %s it must be %s", api, c, type_name<T>(),
                 c0 == 16 ? "4, 8, N*16, N*16+4 or N*16+8" : "4, N*8 or N*8+4"));
    if (r != 0)
        fail("unsupported", api, loc,
             fmt("%s: channelSize=%u: the simulator emulates channel counts that fill whole C0 groups of %u", api, c, c0));
}

// The output grid of the (padded, dilated) convolution window; no output row or column is an error.
template <typename T> inline Img2col l3d_geometry(const char* api, const Loc& loc, const AscendC::LoadData3DParamsV2<T>& p) {
    Img2col g{};
    g.c0 = 32 / sizeof(T);
    g.l1h = p.l1H, g.l1w = p.l1W, g.c1 = p.channelSize / g.c0;
    g.fh = p.filterH + (p.filterSizeH ? 256 : 0), g.fw = p.filterW + (p.filterSizeW ? 256 : 0);
    g.sh = p.strideH, g.sw = p.strideW, g.dh = p.dilationFilterH, g.dw = p.dilationFilterW;
    g.pad_l = p.padList[0], g.pad_t = p.padList[2];
    const int64_t hp = g.l1h + p.padList[2] + p.padList[3], wp = g.l1w + p.padList[0] + p.padList[1];
    const int64_t kh = (g.fh - 1) * g.dh + 1, kw = (g.fw - 1) * g.dw + 1;
    if (hp < kh || wp < kw)
        fail("param-range", api, loc,
             fmt("%s: the dilated %lldx%lld filter window does not fit the padded %lldx%lld feature map (l1H=%u, "
                 "l1W=%u, padList={%u, %u, %u, %u}): no output position", api, static_cast<long long>(kh),
                 static_cast<long long>(kw), static_cast<long long>(hp), static_cast<long long>(wp), p.l1H, p.l1W,
                 p.padList[0], p.padList[1], p.padList[2], p.padList[3]));
    g.ho = (hp - kh) / g.sh + 1, g.wo = (wp - kw) / g.sw + 1;
    return g;
}

// The window against the img2col matrix: K may not run past its right edge, and a partial fractal
// (extension not a multiple of 16) is allowed only where the window reaches the matrix's last row / column.
template <typename T>
inline void l3d_check_window(const char* api, const Loc& loc, const Img2col& g, const AscendC::LoadData3DParamsV2<T>& p) {
    const uint64_t kend = static_cast<uint64_t>(p.kStartPt) + p.kExtension, mend = static_cast<uint64_t>(p.mStartPt) + p.mExtension;
    if (kend > g.cols())
        fail("param-range", api, loc,
             fmt("%s: the K window [kStartPt=%u, +kExtension=%u) ends at %llu, past the %llu columns of the img2col "
                 "matrix (channelSize %u x filter %lldx%lld)", api, p.kStartPt, p.kExtension,
                 static_cast<unsigned long long>(kend), static_cast<unsigned long long>(g.cols()), p.channelSize,
                 static_cast<long long>(g.fh), static_cast<long long>(g.fw)));
    if (p.kExtension % g.c0 != 0 && kend < g.cols())
        fail("param-range", api, loc,
             fmt("%s: kExtension=%u must be a multiple of %lld for %s unless the window reaches the last column "
                 "(%llu) of the img2col matrix", api, p.kExtension, static_cast<long long>(g.c0), type_name<T>(),
                 static_cast<unsigned long long>(g.cols())));
    if (g.c0 == 16 && p.mExtension % 16 != 0 && mend < g.rows())  // b32: no multiple (LoadData_3D.md, mExtension)
        fail("param-range", api, loc,
             fmt("%s: mExtension=%u must be a multiple of 16 unless the window reaches the last row (%llu = %lldx%lld "
                 "output pixels) of the img2col matrix; it ends at row %llu", api, p.mExtension,
                 static_cast<unsigned long long>(g.rows()), static_cast<long long>(g.ho), static_cast<long long>(g.wo),
                 static_cast<unsigned long long>(mend)));
}

// A read of feature-map bytes nothing wrote, named by the map coordinates.
template <typename T>
inline void l3d_check_src(const char* api, const Loc& loc, const Img2col& g, const AscendC::LocalTensor<T>& src,
                          const MapPos& at, uint64_t cols) {
    const uint32_t addr = static_cast<uint32_t>(src.addr_ + at.off * sizeof(T));
    const int64_t off = first_unwritten(src.sp_, addr, cols * sizeof(T));
    if (off < 0) return;
    fail("uninit-read", api, loc,
         fmt("%s reads src element %llu (channel group c1=%lld, h=%lld, w=%lld of the %lldx%lld NC1HWC0 feature map; "
             "L1 address 0x%llx), which nothing wrote since the buffer was allocated", api,
             static_cast<unsigned long long>(at.off + off / sizeof(T)), static_cast<long long>(at.c1),
             static_cast<long long>(at.h), static_cast<long long>(at.w), static_cast<long long>(g.l1h),
             static_cast<long long>(g.l1w), static_cast<unsigned long long>(addr + off)));
}

// The data movement: every window element from the map or the padding; the padding counts as written.
// Rows / columns of a partial last fractal past the window stay unwritten.
template <typename T>
inline void l3d_move(const char* api, const Loc& loc, const Img2col& g, const AscendC::LoadData3DParamsV2<T>& p,
                     const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src, L3dDst form) {
    const uint64_t c0 = static_cast<uint64_t>(g.c0);
    const uint64_t m16 = (p.mExtension + 15) / 16, k16 = (p.kExtension + 15) / 16, kc = (p.kExtension + c0 - 1) / c0;
    T* out = dst.ptr();
    const T* in = src.ptr();
    for (uint64_t m = 0; m < p.mExtension; ++m)
        for (uint64_t kb = 0; kb < kc; ++kb) {
            const uint64_t cols = std::min<uint64_t>(c0, p.kExtension - kb * c0);
            const MapPos at = img2col_src(g, p.mStartPt + m, p.kStartPt / c0 + kb);
            if (at.off >= 0) l3d_check_src(api, loc, g, src, at, cols);
            for (uint64_t c = 0; c < cols; ++c) {
                const uint64_t o = l3d_dst_off(form, m, kb * c0 + c, m16, k16, c0, kc);
                out[o] = at.off >= 0 ? in[at.off + c] : p.padValue;
                mark_written(dst.sp_, static_cast<uint32_t>(dst.addr_ + o * sizeof(T)), sizeof(T));
            }
        }
}

}  // namespace asc_sim

namespace AscendC {

// ---- L1 (NC1HWC0) -> L0A / L0B: img2col window, see the top of this file
template <typename T, const IsResetLoad3dConfig& defaultConfig = IS_RESER_LOAD3D_DEFAULT_CONFIG, typename U = T>
inline void LoadData(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LoadData3DParamsV2<U>& p, ASC_LOC_PARAM) {
    static_assert(std::is_same<T, U>::value, "LoadData 3-D: LoadData3DParamsV2<U> must have the tensors' type");
    const char* api = "LoadData(3Dv2)";
    asc_sim::State& s = asc_sim::S();
    asc_sim::enter(api, asc_loc_);
    asc_sim::check_l1_to_l0(api, asc_loc_, dst, src);
    asc_sim::check_cube_dtype<T>(api, asc_loc_, true);
    if (std::is_same<T, float>::value && (dst.sp_ != asc_sim::SP_L0A || p.enTranspose))
        asc_sim::fail("unsupported", api, asc_loc_,
                      asc_sim::fmt("%s with float into %s%s: the float layouts of the transposing forms (L0B, and L0A with "
                                   "enTranspose) are documented only as figures (LoadData_3D.md) and are not simulated; "
                                   "float is emulated into L0A without enTranspose", api, asc_sim::space_name(dst.sp_),
                                   dst.sp_ == asc_sim::SP_L0A ? " with enTranspose" : ""));
    if (!defaultConfig.isSetFMatrix || !defaultConfig.isSetPadding)
        asc_sim::fail("unsupported", api, asc_loc_,
                      asc_sim::fmt("%s with IsResetLoad3dConfig{%d, %d}: the FMATRIX / padding registers set by "
                                   "SetFmatrix / SetLoadDataPaddingValue are not simulated; use the default config, "
                                   "which takes l1H, l1W, padList and padValue from the params", api,
                                   defaultConfig.isSetFMatrix, defaultConfig.isSetPadding));
    asc_sim::l3d_check_params(api, asc_loc_, p);
    if (p.l1H == 0 || p.l1W == 0 || p.channelSize == 0 || p.kExtension == 0 || p.mExtension == 0 ||
        (p.filterW == 0 && !p.filterSizeW) || (p.filterH == 0 && !p.filterSizeH))
        return;  // documented NOP
    const asc_sim::Img2col g = asc_sim::l3d_geometry(api, asc_loc_, p);
    asc_sim::l3d_check_window(api, asc_loc_, g, p);
    const uint64_t c0 = static_cast<uint64_t>(g.c0);
    const uint64_t m16 = (p.mExtension + 15) / 16, kc = (p.kExtension + c0 - 1) / c0;  // fractals of 16 x c0
    const uint64_t c1_last = (p.kStartPt / c0 + kc - 1) / static_cast<uint64_t>(g.fh * g.fw);
    asc_sim::use_local(api, asc_loc_, "src", src, (c1_last + 1) * g.l1h * g.l1w * c0, false, 32, false);
    asc_sim::use_local(api, asc_loc_, "dst", dst, m16 * kc * 16 * c0, true, 512);
    const bool to_a = dst.sp_ == asc_sim::SP_L0A;
    asc_sim::Deps d;
    d.rd[0] = src.buf_;
    d.wr[0] = dst.buf_;
    asc_sim::schedule(asc_sim::Pipe::MTE1, s.cfg.cube_overhead + 512.0 * m16 * kc / (to_a ? s.cfg.l1_l0a_bpc : s.cfg.l1_l0b_bpc), d);
    if (s.cfg.cost_only) return;
    // L1 -> L0B is always transposed (enTranspose is ignored there)
    const asc_sim::L3dDst form = !to_a ? asc_sim::L3dDst::B : (p.enTranspose ? asc_sim::L3dDst::AT : asc_sim::L3dDst::A);
    asc_sim::l3d_move(api, asc_loc_, g, p, dst, src, form);
}

// The FMATRIX / padding / repeat registers: the default config above rewrites FMATRIX and the pad value on every
// call, so setting them has no effect the simulator must keep; a non-default repeat would change every later call.
void SetFmatrix(uint16_t l1H, uint16_t l1W, const uint8_t padList[4], const FmatrixMode& fmatrixMode, ASC_LOC_PARAM);
template <typename T> inline void SetLoadDataPaddingValue(const T padValue, ASC_LOC_PARAM) {
    (void)padValue;
    asc_sim::enter("SetLoadDataPaddingValue", asc_loc_);
}
void SetLoadDataRepeat(const LoadDataRepeatParam& p, ASC_LOC_PARAM);

}  // namespace AscendC
