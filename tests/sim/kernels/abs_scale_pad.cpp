// y = |x| * scale for a length that is not a multiple of 8 elements: every block moves its
// (unaligned) share with DataCopyPad; direct-launch style with scalar arguments.
#include "kernel_operator.h"

template <typename T>
__global__ __aicore__ void abs_scale_pad(GM_ADDR x, GM_ADDR y, uint32_t totalLength, uint32_t tileLength, float scale)
{
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, 1> inQueue;
    AscendC::TQue<AscendC::QuePosition::VECOUT, 1> outQueue;
    uint32_t blocks = static_cast<uint32_t>(AscendC::GetBlockNum());
    uint32_t per = (totalLength + blocks - 1) / blocks;
    uint32_t start = per * static_cast<uint32_t>(AscendC::GetBlockIdx());
    uint32_t len = start >= totalLength ? 0 : (totalLength - start < per ? totalLength - start : per);
    AscendC::GlobalTensor<T> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ T *)x + start, len);
    yGm.SetGlobalBuffer((__gm__ T *)y + start, len);
    pipe.InitBuffer(inQueue, 1, tileLength * sizeof(T));
    pipe.InitBuffer(outQueue, 1, tileLength * sizeof(T));
    for (uint32_t off = 0; off < len; off += tileLength) {
        uint32_t n = len - off < tileLength ? len - off : tileLength;
        AscendC::DataCopyExtParams params{1, static_cast<uint32_t>(n * sizeof(T)), 0, 0, 0};
        AscendC::DataCopyPadExtParams<T> pad{false, 0, 0, 0};
        AscendC::LocalTensor<T> xLocal = inQueue.AllocTensor<T>();
        AscendC::DataCopyPad(xLocal, xGm[off], params, pad);
        inQueue.EnQue(xLocal);
        AscendC::LocalTensor<T> xIn = inQueue.DeQue<T>();
        AscendC::LocalTensor<T> yLocal = outQueue.AllocTensor<T>();
        AscendC::Abs(yLocal, xIn, n);
        AscendC::Muls(yLocal, yLocal, static_cast<T>(scale), n);
        outQueue.EnQue(yLocal);
        inQueue.FreeTensor(xIn);
        AscendC::LocalTensor<T> yOut = outQueue.DeQue<T>();
        AscendC::DataCopyPad(yGm[off], yOut, params);
        outQueue.FreeTensor(yOut);
    }
}
