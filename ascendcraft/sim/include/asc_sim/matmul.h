// ascendcraft AscendC CPU simulator: the high-level Matmul API (GM in, GM out).
//
// Semantics: C[singleM x singleN] (+)= A[singleM x singleK] * B[singleK x singleN] (+ bias),
// fp32 accumulation, ND layouts with row strides from SetOrgShape (or the tiling's M/N/Ka).
// Cost: base blocks (baseM x baseN x baseK) flow MTE2 (GM->L1) -> MTE1 (L1->L0) -> M -> FIX.
#pragma once
#include "vec.h"
#include "tiling.h"
#include <functional>
#include <set>

namespace AscendC {

enum class CubeFormat : uint8_t { ND = 0, NZ, ZN, ZZ, NN, ND_ALIGN, SCALAR, VECTOR, ROW_MAJOR = ND, COLUMN_MAJOR = 8 };
enum class LayoutMode : uint8_t { NONE = 0, BSNGD, SBNGD, BNGS1S2, NORMAL };

template <TPosition POSITION, CubeFormat FORMAT, typename TYPE, bool ISTRANS = false, LayoutMode LAYOUT = LayoutMode::NONE,
          bool IBSHARE = false, TPosition SRCPOS = TPosition::GM>
struct MatmulType {
    constexpr static TPosition pos = POSITION;
    constexpr static CubeFormat format = FORMAT;
    using T = TYPE;
    constexpr static bool isTrans = ISTRANS;
};

struct MatmulConfig {
    bool doNorm = true;
    bool doMultiDataLoad = false;
    bool enableInit = true;
};
inline constexpr MatmulConfig CFG_NORM{true, false, true};
inline constexpr MatmulConfig CFG_MDL{false, true, true};
inline constexpr MatmulConfig CFG_IBSHARE_NORM{true, false, true};
inline constexpr MatmulConfig GetNormalConfig() { return CFG_NORM; }
inline constexpr MatmulConfig GetMDLConfig() { return CFG_MDL; }

template <auto a = nullptr, auto b = nullptr, auto c = nullptr> struct MatmulCallBackFunc {};

template <class A_TYPE, class B_TYPE, class C_TYPE, class BIAS_TYPE = C_TYPE, const auto& MM_CFG = CFG_NORM,
          class MM_CB = MatmulCallBackFunc<>>
class MatmulImpl {
    using SrcAT = typename A_TYPE::T;
    using SrcBT = typename B_TYPE::T;
    using DstT = typename C_TYPE::T;
    using BiasT = typename BIAS_TYPE::T;

public:
    void Init(const TCubeTiling* tiling, TPipe* tpipe = nullptr, ASC_LOC_PARAM) {
        asc_sim::enter("Matmul::Init", asc_loc_);
        if (tiling == nullptr)
            asc_sim::fail("matmul-tiling", "Matmul::Init", asc_loc_, "REGIST_MATMUL_OBJ / Init got a null TCubeTiling");
        tiling_ = *tiling;
        (void)tpipe;
        inited_ = true;
        tailM_ = tiling_.singleCoreM;
        tailN_ = tiling_.singleCoreN;
        tailK_ = tiling_.singleCoreK;
        orgM_ = tiling_.M;
        orgN_ = tiling_.N;
        orgKa_ = tiling_.Ka;
        orgKb_ = tiling_.Kb;
        if (tiling_.singleCoreM <= 0 || tiling_.singleCoreN <= 0 || tiling_.singleCoreK <= 0)
            asc_sim::fail("matmul-tiling", "Matmul::Init", asc_loc_,
                          asc_sim::fmt("TCubeTiling singleCoreM/N/K = %d/%d/%d must be positive", tiling_.singleCoreM,
                                       tiling_.singleCoreN, tiling_.singleCoreK));
        // the cost model's L1 / L0 ping-pong slots
        asc_sim::State& s = asc_sim::S();
        // cost-model slots: 8 L1 stages (the prefetch depth used is depthA1, at least 2), 2 L0, 2 L0C
        // (the second used with dbL0C = 2: the next base block accumulates while FIX drains one)
        for (int i = 0; i < 12; ++i) {
            asc_sim::Buffer b;
            b.space = i < 8 ? asc_sim::SP_L1 : (i < 10 ? asc_sim::SP_L0A : asc_sim::SP_L0C);
            b.state = asc_sim::BUF_TBUF;
            b.internal = true;  // ordered by the library's own waits
            s.bufs.push_back(b);
            slot_[i] = static_cast<int>(s.bufs.size()) - 1;
        }
    }
    void SetTensorA(const GlobalTensor<SrcAT>& gm, bool isTransposeA = false) { a_ = gm; transA_ = isTransposeA || A_TYPE::isTrans; hasA_ = true; }
    void SetTensorB(const GlobalTensor<SrcBT>& gm, bool isTransposeB = false) { b_ = gm; transB_ = isTransposeB || B_TYPE::isTrans; hasB_ = true; }
    void SetBias(const GlobalTensor<BiasT>& gm) { bias_ = gm; hasBias_ = true; }
    void DisableBias() { hasBias_ = false; }
    void ClearBias() { hasBias_ = false; }
    void SetTail(int tailM = -1, int tailN = -1, int tailK = -1) {
        if (tailM > 0) tailM_ = tailM;
        if (tailN > 0) tailN_ = tailN;
        if (tailK > 0) tailK_ = tailK;
    }
    void SetSingleShape(int singleM, int singleN, int singleK) { SetTail(singleM, singleN, singleK); }
    void SetOrgShape(int orgM, int orgN, int orgK) { orgM_ = orgM; orgN_ = orgN; orgKa_ = orgK; orgKb_ = orgK; }
    void SetOrgShape(int orgM, int orgN, int orgKa, int orgKb, int orgKc = 0) {
        orgM_ = orgM; orgN_ = orgN; orgKa_ = orgKa; orgKb_ = orgKb; (void)orgKc;
    }
    void SetWorkspace(GM_ADDR, int) {}
    template <class T> void SetLocalWorkspace(const LocalTensor<T>&) {}
    template <bool sync = true>
    void IterateAll(const GlobalTensor<DstT>& gm, uint8_t enAtomic = 0, bool enSequentialWrite = false,
                    bool waitIterateAll = false, bool fakeMsg = false, ASC_LOC_PARAM) {
        (void)enSequentialWrite; (void)waitIterateAll; (void)fakeMsg;
        const char* api = "Matmul::IterateAll";
        asc_sim::enter(api, asc_loc_);
        if (!inited_) asc_sim::fail("matmul-init", api, asc_loc_, "IterateAll before REGIST_MATMUL_OBJ / Init");
        if (!hasA_ || !hasB_) asc_sim::fail("matmul-init", api, asc_loc_, "IterateAll before SetTensorA/SetTensorB");
        const int64_t M = tailM_, N = tailN_, K = tailK_;
        // row strides of the ND matrices
        const int64_t lda = transA_ ? orgM_ : orgKa_;  // A is M x K (or K x M when transposed)
        const int64_t ldb = transB_ ? orgKb_ : orgN_;  // B is K x N (or N x K)
        const int64_t ldc = orgN_;
        auto a_idx = [&](int64_t i, int64_t k) { return transA_ ? k * lda + i : i * lda + k; };
        auto b_idx = [&](int64_t k, int64_t j) { return transB_ ? j * ldb + k : k * ldb + j; };
        // GM bounds: first and last element of each operand
        asc_sim::gm_check(api, asc_loc_, a_.addr_ + a_idx(M - 1, K - 1), sizeof(SrcAT), "reads A:");
        asc_sim::gm_check(api, asc_loc_, a_.addr_, sizeof(SrcAT), "reads A:");
        asc_sim::gm_check(api, asc_loc_, b_.addr_ + b_idx(K - 1, N - 1), sizeof(SrcBT), "reads B:");
        asc_sim::gm_check(api, asc_loc_, b_.addr_, sizeof(SrcBT), "reads B:");
        // every row of an operand in scratch, for the scratch checks (harness_checks.h)
        asc_sim::note_scratch_rows(api, asc_loc_, a_.addr_, transA_ ? K : M, (transA_ ? M : K) * sizeof(SrcAT),
                                   lda * sizeof(SrcAT));
        asc_sim::note_scratch_rows(api, asc_loc_, b_.addr_, transB_ ? N : K, (transB_ ? K : N) * sizeof(SrcBT),
                                   ldb * sizeof(SrcBT));
        // every row of the C block: bounds, and the output coverage / race record (core.h gm_check);
        // enAtomic = 1 adds into C (AtomicAdd, as SetAtomicAdd does for copies): recorded as atomic
        // writes, which blocks may overlap
        const bool was_atomic = asc_sim::S().atomic_add;
        if (enAtomic) asc_sim::S().atomic_add = true;
        for (int64_t i = 0; i < M; ++i)
            asc_sim::gm_check(api, asc_loc_, gm.addr_ + i * ldc, static_cast<uint64_t>(N) * sizeof(DstT), "writes");
        asc_sim::S().atomic_add = was_atomic;
        if (hasBias_) asc_sim::gm_check(api, asc_loc_, bias_.addr_ + (N - 1), sizeof(BiasT), "reads bias:");
        cost(M, N, K);
        if (asc_sim::S().cfg.cost_only) return;
        std::vector<float> row(static_cast<size_t>(N));
        for (int64_t i = 0; i < M; ++i) {
            for (int64_t j = 0; j < N; ++j) row[j] = hasBias_ ? asc_sim::fv(bias_.addr_[j]) : 0.0f;
            for (int64_t k = 0; k < K; ++k) {
                float av = asc_sim::fv(a_.addr_[a_idx(i, k)]);
                if (transB_) {
                    for (int64_t j = 0; j < N; ++j) row[j] += av * asc_sim::fv(b_.addr_[b_idx(k, j)]);
                } else {
                    const SrcBT* brow = b_.addr_ + k * ldb;
                    for (int64_t j = 0; j < N; ++j) row[j] += av * asc_sim::fv(brow[j]);
                }
            }
            DstT* c = gm.addr_ + i * ldc;
            if (enAtomic) {
                std::lock_guard<std::mutex> lock(asc_sim::g_atomic_mu);
                for (int64_t j = 0; j < N; ++j) c[j] = static_cast<DstT>(asc_sim::fv(c[j]) + row[j]);
            } else {
                for (int64_t j = 0; j < N; ++j) c[j] = static_cast<DstT>(row[j]);
            }
        }
    }
    template <bool sync = true> bool Iterate(bool enPartialSum = false, ASC_LOC_PARAM) {
        (void)enPartialSum;
        asc_sim::fail("unsupported", "Matmul::Iterate", asc_loc_,
                      "Matmul::Iterate/GetTensorC are not simulated; use IterateAll");
    }
    template <bool sync = true, class Dst> void GetTensorC(const Dst&, uint8_t enAtomic = 0, bool enSequentialWrite = false,
                                                           ASC_LOC_PARAM) {
        (void)enAtomic; (void)enSequentialWrite;
        asc_sim::fail("unsupported", "Matmul::GetTensorC", asc_loc_,
                      "Matmul::Iterate/GetTensorC are not simulated; use IterateAll");
    }
    void End() {}

private:
    void cost(int64_t M, int64_t N, int64_t K) {
        asc_sim::State& s = asc_sim::S();
        const asc_sim::Config& c = s.cfg;
        auto cdiv = [](int64_t a, int64_t b) { return (a + b - 1) / b; };
        int64_t bm = tiling_.baseM > 0 ? tiling_.baseM : 128, bn = tiling_.baseN > 0 ? tiling_.baseN : 256,
                bk = tiling_.baseK > 0 ? tiling_.baseK : 64;
        bm = std::min(bm, M); bn = std::min(bn, N); bk = std::min(bk, K);
        double macs_pc = c.cube_macs * 2.0 / static_cast<double>(sizeof(SrcAT));  // fp16: 16x16x16/cycle
        // The first load of each A / B base tile comes from HBM (per-core share, ddr rate); later
        // loads of the same tile (other m/n blocks) are L2 hits at the l2 rate (no HBM traffic).
        // Cores whose single-core blocks lie in one block row (column) of C read the same A (B)
        // tiles at about the same point of their K walks: the shared L2 serves all but one of
        // them, so a first load costs 1/sharers of its bytes in HBM traffic at the ddr rate and
        // the rest at the l2 rate. Sharers follow the MultiKernelBench-style grid of single-core
        // blocks over the org shape (research/ascendc_api.md section 4.1), capped by the cores used.
        const int64_t mb = cdiv(M, bm), nb = cdiv(N, bn), kb = cdiv(K, bk);
        const int64_t used = std::max<int64_t>(1, tiling_.usedCoreNum);
        const double share_a = static_cast<double>(std::min<int64_t>(used, std::max<int64_t>(1, cdiv(orgN_, std::max<int64_t>(1, tiling_.singleCoreN)))));
        const double share_b = static_cast<double>(std::min<int64_t>(used, std::max<int64_t>(1, cdiv(orgM_, std::max<int64_t>(1, tiling_.singleCoreM)))));
        auto first = [&](double bytes, double sharers, double& hbm, double& cyc) {
            hbm += bytes / sharers;
            cyc += bytes / sharers / c.mte2_bpc + bytes * (1.0 - 1.0 / sharers) / c.l2_bpc;
        };
        // A base tile read before by this Matmul object, in this call or an earlier one (a batch
        // of products that share B, or one core's blocks along a row of C), is an L2 hit: the
        // key is the tile's first GM element and its extents, so another batch's tile is new.
        const int64_t lda = transA_ ? orgM_ : orgKa_, ldb = transB_ ? orgKb_ : orgN_;
        auto a_at = [&](int64_t i, int64_t k) { return a_.addr_ + (transA_ ? k * lda + i : i * lda + k); };
        auto b_at = [&](int64_t k, int64_t j) { return b_.addr_ + (transB_ ? j * ldb + k : k * ldb + j); };
        const int depth = std::max(2, std::min(8, static_cast<int>(tiling_.depthA1)));
        // two L0C slots only when two base blocks of fp32 fit L0C's 128 KiB
        const bool db_l0c = tiling_.dbL0C >= 2 && 2 * bm * bn * 4 <= 128 * 1024;
        int stage = 0, ping = 0, cslot = 10;
        for (int64_t mi = 0; mi < mb; ++mi)
            for (int64_t ni = 0; ni < nb; ++ni) {
                int64_t m = std::min(bm, M - mi * bm), n = std::min(bn, N - ni * bn);
                for (int64_t ki = 0; ki < kb; ++ki) {
                    int64_t k = std::min(bk, K - ki * bk);
                    double abytes = static_cast<double>(m * k * sizeof(SrcAT)), bbytes = static_cast<double>(k * n * sizeof(SrcBT));
                    const bool sa = !seen_.insert(TileKey{static_cast<const void*>(a_at(mi * bm, ki * bk)), m, k}).second;
                    const bool sb = !seen_.insert(TileKey{static_cast<const void*>(b_at(ki * bk, ni * bn)), k, n}).second;
                    double hbm = 0.0, cyc = 0.0;
                    if (sa) cyc += abytes / c.l2_bpc; else first(abytes, share_a, hbm, cyc);
                    if (sb) cyc += bbytes / c.l2_bpc; else first(bbytes, share_b, hbm, cyc);
                    asc_sim::Deps d1; d1.wr[0] = slot_[stage];
                    asc_sim::schedule(asc_sim::Pipe::MTE2, c.mte_overhead + cyc, d1, hbm, c.gm_latency);
                    s.stats.gm_read += static_cast<uint64_t>(hbm);
                    asc_sim::Deps d2; d2.rd[0] = slot_[stage]; d2.wr[0] = slot_[8 + ping];
                    asc_sim::schedule(asc_sim::Pipe::MTE1, c.cube_overhead + abytes / c.l1_l0a_bpc + bbytes / c.l1_l0b_bpc, d2);
                    asc_sim::Deps d3; d3.rd[0] = slot_[8 + ping]; d3.wr[0] = slot_[cslot];
                    double mcyc = std::ceil(static_cast<double>(cdiv(m, 16) * 16 * cdiv(n, 16) * 16 * cdiv(k, 16) * 16) / macs_pc);
                    asc_sim::schedule(asc_sim::Pipe::M, c.cube_overhead + mcyc, d3);
                    s.stats.cube_macs += static_cast<uint64_t>(m * n * k);
                    ping ^= 1;
                    stage = (stage + 1) % depth;
                }
                double cbytes = static_cast<double>(m * n * sizeof(DstT));
                asc_sim::Deps d4; d4.rd[0] = slot_[cslot];
                asc_sim::schedule(asc_sim::Pipe::FIX, c.cube_overhead + static_cast<double>(m * n * 4) / c.l0c_out_bpc, d4, cbytes);
                s.stats.gm_write += static_cast<uint64_t>(cbytes);
                if (db_l0c) cslot = cslot == 10 ? 11 : 10;
            }
    }
    struct TileKey {
        const void* at;
        int64_t rows, cols;
        bool operator<(const TileKey& o) const {
            return at != o.at ? std::less<const void*>()(at, o.at) : rows != o.rows ? rows < o.rows : cols < o.cols;
        }
    };
    std::set<TileKey> seen_;
    TCubeTiling tiling_{};
    GlobalTensor<SrcAT> a_;
    GlobalTensor<SrcBT> b_;
    GlobalTensor<BiasT> bias_;
    bool transA_ = false, transB_ = false, hasA_ = false, hasB_ = false, hasBias_ = false, inited_ = false;
    int64_t tailM_ = 0, tailN_ = 0, tailK_ = 0, orgM_ = 0, orgN_ = 0, orgKa_ = 0, orgKb_ = 0;
    int slot_[12] = {-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1};
};

template <class A_TYPE, class B_TYPE, class C_TYPE, class BIAS_TYPE = C_TYPE, const auto& MM_CFG = CFG_NORM,
          class MM_CB = MatmulCallBackFunc<>>
using Matmul = MatmulImpl<A_TYPE, B_TYPE, C_TYPE, BIAS_TYPE, MM_CFG, MM_CB>;

}  // namespace AscendC

namespace matmul = AscendC;

namespace asc_sim {
inline void regist_matmul(AscendC::TPipe*) {}
template <class MM, class... Rest>
inline void regist_matmul(AscendC::TPipe* pipe, MM& mm, const TCubeTiling* tiling, Rest&&... rest) {
    if (tiling != nullptr) mm.Init(tiling, pipe);
    regist_matmul(pipe, std::forward<Rest>(rest)...);
}
}  // namespace asc_sim
#define REGIST_MATMUL_OBJ(tpipe, workspace, ...) asc_sim::regist_matmul(tpipe, __VA_ARGS__)
#define REGIST_CUBE_OBJ(tpipe, workspace, ...) asc_sim::regist_matmul(tpipe, __VA_ARGS__)
