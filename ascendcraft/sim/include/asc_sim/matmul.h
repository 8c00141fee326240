// ascendcraft AscendC CPU simulator: the high-level Matmul API (GM in, GM out).
//
// Semantics: C[singleM x singleN] (+)= A[singleM x singleK] * B[singleK x singleN] (+ bias),
// fp32 accumulation, ND layouts with row strides from SetOrgShape (or the tiling's M/N/Ka).
// Cost: base blocks (baseM x baseN x baseK) flow MTE2 (GM->L1) -> MTE1 (L1->L0) -> M -> FIX.
#pragma once
#include "vec.h"
#include "tiling.h"
#include <deque>
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
        asc_sim::State& s = asc_sim::S();
        // the operand stages the object keeps in L1: depthA1 base tiles of A and depthB1 of B
        const uint64_t l1_need =
            static_cast<uint64_t>(std::max(2, tiling_.depthA1)) * tiling_.baseM * tiling_.baseK * sizeof(SrcAT) +
            static_cast<uint64_t>(std::max(2, tiling_.depthB1)) * tiling_.baseK * tiling_.baseN * sizeof(SrcBT);
        if (tiling_.baseM > 0 && tiling_.baseN > 0 && tiling_.baseK > 0 && l1_need > s.cfg.l1_bytes)
            asc_sim::fail("matmul-tiling", "Matmul::Init", asc_loc_,
                          asc_sim::fmt("depthA1 = %d and depthB1 = %d stages of %d x %d x %d base tiles take %llu bytes "
                                       "of L1, which holds %u", tiling_.depthA1, tiling_.depthB1, tiling_.baseM,
                                       tiling_.baseN, tiling_.baseK, static_cast<unsigned long long>(l1_need),
                                       s.cfg.l1_bytes));
        // the cost model's L1 / L0 ping-pong slots
        // cost-model slots: 8 L1 stages (the prefetch depth used is depthA1, at least 2), 2 L0, 2 L0C
        // (the second used with dbL0C = 2: the next base block accumulates while FIX drains one)
        // and the GM workspace a block goes through on its way to UB (GetTensorC)
        for (int i = 0; i < 13; ++i) {
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
    // the workspace Iterate<false> drains its blocks to (its size is checked; the blocks' GM traffic
    // is charged at the L2 rate, the workspace staying resident)
    template <class T> void SetWorkspace(__gm__ const T* addr, int size) {   // size in elements
        workspace_bytes_ = addr == nullptr ? 0 : static_cast<int64_t>(size) * static_cast<int64_t>(sizeof(T));
    }
    template <class T> void SetWorkspace(GlobalTensor<T>& addr) {
        workspace_bytes_ = static_cast<int64_t>(addr.size_ * sizeof(T));
    }
    template <class T> void SetLocalWorkspace(const LocalTensor<T>&) {}
    template <bool sync = true>
    void IterateAll(const GlobalTensor<DstT>& gm, uint8_t enAtomic = 0, bool enSequentialWrite = false,
                    bool waitIterateAll = false, bool fakeMsg = false, ASC_LOC_PARAM) {
        (void)enSequentialWrite; (void)waitIterateAll; (void)fakeMsg;
        const char* api = "Matmul::IterateAll";
        asc_sim::enter(api, asc_loc_);
        check_operands(api, asc_loc_);
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
        reads_ordered();
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
            product_row(i, 0, N, row.data());
            DstT* c = gm.addr_ + i * orgN_;
            if (enAtomic) {
                std::lock_guard<std::mutex> lock(asc_sim::g_atomic_mu);
                for (int64_t j = 0; j < N; ++j) c[j] = static_cast<DstT>(asc_sim::fv(c[j]) + row[j]);
            } else {
                for (int64_t j = 0; j < N; ++j) c[j] = static_cast<DstT>(row[j]);
            }
        }
    }
    // Iterate: the next baseM x baseN block of the single-core C over all of K, M first
    // (iterateOrder 0) or N first (1), into the library's L0C; false once every block was
    // returned, and the next call starts over (Iterate.md). GetTensorC takes the block out.
    // Iterate<false> (asynchronous, Iterate.md / GetTensorC.md): one call starts every block of the
    // single-core C; the cube computes them back to back, each drained to the library's workspace
    // (SetWorkspace) as it is done, while the caller goes on; GetTensorC<false> takes them to UB in
    // iteration order.
    template <bool sync = true> bool Iterate(bool enPartialSum = false, ASC_LOC_PARAM) {
        if constexpr (!sync) return iterate_async(enPartialSum, asc_loc_);
        const char* api = "Matmul::Iterate";
        asc_sim::enter(api, asc_loc_);
        if (enPartialSum) asc_sim::fail("unsupported", api, asc_loc_, "Iterate(enPartialSum = true) is not simulated");
        check_operands(api, asc_loc_);
        const Grid g = grid(tailM_, tailN_, tailK_);
        if (iter_ == 0) {
            reads_ordered();
            start_cost();
        }
        if (iter_ >= g.mb * g.nb) {
            iter_ = 0;
            block_ready_ = false;
            return false;
        }
        const bool m_first = tiling_.iterateOrder == 0;
        cur_mi_ = m_first ? iter_ % g.mb : iter_ / g.nb;
        cur_ni_ = m_first ? iter_ / g.mb : iter_ % g.nb;
        ++iter_;
        cur_m_ = std::min(g.bm, tailM_ - cur_mi_ * g.bm);
        cur_n_ = std::min(g.bn, tailN_ - cur_ni_ * g.bn);
        multiply_block(g, cur_mi_, cur_ni_);
        block_ready_ = true;
        if (!asc_sim::S().cfg.cost_only) {
            block_.assign(static_cast<size_t>(cur_m_ * cur_n_), 0.0f);
            for (int64_t i = 0; i < cur_m_; ++i)
                product_row(cur_mi_ * g.bm + i, cur_ni_ * g.bn, cur_n_, block_.data() + i * cur_n_);
        }
        return true;
    }
    // The block to GM: at its place in the single-core C (row pitch N), or packed [m, n] from `gm`
    // with enSequentialWrite.
    template <bool sync = true> void GetTensorC(const GlobalTensor<DstT>& gm, uint8_t enAtomic = 0,
                                                bool enSequentialWrite = false, ASC_LOC_PARAM) {
        const char* api = "Matmul::GetTensorC";
        asc_sim::enter(api, asc_loc_);
        take_block(api, asc_loc_);
        const Grid g = grid(tailM_, tailN_, tailK_);
        const int64_t ldc = enSequentialWrite ? cur_n_ : orgN_;
        DstT* at = gm.addr_ + (enSequentialWrite ? 0 : cur_mi_ * g.bm * ldc + cur_ni_ * g.bn);
        const bool was_atomic = asc_sim::S().atomic_add;
        if (enAtomic) asc_sim::S().atomic_add = true;
        for (int64_t i = 0; i < cur_m_; ++i)
            asc_sim::gm_check(api, asc_loc_, at + i * ldc, static_cast<uint64_t>(cur_n_) * sizeof(DstT), "writes");
        asc_sim::S().atomic_add = was_atomic;
        drain_block(cur_m_, cur_n_, true);
        if (asc_sim::S().cfg.cost_only) return;
        std::lock_guard<std::mutex> lock(asc_sim::g_atomic_mu);
        for (int64_t i = 0; i < cur_m_; ++i)
            for (int64_t j = 0; j < cur_n_; ++j) {
                DstT& c = at[i * ldc + j];
                const float v = block_[static_cast<size_t>(i * cur_n_ + j)];
                c = static_cast<DstT>(enAtomic ? asc_sim::fv(c) + v : v);
            }
    }
    // The block to UB (VECIN), ready for the vector unit when the call returns (sync). On the 910B
    // the block goes L0C -> GM workspace (FIX) -> UB (MTE2, an L2 hit). Its m rows lie baseN apart
    // ("[baseM, baseN]", GetTensorC.md's enSequentialWrite); a block narrower than baseN (the tail of
    // the single-core N) fills the first n elements of each row, and the rest of the row is left as
    // it was. [UNCERTAIN] whether the hardware writes those gaps is not documented: kernels must not
    // rely on their contents. Every block lands at the tensor's start, with or without
    // enSequentialWrite (the emitter passes it).
    template <bool sync = true> void GetTensorC(const LocalTensor<DstT>& ub, uint8_t enAtomic = 0,
                                                bool enSequentialWrite = false, ASC_LOC_PARAM) {
        if constexpr (!sync) {
            take_pending(ub, enAtomic, asc_loc_);
            return;
        }
        const char* api = "Matmul::GetTensorC";
        asc_sim::enter(api, asc_loc_);
        take_block(api, asc_loc_);
        check_ub(api, asc_loc_, ub, enAtomic);
        (void)enSequentialWrite;
        drain_block(cur_m_, cur_n_, false);
        asc_sim::Deps d;
        d.rd[0] = slot_[12];
        copy_to_ub(api, asc_loc_, ub, cur_m_, cur_n_, block_, d);
        // sync: the call returns with the block in UB, every pipe ordered after the copy
        const asc_sim::EventMark copied = asc_sim::mark_on(static_cast<int>(asc_sim::Pipe::MTE2));
        for (asc_sim::Pipe p : {asc_sim::Pipe::S, asc_sim::Pipe::V, asc_sim::Pipe::MTE3})
            asc_sim::wait_on(static_cast<int>(p), copied);
    }
    void End() {}

private:
    // A block Iterate<false> computed: its extents, its values, and the end of its drain.
    struct Pending {
        int64_t m = 0, n = 0;
        std::vector<float> values;
        asc_sim::EventMark drained;
    };
    bool iterate_async(bool enPartialSum, const asc_sim::Loc& loc) {
        const char* api = "Matmul::Iterate<false>";
        asc_sim::enter(api, loc);
        if (enPartialSum) asc_sim::fail("unsupported", api, loc, "Iterate(enPartialSum = true) is not simulated");
        check_operands(api, loc);
        if (workspace_bytes_ <= 0)
            asc_sim::fail("matmul-init", api, loc, "Iterate<false> needs a workspace for the blocks it computes ahead: "
                          "SetWorkspace(addr, bytes) first");
        if (!pending_.empty())
            asc_sim::fail("matmul-init", api, loc,
                          asc_sim::fmt("Iterate<false> while %zu block(s) of the last call are not taken: each is taken "
                                       "by GetTensorC<false> first", pending_.size()));
        const Grid g = grid(tailM_, tailN_, tailK_);
        const uint64_t need = static_cast<uint64_t>(tailM_) * static_cast<uint64_t>(g.nb * g.bn) * sizeof(DstT);
        if (need > static_cast<uint64_t>(workspace_bytes_))
            asc_sim::fail("matmul-init", api, loc,
                          asc_sim::fmt("Iterate<false> computes %lld x %lld blocks ahead (%llu bytes), the workspace holds "
                                       "%lld", static_cast<long long>(g.mb), static_cast<long long>(g.nb),
                                       static_cast<unsigned long long>(need), static_cast<long long>(workspace_bytes_)));
        reads_ordered();
        start_cost();
        const bool m_first = tiling_.iterateOrder == 0;
        for (int64_t it = 0; it < g.mb * g.nb; ++it) {
            const int64_t mi = m_first ? it % g.mb : it / g.nb, ni = m_first ? it / g.mb : it % g.nb;
            Pending p;
            p.m = std::min(g.bm, tailM_ - mi * g.bm);
            p.n = std::min(g.bn, tailN_ - ni * g.bn);
            multiply_block(g, mi, ni);
            drain_block(p.m, p.n, false);
            p.drained = asc_sim::mark_on(static_cast<int>(asc_sim::Pipe::FIX));
            if (!asc_sim::S().cfg.cost_only) {
                p.values.assign(static_cast<size_t>(p.m * p.n), 0.0f);
                for (int64_t i = 0; i < p.m; ++i) product_row(mi * g.bm + i, ni * g.bn, p.n, p.values.data() + i * p.n);
            }
            pending_.push_back(std::move(p));
        }
        return true;
    }
    // GetTensorC<false> to UB: the oldest block computed ahead, copied from the workspace once its
    // drain is done (MTE2 at the L2 rate), rows baseN apart as in the synchronous form; the caller
    // orders its vector work after the copy (MTE2_V).
    void take_pending(const LocalTensor<DstT>& ub, uint8_t enAtomic, const asc_sim::Loc& loc) {
        const char* api = "Matmul::GetTensorC<false>";
        asc_sim::enter(api, loc);
        check_operands(api, loc);
        if (pending_.empty())
            asc_sim::fail("matmul-init", api, loc, "GetTensorC<false> with no block computed ahead: Iterate<false>() "
                          "starts them, and each is taken once");
        check_ub(api, loc, ub, enAtomic);
        Pending p = std::move(pending_.front());
        pending_.pop_front();
        asc_sim::wait_on(static_cast<int>(asc_sim::Pipe::MTE2), p.drained);
        copy_to_ub(api, loc, ub, p.m, p.n, p.values, asc_sim::Deps{});
    }
    void check_ub(const char* api, const asc_sim::Loc& loc, const LocalTensor<DstT>& ub, uint8_t enAtomic) const {
        if (enAtomic) asc_sim::fail("unsupported", api, loc, "GetTensorC to UB with enAtomic is not simulated");
        if (ub.sp_ != asc_sim::SP_UB)
            asc_sim::fail("position", api, loc, "GetTensorC takes a GlobalTensor or a LocalTensor in UB (VECIN)");
    }
    // An m x n block from the workspace to UB (MTE2, an L2 hit; `d` adds what the copy waits for):
    // its rows baseN apart, the first n values of each written.
    void copy_to_ub(const char* api, const asc_sim::Loc& loc, const LocalTensor<DstT>& ub, int64_t m, int64_t n,
                    const std::vector<float>& values, asc_sim::Deps d) {
        const int64_t pitch = tiling_.baseN > 0 ? tiling_.baseN : n;
        asc_sim::use_local(api, loc, "dst", ub, static_cast<uint64_t>((m - 1) * pitch + n), true);
        asc_sim::State& s = asc_sim::S();
        d.wr[0] = ub.buf_;
        const double bytes = static_cast<double>(m * n) * sizeof(DstT);
        asc_sim::schedule(asc_sim::Pipe::MTE2, s.cfg.mte_overhead + bytes / s.cfg.l2_bpc, d, 0.0, s.cfg.gm_latency);
        if (s.cfg.cost_only) return;
        for (int64_t i = 0; i < m; ++i) {
            for (int64_t j = 0; j < n; ++j)
                ub.ptr()[i * pitch + j] = static_cast<DstT>(values[static_cast<size_t>(i * n + j)]);
            asc_sim::wrote(ub[static_cast<uint32_t>(i * pitch)], static_cast<uint64_t>(n));
        }
    }
    struct Grid {
        int64_t bm, bn, bk, mb, nb, kb;
    };
    Grid grid(int64_t M, int64_t N, int64_t K) const {
        auto cdiv = [](int64_t a, int64_t b) { return (a + b - 1) / b; };
        int64_t bm = tiling_.baseM > 0 ? tiling_.baseM : 128, bn = tiling_.baseN > 0 ? tiling_.baseN : 256,
                bk = tiling_.baseK > 0 ? tiling_.baseK : 64;
        bm = std::min(bm, M); bn = std::min(bn, N); bk = std::min(bk, K);
        return Grid{bm, bn, bk, cdiv(M, bm), cdiv(N, bn), cdiv(K, bk)};
    }
    // The cube reads A and B from GM (its copy-in on the AIC): a copy of this core into them must have
    // landed first, which the scalar unit that sends the call waits for.
    void reads_ordered() const {
        const int64_t M = tailM_, N = tailN_, K = tailK_;
        if (M <= 0 || N <= 0 || K <= 0) return;
        const int64_t lda = transA_ ? orgM_ : orgKa_, ldb = transB_ ? orgKb_ : orgN_;
        const int64_t a_rows = transA_ ? K : M, a_cols = transA_ ? M : K;
        const int64_t b_rows = transB_ ? N : K, b_cols = transB_ ? K : N;
        const char* advice = "SetFlag/WaitFlag<HardEvent::MTE3_S> after the copy, before the Matmul call (the scalar "
                             "unit sends the call on to the cube)";
        asc_sim::gm_read_ordered(a_.addr_, static_cast<uint64_t>(a_cols) * sizeof(SrcAT),
                                 static_cast<uint64_t>(lda) * sizeof(SrcAT), static_cast<uint64_t>(a_rows),
                                 static_cast<int>(asc_sim::Pipe::AIC_MTE2), advice);
        asc_sim::gm_read_ordered(b_.addr_, static_cast<uint64_t>(b_cols) * sizeof(SrcBT),
                                 static_cast<uint64_t>(ldb) * sizeof(SrcBT), static_cast<uint64_t>(b_rows),
                                 static_cast<int>(asc_sim::Pipe::AIC_MTE2), advice);
    }
    void check_operands(const char* api, const asc_sim::Loc& loc) const {
        if (!inited_) asc_sim::fail("matmul-init", api, loc, asc_sim::fmt("%s before REGIST_MATMUL_OBJ / Init", api));
        if (!hasA_ || !hasB_) asc_sim::fail("matmul-init", api, loc, asc_sim::fmt("%s before SetTensorA/SetTensorB", api));
    }
    void take_block(const char* api, const asc_sim::Loc& loc) {
        check_operands(api, loc);
        if (!block_ready_)
            asc_sim::fail("matmul-init", api, loc, "GetTensorC before Iterate: each GetTensorC takes the block the "
                          "last Iterate computed (while (mm.Iterate()) { mm.GetTensorC(...); })");
        block_ready_ = false;
    }
    // One row of the product (+ bias): C[i, j0 .. j0 + n) over all of K.
    void product_row(int64_t i, int64_t j0, int64_t n, float* row) const {
        const int64_t lda = transA_ ? orgM_ : orgKa_, ldb = transB_ ? orgKb_ : orgN_;
        for (int64_t j = 0; j < n; ++j) row[j] = hasBias_ ? asc_sim::fv(bias_.addr_[j0 + j]) : 0.0f;
        for (int64_t k = 0; k < tailK_; ++k) {
            const float av = asc_sim::fv(a_.addr_[transA_ ? k * lda + i : i * lda + k]);
            if (transB_) {
                for (int64_t j = 0; j < n; ++j) row[j] += av * asc_sim::fv(b_.addr_[(j0 + j) * ldb + k]);
            } else {
                const SrcBT* brow = b_.addr_ + k * ldb + j0;
                for (int64_t j = 0; j < n; ++j) row[j] += av * asc_sim::fv(brow[j]);
            }
        }
    }
    void cost(int64_t M, int64_t N, int64_t K) {
        const Grid g = grid(M, N, K);
        start_cost();
        for (int64_t mi = 0; mi < g.mb; ++mi)
            for (int64_t ni = 0; ni < g.nb; ++ni) {
                multiply_block(g, mi, ni);
                drain_block(std::min(g.bm, M - mi * g.bm), std::min(g.bn, N - ni * g.bn), true);
            }
    }
    void start_cost() {
        stage_ = 0;
        ping_ = 0;
        cslot_ = 10;
    }
    // One C block's K walk: base tiles GM -> L1 (MTE2) -> L0 (MTE1) -> the cube (M), into L0C.
    void multiply_block(const Grid& g, int64_t mi, int64_t ni) {
        asc_sim::State& s = asc_sim::S();
        const asc_sim::Config& c = s.cfg;
        auto cdiv = [](int64_t a, int64_t b) { return (a + b - 1) / b; };
        const int64_t M = tailM_, N = tailN_, K = tailK_;
        double macs_pc = c.cube_macs * 2.0 / static_cast<double>(sizeof(SrcAT));  // fp16: 16x16x16/cycle
        // The first load of each A / B base tile comes from HBM (per-core share, ddr rate); later
        // loads of the same tile (other m/n blocks) are L2 hits at the l2 rate (no HBM traffic).
        // Cores whose single-core blocks lie in one block row (column) of C read the same A (B)
        // tiles at about the same point of their K walks: the shared L2 serves all but one of
        // them, so a first load costs 1/sharers of its bytes in HBM traffic at the ddr rate and
        // the rest at the l2 rate. Sharers follow the MultiKernelBench-style grid of single-core
        // blocks over the org shape (research/ascendc_api.md section 4.1), capped by the cores used.
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
        const int64_t m = std::min(g.bm, M - mi * g.bm), n = std::min(g.bn, N - ni * g.bn);
        for (int64_t ki = 0; ki < g.kb; ++ki) {
            int64_t k = std::min(g.bk, K - ki * g.bk);
            double abytes = static_cast<double>(m * k * sizeof(SrcAT)), bbytes = static_cast<double>(k * n * sizeof(SrcBT));
            const bool sa = !seen_.insert(TileKey{static_cast<const void*>(a_at(mi * g.bm, ki * g.bk)), m, k}).second;
            const bool sb = !seen_.insert(TileKey{static_cast<const void*>(b_at(ki * g.bk, ni * g.bn)), k, n}).second;
            double hbm = 0.0, cyc = 0.0;
            if (sa) cyc += abytes / c.l2_bpc; else first(abytes, share_a, hbm, cyc);
            if (sb) cyc += bbytes / c.l2_bpc; else first(bbytes, share_b, hbm, cyc);
            asc_sim::Deps d1; d1.wr[0] = slot_[stage_];
            asc_sim::schedule(asc_sim::Pipe::AIC_MTE2, c.mte_overhead + cyc, d1, hbm, c.gm_latency);
            s.stats.gm_read += static_cast<uint64_t>(hbm);
            asc_sim::Deps d2; d2.rd[0] = slot_[stage_]; d2.wr[0] = slot_[8 + ping_];
            asc_sim::schedule(asc_sim::Pipe::MTE1, c.cube_overhead + abytes / c.l1_l0a_bpc + bbytes / c.l1_l0b_bpc, d2);
            asc_sim::Deps d3; d3.rd[0] = slot_[8 + ping_]; d3.wr[0] = slot_[cslot_];
            double mcyc = std::ceil(static_cast<double>(cdiv(m, 16) * 16 * cdiv(n, 16) * 16 * cdiv(k, 16) * 16) / macs_pc);
            asc_sim::schedule(asc_sim::Pipe::M, c.cube_overhead + mcyc, d3);
            s.stats.cube_macs += static_cast<uint64_t>(m * n * k);
            ping_ ^= 1;
            stage_ = (stage_ + 1) % depth;
        }
    }
    // The block out of L0C (FIX), to GM; the second L0C slot (dbL0C = 2, when two base blocks of
    // fp32 fit L0C's 128 KiB) lets the next block accumulate while FIX drains this one. HBM traffic
    // only for a block of the caller's C (`to_user_gm`): a block on its way to UB goes through the
    // workspace, which stays in L2 (read back at once, rewritten by the next block).
    void drain_block(int64_t m, int64_t n, bool to_user_gm) {
        asc_sim::State& s = asc_sim::S();
        const asc_sim::Config& c = s.cfg;
        const Grid g = grid(tailM_, tailN_, tailK_);
        const bool db_l0c = tiling_.dbL0C >= 2 && 2 * g.bm * g.bn * 4 <= 128 * 1024;
        double cbytes = to_user_gm ? static_cast<double>(m * n * sizeof(DstT)) : 0.0;
        asc_sim::Deps d4; d4.rd[0] = slot_[cslot_]; d4.wr[0] = slot_[12];
        asc_sim::schedule(asc_sim::Pipe::FIX, c.cube_overhead + static_cast<double>(m * n * 4) / c.l0c_out_bpc, d4, cbytes);
        s.stats.gm_write += static_cast<uint64_t>(cbytes);
        if (db_l0c) cslot_ = cslot_ == 10 ? 11 : 10;
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
    int slot_[13] = {-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1};
    int stage_ = 0, ping_ = 0, cslot_ = 10;      // the cost model's L1 stage, L0 ping-pong and L0C slot
    int64_t iter_ = 0, cur_mi_ = 0, cur_ni_ = 0, cur_m_ = 0, cur_n_ = 0;   // Iterate's progress and block
    bool block_ready_ = false;
    std::vector<float> block_;                   // the block Iterate computed, for GetTensorC
    std::deque<Pending> pending_;                // the blocks Iterate<false> computed, oldest first
    int64_t workspace_bytes_ = 0;                // SetWorkspace's size
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
