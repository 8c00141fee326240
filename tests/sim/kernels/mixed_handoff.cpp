// A mixed (1 AIC : 2 AIV) kernel: y = relu(a @ b). Per block, the AIC computes `tiles` product tiles
// of 32 x 32 (low-level cube path) into two workspace slots in turn and hands each to its two
// AIVs with a mode-2 flag (flag = slot); each AIV applies relu to its 16 rows and stores them, then
// gives the slot back with a mode-2 flag (4 + slot) so the AIC may overwrite it two tiles later.
// Planted bugs (`bug`, one build for all): NO_WAIT (the AIVs read without waiting for the AIC),
// NO_SET (the AIC never signals), NO_BACKPRESSURE (the AIC overwrites a slot the AIVs may still be
// reading), MODE_SWITCH (an AIV sets flag 4 in mode 1 and then in mode 2 before the first use
// completed), UB_ON_AIC (the AIC allocates Unified Buffer).
#include "kernel_operator.h"

constexpr uint32_t TM = 32, TN = 32, TK = 32, CUBE = 16, HALF_ROWS = TM / 2;

enum Bug : int32_t { NONE = 0, NO_WAIT, NO_SET, NO_BACKPRESSURE, MODE_SWITCH, UB_ON_AIC };

#define SYNC(E)                                              \
    do {                                                     \
        AscendC::SetFlag<AscendC::HardEvent::E>(EVENT_ID0);  \
        AscendC::WaitFlag<AscendC::HardEvent::E>(EVENT_ID0); \
    } while (0)

extern "C" __global__ __aicore__ void mixed_handoff(GM_ADDR a, GM_ADDR b, GM_ADDR y, GM_ADDR workspace, uint32_t tiles,
                                                    int32_t bug)
{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);
    const int64_t block = ASCEND_IS_AIC ? AscendC::GetBlockIdx() : AscendC::GetBlockIdx() / AscendC::GetTaskRation();
    AscendC::GlobalTensor<float> ws;
    ws.SetGlobalBuffer((__gm__ float *)AscendC::GetUserWorkspace(workspace) + block * 2 * TM * TN, 2 * TM * TN);
    if ASCEND_IS_AIC {
        AscendC::GlobalTensor<half> aGm, bGm;
        aGm.SetGlobalBuffer((__gm__ half *)a + block * tiles * TM * TK, tiles * TM * TK);
        bGm.SetGlobalBuffer((__gm__ half *)b, TK * TN);
        AscendC::LocalMemAllocator<AscendC::Hardware::L1> l1;
        AscendC::LocalMemAllocator<AscendC::Hardware::L0A> l0a;
        AscendC::LocalMemAllocator<AscendC::Hardware::L0B> l0b;
        AscendC::LocalMemAllocator<AscendC::Hardware::L0C> l0c;
        AscendC::LocalTensor<half> a1 = l1.Alloc<AscendC::TPosition::A1, half>(TM * TK);
        AscendC::LocalTensor<half> b1 = l1.Alloc<AscendC::TPosition::B1, half>(TK * TN);
        AscendC::LocalTensor<half> a2 = l0a.Alloc<AscendC::TPosition::A2, half>(TM * TK);
        AscendC::LocalTensor<half> b2 = l0b.Alloc<AscendC::TPosition::B2, half>(TK * TN);
        AscendC::LocalTensor<float> c1 = l0c.Alloc<AscendC::TPosition::CO1, float>(TM * TN);
        if (bug == UB_ON_AIC) {
            AscendC::TPipe cubePipe;
            AscendC::TBuf<AscendC::TPosition::VECCALC> cubeUb;
            cubePipe.InitBuffer(cubeUb, 1024);   // the AIC has no UB
        }
        AscendC::DataCopy(b1, bGm, AscendC::Nd2NzParams{1, TK, TN, 0, TN, TK, 1, 0});
        SYNC(MTE2_MTE1);
        for (uint32_t i = 0; i < TK / CUBE; ++i)
            AscendC::LoadData(b2[i * TN * CUBE], b1[i * 256], AscendC::LoadData2DParams{0, TN / CUBE, TK / CUBE, 0, 0, true, 0});
        for (uint32_t t = 0; t < tiles; ++t) {
            const uint32_t slot = t % 2;
            if (t >= 2 && bug != NO_BACKPRESSURE) AscendC::CrossCoreWaitFlag(4 + slot);   // both AIVs gave the slot back
            AscendC::DataCopy(a1, aGm[t * TM * TK], AscendC::Nd2NzParams{1, TM, TK, 0, TK, TM, 1, 0});
            SYNC(MTE2_MTE1);
            for (uint32_t i = 0; i < TM / CUBE; ++i)
                AscendC::LoadData(a2[i * TK * CUBE], a1[i * 256], AscendC::LoadData2DParams{0, TK / CUBE, TM / CUBE, 0, 0, false, 0});
            SYNC(MTE1_M);
            AscendC::Mmad(c1, a2, b2, AscendC::MmadParams{TM, TN, TK, 0, false, true});
            SYNC(M_FIX);
            AscendC::Fixpipe(ws[slot * TM * TN], c1, AscendC::FixpipeParamsV220{TN, TM, TM, TN, false, NoQuant, 0, 1, 0, 0, 0});
            if (bug != NO_SET) AscendC::CrossCoreSetFlag<2, PIPE_FIX>(slot);   // the tile is in the slot
            SYNC(FIX_M);
            SYNC(M_MTE1);
            SYNC(MTE1_MTE2);
        }
    }
    if ASCEND_IS_AIV {
        const uint32_t sub = AscendC::GetSubBlockIdx();
        AscendC::TPipe pipe;
        AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
        pipe.InitBuffer(buf, HALF_ROWS * TN * sizeof(float));
        AscendC::LocalTensor<float> x = buf.Get<float>();
        AscendC::GlobalTensor<float> yGm;
        yGm.SetGlobalBuffer((__gm__ float *)y + block * tiles * TM * TN, tiles * TM * TN);
        for (uint32_t t = 0; t < tiles; ++t) {
            const uint32_t slot = t % 2;
            if (bug != NO_WAIT) AscendC::CrossCoreWaitFlag(slot);
            AscendC::DataCopy(x, ws[slot * TM * TN + sub * HALF_ROWS * TN], HALF_ROWS * TN);
            if (bug == MODE_SWITCH && sub == 0) AscendC::CrossCoreSetFlag<1, PIPE_MTE2>(4 + slot);
            if (t + 2 < tiles) AscendC::CrossCoreSetFlag<2, PIPE_MTE2>(4 + slot);   // the slot is read
            SYNC(MTE2_V);
            AscendC::Relu(x, x, HALF_ROWS * TN);
            SYNC(V_MTE3);
            AscendC::DataCopy(yGm[t * TM * TN + sub * HALF_ROWS * TN], x, HALF_ROWS * TN);
            SYNC(MTE3_MTE2);
        }
    }
}
