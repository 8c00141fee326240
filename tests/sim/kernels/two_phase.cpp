// Two parallel phases. Phase 1: block b writes y chunk b = x chunk b, block 0 zeroes z.
// SyncAll (when useSync). Phase 2: block b doubles y chunk (b + 1) % blocks, a chunk another
// block wrote in phase 1, and adds 1 to each of z's 8 elements, with SetAtomicAdd when
// `atomic` (every block writes the same 8 elements of z).
#include "kernel_operator.h"

// one cross-pipe ordering point (the pipes of E), as hand-written kernels write it
#define SYNC(E)                                              \
    do {                                                     \
        AscendC::SetFlag<AscendC::HardEvent::E>(EVENT_ID0);  \
        AscendC::WaitFlag<AscendC::HardEvent::E>(EVENT_ID0); \
    } while (0)

extern "C" __global__ __aicore__ void two_phase(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t perBlock, int32_t useSync,
                                                int32_t atomic)
{
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> dataBuf, outBuf, zBuf;
    pipe.InitBuffer(dataBuf, perBlock * sizeof(float));
    pipe.InitBuffer(outBuf, perBlock * sizeof(float));
    pipe.InitBuffer(zBuf, 8 * sizeof(float));
    int64_t idx = AscendC::GetBlockIdx();
    int64_t blocks = AscendC::GetBlockNum();
    AscendC::GlobalTensor<float> xGm, yGm, zGm;
    xGm.SetGlobalBuffer((__gm__ float *)x, perBlock * blocks);
    yGm.SetGlobalBuffer((__gm__ float *)y, perBlock * blocks);
    zGm.SetGlobalBuffer((__gm__ float *)z, 8);
    AscendC::LocalTensor<float> data = dataBuf.Get<float>();
    AscendC::LocalTensor<float> out = outBuf.Get<float>();
    AscendC::LocalTensor<float> zl = zBuf.Get<float>();
    AscendC::DataCopy(data, xGm[perBlock * idx], perBlock);
    SYNC(MTE2_MTE3);
    AscendC::DataCopy(yGm[perBlock * idx], data, perBlock);
    if (idx == 0) {
        AscendC::Duplicate(zl, 0.0f, 8);
        SYNC(V_MTE3);
        AscendC::DataCopy(zGm, zl, 8);
    }
    if (useSync) {
        AscendC::SyncAll();
    }
    int64_t next = (idx + 1) % blocks;
    SYNC(MTE3_MTE2);  // the phase-1 copy out of `data` is done before it is refilled
    AscendC::DataCopy(data, yGm[perBlock * next], perBlock);
    SYNC(MTE2_V);
    AscendC::Muls(out, data, 2.0f, perBlock);
    SYNC(MTE3_V);     // zl's phase-1 copy out is done before it is rewritten
    AscendC::Duplicate(zl, 1.0f, 8);
    SYNC(V_MTE3);
    AscendC::DataCopy(yGm[perBlock * next], out, perBlock);
    if (atomic) {
        AscendC::SetAtomicAdd<float>();
    }
    AscendC::DataCopy(zGm, zl, 8);
    AscendC::SetAtomicNone();
}
