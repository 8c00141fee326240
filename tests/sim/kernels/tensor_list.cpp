// y[j] = 2 * x[j] + j for every tensor j of the lists x and y (a CANN op's DYNAMIC input and
// output), read from the ListTensorDesc block the kernel receives: word 0 the byte offset of the
// data pointers, then per tensor (j << 32 | rank) and its dims, then the pointers. Tensors of at
// most 4096 floats, a multiple of 8 each. The count is read from the block and checked against
// `count`: a mismatch writes nothing.
#include "kernel_operator.h"

template <typename T>
__aicore__ inline __gm__ T *TensorAt(GM_ADDR list, uint32_t j)
{
    __gm__ uint64_t *words = reinterpret_cast<__gm__ uint64_t *>(list);
    return reinterpret_cast<__gm__ T *>(*(words + (words[0] >> 3) + j));
}

__aicore__ inline uint64_t ElementsOf(GM_ADDR list, uint32_t j)
{
    __gm__ uint64_t *words = reinterpret_cast<__gm__ uint64_t *>(list);
    const uint32_t rank = static_cast<uint32_t>(words[1] & 0xffffffff);
    __gm__ uint64_t *desc = words + 1 + j * (1 + rank);
    uint64_t n = 1;
    for (uint32_t d = 0; d < rank; ++d) n *= desc[1 + d];
    return n;
}

extern "C" __global__ __aicore__ void tensor_list(GM_ADDR x, GM_ADDR y, int32_t count)
{
    __gm__ uint64_t *words = reinterpret_cast<__gm__ uint64_t *>(x);
    const uint32_t rank = static_cast<uint32_t>(words[1] & 0xffffffff);
    if (static_cast<int64_t>((words[0] / 8 - 1) / (1 + rank)) != count) return;
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 4096 * sizeof(float));
    AscendC::LocalTensor<float> t = buf.Get<float>();
    for (int32_t j = static_cast<int32_t>(AscendC::GetBlockIdx()); j < count; j += AscendC::GetBlockNum()) {
        const uint32_t n = static_cast<uint32_t>(ElementsOf(x, j));
        AscendC::GlobalTensor<float> xg, yg;
        xg.SetGlobalBuffer(TensorAt<float>(x, j), n);
        yg.SetGlobalBuffer(TensorAt<float>(y, j), n);
        AscendC::DataCopy(t, xg, n);
        AscendC::SetFlag<AscendC::HardEvent::MTE2_V>(EVENT_ID0);
        AscendC::WaitFlag<AscendC::HardEvent::MTE2_V>(EVENT_ID0);
        AscendC::Muls(t, t, 2.0f, n);
        AscendC::Adds(t, t, static_cast<float>(j), n);
        AscendC::SetFlag<AscendC::HardEvent::V_MTE3>(EVENT_ID0);
        AscendC::WaitFlag<AscendC::HardEvent::V_MTE3>(EVENT_ID0);
        AscendC::DataCopy(yg, t, n);
        AscendC::SetFlag<AscendC::HardEvent::MTE3_MTE2>(EVENT_ID0);
        AscendC::WaitFlag<AscendC::HardEvent::MTE3_MTE2>(EVENT_ID0);
    }
}
