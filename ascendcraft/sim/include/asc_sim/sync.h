// ascendcraft AscendC CPU simulator: SetFlag/WaitFlag and the pipe barriers, the system variables
// (block index and count, SyncAll), cross-core flags and the debugging output.
#pragma once
#include "tensor.h"

namespace AscendC {

// ---------------------------------------------------------------- sync
template <HardEvent evt> inline void SetFlag(int32_t eventID, ASC_LOC_PARAM) {
    asc_sim::State& s = asc_sim::S();
    asc_sim::enter("SetFlag", asc_loc_);
    int e = static_cast<int>(evt), id = eventID & 7;
    auto pp = asc_sim::event_pipes(evt);
    asc_sim::EventMark m = asc_sim::mark_on(pp.first);
    s.flag_mark[e][id] = m;
    s.flag_pending[e][id]++;
    asc_sim::trace_record(pp.first, m.time, m.time, asc_sim::TR_SET, asc_sim::event_label(evt, true));
}
template <HardEvent evt> inline void WaitFlag(int32_t eventID, ASC_LOC_PARAM) {
    asc_sim::State& s = asc_sim::S();
    asc_sim::enter("WaitFlag", asc_loc_);
    int e = static_cast<int>(evt), id = eventID & 7;
    auto pp = asc_sim::event_pipes(evt);
    if (s.flag_pending[e][id] <= 0)
        asc_sim::fail("sync-unpaired", "WaitFlag", asc_loc_,
                      asc_sim::fmt("WaitFlag(event %d, id %d) with no matching SetFlag before it: on the NPU the "
                                   "pipe waits forever", e, eventID));
    s.flag_pending[e][id]--;
    asc_sim::wait_on(pp.second, s.flag_mark[e][id]);
    asc_sim::trace_record(pp.second, s.flag_mark[e][id].time, s.flag_mark[e][id].time, asc_sim::TR_WAIT,
                          asc_sim::event_label(evt, false));
}
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
inline void Trap() { asc_sim::fail("trap", "Trap", asc_sim::S().cur_loc, "the kernel called Trap()"); }

}  // namespace AscendC

inline int64_t get_block_idx() { return AscendC::GetBlockIdx(); }
inline int64_t get_block_num() { return AscendC::GetBlockNum(); }
#define TILING_KEY_IS(k) (asc_sim::S().cfg.tiling_key == static_cast<uint64_t>(k))
