// Test project (ascendcraft): ScaleShift's kernel, y = x * alpha + beta (+ bias when the host saw one).
// The tiling key says the element type (1: half, 2: float); each block takes blockLength elements
// (the last fewer) in tiles moved with DataCopyPad.
#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

template <typename T> class KernelScaleShift {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR bias, GM_ADDR y, uint32_t total, uint32_t blockLength,
                                uint32_t tileLength, uint32_t hasBias, float alpha, float beta)
    {
        uint32_t begin = blockLength * GetBlockIdx();
        length = begin >= total ? 0 : (total - begin < blockLength ? total - begin : blockLength);
        tile = tileLength;
        withBias = hasBias != 0;
        a = static_cast<T>(alpha);
        b = static_cast<T>(beta);
        xGm.SetGlobalBuffer((__gm__ T*)x + begin, length);
        yGm.SetGlobalBuffer((__gm__ T*)y + begin, length);
        if (withBias) {
            biasGm.SetGlobalBuffer((__gm__ T*)bias + begin, length);
            pipe.InitBuffer(inBias, BUFFER_NUM, tile * sizeof(T));
        }
        pipe.InitBuffer(inX, BUFFER_NUM, tile * sizeof(T));
        pipe.InitBuffer(outY, BUFFER_NUM, tile * sizeof(T));
    }
    __aicore__ inline void Process()
    {
        for (uint32_t off = 0; off < length; off += tile) {
            uint32_t n = length - off < tile ? length - off : tile;
            DataCopyExtParams params{1, static_cast<uint32_t>(n * sizeof(T)), 0, 0, 0};
            DataCopyPadExtParams<T> pad{false, 0, 0, 0};
            LocalTensor<T> xLocal = inX.AllocTensor<T>();
            DataCopyPad(xLocal, xGm[off], params, pad);
            inX.EnQue(xLocal);
            if (withBias) {
                LocalTensor<T> bLocal = inBias.AllocTensor<T>();
                DataCopyPad(bLocal, biasGm[off], params, pad);
                inBias.EnQue(bLocal);
            }
            xLocal = inX.DeQue<T>();
            LocalTensor<T> yLocal = outY.AllocTensor<T>();
            Muls(yLocal, xLocal, a, n);
            Adds(yLocal, yLocal, b, n);
            if (withBias) {
                LocalTensor<T> bLocal = inBias.DeQue<T>();
                Add(yLocal, yLocal, bLocal, n);
                inBias.FreeTensor(bLocal);
            }
            outY.EnQue(yLocal);
            inX.FreeTensor(xLocal);
            yLocal = outY.DeQue<T>();
            DataCopyPad(yGm[off], yLocal, params);
            outY.FreeTensor(yLocal);
        }
    }

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inX, inBias;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outY;
    GlobalTensor<T> xGm, biasGm, yGm;
    uint32_t length = 0, tile = 0;
    bool withBias = false;
    T a, b;
};

extern "C" __global__ __aicore__ void scale_shift(GM_ADDR x, GM_ADDR bias, GM_ADDR y, GM_ADDR workspace,
                                                  GM_ADDR tiling)
{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    GET_TILING_DATA(t, tiling);
    if (TILING_KEY_IS(1)) {
        KernelScaleShift<half> op;
        op.Init(x, bias, y, t.totalLength, t.blockLength, t.tileLength, t.hasBias, t.alpha, t.beta);
        op.Process();
    } else if (TILING_KEY_IS(2)) {
        KernelScaleShift<float> op;
        op.Init(x, bias, y, t.totalLength, t.blockLength, t.tileLength, t.hasBias, t.alpha, t.beta);
        op.Process();
    }
}
