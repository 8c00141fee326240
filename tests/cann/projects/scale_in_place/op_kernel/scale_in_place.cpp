// Kernel side of the test operator: x scaled in place, 4096 floats at a time.
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void scale_in_place(GM_ADDR x, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    GlobalTensor<float> xGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, t.n);
    TPipe pipe;
    TBuf<QuePosition::VECCALC> buf;
    pipe.InitBuffer(buf, 4096 * sizeof(float));
    LocalTensor<float> a = buf.Get<float>();
    for (uint32_t k = 0; k < t.n; k += 4096) {
        const uint32_t m = t.n - k < 4096 ? t.n - k : 4096;
        DataCopyExtParams span{1, static_cast<uint32_t>(m * sizeof(float)), 0, 0, 0};
        PipeBarrier<PIPE_ALL>();
        DataCopyPad(a, xGm[k], span, DataCopyPadExtParams<float>{false, 0, 0, 0.0f});
        PipeBarrier<PIPE_ALL>();
        Muls(a, a, t.scale, m);
        PipeBarrier<PIPE_ALL>();
        DataCopyPad(xGm[k], a, span);
    }
}
