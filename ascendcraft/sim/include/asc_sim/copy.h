// ascendcraft AscendC CPU simulator: DataCopy / DataCopyPad.
#pragma once
#include "sync.h"

namespace AscendC {

struct DataCopyParams {
    uint16_t blockCount = 1;
    uint16_t blockLen = 0;
    union { uint16_t srcGap = 0; uint16_t srcStride; };
    union { uint16_t dstGap = 0; uint16_t dstStride; };
    DataCopyParams() = default;
    DataCopyParams(uint16_t count, uint16_t len, uint16_t srcStrideIn, uint16_t dstStrideIn)
        : blockCount(count), blockLen(len), srcGap(srcStrideIn), dstGap(dstStrideIn) {}
};
struct DataCopyExtParams {
    uint16_t blockCount = 1;
    uint32_t blockLen = 0;
    uint32_t srcStride = 0;
    uint32_t dstStride = 0;
    uint32_t rsv = 0;
    DataCopyExtParams() = default;
    DataCopyExtParams(uint16_t count, uint32_t len, uint32_t srcStrideIn, uint32_t dstStrideIn, uint32_t rsvIn = 0)
        : blockCount(count), blockLen(len), srcStride(srcStrideIn), dstStride(dstStrideIn), rsv(rsvIn) {}
};
template <typename T> struct DataCopyPadExtParams {
    bool isPad = false;
    uint8_t leftPadding = 0;
    uint8_t rightPadding = 0;
    T paddingValue = T(0);
    DataCopyPadExtParams() = default;
    DataCopyPadExtParams(bool isPadIn, uint8_t left, uint8_t right, T value)
        : isPad(isPadIn), leftPadding(left), rightPadding(right), paddingValue(value) {}
};
struct DataCopyPadParams {
    bool isPad = false;
    uint8_t leftPadding = 0;
    uint8_t rightPadding = 0;
    uint64_t paddingValue = 0;
    DataCopyPadParams() = default;
    DataCopyPadParams(bool isPadIn, uint8_t left, uint8_t right, uint64_t value)
        : isPad(isPadIn), leftPadding(left), rightPadding(right), paddingValue(value) {}
};

}  // namespace AscendC

namespace asc_sim {

template <typename T>
inline uint64_t datacopy_round(const char* api, const Loc& loc, uint32_t count, const char* dir) {
    uint64_t bytes = static_cast<uint64_t>(count) * sizeof(T);
    if (bytes % 32 != 0) {
        strict_or_warn("datacopy-align", api, loc,
                       fmt("DataCopy(%s, count=%u): count*sizeof(%s) = %llu bytes is not a multiple of 32 bytes; the "
                           "hardware silently moves only %llu bytes (rounded down). Use DataCopyPad for unaligned "
                           "lengths",
                           dir, count, type_name<T>(), static_cast<unsigned long long>(bytes),
                           static_cast<unsigned long long>(bytes / 32 * 32)));
        bytes = bytes / 32 * 32;
    }
    return bytes;
}

// UB->GM with optional SetAtomicAdd accumulation.
template <typename T> inline void gm_write_elems(T* dst, const T* src, uint64_t n) {
    if (S().atomic_add) {
        std::lock_guard<std::mutex> lock(g_atomic_mu);
        for (uint64_t i = 0; i < n; ++i) dst[i] = static_cast<T>(static_cast<float>(dst[i]) + static_cast<float>(src[i]));
    } else {
        std::memcpy(static_cast<void*>(dst), static_cast<const void*>(src), n * sizeof(T));
    }
}

}  // namespace asc_sim

namespace AscendC {

// ---- GM -> UB/L1, count form
template <typename T>
inline void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const uint32_t count, ASC_LOC_PARAM) {
    const char* api = "DataCopy";
    asc_sim::State& s = asc_sim::S();
    asc_sim::enter(api, asc_loc_);
    uint64_t bytes = asc_sim::datacopy_round<T>(api, asc_loc_, count, "GM->local");
    uint64_t n = bytes / sizeof(T);
    asc_sim::use_local(api, asc_loc_, "dst", dst, n, true);
    asc_sim::gm_check(api, asc_loc_, src.addr_, bytes, "reads");
    asc_sim::schedule_gm_read(dst.buf_, static_cast<double>(bytes), src.addr_, bytes, bytes, 1);
    if (!s.cfg.cost_only) {
        std::memcpy(static_cast<void*>(dst.ptr()), static_cast<const void*>(src.addr_), bytes);
        asc_sim::wrote(dst, n);
    }
}
// ---- UB -> GM, count form
template <typename T>
inline void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t count, ASC_LOC_PARAM) {
    const char* api = "DataCopy";
    asc_sim::State& s = asc_sim::S();
    asc_sim::enter(api, asc_loc_);
    uint64_t bytes = asc_sim::datacopy_round<T>(api, asc_loc_, count, "local->GM");
    uint64_t n = bytes / sizeof(T);
    asc_sim::use_local(api, asc_loc_, "src", src, n, false, 32, false);
    asc_sim::gm_check(api, asc_loc_, dst.addr_, bytes, "writes");
    asc_sim::check_copied_out(api, asc_loc_, src.sp_, src.addr_, bytes, sizeof(T), dst.addr_);
    asc_sim::Deps d;
    d.rd[0] = src.buf_;
    asc_sim::schedule(asc_sim::Pipe::MTE3, s.cfg.mte_overhead + bytes / s.cfg.mte3_bpc, d, static_cast<double>(bytes));
    s.stats.gm_write += bytes;
    asc_sim::gm_wrote(dst.addr_, bytes, bytes, 1);
    if (!s.cfg.cost_only) asc_sim::gm_write_elems(dst.addr_, src.ptr(), n);
}
// ---- UB -> UB, count form (vector pipe)
template <typename T>
inline void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t count, ASC_LOC_PARAM) {
    const char* api = "DataCopy";
    asc_sim::State& s = asc_sim::S();
    asc_sim::enter(api, asc_loc_);
    uint64_t bytes = asc_sim::datacopy_round<T>(api, asc_loc_, count, "local->local");
    uint64_t n = bytes / sizeof(T);
    asc_sim::use_local(api, asc_loc_, "src", src, n, false, 32, false);   // a copy moves garbage as it is
    asc_sim::use_local(api, asc_loc_, "dst", dst, n, true);
    asc_sim::Deps d;
    d.rd[0] = src.buf_;
    d.wr[0] = dst.buf_;
    asc_sim::schedule(asc_sim::Pipe::V, s.cfg.vec_overhead + std::ceil(bytes / s.cfg.vec_bpc), d);
    if (!s.cfg.cost_only) {
        std::memmove(static_cast<void*>(dst.ptr()), static_cast<const void*>(src.ptr()), bytes);
        asc_sim::copy_shadow(dst.sp_, dst.addr_, src.sp_, src.addr_, bytes);
    }
}

// ---- strided forms: blockLen / gaps in 32-byte blocks
template <typename T>
inline void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyParams& p, ASC_LOC_PARAM) {
    const char* api = "DataCopy";
    asc_sim::State& s = asc_sim::S();
    asc_sim::enter(api, asc_loc_);
    if (p.blockCount == 0 || p.blockLen == 0) return;
    if (p.blockCount > 4095)
        asc_sim::fail("param-range", api, asc_loc_, asc_sim::fmt("DataCopyParams.blockCount=%u > 4095", p.blockCount));
    uint64_t blk = static_cast<uint64_t>(p.blockLen) * 32;
    uint64_t ub_extent = (static_cast<uint64_t>(p.blockCount - 1) * (p.blockLen + p.dstStride)) * 32 + blk;
    asc_sim::use_local(api, asc_loc_, "dst", dst, (ub_extent + sizeof(T) - 1) / sizeof(T), true);
    for (uint32_t i = 0; i < p.blockCount; ++i) {
        const uint8_t* g = reinterpret_cast<const uint8_t*>(src.addr_) + static_cast<uint64_t>(i) * (p.blockLen + p.srcStride) * 32;
        asc_sim::gm_check(api, asc_loc_, g, blk, "reads");
    }
    uint64_t bytes = blk * p.blockCount;
    asc_sim::schedule_gm_read(dst.buf_, static_cast<double>(bytes), src.addr_, blk,
                              (static_cast<uint64_t>(p.blockLen) + p.srcStride) * 32, p.blockCount);
    if (s.cfg.cost_only) return;
    for (uint32_t i = 0; i < p.blockCount; ++i) {
        const uint8_t* g = reinterpret_cast<const uint8_t*>(src.addr_) + static_cast<uint64_t>(i) * (p.blockLen + p.srcStride) * 32;
        uint64_t u = static_cast<uint64_t>(i) * (p.blockLen + p.dstStride) * 32;
        std::memcpy(reinterpret_cast<uint8_t*>(dst.ptr()) + u, g, blk);
        asc_sim::mark_written(dst.sp_, static_cast<uint32_t>(dst.addr_ + u), blk);
    }
}
template <typename T>
inline void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& p, ASC_LOC_PARAM) {
    const char* api = "DataCopy";
    asc_sim::State& s = asc_sim::S();
    asc_sim::enter(api, asc_loc_);
    if (p.blockCount == 0 || p.blockLen == 0) return;
    if (p.blockCount > 4095)
        asc_sim::fail("param-range", api, asc_loc_, asc_sim::fmt("DataCopyParams.blockCount=%u > 4095", p.blockCount));
    uint64_t blk = static_cast<uint64_t>(p.blockLen) * 32;
    uint64_t ub_extent = (static_cast<uint64_t>(p.blockCount - 1) * (p.blockLen + p.srcStride)) * 32 + blk;
    asc_sim::use_local(api, asc_loc_, "src", src, (ub_extent + sizeof(T) - 1) / sizeof(T), false, 32, false);
    for (uint32_t i = 0; i < p.blockCount; ++i) {
        uint64_t u = static_cast<uint64_t>(i) * (p.blockLen + p.srcStride) * 32;
        uint8_t* g = reinterpret_cast<uint8_t*>(dst.addr_) + static_cast<uint64_t>(i) * (p.blockLen + p.dstStride) * 32;
        asc_sim::gm_check(api, asc_loc_, g, blk, "writes");
        asc_sim::check_copied_out(api, asc_loc_, src.sp_, static_cast<uint32_t>(src.addr_ + u), blk, sizeof(T), g);
    }
    uint64_t bytes = blk * p.blockCount;
    asc_sim::Deps d;
    d.rd[0] = src.buf_;
    asc_sim::schedule(asc_sim::Pipe::MTE3, s.cfg.mte_overhead + bytes / s.cfg.mte3_bpc, d, static_cast<double>(bytes));
    s.stats.gm_write += bytes;
    asc_sim::gm_wrote(dst.addr_, blk, static_cast<uint64_t>(p.blockLen + p.dstStride) * 32, p.blockCount);
    if (s.cfg.cost_only) return;
    for (uint32_t i = 0; i < p.blockCount; ++i) {
        uint64_t u = static_cast<uint64_t>(i) * (p.blockLen + p.srcStride) * 32;
        uint8_t* g = reinterpret_cast<uint8_t*>(dst.addr_) + static_cast<uint64_t>(i) * (p.blockLen + p.dstStride) * 32;
        asc_sim::gm_write_elems(reinterpret_cast<T*>(g), reinterpret_cast<const T*>(reinterpret_cast<const uint8_t*>(src.ptr()) + u),
                                blk / sizeof(T));
    }
}
template <typename T>
inline void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& p, ASC_LOC_PARAM) {
    const char* api = "DataCopy";
    asc_sim::State& s = asc_sim::S();
    asc_sim::enter(api, asc_loc_);
    if (p.blockCount == 0 || p.blockLen == 0) return;
    uint64_t blk = static_cast<uint64_t>(p.blockLen) * 32;
    uint64_t src_ext = (static_cast<uint64_t>(p.blockCount - 1) * (p.blockLen + p.srcStride)) * 32 + blk;
    uint64_t dst_ext = (static_cast<uint64_t>(p.blockCount - 1) * (p.blockLen + p.dstStride)) * 32 + blk;
    asc_sim::use_local(api, asc_loc_, "src", src, (src_ext + sizeof(T) - 1) / sizeof(T), false, 32, false);
    asc_sim::use_local(api, asc_loc_, "dst", dst, (dst_ext + sizeof(T) - 1) / sizeof(T), true);
    asc_sim::Deps d;
    d.rd[0] = src.buf_;
    d.wr[0] = dst.buf_;
    asc_sim::schedule(asc_sim::Pipe::V, s.cfg.vec_overhead + std::ceil(blk * p.blockCount / s.cfg.vec_bpc), d);
    if (s.cfg.cost_only) return;
    for (uint32_t i = 0; i < p.blockCount; ++i) {
        uint64_t us = static_cast<uint64_t>(i) * (p.blockLen + p.srcStride) * 32;
        uint64_t ud = static_cast<uint64_t>(i) * (p.blockLen + p.dstStride) * 32;
        std::memmove(reinterpret_cast<uint8_t*>(dst.ptr()) + ud, reinterpret_cast<const uint8_t*>(src.ptr()) + us, blk);
        asc_sim::copy_shadow(dst.sp_, static_cast<uint32_t>(dst.addr_ + ud), src.sp_, static_cast<uint32_t>(src.addr_ + us), blk);
    }
}

// ---- DataCopyPad: blockLen in bytes; GM strides in bytes, UB strides in 32-byte blocks
void asc_sim_check_pad_supported(const char* api, const asc_sim::Loc& loc);

// blockCount: the data_move_pad instruction's nBurst is 12 bits on A2, range [0, 4095] (CCE intrinsic
// doc "搬运并补pad", cceapi_0092: nBurst [0, 2^12-1]; DataCopyPad docs: blockCount [0, 4095];
// ascendc_api.md 2.2). The uint16_t field takes larger values that the hardware cannot move.
void asc_sim_check_pad_count(const char* api, const asc_sim::Loc& loc, uint32_t count);

template <typename T>
inline void DataCopyPad(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyExtParams& p,
                        const DataCopyPadExtParams<T>& pad, ASC_LOC_PARAM) {
    const char* api = "DataCopyPad";
    asc_sim::State& s = asc_sim::S();
    asc_sim::enter(api, asc_loc_);
    asc_sim_check_pad_supported(api, asc_loc_);
    if (p.blockCount == 0 || p.blockLen == 0) return;
    asc_sim_check_pad_count(api, asc_loc_, p.blockCount);
    const uint32_t sz = sizeof(T);
    if (p.blockLen % sz != 0 || p.blockLen > 2097151u)
        asc_sim::fail("param-range", api, asc_loc_,
                      asc_sim::fmt("DataCopyPad(GM->local): blockLen=%u bytes must be a multiple of sizeof(%s)=%u and "
                                   "at most 2097151", p.blockLen, asc_sim::type_name<T>(), sz));
    if (pad.leftPadding * sz > 32 || pad.rightPadding * sz > 32)
        asc_sim::fail("param-range", api, asc_loc_,
                      asc_sim::fmt("DataCopyPad: leftPadding=%u / rightPadding=%u elements exceed 32 bytes",
                                   pad.leftPadding, pad.rightPadding));
    uint64_t padded = static_cast<uint64_t>(pad.leftPadding) * sz + p.blockLen + static_cast<uint64_t>(pad.rightPadding) * sz;
    uint64_t slot = (padded + 31) / 32 * 32;
    uint64_t ub_step = slot + static_cast<uint64_t>(p.dstStride) * 32;
    uint64_t ub_extent = (p.blockCount - 1) * ub_step + slot;
    asc_sim::use_local(api, asc_loc_, "dst", dst, ub_extent / sz, true);
    asc_sim::operand_rows(slot, ub_step);
    for (uint32_t i = 0; i < p.blockCount; ++i)
        asc_sim::gm_check(api, asc_loc_, reinterpret_cast<const uint8_t*>(src.addr_) + i * (static_cast<uint64_t>(p.blockLen) + p.srcStride),
                          p.blockLen, "reads");
    asc_sim::schedule_gm_read(dst.buf_, static_cast<double>(slot * p.blockCount), src.addr_, p.blockLen,
                              static_cast<uint64_t>(p.blockLen) + p.srcStride, p.blockCount);
    if (s.cfg.cost_only) return;
    uint64_t n = p.blockLen / sz;
    for (uint32_t i = 0; i < p.blockCount; ++i) {
        const T* g = reinterpret_cast<const T*>(reinterpret_cast<const uint8_t*>(src.addr_) + i * (static_cast<uint64_t>(p.blockLen) + p.srcStride));
        uint64_t u = i * ub_step;
        T* out = reinterpret_cast<T*>(reinterpret_cast<uint8_t*>(dst.ptr()) + u);
        std::memcpy(static_cast<void*>(out + pad.leftPadding), static_cast<const void*>(g), p.blockLen);
        uint64_t written = padded;
        if (pad.isPad) {
            for (uint32_t k = 0; k < pad.leftPadding; ++k) out[k] = pad.paddingValue;
            for (uint32_t k = 0; k < pad.rightPadding; ++k) out[pad.leftPadding + n + k] = pad.paddingValue;
        } else if (pad.leftPadding == 0 && pad.rightPadding == 0) {
            for (uint64_t k = n; k < slot / sz; ++k) out[k] = g[0];  // dummy fill repeats the first element
            written = slot;
        } else {
            written = 0;
        }
        if (written)
            asc_sim::mark_written(dst.sp_, static_cast<uint32_t>(dst.addr_ + u), written);
        else
            asc_sim::mark_written(dst.sp_, static_cast<uint32_t>(dst.addr_ + u + pad.leftPadding * sz), p.blockLen);
    }
}
template <typename T>
inline void DataCopyPad(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyExtParams& p, ASC_LOC_PARAM) {
    const char* api = "DataCopyPad";
    asc_sim::State& s = asc_sim::S();
    asc_sim::enter(api, asc_loc_);
    asc_sim_check_pad_supported(api, asc_loc_);
    if (p.blockCount == 0 || p.blockLen == 0) return;
    asc_sim_check_pad_count(api, asc_loc_, p.blockCount);
    const uint32_t sz = sizeof(T);
    if (p.blockLen % sz != 0 || p.blockLen > 2097151u)
        asc_sim::fail("param-range", api, asc_loc_,
                      asc_sim::fmt("DataCopyPad(local->GM): blockLen=%u bytes must be a multiple of sizeof(%s)=%u",
                                   p.blockLen, asc_sim::type_name<T>(), sz));
    uint64_t slot = (static_cast<uint64_t>(p.blockLen) + 31) / 32 * 32;
    uint64_t ub_step = slot + static_cast<uint64_t>(p.srcStride) * 32;
    uint64_t ub_extent = (p.blockCount - 1) * ub_step + p.blockLen;
    asc_sim::use_local(api, asc_loc_, "src", src, (ub_extent + sz - 1) / sz, false, 32, false);
    for (uint32_t i = 0; i < p.blockCount; ++i) {
        uint8_t* g = reinterpret_cast<uint8_t*>(dst.addr_) + i * (static_cast<uint64_t>(p.blockLen) + p.dstStride);
        asc_sim::gm_check(api, asc_loc_, g, p.blockLen, "writes");
        asc_sim::check_copied_out(api, asc_loc_, src.sp_, static_cast<uint32_t>(src.addr_ + i * ub_step), p.blockLen, sz, g);
    }
    uint64_t bytes = static_cast<uint64_t>(p.blockLen) * p.blockCount;
    asc_sim::Deps d;
    d.rd[0] = src.buf_;
    asc_sim::schedule(asc_sim::Pipe::MTE3, s.cfg.mte_overhead + static_cast<double>(bytes) / s.cfg.mte3_bpc, d,
                      static_cast<double>(bytes));
    s.stats.gm_write += bytes;
    asc_sim::gm_wrote(dst.addr_, p.blockLen, static_cast<uint64_t>(p.blockLen) + p.dstStride, p.blockCount);
    if (s.cfg.cost_only) return;
    for (uint32_t i = 0; i < p.blockCount; ++i) {
        T* g = reinterpret_cast<T*>(reinterpret_cast<uint8_t*>(dst.addr_) + i * (static_cast<uint64_t>(p.blockLen) + p.dstStride));
        const T* u = reinterpret_cast<const T*>(reinterpret_cast<const uint8_t*>(src.ptr()) + i * ub_step);
        asc_sim::gm_write_elems(g, u, p.blockLen / sz);
    }
}
// legacy parameter structs (blockLen in bytes as for DataCopyPad)
template <typename T>
inline void DataCopyPad(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyParams& p,
                        const DataCopyPadParams& pad, ASC_LOC_PARAM) {
    T v;
    std::memcpy(&v, &pad.paddingValue, sizeof(T));
    DataCopyPad(dst, src, DataCopyExtParams(p.blockCount, p.blockLen, p.srcStride, p.dstStride, 0),
                DataCopyPadExtParams<T>(pad.isPad, pad.leftPadding, pad.rightPadding, v), asc_loc_);
}
template <typename T>
inline void DataCopyPad(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& p, ASC_LOC_PARAM) {
    DataCopyPad(dst, src, DataCopyExtParams(p.blockCount, p.blockLen, p.srcStride, p.dstStride, 0), asc_loc_);
}

}  // namespace AscendC
