// ascendcraft AscendC CPU simulator: each core's pipe timeline (issue, events, the cost of an
// instruction), the L2/HBM model of GM reads, and the access records the checks read (GM regions,
// output and scratch writes, the UB "was written" shadow). Bodies in runtime/core.cpp.
#pragma once
#include "core.h"

namespace asc_sim {

// ---------------------------------------------------------------- cost timeline
void trace_record(int pipe, double start, double end, uint8_t kind = TR_INSTR, const char* api = nullptr);
// A core's share of the HBM bandwidth kernels actually reach (not the nominal figure: no
// streaming kernel reaches that, so modelling it would make bandwidth-bound kernels too fast).
double hbm_bytes_per_cycle();
// The HBM bytes per cycle each of `sharers` cores moving data at once gets (the launch's active cores
// for one transfer; the cores that moved data in a phase at its SyncAll, cross.cpp).
double hbm_share_per_cycle(int64_t sharers);

// L2 reuse: each active core owns an equal share of the chip's L2 (an approximation of a
// shared cache). The bytes of a GM read that the same core read within its last `share` bytes
// of traffic are served by L2: they cost MTE2 time but no HBM bandwidth. Returns the bytes
// that go to HBM. The read is `count` rows of `blk` bytes, `stride` bytes apart (a contiguous
// read: count 1); only those bytes are recorded and matched, never the gaps between rows.

// bytes of the strided set (e, be, se, ne) inside [lo, hi); offsets relative to e, be <= se
uint64_t l2_overlap_interval(int64_t lo, int64_t hi, int64_t be, int64_t se, int64_t ne);
// bytes of the set E inside the set Q (both strided; rows disjoint within each set)
uint64_t l2_overlap(uintptr_t qa, uint64_t qb, uint64_t qs, uint64_t qn, const L2Entry& e);

// Calls visit(entry) for the entries of `l2` a read of `count` rows of `blk` bytes `stride` apart
// from `a` may meet (every one that does, and a few that do not), while `more()` holds.
template <class Visit, class More>
inline void l2_scan(L2Recent& l2, uintptr_t a, uint64_t blk, uint64_t stride, uint64_t count, Visit visit, More more) {
    const uint64_t span = (count - 1) * stride + blk;
    const uintptr_t qend = a + span;
    auto scan_by_start = [&](L2Index& ix) {
        const uint64_t reach = ix.max_span();
        for (auto it = ix.by_start.lower_bound(a > reach ? a - reach : 0);
             it != ix.by_start.end() && it->first < qend && more(); ++it)
            visit(*it->second);
    };
    scan_by_start(l2.contig);
    for (auto& g : l2.strided) {
        if (!more()) break;
        L2Index& ix = g.second;
        if (count == 1 || g.first != stride) {
            scan_by_start(ix);
            continue;
        }
        // same pitch: an entry meets this read only if its column (start % pitch) lies in
        // (col - its blk, col + blk), circularly
        const uint64_t sp = stride, col = a % sp, mb = ix.max_blk();
        auto scan_res = [&](uint64_t lo, uint64_t hi) {  // residues in [lo, hi)
            for (auto it = ix.by_res.lower_bound(lo); it != ix.by_res.end() && it->first < hi && more(); ++it)
                visit(*it->second);
        };
        if (mb + blk >= sp) {
            scan_res(0, sp);
        } else {
            uint64_t lo = (col + sp - (mb - 1)) % sp, hi = (col + blk) % sp;  // [lo, hi) circular, not empty
            if (lo < hi) {
                scan_res(lo, hi);
            } else {
                scan_res(lo, sp);
                scan_res(0, hi);
            }
        }
    }
}
// Drops the entries older than `share` bytes of traffic before `clock`.
void l2_expire(L2Recent& l2, uint64_t share, uint64_t clock);
// (row form) a read or write of `count` rows of `blk` bytes `stride` apart: contiguous rows become one
void l2_normalise(uint64_t& blk, uint64_t& stride, uint64_t& count);
inline uint64_t l2_share_bytes(const Config& c) {
    return c.l2_bytes > 0 ? static_cast<uint64_t>(c.l2_bytes / static_cast<double>(active_cores(c))) : 0;
}

// In a mixed launch the bytes the cores of one block wrote lately stay in L2 for the others: a
// tile the AIC hands to its AIVs through the workspace (or back) is read at the L2 rate. Each
// block's set holds the last `ratio + 1` core shares of L2 written by its cores (cross.h sets
// them up; empty otherwise).
struct BlockL2 {
    std::mutex mu;
    L2Recent written;
    uint64_t clock = 0;
};
extern std::vector<std::unique_ptr<BlockL2>> g_block_l2;   // runtime/core.cpp

void gm_wrote(const void* addr, uint64_t blk, uint64_t stride, uint64_t count);

uint64_t gm_read_hbm_bytes(const void* addr, uint64_t blk, uint64_t stride, uint64_t count);

struct Deps {
    int rd[4] = {-1, -1, -1, -1};
    int wr[2] = {-1, -1};
};

// ---------------------------------------------------------------- pipes and events
// Each pipe runs its instructions in issue order; what orders one pipe against another is an
// event (SetFlag/WaitFlag, and the flags TQue EnQue/DeQue/AllocTensor/FreeTensor set and wait
// on), a barrier, or the scalar unit's own waits. The timing follows those events only, and a
// vector clock per pipe records what each pipe is ordered after, so an access that conflicts
// with an earlier one on another pipe (their bytes meet, either writes) and is not ordered after
// it is a missing-sync race (docs/simulator.md, "Events").

// The scalar unit issues every instruction: an instruction on pipe p is ordered after all the
// scalar unit has done or waited for.
VClock& issue_on(int p);
// The flag a SetFlag on `src` raises: it fires when src has completed everything issued so far.
EventMark mark_on(int src);
// A WaitFlag on `dst`: its next instruction starts no earlier than the flag, and is ordered after
// what the flag's source had seen.
void wait_on(int dst, const EventMark& m);
// All pipes drain and every pipe is ordered after all of them (PipeBarrier<PIPE_ALL>, SyncAll):
// drain_time() is when the last pipe finishes, release_all_pipes(t) resumes them all at t.
double drain_time();
void release_all_pipes(double t);

std::string buffer_label(int b);
// What the writer should add between two pipes.
std::string sync_advice(int first, int second);
[[noreturn]] void missing_sync(int b, const Access& first, int second, bool second_writes);
// Whether an access by pipe `p` conflicts with the earlier access `a`: another pipe, either one
// writes, and their bytes meet. A conflict must be ordered by events (or it is a race).
inline bool conflicts(const Operand& o, int p, const Access& a) {
    return a.pipe != p && (a.write || o.write) && accesses_meet(o, a);
}
// An access whose pipe `p` (clock `v`) is not ordered after a conflicting earlier one is a race.
void check_access(const Operand& o, int p, const VClock& v);
void record_access(const Operand& o, int p, uint32_t epoch);
// With cce-auto-sync (the toolchain default) the compiler puts a flag between a scalar access
// and the other pipes' accesses to the same data: the scalar unit waits for those pipes.
void auto_sync_scalar(const Operand& o);

// Schedule one instruction on `pipe`: it starts when it has been issued and its pipe is free
// (after any WaitFlag queued on the pipe); GM reads add `latency` before their data lands.
// Buffers of library-internal stages (Matmul) also order it by dataflow, as the library's own
// waits do.
double schedule(Pipe pipe, double cycles, const Deps& d, double gm_bytes = 0, double latency = 0);

// A GM -> local copy on MTE2 into buffer `dst_buf`: HBM bandwidth only for what L2 does not
// serve (see gm_read_hbm_bytes), the data usable `gm_latency` cycles after the transfer.
// `moved` is what the MTE2 transfers (with per-row padding); the part served by L2 moves at
// the L2 rate (ini [AICoreMemoryRates] l2_rate, as the Matmul cost uses), the rest at the ddr rate.
// The read is `count` rows of `blk` bytes, `stride` bytes apart (GM addresses).
void schedule_gm_read(int dst_buf, double moved, const void* src, uint64_t blk, uint64_t stride, uint64_t count);

// A scalar-unit access to bytes [lo, hi) of local buffer `buf` (LocalTensor GetValue/SetValue/
// operator()): with cce-auto-sync the scalar unit first waits for the other pipes' accesses to
// them; without it, an unordered one is a missing-sync race.
void schedule_scalar(double cycles, int buf, uint32_t lo, uint32_t hi, bool read, bool write);

// ---------------------------------------------------------------- GM registry
// The buffer whose device allocation (its bytes and their padding) holds [a, a + bytes).
inline const GmRegion* gm_find(uintptr_t a, uint64_t bytes) {
    for (const GmRegion& r : S().gm)
        if (a >= r.base && a + bytes <= r.base + std::max(r.bytes, r.alloc)) return &r;
    return nullptr;
}
// aclrtMalloc's allocation for a buffer of `bytes`: rounded up to 32 bytes, plus 32.
inline uint64_t gm_alloc_size(uint64_t bytes) { return (bytes + 31) / 32 * 32 + 32; }
std::string gm_describe(uintptr_t a, uint64_t bytes);
// ---------------------------------------------------------------- output write records
// Sort and merge one core's records: same output, phase, mode, API and line; touching or
// overlapping intervals become one (a core may rewrite its own bytes).
void compact_writes(std::vector<WriteRec>& w);
// Adds [lo, hi) to a set of disjoint intervals (touching ones merge).
void interval_add(std::map<uint64_t, uint64_t>& set, uint64_t lo, uint64_t hi);
// Removes [lo, hi) from such a set.
void interval_remove(std::map<uint64_t, uint64_t>& set, uint64_t lo, uint64_t hi);
// Calls gap(glo, ghi) for each part of [lo, hi) the set does not cover.
template <class F> inline void interval_gaps(const std::map<uint64_t, uint64_t>& set, uint64_t lo, uint64_t hi, F gap) {
    auto it = set.upper_bound(lo);
    if (it != set.begin() && std::prev(it)->second > lo) --it;
    uint64_t cur = lo;
    for (; it != set.end() && it->first < hi && cur < hi; ++it) {
        if (it->first > cur) gap(cur, it->first);
        cur = std::max(cur, it->second);
    }
    if (cur < hi) gap(cur, hi);
}
// Records an access of [lo, hi) (bytes from the region's base) for the checks at the end of the run.
void record_gm_access(const GmRegion* r, uint64_t lo, uint64_t hi, bool write, const char* api, const Loc& loc);

void gm_check(const char* api, const Loc& loc, const void* p, uint64_t bytes, const char* what);
// A read of GM bytes [addr, addr + bytes) on pipe `reader`: a copy of this core to those bytes that
// the read is not ordered after (an event, a barrier, the scalar unit's wait) is a missing-sync race;
// `advice` is the sync the message suggests. The strided form reads `count` rows of `blk` bytes,
// `stride` apart: only the bytes of its rows and of the copies' rows can meet (a gap is no race).
void gm_read_ordered(const void* addr, uint64_t bytes, int reader, const char* advice);
void gm_read_ordered(const void* addr, uint64_t blk, uint64_t stride, uint64_t count, int reader, const char* advice);
// Records the reads of `rows` rows of `row_bytes` bytes, `stride` bytes apart, from `p` when they are
// in scratch (an API that bounds-checks only the first and last element of its operand, Matmul).
void note_scratch_rows(const char* api, const Loc& loc, const void* p, int64_t rows, uint64_t row_bytes,
                       uint64_t stride);

}  // namespace asc_sim
#include "shadow.h"
