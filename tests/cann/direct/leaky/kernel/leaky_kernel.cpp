// A direct-launch operator of ascendcraft's tests: y = leaky_relu(x, slope), one templated kernel launched
// through <<<>>> by host wrappers, the tiling computed on the host from the platform's core count and UB.
#include <cstdint>
#include "kernel_operator.h"
#include "platform/platform_ascendc.h"
#include "leaky_launch.h"

using namespace AscendC;

template <typename T>
__aicore__ inline void leaky_body(GM_ADDR x, GM_ADDR y, uint32_t total, uint32_t perBlock, uint32_t tile, float slope)
{
    TPipe pipe;
    TQue<QuePosition::VECIN, 2> inQ;
    TQue<QuePosition::VECOUT, 2> outQ;
    GlobalTensor<T> xGm, yGm;
    uint32_t start = GetBlockIdx() * perBlock;
    uint32_t length = start >= total ? 0 : (total - start < perBlock ? total - start : perBlock);
    xGm.SetGlobalBuffer((__gm__ T*)x + start, length);
    yGm.SetGlobalBuffer((__gm__ T*)y + start, length);
    pipe.InitBuffer(inQ, 2, tile * sizeof(T));
    pipe.InitBuffer(outQ, 2, tile * sizeof(T));
    for (uint32_t off = 0; off < length; off += tile) {
        uint32_t n = length - off < tile ? length - off : tile;
        DataCopyExtParams cp{1, static_cast<uint32_t>(n * sizeof(T)), 0, 0, 0};
        LocalTensor<T> a = inQ.AllocTensor<T>();
        DataCopyPad(a, xGm[off], cp, DataCopyPadExtParams<T>{false, 0, 0, 0});
        inQ.EnQue(a);
        a = inQ.DeQue<T>();
        LocalTensor<T> b = outQ.AllocTensor<T>();
        LeakyRelu(b, a, static_cast<T>(slope), n);
        inQ.FreeTensor(a);
        outQ.EnQue(b);
        b = outQ.DeQue<T>();
        DataCopyPad(yGm[off], b, cp);
        outQ.FreeTensor(b);
    }
}

template <typename T>
__global__ __aicore__ void leaky_kernel(GM_ADDR x, GM_ADDR y, uint32_t total, uint32_t perBlock, uint32_t tile, float slope)
{
    leaky_body<T>(x, y, total, perBlock, tile, slope);
}

// the float instance as a C kernel too, which a binding launches with ACLRT_LAUNCH_KERNEL
extern "C" __global__ __aicore__ void leaky_f32(GM_ADDR x, GM_ADDR y, uint32_t total, uint32_t perBlock, uint32_t tile,
                                                float slope)
{
    leaky_body<float>(x, y, total, perBlock, tile, slope);
}

LeakyTiling leaky_tiling(int64_t total, int64_t elementBytes)
{
    auto platform = platform_ascendc::PlatformAscendCManager::GetInstance();
    uint64_t ub = 0;
    platform->GetCoreMemSize(platform_ascendc::CoreMemType::UB, ub);
    int64_t cores = platform->GetCoreNumAiv();
    LeakyTiling t;
    t.blocks = total < 2048 * cores ? (total + 2047) / 2048 : cores;
    if (t.blocks < 1) t.blocks = 1;
    t.perBlock = static_cast<uint32_t>((total + t.blocks - 1) / t.blocks);
    t.tile = static_cast<uint32_t>(ub / 4 / elementBytes / 64 * 64);
    if (t.tile > 8192) t.tile = 8192;
    return t;
}

void launch_leaky_float(GM_ADDR x, GM_ADDR y, int64_t total, LeakyTiling t, float slope, void* stream)
{
    leaky_kernel<float><<<t.blocks, nullptr, stream>>>(x, y, static_cast<uint32_t>(total), t.perBlock, t.tile, slope);
}

void launch_leaky_half(GM_ADDR x, GM_ADDR y, int64_t total, LeakyTiling t, float slope, void* stream)
{
    leaky_kernel<half><<<t.blocks, nullptr, stream>>>(x, y, static_cast<uint32_t>(total), t.perBlock, t.tile, slope);
}
