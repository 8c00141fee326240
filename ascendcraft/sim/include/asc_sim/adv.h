// ascendcraft AscendC CPU simulator: a few element-wise high-level APIs (activations, logs, the
// lib/math functions: trigonometric, hyperbolic, erf, Sign, Power).
// Each is computed in fp32 and costed as a handful of vector passes; the optional
// sharedTmpBuffer overloads check that the buffer is a valid UB tensor and otherwise ignore it.
#pragma once
#include "vec.h"

namespace asc_sim {
// dst[i] = f(i) for i < count, with src0 / src1 (may be null) read over the same count
template <typename T, typename F>
inline void adv_map(const char* api, const Loc& loc, int dts, const AscendC::LocalTensor<T>& dst,
                    const AscendC::LocalTensor<T>* src0, const AscendC::LocalTensor<T>* src1, uint32_t count,
                    double passes, F f) {
    enter(api, loc);
    check_dtype<T>(api, loc, dts);
    level2_epilogue();
    if (count == 0) return;
    if (src0) use_local(api, loc, src1 ? "src0" : "src", *src0, count, false);
    if (src1) use_local(api, loc, src0 ? "src1" : "src", *src1, count, false);
    use_local(api, loc, "dst", dst, count, true);
    Deps d;
    d.rd[0] = src0 ? src0->buf_ : -1;
    d.rd[1] = src1 ? src1->buf_ : -1;
    d.wr[0] = dst.buf_;
    schedule(Pipe::V, passes * vec_cycles(static_cast<uint64_t>(count) * sizeof(T), S().cfg.transcendental_cpr), d);
    S().stats.vec_elems += count;
    if (S().cfg.cost_only) return;
    for (uint32_t i = 0; i < count; ++i) dst.ptr()[i] = f(i);
    if (src0 && src1) wrote_lanes(dst, count, *src0, *src1);
    else if (src0 || src1) wrote_lanes(dst, count, src0 ? *src0 : *src1);
    else wrote(dst, count);
}
template <typename T, typename F>
inline void adv_unary(const char* api, const Loc& loc, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src,
                      uint32_t count, double passes, F f) {
    adv_map(api, loc, DT_FLOAT, dst, &src, static_cast<const AscendC::LocalTensor<T>*>(nullptr), count, passes,
            [&](uint32_t i) { return static_cast<T>(f(fv(src.ptr()[i]))); });
}
inline float sigmoid_f(float x) { return 1.0f / (1.0f + std::exp(-x)); }
// Sign as the asc-devkit implementation computes it (impl/adv_api/detail/math/sign/sign_common_impl.h):
// two compares with 0, so NaN gives 0
inline float sign_f(float x) { return x > 0.0f ? 1.0f : (x < 0.0f ? -1.0f : 0.0f); }
// int32 Power (impl/adv_api/detail/math/power/power_int_impl.h): square-and-multiply in wrapping int32;
// a negative exponent gives trunc(1 / base^|e|), and 0 where base^|e| is 0
inline int32_t pow_i32(int32_t b, int32_t e) {
    uint32_t r = 1, x = static_cast<uint32_t>(b);
    for (uint32_t n = e < 0 ? 0u - static_cast<uint32_t>(e) : static_cast<uint32_t>(e); n; n >>= 1, x *= x)
        if (n & 1u) r *= x;
    if (e >= 0) return static_cast<int32_t>(r);
    const int32_t p = static_cast<int32_t>(r);
    return p == 0 ? 0 : static_cast<int32_t>(1.0f / static_cast<float>(p));
}
constexpr int DT_POWER = DT_F16 | DT_F32 | DT_I32;
constexpr double POWER_PASSES = 10;  // an estimate, as the pass counts below
template <typename T> inline T pow_elem(T b, T e) {
    if constexpr (std::is_same<T, int32_t>::value) return pow_i32(b, e);
    else return static_cast<T>(std::pow(fv(b), fv(e)));
}
}  // namespace asc_sim

namespace AscendC {

// The four forms of include/adv_api/math/sin.h (and cos.h, tan.h, ..., log.h, activation/sigmoid.h):
// with or without sharedTmpBuffer, with calCount or over srcTensor.GetSize(); and the function-pointer
// form of `void (*)(const LocalTensor<T>&, const LocalTensor<T>&, const uint32_t)` (asc_sim::same_locals).
#define ASC_SIM_ADV(NAME, PASSES, EXPR)                                                                               \
    template <typename T, bool isReuseSource = false>                                                                 \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t calCount, ASC_LOC_PARAM) {  \
        asc_sim::adv_unary(#NAME, asc_loc_, dst, src, calCount, PASSES, [](float x) { return EXPR; });                \
    }                                                                                                                 \
    template <typename T, bool isReuseSource = false>                                                                 \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>& sharedTmpBuffer,\
                     const uint32_t calCount, ASC_LOC_PARAM) {                                                        \
        asc_sim::use_local(#NAME, asc_loc_, "sharedTmpBuffer", sharedTmpBuffer, 0, true);                             \
        asc_sim::adv_unary(#NAME, asc_loc_, dst, src, calCount, PASSES, [](float x) { return EXPR; });                \
    }                                                                                                                 \
    template <typename T, bool isReuseSource = false>                                                                 \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, ASC_LOC_PARAM) {                           \
        NAME<T, isReuseSource>(dst, src, src.GetSize(), asc_loc_);                                                    \
    }                                                                                                                 \
    template <typename T, bool isReuseSource = false>                                                                 \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>& sharedTmpBuffer,\
                     ASC_LOC_PARAM) {                                                                                 \
        NAME<T, isReuseSource>(dst, src, sharedTmpBuffer, src.GetSize(), asc_loc_);                                   \
    }                                                                                                                 \
    template <typename T = void, bool isReuseSource = false, typename D, typename S,                                  \
              ASC_SIM_PTR_OPERANDS(T, D, S)>                                                                          \
    inline void NAME(const D& dst, const S& src, const uint32_t calCount) {                                           \
        NAME<asc_sim::local_elem_t<D>, isReuseSource>(dst, src, calCount, asc_sim::pointer_call_loc());              \
    }

ASC_SIM_ADV(Sigmoid, 4, asc_sim::sigmoid_f(x))
ASC_SIM_ADV(Tanh, 5, std::tanh(x))
ASC_SIM_ADV(Silu, 5, x * asc_sim::sigmoid_f(x))
ASC_SIM_ADV(Log, 1, std::log(x))
ASC_SIM_ADV(Log2, 2, std::log2(x))
ASC_SIM_ADV(Log10, 2, std::log10(x))
// include/adv_api/math/{sin,cos,tan,asin,acos,atan,sinh,cosh,erf,erfc,sign}.h: half and float on
// Atlas A2. The pass counts are estimates of the vector instructions of their polynomial / range-
// reduction implementations (impl/adv_api/detail/math/*), not measurements.
ASC_SIM_ADV(Sin, 12, std::sin(x))
ASC_SIM_ADV(Cos, 12, std::cos(x))
ASC_SIM_ADV(Tan, 16, std::tan(x))
ASC_SIM_ADV(Asin, 14, std::asin(x))
ASC_SIM_ADV(Acos, 15, std::acos(x))
ASC_SIM_ADV(Atan, 14, std::atan(x))
ASC_SIM_ADV(Sinh, 6, std::sinh(x))
ASC_SIM_ADV(Cosh, 6, std::cosh(x))
ASC_SIM_ADV(Erf, 12, std::erf(x))
ASC_SIM_ADV(Erfc, 16, std::erfc(x))
ASC_SIM_ADV(Sign, 6, asc_sim::sign_f(x))

// ---- Power (include/adv_api/math/power.h): tensor ^ tensor, tensor ^ scalar, scalar ^ tensor; each with
// or without sharedTmpBuffer and calCount (without: over the tensor operand's GetSize()). half, float
// and int32_t on Atlas A2 (impl/adv_api/detail/math/power/power_common_impl.h).
template <typename T, bool isReuseSource = false>
inline void Power(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, uint32_t calCount,
                  ASC_LOC_PARAM) {
    asc_sim::adv_map("Power", asc_loc_, asc_sim::DT_POWER, dst, &src0, &src1, calCount, asc_sim::POWER_PASSES,
                     [&](uint32_t i) { return asc_sim::pow_elem<T>(src0.ptr()[i], src1.ptr()[i]); });
}
template <typename T, bool isReuseSource = false>
inline void Power(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const T& src1Scalar, uint32_t calCount,
                  ASC_LOC_PARAM) {
    const T e = src1Scalar;
    asc_sim::adv_map("Power", asc_loc_, asc_sim::DT_POWER, dst, &src0, static_cast<const LocalTensor<T>*>(nullptr),
                     calCount, asc_sim::POWER_PASSES, [&](uint32_t i) { return asc_sim::pow_elem<T>(src0.ptr()[i], e); });
}
template <typename T, bool isReuseSource = false>
inline void Power(const LocalTensor<T>& dst, const T& src0Scalar, const LocalTensor<T>& src1, uint32_t calCount,
                  ASC_LOC_PARAM) {
    const T b = src0Scalar;
    asc_sim::adv_map("Power", asc_loc_, asc_sim::DT_POWER, dst, static_cast<const LocalTensor<T>*>(nullptr), &src1,
                     calCount, asc_sim::POWER_PASSES, [&](uint32_t i) { return asc_sim::pow_elem<T>(b, src1.ptr()[i]); });
}
// the sharedTmpBuffer and whole-tensor forms of the three
#define ASC_SIM_POWER_FORMS(A1, A2, SIZE)                                                                             \
    template <typename T, bool isReuseSource = false>                                                                 \
    inline void Power(const LocalTensor<T>& dst, A1 a, A2 b, const LocalTensor<uint8_t>& sharedTmpBuffer,             \
                      uint32_t calCount, ASC_LOC_PARAM) {                                                             \
        asc_sim::use_local("Power", asc_loc_, "sharedTmpBuffer", sharedTmpBuffer, 0, true);                           \
        Power<T, isReuseSource>(dst, a, b, calCount, asc_loc_);                                                       \
    }                                                                                                                 \
    template <typename T, bool isReuseSource = false>                                                                 \
    inline void Power(const LocalTensor<T>& dst, A1 a, A2 b, const LocalTensor<uint8_t>& sharedTmpBuffer,             \
                      ASC_LOC_PARAM) {                                                                                \
        Power<T, isReuseSource>(dst, a, b, sharedTmpBuffer, SIZE, asc_loc_);                                          \
    }                                                                                                                 \
    template <typename T, bool isReuseSource = false>                                                                 \
    inline void Power(const LocalTensor<T>& dst, A1 a, A2 b, ASC_LOC_PARAM) {                                         \
        Power<T, isReuseSource>(dst, a, b, SIZE, asc_loc_);                                                           \
    }
ASC_SIM_POWER_FORMS(const LocalTensor<T>&, const LocalTensor<T>&, a.GetSize())
ASC_SIM_POWER_FORMS(const LocalTensor<T>&, const T&, a.GetSize())
ASC_SIM_POWER_FORMS(const T&, const LocalTensor<T>&, b.GetSize())
#undef ASC_SIM_POWER_FORMS

// Gelu, tanh approximation written as x * sigmoid(sqrt(8/pi) * (x + 0.044715 x^3))
template <typename T, bool highPrecision = false, bool highPerformance = false>
inline void Gelu(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t dataSize, ASC_LOC_PARAM) {
    asc_sim::adv_unary("Gelu", asc_loc_, dst, src, dataSize, 7, [](float x) {
        return x * asc_sim::sigmoid_f(1.5957691216057308f * (x + 0.044715f * x * x * x));
    });
}
template <typename T, bool highPrecision = false, bool highPerformance = false>
inline void Gelu(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>& sharedTmpBuffer,
                 const uint32_t dataSize, ASC_LOC_PARAM) {
    asc_sim::use_local("Gelu", asc_loc_, "sharedTmpBuffer", sharedTmpBuffer, 0, true);
    Gelu<T, highPrecision, highPerformance>(dst, src, dataSize, asc_loc_);
}
// Swish: x * sigmoid(beta * x)
template <typename T, bool isReuseSource = false>
inline void Swish(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint32_t dataSize, const T scalarValue,
                  ASC_LOC_PARAM) {
    const float beta = asc_sim::fv(scalarValue);
    asc_sim::adv_unary("Swish", asc_loc_, dst, src, dataSize, 5,
                       [beta](float x) { return x * asc_sim::sigmoid_f(beta * x); });
}

// BroadCast (adv_api broadcast.h): dst of dstShape from src of srcShape, each of src's axes equal to
// dst's or 1 (repeated along it); one or two axes (the template's `axis` names the broadcast one and
// is implied by the shapes here). Costed as one vector pass over dst.
template <typename T, int32_t dim, int32_t axis, bool isReuseSource = false>
inline void BroadCast(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t dstShape[dim],
                      const uint32_t srcShape[dim], ASC_LOC_PARAM) {
    static_assert(dim == 1 || dim == 2, "BroadCast: the simulator models one or two axes");
    const char* api = "BroadCast";
    asc_sim::enter(api, asc_loc_);
    const uint32_t rows = dim == 2 ? dstShape[0] : 1, cols = dstShape[dim - 1];
    const uint32_t srows = dim == 2 ? srcShape[0] : 1, scols = srcShape[dim - 1];
    if ((srows != rows && srows != 1) || (scols != cols && scols != 1))
        asc_sim::fail("param-range", api, asc_loc_,
                      asc_sim::fmt("BroadCast: source shape [%u, %u] does not broadcast to [%u, %u] (each axis equal "
                                   "or 1)", srows, scols, rows, cols));
    const uint64_t count = static_cast<uint64_t>(rows) * cols;
    if (count == 0) return;
    asc_sim::use_local(api, asc_loc_, "src", src, static_cast<uint64_t>(srows) * scols, false);
    asc_sim::use_local(api, asc_loc_, "dst", dst, count, true);
    asc_sim::Deps d;
    d.rd[0] = src.buf_;
    d.wr[0] = dst.buf_;
    asc_sim::schedule(asc_sim::Pipe::V, asc_sim::vec_cycles(count * sizeof(T), 1), d);
    asc_sim::S().stats.vec_elems += count;
    if (asc_sim::S().cfg.cost_only) return;
    std::vector<T> out(count);
    std::vector<uint8_t> garbage(count);
    for (uint32_t r = 0; r < rows; ++r)
        for (uint32_t c = 0; c < cols; ++c) {
            const uint64_t si = static_cast<uint64_t>(srows == 1 ? 0 : r) * scols + (scols == 1 ? 0 : c);
            out[static_cast<uint64_t>(r) * cols + c] = src.ptr()[si];
            garbage[static_cast<uint64_t>(r) * cols + c] = asc_sim::lane_garbage(src, si);
        }
    std::memcpy(static_cast<void*>(dst.ptr()), out.data(), count * sizeof(T));
    asc_sim::mark_lanes(dst, count, garbage);
}
template <typename T, int32_t dim, int32_t axis, bool isReuseSource = false>
inline void BroadCast(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t dstShape[dim],
                      const uint32_t srcShape[dim], const LocalTensor<uint8_t>& sharedTmpBuffer, ASC_LOC_PARAM) {
    asc_sim::use_local("BroadCast", asc_loc_, "sharedTmpBuffer", sharedTmpBuffer, 0, true);
    BroadCast<T, dim, axis, isReuseSource>(dst, src, dstShape, srcShape, asc_loc_);
}

// Sum / Mean over the last axis (adv_api reduce/sum.h, mean.h; SumParams/MeanParams in *_utils.h): each
// of `outter` rows of `inner` elements (n of them valid, inner the 32-byte-aligned n) to one value in
// dst[row], accumulated in AccT (Mean: float for half with accType float); costed as one vector pass.
struct SumParams {
    uint32_t outter = 1;
    uint32_t inner;
    uint32_t n;
};
struct MeanParams {
    uint32_t outter = 1;
    uint32_t inner;
    uint32_t n;
};
template <typename T, typename AccT>
inline void asc_row_reduce(const char* api, const asc_sim::Loc& loc, const LocalTensor<T>& dst, const LocalTensor<T>& src,
                           uint32_t outter, uint32_t inner, uint32_t n, bool mean) {
    asc_sim::enter(api, loc);
    asc_sim::check_dtype<T>(api, loc, asc_sim::DT_FLOAT);
    if (n == 0 || n > inner || inner * sizeof(T) % 32 != 0)
        asc_sim::fail("param-range", api, loc,
                      asc_sim::fmt("%s: n=%u and inner=%u: n must be in [1, inner] and inner * sizeof(T) a multiple "
                                   "of 32 bytes", api, n, inner));
    if (outter == 0) return;
    asc_sim::use_local(api, loc, "src", src, static_cast<uint64_t>(outter) * inner, false, 32, false);
    asc_sim::use_local(api, loc, "dst", dst, outter, true);
    for (uint32_t r = 0; r < outter; ++r)
        asc_sim::check_written(api, loc, "src", src.sp_, static_cast<uint32_t>(src.addr_ + static_cast<uint64_t>(r) * inner * sizeof(T)),
                               static_cast<uint64_t>(n) * sizeof(T), sizeof(T));
    asc_sim::Deps d;
    d.rd[0] = src.buf_;
    d.wr[0] = dst.buf_;
    asc_sim::schedule(asc_sim::Pipe::V, asc_sim::vec_cycles(static_cast<uint64_t>(outter) * inner * sizeof(T), 1), d);
    asc_sim::S().stats.vec_elems += static_cast<uint64_t>(outter) * inner;
    if (asc_sim::S().cfg.cost_only) return;
    for (uint32_t r = 0; r < outter; ++r) {
        AccT acc = 0;
        for (uint32_t j = 0; j < n; ++j) acc += static_cast<AccT>(src.ptr()[static_cast<uint64_t>(r) * inner + j]);
        dst.ptr()[r] = static_cast<T>(mean ? acc / static_cast<AccT>(n) : acc);
    }
    asc_sim::wrote(dst, outter);
}
template <typename T, int32_t reduceDim = -1, bool isReuseSource = false, bool isBasicBlock = false>
inline void Sum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const SumParams& p, ASC_LOC_PARAM) {
    asc_row_reduce<T, float>("Sum", asc_loc_, dst, src, p.outter, p.inner, p.n, false);
}
template <typename T, int32_t reduceDim = -1, bool isReuseSource = false, bool isBasicBlock = false>
inline void Sum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>& sharedTmpBuffer,
                const SumParams& p, ASC_LOC_PARAM) {
    asc_sim::use_local("Sum", asc_loc_, "sharedTmpBuffer", sharedTmpBuffer, 0, true);
    Sum<T, reduceDim, isReuseSource, isBasicBlock>(dst, src, p, asc_loc_);
}
template <typename T, typename accType = T, bool isReuseSource = false, bool isBasicBlock = false, int32_t reduceDim = -1>
inline void Mean(const LocalTensor<T>& dst, const LocalTensor<T>& src, const MeanParams& p, ASC_LOC_PARAM) {
    asc_row_reduce<T, float>("Mean", asc_loc_, dst, src, p.outter, p.inner, p.n, true);
}
template <typename T, typename accType = T, bool isReuseSource = false, bool isBasicBlock = false, int32_t reduceDim = -1>
inline void Mean(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>& sharedTmpBuffer,
                 const MeanParams& p, ASC_LOC_PARAM) {
    asc_sim::use_local("Mean", asc_loc_, "sharedTmpBuffer", sharedTmpBuffer, 0, true);
    Mean<T, accType, isReuseSource, isBasicBlock, reduceDim>(dst, src, p, asc_loc_);
}

}  // namespace AscendC
