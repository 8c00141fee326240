// Direct-launch style as in the CPU-debug samples: a template kernel instantiated by an
// extern "C" wrapper, a host main() with both branches (tikicpulib under ASCENDC_CPU_DEBUG,
// AscendCL + the generated aclrtlaunch header otherwise) and a host platform query.
// The kernel: y = |x| - c (c from a scalar argument), half or float.
#include "kernel_operator.h"
#include "platform/platform_ascendc.h"
#ifdef ASCENDC_CPU_DEBUG
#include "tikicpulib.h"
#else
#include "acl/acl.h"
#include "aclrtlaunch_abs_sub_half.h"
#endif

template <typename T>
__aicore__ inline void AbsSubImpl(GM_ADDR x, GM_ADDR y, uint32_t blockLength, float c)
{
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, blockLength * sizeof(T));
    AscendC::GlobalTensor<T> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ T *)x + blockLength * AscendC::GetBlockIdx(), blockLength);
    yGm.SetGlobalBuffer((__gm__ T *)y + blockLength * AscendC::GetBlockIdx(), blockLength);
    AscendC::LocalTensor<T> t = buf.Get<T>();
    AscendC::DataCopy(t, xGm, blockLength);
    AscendC::PipeBarrier<PIPE_ALL>();
    AscendC::Abs(t, t, blockLength);
    AscendC::Adds(t, t, static_cast<T>(-c), blockLength);
    AscendC::PipeBarrier<PIPE_ALL>();
    AscendC::DataCopy(yGm, t, blockLength);
}

extern "C" __global__ __aicore__ void abs_sub_half(GM_ADDR x, GM_ADDR y, uint32_t blockLength, float c)
{
    ASSERT(blockLength * sizeof(half) <= AscendC::TOTAL_VEC_LOCAL_SIZE);
    AbsSubImpl<half>(x, y, blockLength, c);
}

int32_t main(int32_t argc, char *argv[])
{
    (void)argc;
    (void)argv;
    uint32_t blockDim = platform_ascendc::PlatformAscendCManager::GetInstance()->GetCoreNumAiv();
    uint32_t blockLength = 1024;
    size_t bytes = static_cast<size_t>(blockDim) * blockLength * sizeof(half);
#ifdef ASCENDC_CPU_DEBUG
    uint8_t *x = (uint8_t *)AscendC::GmAlloc(bytes);
    uint8_t *y = (uint8_t *)AscendC::GmAlloc(bytes);
    AscendC::SetKernelMode(KernelMode::AIV_MODE);
    ICPU_RUN_KF(abs_sub_half, blockDim, x, y, blockLength, 0.5f);
    AscendC::GmFree((void *)x);
    AscendC::GmFree((void *)y);
#else
    aclInit(nullptr);
    aclrtSetDevice(0);
    aclrtStream stream = nullptr;
    aclrtCreateStream(&stream);
    uint8_t *x = nullptr, *y = nullptr;
    aclrtMalloc((void **)&x, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMalloc((void **)&y, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
    ACLRT_LAUNCH_KERNEL(abs_sub_half)(blockDim, stream, x, y, blockLength, 0.5f);
    abs_sub_half<<<blockDim, nullptr, stream>>>(x, y, blockLength, 0.5f);
    aclrtSynchronizeStream(stream);
    aclrtFree(x);
    aclrtFree(y);
    aclrtDestroyStream(stream);
    aclrtResetDevice(0);
    aclFinalize();
#endif
    return 0;
}
