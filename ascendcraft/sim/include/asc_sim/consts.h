// ascendcraft AscendC CPU simulator: the documented platform constants kernels use
// (AscendC::TOTAL_UB_SIZE, ONE_BLK_SIZE, BLOCK_CUBE, ...) and the kernel-side ASSERT.
//
// Names and values follow the public kernel_utils_constants.h for __CCE_AICORE__ == 220
// (Atlas A2, 910B); see shared/research/ascendc_api.md section 7.1.  They are compile-time
// constants, so a build for another chip profile still sees the 910B values (documented in
// docs/simulator.md, "Foreign kernels").
#pragma once
#include "core.h"

namespace AscendC {
// memory sizes (Atlas A2)
const uint32_t TOTAL_UB_SIZE = 192 * 1024;
const int32_t TOTAL_VEC_LOCAL_SIZE = 184 * 1024;
const uint32_t TMP_UB_OFFSET = 184 * 1024;
const uint32_t TMP_UB_SIZE = 8 * 1024;
const uint32_t TOTAL_L1_SIZE = 512 * 1024 - 128;
const uint32_t TOTAL_L0A_SIZE = 64 * 1024;
const uint32_t TOTAL_L0B_SIZE = 64 * 1024;
const uint32_t TOTAL_L0C_SIZE = 128 * 1024;
constexpr size_t RESERVED_WORKSPACE = 16 * 1024 * 1024;

// blocks, repeats, masks
const int32_t DEFAULT_BLK_NUM = 8;
const int32_t DEFAULT_BLK_STRIDE = 1;
const uint8_t DEFAULT_REPEAT_STRIDE = 8;
const uint8_t HALF_DEFAULT_REPEAT_STRIDE = 4;
const uint8_t ONE_FOURTH_DEFAULT_REPEAT_STRIDE = 2;
const uint64_t FULL_MASK = 0xffffffffffffffffULL;
const int32_t DEFAULT_C0_SIZE = 32;
const int32_t DEFAULT_BLOCK_SIZE = 256;
const int32_t MAX_REPEAT_TIMES = 255;
const int32_t MIN_REPEAT_TIMES = 0;
const uint16_t ONE_BLK_SIZE = 32;
const int32_t ONE_REPEAT_BYTE_SIZE = 256;
const int32_t FULL_MASK_LEN = 128;
const int32_t HLAF_MASK_LEN = 64;  // sic: the public spelling
const uint16_t MAX_HALF_MASK_LEN = 64;
const uint8_t B64_BYTE_SIZE = 8;
const uint8_t B32_BYTE_SIZE = 4;
const uint8_t B16_BYTE_SIZE = 2;
const uint8_t B8_BYTE_SIZE = 1;
const uint8_t B32_DATA_NUM_PER_BLOCK = 8;
const uint8_t B16_DATA_NUM_PER_BLOCK = 16;
const int32_t B16_DATA_NUM_PER_REPEAT = 128;
const int32_t B32_DATA_NUM_PER_REPEAT = 64;
const uint32_t HALF_REPEAT_SIZE = ONE_REPEAT_BYTE_SIZE / B16_BYTE_SIZE;
const uint32_t FLOAT_REPEAT_SIZE = ONE_REPEAT_BYTE_SIZE / B32_BYTE_SIZE;
const uint32_t ONE_REPEAT_FLOAT_SIZE = ONE_REPEAT_BYTE_SIZE / B32_BYTE_SIZE;
const uint32_t ONE_REPEAT_HALF_SIZE = ONE_REPEAT_BYTE_SIZE / B16_BYTE_SIZE;
const uint32_t MAX_REPEAT_FLOAT_SIZE = ONE_REPEAT_FLOAT_SIZE * MAX_REPEAT_TIMES;
const uint32_t MAX_REPEAT_HALF_SIZE = ONE_REPEAT_HALF_SIZE * MAX_REPEAT_TIMES;
const uint32_t ONE_BLK_HALF_NUM = ONE_BLK_SIZE / B16_BYTE_SIZE;
const uint32_t ONE_BLK_FLOAT_NUM = ONE_BLK_SIZE / B32_BYTE_SIZE;

// cube
const int32_t BLOCK_CUBE = 16;
const int32_t CUBE_MAX_SIZE = 256;
const int32_t BYTE_PER_FRACTAL = 512;

// scalar helpers (asc-devkit impl/basic_api/utils/kernel_utils_ceil_oom_que.h): scalar-unit arithmetic
__aicore__ constexpr inline uint32_t DivCeil(uint32_t a, uint32_t b) { return (a + b - 1) / b; }
__aicore__ constexpr inline uint32_t AlignUp(uint32_t a, uint32_t b) { return DivCeil(a, b) * b; }
__aicore__ constexpr inline uint32_t ConstCeil(uint32_t a, uint32_t b) { return (a + b - 1) / b; }
// type trait of the same header: IsSameType<T, U>::value
template <typename T, typename U> struct IsSameType : std::false_type {};
template <typename T> struct IsSameType<T, T> : std::true_type {};
// core kinds (asc-devkit impl/utils/sys_constants.h)
constexpr int32_t MIX = 0;
constexpr int32_t AIC = 1;
constexpr int32_t AIV = 2;
}  // namespace AscendC

// The kind of core running the code, a variable as in CANN's CPU-debug build (asc-devkit
// impl/utils/sys_macros.h, ASCENDC_CPU_DEBUG): the device compiler makes it a constant of each
// half of a kernel, which `if (g_coreType == AIV)` reads the same way. Template arguments and
// `constexpr` uses need that constant and do not build here (docs/simulator.md).
#define g_coreType (ASCEND_IS_AIC ? ::AscendC::AIC : ::AscendC::AIV)

namespace asc_sim {
[[noreturn]] inline void assert_fail(const char* expr, const Loc& loc, const std::string& detail) {
    std::string msg = fmt("Assertion '%s' failed", expr);
    if (!detail.empty()) msg += ": " + detail;
    fail("assert", "ASSERT", loc, msg);
}
inline std::string assert_detail() { return std::string(); }
template <class... A> inline std::string assert_detail(const char* f, A... a) {
    if constexpr (sizeof...(A) == 0) {
        return std::string(f);
    } else {
        char buf[1024];
        std::snprintf(buf, sizeof buf, f, a...);
        return buf;
    }
}
}  // namespace asc_sim

// ASSERT(expr) / ascendc_assert(expr[, fmt, args...]): a failing assertion is an error
// (rule `assert`) at the kernel line, and the kernel stops, as the NPU traps; a passing one
// does nothing.
// The condition is evaluated where AscendC's names are visible: a CANN build for the NPU expands
// ASSERT to nothing (asc-devkit impl/basic_api/kernel_macros.h), so kernels outside the namespace
// write `ASSERT(GetBlockNum() != 0)` unqualified and it still compiles there.
#define ASC_SIM_ASSERT_COND(expr) ([&]() -> bool { using namespace AscendC; return static_cast<bool>(expr); }())
#define ASSERT(expr)                                                                                                  \
    (ASC_SIM_ASSERT_COND(expr) ? void(0)                                                                              \
                               : ::asc_sim::assert_fail(#expr, ::asc_sim::Loc{__FILE__, __LINE__}, std::string()))
#define ascendc_assert(expr, ...)                                                                                     \
    (ASC_SIM_ASSERT_COND(expr) ? void(0)                                                                              \
                               : ::asc_sim::assert_fail(#expr, ::asc_sim::Loc{__FILE__, __LINE__},                   \
                                                        ::asc_sim::assert_detail(__VA_ARGS__)))

// Branch hints kernels use unqualified (asc-devkit impl/basic_api/utils/kernel_utils_macros.h).
#ifndef likely
#define likely(x) __builtin_expect(!!(x), 1)
#endif
#ifndef unlikely
#define unlikely(x) __builtin_expect(!!(x), 0)
#endif
