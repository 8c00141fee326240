// A MIX_AIC_1_2 kernel that counts its vector cores (GetBlockIdx() in [0, GetBlockNum() *
// GetTaskRation())): y = x + 1 in 2 * GetBlockNum() chunks of `chunk` floats. With `evenOnly`, the
// first AIV of each block does its sibling's chunk too, as a kernel that leaves the second AIV
// idle does. The same HBM bytes either way: only how many cores share the bandwidth differs.
#include "kernel_operator.h"

extern "C" __global__ __aicore__ void aiv_pairs(GM_ADDR x, GM_ADDR y, uint32_t chunk, int32_t evenOnly)
{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, chunk * sizeof(float));
    AscendC::LocalTensor<float> t = buf.Get<float>();
    const int64_t cores = AscendC::GetBlockNum() * AscendC::GetTaskRation();
    AscendC::GlobalTensor<float> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ float *)x, chunk * cores);
    yGm.SetGlobalBuffer((__gm__ float *)y, chunk * cores);
    const int64_t me = AscendC::GetBlockIdx();
    for (int64_t c = me; c < cores; ++c) {
        if (evenOnly ? (me % 2 != 0 || c > me + 1) : c != me) continue;
        AscendC::DataCopy(t, xGm[chunk * c], chunk);
        AscendC::SetFlag<AscendC::HardEvent::MTE2_V>(EVENT_ID0);
        AscendC::WaitFlag<AscendC::HardEvent::MTE2_V>(EVENT_ID0);
        AscendC::Adds(t, t, 1.0f, chunk);
        AscendC::SetFlag<AscendC::HardEvent::V_MTE3>(EVENT_ID0);
        AscendC::WaitFlag<AscendC::HardEvent::V_MTE3>(EVENT_ID0);
        AscendC::DataCopy(yGm[chunk * c], t, chunk);
        AscendC::SetFlag<AscendC::HardEvent::MTE3_MTE2>(EVENT_ID0);
        AscendC::WaitFlag<AscendC::HardEvent::MTE3_MTE2>(EVENT_ID0);
    }
}
