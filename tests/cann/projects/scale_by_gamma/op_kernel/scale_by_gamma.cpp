// Kernel side of the test operator: gamma loaded once per block, then each row scaled and copied.
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void scale_by_gamma(GM_ADDR x, GM_ADDR gamma, GM_ADDR y, GM_ADDR xOut,
                                                     GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    uint32_t first = GetBlockIdx() * t.rowsPerBlock;
    uint32_t last = first + t.rowsPerBlock < t.rows ? first + t.rowsPerBlock : t.rows;
    GlobalTensor<float> xGm, gGm, yGm, oGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, t.rows * t.cols);
    gGm.SetGlobalBuffer((__gm__ float*)gamma, t.cols);
    yGm.SetGlobalBuffer((__gm__ float*)y, t.rows * t.cols);
    oGm.SetGlobalBuffer((__gm__ float*)xOut, t.rows * t.cols);
    TPipe pipe;
    TBuf<QuePosition::VECCALC> gBuf, xBuf, yBuf;
    pipe.InitBuffer(gBuf, t.cols * sizeof(float));
    pipe.InitBuffer(xBuf, t.cols * sizeof(float));
    pipe.InitBuffer(yBuf, t.cols * sizeof(float));
    LocalTensor<float> g = gBuf.Get<float>(), a = xBuf.Get<float>(), b = yBuf.Get<float>();
    DataCopyExtParams row{1, static_cast<uint32_t>(t.cols * sizeof(float)), 0, 0, 0};
    DataCopyPadExtParams<float> pad{false, 0, 0, 0.0f};
    DataCopyPad(g, gGm, row, pad);
    for (uint32_t r = first; r < last; ++r) {
        PipeBarrier<PIPE_ALL>();                     // the last row's copies out are done with a and b
        DataCopyPad(a, xGm[r * t.cols], row, pad);
        PipeBarrier<PIPE_ALL>();
        Mul(b, a, g, t.cols);
        PipeBarrier<PIPE_ALL>();
        DataCopyPad(yGm[r * t.cols], b, row);
        DataCopyPad(oGm[r * t.cols], a, row);
    }
}
