// ascendcraft AscendC CPU simulator: "tiling/tiling_api.h", the host tiling API header.
//
// Provides TCubeTiling in both spellings (the kernel's ::TCubeTiling and the host's
// optiling::TCubeTiling are the same struct here) and a small host Matmul tiler
// (matmul_tiling::MatmulApiTiling / MultiCoreMatmulTiling) with the documented call sequence:
// SetDim, SetA/B/C/BiasType, SetShape, SetOrgShape, SetSingleShape, SetFixSplit, SetBias,
// SetBufferSpace, GetTiling.  Its split is the simulator's own (a core grid over M x N,
// 16-aligned single-core tiles, base block (128, 256, 64) clipped to the tile); the simulated
// Matmul only reads the shapes.  Host code of a foreign source is compiled, never run by
// build_kernel/run_kernel; a test may call the tiler from its own code.
#pragma once
#include <cstdint>
#include "../register/tilingdata_base.h"
#include "../asc_sim/tiling_def.h"      // TCubeTiling
#include "../platform/platform_ascendc.h"

namespace optiling {
using ::TCubeTiling;
}
// The host adv-API tiling helpers: the work-buffer sizes of Sigmoid and Mean, by the formulas of
// asc-devkit impl/adv_api/tiling/activation/sigmoid_tiling_impl.cpp and reduce/mean_tiling.cpp (bytes).
// Others (SoftMaxTilingFunc, ...) are not provided.
namespace AscendC {
template <typename Shape>   // ge::Shape (or the newer TensorShape): anything with GetShapeSize()
inline void GetSigmoidMaxMinTmpSize(const Shape& srcShape, const uint32_t typeSize, const bool isReuseSource,
                                    uint32_t& maxValue, uint32_t& minValue) {
    (void)isReuseSource;
    const uint64_t bytes = static_cast<uint64_t>(srcShape.GetShapeSize()) * typeSize;
    minValue = 256;
    maxValue = bytes > 256 ? static_cast<uint32_t>(bytes) : 256;
}
inline void GetMeanMaxMinTmpSize(const uint32_t n, const uint32_t srcTypeSize, const uint32_t accTypeSize,
                                 const bool isReuseSource, uint32_t& maxSize, uint32_t& minSize) {
    (void)isReuseSource;
    if (srcTypeSize == 0 || n == 0) return;
    uint32_t perRepeat = 256 / srcTypeSize, repeats = (n + perRepeat - 1) / perRepeat;
    uint32_t work = (repeats + 31) / 32 * 32;
    if (srcTypeSize == 2 && accTypeSize == 4) {   // half accumulated in float: the float copy of n too
        const uint32_t inner = (n * srcTypeSize + 31) / 32 * 32 / srcTypeSize;
        perRepeat = 256 / 4;
        repeats = (n + perRepeat - 1) / perRepeat;
        work = (repeats + 31) / 32 * 32 + inner * 4;
    }
    maxSize = minSize = work;
}
}  // namespace AscendC

namespace matmul_tiling {
enum class DataType : int32_t {
    DT_FLOAT = 0, DT_FLOAT16 = 1, DT_INT8 = 2, DT_INT32 = 3, DT_UINT8 = 4, DT_INT16 = 6, DT_UINT16 = 7,
    DT_UINT32 = 8, DT_INT64 = 9, DT_UINT64 = 10, DT_DOUBLE = 11, DT_BOOL = 12, DT_BF16 = 27, DT_INT4 = 29,
    DT_BFLOAT16 = 33
};
enum class TPosition : int32_t {
    GM, A1, A2, B1, B2, C1, C2, CO1, CO2, VECIN, VECOUT, VECCALC, LCM = VECCALC, SPM, SHM = SPM, TSCM, MAX
};
enum class CubeFormat : int32_t { ND = 0, NZ, ZN, ZZ, NN, ND_ALIGN, SCALAR, VECTOR, ROW_MAJOR = ND, COLUMN_MAJOR = 8 };
enum class MatrixTraverse : int32_t { NOSET = 0, FIRSTM = 1, FIRSTN = 2 };
enum class MatrixMadType : int32_t { NORMAL = 0, HF32 = 1, MXMODE = 2 };
enum class DequantType : int32_t { SCALAR = 0, TENSOR = 1 };

inline int32_t DataTypeBytes(DataType t) {
    switch (t) {
        case DataType::DT_FLOAT: case DataType::DT_INT32: case DataType::DT_UINT32: return 4;
        case DataType::DT_FLOAT16: case DataType::DT_BF16: case DataType::DT_BFLOAT16: case DataType::DT_INT16:
        case DataType::DT_UINT16: return 2;
        case DataType::DT_INT64: case DataType::DT_UINT64: case DataType::DT_DOUBLE: return 8;
        default: return 1;
    }
}

struct MatTilingType {
    TPosition pos = TPosition::GM;
    CubeFormat type = CubeFormat::ND;
    DataType dataType = DataType::DT_FLOAT;
    bool isTrans = false;
};

class MatmulApiTiling {
public:
    MatmulApiTiling() = default;
    explicit MatmulApiTiling(const platform_ascendc::PlatformAscendC& /*platform*/) {}
    virtual ~MatmulApiTiling() = default;

    int32_t SetAType(TPosition pos, CubeFormat type, DataType dataType, bool isTrans = false) {
        a_ = {pos, type, dataType, isTrans};
        return 0;
    }
    int32_t SetBType(TPosition pos, CubeFormat type, DataType dataType, bool isTrans = false) {
        b_ = {pos, type, dataType, isTrans};
        return 0;
    }
    int32_t SetCType(TPosition pos, CubeFormat type, DataType dataType) {
        c_ = {pos, type, dataType, false};
        return 0;
    }
    int32_t SetBiasType(TPosition pos, CubeFormat type, DataType dataType) {
        bias_ = {pos, type, dataType, false};
        return 0;
    }
    int32_t SetDequantType(DequantType) { return 0; }
    virtual int32_t SetShape(int32_t m, int32_t n, int32_t k) {
        m_ = m;
        n_ = n;
        k_ = k;
        return 0;
    }
    int32_t SetOrgShape(int32_t orgM, int32_t orgN, int32_t orgK) { return SetOrgShape(orgM, orgN, orgK, orgK); }
    int32_t SetOrgShape(int32_t orgM, int32_t orgN, int32_t orgKa, int32_t orgKb) {
        orgM_ = orgM;
        orgN_ = orgN;
        orgKa_ = orgKa;
        orgKb_ = orgKb;
        return 0;
    }
    int32_t SetFixSplit(int32_t baseM = -1, int32_t baseN = -1, int32_t baseK = -1) {
        fixM_ = baseM;
        fixN_ = baseN;
        fixK_ = baseK;
        return 0;
    }
    int32_t SetBufferSpace(int32_t l1Size = -1, int32_t l0CSize = -1, int32_t ubSize = -1, int32_t btSize = -1) {
        (void)l1Size; (void)l0CSize; (void)ubSize; (void)btSize;
        return 0;
    }
    int32_t SetBias(bool isBias = false) {
        isBias_ = isBias;
        return 0;
    }
    int32_t EnableBias(bool isBias = false) { return SetBias(isBias); }
    int32_t SetTraverse(MatrixTraverse traverse) {
        traverse_ = traverse;
        return 0;
    }
    int32_t SetMadType(MatrixMadType) { return 0; }
    int32_t SetSplitRange(int32_t = -1, int32_t = -1, int32_t = -1, int32_t = -1, int32_t = -1, int32_t = -1) {
        return 0;
    }
    int32_t SetDoubleBuffer(bool, bool, bool, bool, bool = true, bool = true) { return 0; }
    int32_t SetMatmulConfigParams(int32_t = 1, bool = false, int32_t = 0, MatrixTraverse = MatrixTraverse::NOSET,
                                  bool = false) {
        return 0;
    }

    // Fills the tiling; returns 0, or -1 when the shape is not set (as the host API does on failure).
    int64_t GetTiling(TCubeTiling& t) {
        int32_t M = orgM_ > 0 ? orgM_ : m_, N = orgN_ > 0 ? orgN_ : n_;
        int32_t Ka = orgKa_ > 0 ? orgKa_ : k_, Kb = orgKb_ > 0 ? orgKb_ : k_;
        if (m_ <= 0 || n_ <= 0 || k_ <= 0 || M <= 0 || N <= 0 || Ka <= 0 || Kb <= 0) return -1;
        t = TCubeTiling{};
        int32_t sm = singleM_ > 0 ? singleM_ : m_, sn = singleN_ > 0 ? singleN_ : n_;
        int32_t used = 1;
        SplitCores(sm, sn, used);
        t.usedCoreNum = used;
        t.M = M;
        t.N = N;
        t.Ka = Ka;
        t.Kb = Kb;
        t.singleCoreM = sm;
        t.singleCoreN = sn;
        t.singleCoreK = singleK_ > 0 ? singleK_ : k_;
        int32_t kAlign = 32 / DataTypeBytes(a_.dataType);
        t.baseM = fixM_ > 0 ? fixM_ : Clip(128, Align(sm, 16));
        t.baseN = fixN_ > 0 ? fixN_ : Clip(256, Align(sn, 16));
        t.baseK = fixK_ > 0 ? fixK_ : Clip(DataTypeBytes(a_.dataType) >= 4 ? 32 : 64, Align(t.singleCoreK, kAlign));
        t.depthA1 = 1;
        t.depthB1 = 1;
        t.stepM = 1;
        t.stepN = 1;
        t.stepKa = 1;
        t.stepKb = 1;
        t.isBias = isBias_ ? 1 : 0;
        t.iterateOrder = traverse_ == MatrixTraverse::FIRSTN ? 1 : 0;
        t.dbL0A = 2;
        t.dbL0B = 2;
        t.dbL0C = 1;
        t.batchM = 1;
        t.batchN = 1;
        t.singleBatchM = 1;
        t.singleBatchN = 1;
        return 0;
    }

protected:
    virtual void SplitCores(int32_t& sm, int32_t& sn, int32_t& used) { (void)sm; (void)sn; used = 1; }
    static int32_t Align(int32_t v, int32_t a) { return (v + a - 1) / a * a; }
    static int32_t Clip(int32_t cap, int32_t v) { return v < cap ? v : cap; }

    MatTilingType a_, b_, c_, bias_;
    int32_t m_ = 0, n_ = 0, k_ = 0;
    int32_t orgM_ = 0, orgN_ = 0, orgKa_ = 0, orgKb_ = 0;
    int32_t singleM_ = -1, singleN_ = -1, singleK_ = -1;
    int32_t fixM_ = -1, fixN_ = -1, fixK_ = -1;
    bool isBias_ = false;
    MatrixTraverse traverse_ = MatrixTraverse::NOSET;
};

class MultiCoreMatmulTiling : public MatmulApiTiling {
public:
    MultiCoreMatmulTiling() = default;
    explicit MultiCoreMatmulTiling(const platform_ascendc::PlatformAscendC& platform) : MatmulApiTiling(platform) {}
    int32_t SetDim(int32_t dim) {
        dim_ = dim;
        return 0;
    }
    int32_t SetSingleShape(int32_t singleM = -1, int32_t singleN = -1, int32_t singleK = -1) {
        singleM_ = singleM;
        singleN_ = singleN;
        singleK_ = singleK;
        return 0;
    }
    int32_t GetSingleShape(int32_t& shapeM, int32_t& shapeN, int32_t& shapeK) {
        shapeM = lastM_;
        shapeN = lastN_;
        shapeK = singleK_ > 0 ? singleK_ : k_;
        return 0;
    }
    int32_t GetCoreNum(int32_t& dim, int32_t& mDim, int32_t& nDim) {
        dim = lastMDim_ * lastNDim_;
        mDim = lastMDim_;
        nDim = lastNDim_;
        return 0;
    }

protected:
    // A grid of mDim x nDim cores (mDim * nDim <= dim) over M x N with 16-aligned tiles: the
    // grid that uses the most cores, then the squarest tile.
    void SplitCores(int32_t& sm, int32_t& sn, int32_t& used) override {
        int32_t dim = dim_ > 0 ? dim_ : 1;
        if (singleM_ > 0 && singleN_ > 0) {
            sm = singleM_;
            sn = singleN_;
        } else {
            int32_t bestUsed = 0, bestM = m_, bestN = n_;
            for (int32_t md = 1; md <= dim; ++md) {
                int32_t nd = dim / md;
                int32_t cm = Align((m_ + md - 1) / md, 16), cn = Align((n_ + nd - 1) / nd, 16);
                int32_t u = ((m_ + cm - 1) / cm) * ((n_ + cn - 1) / cn);
                int32_t d = cm > cn ? cm - cn : cn - cm, bd = bestM > bestN ? bestM - bestN : bestN - bestM;
                if (u > bestUsed || (u == bestUsed && d < bd)) {
                    bestUsed = u;
                    bestM = cm;
                    bestN = cn;
                }
            }
            sm = bestM;
            sn = bestN;
        }
        lastMDim_ = (m_ + sm - 1) / sm;
        lastNDim_ = (n_ + sn - 1) / sn;
        lastM_ = sm;
        lastN_ = sn;
        used = lastMDim_ * lastNDim_;
    }

private:
    int32_t dim_ = 1;
    int32_t lastM_ = 0, lastN_ = 0, lastMDim_ = 1, lastNDim_ = 1;
};

using MatmulApiTilingBase = MatmulApiTiling;
}  // namespace matmul_tiling
