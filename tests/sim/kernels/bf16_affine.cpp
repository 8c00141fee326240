// bf16 in, bf16 out: Atlas A2 has no bf16 arithmetic, so cast to float, y = x * a + b, cast back.
#include "kernel_operator.h"

extern "C" __global__ __aicore__ void bf16_affine(__gm__ bfloat16_t *x, __gm__ bfloat16_t *y, uint32_t blockLength,
                                                   uint32_t tileLength, float a, float b)
{
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, 2> inQueue;
    AscendC::TQue<AscendC::QuePosition::VECOUT, 2> outQueue;
    AscendC::TBuf<AscendC::QuePosition::VECCALC> f32Buf;
    AscendC::GlobalTensor<bfloat16_t> xGm, yGm;
    xGm.SetGlobalBuffer(x + blockLength * AscendC::GetBlockIdx(), blockLength);
    yGm.SetGlobalBuffer(y + blockLength * AscendC::GetBlockIdx(), blockLength);
    pipe.InitBuffer(inQueue, 2, tileLength * sizeof(bfloat16_t));
    pipe.InitBuffer(outQueue, 2, tileLength * sizeof(bfloat16_t));
    pipe.InitBuffer(f32Buf, tileLength * sizeof(float));
    for (uint32_t off = 0; off < blockLength; off += tileLength) {
        AscendC::LocalTensor<bfloat16_t> xLocal = inQueue.AllocTensor<bfloat16_t>();
        AscendC::DataCopy(xLocal, xGm[off], tileLength);
        inQueue.EnQue(xLocal);
        AscendC::LocalTensor<bfloat16_t> xIn = inQueue.DeQue<bfloat16_t>();
        AscendC::LocalTensor<bfloat16_t> yLocal = outQueue.AllocTensor<bfloat16_t>();
        AscendC::LocalTensor<float> f = f32Buf.Get<float>();
        AscendC::Cast(f, xIn, AscendC::RoundMode::CAST_NONE, tileLength);
        AscendC::Muls(f, f, a, tileLength);
        AscendC::Adds(f, f, b, tileLength);
        AscendC::Cast(yLocal, f, AscendC::RoundMode::CAST_RINT, tileLength);
        outQueue.EnQue(yLocal);
        inQueue.FreeTensor(xIn);
        AscendC::LocalTensor<bfloat16_t> yOut = outQueue.DeQue<bfloat16_t>();
        AscendC::DataCopy(yGm[off], yOut, tileLength);
        outQueue.FreeTensor(yOut);
    }
}
