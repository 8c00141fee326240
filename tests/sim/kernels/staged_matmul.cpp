// A vector tile handed to the cube through GM, as a streamed product's ub operand is: x copied in,
// doubled on the vector unit, copied out to the user workspace, and the Matmul API's A read from
// there (y = (2 x) @ w, one block, f32). Modes (one build for all): OK; NO_STAGE_WAIT (a bug): the
// Matmul call without waiting for the copy out, which the cube's read can overtake; READBACK (the
// staged tile copied back in after MTE3_MTE2, to z); READBACK_NO_WAIT (a bug): the same without it.
#include "kernel_operator.h"
#include "lib/matmul_intf.h"

using namespace matmul;

enum Mode : int32_t { OK = 0, NO_STAGE_WAIT, READBACK, READBACK_NO_WAIT };

extern "C" __global__ __aicore__ void staged_matmul(GM_ADDR x, GM_ADDR w, GM_ADDR y, GM_ADDR z, GM_ADDR workspace,
                                                    GM_ADDR tiling, int32_t mode)
{
    GET_TILING_DATA(tilingData, tiling);
    const TCubeTiling &t = tilingData.cubeTilingData;
    const int32_t n = t.M * t.Ka;
    AscendC::GlobalTensor<float> xGm, wGm, yGm, zGm, stageGm;
    xGm.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(x), n);
    wGm.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(w), t.Kb * t.N);
    yGm.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(y), t.M * t.N);
    zGm.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(z), n);
    stageGm.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(AscendC::GetUserWorkspace(workspace)), n);
    Matmul<MatmulType<AscendC::TPosition::GM, CubeFormat::ND, float>, MatmulType<AscendC::TPosition::GM, CubeFormat::ND, float>,
           MatmulType<AscendC::TPosition::GM, CubeFormat::ND, float>>
        mm;
    AscendC::TPipe pipe;
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &tilingData.cubeTilingData);
    AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 2 * n * sizeof(float));
    AscendC::LocalTensor<float> tile = buf.Get<float>();
    AscendC::LocalTensor<float> back = tile[n];
    AscendC::DataCopy(tile, xGm, n);
    AscendC::SetFlag<AscendC::HardEvent::MTE2_V>(EVENT_ID0);
    AscendC::WaitFlag<AscendC::HardEvent::MTE2_V>(EVENT_ID0);
    AscendC::Muls(tile, tile, 2.0f, n);
    AscendC::SetFlag<AscendC::HardEvent::V_MTE3>(EVENT_ID0);
    AscendC::WaitFlag<AscendC::HardEvent::V_MTE3>(EVENT_ID0);
    AscendC::DataCopy(stageGm, tile, n);
    if (mode == READBACK || mode == READBACK_NO_WAIT) {
        if (mode == READBACK) {
            AscendC::SetFlag<AscendC::HardEvent::MTE3_MTE2>(EVENT_ID0);
            AscendC::WaitFlag<AscendC::HardEvent::MTE3_MTE2>(EVENT_ID0);
        }
        AscendC::DataCopy(back, stageGm, n);
        AscendC::SetFlag<AscendC::HardEvent::MTE2_MTE3>(EVENT_ID0);
        AscendC::WaitFlag<AscendC::HardEvent::MTE2_MTE3>(EVENT_ID0);
        AscendC::DataCopy(zGm, back, n);
    }
    if (mode != NO_STAGE_WAIT) {
        AscendC::SetFlag<AscendC::HardEvent::MTE3_S>(EVENT_ID0);
        AscendC::WaitFlag<AscendC::HardEvent::MTE3_S>(EVENT_ID0);
    }
    mm.SetTensorA(stageGm);
    mm.SetTensorB(wGm);
    mm.SetTail(t.M, t.N, t.Ka);
    mm.IterateAll(yGm);
    mm.End();
}
