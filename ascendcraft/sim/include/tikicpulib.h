// ascendcraft AscendC CPU simulator: the CPU-debug host library header ("tikicpulib.h").
//
// A foreign direct-launch source's `#ifdef ASCENDC_CPU_DEBUG` host branch (GmAlloc,
// SetKernelMode, ICPU_RUN_KF, ...) is compiled because the simulator defines
// ASCENDC_CPU_DEBUG, but the host main() is never run (see docs/simulator.md, "Foreign
// kernels"); these stubs only make it compile.  ICPU_RUN_KF does not run the kernel: use
// ascendcraft.sim.run_kernel.
#pragma once
#include <cstddef>
#include <cstdlib>
#include "kernel_operator.h"
#include "acl/acl.h"

enum class KernelMode { MIX_MODE = 0, AIC_MODE, AIV_MODE, MIX_AIC_1_1 };
namespace AscendC {
inline void* GmAlloc(size_t size) { return std::malloc(size ? size : 1); }
inline void GmFree(void* p) { std::free(p); }
inline void SetKernelMode(KernelMode) {}
}  // namespace AscendC
#define ICPU_RUN_KF(func, blockDim, ...) ::asc_sim_host::launch(func, blockDim, __VA_ARGS__)
#define ICPU_SET_TILING_KEY(key) ((void)(key))
