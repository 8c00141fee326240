// ascendcraft AscendC CPU simulator: SetFlag/WaitFlag and the pipe barriers, the system variables
// (block index and count, SyncAll), cross-core flags and the debugging output.
#pragma once
#include "tensor.h"

namespace AscendC {

// ---------------------------------------------------------------- sync
}  // namespace AscendC

namespace asc_sim {
void set_flag_at(AscendC::HardEvent evt, int32_t eventID, const Loc& loc);
void wait_flag_at(AscendC::HardEvent evt, int32_t eventID, const Loc& loc);
}  // namespace asc_sim

namespace AscendC {

template <HardEvent evt> inline void SetFlag(int32_t eventID, ASC_LOC_PARAM) { asc_sim::set_flag_at(evt, eventID, asc_loc_); }
template <HardEvent evt> inline void WaitFlag(int32_t eventID, ASC_LOC_PARAM) { asc_sim::wait_flag_at(evt, eventID, asc_loc_); }
// PIPE_ALL: every pipe drains and the scalar unit waits. A barrier on one pipe orders that
// pipe's instructions among themselves, which in-order pipes already are.
template <pipe_t pipe> inline void PipeBarrier() {
    if (pipe == PIPE_ALL) asc_sim::release_all_pipes(asc_sim::drain_time());
}
inline void pipe_barrier(pipe_t p) {
    if (p == PIPE_ALL) PipeBarrier<PIPE_ALL>();
}
template <pipe_t src, pipe_t dst> class TQueSync {
public:
    void SetFlag(TEventID id) { set_[id & 7]++; }
    void WaitFlag(TEventID id) { if (set_[id & 7] > 0) set_[id & 7]--; }
private:
    int set_[8] = {0};
};

// ---------------------------------------------------------------- system variables
// In a mixed launch (cross.h) of numBlocks blocks: the AIC's index is its block, in [0, numBlocks);
// an AIV's is block * ratio + sub-block, in [0, ratio * numBlocks) (GetBlockIdx.md,
// kernel_operator_sys_var_impl.h: block_idx * GetTaskRation() + get_subblockid()).
inline int64_t GetBlockIdx() { return asc_sim::S().block_idx; }
inline int64_t GetBlockNum() { return asc_sim::S().cfg.block_dim; }
inline int64_t GetSubBlockIdx() { return asc_sim::S().sub_block; }
inline int64_t GetTaskRation() {
    return asc_sim::g_cross.ratio > 0 && asc_sim::S().core_kind == 0 ? asc_sim::g_cross.ratio : 1;
}
inline int64_t GetTaskRatio() { return GetTaskRation(); }
inline int64_t GetSubBlockNum() { return GetTaskRation(); }
inline void SetSysWorkspace(GM_ADDR workspace) { asc_sim::S().sys_workspace = workspace; }
inline GM_ADDR GetSysWorkSpacePtr() { return asc_sim::S().sys_workspace; }
constexpr uint32_t ASC_SIM_SYS_WORKSPACE = 16u * 1024u * 1024u;
inline GM_ADDR GetUserWorkspace(GM_ADDR workspace) { return workspace == nullptr ? nullptr : workspace + ASC_SIM_SYS_WORKSPACE; }
template <typename T> inline void SetAtomicAdd() { asc_sim::S().atomic_add = true; }
inline void SetAtomicNone() { asc_sim::S().atomic_add = false; }
inline int64_t GetSystemCycle() { return static_cast<int64_t>(asc_sim::S().issue); }
template <bool isAIVOnly = true> inline void SyncAll(ASC_LOC_PARAM) {
    asc_sim::enter("SyncAll", asc_loc_);
    if (!asc_sim::g_cross.active) {
        asc_sim::warn("unsupported", "SyncAll", asc_loc_,
                      "SyncAll outside threaded mode: blocks run one after another, the barrier is not modelled");
        asc_sim::release_all_pipes(asc_sim::drain_time());
        return;
    }
    const double now = asc_sim::drain_time();
    const double release = asc_sim::cross_barrier(isAIVOnly, now, "SyncAll", asc_loc_);
    // every core resumes when the last one arrives, each pipe ordered after all of its own
    asc_sim::trace_record(static_cast<int>(asc_sim::Pipe::S), now, release, asc_sim::TR_BARRIER);
    asc_sim::release_all_pipes(release);
}

// The software barrier (SyncAll.md): each core marks its state in gmWorkspace (GetBlockNum() * 32 bytes,
// zeroed) from ubWorkspace (as many bytes, its own) and polls the others'. The same barrier as the
// hardware one for all cores, plus its GM traffic: a 32-byte write (MTE3) and a read of every core's
// mark (MTE2). A subset of the cores (usedCores < GetBlockNum()) is not modelled.
template <bool isAIVOnly = true>
inline void SyncAll(const GlobalTensor<int32_t>& gmWorkspace, const LocalTensor<int32_t>& ubWorkspace,
                    const int32_t usedCores = 0, ASC_LOC_PARAM) {
    const char* api = "SyncAll";
    asc_sim::enter(api, asc_loc_);
    const int64_t blocks = GetBlockNum();
    if (usedCores != 0 && usedCores != blocks)
        asc_sim::fail("unsupported", api, asc_loc_,
                      asc_sim::fmt("SyncAll(gm, ub, usedCores=%d) among %d of %lld cores: a barrier of part of the "
                                   "cores is not modelled", usedCores, usedCores, static_cast<long long>(blocks)));
    const uint64_t bytes = static_cast<uint64_t>(blocks) * 32;
    asc_sim::use_local(api, asc_loc_, "ubWorkspace", ubWorkspace, bytes / sizeof(int32_t), true);
    const uintptr_t a = reinterpret_cast<uintptr_t>(gmWorkspace.GetPhyAddr());
    if (!asc_sim::gm_find(a, bytes))
        asc_sim::fail("gm-bounds", api, asc_loc_,
                      asc_sim::fmt("SyncAll: gmWorkspace needs GetBlockNum() * 32 = %llu bytes at %s",
                                   static_cast<unsigned long long>(bytes), asc_sim::gm_describe(a, bytes).c_str()));
    asc_sim::State& s = asc_sim::S();
    // the library's own flags order these copies: timed, not checked for missing syncs
    s.n_operands = 0;
    asc_sim::schedule(asc_sim::Pipe::MTE3, s.cfg.mte_overhead + 32.0 / s.cfg.mte3_bpc, asc_sim::Deps{}, 32.0);
    s.stats.gm_write += 32;
    asc_sim::schedule_gm_read(-1, static_cast<double>(bytes), gmWorkspace.GetPhyAddr(), bytes, bytes, 1);
    asc_sim::wrote(ubWorkspace, bytes / sizeof(int32_t));
    SyncAll<false>(asc_loc_);
}

// ---------------------------------------------------------------- cross-core flags
// CrossCoreSetFlag<mode, pipe>(id) fires when everything issued so far on `pipe` has completed;
// CrossCoreWaitFlag(id) stops the core issuing until a firing of `id` reaches it (cross.h).
template <uint8_t modeId, pipe_t pipe> inline void CrossCoreSetFlag(uint16_t flagId, ASC_LOC_PARAM) {
    asc_sim::enter("CrossCoreSetFlag", asc_loc_);
    if (!asc_sim::hook_cross_scheduler())
        asc_sim::fail("cross-core-flag", "CrossCoreSetFlag", asc_loc_,
                      "CrossCoreSetFlag in a kernel whose type runs one kind of core (no KERNEL_TYPE_MIX_*): the "
                      "hardware starts the scheduler that delivers cross-core flags only for a mixed kernel type; "
                      "declare KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2) (modes 1 and 2), or "
                      "KERNEL_TYPE_MIX_AIV_1_0 for mode 0 among vector cores (CrossCoreSetFlag(ISASI).md)");
    const int p = asc_sim::pipe_index(pipe);
    if (p < 0 || pipe == PIPE_S)
        asc_sim::fail("cross-core-flag", "CrossCoreSetFlag", asc_loc_,
                      "CrossCoreSetFlag takes the pipe whose work it waits for: PIPE_V, PIPE_M, PIPE_MTE1, PIPE_MTE2, "
                      "PIPE_MTE3 or PIPE_FIX (not PIPE_S or PIPE_ALL)");
    const double at = asc_sim::mark_on(p).time;
    asc_sim::trace_record(p, at, at, asc_sim::TR_SET);
    asc_sim::cross_set(modeId, flagId, at, "CrossCoreSetFlag", asc_loc_);
}
void cross_core_wait(uint16_t flagId, const asc_sim::Loc& loc);
inline void CrossCoreWaitFlag(uint16_t flagId, ASC_LOC_PARAM) { cross_core_wait(flagId, asc_loc_); }
template <uint8_t modeId, pipe_t pipe> inline void CrossCoreWaitFlag(uint16_t flagId, ASC_LOC_PARAM) {
    cross_core_wait(flagId, asc_loc_);
}

// ---------------------------------------------------------------- debugging output
template <typename... Args> inline void printf(const char* fmt, Args... args) { std::printf(fmt, args...); }
template <typename... Args> inline void PRINTF(const char* fmt, Args... args) { std::printf(fmt, args...); }
template <typename T> inline void DumpTensor(const LocalTensor<T>& t, uint32_t desc, uint32_t size) {
    std::printf("DumpTensor desc=%u addr=0x%x:", desc, t.addr_);
    for (uint32_t i = 0; i < size && i < t.size_; ++i) std::printf(" %g", static_cast<double>(static_cast<float>(t.ptr()[i])));
    std::printf("\n");
}
template <typename T> inline void DumpTensor(const GlobalTensor<T>& t, uint32_t desc, uint32_t size) {
    std::printf("DumpTensor desc=%u (GM):", desc);
    if (!asc_sim::S().cfg.cost_only)
        for (uint32_t i = 0; i < size; ++i) std::printf(" %g", static_cast<double>(static_cast<float>(t.addr_[i])));
    std::printf("\n");
}
// The scalar unit's data cache (kernel_operator_cache_intf.h, kernel_reg.h): GetValue/SetValue on GM go
// through it, and DataCacheCleanAndInvalid writes a line (or the whole cache) back to GM and drops it,
// so that other cores see scalar writes. The simulator's scalar GM accesses are not cached, so only
// the cost is left: one scalar GM access on the line's address.
enum class CacheLine : uint64_t { SINGLE_CACHE_LINE = 0, ENTIRE_DATA_CACHE };
enum class DcciDst : uint64_t { CACHELINE_ALL = 0, CACHELINE_UB, CACHELINE_OUT, CACHELINE_ATOMIC };
template <typename T, CacheLine entireType, DcciDst dcciDst = DcciDst::CACHELINE_OUT>
inline void DataCacheCleanAndInvalid(const GlobalTensor<T>& dst, ASC_LOC_PARAM) {
    asc_sim::enter("DataCacheCleanAndInvalid", asc_loc_);
    const uintptr_t a = reinterpret_cast<uintptr_t>(dst.GetPhyAddr());
    if (entireType == CacheLine::SINGLE_CACHE_LINE && !asc_sim::gm_find(a, sizeof(T)))
        asc_sim::fail("gm-bounds", "DataCacheCleanAndInvalid", asc_loc_,
                      asc_sim::fmt("DataCacheCleanAndInvalid flushes the cache line of GM at %s, outside every buffer "
                                   "the host passed", asc_sim::gm_describe(a, sizeof(T)).c_str()));
    asc_sim::schedule_scalar(asc_sim::S().cfg.scalar_gm_cycles, -1, 0, 0, false, false);
}
inline void Trap() { asc_sim::fail("trap", "Trap", asc_sim::S().cur_loc, "the kernel called Trap()"); }

}  // namespace AscendC

inline int64_t get_block_idx() { return AscendC::GetBlockIdx(); }
inline int64_t get_block_num() { return AscendC::GetBlockNum(); }
// The compiler intrinsics behind SetFlag/WaitFlag, with the two pipes named (kernels written for the
// 220 branch call them directly): the same event as SetFlag<HardEvent::SRC_DST>(id).
void set_flag(pipe_t src, pipe_t dst, int32_t eventID, ASC_LOC_PARAM);
void wait_flag(pipe_t src, pipe_t dst, int32_t eventID, ASC_LOC_PARAM);
#define TILING_KEY_IS(k) (asc_sim::S().cfg.tiling_key == static_cast<uint64_t>(k))
