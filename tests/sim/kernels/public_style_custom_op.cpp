// Custom-operator style (op_kernel/scale_shift_custom.cpp of an msopgen project): the
// DTYPE_X / DTYPE_Y macros come from the build, the tiling from GET_TILING_DATA, and the
// tiling key picks the variant: 1 = y = x * scale + shift, 2 = y = relu(x * scale + shift).
// Each block takes an equal share; its tail (not a whole tile) is moved with DataCopyPad.
#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

template <bool withRelu> class KernelScaleShift {
public:
    __aicore__ inline KernelScaleShift() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t totalLength, uint32_t tileLength, float scale,
                                float shift)
    {
        ASSERT(GetBlockNum() != 0 && "block dim can not be zero");
        ASSERT(tileLength * sizeof(DTYPE_X) % ONE_BLK_SIZE == 0);
        uint32_t share = (totalLength + GetBlockNum() - 1) / GetBlockNum();
        share = (share + ONE_BLK_SIZE - 1) / ONE_BLK_SIZE * ONE_BLK_SIZE;
        uint32_t begin = share * GetBlockIdx();
        this->blockLength = begin >= totalLength ? 0 : (totalLength - begin < share ? totalLength - begin : share);
        this->tileLength = tileLength;
        this->scale = static_cast<DTYPE_X>(scale);
        this->shift = static_cast<DTYPE_X>(shift);
        xGm.SetGlobalBuffer((__gm__ DTYPE_X *)x + begin, this->blockLength);
        yGm.SetGlobalBuffer((__gm__ DTYPE_Y *)y + begin, this->blockLength);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, this->tileLength * sizeof(DTYPE_X));
        pipe.InitBuffer(outQueueY, BUFFER_NUM, this->tileLength * sizeof(DTYPE_Y));
    }
    __aicore__ inline void Process()
    {
        for (uint32_t off = 0; off < this->blockLength; off += this->tileLength) {
            uint32_t count = this->blockLength - off < this->tileLength ? this->blockLength - off : this->tileLength;
            CopyIn(off, count);
            Compute(count);
            CopyOut(off, count);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t off, uint32_t count)
    {
        LocalTensor<DTYPE_X> xLocal = inQueueX.AllocTensor<DTYPE_X>();
        DataCopyExtParams params{1, static_cast<uint32_t>(count * sizeof(DTYPE_X)), 0, 0, 0};
        DataCopyPadExtParams<DTYPE_X> pad{false, 0, 0, 0};
        DataCopyPad(xLocal, xGm[off], params, pad);
        inQueueX.EnQue(xLocal);
    }
    __aicore__ inline void Compute(uint32_t count)
    {
        LocalTensor<DTYPE_X> xLocal = inQueueX.DeQue<DTYPE_X>();
        LocalTensor<DTYPE_Y> yLocal = outQueueY.AllocTensor<DTYPE_Y>();
        Muls(yLocal, xLocal, this->scale, count);
        Adds(yLocal, yLocal, this->shift, count);
        if constexpr (withRelu) {
            Relu(yLocal, yLocal, count);
        }
        outQueueY.EnQue<DTYPE_Y>(yLocal);
        inQueueX.FreeTensor(xLocal);
    }
    __aicore__ inline void CopyOut(uint32_t off, uint32_t count)
    {
        LocalTensor<DTYPE_Y> yLocal = outQueueY.DeQue<DTYPE_Y>();
        DataCopyExtParams params{1, static_cast<uint32_t>(count * sizeof(DTYPE_Y)), 0, 0, 0};
        DataCopyPad(yGm[off], yLocal, params);
        outQueueY.FreeTensor(yLocal);
    }

    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueY;
    GlobalTensor<DTYPE_X> xGm;
    GlobalTensor<DTYPE_Y> yGm;
    uint32_t blockLength = 0;
    uint32_t tileLength = 0;
    DTYPE_X scale;
    DTYPE_X shift;
};

extern "C" __global__ __aicore__ void scale_shift_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    GET_TILING_DATA(tilingData, tiling);
    if (TILING_KEY_IS(1)) {
        KernelScaleShift<false> op;
        op.Init(x, y, tilingData.totalLength, tilingData.tileLength, tilingData.scale, tilingData.shift);
        op.Process();
    } else if (TILING_KEY_IS(2)) {
        KernelScaleShift<true> op;
        op.Init(x, y, tilingData.totalLength, tilingData.tileLength, tilingData.scale, tilingData.shift);
        op.Process();
    }
}
