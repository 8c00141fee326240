// Host tiling for public_style_matmul.cpp, written as a public TilingFunc would: the
// MultiCoreMatmulTiling sequence from tiling/tiling_api.h, printed as "name value" lines.
#include <cstdio>
#include "tiling/tiling_api.h"

int main()
{
    const int32_t M = 100, N = 200, K = 72;
    auto ascendcPlatform = platform_ascendc::PlatformAscendCManager::GetInstance();
    matmul_tiling::MultiCoreMatmulTiling cubeTiling(*ascendcPlatform);
    cubeTiling.SetDim(8);
    cubeTiling.SetAType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT16);
    cubeTiling.SetBType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT16);
    cubeTiling.SetCType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT);
    cubeTiling.SetBiasType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT);
    cubeTiling.SetShape(M, N, K);
    cubeTiling.SetOrgShape(M, N, K);
    cubeTiling.SetBias(true);
    cubeTiling.SetBufferSpace(-1, -1, -1);
    optiling::MatmulBiasCustomTilingData tiling;
    if (cubeTiling.GetTiling(tiling.cubeTilingData) == -1) {
        return 1;
    }
    uint64_t ub = 0;
    ascendcPlatform->GetCoreMemSize(platform_ascendc::CoreMemType::UB, ub);
    const TCubeTiling &t = tiling.cubeTilingData;
    std::printf("usedCoreNum %d\nM %d\nN %d\nKa %d\nKb %d\nsingleCoreM %d\nsingleCoreN %d\nsingleCoreK %d\n"
                "baseM %d\nbaseN %d\nbaseK %d\nisBias %d\nub %llu\naic %u\n",
                t.usedCoreNum, t.M, t.N, t.Ka, t.Kb, t.singleCoreM, t.singleCoreN, t.singleCoreK, t.baseM, t.baseN,
                t.baseK, t.isBias, static_cast<unsigned long long>(ub), ascendcPlatform->GetCoreNumAic());
    return 0;
}
