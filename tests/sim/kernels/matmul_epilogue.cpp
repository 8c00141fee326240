// Matmul + bias with a fused leaky-relu epilogue through the high-level API's Iterate /
// GetTensorC to UB (its vector post-processing form): each block computes one singleCoreM x
// singleCoreN tile of C, one baseM x baseN block per Iterate (M first); GetTensorC brings the block
// into UB, the vector unit applies leaky relu and copies it out. `mode` (one build for all):
// OUT_GM: GetTensorC straight to GM, no epilogue (must equal IterateAll); NO_ITERATE (a bug):
// GetTensorC before any Iterate; ASYNC: Iterate<false> once, every block computed ahead into the
// user workspace, GetTensorC<false> per block; ASYNC_NO_WORKSPACE (a bug): the same without
// SetWorkspace.
#include "kernel_operator.h"
#include "lib/matmul_intf.h"

using namespace matmul;

enum Mode : int32_t { EPILOGUE = 0, OUT_GM, NO_ITERATE, ASYNC, ASYNC_NO_WORKSPACE };

__aicore__ inline int32_t Ceiling(int32_t a, int32_t b) { return (a + b - 1) / b; }

extern "C" __global__ __aicore__ void matmul_epilogue(GM_ADDR a, GM_ADDR b, GM_ADDR bias, GM_ADDR c,
                                                      GM_ADDR workspace, GM_ADDR tiling, int32_t mode)
{
    GET_TILING_DATA(tilingData, tiling);
    const TCubeTiling &t = tilingData.cubeTilingData;
    const int32_t mBlocks = Ceiling(t.M, t.singleCoreM);
    const int32_t mIdx = static_cast<int32_t>(AscendC::GetBlockIdx()) % mBlocks;
    const int32_t nIdx = static_cast<int32_t>(AscendC::GetBlockIdx()) / mBlocks;
    if (nIdx * t.singleCoreN >= t.N) return;
    AscendC::GlobalTensor<half> aGlobal, bGlobal;
    AscendC::GlobalTensor<float> biasGlobal, cGlobal;
    aGlobal.SetGlobalBuffer(reinterpret_cast<__gm__ half *>(a), t.M * t.Ka);
    bGlobal.SetGlobalBuffer(reinterpret_cast<__gm__ half *>(b), t.Kb * t.N);
    biasGlobal.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(bias), t.N);
    cGlobal.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(c), t.M * t.N);
    const int32_t offsetC = mIdx * t.N * t.singleCoreM + nIdx * t.singleCoreN;
    const int32_t tailM = t.M - mIdx * t.singleCoreM < t.singleCoreM ? t.M - mIdx * t.singleCoreM : t.singleCoreM;
    const int32_t tailN = t.N - nIdx * t.singleCoreN < t.singleCoreN ? t.N - nIdx * t.singleCoreN : t.singleCoreN;

    Matmul<MatmulType<AscendC::TPosition::GM, CubeFormat::ND, half>, MatmulType<AscendC::TPosition::GM, CubeFormat::ND, half>,
           MatmulType<AscendC::TPosition::VECIN, CubeFormat::ND, float>, MatmulType<AscendC::TPosition::GM, CubeFormat::ND, float>>
        mm;
    AscendC::TPipe pipe;
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &tilingData.cubeTilingData);
    mm.SetTensorA(aGlobal[mIdx * t.Ka * t.singleCoreM]);
    mm.SetTensorB(bGlobal[nIdx * t.singleCoreN]);
    mm.SetBias(biasGlobal[nIdx * t.singleCoreN]);
    mm.SetTail(tailM, tailN);
    if (mode == OUT_GM) {
        while (mm.Iterate()) mm.GetTensorC(cGlobal[offsetC]);
        mm.End();
        return;
    }
    AscendC::TBuf<AscendC::TPosition::VECCALC> cBuf;
    pipe.InitBuffer(cBuf, t.baseM * t.baseN * sizeof(float));
    AscendC::LocalTensor<float> block = cBuf.Get<float>();
    const int32_t mIter = Ceiling(tailM, t.baseM);
    // a block narrower than baseN fills the first columns of rows baseN apart: the gaps stay zero
    AscendC::Duplicate(block, 0.0f, static_cast<int32_t>(t.baseM * t.baseN));
    AscendC::SetFlag<AscendC::HardEvent::V_MTE2>(EVENT_ID0);
    AscendC::WaitFlag<AscendC::HardEvent::V_MTE2>(EVENT_ID0);
    if (mode == NO_ITERATE) mm.GetTensorC(block);
    const bool async = mode == ASYNC || mode == ASYNC_NO_WORKSPACE;
    if (async) {
        if (mode == ASYNC)   // each core's blocks, [singleCoreM, baseN] apiece
            mm.SetWorkspace(AscendC::GetUserWorkspace(workspace) + AscendC::GetBlockIdx() * t.singleCoreM *
                                Ceiling(t.singleCoreN, t.baseN) * t.baseN * sizeof(float),
                            t.singleCoreM * Ceiling(t.singleCoreN, t.baseN) * t.baseN * sizeof(float));
        mm.template Iterate<false>();
    }
    const int32_t blocks = mIter * Ceiling(tailN, t.baseN);
    for (int32_t it = 0; async ? it < blocks : mm.Iterate(); ++it) {
        const int32_t mi = it % mIter, ni = it / mIter;
        const int32_t rows = tailM - mi * t.baseM < t.baseM ? tailM - mi * t.baseM : t.baseM;
        const int32_t cols = tailN - ni * t.baseN < t.baseN ? tailN - ni * t.baseN : t.baseN;
        if (async) {
            mm.template GetTensorC<false>(block);
            AscendC::SetFlag<AscendC::HardEvent::MTE2_V>(EVENT_ID0);
            AscendC::WaitFlag<AscendC::HardEvent::MTE2_V>(EVENT_ID0);
        } else {
            mm.GetTensorC(block);
        }
        AscendC::LeakyRelu(block, block, 0.1f, static_cast<uint32_t>(rows * t.baseN));
        AscendC::SetFlag<AscendC::HardEvent::V_MTE3>(EVENT_ID0);
        AscendC::WaitFlag<AscendC::HardEvent::V_MTE3>(EVENT_ID0);
        AscendC::DataCopyPad(cGlobal[offsetC + mi * t.baseM * t.N + ni * t.baseN], block,
                             AscendC::DataCopyExtParams{static_cast<uint16_t>(rows), static_cast<uint32_t>(cols * 4),
                                                        static_cast<uint32_t>((t.baseN - Ceiling(cols, 8) * 8) / 8),
                                                        static_cast<uint32_t>((t.N - cols) * 4), 0});
        // the next GetTensorC overwrites the block: after this copy out (and so after the relu)
        AscendC::SetFlag<AscendC::HardEvent::MTE3_MTE2>(EVENT_ID0);
        AscendC::WaitFlag<AscendC::HardEvent::MTE3_MTE2>(EVENT_ID0);
    }
    mm.End();
}
