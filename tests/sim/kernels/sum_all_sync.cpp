// Whole-tensor sum across blocks: each block reduces its share and stores the partial in the
// user workspace; SyncAll; block 0 adds the partials.  `badBlock` makes one block read past the
// end of x before the barrier (to check that a failing block does not leave the others waiting);
// BUG_SKIP_BARRIER makes block 1 return before it (a deadlock the simulator reports).
#include "kernel_operator.h"

extern "C" __global__ __aicore__ void sum_all(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, uint32_t perBlock,
                                              int32_t badBlock)
{
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> dataBuf, workBuf, outBuf;
    pipe.InitBuffer(dataBuf, perBlock * sizeof(float));
    pipe.InitBuffer(workBuf, perBlock * sizeof(float));
    pipe.InitBuffer(outBuf, 8 * sizeof(float));
    int64_t idx = AscendC::GetBlockIdx();
    int64_t blocks = AscendC::GetBlockNum();
    AscendC::GlobalTensor<float> xGm, yGm, wsGm;
    xGm.SetGlobalBuffer((__gm__ float *)x + perBlock * idx, perBlock);
    yGm.SetGlobalBuffer((__gm__ float *)y, 8);
    wsGm.SetGlobalBuffer((__gm__ float *)AscendC::GetUserWorkspace(workspace), blocks * 8);
    AscendC::LocalTensor<float> data = dataBuf.Get<float>();
    AscendC::LocalTensor<float> work = workBuf.Get<float>();
    AscendC::LocalTensor<float> out = outBuf.Get<float>();
    if (idx == badBlock) {
        AscendC::DataCopy(data, xGm[perBlock * blocks], perBlock);  // past the end of x
    } else {
        AscendC::DataCopy(data, xGm, perBlock);
    }
    AscendC::SetFlag<AscendC::HardEvent::MTE2_V>(EVENT_ID0);
    AscendC::WaitFlag<AscendC::HardEvent::MTE2_V>(EVENT_ID0);
    AscendC::Duplicate(out, 0.0f, 8);
    AscendC::ReduceSum(out, data, work, perBlock);
    AscendC::SetFlag<AscendC::HardEvent::V_MTE3>(EVENT_ID0);
    AscendC::WaitFlag<AscendC::HardEvent::V_MTE3>(EVENT_ID0);
    AscendC::DataCopy(wsGm[idx * 8], out, 8);
#ifdef BUG_SKIP_BARRIER
    if (idx == 1) return;   // block 1 never reaches the barrier the others wait at
#endif
    AscendC::SyncAll();
    if (idx == 0) {
        AscendC::LocalTensor<float> parts = dataBuf.Get<float>(static_cast<uint32_t>(blocks * 8));
        AscendC::DataCopy(parts, wsGm, static_cast<uint32_t>(blocks * 8));
        float total = 0.0f;
        for (int64_t b = 0; b < blocks; ++b) {
            total += parts.GetValue(static_cast<uint32_t>(b * 8));
        }
        AscendC::Duplicate(out, 0.0f, 8);
        out.SetValue(0, total);
        AscendC::SetFlag<AscendC::HardEvent::V_MTE3>(EVENT_ID0);
        AscendC::WaitFlag<AscendC::HardEvent::V_MTE3>(EVENT_ID0);
        AscendC::DataCopy(yGm, out, 8);
    }
}
