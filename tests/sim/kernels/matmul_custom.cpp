// Matmul + bias through the high-level Matmul API, custom-operator style (MultiKernelBench shape):
// each block computes one singleCoreM x singleCoreN tile of C; SetTail clips the edge tiles.
#include "kernel_operator.h"
#include "lib/matmul_intf.h"

using namespace matmul;

__aicore__ inline uint32_t Ceiling(uint32_t a, uint32_t b) { return (a + b - 1) / b; }

extern "C" __global__ __aicore__ void matmul_custom(GM_ADDR a, GM_ADDR b, GM_ADDR bias, GM_ADDR c, GM_ADDR workspace,
                                                     GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    const TCubeTiling &t = tilingData.cubeTilingData;
    int32_t mBlocks = static_cast<int32_t>(Ceiling(t.M, t.singleCoreM));
    int32_t mIdx = static_cast<int32_t>(AscendC::GetBlockIdx()) % mBlocks;
    int32_t nIdx = static_cast<int32_t>(AscendC::GetBlockIdx()) / mBlocks;
    if (nIdx * t.singleCoreN >= t.N) {
        return;
    }
    AscendC::GlobalTensor<half> aGlobal, bGlobal;
    AscendC::GlobalTensor<float> biasGlobal, cGlobal;
    aGlobal.SetGlobalBuffer(reinterpret_cast<__gm__ half *>(a), t.M * t.Ka);
    bGlobal.SetGlobalBuffer(reinterpret_cast<__gm__ half *>(b), t.Kb * t.N);
    biasGlobal.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(bias), t.N);
    cGlobal.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(c), t.M * t.N);
    int32_t offsetA = mIdx * t.Ka * t.singleCoreM;
    int32_t offsetB = nIdx * t.singleCoreN;
    int32_t offsetC = mIdx * t.N * t.singleCoreM + nIdx * t.singleCoreN;
    int32_t tailM = t.M - mIdx * t.singleCoreM;
    tailM = tailM < t.singleCoreM ? tailM : t.singleCoreM;
    int32_t tailN = t.N - nIdx * t.singleCoreN;
    tailN = tailN < t.singleCoreN ? tailN : t.singleCoreN;

    Matmul<MatmulType<AscendC::TPosition::GM, CubeFormat::ND, half>, MatmulType<AscendC::TPosition::GM, CubeFormat::ND, half>,
           MatmulType<AscendC::TPosition::GM, CubeFormat::ND, float>, MatmulType<AscendC::TPosition::GM, CubeFormat::ND, float>>
        mm;
    AscendC::TPipe pipe;
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &tilingData.cubeTilingData);
    mm.SetTensorA(aGlobal[offsetA]);
    mm.SetTensorB(bGlobal[offsetB]);
    mm.SetBias(biasGlobal[offsetB]);
    mm.SetTail(tailM, tailN);
    mm.IterateAll(cGlobal[offsetC]);
    mm.End();
}
