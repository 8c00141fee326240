// ascendcraft AscendC CPU simulator: core runtime (qualifiers, scalar types, simulator
// state, diagnostics, per-core pipe timeline).  Written for ascendcraft; API names and
// semantics follow the public AscendC documentation (see docs/simulator.md).
#pragma once

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdarg>
#include <cstring>
#include <deque>
#include <limits>
#include <map>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>
#include <condition_variable>
#include <memory>
#include <mutex>

// ---------------------------------------------------------------- device qualifiers
#ifndef ASCENDC_CPU_DEBUG
#define ASCENDC_CPU_DEBUG 1
#endif
#ifndef __CCE_KT_TEST__
#define __CCE_KT_TEST__ 1  // the 2023 "tik2" samples guard their host launch code with this
#endif
#define __global__
#define __aicore__
#define __gm__
#define __ubuf__
#define __cbuf__
#define __ca__
#define __cb__
#define __cc__
#define __fbuf__
#define __vector__
#define __cube__
#define __mix__(...)
#define __inout_pipe__(...)
#define __sync_alias__
#define __sync_in__
#define __sync_out__
#define GM_ADDR __gm__ uint8_t*
#define KERNEL_TASK_TYPE_DEFAULT(x)
#define KERNEL_TASK_TYPE(k, x)
// which kind of core runs the code: an AIC only in a mixed launch (cross.h); otherwise every block is
// a vector core, as before
#define ASCEND_IS_AIV (::asc_sim::S().core_kind == 0)
#define ASCEND_IS_AIC (::asc_sim::S().core_kind == 1)
#define ASCEND_IS_NOT_AIV (!ASCEND_IS_AIV)
#define ASCEND_IS_NOT_AIC (!ASCEND_IS_AIC)

namespace asc_sim {

// ---------------------------------------------------------------- source locations
struct Loc {
    const char* file;
    int line;
    static Loc here(const char* f = __builtin_FILE(), int l = __builtin_LINE()) { return {f, l}; }
};
#define ASC_LOC_PARAM ::asc_sim::Loc asc_loc_ = ::asc_sim::Loc::here()

// ---------------------------------------------------------------- 16-bit floats
inline uint16_t f32_to_f16_bits(float f) {
    uint32_t x;
    std::memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000u;
    uint32_t ax = x & 0x7fffffffu;
    if (ax >= 0x7f800000u) return static_cast<uint16_t>(sign | (ax > 0x7f800000u ? 0x7e00u : 0x7c00u));
    if (ax >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds to inf
    if (ax < 0x38800000u) {                                              // subnormal / zero
        float v;
        std::memcpy(&v, &ax, 4);
        uint32_t m = static_cast<uint32_t>(std::nearbyint(v * 16777216.0f));
        return static_cast<uint16_t>(sign | m);
    }
    uint32_t m = ax + 0xc8000fffu + ((ax >> 13) & 1u);
    return static_cast<uint16_t>(sign | (m >> 13));
}
inline float f16_bits_to_f32(uint16_t h) {
    uint32_t sign = (static_cast<uint32_t>(h) & 0x8000u) << 16;
    uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    if (e == 0) {
        float v = static_cast<float>(m) * (1.0f / 16777216.0f);
        return sign ? -v : v;
    }
    uint32_t bits = (e == 31) ? (sign | 0x7f800000u | (m << 13)) : (sign | ((e + 112u) << 23) | (m << 13));
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}
inline uint16_t f32_to_bf16_bits(float f) {
    uint32_t x;
    std::memcpy(&x, &f, 4);
    if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);
    x += 0x7fffu + ((x >> 16) & 1u);
    return static_cast<uint16_t>(x >> 16);
}
inline float bf16_bits_to_f32(uint16_t b) {
    uint32_t x = static_cast<uint32_t>(b) << 16;
    float f;
    std::memcpy(&f, &x, 4);
    return f;
}

}  // namespace asc_sim

// The two 16-bit float types of AscendC, as software types (like CANN's CPU mode).
struct half {
    uint16_t bits;
    half() = default;
    half(float f) : bits(asc_sim::f32_to_f16_bits(f)) {}
    half(double d) : bits(asc_sim::f32_to_f16_bits(static_cast<float>(d))) {}
    template <typename I, typename std::enable_if<std::is_integral<I>::value, int>::type = 0>
    half(I i) : bits(asc_sim::f32_to_f16_bits(static_cast<float>(i))) {}
    operator float() const { return asc_sim::f16_bits_to_f32(bits); }
    static half from_bits(uint16_t b) { half h; h.bits = b; return h; }
    half& operator+=(float o) { *this = half(float(*this) + o); return *this; }
    half& operator-=(float o) { *this = half(float(*this) - o); return *this; }
    half& operator*=(float o) { *this = half(float(*this) * o); return *this; }
    half& operator/=(float o) { *this = half(float(*this) / o); return *this; }
};
namespace bfloat16 {
struct Bf16T {
    uint16_t bits;
    Bf16T() = default;
    Bf16T(float f) : bits(asc_sim::f32_to_bf16_bits(f)) {}
    Bf16T(double d) : bits(asc_sim::f32_to_bf16_bits(static_cast<float>(d))) {}
    template <typename I, typename std::enable_if<std::is_integral<I>::value, int>::type = 0>
    Bf16T(I i) : bits(asc_sim::f32_to_bf16_bits(static_cast<float>(i))) {}
    operator float() const { return asc_sim::bf16_bits_to_f32(bits); }
    static Bf16T from_bits(uint16_t b) { Bf16T h; h.bits = b; return h; }
};
}  // namespace bfloat16
using bfloat16_t = bfloat16::Bf16T;

namespace asc_sim {

template <typename T> struct is_f16 : std::false_type {};
template <> struct is_f16<half> : std::true_type {};
template <typename T> struct is_bf16 : std::false_type {};
template <> struct is_bf16<bfloat16_t> : std::true_type {};
template <typename T> constexpr bool is_floating_v = std::is_floating_point<T>::value || is_f16<T>::value || is_bf16<T>::value;

template <typename T> const char* type_name() {
    if (std::is_same<T, float>::value) return "float";
    if (std::is_same<T, half>::value) return "half";
    if (std::is_same<T, bfloat16_t>::value) return "bfloat16_t";
    if (std::is_same<T, double>::value) return "double";
    if (std::is_same<T, int8_t>::value) return "int8_t";
    if (std::is_same<T, uint8_t>::value) return "uint8_t";
    if (std::is_same<T, int16_t>::value) return "int16_t";
    if (std::is_same<T, uint16_t>::value) return "uint16_t";
    if (std::is_same<T, int32_t>::value) return "int32_t";
    if (std::is_same<T, uint32_t>::value) return "uint32_t";
    if (std::is_same<T, int64_t>::value) return "int64_t";
    if (std::is_same<T, uint64_t>::value) return "uint64_t";
    if (std::is_same<T, bool>::value) return "bool";
    return "T";
}

// ---------------------------------------------------------------- configuration
struct Config {
    std::string chip = "910B2";
    uint32_t ub_bytes = 196608, l1_bytes = 524288, l0a_bytes = 65536, l0b_bytes = 65536, l0c_bytes = 131072;
    uint32_t bt_bytes = 1024, fb_bytes = 2048;
    double freq_mhz = 1800;
    double hbm_gbps = 1600;      // nominal (the reported roofline); the model's ceiling is hbm_achievable_gbps
    double mte2_bpc = 32, mte3_bpc = 64, l1_l0a_bpc = 512, l1_l0b_bpc = 256, l0c_out_bpc = 256;
    double vec_bpc = 256, cube_macs = 4096;
    int cores = 48;              // physical cores sharing HBM (AIV for vector kernels)
    int aic_cores = 24;          // cube cores: a mixed launch's AICs run on these beside `cores` AIVs
    int mix_ratio = 0;           // AIVs per AIC in a mixed launch (cross.h); 0: one kind of core
    int max_buf_per_pos = 8, max_buffers = 64;
    bool data_copy_pad = true, bf16 = true;
    // cost-model constants: the chip profile's "cost" entries (data/chips/<chip>.json, with their sources)
    double issue_cycles = 10, mte_overhead = 40, vec_overhead = 8, scalar_ub_cycles = 2, scalar_gm_cycles = 200;
    double transcendental_cpr = 2, cube_overhead = 16, gm_latency = 1000, l2_bpc = 110;
    double hbm_achievable_gbps = 1460;  // HBM bandwidth kernels reach; 0: the nominal hbm_gbps
    double l2_bytes = 0;         // chip L2; 0: every GM read goes to HBM
    bool cost_only = false, lenient = false;
    bool auto_sync = true;       // --cce-auto-sync=on (the toolchain default): scalar accesses are ordered for you
    int64_t trace_limit = 0;     // > 0: keep up to this many timeline records per core (trace export)
    int64_t block_dim = 1;
    uint64_t tiling_key = 0;
};

// The cores sharing HBM and L2: the blocks (at most the physical cores), or in a mixed launch each
// block's AIC and AIVs.
inline int64_t active_cores(const Config& c) {
    const int64_t b = std::max<int64_t>(c.block_dim, 1);
    if (c.mix_ratio > 0) return std::min<int64_t>(b, c.aic_cores) + std::min<int64_t>(b * c.mix_ratio, c.cores);
    return std::min<int64_t>(b, c.cores);
}

// ---------------------------------------------------------------- diagnostics
struct Abort {};
struct ScalarArg {
    int64_t i = 0;
    double f = 0;
};

enum class Pipe : int { S = 0, V, M, MTE1, MTE2, MTE3, FIX, HBM, COUNT };
inline const char* pipe_name(int p) {
    static const char* n[] = {"S", "V", "M", "MTE1", "MTE2", "MTE3", "FIX", "HBM"};
    return (p >= 0 && p < 8) ? n[p] : "?";
}

// TPosition names, in the order of AscendC's TPosition enum (tensor.h)
inline const char* position_label(int pos) {
    static const char* n[] = {"GM", "A1", "A2", "B1", "B2", "C1", "C2", "CO1", "CO2", "VECIN", "VECOUT", "VECCALC",
                              "SPM", "TSCM"};
    return (pos >= 0 && pos < 14) ? n[pos] : "?";
}

enum SpaceId : int { SP_UB = 0, SP_L1, SP_L0A, SP_L0B, SP_L0C, SP_BT, SP_FB, SP_COUNT };
inline const char* space_name(int s) {
    static const char* n[] = {"UB", "L1", "L0A", "L0B", "L0C", "BT", "FB"};
    return (s >= 0 && s < SP_COUNT) ? n[s] : "?";
}

// ---------------------------------------------------------------- events (happens-before)
// The seven pipes that execute instructions (HBM is an accounting track, not a pipe).
constexpr int NPIPES = 7;
// A vector clock over the pipes: c[q] = how many instructions of pipe q are known to have
// completed. Pipe p's clock is what p's next instruction is ordered after; an access by p to
// data that pipe q touched at epoch e is ordered only if clock[p].c[q] >= e.
struct VClock {
    uint32_t c[NPIPES] = {0, 0, 0, 0, 0, 0, 0};
    void join(const VClock& o) {
        for (int i = 0; i < NPIPES; ++i) c[i] = std::max(c[i], o.c[i]);
    }
};
// A set flag: when it fires (all earlier work of its source pipe done) and what that pipe had
// seen by then.
struct EventMark {
    double time = 0;
    VClock vc;
    bool set = false;
};
// One access to a byte range of a buffer, for the missing-sync check.
struct Access {
    uint32_t lo = 0, hi = 0;  // byte range within the buffer's space
    uint32_t blk = 0, stride = 0;  // rows of blk bytes every stride bytes from lo (0: all of [lo, hi))
    uint32_t epoch = 0;       // the accessing pipe's instruction count at the access
    int8_t pipe = -1;
    bool write = false;
    const char* api = "";
    int32_t line = 0;
};
// The operands of the API call being executed, as use_local() validated them.
struct Operand {
    int buf;
    uint32_t lo, hi;
    bool write;
    uint32_t blk = 0, stride = 0;  // as in Access: a strided copy touches only its rows
};
// Whether two accessed byte sets meet: ranges first, then the rows of a strided one (the other
// taken row by row when both are strided; a copy has at most 4095 rows).
inline bool rows_meet(uint32_t lo, uint32_t hi, uint32_t alo, uint32_t ahi, uint32_t blk, uint32_t stride) {
    if (!(lo < ahi && alo < hi)) return false;
    if (blk == 0 || stride <= blk) return true;
    // rows j of [alo + j*stride, alo + j*stride + blk) meeting [lo, hi)
    int64_t first = lo >= alo + blk ? (static_cast<int64_t>(lo) - alo - blk) / stride + 1 : 0;
    return alo + first * static_cast<int64_t>(stride) < hi && alo + first * static_cast<int64_t>(stride) < ahi;
}
inline bool accesses_meet(const Operand& o, const Access& a) {
    if (!(a.lo < o.hi && o.lo < a.hi)) return false;
    if (o.blk == 0 || o.stride <= o.blk) return rows_meet(o.lo, o.hi, a.lo, a.hi, a.blk, a.stride);
    for (uint32_t r = o.lo; r < o.hi; r += o.stride)
        if (rows_meet(r, std::min(r + o.blk, o.hi), a.lo, a.hi, a.blk, a.stride)) return true;
    return false;
}

struct Space {
    std::vector<uint8_t> mem, shadow;  // shadow[i] = 1 once byte i was written
    uint32_t cap = 0, used = 0;
};

enum BufState : int { BUF_FREE = 0, BUF_ALLOC, BUF_ENQUEUED, BUF_DEQUEUED, BUF_TBUF };

struct Buffer {
    int space = SP_UB;
    int pos = 0;
    uint32_t addr = 0, len = 0;
    int queue = -1;  // owning queue (-1: TBuf / internal)
    int state = BUF_FREE;
    uint32_t gen = 1;
    Loc alloc_loc{"", 0};
    // Library-internal buffers (the Matmul API's L1/L0 stages) are ordered by the library's own
    // waits: their accesses are timed by dataflow and not checked for missing syncs.
    bool internal = false;
    double wr_end = 0, acc_end = 0;  // internal buffers: end of last write / last access
    // missing-sync check: the recent accesses that a later access on another pipe could race with
    std::vector<Access> accesses;
    // the flags TQue sets on this buffer: EnQue's (waited by DeQue) and FreeTensor's (waited by
    // the next AllocTensor of the buffer)
    EventMark enq, freed;
};

struct QueueState {
    int pos = 0, pos2 = 0, depth = 1, num = 0, cursor = 0;
    uint32_t len = 0;
    std::deque<int> fifo;
    std::vector<int> slots;
    Loc init_loc{"", 0};
    bool is_tbuf = false;
    bool inited = false;
};

struct GmRegion {
    uintptr_t base;
    uint64_t bytes;
    std::string name;
    bool output = false;  // an output tensor: its writes are recorded for the coverage / race checks
    uint32_t elem = 1;    // element size in bytes (for the element indices in those messages)
    bool scratch = false; // the workspace holding scratch tensors: reads and writes from `track_from` on
    uint64_t track_from = 0;   // are recorded for the scratch checks (the system part before it is not)
};

// L2 reuse model: the GM bytes one core read lately, as strided sets (`count` rows of `blk`
// bytes, `stride` bytes apart; a contiguous read is one row). Only bytes actually read are
// recorded: the gaps between the rows of a strided copy are not in L2.
struct L2Entry {
    uintptr_t start;
    uint64_t blk, stride, count, span;  // span = (count - 1) * stride + blk
    uint64_t clock;                     // this core's GM bytes read when the set was read
    bool live = true;
    std::multimap<uintptr_t, L2Entry*>::iterator pos;  // in its index's by_start
    std::multimap<uint64_t, L2Entry*>::iterator res;   // in its index's by_res (strided entries)
};
// One index: the contiguous entries, or the strided entries of one row pitch. Strided entries
// are also indexed by start % pitch (their column), so a tile of the same pitch finds the
// entries whose columns meet its own without looking at the other column tiles.
struct L2Index {
    std::multimap<uintptr_t, L2Entry*> by_start;
    std::map<uint64_t, uint64_t> spans;  // span -> entries (the largest bounds a search by start)
    std::multimap<uint64_t, L2Entry*> by_res;
    std::map<uint64_t, uint64_t> blks;   // blk -> entries (strided)
    static void dec(std::map<uint64_t, uint64_t>& m, uint64_t k) {
        auto it = m.find(k);
        if (it != m.end() && --it->second == 0) m.erase(it);
    }
    uint64_t max_span() const { return spans.empty() ? 0 : spans.rbegin()->first; }
    uint64_t max_blk() const { return blks.empty() ? 0 : blks.rbegin()->first; }
};
struct L2Recent {
    std::deque<L2Entry> fifo;                // in read order (recency by bytes read)
    L2Index contig;                          // count == 1
    std::map<uint64_t, L2Index> strided;     // by row pitch
    void clear() {
        fifo.clear();
        contig = L2Index{};
        strided.clear();
    }
    L2Index& index_of(const L2Entry& e) { return e.count == 1 ? contig : strided[e.stride]; }
    void drop(L2Entry& e) {
        if (!e.live) return;
        e.live = false;
        L2Index& ix = index_of(e);
        ix.by_start.erase(e.pos);
        L2Index::dec(ix.spans, e.span);
        if (e.count > 1) {
            ix.by_res.erase(e.res);
            L2Index::dec(ix.blks, e.blk);
            if (ix.by_start.empty()) strided.erase(e.stride);
        }
    }
    void add(uintptr_t start, uint64_t blk, uint64_t stride, uint64_t count, uint64_t clock) {
        fifo.push_back(L2Entry{start, blk, stride, count, (count - 1) * stride + blk, clock, true, {}, {}});
        L2Entry& e = fifo.back();
        L2Index& ix = index_of(e);
        e.pos = ix.by_start.emplace(start, &e);
        ix.spans[e.span]++;
        if (count > 1) {
            e.res = ix.by_res.emplace(start % stride, &e);
            ix.blks[blk]++;
        }
    }
};

// GM accesses of one core checked at the end of the run (harness_checks.h): byte intervals [lo, hi)
// of a region, with the API and kernel line, the parallel phase (SyncAll calls so far) and the
// atomic-add mode. Writes to outputs (never written, two cores writing in one phase) and reads and
// writes of scratch (also: read before any core wrote it, read while another core writes it).
enum : uint8_t { WR_ATOMIC = 1 };
struct WriteRec {
    uint64_t lo, hi;
    const char* api;
    const char* file;
    int32_t line;
    uint32_t phase;
    uint16_t region;
    uint8_t flags;
};
inline void compact_writes(std::vector<WriteRec>& w);
// One core's records of one kind. An access that starts where a recent one of the same API, line,
// phase and mode ended extends it (the next tile of a stream, or the next column tile of each row of
// a 2-D block: one record per row, not per tile row); the list is merged when it grows long.
struct AccessLog {
    std::vector<WriteRec> recs;
    size_t compact_at = 65536;
    uint32_t open[256];   // records by a hash of their end

    AccessLog() { clear(); }
    void clear() {
        recs.clear();
        compact_at = 65536;
        reopen();
    }
    void reopen() { std::memset(open, 0xff, sizeof open); }
    static unsigned slot_of(uint64_t end) { return static_cast<unsigned>((end * 0x9E3779B97F4A7C15ull) >> 56); }
    void add(size_t region, uint64_t lo, uint64_t hi, const char* api, const Loc& loc, uint32_t phase, uint8_t flags) {
        uint32_t& slot = open[slot_of(lo)];
        if (slot < recs.size()) {
            WriteRec& r = recs[slot];
            if (r.hi == lo && r.region == region && r.line == loc.line && r.api == api && r.phase == phase &&
                r.flags == flags) {
                r.hi = hi;
                uint32_t idx = slot;
                slot = 0xffffffffu;
                open[slot_of(hi)] = idx;
                return;
            }
        }
        recs.push_back(WriteRec{lo, hi, api, loc.file, loc.line, phase, static_cast<uint16_t>(region), flags});
        open[slot_of(hi)] = static_cast<uint32_t>(recs.size() - 1);
        if (recs.size() >= compact_at) {
            compact_writes(recs);
            reopen();
            compact_at = std::max<size_t>(65536, 2 * recs.size());
        }
    }
};

// One timeline record: an instruction on a pipe (kind TR_INSTR, [start, end)), an event
// (TR_SET / TR_WAIT at `start`, with the event's name in `api`), or a SyncAll's wait for the
// other cores (TR_BARRIER, [arrival, release) on the S pipe). Kept only when
// cfg.trace_limit > 0, for the timeline export (docs/simulator.md, "Timeline").
enum : uint8_t { TR_INSTR = 0, TR_SET, TR_WAIT, TR_BARRIER };
struct TraceRec {
    double start, end;
    const char* api;
    const char* file;
    int32_t line;
    uint8_t pipe, kind;
};

struct CoreStats {
    double end = 0;
    double busy[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    uint64_t gm_read = 0, gm_write = 0, n_instr = 0, vec_elems = 0, cube_macs = 0;
};

struct State {
    Config cfg;
    FILE* report = nullptr;
    std::string kernel_file;
    // per-core
    int64_t block_idx = 0;
    int thread = 0;                  // this core's index among the launch's cores (cross.h)
    int core_kind = 0;               // 0: AIV (every block of a one-kind launch), 1: AIC (mixed launch)
    int64_t sub_block = 0, group = 0;   // in a mixed launch: which AIV of which block
    bool cross_clocks = false;       // access records carry happens-before snapshots, not SyncAll phases
    Space spaces[SP_COUNT];
    std::vector<Buffer> bufs;
    std::vector<QueueState> queues;
    int live_pipes = 0;
    void* cur_pipe = nullptr;
    int pos_buffers[32] = {0};
    int total_buffers = 0;
    // mask state
    bool mask_counter = false;
    uint64_t mask_hi = ~0ull, mask_lo = ~0ull;
    bool atomic_add = false;
    // timeline
    double pipe_free[8] = {0, 0, 0, 0, 0, 0, 0, 0};  // when each pipe can start its next instruction
    double pipe_done[8] = {0, 0, 0, 0, 0, 0, 0, 0};  // when all its instructions so far have completed
    double issue = 0;                                 // the scalar unit's clock
    VClock vc[NPIPES];                                // per pipe: what it is ordered after
    EventMark flag_mark[64][8];                       // the latest SetFlag per (event, id)
    int flag_pending[64][8];
    CoreStats stats;
    std::vector<CoreStats> all_stats;
    L2Recent l2_recent;              // GM bytes this core read lately (L2 reuse model)
    uint64_t l2_clock = 0;
    // access records for the checks at the end of the run (cleared by the harness before each block)
    AccessLog gm_writes;             // writes to outputs and scratch
    AccessLog scratch_reads;         // reads of scratch
    AccessLog scratch_unowned;       // the parts of scratch reads this core had not written itself
    std::map<uint64_t, uint64_t> scratch_own;   // scratch bytes this core wrote: [lo, hi) keyed by lo
    uint32_t phase = 0;              // SyncAll calls this core has made (cross_clocks: its clock's snapshot)
    Operand operands[8];             // the current call's local operands (missing-sync check)
    int n_operands = 0;
    std::vector<TraceRec> trace;     // timeline records (cfg.trace_limit > 0)
    uint64_t trace_dropped = 0;      // records past the limit
    // GM
    std::vector<GmRegion> gm;
    uint8_t* sys_workspace = nullptr;
    // diagnostics
    const char* cur_api = "";
    Loc cur_loc{"", 0};
    bool aborting = false;
    int n_errors = 0;
    std::map<std::string, int> seen;
};
// One State per simulated core.  Blocks normally run one after another on the main thread;
// kernels that call SyncAll run one thread per block (see harness.h), hence thread_local.
inline thread_local State g_state;
inline State& S() { return g_state; }

// The lock for atomic GM accumulation (cross.h has the barrier and the flags between cores).
inline std::mutex g_atomic_mu;

inline std::string loc_file(const Loc& l) {
    std::string f = l.file ? l.file : "";
    size_t p = f.find_last_of('/');
    return p == std::string::npos ? f : f.substr(p + 1);
}

inline void emit_diag(const char* sev, const char* rule, const char* api, const Loc& loc, const std::string& msg) {
    State& s = S();
    std::string key = std::string(rule) + "|" + api + "|" + std::to_string(loc.line) + "|" + loc_file(loc);
    int& n = s.seen[key];
    ++n;
    if (n > 1 && sev[0] == 'w') return;  // warnings are reported once per (rule, api, line)
    std::string m = msg;
    for (char& c : m)
        if (c == '\t' || c == '\n') c = ' ';
    if (s.report) {
        std::fprintf(s.report, "D\t%s\t%s\t%s\t%s\t%d\t%lld\t%s\n", sev, rule, api, loc_file(loc).c_str(), loc.line,
                     static_cast<long long>(s.block_idx), m.c_str());
        std::fflush(s.report);
    } else {
        std::fprintf(stderr, "[%s] %s %s line %d: %s\n", sev, rule, api, loc.line, m.c_str());
    }
}

inline std::string fmt(const char* f, ...) __attribute__((format(printf, 1, 2)));
inline std::string fmt(const char* f, ...) {
    char buf[2048];
    va_list ap;
    va_start(ap, f);
    std::vsnprintf(buf, sizeof buf, f, ap);
    va_end(ap);
    return buf;
}

[[noreturn]] inline void fail(const char* rule, const char* api, const Loc& loc, const std::string& msg) {
    S().n_errors++;
    emit_diag("error", rule, api, loc, msg);
    S().aborting = true;
    throw Abort{};
}
inline void warn(const char* rule, const char* api, const Loc& loc, const std::string& msg) {
    emit_diag("warning", rule, api, loc, msg);
}
// An error in strict mode, a warning in lenient mode.
inline void strict_or_warn(const char* rule, const char* api, const Loc& loc, const std::string& msg) {
    if (S().cfg.lenient)
        warn(rule, api, loc, msg + " (lenient mode: continuing with the hardware behaviour)");
    else
        fail(rule, api, loc, msg);
}

inline void enter(const char* api, const Loc& loc) {
    State& s = S();
    s.cur_api = api;
    s.cur_loc = loc;
    s.n_operands = 0;
    // SyncAll separates parallel phases for the output race check
    if (!s.cross_clocks && api[0] == 'S' && api[1] == 'y' && std::strcmp(api, "SyncAll") == 0) s.phase++;
}

// In a mixed launch each kind of core has its own memories: an AIC the L1, L0A/B/C and the bias and
// fixpipe buffers, an AIV the Unified Buffer (the 910B's split architecture).
inline void check_core_space(const char* api, const Loc& loc, int sp) {
    State& s = S();
    if (s.cfg.mix_ratio == 0 || (s.core_kind == 1) == (sp != SP_UB)) return;
    if (s.core_kind == 1)
        fail("core-kind", api, loc,
             "the AIC has no Unified Buffer: in a mixed launch vector work runs on the AIVs (put it under "
             "`if ASCEND_IS_AIV`), and the AIC hands its product tiles to them through GM with cross-core flags");
    fail("core-kind", api, loc,
         fmt("an AIV has no %s: in a mixed launch cube work runs on the AIC (put it under `if ASCEND_IS_AIC`)",
             space_name(sp)));
}

// ---------------------------------------------------------------- cost timeline
inline void trace_record(int pipe, double start, double end, uint8_t kind = TR_INSTR, const char* api = nullptr) {
    State& s = S();
    if (s.cfg.trace_limit <= 0) return;
    if (static_cast<int64_t>(s.trace.size()) >= s.cfg.trace_limit) {
        s.trace_dropped++;
        return;
    }
    s.trace.push_back(TraceRec{start, end, api ? api : s.cur_api, s.cur_loc.file, s.cur_loc.line,
                               static_cast<uint8_t>(pipe), kind});
}
// A core's share of the HBM bandwidth kernels actually reach (not the nominal figure: no
// streaming kernel reaches that, so modelling it would make bandwidth-bound kernels too fast).
inline double hbm_bytes_per_cycle() {
    const Config& c = S().cfg;
    const int64_t active = active_cores(c);
    double gbps = c.hbm_achievable_gbps > 0 ? c.hbm_achievable_gbps : c.hbm_gbps;
    return gbps * 1e9 / (c.freq_mhz * 1e6) / static_cast<double>(active);
}

// L2 reuse: each active core owns an equal share of the chip's L2 (an approximation of a
// shared cache). The bytes of a GM read that the same core read within its last `share` bytes
// of traffic are served by L2: they cost MTE2 time but no HBM bandwidth. Returns the bytes
// that go to HBM. The read is `count` rows of `blk` bytes, `stride` bytes apart (a contiguous
// read: count 1); only those bytes are recorded and matched, never the gaps between rows.

// bytes of the strided set (e, be, se, ne) inside [lo, hi); offsets relative to e, be <= se
inline uint64_t l2_overlap_interval(int64_t lo, int64_t hi, int64_t be, int64_t se, int64_t ne) {
    if (hi <= 0 || lo >= (ne - 1) * se + be || hi <= lo) return 0;
    // rows j with j*se < hi and j*se + be > lo
    int64_t jmax = std::min<int64_t>(ne - 1, (hi - 1) / se);
    int64_t t = lo - be + 1;  // j*se >= t
    int64_t jmin = t <= 0 ? 0 : (t + se - 1) / se;
    if (jmin > jmax) return 0;
    auto clip = [&](int64_t j) {
        int64_t a = std::max<int64_t>(lo, j * se), b = std::min<int64_t>(hi, j * se + be);
        return b > a ? static_cast<uint64_t>(b - a) : 0ull;
    };
    if (jmin == jmax) return clip(jmin);
    return clip(jmin) + clip(jmax) + static_cast<uint64_t>(jmax - jmin - 1) * static_cast<uint64_t>(be);
}
// bytes of the set E inside the set Q (both strided; rows disjoint within each set)
inline uint64_t l2_overlap(uintptr_t qa, uint64_t qb, uint64_t qs, uint64_t qn, const L2Entry& e) {
    const int64_t base = static_cast<int64_t>(e.start);
    if (qn == 1)
        return l2_overlap_interval(static_cast<int64_t>(qa) - base, static_cast<int64_t>(qa + qb) - base,
                                   static_cast<int64_t>(e.blk), static_cast<int64_t>(e.stride), static_cast<int64_t>(e.count));
    if (e.count == 1)
        return l2_overlap_interval(base - static_cast<int64_t>(qa), base + static_cast<int64_t>(e.blk) - static_cast<int64_t>(qa),
                                   static_cast<int64_t>(qb), static_cast<int64_t>(qs), static_cast<int64_t>(qn));
    if (qs == e.stride) {
        // same row pitch (column tiles of one 2-D block): E's row j lands on Q's row j+k at
        // offset r, and may spill into Q's row j+k+1
        const int64_t s = static_cast<int64_t>(qs), d = base - static_cast<int64_t>(qa);
        int64_t k = d >= 0 ? d / s : -((-d + s - 1) / s);
        int64_t r = d - k * s;  // 0 <= r < s
        const int64_t be = static_cast<int64_t>(e.blk), bq = static_cast<int64_t>(qb);
        const int64_t ne = static_cast<int64_t>(e.count), nq = static_cast<int64_t>(qn);
        int64_t ov1 = std::max<int64_t>(0, std::min(r + be, bq) - r);
        int64_t ov2 = std::max<int64_t>(0, std::min(r + be - s, bq));
        auto pairs = [&](int64_t off) {  // j in [0, ne) with j + off in [0, nq)
            int64_t a = std::max<int64_t>(0, -off), b = std::min<int64_t>(ne, nq - off);
            return b > a ? b - a : 0;
        };
        return static_cast<uint64_t>(pairs(k) * ov1 + (ov2 > 0 ? pairs(k + 1) * ov2 : 0));
    }
    // different pitches: row by row over the set with fewer rows (at most 4095 rows per copy)
    uint64_t sum = 0;
    if (qn <= e.count) {
        for (uint64_t i = 0; i < qn; ++i) {
            int64_t lo = static_cast<int64_t>(qa + i * qs) - base;
            sum += l2_overlap_interval(lo, lo + static_cast<int64_t>(qb), static_cast<int64_t>(e.blk),
                                       static_cast<int64_t>(e.stride), static_cast<int64_t>(e.count));
        }
    } else {
        for (uint64_t j = 0; j < e.count; ++j) {
            int64_t lo = static_cast<int64_t>(e.start + j * e.stride) - static_cast<int64_t>(qa);
            sum += l2_overlap_interval(lo, lo + static_cast<int64_t>(e.blk), static_cast<int64_t>(qb),
                                       static_cast<int64_t>(qs), static_cast<int64_t>(qn));
        }
    }
    return sum;
}

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
inline void l2_expire(L2Recent& l2, uint64_t share, uint64_t clock) {
    while (!l2.fifo.empty() && (!l2.fifo.front().live || l2.fifo.front().clock + share < clock)) {
        l2.drop(l2.fifo.front());
        l2.fifo.pop_front();
    }
}
// (row form) a read or write of `count` rows of `blk` bytes `stride` apart: contiguous rows become one
inline void l2_normalise(uint64_t& blk, uint64_t& stride, uint64_t& count) {
    if (count == 1 || stride <= blk) {  // contiguous (stride < blk cannot occur: gaps are >= 0)
        blk *= count;
        count = 1;
    }
    if (count == 1) stride = blk;
}
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
inline std::vector<std::unique_ptr<BlockL2>> g_block_l2;

inline void gm_wrote(const void* addr, uint64_t blk, uint64_t stride, uint64_t count) {
    State& s = S();
    if (g_block_l2.empty() || blk == 0 || count == 0) return;
    l2_normalise(blk, stride, count);
    BlockL2& b = *g_block_l2[static_cast<size_t>(s.group)];
    std::lock_guard<std::mutex> lock(b.mu);
    b.clock += blk * count;
    l2_expire(b.written, l2_share_bytes(s.cfg) * static_cast<uint64_t>(s.cfg.mix_ratio + 1), b.clock);
    b.written.add(reinterpret_cast<uintptr_t>(addr), blk, stride, count, b.clock);
}

inline uint64_t gm_read_hbm_bytes(const void* addr, uint64_t blk, uint64_t stride, uint64_t count) {
    State& s = S();
    if (blk == 0 || count == 0) return 0;
    l2_normalise(blk, stride, count);
    const uint64_t bytes = blk * count;
    uintptr_t a = reinterpret_cast<uintptr_t>(addr);
    const uint64_t share = l2_share_bytes(s.cfg);
    if (share == 0) return bytes;
    L2Recent& l2 = s.l2_recent;
    l2_expire(l2, share, s.l2_clock);
    const uintptr_t qend = a + (count - 1) * stride + blk;
    uint64_t overlap = 0;
    L2Entry* stale[8];  // older reads of exactly these bytes (or of fewer, contiguous): refreshed by this one
    int n_stale = 0;
    auto more = [&] { return overlap < bytes; };
    l2_scan(l2, a, blk, stride, count, [&](L2Entry& e) {
        if (e.start + e.span <= a || e.start >= qend) return;
        overlap += l2_overlap(a, blk, stride, count, e);
        bool same = e.start == a && e.blk == blk && e.stride == stride && e.count == count;
        bool inside = count == 1 && e.start >= a && e.start + e.span <= qend;
        if ((same || inside) && n_stale < 8) stale[n_stale++] = &e;
    }, more);
    if (!g_block_l2.empty() && overlap < bytes) {   // what the block's cores wrote (a hand-off)
        BlockL2& b = *g_block_l2[static_cast<size_t>(s.group)];
        std::lock_guard<std::mutex> lock(b.mu);
        l2_expire(b.written, share * static_cast<uint64_t>(s.cfg.mix_ratio + 1), b.clock);
        l2_scan(b.written, a, blk, stride, count, [&](L2Entry& e) {
            if (e.start + e.span > a && e.start < qend) overlap += l2_overlap(a, blk, stride, count, e);
        }, more);
    }
    for (int i = 0; i < n_stale; ++i) l2.drop(*stale[i]);
    s.l2_clock += bytes;
    l2.add(a, blk, stride, count, s.l2_clock);
    return bytes - std::min(overlap, bytes);
}

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
inline VClock& issue_on(int p) {
    State& s = S();
    VClock& v = s.vc[p];
    if (p != static_cast<int>(Pipe::S)) v.join(s.vc[static_cast<int>(Pipe::S)]);
    return v;
}
// The flag a SetFlag on `src` raises: it fires when src has completed everything issued so far.
inline EventMark mark_on(int src) {
    State& s = S();
    EventMark m;
    m.vc = issue_on(src);
    m.time = src == static_cast<int>(Pipe::S) ? s.issue : std::max(s.issue, s.pipe_done[src]);
    m.set = true;
    return m;
}
// A WaitFlag on `dst`: its next instruction starts no earlier than the flag, and is ordered after
// what the flag's source had seen.
inline void wait_on(int dst, const EventMark& m) {
    State& s = S();
    issue_on(dst).join(m.vc);
    if (dst == static_cast<int>(Pipe::S)) {
        s.issue = std::max(s.issue, m.time);
    } else {
        s.pipe_free[dst] = std::max(s.pipe_free[dst], std::max(m.time, s.issue));
    }
}
// All pipes drain and every pipe is ordered after all of them (PipeBarrier<PIPE_ALL>, SyncAll):
// drain_time() is when the last pipe finishes, release_all_pipes(t) resumes them all at t.
inline double drain_time() {
    State& s = S();
    double t = s.issue;
    for (int i = 0; i < NPIPES; ++i) t = std::max(t, std::max(s.pipe_free[i], s.pipe_done[i]));
    return t;
}
inline void release_all_pipes(double t) {
    State& s = S();
    VClock all;
    for (int i = 0; i < NPIPES; ++i) all.join(s.vc[i]);
    for (int i = 0; i < NPIPES; ++i) {
        s.vc[i] = all;
        s.pipe_free[i] = std::max(s.pipe_free[i], t);
    }
    s.issue = std::max(s.issue, t);
}

inline std::string buffer_label(int b) {
    State& s = S();
    const Buffer& bf = s.bufs[b];
    const char* pos = position_label(bf.pos);
    if (bf.queue >= 0) {
        const QueueState& q = s.queues[bf.queue];
        return fmt("a TQue<%s> buffer (InitBuffer at line %d, %s 0x%x)", pos, q.init_loc.line, space_name(bf.space),
                   bf.addr);
    }
    return fmt("a TBuf<%s> (InitBuffer at line %d, %s 0x%x)", pos, bf.alloc_loc.line, space_name(bf.space), bf.addr);
}
// What the writer should add between two pipes.
inline std::string sync_advice(int first, int second) {
    if (first == static_cast<int>(Pipe::MTE2) && second == static_cast<int>(Pipe::V))
        return "EnQue the tile after the copy and DeQue it before the vector op, or SetFlag/WaitFlag<HardEvent::MTE2_V>";
    if (first == static_cast<int>(Pipe::V) && second == static_cast<int>(Pipe::MTE3))
        return "EnQue the tile after the vector op and DeQue it before the copy out, or SetFlag/WaitFlag<HardEvent::V_MTE3>";
    if (first == static_cast<int>(Pipe::V) && second == static_cast<int>(Pipe::MTE2))
        return "FreeTensor the tile and AllocTensor it again before the next copy in, or SetFlag/WaitFlag<HardEvent::V_MTE2>";
    if (first == static_cast<int>(Pipe::MTE3) && second == static_cast<int>(Pipe::V))
        return "FreeTensor the tile and AllocTensor it again before writing it, or SetFlag/WaitFlag<HardEvent::MTE3_V>";
    return fmt("SetFlag<HardEvent::%s_%s> after the first and WaitFlag<HardEvent::%s_%s> before the second", pipe_name(first),
               pipe_name(second), pipe_name(first), pipe_name(second));
}
[[noreturn]] inline void missing_sync(int b, const Access& first, int second, bool second_writes) {
    State& s = S();
    fail("missing-sync", s.cur_api, s.cur_loc,
         fmt("%s on %s %s %s that %s at line %d %s on %s, and no event orders the two: on the NPU they can overlap "
             "(a race). Add %s",
             s.cur_api, pipe_name(second), second_writes ? "writes" : "reads", buffer_label(b).c_str(), first.api,
             first.line, first.write ? "wrote" : "read", pipe_name(first.pipe), sync_advice(first.pipe, second).c_str()));
}
// Whether an access by pipe `p` conflicts with the earlier access `a`: another pipe, either one
// writes, and their bytes meet. A conflict must be ordered by events (or it is a race).
inline bool conflicts(const Operand& o, int p, const Access& a) {
    return a.pipe != p && (a.write || o.write) && accesses_meet(o, a);
}
// An access whose pipe `p` (clock `v`) is not ordered after a conflicting earlier one is a race.
inline void check_access(const Operand& o, int p, const VClock& v) {
    Buffer& bf = S().bufs[o.buf];
    if (bf.internal) return;
    for (const Access& a : bf.accesses)
        if (v.c[a.pipe] < a.epoch && conflicts(o, p, a)) missing_sync(o.buf, a, p, o.write);
}
inline void record_access(const Operand& o, int p, uint32_t epoch) {
    State& s = S();
    Buffer& bf = s.bufs[o.buf];
    if (bf.internal) return;
    std::vector<Access>& acc = bf.accesses;
    // an access covering an older one of the same pipe, or a write covering any older access
    // (ordered before it, or the check above failed), replaces it
    size_t k = 0;
    for (size_t i = 0; i < acc.size(); ++i) {
        const Access& a = acc[i];
        bool covered = o.blk == 0 && o.lo <= a.lo && a.hi <= o.hi && (o.write || (a.pipe == p && !a.write));
        if (!covered) acc[k++] = a;
    }
    acc.resize(k);
    if (acc.size() >= 32) {
        // forget accesses every pipe is already ordered after: nothing later can race with them
        k = 0;
        for (size_t i = 0; i < acc.size(); ++i) {
            bool known = true;
            for (int q = 0; q < NPIPES && known; ++q) known = s.vc[q].c[acc[i].pipe] >= acc[i].epoch;
            if (!known) acc[k++] = acc[i];
        }
        acc.resize(k);
        if (acc.size() >= 32) acc.erase(acc.begin());  // bounded memory: the oldest goes unchecked
    }
    acc.push_back(Access{o.lo, o.hi, o.blk, o.stride, epoch, static_cast<int8_t>(p), o.write, s.cur_api, s.cur_loc.line});
}
// With cce-auto-sync (the toolchain default) the compiler puts a flag between a scalar access
// and the other pipes' accesses to the same data: the scalar unit waits for those pipes.
inline void auto_sync_scalar(const Operand& o) {
    State& s = S();
    const int sp = static_cast<int>(Pipe::S);
    bool wait[NPIPES] = {false, false, false, false, false, false, false};
    for (const Access& a : s.bufs[o.buf].accesses)
        if (conflicts(o, sp, a)) wait[a.pipe] = true;
    for (int q = 0; q < NPIPES; ++q)
        if (wait[q]) wait_on(sp, mark_on(q));
}

// Schedule one instruction on `pipe`: it starts when it has been issued and its pipe is free
// (after any WaitFlag queued on the pipe); GM reads add `latency` before their data lands.
// Buffers of library-internal stages (Matmul) also order it by dataflow, as the library's own
// waits do.
inline double schedule(Pipe pipe, double cycles, const Deps& d, double gm_bytes = 0, double latency = 0) {
    State& s = S();
    int p = static_cast<int>(pipe);
    s.stats.n_instr++;
    s.issue += s.cfg.issue_cycles;
    s.stats.busy[static_cast<int>(Pipe::S)] += s.cfg.issue_cycles;
    VClock& v = issue_on(p);
    const uint32_t epoch = ++v.c[p];
    double start = std::max(s.issue, s.pipe_free[p]);
    for (int b : d.rd)
        if (b >= 0 && s.bufs[b].internal) start = std::max(start, s.bufs[b].wr_end);
    for (int b : d.wr)
        if (b >= 0 && s.bufs[b].internal) start = std::max(start, s.bufs[b].acc_end);
    for (int i = 0; i < s.n_operands; ++i) check_access(s.operands[i], p, v);
    for (int i = 0; i < s.n_operands; ++i) record_access(s.operands[i], p, epoch);
    s.n_operands = 0;
    // GM traffic: every active core gets an equal share of HBM bandwidth, for reads and writes
    // together; a transfer runs no faster than that share, and the core's total GM bytes over
    // its share is a floor on its time (applied by the harness at block end).
    double hbm_cycles = 0;
    if (gm_bytes > 0) {
        hbm_cycles = gm_bytes / hbm_bytes_per_cycle();
        s.stats.busy[static_cast<int>(Pipe::HBM)] += hbm_cycles;
    }
    double dur = std::max(cycles, hbm_cycles);
    double end = start + dur;
    trace_record(p, start, end);
    s.pipe_free[p] = end;
    s.stats.busy[p] += dur;
    const double ready = end + latency;  // data lands `latency` cycles after the transfer left the pipe
    s.pipe_done[p] = std::max(s.pipe_done[p], ready);
    for (int b : d.rd)
        if (b >= 0 && s.bufs[b].internal) s.bufs[b].acc_end = std::max(s.bufs[b].acc_end, end);
    for (int b : d.wr)
        if (b >= 0 && s.bufs[b].internal) {
            s.bufs[b].wr_end = std::max(s.bufs[b].wr_end, ready);
            s.bufs[b].acc_end = std::max(s.bufs[b].acc_end, ready);
        }
    s.stats.end = std::max(s.stats.end, ready);
    return ready;
}

// A GM -> local copy on MTE2 into buffer `dst_buf`: HBM bandwidth only for what L2 does not
// serve (see gm_read_hbm_bytes), the data usable `gm_latency` cycles after the transfer.
// `moved` is what the MTE2 transfers (with per-row padding); the part served by L2 moves at
// the L2 rate (ini [AICoreMemoryRates] l2_rate, as the Matmul cost uses), the rest at the ddr rate.
// The read is `count` rows of `blk` bytes, `stride` bytes apart (GM addresses).
inline void schedule_gm_read(int dst_buf, double moved, const void* src, uint64_t blk, uint64_t stride, uint64_t count) {
    State& s = S();
    Deps d;
    d.wr[0] = dst_buf;
    const uint64_t bytes = blk * count;
    uint64_t hbm = gm_read_hbm_bytes(src, blk, stride, count);
    double from_hbm = bytes ? static_cast<double>(hbm) / static_cast<double>(bytes) : 1.0;
    double cycles = s.cfg.mte_overhead + moved * from_hbm / s.cfg.mte2_bpc + moved * (1.0 - from_hbm) / s.cfg.l2_bpc;
    schedule(Pipe::MTE2, cycles, d, static_cast<double>(hbm), s.cfg.gm_latency);
    s.stats.gm_read += hbm;
}

// A scalar-unit access to bytes [lo, hi) of local buffer `buf` (LocalTensor GetValue/SetValue/
// operator()): with cce-auto-sync the scalar unit first waits for the other pipes' accesses to
// them; without it, an unordered one is a missing-sync race.
inline void schedule_scalar(double cycles, int buf, uint32_t lo, uint32_t hi, bool read, bool write) {
    State& s = S();
    const int sp = static_cast<int>(Pipe::S);
    if (buf >= 0) {
        Operand ops[2] = {{buf, lo, hi, false}, {buf, lo, hi, true}};
        const Operand* first = read ? &ops[0] : &ops[1];
        const Operand* last = write ? &ops[2] : &ops[1];
        if (s.cfg.auto_sync)
            for (const Operand* o = first; o != last; ++o) auto_sync_scalar(*o);
        VClock& v = s.vc[sp];
        const uint32_t epoch = ++v.c[sp];
        for (const Operand* o = first; o != last; ++o) check_access(*o, sp, v);
        for (const Operand* o = first; o != last; ++o) record_access(*o, sp, epoch);
    }
    double start = s.issue;
    s.issue = start + cycles;
    trace_record(sp, start, s.issue);
    s.stats.busy[sp] += cycles;
    s.pipe_done[sp] = s.issue;
    s.stats.end = std::max(s.stats.end, s.issue);
}

// ---------------------------------------------------------------- GM registry
inline const GmRegion* gm_find(uintptr_t a, uint64_t bytes) {
    for (const GmRegion& r : S().gm)
        if (a >= r.base && a + bytes <= r.base + r.bytes) return &r;
    return nullptr;
}
inline std::string gm_describe(uintptr_t a, uint64_t bytes) {
    const GmRegion* best = nullptr;
    unsigned long long bestd = 0;
    for (const GmRegion& r : S().gm) {
        unsigned long long d = a < r.base ? r.base - a : (a + bytes > r.base + r.bytes ? a + bytes - (r.base + r.bytes) : 0);
        if (best == nullptr || d < bestd) {
            best = &r;
            bestd = d;
        }
    }
    if (!best) return fmt("0x%llx (no GM buffers were passed)", static_cast<unsigned long long>(a));
    long long off = static_cast<long long>(a) - static_cast<long long>(best->base);
    if (a < best->base)
        return fmt("%s%+lld bytes, %llu bytes before the start of buffer '%s' (%llu bytes)", best->name.c_str(), off,
                   bestd, best->name.c_str(), static_cast<unsigned long long>(best->bytes));
    return fmt("%s%+lld bytes: the access ends %llu bytes past the end of buffer '%s' (%llu bytes)", best->name.c_str(),
               off, bestd, best->name.c_str(), static_cast<unsigned long long>(best->bytes));
}
// ---------------------------------------------------------------- output write records
// Sort and merge one core's records: same output, phase, mode, API and line; touching or
// overlapping intervals become one (a core may rewrite its own bytes).
inline void compact_writes(std::vector<WriteRec>& w) {
    if (w.size() < 2) return;
    auto key = [](const WriteRec& r) { return std::make_tuple(r.region, r.phase, r.flags, r.line, r.api); };
    std::sort(w.begin(), w.end(), [&](const WriteRec& x, const WriteRec& y) {
        auto kx = key(x), ky = key(y);
        return kx != ky ? kx < ky : x.lo < y.lo;
    });
    size_t o = 0;
    for (size_t i = 1; i < w.size(); ++i) {
        if (key(w[i]) == key(w[o]) && w[i].lo <= w[o].hi) w[o].hi = std::max(w[o].hi, w[i].hi);
        else w[++o] = w[i];
    }
    w.resize(o + 1);
}
// Adds [lo, hi) to a set of disjoint intervals (touching ones merge).
inline void interval_add(std::map<uint64_t, uint64_t>& set, uint64_t lo, uint64_t hi) {
    auto it = set.upper_bound(lo);
    if (it != set.begin() && std::prev(it)->second >= lo) {
        --it;
        lo = it->first;
        hi = std::max(hi, it->second);
        it = set.erase(it);
    }
    while (it != set.end() && it->first <= hi) {
        hi = std::max(hi, it->second);
        it = set.erase(it);
    }
    set.emplace(lo, hi);
}
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
inline void record_gm_access(const GmRegion* r, uint64_t lo, uint64_t hi, bool write, const char* api, const Loc& loc) {
    if (r->scratch ? hi <= r->track_from : (!r->output || !write)) return;
    State& s = S();
    const size_t region = static_cast<size_t>(r - s.gm.data());
    if (write) {
        s.gm_writes.add(region, lo, hi, api, loc, s.phase, s.atomic_add ? WR_ATOMIC : 0);
        if (r->scratch) interval_add(s.scratch_own, lo, hi);
        return;
    }
    s.scratch_reads.add(region, lo, hi, api, loc, s.phase, 0);
    interval_gaps(s.scratch_own, lo, hi,
                  [&](uint64_t glo, uint64_t ghi) { s.scratch_unowned.add(region, glo, ghi, api, loc, s.phase, 0); });
}

inline void gm_check(const char* api, const Loc& loc, const void* p, uint64_t bytes, const char* what) {
    if (bytes == 0) return;
    uintptr_t a = reinterpret_cast<uintptr_t>(p);
    const GmRegion* r = gm_find(a, bytes);
    if (!r)
        fail("gm-bounds", api, loc,
             fmt("%s %s %llu bytes of GM at %s, outside every buffer the host passed", api, what,
                 static_cast<unsigned long long>(bytes), gm_describe(a, bytes).c_str()));
    // Every API access to GM is bounds-checked here ("reads ...", "writes ..."), so this is where
    // writes to outputs and accesses to scratch are recorded.
    record_gm_access(r, a - r->base, a + bytes - r->base, what[0] == 'w', api, loc);
}
// Records the reads of `rows` rows of `row_bytes` bytes, `stride` bytes apart, from `p` when they are
// in scratch (an API that bounds-checks only the first and last element of its operand, Matmul).
inline void note_scratch_rows(const char* api, const Loc& loc, const void* p, int64_t rows, uint64_t row_bytes,
                              uint64_t stride) {
    uintptr_t a = reinterpret_cast<uintptr_t>(p);
    const GmRegion* r = rows > 0 ? gm_find(a, row_bytes) : nullptr;
    if (!r || !r->scratch) return;
    for (int64_t i = 0; i < rows; ++i) {
        uint64_t lo = a - r->base + static_cast<uint64_t>(i) * stride;
        record_gm_access(r, lo, lo + row_bytes, false, api, loc);
    }
}

// ---------------------------------------------------------------- UB shadow ("was written")
inline void mark_written(int sp, uint32_t addr, uint64_t bytes) {
    if (S().cfg.cost_only || bytes == 0) return;
    Space& s = S().spaces[sp];
    if (addr + bytes > s.shadow.size()) bytes = s.shadow.size() > addr ? s.shadow.size() - addr : 0;
    std::memset(s.shadow.data() + addr, 1, bytes);
}
inline void mark_unwritten(int sp, uint32_t addr, uint64_t bytes) {
    if (S().cfg.cost_only || bytes == 0) return;
    Space& s = S().spaces[sp];
    if (addr + bytes > s.shadow.size()) bytes = s.shadow.size() > addr ? s.shadow.size() - addr : 0;
    std::memset(s.shadow.data() + addr, 0, bytes);
}
// Offset of the first byte of [addr, addr + bytes) in space `sp` that nothing wrote, or -1.
inline int64_t first_unwritten(int sp, uint32_t addr, uint64_t bytes) {
    if (S().cfg.cost_only || bytes == 0) return -1;
    Space& s = S().spaces[sp];
    const void* z = std::memchr(s.shadow.data() + addr, 0, bytes);
    return z ? static_cast<const uint8_t*>(z) - (s.shadow.data() + addr) : -1;
}
inline void check_written(const char* api, const Loc& loc, const char* operand, int sp, uint32_t addr,
                          uint64_t bytes, uint32_t elem_size) {
    const int64_t off = first_unwritten(sp, addr, bytes);
    if (off >= 0)
        fail("uninit-read", api, loc,
             fmt("%s reads %s element %llu (%s address 0x%llx), which nothing wrote since the buffer was allocated "
                 "(operand covers %llu elements)",
                 api, operand, static_cast<unsigned long long>(off / elem_size), space_name(sp),
                 static_cast<unsigned long long>(addr + off), static_cast<unsigned long long>(bytes / elem_size)));
}

// A copy to GM of local bytes nothing wrote moves garbage, which is harmless when nothing reads
// or compares those GM elements (a kernel that copies out a whole 32-byte block of which the op
// returns one value): a warning with the line. The verification compares every output element,
// so garbage that reaches a compared element still fails there.
inline void check_copied_out(const char* api, const Loc& loc, int sp, uint32_t addr, uint64_t bytes,
                             uint32_t elem_size) {
    const int64_t off = first_unwritten(sp, addr, bytes);
    if (off >= 0)
        warn("uninit-copy-out", api, loc,
             fmt("%s copies src element %llu (%s address 0x%llx) to GM, which nothing wrote since the buffer was "
                 "allocated: those GM elements get garbage unless something writes them later",
                 api, static_cast<unsigned long long>(off / elem_size), space_name(sp),
                 static_cast<unsigned long long>(addr + off)));
}

}  // namespace asc_sim
