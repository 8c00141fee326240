// ascendcraft AscendC CPU simulator: the low-level cube path on Atlas A2 (2201):
// GM (ND) --DataCopy+Nd2NzParams--> L1 (NZ) --LoadData--> L0A (ZZ) / L0B (ZN) --Mmad--> L0C (NZ fp32)
// --Fixpipe--> GM (ND).  Layouts as in the public matmul_basic_api example: a fractal is
// 16 rows x C0 columns (C0 = 32 bytes / sizeof(T)), 512 bytes.  Inputs: half / bfloat16_t.
#pragma once
#include "vec.h"

enum QuantMode_t : uint8_t { NoQuant = 0, F322F16 = 1, F322BF16 = 2, DEQF16 = 3, VDEQF16 = 4, REQ8 = 5, VREQ8 = 6 };

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
struct MmadParams {
    uint16_t m = 0, n = 0, k = 0;
    uint8_t unitFlag = 0;
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
            asc_sim::fail(sp == asc_sim::SP_UB ? "ub-capacity" : (sp == asc_sim::SP_L1 ? "l1-capacity" : "l0-capacity"),
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
template <typename T> inline void check_cube_dtype(const char* api, const Loc& loc) {
    if (!(std::is_same<T, half>::value || std::is_same<T, bfloat16_t>::value))
        fail("unsupported", api, loc,
             fmt("%s with %s inputs: the simulator's low-level cube path supports half and bfloat16_t (use the "
                 "Matmul API for float and int8)", api, type_name<T>()));
}
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
    asc_sim::Deps d;
    d.wr[0] = dst.buf_;
    asc_sim::schedule(asc_sim::Pipe::MTE2, s.cfg.mte_overhead + static_cast<double>(bytes) / s.cfg.mte2_bpc, d,
                      static_cast<double>(bytes), s.cfg.gm_latency);
    s.stats.gm_read += bytes;
    if (s.cfg.cost_only) return;
    T* out = dst.ptr();
    for (uint32_t nd = 0; nd < p.ndNum; ++nd)
        for (uint32_t r = 0; r < p.nValue; ++r) {
            const T* row = src.addr_ + static_cast<uint64_t>(nd) * p.srcNdMatrixStride + static_cast<uint64_t>(r) * p.srcDValue;
            for (uint32_t c = 0; c < p.dValue; ++c) {
                uint64_t o = static_cast<uint64_t>(nd) * p.dstNzMatrixStride + static_cast<uint64_t>(c / c0) * p.dstNzC0Stride * c0 +
                             static_cast<uint64_t>(r) * p.dstNzNStride * c0 + c % c0;
                out[o] = row[c];
                asc_sim::mark_written(dst.sp_, static_cast<uint32_t>(dst.addr_ + o * sizeof(T)), sizeof(T));
            }
        }
}

// ---- L1 -> L0A / L0B: repeatTimes fractals of 512 bytes; optional per-fractal transpose
template <typename T>
inline void LoadData(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LoadData2DParams& p, ASC_LOC_PARAM) {
    const char* api = "LoadData";
    asc_sim::State& s = asc_sim::S();
    asc_sim::enter(api, asc_loc_);
    asc_sim::check_pos(api, asc_loc_, "src", src, asc_sim::SP_L1, "L1 (A1/B1)");
    if (dst.sp_ != asc_sim::SP_L0A && dst.sp_ != asc_sim::SP_L0B)
        asc_sim::fail("position", api, asc_loc_,
                      asc_sim::fmt("LoadData: dst is in %s; it must be L0A (A2) or L0B (B2)", asc_sim::space_name(dst.sp_)));
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
    for (uint32_t r = 0; r < p.repeatTimes; ++r) {
        uint64_t so = (static_cast<uint64_t>(p.startIndex) + static_cast<uint64_t>(r) * p.srcStride) * fe;
        uint64_t dof = static_cast<uint64_t>(r) * (1 + p.dstGap) * fe;
        asc_sim::check_written(api, asc_loc_, "src", src.sp_, static_cast<uint32_t>(src.addr_ + so * sizeof(T)), 512, sizeof(T));
        const T* in = src.ptr() + so;
        T* out = dst.ptr() + dof;
        if (!p.ifTranspose) {
            std::memcpy(static_cast<void*>(out), static_cast<const void*>(in), 512);
        } else {
            for (uint32_t i = 0; i < 16; ++i)
                for (uint32_t j = 0; j < 16; ++j) out[j * 16 + i] = in[i * 16 + j];
        }
        asc_sim::mark_written(dst.sp_, static_cast<uint32_t>(dst.addr_ + dof * sizeof(T)), 512);
    }
}

// ---- Mmad: C[m x n] (+)= A[m x k] * B[k x n]; A in L0A (ZZ), B in L0B (ZN), C in L0C (NZ, fp32)
template <typename T, typename U, typename S>
inline void Mmad(const LocalTensor<T>& dst, const LocalTensor<U>& fm, const LocalTensor<S>& filter, const MmadParams& p,
                 ASC_LOC_PARAM) {
    const char* api = "Mmad";
    asc_sim::State& s = asc_sim::S();
    asc_sim::enter(api, asc_loc_);
    asc_sim::check_pos(api, asc_loc_, "dst", dst, asc_sim::SP_L0C, "L0C (CO1)");
    asc_sim::check_pos(api, asc_loc_, "fm", fm, asc_sim::SP_L0A, "L0A (A2)");
    asc_sim::check_pos(api, asc_loc_, "filter", filter, asc_sim::SP_L0B, "L0B (B2)");
    asc_sim::check_cube_dtype<U>(api, asc_loc_);
    if (p.m > 4095 || p.n > 4095 || p.k > 4095)
        asc_sim::fail("param-range", api, asc_loc_, asc_sim::fmt("Mmad m=%u n=%u k=%u: each must be <= 4095", p.m, p.n, p.k));
    if (p.m == 0 || p.n == 0 || p.k == 0) return;
    const uint32_t m16 = (p.m + 15) / 16, n16 = (p.n + 15) / 16, k16 = (p.k + 15) / 16;
    asc_sim::use_local(api, asc_loc_, "fm", fm, static_cast<uint64_t>(m16) * k16 * 256, true, 512);
    asc_sim::use_local(api, asc_loc_, "filter", filter, static_cast<uint64_t>(k16) * n16 * 256, true, 512);
    asc_sim::use_local(api, asc_loc_, "dst", dst, static_cast<uint64_t>(m16) * n16 * 256, true, 1024);
    asc_sim::Deps d;
    d.rd[0] = fm.buf_;
    d.rd[1] = filter.buf_;
    d.rd[2] = p.cmatrixInitVal ? -1 : dst.buf_;
    d.wr[0] = dst.buf_;
    asc_sim::schedule(asc_sim::Pipe::M, s.cfg.cube_overhead + std::ceil(4096.0 * m16 * n16 * k16 / s.cfg.cube_macs), d);
    s.stats.cube_macs += static_cast<uint64_t>(p.m) * p.n * p.k;
    if (s.cfg.cost_only) return;
    const U* A = fm.ptr();
    const S* B = filter.ptr();
    T* C = dst.ptr();
    auto aidx = [&](uint32_t i, uint32_t kk) { return ((i / 16) * k16 + kk / 16) * 256 + (i % 16) * 16 + kk % 16; };
    auto bidx = [&](uint32_t kk, uint32_t j) { return ((kk / 16) * n16 + j / 16) * 256 + (j % 16) * 16 + kk % 16; };
    auto cidx = [&](uint32_t i, uint32_t j) { return (j / 16) * m16 * 16 * 16 + i * 16 + j % 16; };
    for (uint32_t i = 0; i < p.m; ++i)
        for (uint32_t kk = 0; kk < p.k; ++kk) {
            asc_sim::check_written(api, asc_loc_, "fm", fm.sp_, static_cast<uint32_t>(fm.addr_ + aidx(i, kk) * sizeof(U)), sizeof(U), sizeof(U));
        }
    for (uint32_t kk = 0; kk < p.k; ++kk)
        for (uint32_t j = 0; j < p.n; ++j)
            asc_sim::check_written(api, asc_loc_, "filter", filter.sp_, static_cast<uint32_t>(filter.addr_ + bidx(kk, j) * sizeof(S)), sizeof(S), sizeof(S));
    for (uint32_t i = 0; i < p.m; ++i)
        for (uint32_t j = 0; j < p.n; ++j) {
            float acc = 0;
            if (!p.cmatrixInitVal) {
                asc_sim::check_written(api, asc_loc_, "dst (accumulated)", dst.sp_, static_cast<uint32_t>(dst.addr_ + cidx(i, j) * sizeof(T)), sizeof(T), sizeof(T));
                acc = static_cast<float>(C[cidx(i, j)]);
            }
            for (uint32_t kk = 0; kk < p.k; ++kk) acc += asc_sim::fv(A[aidx(i, kk)]) * asc_sim::fv(B[bidx(kk, j)]);
            C[cidx(i, j)] = static_cast<T>(acc);
            asc_sim::mark_written(dst.sp_, static_cast<uint32_t>(dst.addr_ + cidx(i, j) * sizeof(T)), sizeof(T));
        }
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
            asc_sim::check_written(api, asc_loc_, "src", src.sp_, static_cast<uint32_t>(src.addr_ + si * sizeof(U)), sizeof(U), sizeof(U));
            float v = asc_sim::fv(src.ptr()[si]);
            if (p.reluEn && v < 0) v = 0;
            dst.addr_[static_cast<uint64_t>(i) * p.dstStride + j] = static_cast<T>(v);
        }
}

}  // namespace AscendC
