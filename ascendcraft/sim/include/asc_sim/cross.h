// ascendcraft AscendC CPU simulator: what crosses cores in one launch. The cores of a mixed
// (MIX_AIC_1_n) launch, CrossCoreSetFlag / CrossCoreWaitFlag, the SyncAll barrier, a deadlock
// detector over all of them, and the happens-before clocks the race checks at the end of a run use
// (harness_checks.h). Semantics from the asc-devkit docs (基础API/同步控制/核间同步:
// CrossCoreSetFlag(ISASI).md, CrossCoreWaitFlag(ISASI).md, 关键特性说明.md) and GetBlockIdx.md;
// docs/simulator.md, "Mixed launches and cross-core flags", says what is modelled.
#pragma once
#include <deque>
#include <memory>

#include "core.h"

namespace asc_sim {

// Whether the launch's kernel type starts the scheduler that delivers flags (a KERNEL_TYPE_MIX_*),
// defined by the kernel's translation unit (harness.h).
bool hook_cross_scheduler();

// Flag ids 0..15 per core (mode 0, 1, 2); two more ids carry SyncAll's barriers.
constexpr int XFLAGS = 16, XBARRIER_AIV = 16, XBARRIER_ALL = 17, XIDS = 18;
constexpr int XCOUNTER_MAX = 15;   // each flag's counter holds 0..15 (CrossCoreSetFlag(ISASI).md)

using Clock = std::shared_ptr<const std::vector<uint32_t>>;   // one happens-before vector clock

// A firing: when it happens and what its setters had done (their clocks, joined). A round that
// needs several setters (mode 0, mode 1, the AIVs of mode 2) queues each setter's part as one.
// A barrier's arrival also carries the core's HBM traffic since the last barrier (``hbm`` bytes
// from ``since``): the phase's bandwidth is shared by the cores that moved data in it, so each
// arrival is no earlier than its bytes over that share (cross_arrive).
struct Firing {
    double time;
    Clock clock;
    double hbm = 0, since = 0;
};

struct CoreSlot {
    int kind = 0;                 // 0: AIV (or a block of a one-kind launch), 1: AIC
    int64_t group = 0, sub = 0, block = 0;
    enum Status : int { RUNNING, WAITING, DONE } status = RUNNING;
    int waits_on = -1;            // the flag id it waits on (XBARRIER_* for SyncAll)
    Loc loc{"", 0};               // where it waits, or its last API call when it is done
    const char* api = "";
    std::deque<Firing> counter[XIDS];
    int mode_of[XFLAGS];          // the mode this core last set each flag in (-1: never)
    // happens-before: this core's epoch is clock[thread]; snapshots[i] is the clock an access
    // record with phase i was made under (WriteRec.phase in a cross-core run)
    std::vector<uint32_t> clock;
    std::vector<Clock> snapshots;
    CoreSlot() { std::fill(mode_of, mode_of + XFLAGS, -1); }
};

// The rounds of one kind of multi-setter flag: per participant, the sets not yet matched.
struct Round {
    std::vector<int> members;                  // thread ids
    std::vector<std::deque<Firing>> pending;  // per member
};

struct CrossCores {
    std::mutex mu;
    std::condition_variable cv;
    bool active = false;       // threaded run (SyncAll, flags or a mixed launch)
    bool clocks = false;       // happens-before clocks for the race checks (flags or mixed launch)
    int ratio = 0;             // AIVs per AIC in a mixed launch; 0: one kind of core
    bool aic_threads = true;   // false: a Matmul-API kernel's AIVs only, the cube inside the calling AIV
    std::vector<CoreSlot> cores;
    int waiting = 0, done = 0;
    bool broken = false;       // a core failed: every waiter gives up
    bool deadlock = false;
    int deadlock_reports = 0;
    std::map<std::tuple<int, int64_t, int>, Round> rounds;   // (mode or barrier kind, group, flag)
    CrossCores();
    ~CrossCores();
};
extern CrossCores g_cross;   // runtime/cross.cpp

std::string core_label(int t);

// Sets up the cores of a launch of `groups` blocks: in a mixed launch each block is one AIC and
// `ratio` AIVs (thread ids group * (ratio + 1) + 0 for the AIC, + 1 + sub for the AIVs); without
// `aic_threads`, only the `ratio` AIVs (thread ids group * ratio + sub), each of which may drive the
// cube through the Matmul API.
void cross_setup(int64_t groups, int ratio, bool clocks, bool aic_threads = true);
inline int64_t cross_threads() { return static_cast<int64_t>(g_cross.cores.size()); }

// The thread's simulated core: block index, sub-block, kind (reset_core sets the rest).
void cross_enter_core(State& s, int t);

// ---------------------------------------------------------------- happens-before clocks
// (called with g_cross.mu held) A release: the clock this core's accesses so far are under, then
// a new epoch for what it does next.
Clock cross_release(CoreSlot& c, int t);
Clock join_clocks(const Clock& a, const Clock& b);
// An acquire: this core now knows what the delivery's setters had done.
void cross_acquire(CoreSlot& c, const Clock& k);
// Access records of thread a under snapshot pa happen before those of thread b under snapshot pb.
bool happens_before(int a, uint32_t pa, int b, uint32_t pb);

// ---------------------------------------------------------------- waiting and deadlocks
std::string cross_state(int t);
// The cores that could still set what thread t waits for, and what each is doing: its own block's
// first, then the other cores of its kind.
std::string cross_others(int t, int id);
void cross_check_deadlock();
// Thread t ends (returned or failed): a deadlock if every other core waits.
void cross_finish(int t, bool failed);

// Deliver one firing of flag `id` to thread u (g_cross.mu held).
void cross_deliver(int u, int id, const Firing& d, const char* api, const Loc& loc);

// A set that completes when every member of a round has set: returns once recorded.
void cross_arrive(const std::tuple<int, int64_t, int>& key, const std::vector<int>& members,
                  const std::vector<int>& targets, int t, int id, const Firing& a, const char* api,
                         const Loc& loc);

std::vector<int> cross_members(bool (*pick)(const CoreSlot&, const CoreSlot&), int t);

// Thread t waits until flag `id` has a delivery, then takes it: the core's next instruction issues
// no earlier than the delivery (returned), and the core knows what its setters had done.
double cross_take(int t, int id, const char* api, const Loc& loc);

// CrossCoreSetFlag<mode, pipe>(id) on thread t, firing at `time`.
void cross_set(int mode, int id, double time, const char* api, const Loc& loc);

// SyncAll: every AIV (isAIVOnly) or every core arrives, then all resume at the last arrival, each
// arrival no earlier than its HBM bytes of the phase over the phase's share (Firing).
double cross_barrier(bool aiv_only, double time, const char* api, const Loc& loc);

// After a run that completed: flags set and never waited for, and sets whose round never completed
// (warnings: the NPU leaves the counter raised, and the next launch of the kernel would find it).
void cross_unconsumed(FILE* out);

}  // namespace asc_sim
