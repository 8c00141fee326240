// ascendcraft AscendC CPU simulator: the low-level cube path on Atlas A2 (2201):
// GM (ND) --DataCopy+Nd2NzParams--> L1 (NZ) --LoadData / LoadDataWithTranspose--> L0A (ZZ) / L0B (ZN)
// --Mmad--> L0C (NZ fp32) --Fixpipe--> GM (ND).  Layouts as in the public matmul_basic_api example: a fractal is
// 512 bytes, 16 rows x C0 columns with C0 = 32 bytes / sizeof(T).  Inputs: half / bfloat16_t (16 x 16
// fractals) and float (C0 = 8).  Facts for float, from the public asc-devkit repository:
//   docs/zh/api/SIMD-API/基础API/矩阵计算（ISASI）/矩阵计算的搬入/LoadData_2D.md: a b32 fractal is 16 x 8 in L0A
//     (ZZ) and 8 x 16 in L0B (ZN, 16 rows of n, each holding 8 consecutive k); ifTranspose is for b16 only;
//   .../矩阵计算的搬入/LoadDataWithTranspose.md and examples/01_simd_cpp_api/03_basic_api/03_matrix_compute/
//     load_data_l12l0/scripts/load_data_with_transpose.py: for b32 two consecutive 16 x 8 source fractals form a
//     16 x 16 square, which is transposed and split into two 16 x 8 fractals dstFracGap apart;
//   examples/.../load_data_l12l0 (README.md, load_data_l12l0.asc): fp32 B reaches L0B either given transposed
//     ([n, k], ND -> NZ, LoadData2D without transpose) or as [k, n] in a Zz L1 layout with LoadDataWithTranspose;
//     a transposed fp32 A goes the same way into L0A with MmadParams::kDirectionAlign = true;
//   .../Mmad计算/Mmad.md and .../Mmad计算关键特性说明/K-方向对齐约束.md: float x float -> float in L0C; for float
//     L0A/L0B hold K aligned to ceil(K / 8) * 8, or ceil(K / 16) * 16 with kDirectionAlign, and the cube reads
//     only the ceil(K / 8) fractals that hold data; .../Mmad计算关键特性说明/GEMV.md: m = 1 reads A as K
//     contiguous elements;
//   .../矩阵计算的搬出/Fixpipe（L0C到GM数据搬运）.md: float output needs quantPre NoQuant, half F322F16, bf16 F322BF16;
//   .../矩阵计算的搬入/DataCopy（GMToL1随路转换-ND2NZ搬运）.md: a dValue row not filling 32 bytes is padded with 0.
// Data movement (LoadData, LoadDataWithTranspose) carries the shadow ("was written") bytes along with the data:
// the padding rows of a tail fractal, which Nd2Nz never writes, reach L0 as unwritten, and Mmad reports a read of
// one inside its m x k / k x n window.  A load whose source holds no written byte at all is an error itself.
#pragma once
#include "vec.h"

// the A2 values, in the order of FixpipeParamsV220::quantPre (Fixpipe（L0C到GM数据搬运）.md)
enum QuantMode_t : uint8_t {
    NoQuant = 0, F322F16 = 1, F322BF16 = 2, DEQF16 = 3, VDEQF16 = 4, QF322B8_PRE = 5, VQF322B8_PRE = 6, REQ8 = 7, VREQ8 = 8
};

namespace AscendC {

struct Nd2NzParams {
    uint16_t ndNum = 1, nValue = 0, dValue = 0, srcNdMatrixStride = 0, srcDValue = 0, dstNzC0Stride = 0,
             dstNzNStride = 1, dstNzMatrixStride = 0;
    Nd2NzParams() = default;
    Nd2NzParams(uint16_t nd, uint16_t n, uint16_t d, uint16_t srcNdStride, uint16_t srcD, uint16_t c0Stride,
                uint16_t nStride, uint16_t matStride)
        : ndNum(nd), nValue(n), dValue(d), srcNdMatrixStride(srcNdStride), srcDValue(srcD), dstNzC0Stride(c0Stride),
          dstNzNStride(nStride), dstNzMatrixStride(matStride) {}
};
struct LoadData2DParams {
    uint16_t startIndex = 0;
    uint8_t repeatTimes = 0;
    uint16_t srcStride = 0;
    uint8_t sid = 0;
    uint16_t dstGap = 0;
    bool ifTranspose = false;
    uint8_t addrMode = 0;
    LoadData2DParams() = default;
    LoadData2DParams(uint16_t start, uint8_t repeat, uint16_t srcStrideIn, uint8_t sidIn, uint16_t dstGapIn,
                     bool transpose, uint8_t addrModeIn)
        : startIndex(start), repeatTimes(repeat), srcStride(srcStrideIn), sid(sidIn), dstGap(dstGapIn),
          ifTranspose(transpose), addrMode(addrModeIn) {}
};
// Fill's parameters (kernel_struct_mm.h; Fill.md, formerly InitConstValue): repeatTimes iterations of blockNum
// blocks each, dstGap blocks between iterations; a block is 32 bytes in L1, 512 in L0A / L0B.
template <typename T>
struct InitConstValueParams {
    uint16_t repeatTimes = 0;
    uint16_t blockNum = 0;
    uint16_t dstGap = 0;
    T initValue = 0;
    InitConstValueParams() = default;
    InitConstValueParams(uint16_t repeat, uint16_t blocks, uint16_t gap, T value)
        : repeatTimes(repeat), blockNum(blocks), dstGap(gap), initValue(value) {}
    InitConstValueParams(uint16_t repeat, T value) : repeatTimes(repeat), blockNum(1), initValue(value) {}
};
struct LoadData2dTransposeParams {
    uint16_t startIndex = 0;
    uint8_t repeatTimes = 0;
    uint16_t srcStride = 0, dstGap = 0, dstFracGap = 0;
    uint8_t addrMode = 0;
    LoadData2dTransposeParams() = default;
    LoadData2dTransposeParams(uint16_t start, uint8_t repeat, uint16_t srcStrideIn, uint16_t dstGapIn,
                              uint16_t dstFracGapIn, uint8_t addrModeIn = 0)
        : startIndex(start), repeatTimes(repeat), srcStride(srcStrideIn), dstGap(dstGapIn), dstFracGap(dstFracGapIn),
          addrMode(addrModeIn) {}
};
struct MmadParams {
    uint16_t m = 0, n = 0, k = 0;
    uint8_t unitFlag = 0;
    bool kDirectionAlign = false;  // float only: L0A/L0B hold K aligned to 16 instead of 8
    bool cmatrixSource = false;
    bool cmatrixInitVal = true;
    MmadParams() = default;
    MmadParams(uint16_t mIn, uint16_t nIn, uint16_t kIn, uint8_t unit, bool source, bool init)
        : m(mIn), n(nIn), k(kIn), unitFlag(unit), cmatrixSource(source), cmatrixInitVal(init) {}
};
struct FixpipeParamsV220 {
    uint16_t nSize = 0, mSize = 0, srcStride = 0;
    uint32_t dstStride = 0;
    bool reluEn = false;
    QuantMode_t quantPre = NoQuant;
    uint64_t deqScalar = 0;
    uint16_t ndNum = 1, srcNdStride = 0, dstNdStride = 0;
    uint8_t unitFlag = 0;
    FixpipeParamsV220() = default;
    FixpipeParamsV220(uint16_t n, uint16_t m, uint16_t srcStrideIn, uint32_t dstStrideIn, bool relu, QuantMode_t q,
                      uint64_t deq, uint16_t nd, uint16_t srcNd, uint16_t dstNd, uint8_t unit)
        : nSize(n), mSize(m), srcStride(srcStrideIn), dstStride(dstStrideIn), reluEn(relu), quantPre(q),
          deqScalar(deq), ndNum(nd), srcNdStride(srcNd), dstNdStride(dstNd), unitFlag(unit) {}
};
struct FixpipeConfig {
    bool isRowMajor = true;
};
constexpr FixpipeConfig CFG_ROW_MAJOR{true};
constexpr FixpipeConfig CFG_NZ{false};

// HF32 (fp32 inputs rounded to a shorter mantissa before the product): the simulator computes full fp32, so
// enabling it is reported (the rounding of the A2 format is given only as a figure in Mmad计算关键特性说明/HF32.md).
enum class HF32Mode { ENABLE, DISABLE };
enum class HF32TransMode { NEAREST_ZERO, NEAREST_EVEN };

enum class Hardware : uint8_t { GM = 0, UB, L1, L0A, L0B, L0C, BIAS, FIXBUF };

// CANN 9.x LocalMemAllocator: hands out tensors in allocation order from one on-chip memory.
template <Hardware hw> class LocalMemAllocator {
public:
    template <TPosition pos, typename T> LocalTensor<T> Alloc(uint32_t count, ASC_LOC_PARAM) {
        asc_sim::State& s = asc_sim::S();
        asc_sim::enter("LocalMemAllocator::Alloc", asc_loc_);
        int sp = space();
        asc_sim::check_core_space("LocalMemAllocator::Alloc", asc_loc_, sp);
        uint32_t bytes = static_cast<uint32_t>((static_cast<uint64_t>(count) * sizeof(T) + 31) / 32 * 32);
        uint32_t align = sp == asc_sim::SP_L0C ? 1024 : (sp == asc_sim::SP_L0A || sp == asc_sim::SP_L0B ? 512 : 32);
        cursor_ = (cursor_ + align - 1) / align * align;
        if (static_cast<uint64_t>(cursor_) + bytes > s.spaces[sp].cap)
            asc_sim::fail(asc_sim::capacity_rule(sp),
                          "LocalMemAllocator::Alloc", asc_loc_,
                          asc_sim::fmt("Alloc of %u bytes at offset %u exceeds the %u bytes of %s", bytes, cursor_,
                                       s.spaces[sp].cap, asc_sim::space_name(sp)));
        asc_sim::Buffer b;
        b.space = sp;
        b.pos = static_cast<int>(pos);
        b.addr = cursor_;
        b.len = bytes;
        b.state = asc_sim::BUF_TBUF;
        s.bufs.push_back(b);
        LocalTensor<T> t;
        t.sp_ = sp;
        t.addr_ = cursor_;
        t.size_ = count;
        t.buf_ = static_cast<int>(s.bufs.size()) - 1;
        t.gen_ = b.gen;
        t.pos_ = pos;
        cursor_ += bytes;
        return t;
    }

private:
    static int space() {
        switch (hw) {
            case Hardware::L1: return asc_sim::SP_L1;
            case Hardware::L0A: return asc_sim::SP_L0A;
            case Hardware::L0B: return asc_sim::SP_L0B;
            case Hardware::L0C: return asc_sim::SP_L0C;
            case Hardware::BIAS: return asc_sim::SP_BT;
            case Hardware::FIXBUF: return asc_sim::SP_FB;
            default: return asc_sim::SP_UB;
        }
    }
    uint32_t cursor_ = 0;
};

}  // namespace AscendC

namespace asc_sim {
template <typename T>
inline void check_pos(const char* api, const Loc& loc, const char* name, const AscendC::LocalTensor<T>& t, int space,
                      const char* allowed) {
    if (t.sp_ != space)
        fail("position", api, loc,
             fmt("%s: operand %s is in %s (TPosition %s); it must be in %s", api, name, space_name(t.sp_),
                 AscendC::PositionName(t.pos_), allowed));
}
// The operands of an L1 -> L0 load (LoadData 2-D and 3-D, LoadDataWithTranspose): src in L1, dst in L0A or L0B.
template <typename T>
inline void check_l1_to_l0(const char* api, const Loc& loc, const AscendC::LocalTensor<T>& dst,
                           const AscendC::LocalTensor<T>& src) {
    check_pos(api, loc, "src", src, SP_L1, "L1 (A1/B1)");
    if (dst.sp_ != SP_L0A && dst.sp_ != SP_L0B)
        fail("position", api, loc, fmt("%s: dst is in %s; it must be L0A (A2) or L0B (B2)", api, space_name(dst.sp_)));
}
template <typename T> constexpr bool is_cube_b16() { return std::is_same<T, half>::value || std::is_same<T, bfloat16_t>::value; }
// The input types the simulated cube path moves and multiplies: half and bfloat16_t, and float where
// `allow_float` (the caller's path has a confirmed fp32 layout).
template <typename T> inline void check_cube_dtype(const char* api, const Loc& loc, bool allow_float = false) {
    if (is_cube_b16<T>() || (allow_float && std::is_same<T, float>::value)) return;
    fail("unsupported", api, loc,
         fmt("%s with %s inputs: the simulator's low-level cube path supports half and bfloat16_t%s (use the "
             "Matmul API for int8)", api, type_name<T>(), allow_float ? " and float" : ""));
}
// Mmad's documented type combinations on A2 (Mmad.md, 表7): dst float with fm/filter half, bfloat16_t or float;
// dst int32_t with int8_t / int4b_t (not simulated).
template <typename T, typename U, typename S> inline void check_mmad_types(const char* api, const Loc& loc) {
    const bool fp = std::is_same<T, float>::value && std::is_same<U, S>::value &&
                    (is_cube_b16<U>() || std::is_same<U, float>::value);
    if (fp) return;
    if (std::is_same<T, int32_t>::value && std::is_same<U, S>::value && std::is_same<U, int8_t>::value)
        fail("unsupported", api, loc,
             fmt("%s with int8_t inputs: the simulator's low-level cube path supports half, bfloat16_t and float "
                 "(use the Matmul API for int8)", api));
    fail("dtype", api, loc,
         fmt("%s: dst %s, fm %s, filter %s is not a combination Mmad supports on A2 (dst float with fm and filter "
             "both half, bfloat16_t or float; dst int32_t with int8_t: Mmad.md)", api, type_name<T>(), type_name<U>(),
             type_name<S>()));
}

// Fixpipe from a float L0C: "float/int32_t输出此需配置为NoQuant; half/bfloat16_t输出，此参数需配置为
// F322F16/F322BF16" (Fixpipe（L0C到GM数据搬运）.md, FixpipeParamsV220::quantPre).
const char* quant_name(QuantMode_t q);
template <typename T, typename U> inline void check_fixpipe_quant(const char* api, const Loc& loc, QuantMode_t q) {
    if (!std::is_same<U, float>::value)
        fail("unsupported", api, loc,
             fmt("%s from a %s L0C: the simulator's cube path produces float in L0C", api, type_name<U>()));
    QuantMode_t want = NoQuant;
    if (std::is_same<T, float>::value) want = NoQuant;
    else if (std::is_same<T, half>::value) want = F322F16;
    else if (std::is_same<T, bfloat16_t>::value) want = F322BF16;
    else
        fail("unsupported", api, loc,
             fmt("%s to a %s destination: quantization (quantPre %s) is not simulated; float, half and bfloat16_t "
                 "outputs are", api, type_name<T>(), quant_name(q)));
    if (q == want) return;
    if (q != NoQuant && q != F322F16 && q != F322BF16)
        fail("unsupported", api, loc,
             fmt("%s with quantPre %s: quantization is not simulated (NoQuant, F322F16 and F322BF16 are)", api, quant_name(q)));
    fail("dtype", api, loc,
         fmt("%s from float L0C to a %s destination needs quantPre %s, not %s (float output NoQuant, half F322F16, "
             "bfloat16_t F322BF16: Fixpipe（L0C到GM数据搬运）.md)", api, type_name<T>(), quant_name(want), quant_name(q)));
}

// Shadow bytes move with the data (see the top of this file); nothing in cost-only mode.
inline void shadow_move(int dsp, uint32_t daddr, int ssp, uint32_t saddr, uint32_t bytes) {
    if (S().cfg.cost_only || bytes == 0) return;
    std::memmove(S().spaces[dsp].shadow.data() + daddr, S().spaces[ssp].shadow.data() + saddr, bytes);
}
inline bool any_written(int sp, uint32_t addr, uint64_t bytes) {
    if (S().cfg.cost_only || bytes == 0) return true;
    const uint8_t* sh = S().spaces[sp].shadow.data() + addr;
    return std::find(sh, sh + bytes, static_cast<uint8_t>(1)) != sh + bytes;
}
// A load whose source fractals hold no byte anything wrote.
void check_src_loaded(const char* api, const Loc& loc, int sp, uint32_t lo, uint32_t hi, bool any);
}  // namespace asc_sim

namespace AscendC {

// ---- GM (ND) -> L1 (NZ)
template <typename T>
inline void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const Nd2NzParams& p, ASC_LOC_PARAM) {
    const char* api = "DataCopy(Nd2Nz)";
    asc_sim::State& s = asc_sim::S();
    asc_sim::enter(api, asc_loc_);
    asc_sim::check_pos(api, asc_loc_, "dst", dst, asc_sim::SP_L1, "L1 (A1/B1)");
    const uint32_t c0 = 32 / sizeof(T);
    uint64_t extent = 0, bytes = 0;
    for (uint32_t nd = 0; nd < p.ndNum; ++nd) {
        uint64_t dbase = static_cast<uint64_t>(nd) * p.dstNzMatrixStride;
        if (p.nValue && p.dValue)
            extent = std::max<uint64_t>(extent, dbase + static_cast<uint64_t>((p.dValue - 1) / c0) * p.dstNzC0Stride * c0 +
                                                    static_cast<uint64_t>(p.nValue - 1) * p.dstNzNStride * c0 + c0);
        for (uint32_t r = 0; r < p.nValue; ++r)
            asc_sim::gm_check(api, asc_loc_, src.addr_ + static_cast<uint64_t>(nd) * p.srcNdMatrixStride + static_cast<uint64_t>(r) * p.srcDValue,
                              static_cast<uint64_t>(p.dValue) * sizeof(T), "reads");
        bytes += static_cast<uint64_t>(p.nValue) * p.dValue * sizeof(T);
    }
    asc_sim::use_local(api, asc_loc_, "dst", dst, extent, true);
    // the rows read, as the vector copy-ins' (schedule_gm_read): ordered after this core's copies out
    // of the same bytes, and re-reads within the core's L2 share at the L2 rate, not HBM's
    const uint64_t blk = static_cast<uint64_t>(p.dValue) * sizeof(T), stride = static_cast<uint64_t>(p.srcDValue) * sizeof(T);
    if (p.ndNum <= 1 || p.srcNdMatrixStride == static_cast<uint32_t>(p.nValue) * p.srcDValue) {
        asc_sim::schedule_gm_read(dst.buf_, static_cast<double>(bytes), src.addr_, blk, stride,
                                  static_cast<uint64_t>(p.ndNum) * p.nValue);
    } else {   // matrices apart: each one's rows, one transfer
        uint64_t hbm = 0;
        for (uint32_t nd = 0; nd < p.ndNum; ++nd) {
            const T* at = src.addr_ + static_cast<uint64_t>(nd) * p.srcNdMatrixStride;
            asc_sim::gm_read_ordered(at, blk, stride, p.nValue, static_cast<int>(asc_sim::Pipe::MTE2),
                                     "SetFlag/WaitFlag<HardEvent::MTE3_MTE2> between the copy out and this copy in");
            hbm += asc_sim::gm_read_hbm_bytes(at, blk, stride, p.nValue);
        }
        const double from_hbm = bytes ? static_cast<double>(hbm) / static_cast<double>(bytes) : 1.0;
        asc_sim::Deps d;
        d.wr[0] = dst.buf_;
        asc_sim::schedule(asc_sim::Pipe::MTE2, s.cfg.mte_overhead + static_cast<double>(bytes) * from_hbm / s.cfg.mte2_bpc +
                                                   static_cast<double>(bytes) * (1.0 - from_hbm) / s.cfg.l2_bpc,
                          d, static_cast<double>(hbm), s.cfg.gm_latency);
        s.stats.gm_read += hbm;
    }
    if (s.cfg.cost_only) return;
    T* out = dst.ptr();
    // a row of dValue elements that does not fill its last 32 bytes is padded with 0 there
    // (DataCopy（GMToL1随路转换-ND2NZ搬运）.md, dValue)
    const uint32_t dpad = (p.dValue + c0 - 1) / c0 * c0;
    for (uint32_t nd = 0; nd < p.ndNum; ++nd)
        for (uint32_t r = 0; r < p.nValue; ++r) {
            const T* row = src.addr_ + static_cast<uint64_t>(nd) * p.srcNdMatrixStride + static_cast<uint64_t>(r) * p.srcDValue;
            for (uint32_t c = 0; c < dpad; ++c) {
                uint64_t o = static_cast<uint64_t>(nd) * p.dstNzMatrixStride + static_cast<uint64_t>(c / c0) * p.dstNzC0Stride * c0 +
                             static_cast<uint64_t>(r) * p.dstNzNStride * c0 + c % c0;
                out[o] = c < p.dValue ? row[c] : static_cast<T>(0);
                asc_sim::mark_written(dst.sp_, static_cast<uint32_t>(dst.addr_ + o * sizeof(T)), sizeof(T));
            }
        }
}

// ---- Fill (Fill.md): a constant into L1 (on MTE2, 32-byte blocks, 32-byte aligned) or L0A / L0B (on MTE1,
// 512-byte blocks, 512-byte aligned); repeatTimes or blockNum 0 is no operation. The padding of a K tail that
// Nd2Nz does not write (the rows past K of a Zz layout) is zeroed this way before Mmad reads it.
template <typename T>
inline void Fill(const LocalTensor<T>& dst, const InitConstValueParams<T>& p, ASC_LOC_PARAM) {
    const char* api = "Fill";
    asc_sim::State& s = asc_sim::S();
    asc_sim::enter(api, asc_loc_);
    const bool l1 = dst.sp_ == asc_sim::SP_L1;
    if (!l1 && dst.sp_ != asc_sim::SP_L0A && dst.sp_ != asc_sim::SP_L0B)
        asc_sim::fail("position", api, asc_loc_,
                      asc_sim::fmt("Fill: dst is in %s (TPosition %s); it must be in L1 (A1/B1), L0A (A2) or L0B (B2)",
                                   asc_sim::space_name(dst.sp_), PositionName(dst.pos_)));
    if (p.repeatTimes > 32767 || p.blockNum > 32767 || p.dstGap > 32767)
        asc_sim::fail("param-range", api, asc_loc_,
                      asc_sim::fmt("Fill repeatTimes=%u blockNum=%u dstGap=%u: each must be <= 32767", p.repeatTimes,
                                   p.blockNum, p.dstGap));
    if (p.repeatTimes == 0 || p.blockNum == 0) return;
    const uint64_t blk = l1 ? 32 : 512, per = blk / sizeof(T);
    const uint64_t ext = ((static_cast<uint64_t>(p.repeatTimes) - 1) * (p.blockNum + p.dstGap) + p.blockNum) * per;
    asc_sim::use_local(api, asc_loc_, "dst", dst, ext, true, static_cast<uint32_t>(blk));
    const uint64_t bytes = static_cast<uint64_t>(p.repeatTimes) * p.blockNum * blk;
    asc_sim::Deps d;
    d.wr[0] = dst.buf_;
    if (l1) {
        asc_sim::schedule(asc_sim::Pipe::MTE2, s.cfg.mte_overhead + static_cast<double>(bytes) / s.cfg.mte2_bpc, d);
    } else {
        const double bpc = dst.sp_ == asc_sim::SP_L0A ? s.cfg.l1_l0a_bpc : s.cfg.l1_l0b_bpc;
        asc_sim::schedule(asc_sim::Pipe::MTE1, s.cfg.cube_overhead + static_cast<double>(bytes) / bpc, d);
    }
    if (s.cfg.cost_only) return;
    T* out = dst.ptr();
    for (uint64_t r = 0; r < p.repeatTimes; ++r) {
        const uint64_t first = r * (p.blockNum + p.dstGap) * per;
        for (uint64_t e = 0; e < p.blockNum * per; ++e) out[first + e] = p.initValue;
        asc_sim::mark_written(dst.sp_, static_cast<uint32_t>(dst.addr_ + first * sizeof(T)),
                              static_cast<uint32_t>(p.blockNum * blk));
    }
}

// ---- L1 -> L0A / L0B: repeatTimes fractals of 512 bytes; optional per-fractal transpose (16-bit types only)
template <typename T>
inline void LoadData(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LoadData2DParams& p, ASC_LOC_PARAM) {
    const char* api = "LoadData";
    asc_sim::State& s = asc_sim::S();
    asc_sim::enter(api, asc_loc_);
    asc_sim::check_l1_to_l0(api, asc_loc_, dst, src);
    if (p.ifTranspose && sizeof(T) != 2)
        // LoadData_2D.md: "开启转置功能时，源操作数、目的操作数仅支持b16数据类型"; fp32 goes through
        // LoadDataWithTranspose (from a Zz L1 layout) or is loaded already transposed
        asc_sim::fail("dtype", api, asc_loc_,
                      asc_sim::fmt("LoadData with ifTranspose=true on %s: the per-fractal transpose of LoadData2DParams is "
                                   "for 16-bit types only (LoadData_2D.md); a %s matrix that must be transposed on the way "
                                   "to L0 takes LoadDataWithTranspose from a Zz layout in L1, or is given transposed in GM "
                                   "and loaded without transpose", asc_sim::type_name<T>(), asc_sim::type_name<T>()));
    if (p.ifTranspose) asc_sim::check_cube_dtype<T>(api, asc_loc_);
    const uint32_t fe = 512 / sizeof(T);  // elements per fractal
    if (p.repeatTimes == 0) return;
    uint64_t src_ext = (static_cast<uint64_t>(p.startIndex) + static_cast<uint64_t>(p.repeatTimes - 1) * p.srcStride + 1) * fe;
    uint64_t dst_ext = (static_cast<uint64_t>(p.repeatTimes - 1) * (1 + p.dstGap) + 1) * fe;
    asc_sim::use_local(api, asc_loc_, "src", src, src_ext, true, 32);
    asc_sim::use_local(api, asc_loc_, "dst", dst, dst_ext, true, 512);
    double bpc = dst.sp_ == asc_sim::SP_L0A ? s.cfg.l1_l0a_bpc : s.cfg.l1_l0b_bpc;
    asc_sim::Deps d;
    d.rd[0] = src.buf_;
    d.wr[0] = dst.buf_;
    asc_sim::schedule(asc_sim::Pipe::MTE1, s.cfg.cube_overhead + 512.0 * p.repeatTimes / bpc, d);
    if (s.cfg.cost_only) return;
    bool any = false;
    for (uint32_t r = 0; r < p.repeatTimes && !any; ++r)
        any = asc_sim::any_written(src.sp_, static_cast<uint32_t>(src.addr_ + (p.startIndex + static_cast<uint64_t>(r) * p.srcStride) * 512), 512);
    asc_sim::check_src_loaded(api, asc_loc_, src.sp_, static_cast<uint32_t>(src.addr_ + p.startIndex * 512ull),
                              static_cast<uint32_t>(src.addr_ + src_ext * sizeof(T) - 1), any);
    for (uint32_t r = 0; r < p.repeatTimes; ++r) {
        uint64_t so = (static_cast<uint64_t>(p.startIndex) + static_cast<uint64_t>(r) * p.srcStride) * fe;
        uint64_t dof = static_cast<uint64_t>(r) * (1 + p.dstGap) * fe;
        const uint32_t sa = static_cast<uint32_t>(src.addr_ + so * sizeof(T)), da = static_cast<uint32_t>(dst.addr_ + dof * sizeof(T));
        const T* in = src.ptr() + so;
        T* out = dst.ptr() + dof;
        if (!p.ifTranspose) {
            std::memmove(static_cast<void*>(out), static_cast<const void*>(in), 512);
            asc_sim::shadow_move(dst.sp_, da, src.sp_, sa, 512);
        } else {
            for (uint32_t i = 0; i < 16; ++i)
                for (uint32_t j = 0; j < 16; ++j) {
                    out[j * 16 + i] = in[i * 16 + j];
                    asc_sim::shadow_move(dst.sp_, da + (j * 16 + i) * sizeof(T), src.sp_, sa + (i * 16 + j) * sizeof(T), sizeof(T));
                }
        }
    }
}

// ---- L1 -> L0A / L0B with transpose (LoadDataWithTranspose.md; the index mapping of
// examples/.../load_data_l12l0/scripts/load_data_with_transpose.py). Each repeat transposes one square: for
// 16-bit types one 16 x 16 fractal; for 32-bit types the two consecutive 16 x 8 fractals side by side
// [f0 | f1] (so the L1 layout must be Zz), whose transpose is split into its left 8 columns (dst fractal 0)
// and its right 8 columns (dst fractal 1, dstFracGap fractals after the end of fractal 0).
// srcStride and startIndex count squares (LoadDataWithTranspose.md, 表3); dstGap and dstFracGap 512-byte fractals.
template <typename T>
inline void LoadDataWithTranspose(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LoadData2dTransposeParams& p,
                                  ASC_LOC_PARAM) {
    const char* api = "LoadDataWithTranspose";
    asc_sim::State& s = asc_sim::S();
    asc_sim::enter(api, asc_loc_);
    asc_sim::check_l1_to_l0(api, asc_loc_, dst, src);
    constexpr bool b32 = std::is_same<T, float>::value || std::is_same<T, int32_t>::value || std::is_same<T, uint32_t>::value;
    if (!b32 && !asc_sim::is_cube_b16<T>())
        asc_sim::fail("unsupported", api, asc_loc_,
                      asc_sim::fmt("%s with %s: the simulator emulates half, bfloat16_t and the 32-bit types (float, "
                                   "int32_t, uint32_t)", api, asc_sim::type_name<T>()));
    if (p.repeatTimes == 0) return;  // documented NOP
    const uint32_t fe = 512 / sizeof(T), nfrac = b32 ? 2 : 1, sq = fe * nfrac;
    const int64_t dir = p.addrMode ? -1 : 1;
    const int64_t last = static_cast<int64_t>(p.startIndex) + dir * static_cast<int64_t>(p.srcStride) * (p.repeatTimes - 1);
    if (last < 0)
        asc_sim::fail("param-range", api, asc_loc_,
                      asc_sim::fmt("%s: startIndex=%u with addrMode=1 (decreasing), srcStride=%u and repeatTimes=%u reaches "
                                   "square %lld, before the start of src", api, p.startIndex, p.srcStride, p.repeatTimes,
                                   static_cast<long long>(last)));
    const uint64_t src_ext = (static_cast<uint64_t>(std::max<int64_t>(last, p.startIndex)) + 1) * sq;
    const uint64_t dst_ext =
        (static_cast<uint64_t>(p.repeatTimes - 1) * (1 + p.dstGap) + (b32 ? 1u + p.dstFracGap : 0u) + 1) * fe;
    asc_sim::use_local(api, asc_loc_, "src", src, src_ext, true, 32);
    asc_sim::use_local(api, asc_loc_, "dst", dst, dst_ext, true, 512);
    const double bpc = dst.sp_ == asc_sim::SP_L0A ? s.cfg.l1_l0a_bpc : s.cfg.l1_l0b_bpc;
    asc_sim::Deps d;
    d.rd[0] = src.buf_;
    d.wr[0] = dst.buf_;
    asc_sim::schedule(asc_sim::Pipe::MTE1, s.cfg.cube_overhead + 512.0 * nfrac * p.repeatTimes / bpc, d);
    if (s.cfg.cost_only) return;
    auto square = [&](uint32_t r) { return static_cast<uint64_t>(p.startIndex + dir * static_cast<int64_t>(p.srcStride) * r) * sq; };
    bool any = false;
    for (uint32_t r = 0; r < p.repeatTimes && !any; ++r)
        any = asc_sim::any_written(src.sp_, static_cast<uint32_t>(src.addr_ + square(r) * sizeof(T)), sq * sizeof(T));
    asc_sim::check_src_loaded(api, asc_loc_, src.sp_, static_cast<uint32_t>(src.addr_ + square(0) * sizeof(T)),
                              static_cast<uint32_t>(src.addr_ + src_ext * sizeof(T) - 1), any);
    const uint32_t c0 = fe / 16;  // columns of a fractal: 16 (b16) or 8 (b32)
    for (uint32_t r = 0; r < p.repeatTimes; ++r) {
        const uint64_t so = square(r), dof = static_cast<uint64_t>(r) * (1 + p.dstGap) * fe;
        for (uint32_t i = 0; i < 16; ++i)      // square row
            for (uint32_t j = 0; j < 16; ++j) {  // square column
                // source: square element (i, j) lies in fractal j / c0, row i, column j % c0;
                // destination: transposed element (j, i) lies in fractal i / c0, row j, column i % c0
                const uint64_t si = so + (j / c0) * fe + i * c0 + j % c0;
                const uint64_t di = dof + (i / c0) * (1 + p.dstFracGap) * fe + j * c0 + i % c0;
                dst.ptr()[di] = src.ptr()[si];
                asc_sim::shadow_move(dst.sp_, static_cast<uint32_t>(dst.addr_ + di * sizeof(T)), src.sp_,
                                     static_cast<uint32_t>(src.addr_ + si * sizeof(T)), sizeof(T));
            }
    }
}

// ---- Mmad: C[m x n] (+)= A[m x k] * B[k x n]; A in L0A (ZZ), B in L0B (ZN), C in L0C (NZ, fp32).
// A fractal holds 16 rows x C0 (16 for 16-bit inputs, 8 for float) of A, or C0 x 16 of B stored as 16 rows of n
// with C0 consecutive k each; C is 16 x 16 fp32 fractals. For float the A rows of fractals are ceil(k / 8) long,
// or 2 * ceil(k / 16) with kDirectionAlign (K-方向对齐约束.md); the cube reads the ceil(k / 8) that hold data.
// m = 1 is GEMV (GEMV.md): A is read as k contiguous elements.
template <typename T, typename U, typename S>
inline void Mmad(const LocalTensor<T>& dst, const LocalTensor<U>& fm, const LocalTensor<S>& filter, const MmadParams& p,
                 ASC_LOC_PARAM) {
    const char* api = "Mmad";
    asc_sim::State& s = asc_sim::S();
    asc_sim::enter(api, asc_loc_);
    asc_sim::check_pos(api, asc_loc_, "dst", dst, asc_sim::SP_L0C, "L0C (CO1)");
    asc_sim::check_pos(api, asc_loc_, "fm", fm, asc_sim::SP_L0A, "L0A (A2)");
    asc_sim::check_pos(api, asc_loc_, "filter", filter, asc_sim::SP_L0B, "L0B (B2)");
    asc_sim::check_mmad_types<T, U, S>(api, asc_loc_);
    if (p.m > 4095 || p.n > 4095 || p.k > 4095)
        asc_sim::fail("param-range", api, asc_loc_, asc_sim::fmt("Mmad m=%u n=%u k=%u: each must be <= 4095", p.m, p.n, p.k));
    if (p.m == 0 || p.n == 0 || p.k == 0) return;
    constexpr uint32_t c0 = 32 / sizeof(U), fe = 16 * c0;  // K per fractal, elements per fractal
    constexpr bool f32 = std::is_same<U, float>::value;
    const bool gemv = p.m == 1;
    const uint32_t m16 = (p.m + 15) / 16, n16 = (p.n + 15) / 16;
    const uint32_t kread = (p.k + c0 - 1) / c0;                                // K fractals holding data
    const uint32_t kfr = f32 && p.kDirectionAlign ? (p.k + 15) / 16 * 2 : kread;  // K fractals per row of A
    const uint64_t a_ext = gemv ? p.k : (static_cast<uint64_t>(m16 - 1) * kfr + kread) * fe;
    asc_sim::use_local(api, asc_loc_, "fm", fm, a_ext, true, 512);
    asc_sim::use_local(api, asc_loc_, "filter", filter, static_cast<uint64_t>(kread) * n16 * fe, true, 512);
    asc_sim::use_local(api, asc_loc_, "dst", dst, static_cast<uint64_t>(m16) * n16 * 256, true, 1024);
    asc_sim::Deps d;
    d.rd[0] = fm.buf_;
    d.rd[1] = filter.buf_;
    d.rd[2] = p.cmatrixInitVal ? -1 : dst.buf_;
    d.wr[0] = dst.buf_;
    // the fp16 rate is cube_macs (16 x 16 x 16) per cycle, float half of it (16 x 16 x 8): the factor of
    // ascendcraft/sim/cost.py CUBE_RATE, as matmul.h computes it
    const double macs_pc = s.cfg.cube_macs * 2.0 / static_cast<double>(sizeof(U));
    asc_sim::schedule(asc_sim::Pipe::M, s.cfg.cube_overhead + std::ceil(16.0 * 16.0 * c0 * m16 * n16 * kread / macs_pc), d);
    s.stats.cube_macs += static_cast<uint64_t>(p.m) * p.n * p.k;
    if (s.cfg.cost_only) return;
    const U* A = fm.ptr();
    const S* B = filter.ptr();
    T* C = dst.ptr();
    auto aidx = [&](uint32_t i, uint32_t kk) -> uint64_t {
        if (gemv) return kk;
        return (static_cast<uint64_t>(i / 16) * kfr + kk / c0) * fe + (i % 16) * c0 + kk % c0;
    };
    auto bidx = [&](uint32_t kk, uint32_t j) -> uint64_t {
        return (static_cast<uint64_t>(kk / c0) * n16 + j / 16) * fe + (j % 16) * c0 + kk % c0;
    };
    auto cidx = [&](uint32_t i, uint32_t j) -> uint64_t { return static_cast<uint64_t>(j / 16) * m16 * 16 * 16 + i * 16 + j % 16; };
    // a read of an element nothing wrote, named by its matrix coordinates
    auto need = [&](const char* name, char mat, int sp, uint32_t addr, uint32_t bytes, uint32_t r, uint32_t c) {
        if (asc_sim::first_unwritten(sp, addr, bytes) < 0) return;
        asc_sim::fail("uninit-read", api, asc_loc_,
                      asc_sim::fmt("Mmad reads %s element %c[%u][%u] (of m=%u, n=%u, k=%u%s; %s address 0x%x), which "
                                   "nothing wrote since the buffer was allocated%s", name, mat, r, c, p.m, p.n, p.k,
                                   f32 && mat == 'A' && !gemv ? (p.kDirectionAlign ? ", kDirectionAlign" : ", K aligned to 8") : "",
                                   asc_sim::space_name(sp), addr,
                                   (mat == 'A' ? c : r) >= p.k && mat != 'C'
                                       ? ": it is K padding, which the cube multiplies (it reads whole fractals, "
                                         "K-方向对齐约束.md); zero it in L1 first (Fill) or give K a whole fractal"
                                       : ""));
    };
    // The cube multiplies whole fractals: K runs to the end of the last fractal that holds data, ceil(k / C0) * C0
    // (K-方向对齐约束.md: for K = 36 float, 5 fractals a row of A are read), so the K padding of A and B takes
    // part: Nd2Nz writes zeros past a row's dValue, a Zz layout's rows past K must be zeroed (Fill). GEMV reads
    // A as k contiguous elements (GEMV.md).
    const uint32_t kpad = kread * c0, ka = gemv ? p.k : kpad;
    for (uint32_t i = 0; i < p.m; ++i)
        for (uint32_t kk = 0; kk < ka; ++kk)
            need("fm", 'A', fm.sp_, static_cast<uint32_t>(fm.addr_ + aidx(i, kk) * sizeof(U)), sizeof(U), i, kk);
    for (uint32_t kk = 0; kk < ka; ++kk)
        for (uint32_t j = 0; j < p.n; ++j)
            need("filter", 'B', filter.sp_, static_cast<uint32_t>(filter.addr_ + bidx(kk, j) * sizeof(S)), sizeof(S), kk, j);
    for (uint32_t i = 0; i < p.m; ++i)
        for (uint32_t j = 0; j < p.n; ++j) {
            float acc = 0;
            if (!p.cmatrixInitVal) {
                need("dst (accumulated)", 'C', dst.sp_, static_cast<uint32_t>(dst.addr_ + cidx(i, j) * sizeof(T)), sizeof(T), i, j);
                acc = static_cast<float>(C[cidx(i, j)]);
            }
            for (uint32_t kk = 0; kk < ka; ++kk) acc += asc_sim::fv(A[aidx(i, kk)]) * asc_sim::fv(B[bidx(kk, j)]);
            C[cidx(i, j)] = static_cast<T>(acc);
            asc_sim::mark_written(dst.sp_, static_cast<uint32_t>(dst.addr_ + cidx(i, j) * sizeof(T)), sizeof(T));
        }
}

// HF32 is not simulated (see HF32Mode above): enabling it is reported, disabling it is the default.
void SetHF32Mode(HF32Mode mode, ASC_LOC_PARAM);
inline void SetHF32Mode(bool hf32Mode, ASC_LOC_PARAM) {
    SetHF32Mode(hf32Mode ? HF32Mode::ENABLE : HF32Mode::DISABLE, asc_loc_);
}
inline void SetHF32TransMode(HF32TransMode mode, ASC_LOC_PARAM) {
    (void)mode;
    asc_sim::enter("SetHF32TransMode", asc_loc_);
}
inline void SetHF32TransMode(bool hf32TransMode, ASC_LOC_PARAM) {
    (void)hf32TransMode;
    asc_sim::enter("SetHF32TransMode", asc_loc_);
}

// ---- Fixpipe: L0C (NZ fp32) -> GM (ND), with optional F322F16 / F322BF16 conversion and ReLU
template <typename T, typename U, const FixpipeConfig& config = CFG_ROW_MAJOR>
inline void Fixpipe(const GlobalTensor<T>& dst, const LocalTensor<U>& src, const FixpipeParamsV220& p, ASC_LOC_PARAM) {
    const char* api = "Fixpipe";
    asc_sim::State& s = asc_sim::S();
    asc_sim::enter(api, asc_loc_);
    asc_sim::check_pos(api, asc_loc_, "src", src, asc_sim::SP_L0C, "L0C (CO1)");
    if (!config.isRowMajor)
        asc_sim::fail("unsupported", api, asc_loc_, "Fixpipe with an NZ destination is not simulated (use CFG_ROW_MAJOR)");
    asc_sim::check_fixpipe_quant<T, U>(api, asc_loc_, p.quantPre);
    if (p.nSize == 0 || p.mSize == 0) return;
    uint64_t extent = static_cast<uint64_t>((p.nSize - 1) / 16) * p.srcStride * 16 + static_cast<uint64_t>(p.mSize - 1) * 16 + 16;
    asc_sim::use_local(api, asc_loc_, "src", src, extent, true, 64);
    for (uint32_t i = 0; i < p.mSize; ++i)
        asc_sim::gm_check(api, asc_loc_, dst.addr_ + static_cast<uint64_t>(i) * p.dstStride, static_cast<uint64_t>(p.nSize) * sizeof(T), "writes");
    uint64_t bytes = static_cast<uint64_t>(p.mSize) * p.nSize * sizeof(T);
    asc_sim::Deps d;
    d.rd[0] = src.buf_;
    asc_sim::schedule(asc_sim::Pipe::FIX, s.cfg.cube_overhead + static_cast<double>(p.mSize) * p.nSize * sizeof(U) / s.cfg.l0c_out_bpc, d,
                      static_cast<double>(bytes));
    s.stats.gm_write += bytes;
    asc_sim::gm_wrote(dst.addr_, static_cast<uint64_t>(p.nSize) * sizeof(T), static_cast<uint64_t>(p.dstStride) * sizeof(T), p.mSize);
    if (s.cfg.cost_only) return;
    for (uint32_t i = 0; i < p.mSize; ++i)
        for (uint32_t j = 0; j < p.nSize; ++j) {
            uint64_t si = static_cast<uint64_t>(j / 16) * p.srcStride * 16 + static_cast<uint64_t>(i) * 16 + j % 16;
            asc_sim::require_written(api, asc_loc_, "src", src.sp_, static_cast<uint32_t>(src.addr_ + si * sizeof(U)), sizeof(U), sizeof(U));
            float v = asc_sim::fv(src.ptr()[si]);
            if (p.reluEn && v < 0) v = 0;
            dst.addr_[static_cast<uint64_t>(i) * p.dstStride + j] = static_cast<T>(v);
        }
}

}  // namespace AscendC
