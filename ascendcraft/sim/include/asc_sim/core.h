// ascendcraft AscendC CPU simulator: core runtime (qualifiers, scalar types, simulator
// state, diagnostics; the pipe timeline is in schedule.h, function bodies in runtime/core.cpp).  Written for ascendcraft; API names and
// semantics follow the public AscendC documentation (see docs/simulator.md).
#pragma once

#include <algorithm>
#include <cassert>   // CANN's CPU-debug build has it: kernels assert() under __CCE_KT_TEST__
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
// The simulated core is an Atlas A2 (910B) AI Core: the device compiler's architecture macros, which
// kernels test for their A2 code paths (`#if __CCE_AICORE__ == 220`; dav_c220 is asc-devkit's A2
// implementation, __NPU_ARCH__ 2201 its vector core).
#ifndef __CCE_AICORE__
#define __CCE_AICORE__ 220
#endif
#ifndef __NPU_ARCH__
#define __NPU_ARCH__ 2201
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
// The device compiler's function attributes as kernels in the CATLASS style write them:
// `__forceinline__ [aicore] T f()` (and `[host, aicore]`). `__forceinline__` opens and `aicore`
// closes a standard attribute, so the pair reads `[[maybe_unused]] T f()` here.
#define __forceinline__ [
#define aicore maybe_unused]
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
// The compiler's block variables, which older CANN operators read unqualified (the block a core runs
// and the launch's block count); set before each block (reset_core), one per block thread.
inline thread_local int64_t block_idx = 0;
inline thread_local int64_t block_num = 0;

namespace asc_sim {

// ---------------------------------------------------------------- source locations
struct Loc {
    const char* file;
    int line;
    static Loc here(const char* f = __builtin_FILE(), int l = __builtin_LINE()) { return {f, l}; }
};
#define ASC_LOC_PARAM ::asc_sim::Loc asc_loc_ = ::asc_sim::Loc::here()

// ---------------------------------------------------------------- 16-bit floats
// constexpr (bit casts, integer rounding), so kernels can declare `constexpr half ONE = 1.0;` as
// they do for the NPU compiler, whose half is a built-in type.
constexpr uint32_t f32_bits(float f) { return __builtin_bit_cast(uint32_t, f); }
constexpr float bits_f32(uint32_t b) { return __builtin_bit_cast(float, b); }
// v >> s rounded to nearest, ties to even
constexpr uint32_t shift_rne(uint32_t v, uint32_t s) {
    if (s == 0) return v;
    if (s > 31) return 0;
    uint32_t q = v >> s, rem = v & ((1u << s) - 1u), halfway = 1u << (s - 1);
    return (rem > halfway || (rem == halfway && (q & 1u))) ? q + 1 : q;
}
constexpr uint16_t f32_to_f16_bits(float f) {
    uint32_t x = f32_bits(f);
    uint32_t sign = (x >> 16) & 0x8000u;
    uint32_t ax = x & 0x7fffffffu;
    if (ax >= 0x7f800000u) return static_cast<uint16_t>(sign | (ax > 0x7f800000u ? 0x7e00u : 0x7c00u));
    if (ax >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds to inf
    if (ax < 0x38800000u) {                                              // subnormal / zero: round(|f| * 2^24)
        uint32_t e = ax >> 23;
        if (e < 101) return static_cast<uint16_t>(sign);                 // below half the smallest subnormal
        return static_cast<uint16_t>(sign | shift_rne((ax & 0x7fffffu) | 0x800000u, 126u - e));
    }
    uint32_t m = ax + 0xc8000fffu + ((ax >> 13) & 1u);
    return static_cast<uint16_t>(sign | (m >> 13));
}
constexpr float f16_bits_to_f32(uint16_t h) {
    uint32_t sign = (static_cast<uint32_t>(h) & 0x8000u) << 16;
    uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    if (e == 0) {
        float v = static_cast<float>(m) * (1.0f / 16777216.0f);
        return sign ? -v : v;
    }
    return bits_f32((e == 31) ? (sign | 0x7f800000u | (m << 13)) : (sign | ((e + 112u) << 23) | (m << 13)));
}
constexpr uint16_t f32_to_bf16_bits(float f) {
    uint32_t x = f32_bits(f);
    if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);
    x += 0x7fffu + ((x >> 16) & 1u);
    return static_cast<uint16_t>(x >> 16);
}
constexpr float bf16_bits_to_f32(uint16_t b) { return bits_f32(static_cast<uint32_t>(b) << 16); }

}  // namespace asc_sim

// The two 16-bit float types of AscendC, as software types (like CANN's CPU mode).
struct half {
    uint16_t bits;
    half() = default;
    constexpr half(float f) : bits(asc_sim::f32_to_f16_bits(f)) {}
    constexpr half(double d) : bits(asc_sim::f32_to_f16_bits(static_cast<float>(d))) {}
    template <typename I, typename std::enable_if<std::is_integral<I>::value, int>::type = 0>
    constexpr half(I i) : bits(asc_sim::f32_to_f16_bits(static_cast<float>(i))) {}
    constexpr operator float() const { return asc_sim::f16_bits_to_f32(bits); }
    static constexpr half from_bits(uint16_t b) { half h{}; h.bits = b; return h; }
    half& operator+=(float o) { *this = half(float(*this) + o); return *this; }
    half& operator-=(float o) { *this = half(float(*this) - o); return *this; }
    half& operator*=(float o) { *this = half(float(*this) * o); return *this; }
    half& operator/=(float o) { *this = half(float(*this) / o); return *this; }
};
namespace bfloat16 {
struct Bf16T {
    uint16_t bits;
    Bf16T() = default;
    constexpr Bf16T(float f) : bits(asc_sim::f32_to_bf16_bits(f)) {}
    constexpr Bf16T(double d) : bits(asc_sim::f32_to_bf16_bits(static_cast<float>(d))) {}
    template <typename I, typename std::enable_if<std::is_integral<I>::value, int>::type = 0>
    constexpr Bf16T(I i) : bits(asc_sim::f32_to_bf16_bits(static_cast<float>(i))) {}
    constexpr operator float() const { return asc_sim::bf16_bits_to_f32(bits); }
    static constexpr Bf16T from_bits(uint16_t b) { Bf16T h{}; h.bits = b; return h; }
};
}  // namespace bfloat16
using bfloat16_t = bfloat16::Bf16T;
// The AI Core compiler's built-in names of its fp16 and fp32 scalar types (kernels write
// `std::is_same_v<T, float16_t>` for DTYPE_X = half); asc-devkit's headers do not declare them.
using float16_t = half;
using float32_t = float;

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

// The cores a transfer of a core of kind `kind` (1: AIC) shares HBM bandwidth with: every active
// core, or in a mixed launch the cores of its own kind. A mixed kernel's AICs and AIVs stream in
// turn (the AIVs prepare what the cube reads, the cube writes what the AIVs read: flags order them),
// so each kind's phase has the chip's bandwidth among its own cores; where both kinds stream at once
// the shares add up past it, and the kernel's time is still floored by all its bytes at the chip's
// bandwidth (cost.py) and, after its last barrier, by the bytes of the cores that moved data then.
inline int64_t hbm_sharers(const Config& c, int kind) {
    const int64_t b = std::max<int64_t>(c.block_dim, 1);
    if (c.mix_ratio > 0) return kind == 1 ? std::min<int64_t>(b, c.aic_cores) : std::min<int64_t>(b * c.mix_ratio, c.cores);
    return active_cores(c);
}

// ---------------------------------------------------------------- diagnostics
struct Abort {};
struct ScalarArg {
    int64_t i = 0;
    double f = 0;
};

// AIC_MTE2: the cube core's own copy-in pipe, which the Matmul API's operand loads take (in a
// kernel that reaches the cube through the API, one simulated block is a cube core and a vector
// core: their GM -> L1 and GM -> UB copies do not queue behind each other).
enum class Pipe : int { S = 0, V, M, MTE1, MTE2, MTE3, FIX, AIC_MTE2, HBM, COUNT };
inline const char* pipe_name(int p) {
    static const char* n[] = {"S", "V", "M", "MTE1", "MTE2", "MTE3", "FIX", "AIC_MTE2", "HBM"};
    return (p >= 0 && p < static_cast<int>(Pipe::COUNT)) ? n[p] : "?";
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
// The rule a buffer past the end of on-chip memory `s` breaks.
inline const char* capacity_rule(int s) { return s == SP_UB ? "ub-capacity" : (s == SP_L1 ? "l1-capacity" : "l0-capacity"); }

// ---------------------------------------------------------------- events (happens-before)
// The pipes that execute instructions (HBM is an accounting track, not a pipe).
constexpr int NPIPES = static_cast<int>(Pipe::HBM);
// A vector clock over the pipes: c[q] = how many instructions of pipe q are known to have
// completed. Pipe p's clock is what p's next instruction is ordered after; an access by p to
// data that pipe q touched at epoch e is ordered only if clock[p].c[q] >= e.
struct VClock {
    uint32_t c[NPIPES] = {};
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
    Loc free_loc{"", 0};   // its last FreeTensor
    Loc init_loc{"", 0};   // the InitBuffer that placed it
    bool beyond = false;   // placed past the end of its memory: any use is an error (TPipe::alloc_space)
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
    // The device allocation the buffer sits in: aclrtMalloc rounds a size up to 32 bytes and adds 32
    // (CANN AscendCL reference, aclrtMalloc / aclrtMallocAlign32), so an access past `bytes` but within
    // `alloc` reads garbage or writes bytes nobody reads, without a fault.
    uint64_t alloc = 0;
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
    void drop(L2Entry& e);
    void add(uintptr_t start, uint64_t blk, uint64_t stride, uint64_t count, uint64_t clock);
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
void compact_writes(std::vector<WriteRec>& w);
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
    void add(size_t region, uint64_t lo, uint64_t hi, const char* api, const Loc& loc, uint32_t phase, uint8_t flags);
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
    double busy[static_cast<int>(Pipe::COUNT)] = {};
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
    // the MAX_MIN_CNT special register: the last WholeReduceMax/Min's (or ReduceMax/Min's) extreme
    // value's bits (low 32) and its index (high 32), read by GetReduceMaxMinCount
    uint64_t max_min_cnt = 0;
    // the accumulator register: the last accumulating vcadd's sum in its type's bits (get_acc_val)
    uint64_t acc_val = 0;
    float deq_scale = 1.0f;   // DEQSCALE: an int32 -> half Cast's factor (SetDeqScale)
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
    // HBM bytes moved since the last SyncAll (released at phase_start): the barrier's share (cross.h)
    double phase_hbm = 0, phase_start = 0;
    // access records for the checks at the end of the run (cleared by the harness before each block)
    AccessLog gm_writes;             // writes to outputs and scratch
    // this core's recent copies to GM that a later read of the same bytes must be ordered after
    // (gm_read_ordered): [lo, hi) addresses, the rows written in them (blk bytes, stride apart),
    // the writing pipe and its instruction count
    struct GmPending {
        uintptr_t lo, hi;
        uint64_t blk, stride;
        uint32_t epoch;
        int8_t pipe;
        const char* api;
        int32_t line;
    };
    std::vector<GmPending> gm_pending;
    int8_t last_pipe = -1;           // the pipe and instruction count of the last instruction scheduled
    uint32_t last_epoch = 0;
    AccessLog scratch_reads;         // reads of scratch
    AccessLog scratch_unowned;       // the parts of scratch reads this core had not written itself
    std::map<uint64_t, uint64_t> scratch_own;   // scratch bytes this core wrote: [lo, hi) keyed by lo
    // Garbage: local bytes nothing wrote, and the results computed from them (the shadow's unwritten
    // bytes). A vector op may compute on them; what is wrong is garbage reaching an output, a scalar
    // read or the cube (schedule.cpp, note_garbage_read).
    bool op_read_garbage = false;    // the current API call read garbage: what it writes is garbage
    // this core's first such read (its message, API and line): where garbage reaching an output is reported
    std::string garbage_origin, garbage_api;
    Loc garbage_loc{"", 0};
    struct GmGarbage {
        std::map<uint64_t, uint64_t> bytes;   // [lo, hi) of the output holding garbage, keyed by lo
        std::string api;                      // the first copy that put it there
        Loc loc{"", 0};
    };
    std::map<size_t, GmGarbage> gm_garbage;   // by output region
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
    State();   // runtime/core.cpp: built once, not in every kernel
    ~State();
};
// One State per simulated core.  Blocks normally run one after another on the main thread;
// kernels that call SyncAll run one thread per block (see harness.h), hence thread_local.
extern thread_local State g_state;   // runtime/core.cpp
inline State& S() { return g_state; }

// The lock for atomic GM accumulation (cross.h has the barrier and the flags between cores).
inline std::mutex g_atomic_mu;

inline std::string loc_file(const Loc& l) {
    std::string f = l.file ? l.file : "";
    size_t p = f.find_last_of('/');
    return p == std::string::npos ? f : f.substr(p + 1);
}

void emit_diag(const char* sev, const char* rule, const char* api, const Loc& loc, const std::string& msg);

std::string fmt(const char* f, ...) __attribute__((format(printf, 1, 2)));

[[noreturn]] void fail(const char* rule, const char* api, const Loc& loc, const std::string& msg);
inline void warn(const char* rule, const char* api, const Loc& loc, const std::string& msg) {
    emit_diag("warning", rule, api, loc, msg);
}
// An error in strict mode, a warning in lenient mode.
void strict_or_warn(const char* rule, const char* api, const Loc& loc, const std::string& msg);

inline void enter(const char* api, const Loc& loc) {
    State& s = S();
    s.cur_api = api;
    s.cur_loc = loc;
    s.n_operands = 0;
    s.op_read_garbage = false;
    // SyncAll separates parallel phases for the output race check
    if (!s.cross_clocks && api[0] == 'S' && api[1] == 'y' && std::strcmp(api, "SyncAll") == 0) s.phase++;
}

// In a mixed launch each kind of core has its own memories: an AIC the L1, L0A/B/C and the bias and
// fixpipe buffers, an AIV the Unified Buffer (the 910B's split architecture).
void check_core_space(const char* api, const Loc& loc, int sp);

}  // namespace asc_sim
