// The cube's own copy out read back (f32, one AIC-only block): C = A B^T ([16 x 8] by [16 x 8]^T) is
// Fixpipe'd to the workspace, read back into L1 as the A of a second product with the [16 x 16] I
// given as E^T, and y = C E = C. Mode 0 orders the read after the Fixpipe (FIX_MTE2); mode 1 (a bug)
// does not: the read can overtake the copy out.
#include "kernel_operator.h"

constexpr uint16_t M = 16, K = 8, N = 16;

extern "C" __global__ __aicore__ void fixpipe_readback(GM_ADDR a, GM_ADDR bt, GM_ADDR et, GM_ADDR y, GM_ADDR workspace,
                                                       int32_t mode)
{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIC_ONLY);
    AscendC::GlobalTensor<float> aGm, btGm, etGm, yGm, cGm;
    aGm.SetGlobalBuffer((__gm__ float *)a, M * K);
    btGm.SetGlobalBuffer((__gm__ float *)bt, N * K);
    etGm.SetGlobalBuffer((__gm__ float *)et, N * N);
    yGm.SetGlobalBuffer((__gm__ float *)y, M * N);
    cGm.SetGlobalBuffer((__gm__ float *)AscendC::GetUserWorkspace(workspace), M * N);
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::A1> a1Buf;
    AscendC::TBuf<AscendC::TPosition::B1> b1Buf;
    AscendC::TBuf<AscendC::TPosition::A2> a2Buf;
    AscendC::TBuf<AscendC::TPosition::B2> b2Buf;
    AscendC::TBuf<AscendC::TPosition::CO1> cBuf;
    pipe.InitBuffer(a1Buf, M * N * sizeof(float));
    pipe.InitBuffer(b1Buf, N * N * sizeof(float));
    pipe.InitBuffer(a2Buf, M * N * sizeof(float));
    pipe.InitBuffer(b2Buf, N * N * sizeof(float));
    pipe.InitBuffer(cBuf, M * N * sizeof(float));
    AscendC::LocalTensor<float> a1 = a1Buf.Get<float>(), b1 = b1Buf.Get<float>(), a2 = a2Buf.Get<float>();
    AscendC::LocalTensor<float> b2 = b2Buf.Get<float>(), c = cBuf.Get<float>();
    for (int pass = 0; pass < 2; ++pass) {
        const uint16_t k = pass == 0 ? K : N;
        if (pass == 0) {
            AscendC::DataCopy(a1, aGm, AscendC::Nd2NzParams{1, M, K, 0, K, M, 1, 0});
            AscendC::DataCopy(b1, btGm, AscendC::Nd2NzParams{1, N, K, 0, K, N, 1, 0});
        } else {
            if (mode == 0) {
                AscendC::SetFlag<AscendC::HardEvent::FIX_MTE2>(EVENT_ID0);
                AscendC::WaitFlag<AscendC::HardEvent::FIX_MTE2>(EVENT_ID0);
            }
            AscendC::DataCopy(a1, cGm, AscendC::Nd2NzParams{1, M, N, 0, N, M, 1, 0});   // C read back
            AscendC::DataCopy(b1, etGm, AscendC::Nd2NzParams{1, N, N, 0, N, N, 1, 0});
        }
        AscendC::SetFlag<AscendC::HardEvent::MTE2_MTE1>(EVENT_ID0);
        AscendC::WaitFlag<AscendC::HardEvent::MTE2_MTE1>(EVENT_ID0);
        AscendC::LoadData(a2, a1, AscendC::LoadData2DParams{0, static_cast<uint8_t>(k / 8), 1, 0, 0, false, 0});
        AscendC::LoadData(b2, b1, AscendC::LoadData2DParams{0, static_cast<uint8_t>(k / 8), 1, 0, 0, false, 0});
        AscendC::SetFlag<AscendC::HardEvent::MTE1_M>(EVENT_ID0);
        AscendC::WaitFlag<AscendC::HardEvent::MTE1_M>(EVENT_ID0);
        AscendC::Mmad(c, a2, b2, AscendC::MmadParams{M, N, k, 0, false, true});
        AscendC::SetFlag<AscendC::HardEvent::M_FIX>(EVENT_ID0);
        AscendC::WaitFlag<AscendC::HardEvent::M_FIX>(EVENT_ID0);
        AscendC::Fixpipe(pass == 0 ? cGm : yGm, c, AscendC::FixpipeParamsV220{N, M, M, N, false, NoQuant, 0, 1, 0, 0, 0});
        AscendC::SetFlag<AscendC::HardEvent::FIX_M>(EVENT_ID0);
        AscendC::WaitFlag<AscendC::HardEvent::FIX_M>(EVENT_ID0);
        AscendC::SetFlag<AscendC::HardEvent::MTE1_MTE2>(EVENT_ID0);
        AscendC::WaitFlag<AscendC::HardEvent::MTE1_MTE2>(EVENT_ID0);
    }
}
