// ascendcraft AscendC CPU simulator: vector compute, elementwise (level-2 count APIs, level-0
// mask/repeat APIs, Duplicate, Axpy, CreateVecIndex) and the mask-mode state. Casts, compare
// and select are in cast.h; reductions, Brcb and Gather in reduce.h.
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
std::string dt_list(int dts);
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
void vec_schedule(uint64_t bytes, double cpr, int r0, int r1, int w0, uint64_t elems);

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
    wrote_lanes(dst, count, a, b);
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
    wrote_lanes(dst, count, a);
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
// A level-0 op's results, written one repeat at a time: a repeat reads its operands, then writes, and
// the next repeat sees those writes (CANN's reductions add every repeat into one block with dst and
// src1 repeat strides of 0: each repeat must read the sum so far).
template <typename T> struct L0Repeats {
    const AscendC::LocalTensor<T>& dst;
    std::vector<std::tuple<uint64_t, T, bool>> pending;   // dst lane, value, computed from garbage
    uint32_t repeat = 0;
    explicit L0Repeats(const AscendC::LocalTensor<T>& d) : dst(d) {}
    // before repeat r reads its operands: the writes of the repeat before land
    void begin(uint32_t r) {
        if (r != repeat) flush();
        repeat = r;
    }
    void lane(uint64_t i, T value, bool garbage) { pending.emplace_back(i, value, garbage); }
    void flush() {
        for (auto& [i, v, bad] : pending) {
            dst.ptr()[i] = v;
            mark_holds(dst.sp_, static_cast<uint32_t>(dst.addr_ + i * sizeof(T)), sizeof(T), !bad);
        }
        pending.clear();
    }
};
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
    L0Repeats<T> out(dst);
    l0_for_each<T>(m, repeatTime, [&](uint32_t r, uint32_t j) {
        out.begin(r);
        const uint64_t ia = l0_index<T>(r, j, p.src0BlkStride, p.src0RepStride);
        const uint64_t ib = l0_index<T>(r, j, p.src1BlkStride, p.src1RepStride);
        out.lane(l0_index<T>(r, j, p.dstBlkStride, p.dstRepStride), static_cast<T>(f(a.ptr()[ia], b.ptr()[ib])),
                 lane_garbage(a, ia) || lane_garbage(b, ib));
    });
    out.flush();
}
// P: UnaryRepeatParams, or CopyRepeatParams (same field names, wider repeat strides)
template <typename T, typename F, typename P>
inline void vun_l0(const char* api, const Loc& loc, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& a,
                   const L0Mask& m, uint8_t repeatTime, const P& p, int dts, double cpr, F f) {
    enter(api, loc);
    check_dtype<T>(api, loc, dts);
    use_local(api, loc, "src", a, l0_extent<T>(m, repeatTime, p.srcBlkStride, p.srcRepStride), false, 32, false);
    use_local(api, loc, "dst", dst, l0_extent<T>(m, repeatTime, p.dstBlkStride, p.dstRepStride), true);
    l0_check_read(api, loc, "src", a, m, repeatTime, p.srcBlkStride, p.srcRepStride);
    uint32_t reps = l0_repeats<T>(m, repeatTime);
    vec_schedule(static_cast<uint64_t>(reps) * 256, cpr, a.buf_, -1, dst.buf_, reps * (256 / sizeof(T)));
    if (S().cfg.cost_only) return;
    L0Repeats<T> out(dst);
    l0_for_each<T>(m, repeatTime, [&](uint32_t r, uint32_t j) {
        out.begin(r);
        const uint64_t ia = l0_index<T>(r, j, p.srcBlkStride, p.srcRepStride);
        out.lane(l0_index<T>(r, j, p.dstBlkStride, p.dstRepStride), static_cast<T>(f(a.ptr()[ia])), lane_garbage(a, ia));
    });
    out.flush();
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

// ---- function-pointer forms
// Kernels pass API functions as non-type template arguments, e.g. `Op<half, Div>` with
// `template <typename T, void (*op)(const LocalTensor<T>&, ..., const int32_t&)>`. Our functions take a
// trailing defaulted Loc, so their types differ from AscendC's. Each such API therefore also has a
// generic overload with exactly AscendC's parameters (tensor operands as `const D&`), constrained to
// LocalTensor operands of one element type: a direct call still resolves to the located overload
// (partial ordering prefers LocalTensor<T> over D, so call-site lines are kept), while only the generic
// one matches the pointer type. It forwards with the location of the last API call (the call through
// a pointer has no call-site line of its own). T is optional, so both `Div` and `Sin<half, false>` bind.
template <typename D> struct local_elem {
    using type = void;
    static constexpr bool ok = false;
};
template <typename E> struct local_elem<AscendC::LocalTensor<E>> {
    using type = E;
    static constexpr bool ok = true;
};
template <typename T, typename D, typename... R> constexpr bool same_locals() {
    return local_elem<D>::ok && (std::is_void<T>::value || std::is_same<T, typename local_elem<D>::type>::value) &&
           (std::is_same<D, R>::value && ...);
}
template <typename D> using local_elem_t = typename local_elem<D>::type;
inline Loc pointer_call_loc() { return S().cur_loc; }
#define ASC_SIM_PTR_OPERANDS(...) std::enable_if_t<::asc_sim::same_locals<__VA_ARGS__>(), int> = 0

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
    }                                                                                                                 \
    /* function-pointer forms (see asc_sim::same_locals): include/basic_api/kernel_operator_vec_binary_intf.h */     \
    template <typename T = void, typename D, typename S0, typename S1, ASC_SIM_PTR_OPERANDS(T, D, S0, S1)>            \
    inline void NAME(const D& dst, const S0& src0, const S1& src1, const int32_t& count) {                            \
        NAME(dst, src0, src1, count, asc_sim::pointer_call_loc());                                                    \
    }                                                                                                                 \
    template <typename T = void, bool isSetMask = true, typename D, typename S0, typename S1,                         \
              ASC_SIM_PTR_OPERANDS(T, D, S0, S1)>                                                                     \
    inline void NAME(const D& dst, const S0& src0, const S1& src1, uint64_t mask, const uint8_t repeatTime,          \
                     const BinaryRepeatParams& p) {                                                                   \
        NAME<asc_sim::local_elem_t<D>, isSetMask>(dst, src0, src1, mask, repeatTime, p, asc_sim::pointer_call_loc()); \
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
    }                                                                                                                 \
    /* function-pointer form: include/basic_api/kernel_operator_vec_unary_intf.h */                                 \
    template <typename T = void, typename D, typename S, ASC_SIM_PTR_OPERANDS(T, D, S)>                              \
    inline void NAME(const D& dst, const S& src, const int32_t& count) {                                              \
        NAME(dst, src, count, asc_sim::pointer_call_loc());                                                           \
    }

ASC_SIM_UNARY(Exp, asc_sim::DT_FLOAT, asc_sim::S().cfg.transcendental_cpr, std::exp(asc_sim::fv(a)))
ASC_SIM_UNARY(Ln, asc_sim::DT_FLOAT, asc_sim::S().cfg.transcendental_cpr, std::log(asc_sim::fv(a)))
ASC_SIM_UNARY(Abs, asc_sim::DT_FLOAT, 1, std::fabs(asc_sim::fv(a)))
ASC_SIM_UNARY(Sqrt, asc_sim::DT_FLOAT, asc_sim::S().cfg.transcendental_cpr, std::sqrt(asc_sim::fv(a)))
ASC_SIM_UNARY(Rsqrt, asc_sim::DT_FLOAT, asc_sim::S().cfg.transcendental_cpr, 1.0f / std::sqrt(asc_sim::fv(a)))
ASC_SIM_UNARY(Reciprocal, asc_sim::DT_FLOAT, asc_sim::S().cfg.transcendental_cpr, 1.0f / asc_sim::fv(a))
ASC_SIM_UNARY(Relu, asc_sim::DT_FLOAT | asc_sim::DT_I32, 1, (a > T(0) ? a : T(0)))
ASC_SIM_UNARY(Not, asc_sim::DT_BITS, 1, static_cast<T>(~a))

}  // namespace AscendC
namespace asc_sim {
// A shift by the type's width or more shifts every bit out: 0, or the sign for an arithmetic right
// shift. The API documents shifts within the width only; C++ leaves the rest undefined (x86 takes the
// count modulo the width), so the simulator fixes the one result that does not depend on the host:
// NPUKernelBench's AbsMath answer takes an int32's sign as `x >> 32`.
template <typename T> inline T shift_left(T a, T s) {
    using U = typename std::make_unsigned<T>::type;
    return static_cast<uint64_t>(s) >= sizeof(T) * 8 ? T(0) : static_cast<T>(static_cast<U>(a) << s);
}
template <typename T> inline T shift_right(T a, T s) {
    if (static_cast<uint64_t>(s) >= sizeof(T) * 8) return (std::is_signed<T>::value && a < 0) ? T(-1) : T(0);
    return static_cast<T>(a >> s);
}
}  // namespace asc_sim
namespace AscendC {
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
    }                                                                                                                 \
    /* function-pointer form: include/basic_api/kernel_operator_vec_binary_scalar_intf.h; the scalar must have the   \
       tensors' element type, as in the located form (a mixed call stays an error) */                                \
    template <typename T = void, typename D, typename S, typename U,                                                  \
              std::enable_if_t<asc_sim::same_locals<T, D, S>() && std::is_same<U, asc_sim::local_elem_t<D>>::value, \
                               int> = 0>                                                                              \
    inline void NAME(const D& dst, const S& src, const U& scalarValue, const int32_t& count) {                        \
        NAME(dst, src, scalarValue, count, asc_sim::pointer_call_loc());                                              \
    }

ASC_SIM_SCALAR(Adds, asc_sim::DT_ARITH, asc_sim::fv(a) + asc_sim::fv(s))
ASC_SIM_SCALAR(Muls, asc_sim::DT_ARITH, asc_sim::fv(a) * asc_sim::fv(s))
ASC_SIM_SCALAR(Maxs, asc_sim::DT_ARITH, (a > s ? a : s))
ASC_SIM_SCALAR(Mins, asc_sim::DT_ARITH, (a < s ? a : s))
ASC_SIM_SCALAR(LeakyRelu, asc_sim::DT_FLOAT, (asc_sim::fv(a) >= 0.0f ? asc_sim::fv(a) : asc_sim::fv(a) * asc_sim::fv(s)))
ASC_SIM_SCALAR(ShiftLeft, asc_sim::DT_I16 | asc_sim::DT_U16 | asc_sim::DT_I32 | asc_sim::DT_U32, asc_sim::shift_left(a, s))
ASC_SIM_SCALAR(ShiftRight, asc_sim::DT_I16 | asc_sim::DT_U16 | asc_sim::DT_I32 | asc_sim::DT_U32, asc_sim::shift_right(a, s))

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
template <typename T>
inline void asc_duplicate_l0(const asc_sim::Loc& loc, const LocalTensor<T>& dst, const T& scalarValue,
                             const asc_sim::L0Mask& m, const uint8_t repeatTime, const uint16_t dstBlockStride,
                             const uint8_t dstRepeatStride) {
    const char* api = "Duplicate";
    asc_sim::enter(api, loc);
    asc_sim::check_dtype<T>(api, loc, asc_sim::DT_B16B32);
    asc_sim::use_local(api, loc, "dst", dst, asc_sim::l0_extent<T>(m, repeatTime, dstBlockStride, dstRepeatStride), true);
    uint32_t reps = asc_sim::l0_repeats<T>(m, repeatTime);
    asc_sim::vec_schedule(reps * 256ull, 1, -1, -1, dst.buf_, reps * (256 / sizeof(T)));
    if (asc_sim::S().cfg.cost_only) return;
    asc_sim::l0_for_each<T>(m, repeatTime, [&](uint32_t r, uint32_t j) {
        uint64_t i = asc_sim::l0_index<T>(r, j, dstBlockStride, dstRepeatStride);
        dst.ptr()[i] = scalarValue;
        asc_sim::mark_written(dst.sp_, static_cast<uint32_t>(dst.addr_ + i * sizeof(T)), sizeof(T));
    });
}
template <typename T, bool isSetMask = true>
inline void Duplicate(const LocalTensor<T>& dst, const T& scalarValue, uint64_t mask, const uint8_t repeatTime,
                      const uint16_t dstBlockStride, const uint8_t dstRepeatStride, ASC_LOC_PARAM) {
    asc_duplicate_l0(asc_loc_, dst, scalarValue, asc_sim::l0_mask<T>(isSetMask, nullptr, mask, true), repeatTime,
                     dstBlockStride, dstRepeatStride);
}
template <typename T, bool isSetMask = true>
inline void Duplicate(const LocalTensor<T>& dst, const T& scalarValue, uint64_t mask[], const uint8_t repeatTime,
                      const uint16_t dstBlockStride, const uint8_t dstRepeatStride, ASC_LOC_PARAM) {
    asc_duplicate_l0(asc_loc_, dst, scalarValue, asc_sim::l0_mask<T>(isSetMask, mask, 0, false), repeatTime,
                     dstBlockStride, dstRepeatStride);
}

// ---- Copy (level 0, UB -> UB under a mask): include/basic_api/kernel_operator_data_copy_intf.h; the
// parameter struct is include/basic_api/kernel_struct_data_copy.h (strides in 32-byte blocks; the
// default block stride is DEFAULT_DATA_COPY_STRIDE = 0 there). B16/B32 types on Atlas A2.
struct CopyRepeatParams {
    uint16_t dstStride = 0, srcStride = 0;
    uint16_t dstRepeatSize = 8, srcRepeatSize = 8;
    CopyRepeatParams() = default;
    CopyRepeatParams(const uint16_t dstStrideIn, const uint16_t srcStrideIn, uint16_t dstRepeatSizeIn,
                     uint16_t srcRepeatSizeIn)
        : dstStride(dstStrideIn), srcStride(srcStrideIn), dstRepeatSize(dstRepeatSizeIn), srcRepeatSize(srcRepeatSizeIn) {}
};
}  // namespace AscendC
namespace asc_sim {
// CopyRepeatParams read with vun_l0's field names
struct CopyStrides {
    uint32_t dstBlkStride, srcBlkStride, dstRepStride, srcRepStride;
    explicit CopyStrides(const AscendC::CopyRepeatParams& c)
        : dstBlkStride(c.dstStride), srcBlkStride(c.srcStride), dstRepStride(c.dstRepeatSize), srcRepStride(c.srcRepeatSize) {}
};
}  // namespace asc_sim
namespace AscendC {
template <typename T, bool isSetMask = true>
inline void Copy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask, const uint8_t repeatTime,
                 const CopyRepeatParams& repeatParams, ASC_LOC_PARAM) {
    asc_sim::vun_l0("Copy", asc_loc_, dst, src, asc_sim::l0_mask<T>(isSetMask, nullptr, mask, true), repeatTime,
                    asc_sim::CopyStrides(repeatParams), asc_sim::DT_B16B32, 1, [](T a) { return a; });
}
template <typename T, bool isSetMask = true>
inline void Copy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask[], const uint8_t repeatTime,
                 const CopyRepeatParams& repeatParams, ASC_LOC_PARAM) {
    asc_sim::vun_l0("Copy", asc_loc_, dst, src, asc_sim::l0_mask<T>(isSetMask, mask, 0, false), repeatTime,
                    asc_sim::CopyStrides(repeatParams), asc_sim::DT_B16B32, 1, [](T a) { return a; });
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
