// ascendcraft AscendC CPU simulator: vector compute (level-2 count APIs, level-0 mask/repeat
// APIs, casts, compare/select, reductions, gather/brcb) and mask-mode state.
#pragma once
#include "copy.h"

namespace AscendC {

struct BinaryRepeatParams {
    uint8_t dstBlkStride = 1, src0BlkStride = 1, src1BlkStride = 1;
    uint8_t dstRepStride = 8, src0RepStride = 8, src1RepStride = 8;
    BinaryRepeatParams() = default;
    BinaryRepeatParams(uint8_t db, uint8_t s0b, uint8_t s1b, uint8_t dr, uint8_t s0r, uint8_t s1r)
        : dstBlkStride(db), src0BlkStride(s0b), src1BlkStride(s1b), dstRepStride(dr), src0RepStride(s0r), src1RepStride(s1r) {}
};
struct UnaryRepeatParams {
    uint16_t dstBlkStride = 1, srcBlkStride = 1;
    uint8_t dstRepStride = 8, srcRepStride = 8;
    UnaryRepeatParams() = default;
    UnaryRepeatParams(uint16_t db, uint16_t sb, uint8_t dr, uint8_t sr)
        : dstBlkStride(db), srcBlkStride(sb), dstRepStride(dr), srcRepStride(sr) {}
};
struct BrcbRepeatParams {
    uint16_t dstBlkStride = 1;
    uint16_t dstRepStride = 8;
    BrcbRepeatParams() = default;
    BrcbRepeatParams(uint16_t db, uint16_t dr) : dstBlkStride(db), dstRepStride(dr) {}
};

enum class RoundMode : uint8_t { CAST_NONE = 0, CAST_RINT, CAST_FLOOR, CAST_CEIL, CAST_ROUND, CAST_TRUNC, CAST_ODD };
enum class CMPMODE : uint8_t { LT = 0, GT, EQ, LE, GE, NE };
enum class SELMODE : uint8_t { VSEL_CMPMASK_SPR = 0, VSEL_TENSOR_SCALAR_MODE, VSEL_TENSOR_TENSOR_MODE };
enum class ReduceOrder : uint8_t { ORDER_VALUE_INDEX = 0, ORDER_INDEX_VALUE, ORDER_ONLY_VALUE, ORDER_ONLY_INDEX };
enum class MaskMode : uint8_t { NORMAL = 0, COUNTER };
constexpr uint64_t MASK_PLACEHOLDER = 0;

// ---- mask state (used by the level-0 APIs when isSetMask == false, and in counter mode)
inline void SetMaskCount() { asc_sim::S().mask_counter = true; }
inline void SetMaskNorm() { asc_sim::S().mask_counter = false; }
inline void ResetMask() { asc_sim::S().mask_hi = asc_sim::S().mask_lo = ~0ull; }
template <typename T, MaskMode mode = MaskMode::NORMAL> inline void SetVectorMask(uint64_t maskHigh, uint64_t maskLow) {
    asc_sim::S().mask_hi = maskHigh;
    asc_sim::S().mask_lo = maskLow;
}
template <typename T, MaskMode mode = MaskMode::NORMAL> inline void SetVectorMask(int32_t len) {
    asc_sim::State& s = asc_sim::S();
    if (s.mask_counter || mode == MaskMode::COUNTER) {
        s.mask_hi = 0;
        s.mask_lo = static_cast<uint64_t>(len);
    } else {
        s.mask_lo = len >= 64 ? ~0ull : ((1ull << len) - 1);
        s.mask_hi = len >= 128 ? ~0ull : (len > 64 ? ((1ull << (len - 64)) - 1) : 0);
    }
}

}  // namespace AscendC

namespace asc_sim {

enum DT : int { DT_F16 = 1, DT_F32 = 2, DT_I16 = 4, DT_I32 = 8, DT_U16 = 16, DT_BF16 = 32, DT_U8 = 64, DT_I8 = 128,
                DT_U32 = 256, DT_ANY = 0xffff };
template <typename T> constexpr int dt_bit() {
    return std::is_same<T, half>::value ? DT_F16 : std::is_same<T, float>::value ? DT_F32
         : std::is_same<T, int16_t>::value ? DT_I16 : std::is_same<T, int32_t>::value ? DT_I32
         : std::is_same<T, uint16_t>::value ? DT_U16 : std::is_same<T, bfloat16_t>::value ? DT_BF16
         : std::is_same<T, uint8_t>::value ? DT_U8 : std::is_same<T, int8_t>::value ? DT_I8
         : std::is_same<T, uint32_t>::value ? DT_U32 : 0;
}
inline std::string dt_list(int dts) {
    std::string r;
    const char* names[] = {"half", "float", "int16_t", "int32_t", "uint16_t", "bfloat16_t", "uint8_t", "int8_t", "uint32_t"};
    for (int i = 0; i < 9; ++i)
        if (dts & (1 << i)) r += (r.empty() ? "" : ", ") + std::string(names[i]);
    return r;
}
template <typename T> inline void check_dtype(const char* api, const Loc& loc, int dts) {
    if ((dt_bit<T>() & dts) == 0) {
        std::string extra = is_bf16<T>::value ? " (Atlas A2 has no bf16 vector arithmetic: Cast to float first)" : "";
        fail("dtype", api, loc,
             fmt("%s does not support %s on %s; supported: %s%s", api, type_name<T>(), S().cfg.chip.c_str(),
                 dt_list(dts).c_str(), extra.c_str()));
    }
}
inline double vec_cycles(uint64_t bytes, double cpr) {
    double repeats = std::ceil(static_cast<double>(bytes) / 256.0);
    return S().cfg.vec_overhead + repeats * cpr * (256.0 / S().cfg.vec_bpc);
}
// Level-2 APIs switch to counter mode internally and restore normal mode with a full mask.
inline void level2_epilogue() {
    S().mask_counter = false;
    S().mask_hi = S().mask_lo = ~0ull;
}
inline void check_count(const char* api, const Loc& loc, int64_t count) {
    if (count < 0) fail("param-range", api, loc, fmt("%s: count=%lld is negative", api, static_cast<long long>(count)));
}
inline void vec_schedule(uint64_t bytes, double cpr, int r0, int r1, int w0, uint64_t elems) {
    Deps d;
    d.rd[0] = r0;
    d.rd[1] = r1;
    d.wr[0] = w0;
    schedule(Pipe::V, vec_cycles(bytes, cpr), d);
    S().stats.vec_elems += elems;
}

constexpr int DT_ARITH = DT_I16 | DT_F16 | DT_I32 | DT_F32;
constexpr int DT_FLOAT = DT_F16 | DT_F32;
constexpr int DT_BITS = DT_I16 | DT_U16;
constexpr int DT_B16B32 = DT_F16 | DT_F32 | DT_I16 | DT_U16 | DT_I32 | DT_U32 | DT_BF16;

template <typename T, typename F>
inline void vbin(const char* api, const Loc& loc, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& a,
                 const AscendC::LocalTensor<T>& b, int32_t count, int dts, double cpr, F f) {
    enter(api, loc);
    check_dtype<T>(api, loc, dts);
    check_count(api, loc, count);
    level2_epilogue();
    if (count == 0) return;
    use_local(api, loc, "src0", a, count, false);
    use_local(api, loc, "src1", b, count, false);
    use_local(api, loc, "dst", dst, count, true);
    vec_schedule(static_cast<uint64_t>(count) * sizeof(T), cpr, a.buf_, b.buf_, dst.buf_, count);
    if (S().cfg.cost_only) return;
    T* o = dst.ptr();
    const T* x = a.ptr();
    const T* y = b.ptr();
    for (int32_t i = 0; i < count; ++i) o[i] = static_cast<T>(f(x[i], y[i]));
    wrote(dst, count);
}
template <typename T, typename F>
inline void vun(const char* api, const Loc& loc, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& a,
                int32_t count, int dts, double cpr, F f) {
    enter(api, loc);
    check_dtype<T>(api, loc, dts);
    check_count(api, loc, count);
    level2_epilogue();
    if (count == 0) return;
    use_local(api, loc, "src", a, count, false);
    use_local(api, loc, "dst", dst, count, true);
    vec_schedule(static_cast<uint64_t>(count) * sizeof(T), cpr, a.buf_, -1, dst.buf_, count);
    if (S().cfg.cost_only) return;
    T* o = dst.ptr();
    const T* x = a.ptr();
    for (int32_t i = 0; i < count; ++i) o[i] = static_cast<T>(f(x[i]));
    wrote(dst, count);
}

// ---- level-0 iteration: calls cb(repeat, element-in-repeat) for each active lane.
struct L0Mask {
    bool counter = false;
    uint64_t count = 0;
    uint64_t bits[2] = {~0ull, ~0ull};
};
template <typename T> inline L0Mask l0_mask(bool isSetMask, const uint64_t* maskArr, uint64_t maskCont, bool cont) {
    L0Mask m;
    const State& s = S();
    const uint64_t epr = 256 / sizeof(T);
    if (s.mask_counter) {
        m.counter = true;
        m.count = isSetMask ? (cont ? maskCont : maskArr[0]) : s.mask_lo;
        return m;
    }
    if (!isSetMask) {
        m.bits[0] = s.mask_lo;
        m.bits[1] = s.mask_hi;
    } else if (cont) {
        uint64_t n = std::min<uint64_t>(maskCont, epr);
        m.bits[0] = n >= 64 ? ~0ull : ((1ull << n) - 1);
        m.bits[1] = n >= 128 ? ~0ull : (n > 64 ? ((1ull << (n - 64)) - 1) : 0);
    } else {
        m.bits[0] = maskArr[0];
        m.bits[1] = epr > 64 ? maskArr[1] : 0;
    }
    if (epr <= 64) m.bits[1] = 0;
    return m;
}
template <typename T, typename CB> inline uint64_t l0_for_each(const L0Mask& m, uint32_t repeatTime, CB cb) {
    const uint32_t epr = 256 / sizeof(T);
    uint64_t n = 0;
    if (m.counter) {
        uint64_t reps = (m.count + epr - 1) / epr;
        for (uint64_t r = 0; r < reps; ++r) {
            uint32_t lim = static_cast<uint32_t>(std::min<uint64_t>(epr, m.count - r * epr));
            for (uint32_t j = 0; j < lim; ++j, ++n) cb(static_cast<uint32_t>(r), j);
        }
        return n;
    }
    for (uint32_t r = 0; r < repeatTime; ++r)
        for (uint32_t j = 0; j < epr; ++j)
            if ((m.bits[j / 64] >> (j % 64)) & 1ull) {
                cb(r, j);
                ++n;
            }
    return n;
}
template <typename T> inline uint32_t l0_repeats(const L0Mask& m, uint32_t repeatTime) {
    const uint32_t epr = 256 / sizeof(T);
    return m.counter ? static_cast<uint32_t>((m.count + epr - 1) / epr) : repeatTime;
}
template <typename T> inline uint64_t l0_index(uint32_t r, uint32_t j, uint32_t blk, uint32_t rep) {
    const uint32_t epb = 32 / sizeof(T);
    return static_cast<uint64_t>(r) * rep * epb + static_cast<uint64_t>(j / epb) * blk * epb + j % epb;
}
// Extent (elements) touched by an operand over all active lanes.
template <typename T> inline uint64_t l0_extent(const L0Mask& m, uint32_t repeatTime, uint32_t blk, uint32_t rep) {
    uint64_t mx = 0;
    bool any = false;
    l0_for_each<T>(m, repeatTime, [&](uint32_t r, uint32_t j) {
        mx = std::max(mx, l0_index<T>(r, j, blk, rep));
        any = true;
    });
    return any ? mx + 1 : 0;
}
template <typename T>
inline void l0_check_read(const char* api, const Loc& loc, const char* name, const AscendC::LocalTensor<T>& t,
                          const L0Mask& m, uint32_t repeatTime, uint32_t blk, uint32_t rep) {
    if (S().cfg.cost_only) return;
    l0_for_each<T>(m, repeatTime, [&](uint32_t r, uint32_t j) {
        uint64_t i = l0_index<T>(r, j, blk, rep);
        check_written(api, loc, name, t.sp_, static_cast<uint32_t>(t.addr_ + i * sizeof(T)), sizeof(T), sizeof(T));
    });
}

template <typename T, typename F>
inline void vbin_l0(const char* api, const Loc& loc, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& a,
                    const AscendC::LocalTensor<T>& b, const L0Mask& m, uint8_t repeatTime,
                    const AscendC::BinaryRepeatParams& p, int dts, double cpr, F f) {
    enter(api, loc);
    check_dtype<T>(api, loc, dts);
    use_local(api, loc, "src0", a, l0_extent<T>(m, repeatTime, p.src0BlkStride, p.src0RepStride), false, 32, false);
    use_local(api, loc, "src1", b, l0_extent<T>(m, repeatTime, p.src1BlkStride, p.src1RepStride), false, 32, false);
    use_local(api, loc, "dst", dst, l0_extent<T>(m, repeatTime, p.dstBlkStride, p.dstRepStride), true);
    l0_check_read(api, loc, "src0", a, m, repeatTime, p.src0BlkStride, p.src0RepStride);
    l0_check_read(api, loc, "src1", b, m, repeatTime, p.src1BlkStride, p.src1RepStride);
    uint32_t reps = l0_repeats<T>(m, repeatTime);
    vec_schedule(static_cast<uint64_t>(reps) * 256, cpr, a.buf_, b.buf_, dst.buf_, reps * (256 / sizeof(T)));
    if (S().cfg.cost_only) return;
    std::vector<std::pair<uint64_t, T>> out;
    l0_for_each<T>(m, repeatTime, [&](uint32_t r, uint32_t j) {
        T x = a.ptr()[l0_index<T>(r, j, p.src0BlkStride, p.src0RepStride)];
        T y = b.ptr()[l0_index<T>(r, j, p.src1BlkStride, p.src1RepStride)];
        out.emplace_back(l0_index<T>(r, j, p.dstBlkStride, p.dstRepStride), static_cast<T>(f(x, y)));
    });
    for (auto& kv : out) {
        dst.ptr()[kv.first] = kv.second;
        mark_written(dst.sp_, static_cast<uint32_t>(dst.addr_ + kv.first * sizeof(T)), sizeof(T));
    }
}
template <typename T, typename F>
inline void vun_l0(const char* api, const Loc& loc, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& a,
                   const L0Mask& m, uint8_t repeatTime, const AscendC::UnaryRepeatParams& p, int dts, double cpr, F f) {
    enter(api, loc);
    check_dtype<T>(api, loc, dts);
    use_local(api, loc, "src", a, l0_extent<T>(m, repeatTime, p.srcBlkStride, p.srcRepStride), false, 32, false);
    use_local(api, loc, "dst", dst, l0_extent<T>(m, repeatTime, p.dstBlkStride, p.dstRepStride), true);
    l0_check_read(api, loc, "src", a, m, repeatTime, p.srcBlkStride, p.srcRepStride);
    uint32_t reps = l0_repeats<T>(m, repeatTime);
    vec_schedule(static_cast<uint64_t>(reps) * 256, cpr, a.buf_, -1, dst.buf_, reps * (256 / sizeof(T)));
    if (S().cfg.cost_only) return;
    std::vector<std::pair<uint64_t, T>> out;
    l0_for_each<T>(m, repeatTime, [&](uint32_t r, uint32_t j) {
        T x = a.ptr()[l0_index<T>(r, j, p.srcBlkStride, p.srcRepStride)];
        out.emplace_back(l0_index<T>(r, j, p.dstBlkStride, p.dstRepStride), static_cast<T>(f(x)));
    });
    for (auto& kv : out) {
        dst.ptr()[kv.first] = kv.second;
        mark_written(dst.sp_, static_cast<uint32_t>(dst.addr_ + kv.first * sizeof(T)), sizeof(T));
    }
}

template <typename T> inline float fv(T v) { return static_cast<float>(v); }

// The shared body of the level-2 ops that read dst as a third operand: dst = f(src0, src1, dst)
// (FusedMulAdd, MulAddDst). dst is read, so it must hold data already.
template <typename T, typename U, typename F>
inline void vmuladd(const char* api, const Loc& loc, const AscendC::LocalTensor<T>& dst,
                    const AscendC::LocalTensor<U>& src0, const AscendC::LocalTensor<U>& src1, int32_t count, F f) {
    enter(api, loc);
    check_dtype<T>(api, loc, DT_FLOAT);
    check_count(api, loc, count);
    level2_epilogue();
    if (count == 0) return;
    use_local(api, loc, "src0", src0, count, false);
    use_local(api, loc, "src1", src1, count, false);
    use_local(api, loc, "dst", dst, count, false);
    vec_schedule(static_cast<uint64_t>(count) * sizeof(T), 1, src0.buf_, src1.buf_, dst.buf_, count);
    if (S().cfg.cost_only) return;
    for (int32_t i = 0; i < count; ++i)
        dst.ptr()[i] = static_cast<T>(f(fv(src0.ptr()[i]), fv(src1.ptr()[i]), fv(dst.ptr()[i])));
}

}  // namespace asc_sim

namespace AscendC {

#define ASC_SIM_BINARY(NAME, DTS, CPR, EXPR)                                                                          \
    template <typename T>                                                                                             \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,               \
                     const int32_t& count, ASC_LOC_PARAM) {                                                           \
        asc_sim::vbin(#NAME, asc_loc_, dst, src0, src1, count, DTS, CPR, [](T a, T b) { return EXPR; });              \
    }                                                                                                                 \
    template <typename T, bool isSetMask = true>                                                                      \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,               \
                     uint64_t mask, const uint8_t repeatTime, const BinaryRepeatParams& p, ASC_LOC_PARAM) {           \
        asc_sim::vbin_l0(#NAME, asc_loc_, dst, src0, src1, asc_sim::l0_mask<T>(isSetMask, nullptr, mask, true),       \
                         repeatTime, p, DTS, CPR, [](T a, T b) { return EXPR; });                                     \
    }                                                                                                                 \
    template <typename T, bool isSetMask = true>                                                                      \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,               \
                     const uint64_t mask[], const uint8_t repeatTime, const BinaryRepeatParams& p, ASC_LOC_PARAM) {   \
        asc_sim::vbin_l0(#NAME, asc_loc_, dst, src0, src1, asc_sim::l0_mask<T>(isSetMask, mask, 0, false),            \
                         repeatTime, p, DTS, CPR, [](T a, T b) { return EXPR; });                                     \
    }

ASC_SIM_BINARY(Add, asc_sim::DT_ARITH, 1, asc_sim::fv(a) + asc_sim::fv(b))
ASC_SIM_BINARY(Sub, asc_sim::DT_ARITH, 1, asc_sim::fv(a) - asc_sim::fv(b))
ASC_SIM_BINARY(Mul, asc_sim::DT_ARITH, 1, asc_sim::fv(a) * asc_sim::fv(b))
ASC_SIM_BINARY(Div, asc_sim::DT_FLOAT, asc_sim::S().cfg.transcendental_cpr, asc_sim::fv(a) / asc_sim::fv(b))
ASC_SIM_BINARY(Max, asc_sim::DT_ARITH, 1, (a > b ? a : b))
ASC_SIM_BINARY(Min, asc_sim::DT_ARITH, 1, (a < b ? a : b))
ASC_SIM_BINARY(And, asc_sim::DT_BITS, 1, (a & b))
ASC_SIM_BINARY(Or, asc_sim::DT_BITS, 1, (a | b))
ASC_SIM_BINARY(AddRelu, asc_sim::DT_FLOAT | asc_sim::DT_I16, 1, std::max(asc_sim::fv(a) + asc_sim::fv(b), 0.0f))
ASC_SIM_BINARY(SubRelu, asc_sim::DT_FLOAT | asc_sim::DT_I16, 1, std::max(asc_sim::fv(a) - asc_sim::fv(b), 0.0f))

// Integer add/sub/mul must not go through float (int32 would lose precision).
template <> inline void Add<int32_t>(const LocalTensor<int32_t>& dst, const LocalTensor<int32_t>& src0,
                                     const LocalTensor<int32_t>& src1, const int32_t& count, asc_sim::Loc asc_loc_) {
    asc_sim::vbin("Add", asc_loc_, dst, src0, src1, count, asc_sim::DT_ARITH, 1,
                  [](int32_t a, int32_t b) { return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b)); });
}
template <> inline void Sub<int32_t>(const LocalTensor<int32_t>& dst, const LocalTensor<int32_t>& src0,
                                     const LocalTensor<int32_t>& src1, const int32_t& count, asc_sim::Loc asc_loc_) {
    asc_sim::vbin("Sub", asc_loc_, dst, src0, src1, count, asc_sim::DT_ARITH, 1,
                  [](int32_t a, int32_t b) { return static_cast<int32_t>(static_cast<uint32_t>(a) - static_cast<uint32_t>(b)); });
}
template <> inline void Mul<int32_t>(const LocalTensor<int32_t>& dst, const LocalTensor<int32_t>& src0,
                                     const LocalTensor<int32_t>& src1, const int32_t& count, asc_sim::Loc asc_loc_) {
    asc_sim::vbin("Mul", asc_loc_, dst, src0, src1, count, asc_sim::DT_ARITH, 1,
                  [](int32_t a, int32_t b) { return static_cast<int32_t>(static_cast<uint32_t>(a) * static_cast<uint32_t>(b)); });
}

// dst = src0 * dst + src1
template <typename T>
inline void FusedMulAdd(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                        const int32_t& count, ASC_LOC_PARAM) {
    asc_sim::vmuladd("FusedMulAdd", asc_loc_, dst, src0, src1, count,
                     [](auto a, auto b, auto d) { return a * d + b; });
}
// dst += src0 * src1
template <typename T, typename U>
inline void MulAddDst(const LocalTensor<T>& dst, const LocalTensor<U>& src0, const LocalTensor<U>& src1,
                      const int32_t& count, ASC_LOC_PARAM) {
    asc_sim::vmuladd("MulAddDst", asc_loc_, dst, src0, src1, count,
                     [](auto a, auto b, auto d) { return d + a * b; });
}

#define ASC_SIM_UNARY(NAME, DTS, CPR, EXPR)                                                                           \
    template <typename T>                                                                                             \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t& count, ASC_LOC_PARAM) {     \
        asc_sim::vun(#NAME, asc_loc_, dst, src, count, DTS, CPR, [](T a) { return EXPR; });                           \
    }                                                                                                                 \
    template <typename T, bool isSetMask = true>                                                                      \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint64_t mask, const uint8_t repeatTime,   \
                     const UnaryRepeatParams& p, ASC_LOC_PARAM) {                                                     \
        asc_sim::vun_l0(#NAME, asc_loc_, dst, src, asc_sim::l0_mask<T>(isSetMask, nullptr, mask, true), repeatTime,   \
                        p, DTS, CPR, [](T a) { return EXPR; });                                                       \
    }                                                                                                                 \
    template <typename T, bool isSetMask = true>                                                                      \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask[],                     \
                     const uint8_t repeatTime, const UnaryRepeatParams& p, ASC_LOC_PARAM) {                           \
        asc_sim::vun_l0(#NAME, asc_loc_, dst, src, asc_sim::l0_mask<T>(isSetMask, mask, 0, false), repeatTime, p,     \
                        DTS, CPR, [](T a) { return EXPR; });                                                          \
    }

ASC_SIM_UNARY(Exp, asc_sim::DT_FLOAT, asc_sim::S().cfg.transcendental_cpr, std::exp(asc_sim::fv(a)))
ASC_SIM_UNARY(Ln, asc_sim::DT_FLOAT, asc_sim::S().cfg.transcendental_cpr, std::log(asc_sim::fv(a)))
ASC_SIM_UNARY(Abs, asc_sim::DT_FLOAT, 1, std::fabs(asc_sim::fv(a)))
ASC_SIM_UNARY(Sqrt, asc_sim::DT_FLOAT, asc_sim::S().cfg.transcendental_cpr, std::sqrt(asc_sim::fv(a)))
ASC_SIM_UNARY(Rsqrt, asc_sim::DT_FLOAT, asc_sim::S().cfg.transcendental_cpr, 1.0f / std::sqrt(asc_sim::fv(a)))
ASC_SIM_UNARY(Reciprocal, asc_sim::DT_FLOAT, asc_sim::S().cfg.transcendental_cpr, 1.0f / asc_sim::fv(a))
ASC_SIM_UNARY(Relu, asc_sim::DT_FLOAT | asc_sim::DT_I32, 1, (a > T(0) ? a : T(0)))
ASC_SIM_UNARY(Not, asc_sim::DT_BITS, 1, static_cast<T>(~a))

#define ASC_SIM_SCALAR(NAME, DTS, EXPR)                                                                               \
    template <typename T>                                                                                             \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& scalarValue, const int32_t& count,\
                     ASC_LOC_PARAM) {                                                                                 \
        const T s = scalarValue;                                                                                      \
        asc_sim::vun(#NAME, asc_loc_, dst, src, count, DTS, 1, [s](T a) { return EXPR; });                            \
    }                                                                                                                 \
    template <typename T, bool isSetMask = true>                                                                      \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& scalarValue, uint64_t mask,       \
                     const uint8_t repeatTime, const UnaryRepeatParams& p, ASC_LOC_PARAM) {                           \
        const T s = scalarValue;                                                                                      \
        asc_sim::vun_l0(#NAME, asc_loc_, dst, src, asc_sim::l0_mask<T>(isSetMask, nullptr, mask, true), repeatTime,   \
                        p, DTS, 1, [s](T a) { return EXPR; });                                                        \
    }                                                                                                                 \
    template <typename T, bool isSetMask = true>                                                                      \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& scalarValue,                      \
                     const uint64_t mask[], const uint8_t repeatTime, const UnaryRepeatParams& p, ASC_LOC_PARAM) {    \
        const T s = scalarValue;                                                                                      \
        asc_sim::vun_l0(#NAME, asc_loc_, dst, src, asc_sim::l0_mask<T>(isSetMask, mask, 0, false), repeatTime, p,     \
                        DTS, 1, [s](T a) { return EXPR; });                                                           \
    }

ASC_SIM_SCALAR(Adds, asc_sim::DT_ARITH, asc_sim::fv(a) + asc_sim::fv(s))
ASC_SIM_SCALAR(Muls, asc_sim::DT_ARITH, asc_sim::fv(a) * asc_sim::fv(s))
ASC_SIM_SCALAR(Maxs, asc_sim::DT_ARITH, (a > s ? a : s))
ASC_SIM_SCALAR(Mins, asc_sim::DT_ARITH, (a < s ? a : s))
ASC_SIM_SCALAR(LeakyRelu, asc_sim::DT_FLOAT, (asc_sim::fv(a) >= 0.0f ? asc_sim::fv(a) : asc_sim::fv(a) * asc_sim::fv(s)))
ASC_SIM_SCALAR(ShiftLeft, asc_sim::DT_I16 | asc_sim::DT_U16 | asc_sim::DT_I32 | asc_sim::DT_U32, (a << s))
ASC_SIM_SCALAR(ShiftRight, asc_sim::DT_I16 | asc_sim::DT_U16 | asc_sim::DT_I32 | asc_sim::DT_U32, (a >> s))

// Integer Adds/Muls (int16_t/int32_t are documented types: Adds.md, Muls.md) compute in integer
// lanes, wrapping; they must not go through float either (int32 beyond 2^24 would lose precision),
// as Add/Sub/Mul above.
template <> inline void Adds<int32_t>(const LocalTensor<int32_t>& dst, const LocalTensor<int32_t>& src,
                                      const int32_t& scalarValue, const int32_t& count, asc_sim::Loc asc_loc_) {
    const uint32_t s = static_cast<uint32_t>(scalarValue);
    asc_sim::vun("Adds", asc_loc_, dst, src, count, asc_sim::DT_ARITH, 1,
                 [s](int32_t a) { return static_cast<int32_t>(static_cast<uint32_t>(a) + s); });
}
template <> inline void Muls<int32_t>(const LocalTensor<int32_t>& dst, const LocalTensor<int32_t>& src,
                                      const int32_t& scalarValue, const int32_t& count, asc_sim::Loc asc_loc_) {
    const uint32_t s = static_cast<uint32_t>(scalarValue);
    asc_sim::vun("Muls", asc_loc_, dst, src, count, asc_sim::DT_ARITH, 1,
                 [s](int32_t a) { return static_cast<int32_t>(static_cast<uint32_t>(a) * s); });
}

// ---- Duplicate
template <typename T>
inline void Duplicate(const LocalTensor<T>& dst, const T& scalarValue, const int32_t& count, ASC_LOC_PARAM) {
    const char* api = "Duplicate";
    asc_sim::enter(api, asc_loc_);
    asc_sim::check_dtype<T>(api, asc_loc_, asc_sim::DT_B16B32);
    asc_sim::check_count(api, asc_loc_, count);
    asc_sim::level2_epilogue();
    if (count == 0) return;
    asc_sim::use_local(api, asc_loc_, "dst", dst, count, true);
    asc_sim::vec_schedule(count * sizeof(T), 1, -1, -1, dst.buf_, count);
    if (asc_sim::S().cfg.cost_only) return;
    std::fill(dst.ptr(), dst.ptr() + count, scalarValue);
    asc_sim::wrote(dst, count);
}
template <typename T, bool isSetMask = true>
inline void Duplicate(const LocalTensor<T>& dst, const T& scalarValue, uint64_t mask, const uint8_t repeatTime,
                      const uint16_t dstBlockStride, const uint8_t dstRepeatStride, ASC_LOC_PARAM) {
    UnaryRepeatParams p(dstBlockStride, dstBlockStride, dstRepeatStride, dstRepeatStride);
    const char* api = "Duplicate";
    asc_sim::enter(api, asc_loc_);
    asc_sim::check_dtype<T>(api, asc_loc_, asc_sim::DT_B16B32);
    asc_sim::L0Mask m = asc_sim::l0_mask<T>(isSetMask, nullptr, mask, true);
    asc_sim::use_local(api, asc_loc_, "dst", dst, asc_sim::l0_extent<T>(m, repeatTime, dstBlockStride, dstRepeatStride), true);
    uint32_t reps = asc_sim::l0_repeats<T>(m, repeatTime);
    asc_sim::vec_schedule(reps * 256ull, 1, -1, -1, dst.buf_, reps * (256 / sizeof(T)));
    if (asc_sim::S().cfg.cost_only) return;
    asc_sim::l0_for_each<T>(m, repeatTime, [&](uint32_t r, uint32_t j) {
        uint64_t i = asc_sim::l0_index<T>(r, j, dstBlockStride, dstRepeatStride);
        dst.ptr()[i] = scalarValue;
        asc_sim::mark_written(dst.sp_, static_cast<uint32_t>(dst.addr_ + i * sizeof(T)), sizeof(T));
    });
}

// ---- Axpy: dst = scalar * src + dst
template <typename T, typename U>
inline void Axpy(const LocalTensor<T>& dst, const LocalTensor<U>& src, const U& scalarValue, const int32_t& count,
                 ASC_LOC_PARAM) {
    const char* api = "Axpy";
    asc_sim::enter(api, asc_loc_);
    asc_sim::check_dtype<T>(api, asc_loc_, asc_sim::DT_FLOAT);
    asc_sim::check_dtype<U>(api, asc_loc_, asc_sim::DT_FLOAT);
    asc_sim::check_count(api, asc_loc_, count);
    asc_sim::level2_epilogue();
    if (count == 0) return;
    asc_sim::use_local(api, asc_loc_, "src", src, count, false);
    asc_sim::use_local(api, asc_loc_, "dst", dst, count, false);
    asc_sim::vec_schedule(count * sizeof(T), 1, src.buf_, dst.buf_, dst.buf_, count);
    if (asc_sim::S().cfg.cost_only) return;
    float s = asc_sim::fv(scalarValue);
    for (int32_t i = 0; i < count; ++i) dst.ptr()[i] = static_cast<T>(s * asc_sim::fv(src.ptr()[i]) + asc_sim::fv(dst.ptr()[i]));
}

// ---- CreateVecIndex: dst[i] = first + i
template <typename T>
inline void CreateVecIndex(LocalTensor<T> dst, const T& firstValue, uint32_t count, ASC_LOC_PARAM) {
    const char* api = "CreateVecIndex";
    asc_sim::enter(api, asc_loc_);
    asc_sim::check_dtype<T>(api, asc_loc_, asc_sim::DT_F16 | asc_sim::DT_F32 | asc_sim::DT_I16 | asc_sim::DT_I32);
    asc_sim::level2_epilogue();
    if (count == 0) return;
    asc_sim::use_local(api, asc_loc_, "dst", dst, count, true);
    asc_sim::vec_schedule(count * sizeof(T), 1, -1, -1, dst.buf_, count);
    if (asc_sim::S().cfg.cost_only) return;
    for (uint32_t i = 0; i < count; ++i) dst.ptr()[i] = static_cast<T>(asc_sim::fv(firstValue) + static_cast<float>(i));
    asc_sim::wrote(dst, count);
}

}  // namespace AscendC

// ---------------------------------------------------------------- Cast
namespace asc_sim {

inline double round_mode(double x, AscendC::RoundMode m) {
    using R = AscendC::RoundMode;
    switch (m) {
        case R::CAST_FLOOR: return std::floor(x);
        case R::CAST_CEIL: return std::ceil(x);
        case R::CAST_TRUNC: return std::trunc(x);
        case R::CAST_ROUND: return std::round(x);  // half away from zero
        default: return std::nearbyint(x);         // RINT: half to even
    }
}
inline uint16_t fp16_step(uint16_t bits, bool up) {
    bool neg = (bits & 0x8000u) != 0;
    if ((bits & 0x7fffu) == 0) return up ? 0x0001u : 0x8001u;
    return static_cast<uint16_t>((neg != up) ? bits + 1 : bits - 1);
}
// Round a float to a 16-bit float (half or bf16) with a given mode.
template <typename H> inline H to_f16_mode(float x, AscendC::RoundMode m) {
    using R = AscendC::RoundMode;
    H r = H(x);  // RNE
    float fr = static_cast<float>(r);
    if (m == R::CAST_RINT || m == R::CAST_NONE || fr == x || std::isnan(x) || std::isinf(fr)) return r;
    H lo = r, hi = r;
    if (fr > x) lo = H::from_bits(fp16_step(r.bits, false));
    else hi = H::from_bits(fp16_step(r.bits, true));
    switch (m) {
        case R::CAST_FLOOR: return lo;
        case R::CAST_CEIL: return hi;
        case R::CAST_TRUNC: return x > 0 ? lo : hi;
        case R::CAST_ODD: return (lo.bits & 1u) ? lo : hi;
        case R::CAST_ROUND: {
            float dl = x - static_cast<float>(lo), dh = static_cast<float>(hi) - x;
            if (dl == dh) return x > 0 ? hi : lo;
            return dl < dh ? lo : hi;
        }
        default: return r;
    }
}
template <typename T, typename U> inline T cast_one(U v, AscendC::RoundMode m) {
    if constexpr (std::is_same<T, half>::value || std::is_same<T, bfloat16_t>::value) {
        if constexpr (std::is_integral<U>::value) return T(static_cast<float>(v));
        else return to_f16_mode<T>(static_cast<float>(v), m);
    } else if constexpr (std::is_same<T, float>::value) {
        if constexpr (std::is_same<U, float>::value) return static_cast<float>(round_mode(v, m));
        else return static_cast<float>(static_cast<double>(fv(v)));
    } else {  // integer destination: round, then saturate
        double x = static_cast<double>(fv(v));
        if (std::isnan(x)) return T(0);
        x = round_mode(x, m);
        double lo = static_cast<double>(std::numeric_limits<T>::min()), hi = static_cast<double>(std::numeric_limits<T>::max());
        return static_cast<T>(std::min(std::max(x, lo), hi));
    }
}
template <typename T, typename U> inline int cast_rule(AscendC::RoundMode m) {
    // 1 = allowed, 0 = mode not allowed for a known pair, -1 = pair not in the table
    using R = AscendC::RoundMode;
    bool five = m == R::CAST_RINT || m == R::CAST_FLOOR || m == R::CAST_CEIL || m == R::CAST_ROUND || m == R::CAST_TRUNC;
    bool none = m == R::CAST_NONE;
    if (std::is_same<U, half>::value && std::is_same<T, float>::value) return none;
    if (std::is_same<U, float>::value && std::is_same<T, half>::value) return five || none || m == R::CAST_ODD;
    if (std::is_same<U, float>::value && std::is_same<T, int32_t>::value) return five;
    if (std::is_same<U, int32_t>::value && std::is_same<T, float>::value) return five || none;
    if (std::is_same<U, half>::value && (std::is_same<T, int32_t>::value || std::is_same<T, int16_t>::value)) return five;
    if (std::is_same<U, half>::value && (std::is_same<T, int8_t>::value || std::is_same<T, uint8_t>::value)) return five || none;
    if ((std::is_same<U, int8_t>::value || std::is_same<U, uint8_t>::value) && std::is_same<T, half>::value) return none;
    if (std::is_same<U, float>::value && std::is_same<T, bfloat16_t>::value) return five;
    if (std::is_same<U, bfloat16_t>::value && std::is_same<T, float>::value) return none;
    if (std::is_same<U, float>::value && std::is_same<T, float>::value) return five;
    // 64-bit integers (asc-devkit impl/basic_api/dav_c220/kernel_operator_vec_vconv_impl.h: vconv_s322s64 and
    // vconv_s642s32 take CAST_NONE only; int64 <-> float take the five rounding modes)
    if ((std::is_same<U, int32_t>::value && std::is_same<T, int64_t>::value) ||
        (std::is_same<U, int64_t>::value && std::is_same<T, int32_t>::value)) return none;
    if ((std::is_same<U, int64_t>::value && std::is_same<T, float>::value) ||
        (std::is_same<U, float>::value && std::is_same<T, int64_t>::value)) return five;
    return -1;
}
inline const char* round_name(AscendC::RoundMode m) {
    static const char* n[] = {"CAST_NONE", "CAST_RINT", "CAST_FLOOR", "CAST_CEIL", "CAST_ROUND", "CAST_TRUNC", "CAST_ODD"};
    int i = static_cast<int>(m);
    return (i >= 0 && i < 7) ? n[i] : "?";
}

}  // namespace asc_sim

namespace AscendC {

template <typename T, typename U>
inline void Cast(const LocalTensor<T>& dst, const LocalTensor<U>& src, const RoundMode& roundMode, const uint32_t count,
                 ASC_LOC_PARAM) {
    const char* api = "Cast";
    asc_sim::enter(api, asc_loc_);
    asc_sim::level2_epilogue();
    int rule = asc_sim::cast_rule<T, U>(roundMode);
    if ((asc_sim::is_bf16<T>::value || asc_sim::is_bf16<U>::value) && !asc_sim::S().cfg.bf16)
        asc_sim::fail("dtype", api, asc_loc_, asc_sim::fmt("Cast: %s has no bfloat16 support", asc_sim::S().cfg.chip.c_str()));
    if (rule == 0)
        asc_sim::fail("cast-mode", api, asc_loc_,
                      asc_sim::fmt("Cast %s -> %s does not support %s on Atlas A2", asc_sim::type_name<U>(),
                                   asc_sim::type_name<T>(), asc_sim::round_name(roundMode)));
    if (rule < 0)
        asc_sim::warn("cast-mode", api, asc_loc_,
                      asc_sim::fmt("Cast %s -> %s is not in the simulator's table of documented A2 conversions",
                                   asc_sim::type_name<U>(), asc_sim::type_name<T>()));
    if (count == 0) return;
    asc_sim::use_local(api, asc_loc_, "src", src, count, false);
    asc_sim::use_local(api, asc_loc_, "dst", dst, count, true);
    asc_sim::vec_schedule(static_cast<uint64_t>(count) * std::max(sizeof(T), sizeof(U)), 1, src.buf_, -1, dst.buf_, count);
    if (asc_sim::S().cfg.cost_only) return;
    if (static_cast<const void*>(dst.ptr()) == static_cast<const void*>(src.ptr()) || sizeof(T) <= sizeof(U)) {
        std::vector<T> tmp(count);
        for (uint32_t i = 0; i < count; ++i) tmp[i] = asc_sim::cast_one<T, U>(src.ptr()[i], roundMode);
        std::memcpy(static_cast<void*>(dst.ptr()), tmp.data(), count * sizeof(T));
    } else {
        for (uint32_t i = 0; i < count; ++i) dst.ptr()[i] = asc_sim::cast_one<T, U>(src.ptr()[i], roundMode);
    }
    asc_sim::wrote(dst, count);
}

// ---- Compare / CompareScalar: one bit per element in dst (uint8_t bitmask)
template <typename T> inline bool asc_cmp(T a, T b, CMPMODE m) {
    float x = asc_sim::fv(a), y = asc_sim::fv(b);
    switch (m) {
        case CMPMODE::LT: return x < y;
        case CMPMODE::GT: return x > y;
        case CMPMODE::EQ: return x == y;
        case CMPMODE::LE: return x <= y;
        case CMPMODE::GE: return x >= y;
        default: return x != y;
    }
}
template <typename T, typename U, typename G>
inline void asc_compare_impl(const char* api, const asc_sim::Loc& loc, const LocalTensor<U>& dst, const LocalTensor<T>& src0,
                             const LocalTensor<T>* src1, CMPMODE cmpMode, uint32_t count, G get1) {
    asc_sim::enter(api, loc);
    asc_sim::level2_epilogue();
    int dts = asc_sim::DT_FLOAT | (cmpMode == CMPMODE::EQ ? asc_sim::DT_I32 : 0);
    asc_sim::check_dtype<T>(api, loc, dts);
    uint64_t bytes = static_cast<uint64_t>(count) * sizeof(T);
    if (bytes % 256 != 0) {
        asc_sim::strict_or_warn("compare-256", api, loc,
                                asc_sim::fmt("%s(count=%u): count*sizeof(%s) = %llu bytes is not a multiple of 256; the "
                                             "hardware does not compute the remainder", api, count,
                                             asc_sim::type_name<T>(), static_cast<unsigned long long>(bytes)));
        count = static_cast<uint32_t>(bytes / 256 * 256 / sizeof(T));
    }
    if (count == 0) return;
    uint64_t mask_bytes = (count + 7) / 8;
    asc_sim::use_local(api, loc, "src0", src0, count, false);
    if (src1) asc_sim::use_local(api, loc, "src1", *src1, count, false);
    asc_sim::use_local(api, loc, "dst", dst, (mask_bytes + sizeof(U) - 1) / sizeof(U), true);
    asc_sim::vec_schedule(bytes, 1, src0.buf_, src1 ? src1->buf_ : -1, dst.buf_, count);
    if (asc_sim::S().cfg.cost_only) return;
    uint8_t* out = reinterpret_cast<uint8_t*>(dst.ptr());
    std::memset(out, 0, mask_bytes);
    for (uint32_t i = 0; i < count; ++i)
        if (asc_cmp<T>(src0.ptr()[i], get1(i), cmpMode)) out[i / 8] |= static_cast<uint8_t>(1u << (i % 8));
    asc_sim::mark_written(dst.sp_, dst.addr_, mask_bytes);
}
template <typename T, typename U>
inline void Compare(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, CMPMODE cmpMode,
                    uint32_t count, ASC_LOC_PARAM) {
    asc_compare_impl("Compare", asc_loc_, dst, src0, &src1, cmpMode, count, [&](uint32_t i) { return src1.ptr()[i]; });
}
template <typename T, typename U>
inline void CompareScalar(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const T src1Scalar, CMPMODE cmpMode,
                          uint32_t count, ASC_LOC_PARAM) {
    asc_compare_impl("CompareScalar", asc_loc_, dst, src0, static_cast<const LocalTensor<T>*>(nullptr), cmpMode, count,
                     [&](uint32_t) { return src1Scalar; });
}
template <typename T, typename U>
inline void Compares(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const T src1Scalar, CMPMODE cmpMode,
                     uint32_t count, ASC_LOC_PARAM) {
    asc_compare_impl("Compares", asc_loc_, dst, src0, static_cast<const LocalTensor<T>*>(nullptr), cmpMode, count,
                     [&](uint32_t) { return src1Scalar; });
}

// ---- Select: bit i of selMask = 1 -> src0[i], else src1[i] (or the scalar)
template <typename T, typename U, typename G>
inline void asc_select_impl(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
                            const LocalTensor<T>* src1, SELMODE selMode, uint32_t count, const asc_sim::Loc& loc, G get1) {
    const char* api = "Select";
    asc_sim::enter(api, loc);
    asc_sim::level2_epilogue();
    asc_sim::check_dtype<T>(api, loc, asc_sim::DT_FLOAT);
    if (count == 0) return;
    const uint32_t epr = 256 / sizeof(T);
    uint64_t mask_bits = selMode == SELMODE::VSEL_CMPMASK_SPR ? std::min<uint64_t>(epr, count) : count;
    asc_sim::use_local(api, loc, "selMask", selMask, ((mask_bits + 7) / 8 + sizeof(U) - 1) / sizeof(U), false);
    asc_sim::use_local(api, loc, "src0", src0, count, false);
    if (src1) asc_sim::use_local(api, loc, "src1", *src1, count, false);
    asc_sim::use_local(api, loc, "dst", dst, count, true);
    asc_sim::vec_schedule(count * sizeof(T), 1, src0.buf_, selMask.buf_, dst.buf_, count);
    if (asc_sim::S().cfg.cost_only) return;
    const uint8_t* m = reinterpret_cast<const uint8_t*>(selMask.ptr());
    std::vector<T> tmp(count);
    for (uint32_t i = 0; i < count; ++i) {
        uint32_t bit = selMode == SELMODE::VSEL_CMPMASK_SPR ? i % epr : i;
        bool take0 = (m[bit / 8] >> (bit % 8)) & 1u;
        tmp[i] = take0 ? src0.ptr()[i] : get1(i);
    }
    std::memcpy(static_cast<void*>(dst.ptr()), tmp.data(), count * sizeof(T));
    asc_sim::wrote(dst, count);
}
template <typename T, typename U>
inline void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
                   const LocalTensor<T>& src1, SELMODE selMode, uint32_t count, ASC_LOC_PARAM) {
    asc_select_impl(dst, selMask, src0, &src1, selMode, count, asc_loc_, [&](uint32_t i) { return src1.ptr()[i]; });
}
template <typename T, typename U>
inline void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0, T src1,
                   SELMODE selMode, uint32_t count, ASC_LOC_PARAM) {
    asc_select_impl(dst, selMask, src0, static_cast<const LocalTensor<T>*>(nullptr), selMode, count, asc_loc_,
                    [&](uint32_t) { return src1; });
}

// ---- ReduceSum / ReduceMax / ReduceMin (count form, with the shared work buffer)
template <typename T>
inline void asc_reduce_impl(const char* api, const asc_sim::Loc& loc, const LocalTensor<T>& dst, const LocalTensor<T>& src,
                            const LocalTensor<T>& tmp, int32_t count, int kind, bool calIndex) {
    asc_sim::enter(api, loc);
    asc_sim::level2_epilogue();
    asc_sim::check_dtype<T>(api, loc, asc_sim::DT_FLOAT);
    const int64_t epr = 256 / sizeof(T), epb = 32 / sizeof(T);
    if (count < 1 || static_cast<uint64_t>(count) > asc_sim::S().cfg.ub_bytes / sizeof(T))
        asc_sim::fail("param-range", api, loc, asc_sim::fmt("%s: count=%d outside [1, UB size / sizeof(T)]", api, count));
    int64_t first_rep = (count + epr - 1) / epr;
    int64_t need = (first_rep + epb - 1) / epb * epb;
    asc_sim::use_local(api, loc, "src", src, count, false);
    asc_sim::use_local(api, loc, "dst", dst, calIndex ? 2 : 1, true, sizeof(T));
    if (tmp.GetSize() < static_cast<uint64_t>(need))
        asc_sim::fail("reduce-workspace", api, loc,
                      asc_sim::fmt("%s(count=%d): sharedTmpBuffer holds %u elements but needs at least %lld "
                                   "(ceil(ceil(count/%lld)/%lld)*%lld)", api, count, tmp.GetSize(),
                                   static_cast<long long>(need), static_cast<long long>(epr),
                                   static_cast<long long>(epb), static_cast<long long>(epb)));
    asc_sim::use_local(api, loc, "sharedTmpBuffer", tmp, need, true);
    // first pass over all repeats, then log-steps over the partials
    double cyc = asc_sim::vec_cycles(count * sizeof(T), 1);
    int64_t parts = first_rep;
    while (parts > 1) {
        cyc += asc_sim::vec_cycles(parts * sizeof(T), 1);
        parts = (parts + epr - 1) / epr;
    }
    asc_sim::Deps d;
    d.rd[0] = src.buf_;
    d.wr[0] = dst.buf_;
    d.wr[1] = tmp.buf_;
    asc_sim::schedule(asc_sim::Pipe::V, cyc, d);
    asc_sim::S().stats.vec_elems += count;
    if (asc_sim::S().cfg.cost_only) return;
    const T* x = src.ptr();
    float result = 0;
    int64_t idx = 0;
    if (kind == 0) {  // per-repeat binary tree, then sum of partials
        std::vector<float> part;
        for (int64_t r = 0; r < first_rep; ++r) {
            int64_t n = std::min<int64_t>(epr, count - r * epr);
            std::vector<float> v(static_cast<size_t>(n));
            for (int64_t i = 0; i < n; ++i) v[i] = asc_sim::fv(x[r * epr + i]);
            while (v.size() > 1) {
                std::vector<float> w((v.size() + 1) / 2);
                for (size_t i = 0; i < w.size(); ++i) w[i] = v[2 * i] + (2 * i + 1 < v.size() ? v[2 * i + 1] : 0.0f);
                v.swap(w);
            }
            part.push_back(static_cast<float>(T(v[0])));
        }
        for (float p : part) result += p;
    } else {
        result = asc_sim::fv(x[0]);
        for (int32_t i = 1; i < count; ++i) {
            float v = asc_sim::fv(x[i]);
            if ((kind == 1 && v > result) || (kind == 2 && v < result)) {
                result = v;
                idx = i;
            }
        }
    }
    dst.ptr()[0] = static_cast<T>(result);
    if (calIndex) {
        if (sizeof(T) == 4) {
            uint32_t bits = static_cast<uint32_t>(idx);
            std::memcpy(&dst.ptr()[1], &bits, 4);
        } else {
            uint16_t bits = static_cast<uint16_t>(idx);
            std::memcpy(&dst.ptr()[1], &bits, 2);
        }
    }
    asc_sim::wrote(dst, calIndex ? 2 : 1);
    asc_sim::mark_written(tmp.sp_, tmp.addr_, need * sizeof(T));
}
template <typename T, bool isSetMask = true>
inline void ReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& sharedTmpBuffer,
                      const int32_t count, ASC_LOC_PARAM) {
    asc_reduce_impl("ReduceSum", asc_loc_, dst, src, sharedTmpBuffer, count, 0, false);
}
template <typename T>
inline void ReduceMax(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& sharedTmpBuffer,
                      const int32_t count, bool calIndex = 0, ASC_LOC_PARAM) {
    asc_reduce_impl("ReduceMax", asc_loc_, dst, src, sharedTmpBuffer, count, 1, calIndex);
}
template <typename T>
inline void ReduceMin(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& sharedTmpBuffer,
                      const int32_t count, bool calIndex = 0, ASC_LOC_PARAM) {
    asc_reduce_impl("ReduceMin", asc_loc_, dst, src, sharedTmpBuffer, count, 2, calIndex);
}

// ---- WholeReduce*: one result per repeat (CANN 8.x names)
template <typename T>
inline void asc_whole_reduce(const char* api, const asc_sim::Loc& loc, const LocalTensor<T>& dst, const LocalTensor<T>& src,
                             const asc_sim::L0Mask& m, int32_t repeatTime, int32_t dstRepStride, int32_t srcBlkStride,
                             int32_t srcRepStride, int kind, ReduceOrder order) {
    asc_sim::enter(api, loc);
    asc_sim::check_dtype<T>(api, loc, asc_sim::DT_FLOAT);
    if (repeatTime < 0 || repeatTime > 255)
        asc_sim::fail("param-range", api, loc, asc_sim::fmt("%s: repeatTime=%d outside [0, 255]", api, repeatTime));
    uint32_t reps = asc_sim::l0_repeats<T>(m, static_cast<uint32_t>(repeatTime));
    if (reps == 0) return;
    const int outLen = (kind == 0 || order == ReduceOrder::ORDER_ONLY_VALUE || order == ReduceOrder::ORDER_ONLY_INDEX) ? 1 : 2;
    uint64_t dst_ext = static_cast<uint64_t>(reps - 1) * dstRepStride * outLen + outLen;
    asc_sim::use_local(api, loc, "src", src, asc_sim::l0_extent<T>(m, repeatTime, srcBlkStride, srcRepStride), false, 32, false);
    asc_sim::use_local(api, loc, "dst", dst, dst_ext, true, sizeof(T));
    asc_sim::l0_check_read(api, loc, "src", src, m, repeatTime, srcBlkStride, srcRepStride);
    asc_sim::vec_schedule(reps * 256ull, 1, src.buf_, -1, dst.buf_, reps * (256 / sizeof(T)));
    if (asc_sim::S().cfg.cost_only) return;
    std::vector<float> acc(reps, 0.0f);
    std::vector<int64_t> idx(reps, -1);
    asc_sim::l0_for_each<T>(m, repeatTime, [&](uint32_t r, uint32_t j) {
        float v = asc_sim::fv(src.ptr()[asc_sim::l0_index<T>(r, j, srcBlkStride, srcRepStride)]);
        if (kind == 0) acc[r] += v;
        else if (idx[r] < 0 || (kind == 1 && v > acc[r]) || (kind == 2 && v < acc[r])) {
            acc[r] = v;
            idx[r] = j;
        }
    });
    for (uint32_t r = 0; r < reps; ++r) {
        uint64_t o = static_cast<uint64_t>(r) * dstRepStride * outLen;
        T val = static_cast<T>(acc[r]);
        T ib;
        if (sizeof(T) == 4) { uint32_t b = static_cast<uint32_t>(std::max<int64_t>(idx[r], 0)); std::memcpy(&ib, &b, 4); }
        else { uint16_t b = static_cast<uint16_t>(std::max<int64_t>(idx[r], 0)); std::memcpy(&ib, &b, 2); }
        if (outLen == 1) dst.ptr()[o] = (order == ReduceOrder::ORDER_ONLY_INDEX && kind != 0) ? ib : val;
        else if (order == ReduceOrder::ORDER_INDEX_VALUE) { dst.ptr()[o] = ib; dst.ptr()[o + 1] = val; }
        else { dst.ptr()[o] = val; dst.ptr()[o + 1] = ib; }
        asc_sim::mark_written(dst.sp_, static_cast<uint32_t>(dst.addr_ + o * sizeof(T)), outLen * sizeof(T));
    }
}
#define ASC_SIM_WHOLE(NAME, KIND, EXTRA_PARAM, EXTRA_ARG)                                                             \
    template <typename T, bool isSetMask = true>                                                                      \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t mask, const int32_t repeatTime,\
                     const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride EXTRA_PARAM,  \
                     ASC_LOC_PARAM) {                                                                                 \
        asc_whole_reduce(#NAME, asc_loc_, dst, src,                                                                   \
                         asc_sim::l0_mask<T>(isSetMask, nullptr, static_cast<uint64_t>(mask), true), repeatTime,      \
                         dstRepStride, srcBlkStride, srcRepStride, KIND, EXTRA_ARG);                                  \
    }                                                                                                                 \
    template <typename T, bool isSetMask = true>                                                                      \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask[],                     \
                     const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,                \
                     const int32_t srcRepStride EXTRA_PARAM, ASC_LOC_PARAM) {                                         \
        asc_whole_reduce(#NAME, asc_loc_, dst, src, asc_sim::l0_mask<T>(isSetMask, mask, 0, false), repeatTime,       \
                         dstRepStride, srcBlkStride, srcRepStride, KIND, EXTRA_ARG);                                  \
    }
#define ASC_SIM_COMMA ,
ASC_SIM_WHOLE(WholeReduceSum, 0, , ReduceOrder::ORDER_ONLY_VALUE)
ASC_SIM_WHOLE(WholeReduceMax, 1, ASC_SIM_COMMA ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX, order)
ASC_SIM_WHOLE(WholeReduceMin, 2, ASC_SIM_COMMA ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX, order)

// ---- BlockReduce*: one result per 32-byte block, 8 per repeat
template <typename T>
inline void asc_block_reduce(const char* api, const asc_sim::Loc& loc, const LocalTensor<T>& dst, const LocalTensor<T>& src,
                             int32_t repeatTime, const asc_sim::L0Mask& m, int32_t dstRepStride, int32_t srcBlkStride,
                             int32_t srcRepStride, int kind) {
    asc_sim::enter(api, loc);
    asc_sim::check_dtype<T>(api, loc, asc_sim::DT_FLOAT);
    uint32_t reps = asc_sim::l0_repeats<T>(m, static_cast<uint32_t>(repeatTime));
    if (reps == 0) return;
    const uint32_t epb = 32 / sizeof(T);
    asc_sim::use_local(api, loc, "src", src, asc_sim::l0_extent<T>(m, repeatTime, srcBlkStride, srcRepStride), false, 32, false);
    asc_sim::use_local(api, loc, "dst", dst, static_cast<uint64_t>(reps - 1) * dstRepStride * 8 + 8, true, sizeof(T));
    asc_sim::l0_check_read(api, loc, "src", src, m, repeatTime, srcBlkStride, srcRepStride);
    asc_sim::vec_schedule(reps * 256ull, 1, src.buf_, -1, dst.buf_, reps * (256 / sizeof(T)));
    if (asc_sim::S().cfg.cost_only) return;
    std::vector<float> acc(reps * 8, 0.0f);
    std::vector<char> has(reps * 8, 0);
    asc_sim::l0_for_each<T>(m, repeatTime, [&](uint32_t r, uint32_t j) {
        float v = asc_sim::fv(src.ptr()[asc_sim::l0_index<T>(r, j, srcBlkStride, srcRepStride)]);
        size_t k = r * 8 + j / epb;
        if (!has[k]) { acc[k] = v; has[k] = 1; }
        else if (kind == 0) acc[k] += v;
        else if ((kind == 1 && v > acc[k]) || (kind == 2 && v < acc[k])) acc[k] = v;
    });
    for (uint32_t r = 0; r < reps; ++r)
        for (uint32_t b = 0; b < 8; ++b)
            if (has[r * 8 + b]) {
                uint64_t o = static_cast<uint64_t>(r) * dstRepStride * 8 + b;
                dst.ptr()[o] = static_cast<T>(acc[r * 8 + b]);
                asc_sim::mark_written(dst.sp_, static_cast<uint32_t>(dst.addr_ + o * sizeof(T)), sizeof(T));
            }
}
#define ASC_SIM_BLOCK(NAME, KIND)                                                                                     \
    template <typename T, bool isSetMask = true>                                                                      \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTime, const int32_t mask,\
                     const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride, ASC_LOC_PARAM) {\
        asc_block_reduce(#NAME, asc_loc_, dst, src, repeatTime,                                                       \
                         asc_sim::l0_mask<T>(isSetMask, nullptr, static_cast<uint64_t>(mask), true), dstRepStride,    \
                         srcBlkStride, srcRepStride, KIND);                                                           \
    }                                                                                                                 \
    template <typename T, bool isSetMask = true>                                                                      \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTime,                  \
                     const uint64_t mask[], const int32_t dstRepStride, const int32_t srcBlkStride,                   \
                     const int32_t srcRepStride, ASC_LOC_PARAM) {                                                     \
        asc_block_reduce(#NAME, asc_loc_, dst, src, repeatTime, asc_sim::l0_mask<T>(isSetMask, mask, 0, false),       \
                         dstRepStride, srcBlkStride, srcRepStride, KIND);                                             \
    }
ASC_SIM_BLOCK(BlockReduceSum, 0)
ASC_SIM_BLOCK(BlockReduceMax, 1)
ASC_SIM_BLOCK(BlockReduceMin, 2)

// ---- Brcb: each of 8 source elements per repeat fills one 32-byte block
template <typename T>
inline void Brcb(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint8_t repeatTime, const BrcbRepeatParams& p,
                 ASC_LOC_PARAM) {
    const char* api = "Brcb";
    asc_sim::enter(api, asc_loc_);
    asc_sim::check_dtype<T>(api, asc_loc_, asc_sim::DT_B16B32);
    if (repeatTime == 0) return;
    const uint32_t epb = 32 / sizeof(T);
    uint64_t dst_ext = (static_cast<uint64_t>(repeatTime - 1) * p.dstRepStride + 7ull * p.dstBlkStride) * epb + epb;
    asc_sim::use_local(api, asc_loc_, "src", src, repeatTime * 8ull, false);
    asc_sim::use_local(api, asc_loc_, "dst", dst, dst_ext, true);
    asc_sim::vec_schedule(repeatTime * 256ull, 1, src.buf_, -1, dst.buf_, repeatTime * 8ull * epb);
    if (asc_sim::S().cfg.cost_only) return;
    for (uint32_t r = 0; r < repeatTime; ++r)
        for (uint32_t b = 0; b < 8; ++b) {
            uint64_t o = (static_cast<uint64_t>(r) * p.dstRepStride + static_cast<uint64_t>(b) * p.dstBlkStride) * epb;
            T v = src.ptr()[r * 8 + b];
            for (uint32_t k = 0; k < epb; ++k) dst.ptr()[o + k] = v;
            asc_sim::mark_written(dst.sp_, static_cast<uint32_t>(dst.addr_ + o * sizeof(T)), 32);
        }
}

// ---- Gather: dst[i] = src[(srcBaseOffset + srcOffset[i]) / sizeof(T)], offsets in bytes
template <typename T>
inline void Gather(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint32_t>& srcOffset,
                   const uint32_t srcBaseOffset, const uint32_t count, ASC_LOC_PARAM) {
    const char* api = "Gather";
    asc_sim::enter(api, asc_loc_);
    asc_sim::check_dtype<T>(api, asc_loc_, asc_sim::DT_B16B32);
    asc_sim::level2_epilogue();
    if (count == 0) return;
    asc_sim::use_local(api, asc_loc_, "srcOffset", srcOffset, count, false);
    // the offsets are data: the whole source counts as read (its elements are checked one by one)
    asc_sim::use_local(api, asc_loc_, "src", src, src.GetSize(), false, 32, false);
    asc_sim::use_local(api, asc_loc_, "dst", dst, count, true);
    asc_sim::vec_schedule(count * sizeof(T), 1, src.buf_, srcOffset.buf_, dst.buf_, count);
    if (asc_sim::S().cfg.cost_only) return;
    std::vector<T> tmp(count);
    for (uint32_t i = 0; i < count; ++i) {
        uint64_t byte = static_cast<uint64_t>(srcBaseOffset) + srcOffset.ptr()[i];
        if (byte % sizeof(T) != 0 || byte / sizeof(T) >= src.GetSize())
            asc_sim::fail("gather-range", api, asc_loc_,
                          asc_sim::fmt("Gather: element %u reads byte offset %llu, outside the %u-element src tensor "
                                       "or not a multiple of sizeof(%s) (offsets are in bytes)", i,
                                       static_cast<unsigned long long>(byte), src.GetSize(), asc_sim::type_name<T>()));
        asc_sim::check_written(api, asc_loc_, "src", src.sp_, static_cast<uint32_t>(src.addr_ + byte), sizeof(T), sizeof(T));
        tmp[i] = src.ptr()[byte / sizeof(T)];
    }
    std::memcpy(static_cast<void*>(dst.ptr()), tmp.data(), count * sizeof(T));
    asc_sim::wrote(dst, count);
}

}  // namespace AscendC
