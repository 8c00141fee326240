// ascendcraft AscendC CPU simulator: a few element-wise high-level APIs (activations, logs).
// Each is computed in fp32 and costed as a handful of vector passes; the optional
// sharedTmpBuffer overloads check that the buffer is a valid UB tensor and otherwise ignore it.
#pragma once
#include "vec.h"

namespace asc_sim {
template <typename T, typename F>
inline void adv_unary(const char* api, const Loc& loc, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src,
                      uint32_t count, double passes, F f) {
    enter(api, loc);
    check_dtype<T>(api, loc, DT_FLOAT);
    level2_epilogue();
    if (count == 0) return;
    use_local(api, loc, "src", src, count, false);
    use_local(api, loc, "dst", dst, count, true);
    Deps d;
    d.rd[0] = src.buf_;
    d.wr[0] = dst.buf_;
    schedule(Pipe::V, passes * vec_cycles(static_cast<uint64_t>(count) * sizeof(T), S().cfg.transcendental_cpr), d);
    S().stats.vec_elems += count;
    if (S().cfg.cost_only) return;
    for (uint32_t i = 0; i < count; ++i) dst.ptr()[i] = static_cast<T>(f(fv(src.ptr()[i])));
    wrote(dst, count);
}
inline float sigmoid_f(float x) { return 1.0f / (1.0f + std::exp(-x)); }
}  // namespace asc_sim

namespace AscendC {

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
    }

ASC_SIM_ADV(Sigmoid, 4, asc_sim::sigmoid_f(x))
ASC_SIM_ADV(Tanh, 5, std::tanh(x))
ASC_SIM_ADV(Silu, 5, x * asc_sim::sigmoid_f(x))
ASC_SIM_ADV(Log, 1, std::log(x))
ASC_SIM_ADV(Log2, 2, std::log2(x))
ASC_SIM_ADV(Log10, 2, std::log10(x))

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

}  // namespace AscendC
