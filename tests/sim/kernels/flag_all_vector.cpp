// Mode-0 cross-core flags among the vector cores (KERNEL_TYPE_MIX_AIV_1_0): every block writes the
// sum of its part of x to its own slot of the workspace, all meet at flag 0, then block 0 reads
// every slot and writes the total to y. `skip` leaves the flag out (block 0 then reads slots the
// others may not have written yet: a race).
#include "kernel_operator.h"

#define SYNC(E)                                              \
    do {                                                     \
        AscendC::SetFlag<AscendC::HardEvent::E>(EVENT_ID0);  \
        AscendC::WaitFlag<AscendC::HardEvent::E>(EVENT_ID0); \
    } while (0)

extern "C" __global__ __aicore__ void flag_all(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, uint32_t n, int32_t skip)
{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIV_1_0);
    const int64_t idx = AscendC::GetBlockIdx(), blocks = AscendC::GetBlockNum();
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> dataBuf, workBuf, sumBuf;
    pipe.InitBuffer(dataBuf, n * sizeof(float));
    pipe.InitBuffer(workBuf, n * sizeof(float));
    pipe.InitBuffer(sumBuf, 8 * sizeof(float));
    AscendC::LocalTensor<float> data = dataBuf.Get<float>(), work = workBuf.Get<float>(), sum = sumBuf.Get<float>();
    AscendC::GlobalTensor<float> xGm, yGm, slots;
    xGm.SetGlobalBuffer((__gm__ float *)x + idx * n, n);
    yGm.SetGlobalBuffer((__gm__ float *)y, 8);
    slots.SetGlobalBuffer((__gm__ float *)AscendC::GetUserWorkspace(workspace), blocks * 8);
    AscendC::DataCopy(data, xGm, n);
    SYNC(MTE2_V);
    AscendC::Duplicate(sum, 0.0f, 8);
    AscendC::ReduceSum(sum, data, work, n);
    SYNC(V_MTE3);
    AscendC::DataCopy(slots[idx * 8], sum, 8);
    if (!skip) {
        AscendC::CrossCoreSetFlag<0, PIPE_MTE3>(0);   // this block's slot is written
        AscendC::CrossCoreWaitFlag(0);                // every block's is
    }
    if (idx != 0) return;
    SYNC(MTE3_MTE2);
    AscendC::LocalTensor<float> parts = dataBuf.Get<float>(static_cast<uint32_t>(blocks * 8));
    AscendC::DataCopy(parts, slots, static_cast<uint32_t>(blocks * 8));
    SYNC(MTE2_S);
    float total = 0.0f;
    for (int64_t b = 0; b < blocks; ++b) total += parts.GetValue(static_cast<uint32_t>(b * 8));
    AscendC::Duplicate(sum, 0.0f, 8);
    sum.SetValue(0, total);
    SYNC(S_MTE3);
    AscendC::DataCopy(yGm, sum, 8);
}
