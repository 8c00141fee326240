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
#include <type_traits>
#include <utility>
#include <vector>
#include <condition_variable>
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
#define ASCEND_IS_AIV (true)
#define ASCEND_IS_AIC (false)
#define ASCEND_IS_NOT_AIV (false)
#define ASCEND_IS_NOT_AIC (true)

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
    double hbm_gbps = 1600;
    double mte2_bpc = 32, mte3_bpc = 64, l1_l0a_bpc = 512, l1_l0b_bpc = 256, l0c_out_bpc = 256;
    double vec_bpc = 256, cube_macs = 4096;
    int cores = 48;              // physical cores sharing HBM (AIV for vector kernels)
    int max_buf_per_pos = 8, max_buffers = 64;
    bool data_copy_pad = true, bf16 = true;
    // cost-model constants (documented in ascendcraft/sim/cost.py)
    double issue_cycles = 10, mte_overhead = 40, vec_overhead = 8, scalar_ub_cycles = 2, scalar_gm_cycles = 200;
    double transcendental_cpr = 2, cube_overhead = 16, gm_latency = 1000, l2_bpc = 110;
    double l2_bytes = 0;         // chip L2; 0: every GM read goes to HBM
    bool cost_only = false, lenient = false;
    int64_t block_dim = 1;
    uint64_t tiling_key = 0;
};

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

enum SpaceId : int { SP_UB = 0, SP_L1, SP_L0A, SP_L0B, SP_L0C, SP_BT, SP_FB, SP_COUNT };
inline const char* space_name(int s) {
    static const char* n[] = {"UB", "L1", "L0A", "L0B", "L0C", "BT", "FB"};
    return (s >= 0 && s < SP_COUNT) ? n[s] : "?";
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
    double wr_end = 0, acc_end = 0;  // cost model: end of last write / last access
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
};

struct L2Entry {
    uintptr_t start, end;
    uint64_t clock;  // this core's GM bytes read when the range was read
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
    double pipe_free[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    double issue = 0;
    double flag_time[64][8];
    int flag_pending[64][8];
    CoreStats stats;
    std::vector<CoreStats> all_stats;
    std::deque<L2Entry> l2_recent;   // GM ranges this core read lately (L2 reuse model)
    uint64_t l2_clock = 0;
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

// Cross-block barrier for SyncAll (threaded mode) and the lock for atomic GM accumulation.
struct BlockBarrier {
    std::mutex mu;
    std::condition_variable cv;
    int64_t total = 0, arrived = 0, generation = 0;
    bool broken = false;   // a block aborted: every waiter gives up
    double max_time = 0, release_time = 0;
    bool active = false;
};
inline BlockBarrier g_barrier;
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
    S().cur_api = api;
    S().cur_loc = loc;
}

// ---------------------------------------------------------------- cost timeline
inline double hbm_bytes_per_cycle() {
    const Config& c = S().cfg;
    int64_t active = std::min<int64_t>(std::max<int64_t>(c.block_dim, 1), c.cores);
    return c.hbm_gbps * 1e9 / (c.freq_mhz * 1e6) / static_cast<double>(active);
}

// L2 reuse: each active core owns an equal share of the chip's L2 (an approximation of a
// shared cache). A GM read that overlaps a range the same core read within its last
// `share` bytes of traffic is served by L2: it costs MTE2 time but no HBM bandwidth.
// Returns the bytes that go to HBM. `span` is the address range the copy covers (rows and
// gaps), `bytes` what it moves.
inline uint64_t gm_read_hbm_bytes(const void* addr, uint64_t span, uint64_t bytes) {
    State& s = S();
    const Config& c = s.cfg;
    uintptr_t a = reinterpret_cast<uintptr_t>(addr), e = a + span;
    int64_t active = std::min<int64_t>(std::max<int64_t>(c.block_dim, 1), c.cores);
    uint64_t share = c.l2_bytes > 0 ? static_cast<uint64_t>(c.l2_bytes / static_cast<double>(active)) : 0;
    while (!s.l2_recent.empty() && s.l2_recent.front().clock + share < s.l2_clock) s.l2_recent.pop_front();
    uint64_t overlap = 0;
    if (share > 0)
        for (const L2Entry& r : s.l2_recent) {
            uintptr_t lo = std::max(a, r.start), hi = std::min(e, r.end);
            if (hi > lo) overlap += hi - lo;
        }
    overlap = std::min<uint64_t>(overlap, span);
    uint64_t hit = span > 0 ? static_cast<uint64_t>(static_cast<double>(bytes) * overlap / static_cast<double>(span)) : 0;
    s.l2_clock += bytes;
    if (share > 0) s.l2_recent.push_back({a, e, s.l2_clock});
    return bytes - std::min(hit, bytes);
}

struct Deps {
    int rd[4] = {-1, -1, -1, -1};
    int wr[2] = {-1, -1};
};

// Schedule one instruction on `pipe` (GM reads add `latency` before their data is usable): it starts when the pipe is free, when it has been
// issued, and when its input buffers were written (RAW) / its output buffers were last
// accessed (WAR, WAW): the same ordering TQue EnQue/DeQue/Alloc/Free enforce on hardware.
inline double schedule(Pipe pipe, double cycles, const Deps& d, double gm_bytes = 0, double latency = 0) {
    State& s = S();
    int p = static_cast<int>(pipe);
    s.stats.n_instr++;
    s.issue += s.cfg.issue_cycles;
    s.stats.busy[static_cast<int>(Pipe::S)] += s.cfg.issue_cycles;
    double start = std::max(s.issue, s.pipe_free[p]);
    for (int b : d.rd)
        if (b >= 0) start = std::max(start, s.bufs[b].wr_end);
    for (int b : d.wr)
        if (b >= 0) start = std::max(start, s.bufs[b].acc_end);
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
    s.pipe_free[p] = end;
    s.stats.busy[p] += dur;
    for (int b : d.rd)
        if (b >= 0) s.bufs[b].acc_end = std::max(s.bufs[b].acc_end, end);
    const double ready = end + latency;  // data lands `latency` cycles after the transfer left the pipe
    for (int b : d.wr)
        if (b >= 0) {
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
inline void schedule_gm_read(int dst_buf, double moved, const void* src, uint64_t span, uint64_t bytes) {
    State& s = S();
    Deps d;
    d.wr[0] = dst_buf;
    uint64_t hbm = gm_read_hbm_bytes(src, span, bytes);
    double from_hbm = bytes ? static_cast<double>(hbm) / static_cast<double>(bytes) : 1.0;
    double cycles = s.cfg.mte_overhead + moved * from_hbm / s.cfg.mte2_bpc + moved * (1.0 - from_hbm) / s.cfg.l2_bpc;
    schedule(Pipe::MTE2, cycles, d, static_cast<double>(hbm), s.cfg.gm_latency);
    s.stats.gm_read += hbm;
}

// A scalar-pipe access that must wait for a buffer (V->S sync inserted by cce-auto-sync).
inline void schedule_scalar(double cycles, int buf_rd, int buf_wr) {
    State& s = S();
    double start = s.issue;
    if (buf_rd >= 0) start = std::max(start, s.bufs[buf_rd].wr_end);
    if (buf_wr >= 0) start = std::max(start, s.bufs[buf_wr].acc_end);
    s.issue = start + cycles;
    s.stats.busy[static_cast<int>(Pipe::S)] += cycles;
    if (buf_wr >= 0) {
        s.bufs[buf_wr].wr_end = std::max(s.bufs[buf_wr].wr_end, s.issue);
        s.bufs[buf_wr].acc_end = std::max(s.bufs[buf_wr].acc_end, s.issue);
    }
    if (buf_rd >= 0) s.bufs[buf_rd].acc_end = std::max(s.bufs[buf_rd].acc_end, s.issue);
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
inline void gm_check(const char* api, const Loc& loc, const void* p, uint64_t bytes, const char* what) {
    if (bytes == 0) return;
    uintptr_t a = reinterpret_cast<uintptr_t>(p);
    if (!gm_find(a, bytes))
        fail("gm-bounds", api, loc,
             fmt("%s %s %llu bytes of GM at %s, outside every buffer the host passed", api, what,
                 static_cast<unsigned long long>(bytes), gm_describe(a, bytes).c_str()));
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
inline void check_written(const char* api, const Loc& loc, const char* operand, int sp, uint32_t addr,
                          uint64_t bytes, uint32_t elem_size) {
    if (S().cfg.cost_only || bytes == 0) return;
    Space& s = S().spaces[sp];
    const void* z = std::memchr(s.shadow.data() + addr, 0, bytes);
    if (z) {
        uint64_t off = static_cast<const uint8_t*>(z) - (s.shadow.data() + addr);
        fail("uninit-read", api, loc,
             fmt("%s reads %s element %llu (%s address 0x%llx), which nothing wrote since the buffer was allocated "
                 "(operand covers %llu elements)",
                 api, operand, static_cast<unsigned long long>(off / elem_size), space_name(sp),
                 static_cast<unsigned long long>(addr + off), static_cast<unsigned long long>(bytes / elem_size)));
    }
}

}  // namespace asc_sim
