// Kernel side of the test operator: block i scales tensor i of the list, whose address it reads
// from the list's block (word 0: the offset of the data pointers; then the pointers).
#include "kernel_operator.h"
using namespace AscendC;

template <typename T>
__aicore__ inline __gm__ T* ListItem(GM_ADDR list, uint32_t i)
{
    __gm__ uint64_t* words = reinterpret_cast<__gm__ uint64_t*>(list);
    return reinterpret_cast<__gm__ T*>(*(words + (words[0] >> 3) + i));
}

extern "C" __global__ __aicore__ void list_scale(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    const uint32_t i = GetBlockIdx();
    if (i >= t.count) return;
    const uint32_t n = t.elements[i];
    GlobalTensor<float> xGm, yGm;
    xGm.SetGlobalBuffer(ListItem<float>(x, i), n);
    yGm.SetGlobalBuffer(ListItem<float>(y, i), n);
    TPipe pipe;
    TBuf<QuePosition::VECCALC> buf;
    pipe.InitBuffer(buf, 4096 * sizeof(float));
    LocalTensor<float> a = buf.Get<float>();
    for (uint32_t k = 0; k < n; k += 4096) {
        const uint32_t m = n - k < 4096 ? n - k : 4096;
        DataCopyExtParams span{1, static_cast<uint32_t>(m * sizeof(float)), 0, 0, 0};
        PipeBarrier<PIPE_ALL>();
        DataCopyPad(a, xGm[k], span, DataCopyPadExtParams<float>{false, 0, 0, 0.0f});
        PipeBarrier<PIPE_ALL>();
        Muls(a, a, t.scale, m);
        PipeBarrier<PIPE_ALL>();
        DataCopyPad(yGm[k], a, span);
    }
}
