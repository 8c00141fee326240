// Row sums of a [rows, cols] fp32 matrix, direct-launch style.  Two-stage WholeReduceSum in
// counter mask mode (cols <= 64 * 64), one result per row written to an output tile, which is
// then stored with DataCopyPad (rowsPerCore floats, any count).
#include "kernel_operator.h"

extern "C" __global__ __aicore__ void reduce_sum_rows(GM_ADDR x, GM_ADDR y, uint32_t rowsPerCore, uint32_t cols)
{
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, 2> inQueue;
    AscendC::TQue<AscendC::QuePosition::VECOUT, 1> outQueue;
    AscendC::TBuf<AscendC::QuePosition::VECCALC> partBuf;
    AscendC::GlobalTensor<float> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ float *)x + static_cast<uint64_t>(rowsPerCore) * cols * AscendC::GetBlockIdx());
    yGm.SetGlobalBuffer((__gm__ float *)y + static_cast<uint64_t>(rowsPerCore) * AscendC::GetBlockIdx());
    pipe.InitBuffer(inQueue, 2, cols * sizeof(float));
    pipe.InitBuffer(outQueue, 1, (rowsPerCore * sizeof(float) + 31) / 32 * 32);
    pipe.InitBuffer(partBuf, 64 * sizeof(float));
    AscendC::LocalTensor<float> sums = outQueue.AllocTensor<float>();
    AscendC::LocalTensor<float> part = partBuf.Get<float>();
    const int32_t repeats = static_cast<int32_t>((cols + 63) / 64);
    for (uint32_t r = 0; r < rowsPerCore; r++) {
        AscendC::LocalTensor<float> xLocal = inQueue.AllocTensor<float>();
        AscendC::DataCopy(xLocal, xGm[r * cols], cols);
        inQueue.EnQue(xLocal);
        AscendC::LocalTensor<float> xIn = inQueue.DeQue<float>();
        AscendC::SetMaskCount();
        AscendC::SetVectorMask<float>(0, cols);
        AscendC::WholeReduceSum<float, false>(part, xIn, AscendC::MASK_PLACEHOLDER, 1, 1, 1, 8);
        AscendC::PipeBarrier<AscendC::PIPE_V>();
        AscendC::SetVectorMask<float>(0, repeats);
        AscendC::WholeReduceSum<float, false>(sums[r], part, AscendC::MASK_PLACEHOLDER, 1, 1, 1, 8);
        AscendC::PipeBarrier<AscendC::PIPE_V>();
        AscendC::SetMaskNorm();
        AscendC::ResetMask();
        inQueue.FreeTensor(xIn);
    }
    outQueue.EnQue(sums);
    AscendC::LocalTensor<float> out = outQueue.DeQue<float>();
    AscendC::DataCopyExtParams params{1, static_cast<uint32_t>(rowsPerCore * sizeof(float)), 0, 0, 0};
    AscendC::DataCopyPad(yGm, out, params);
    outQueue.FreeTensor(out);
}
