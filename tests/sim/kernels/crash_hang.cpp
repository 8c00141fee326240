// Misbehaving kernels: one writes through a raw GM pointer past the end of its buffer (the
// simulator's guard page turns that into SIGSEGV), one spins forever.
#include "kernel_operator.h"

extern "C" __global__ __aicore__ void crash_kernel(GM_ADDR x, uint32_t n)
{
    __gm__ float *p = reinterpret_cast<__gm__ float *>(x);
    for (uint32_t i = 0; i <= n + 4096; i++) {
        p[i] = 1.0f;  // the raw write runs off the end of x
    }
}

extern "C" __global__ __aicore__ void hang_kernel(GM_ADDR x, uint32_t n)
{
    AscendC::GlobalTensor<float> xGm;
    xGm.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(x), n);
    volatile uint32_t spin = 0;
    while (spin == 0) {
    }
    xGm.SetValue(0, 1.0f);
}
