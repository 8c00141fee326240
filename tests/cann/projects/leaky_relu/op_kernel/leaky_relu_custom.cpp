// Kernel side of the test operator: copy in, select, copy out, double-buffered, a tail per block.
#include "kernel_operator.h"
using namespace AscendC;

class KernelLeakyRelu {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t total, uint32_t perBlock, uint32_t tile, float slope)
    {
        uint32_t start = GetBlockIdx() * perBlock;
        length = start >= total ? 0 : (total - start < perBlock ? total - start : perBlock);
        this->tile = tile;
        this->slope = slope;
        xGm.SetGlobalBuffer((__gm__ float*)x + start, length);
        yGm.SetGlobalBuffer((__gm__ float*)y + start, length);
        pipe.InitBuffer(inQ, 2, tile * sizeof(float));
        pipe.InitBuffer(outQ, 2, tile * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        for (uint32_t off = 0; off < length; off += tile) {
            uint32_t n = length - off < tile ? length - off : tile;
            LocalTensor<float> a = inQ.AllocTensor<float>();
            DataCopyExtParams cp{1, static_cast<uint32_t>(n * sizeof(float)), 0, 0, 0};
            DataCopyPad(a, xGm[off], cp, DataCopyPadExtParams<float>{false, 0, 0, 0.0f});
            inQ.EnQue(a);
            a = inQ.DeQue<float>();
            LocalTensor<float> b = outQ.AllocTensor<float>();
            LeakyRelu(b, a, slope, n);
            inQ.FreeTensor(a);
            outQ.EnQue(b);
            b = outQ.DeQue<float>();
            DataCopyPad(yGm[off], b, cp);
            outQ.FreeTensor(b);
        }
    }
private:
    TPipe pipe;
    TQue<QuePosition::VECIN, 2> inQ;
    TQue<QuePosition::VECOUT, 2> outQ;
    GlobalTensor<float> xGm, yGm;
    uint32_t length = 0, tile = 0;
    float slope = 0;
};

extern "C" __global__ __aicore__ void leaky_relu_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    KernelLeakyRelu op;
    op.Init(x, y, t.totalLength, t.blockLength, t.tileLength, t.slope);
    op.Process();
}
