// Scratch in the user workspace, one chunk of perBlock floats per block. Block b loads x chunk b and,
// by mode:
//   0  writes it to scratch chunk b, reads chunk b back (its own write) and stores it to y chunk b;
//   1  writes chunk b, reads chunk b + 1 (another block's, in the same phase: a race);
//   2  as 1 with SyncAll between the write and the read (correct);
//   3  reads scratch chunk b, which no block writes (unwritten), then writes it;
//   4  every block writes chunk 0 (a race between writers), SyncAll, reads chunk 0.
// y chunk b gets what was read.
#include "kernel_operator.h"

#define SYNC(E)                                              \
    do {                                                     \
        AscendC::SetFlag<AscendC::HardEvent::E>(EVENT_ID0);  \
        AscendC::WaitFlag<AscendC::HardEvent::E>(EVENT_ID0); \
    } while (0)

extern "C" __global__ __aicore__ void scratch_phases(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, uint32_t perBlock,
                                                     int32_t mode)
{
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> dataBuf;
    pipe.InitBuffer(dataBuf, perBlock * sizeof(float));
    int64_t idx = AscendC::GetBlockIdx();
    int64_t blocks = AscendC::GetBlockNum();
    AscendC::GlobalTensor<float> xGm, yGm, sGm;
    xGm.SetGlobalBuffer((__gm__ float *)x, perBlock * blocks);
    yGm.SetGlobalBuffer((__gm__ float *)y, perBlock * blocks);
    sGm.SetGlobalBuffer((__gm__ float *)AscendC::GetUserWorkspace(workspace), perBlock * blocks);
    AscendC::LocalTensor<float> data = dataBuf.Get<float>();
    AscendC::DataCopy(data, xGm[perBlock * idx], perBlock);
    SYNC(MTE2_MTE3);
    int64_t from = idx;
    if (mode == 3) {
        AscendC::DataCopy(data, sGm[perBlock * idx], perBlock);
        SYNC(MTE2_MTE3);
    }
    AscendC::DataCopy(sGm[perBlock * (mode == 4 ? 0 : idx)], data, perBlock);
    if (mode == 2 || mode == 4) {
        AscendC::SyncAll();
    }
    if (mode == 1 || mode == 2) {
        from = (idx + 1) % blocks;
    } else if (mode == 4) {
        from = 0;
    }
    SYNC(MTE3_MTE2);
    AscendC::DataCopy(data, sGm[perBlock * from], perBlock);
    SYNC(MTE2_MTE3);
    AscendC::DataCopy(yGm[perBlock * idx], data, perBlock);
}
