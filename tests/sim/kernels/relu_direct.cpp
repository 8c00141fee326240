// Direct-launch style ReLU (template kernel, scalar arguments), double-buffered; a tail that is
// not a whole tile is moved with DataCopyPad.
#include "kernel_operator.h"

constexpr int32_t BUFFER_NUM = 2;

template <typename T> class KernelRelu {
public:
    __aicore__ inline KernelRelu() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, int64_t totalLength, int64_t blockLength, uint32_t tileSize)
    {
        int64_t offset = blockLength * AscendC::GetBlockIdx();
        int64_t remain = totalLength - offset;
        this->length = remain < 0 ? 0 : (remain < blockLength ? remain : blockLength);
        this->tileSize = tileSize;
        xGm.SetGlobalBuffer((__gm__ T *)x + offset, this->length);
        yGm.SetGlobalBuffer((__gm__ T *)y + offset, this->length);
        pipe.InitBuffer(inQueue, BUFFER_NUM, tileSize * sizeof(T));
        pipe.InitBuffer(outQueue, BUFFER_NUM, tileSize * sizeof(T));
    }
    __aicore__ inline void Process()
    {
        int64_t tiles = this->length / this->tileSize;
        for (int64_t i = 0; i < tiles; i++) {
            CopyIn(i * this->tileSize, this->tileSize);
            Compute(this->tileSize);
            CopyOut(i * this->tileSize, this->tileSize);
        }
        uint32_t tail = static_cast<uint32_t>(this->length - tiles * this->tileSize);
        if (tail > 0) {
            CopyIn(tiles * this->tileSize, tail);
            Compute(tail);
            CopyOut(tiles * this->tileSize, tail);
        }
    }

private:
    __aicore__ inline void CopyIn(int64_t offset, uint32_t count)
    {
        AscendC::LocalTensor<T> xLocal = inQueue.AllocTensor<T>();
        if (count == this->tileSize) {
            AscendC::DataCopy(xLocal, xGm[offset], count);
        } else {
            AscendC::DataCopyExtParams copyParams{1, static_cast<uint32_t>(count * sizeof(T)), 0, 0, 0};
            AscendC::DataCopyPadExtParams<T> padParams{false, 0, 0, 0};
            AscendC::DataCopyPad(xLocal, xGm[offset], copyParams, padParams);
        }
        inQueue.EnQue(xLocal);
    }
    __aicore__ inline void Compute(uint32_t count)
    {
        AscendC::LocalTensor<T> xLocal = inQueue.DeQue<T>();
        AscendC::LocalTensor<T> yLocal = outQueue.AllocTensor<T>();
        AscendC::Relu(yLocal, xLocal, count);
        outQueue.EnQue(yLocal);
        inQueue.FreeTensor(xLocal);
    }
    __aicore__ inline void CopyOut(int64_t offset, uint32_t count)
    {
        AscendC::LocalTensor<T> yLocal = outQueue.DeQue<T>();
        if (count == this->tileSize) {
            AscendC::DataCopy(yGm[offset], yLocal, count);
        } else {
            AscendC::DataCopyExtParams copyParams{1, static_cast<uint32_t>(count * sizeof(T)), 0, 0, 0};
            AscendC::DataCopyPad(yGm[offset], yLocal, copyParams);
        }
        outQueue.FreeTensor(yLocal);
    }

    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, BUFFER_NUM> inQueue;
    AscendC::TQue<AscendC::QuePosition::VECOUT, BUFFER_NUM> outQueue;
    AscendC::GlobalTensor<T> xGm, yGm;
    int64_t length = 0;
    uint32_t tileSize = 0;
};

template <typename T>
__global__ __aicore__ void relu_kernel(GM_ADDR x, GM_ADDR y, int64_t totalLength, int64_t blockLength, uint32_t tileSize)
{
    KernelRelu<T> op;
    op.Init(x, y, totalLength, blockLength, tileSize);
    op.Process();
}
