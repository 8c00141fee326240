// Row softmax over a [rows, cols] fp32 matrix (cols * 4 a multiple of 32): ReduceMax, Adds,
// Exp, ReduceSum, Muls, with scalar reads of the reduction results.
#include "kernel_operator.h"

class KernelSoftmax {
public:
    __aicore__ inline KernelSoftmax() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t rowsPerCore, uint32_t cols)
    {
        this->rows = rowsPerCore;
        this->cols = cols;
        uint64_t base = static_cast<uint64_t>(rowsPerCore) * cols * AscendC::GetBlockIdx();
        xGm.SetGlobalBuffer((__gm__ float *)x + base, rowsPerCore * cols);
        yGm.SetGlobalBuffer((__gm__ float *)y + base, rowsPerCore * cols);
        pipe.InitBuffer(inQueue, 2, cols * sizeof(float));
        pipe.InitBuffer(outQueue, 2, cols * sizeof(float));
        pipe.InitBuffer(workBuf, cols * sizeof(float));
        pipe.InitBuffer(scalarBuf, 32);
    }
    __aicore__ inline void Process()
    {
        for (uint32_t r = 0; r < this->rows; r++) {
            AscendC::LocalTensor<float> xLocal = inQueue.AllocTensor<float>();
            AscendC::DataCopy(xLocal, xGm[r * this->cols], this->cols);
            inQueue.EnQue(xLocal);

            AscendC::LocalTensor<float> xIn = inQueue.DeQue<float>();
            AscendC::LocalTensor<float> yLocal = outQueue.AllocTensor<float>();
            AscendC::LocalTensor<float> work = workBuf.Get<float>();
            AscendC::LocalTensor<float> red = scalarBuf.Get<float>();
            AscendC::ReduceMax(red, xIn, work, this->cols);
            float rowMax = red.GetValue(0);
            AscendC::Adds(yLocal, xIn, -rowMax, this->cols);
            AscendC::Exp(yLocal, yLocal, this->cols);
            AscendC::ReduceSum(red, yLocal, work, this->cols);
            float rowSum = red.GetValue(0);
            AscendC::Muls(yLocal, yLocal, 1.0f / rowSum, this->cols);
            outQueue.EnQue(yLocal);
            inQueue.FreeTensor(xIn);

            AscendC::LocalTensor<float> yOut = outQueue.DeQue<float>();
            AscendC::DataCopy(yGm[r * this->cols], yOut, this->cols);
            outQueue.FreeTensor(yOut);
        }
    }

private:
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, 2> inQueue;
    AscendC::TQue<AscendC::QuePosition::VECOUT, 2> outQueue;
    AscendC::TBuf<AscendC::QuePosition::VECCALC> workBuf, scalarBuf;
    AscendC::GlobalTensor<float> xGm, yGm;
    uint32_t rows, cols;
};

extern "C" __global__ __aicore__ void softmax_rows(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    KernelSoftmax op;
    op.Init(x, y, t.rowsPerCore, t.cols);
    op.Process();
}
