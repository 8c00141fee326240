// ascendcraft AscendC CPU simulator: Cast (with the round modes), Compare/CompareScalar and Select.
#pragma once
#include "vec.h"

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
        // int32 -> half is a dequantising conversion: times the DEQSCALE register (SetDeqScale), round
        // mode ignored (dav_c220 kernel_operator_vec_vconv_impl.h: vconv_deq)
        if constexpr (std::is_same<T, half>::value && std::is_same<U, int32_t>::value)
            return T(static_cast<float>(v) * S().deq_scale);
        else if constexpr (std::is_integral<U>::value) return T(static_cast<float>(v));
        else return to_f16_mode<T>(static_cast<float>(v), m);
    } else if constexpr (std::is_same<T, float>::value) {
        if constexpr (std::is_same<U, float>::value) return static_cast<float>(round_mode(v, m));
        else return static_cast<float>(static_cast<double>(fv(v)));
    } else if constexpr (std::is_integral<U>::value) {  // integer to integer: exact, saturated
        using W = typename std::conditional<std::is_signed<U>::value, long long, unsigned long long>::type;
        W x = static_cast<W>(v);
        if (static_cast<long double>(x) < static_cast<long double>(std::numeric_limits<T>::min())) return std::numeric_limits<T>::min();
        if (static_cast<long double>(x) > static_cast<long double>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
        return static_cast<T>(x);
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
    if (std::is_same<U, int32_t>::value && std::is_same<T, half>::value) return 1;   // vconv_deq: mode ignored
    if (std::is_same<U, float>::value && std::is_same<T, half>::value) return five || none || m == R::CAST_ODD;
    if (std::is_same<U, float>::value && std::is_same<T, int32_t>::value) return five;
    if (std::is_same<U, int32_t>::value && std::is_same<T, float>::value) return five || none;
    if (std::is_same<U, half>::value && (std::is_same<T, int32_t>::value || std::is_same<T, int16_t>::value)) return five;
    if (std::is_same<U, half>::value && (std::is_same<T, int8_t>::value || std::is_same<T, uint8_t>::value)) return five || none;
    if ((std::is_same<U, int8_t>::value || std::is_same<U, uint8_t>::value) && std::is_same<T, half>::value) return none;
    if (std::is_same<U, float>::value && std::is_same<T, bfloat16_t>::value) return five;
    if (std::is_same<U, bfloat16_t>::value && std::is_same<T, float>::value) return none;
    if (std::is_same<U, float>::value && std::is_same<T, float>::value) return five;
    // int16 -> half/float, int32 <-> int64, float <-> int64: dav_c220 kernel_operator_vec_vconv_impl.h
    // (CheckCastDatatype; int32 <-> int64 CAST_NONE only, float <-> int64 not CAST_NONE or CAST_ODD)
    if (std::is_same<U, int16_t>::value && (std::is_same<T, half>::value || std::is_same<T, float>::value)) return none;
    if ((std::is_same<U, int32_t>::value && std::is_same<T, int64_t>::value) ||
        (std::is_same<U, int64_t>::value && std::is_same<T, int32_t>::value)) return none;
    if ((std::is_same<U, float>::value && std::is_same<T, int64_t>::value) ||
        (std::is_same<U, int64_t>::value && std::is_same<T, float>::value)) return five;
    return -1;
}
inline const char* round_name(AscendC::RoundMode m) {
    static const char* n[] = {"CAST_NONE", "CAST_RINT", "CAST_FLOOR", "CAST_CEIL", "CAST_ROUND", "CAST_TRUNC", "CAST_ODD"};
    int i = static_cast<int>(m);
    return (i >= 0 && i < 7) ? n[i] : "?";
}

}  // namespace asc_sim

namespace AscendC {

// Scalar bf16 <-> float (asc-devkit impl/basic_api/kernel_scalar_convert.h: ToFloat / ToBfloat16, the
// A2 overloads; round to nearest even). Scalar-unit arithmetic: it costs the calling API's issue.
inline float ToFloat(const bfloat16_t& bVal) { return static_cast<float>(bVal); }
// The DEQSCALE register an int32 -> half Cast multiplies by (SetDeqScale.md, the half form).
inline void SetDeqScale(half scale) { asc_sim::S().deq_scale = static_cast<float>(scale); }
inline bfloat16_t ToBfloat16(const float& fVal) { return bfloat16_t(fVal); }

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
    asc_sim::wrote_lanes(dst, count, src);
}

// ---- Compare / CompareScalar: one bit per element in dst (uint8_t bitmask)
template <typename C> inline bool asc_cmp_as(C x, C y, CMPMODE m) {
    switch (m) {
        case CMPMODE::LT: return x < y;
        case CMPMODE::GT: return x > y;
        case CMPMODE::EQ: return x == y;
        case CMPMODE::LE: return x <= y;
        case CMPMODE::GE: return x >= y;
        default: return x != y;
    }
}
// integers (int32, EQ) compare as integers: through float, values above 2**24 would collide
template <typename T> inline bool asc_cmp(T a, T b, CMPMODE m) {
    if constexpr (std::is_integral<T>::value) return asc_cmp_as<T>(a, b, m);
    else return asc_cmp_as<float>(asc_sim::fv(a), asc_sim::fv(b), m);
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
    // a mask byte is garbage when one of its eight lanes compared garbage
    std::vector<uint8_t> bad;
    if (asc_sim::S().op_read_garbage) {
        bad.assign(mask_bytes, 0);
        for (uint32_t i = 0; i < count; ++i)
            bad[i / 8] |= asc_sim::lane_garbage(src0, i) || (src1 && asc_sim::lane_garbage(*src1, i));
    }
    asc_sim::mark_lanes(dst.template ReinterpretCast<uint8_t>(), mask_bytes, bad);
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
    std::vector<uint8_t> bad;   // first, as dst may be a source
    if (asc_sim::S().op_read_garbage) {
        bad.assign(count, 0);
        for (uint32_t i = 0; i < count; ++i) {
            uint32_t bit = selMode == SELMODE::VSEL_CMPMASK_SPR ? i % epr : i;
            bad[i] = asc_sim::first_unwritten(selMask.sp_, static_cast<uint32_t>(selMask.addr_ + bit / 8), 1) >= 0 ||
                     asc_sim::lane_garbage(src0, i) || (src1 && asc_sim::lane_garbage(*src1, i));
        }
    }
    std::memcpy(static_cast<void*>(dst.ptr()), tmp.data(), count * sizeof(T));
    asc_sim::mark_lanes(dst, count, bad);
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

}  // namespace AscendC
