// A stream copied through a double-buffered VECIN queue: each tile is loaded and stored unchanged.
// The copy-out must finish before its buffer's next copy-in; the kernel says so in one of three ways:
//   default:        WaitFlag<MTE3_V> after the store; FreeTensor's V_MTE2 flag is queued behind it
//   COPY_MTE3_MTE2: WaitFlag<MTE3_MTE2> after the store (the next copy-in, into the other buffer, waits too)
//   BUG_NO_WAIT:    nothing (FreeTensor's V_MTE2 does not cover MTE3's read: a race)
#include "kernel_operator.h"
using namespace AscendC;

constexpr uint32_t TILE = 2048;

extern "C" __global__ __aicore__ void copy_through_vecin(GM_ADDR x, GM_ADDR y, uint32_t tiles)
{
    TPipe pipe;
    TQue<QuePosition::VECIN, 2> q;
    pipe.InitBuffer(q, 2, TILE * sizeof(float));
    GlobalTensor<float> xGm, yGm;
    uint32_t base = GetBlockIdx() * tiles * TILE;
    xGm.SetGlobalBuffer((__gm__ float*)x + base, tiles * TILE);
    yGm.SetGlobalBuffer((__gm__ float*)y + base, tiles * TILE);
    for (uint32_t t = 0; t < tiles; ++t) {
        LocalTensor<float> a = q.AllocTensor<float>();
        DataCopy(a, xGm[t * TILE], TILE);  // @load
        q.EnQue(a);
        a = q.DeQue<float>();
        SetFlag<HardEvent::MTE2_MTE3>(EVENT_ID0);
        WaitFlag<HardEvent::MTE2_MTE3>(EVENT_ID0);
        DataCopy(yGm[t * TILE], a, TILE);  // @store
#if defined(COPY_MTE3_MTE2)
        SetFlag<HardEvent::MTE3_MTE2>(EVENT_ID1);
        WaitFlag<HardEvent::MTE3_MTE2>(EVENT_ID1);
#elif !defined(BUG_NO_WAIT)
        SetFlag<HardEvent::MTE3_V>(EVENT_ID1);
        WaitFlag<HardEvent::MTE3_V>(EVENT_ID1);
#endif
        q.FreeTensor(a);
    }
}
