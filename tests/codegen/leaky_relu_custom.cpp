// LeakyReLU over a [B, N] float tensor, the hand-written kernel of the project-skeleton tests.
// Custom-operator style: the elements are split evenly over the cores, each core streams its
// share through double-buffered TQue tiles, and DataCopyPad moves every tile, tails included.
#include "kernel_operator.h"

constexpr int32_t BUFFER_NUM = 2;
constexpr int64_t TILE = 2048;  // elements per tile: 8 KiB of float

class KernelLeakyRelu {
public:
    __aicore__ inline KernelLeakyRelu() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, int64_t total, float slope)
    {
        const int64_t blocks = AscendC::GetBlockNum();
        const int64_t per = (total + blocks - 1) / blocks;
        const int64_t start = per * AscendC::GetBlockIdx();
        length = start >= total ? 0 : (total - start < per ? total - start : per);
        negativeSlope = slope;
        xGm.SetGlobalBuffer((__gm__ float *)x + start, length);
        yGm.SetGlobalBuffer((__gm__ float *)y + start, length);
        pipe.InitBuffer(inQueue, BUFFER_NUM, TILE * sizeof(float));
        pipe.InitBuffer(outQueue, BUFFER_NUM, TILE * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        for (int64_t offset = 0; offset < length; offset += TILE) {
            const uint32_t count = static_cast<uint32_t>(length - offset < TILE ? length - offset : TILE);
            CopyIn(offset, count);
            Compute(count);
            CopyOut(offset, count);
        }
    }

private:
    __aicore__ inline void CopyIn(int64_t offset, uint32_t count)
    {
        AscendC::LocalTensor<float> xLocal = inQueue.AllocTensor<float>();
        AscendC::DataCopyExtParams params{1, static_cast<uint32_t>(count * sizeof(float)), 0, 0, 0};
        AscendC::DataCopyPadExtParams<float> pad{false, 0, 0, 0};
        AscendC::DataCopyPad(xLocal, xGm[offset], params, pad);
        inQueue.EnQue(xLocal);
    }
    __aicore__ inline void Compute(uint32_t count)
    {
        AscendC::LocalTensor<float> xLocal = inQueue.DeQue<float>();
        AscendC::LocalTensor<float> yLocal = outQueue.AllocTensor<float>();
        AscendC::LeakyRelu(yLocal, xLocal, negativeSlope, count);
        outQueue.EnQue(yLocal);
        inQueue.FreeTensor(xLocal);
    }
    __aicore__ inline void CopyOut(int64_t offset, uint32_t count)
    {
        AscendC::LocalTensor<float> yLocal = outQueue.DeQue<float>();
        AscendC::DataCopyExtParams params{1, static_cast<uint32_t>(count * sizeof(float)), 0, 0, 0};
        AscendC::DataCopyPad(yGm[offset], yLocal, params);
        outQueue.FreeTensor(yLocal);
    }

    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, BUFFER_NUM> inQueue;
    AscendC::TQue<AscendC::QuePosition::VECOUT, BUFFER_NUM> outQueue;
    AscendC::GlobalTensor<float> xGm, yGm;
    int64_t length = 0;
    float negativeSlope = 0.0f;
};

extern "C" __global__ __aicore__ void leaky_relu_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelLeakyRelu op;
    op.Init(x, y, tilingData.B * tilingData.N, tilingData.negative_slope);
    op.Process();
}
