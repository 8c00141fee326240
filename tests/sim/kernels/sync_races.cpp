// Cross-pipe synchronisation: a small vector kernel, y = 2 x + 1 tile by tile, plus s = the sum
// of each block's first tile (a ReduceSum read back on the scalar unit). Correct as written;
// each BUG_* macro removes exactly one synchronisation, so the planted kernel still computes the
// right numbers when run in program order and only the race must be reported (rule
// missing-sync). Built once per variant by tests/sim/test_events.py.
//
// Markers: a comment `// @name` names the line of an access (or of an InitBuffer) that the
// test looks up by name; the diagnostics must point at these lines, never at fixed numbers.
//
//   (default)              TBuf<VECCALC> buffers, ordered with SetFlag/WaitFlag
//   USE_QUEUES             the same computation with TQue AllocTensor/EnQue/DeQue/FreeTensor
//   BUG_NO_WAIT_IN         no MTE2_V pair between the copy-in (@in-copy) and the Muls that reads
//                          it (@in-use)
//   BUG_NO_WAIT_OUT        no V_MTE3 pair between the Adds that writes the output tile
//                          (@out-write) and its copy-out (@out-copy)
//   BUG_TBUF_REUSE         no V_MTE2 pair: tile t+1's copy-in (@in-copy) overwrites inBuf while
//                          the Muls of tile t (@in-use) may still be reading it
//   BUG_NO_V_S             no V_S pair between ReduceSum (@reduce) and GetValue (@get-value):
//                          a race only when compiled without --cce-auto-sync (auto_sync=False)
//   BUG_QUE_NO_ENQUE_IN    (queue version) the VECIN tile is used by V without EnQue/DeQue
//   BUG_QUE_NO_ENQUE_OUT   (queue version) the VECOUT tile is copied out without EnQue/DeQue
#include "kernel_operator.h"

#if defined(BUG_QUE_NO_ENQUE_IN) || defined(BUG_QUE_NO_ENQUE_OUT)
#define USE_QUEUES 1
#endif

constexpr int32_t TILE = 256;  // floats per tile (1 KiB)

extern "C" __global__ __aicore__ void sync_races(GM_ADDR x, GM_ADDR y, GM_ADDR s, uint32_t tiles)
{
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> inBuf, outBuf, dBuf, workBuf, sumBuf, sOutBuf;
    AscendC::TQue<AscendC::QuePosition::VECIN, 2> inQ;
    AscendC::TQue<AscendC::QuePosition::VECOUT, 2> outQ;
    pipe.InitBuffer(inBuf, TILE * sizeof(float));  // @init-in
    pipe.InitBuffer(outBuf, TILE * sizeof(float));  // @init-out
    pipe.InitBuffer(inQ, 2, TILE * sizeof(float));  // @init-inq
    pipe.InitBuffer(outQ, 2, TILE * sizeof(float));  // @init-outq
    pipe.InitBuffer(dBuf, TILE * sizeof(float));
    pipe.InitBuffer(workBuf, 64 * sizeof(float));
    pipe.InitBuffer(sumBuf, 8 * sizeof(float));  // @init-sum
    pipe.InitBuffer(sOutBuf, 8 * sizeof(float));

    uint32_t blockLen = TILE * tiles;
    AscendC::GlobalTensor<float> xGm, yGm, sGm;
    xGm.SetGlobalBuffer((__gm__ float*)x + blockLen * AscendC::GetBlockIdx(), blockLen);
    yGm.SetGlobalBuffer((__gm__ float*)y + blockLen * AscendC::GetBlockIdx(), blockLen);
    sGm.SetGlobalBuffer((__gm__ float*)s + 8 * AscendC::GetBlockIdx(), 8);

#ifndef USE_QUEUES
    // ---- y = 2 x + 1 through two TBufs: every cross-pipe order is an explicit flag
    AscendC::LocalTensor<float> inT = inBuf.Get<float>();
    AscendC::LocalTensor<float> outT = outBuf.Get<float>();
    for (uint32_t t = 0; t < tiles; ++t) {
#ifndef BUG_TBUF_REUSE
        if (t > 0) AscendC::WaitFlag<AscendC::HardEvent::V_MTE2>(0);  // V has read tile t-1 from inBuf
#endif
        AscendC::DataCopy(inT, xGm[t * TILE], TILE);  // @in-copy
#ifndef BUG_NO_WAIT_IN
        AscendC::SetFlag<AscendC::HardEvent::MTE2_V>(0);
        AscendC::WaitFlag<AscendC::HardEvent::MTE2_V>(0);
#endif
        if (t > 0) AscendC::WaitFlag<AscendC::HardEvent::MTE3_V>(0);  // MTE3 has copied tile t-1 out of outBuf
        AscendC::Muls(outT, inT, 2.0f, TILE);  // @in-use
#ifndef BUG_TBUF_REUSE
        if (t + 1 < tiles) AscendC::SetFlag<AscendC::HardEvent::V_MTE2>(0);
#endif
        AscendC::Adds(outT, outT, 1.0f, TILE);  // @out-write
#ifndef BUG_NO_WAIT_OUT
        AscendC::SetFlag<AscendC::HardEvent::V_MTE3>(0);
        AscendC::WaitFlag<AscendC::HardEvent::V_MTE3>(0);
#endif
        AscendC::DataCopy(yGm[t * TILE], outT, TILE);  // @out-copy
        if (t + 1 < tiles) AscendC::SetFlag<AscendC::HardEvent::MTE3_V>(0);
    }
#else
    // ---- the same with the queue API: EnQue/DeQue and AllocTensor/FreeTensor order the pipes
    for (uint32_t t = 0; t < tiles; ++t) {
        AscendC::LocalTensor<float> xl = inQ.AllocTensor<float>();
        AscendC::DataCopy(xl, xGm[t * TILE], TILE);  // @q-in-copy
#ifndef BUG_QUE_NO_ENQUE_IN
        inQ.EnQue(xl);
        AscendC::LocalTensor<float> xd = inQ.DeQue<float>();
#else
        AscendC::LocalTensor<float> xd = xl;
#endif
        AscendC::LocalTensor<float> yl = outQ.AllocTensor<float>();
        AscendC::Muls(yl, xd, 2.0f, TILE);  // @q-in-use
        inQ.FreeTensor(xd);
        AscendC::Adds(yl, yl, 1.0f, TILE);  // @q-out-write
#ifndef BUG_QUE_NO_ENQUE_OUT
        outQ.EnQue(yl);
        AscendC::LocalTensor<float> yo = outQ.DeQue<float>();
#else
        AscendC::LocalTensor<float> yo = yl;
#endif
        AscendC::DataCopy(yGm[t * TILE], yo, TILE);  // @q-out-copy
        outQ.FreeTensor(yo);
    }
#endif

    // ---- s = sum of the block's first tile, read on the scalar unit and broadcast back
    AscendC::LocalTensor<float> dT = dBuf.Get<float>();
    AscendC::LocalTensor<float> wT = workBuf.Get<float>();
    AscendC::LocalTensor<float> sumT = sumBuf.Get<float>();
    AscendC::LocalTensor<float> sOut = sOutBuf.Get<float>();
    AscendC::DataCopy(dT, xGm, TILE);
    AscendC::SetFlag<AscendC::HardEvent::MTE2_V>(1);
    AscendC::WaitFlag<AscendC::HardEvent::MTE2_V>(1);
    AscendC::ReduceSum(sumT, dT, wT, TILE);  // @reduce
#ifndef BUG_NO_V_S
    AscendC::SetFlag<AscendC::HardEvent::V_S>(0);
    AscendC::WaitFlag<AscendC::HardEvent::V_S>(0);
#endif
    float total = sumT.GetValue(0);  // @get-value
    AscendC::Duplicate(sOut, total, 8);
    AscendC::SetFlag<AscendC::HardEvent::V_MTE3>(1);
    AscendC::WaitFlag<AscendC::HardEvent::V_MTE3>(1);
    AscendC::DataCopy(sGm, sOut, 8);
}
