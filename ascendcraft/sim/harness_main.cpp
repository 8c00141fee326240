// ascendcraft AscendC CPU simulator: the executable's main(). Compiled once per simulator cache
// (sim/build.py) and linked with each kernel's translation unit, which defines the hooks of
// harness_shared.h (harness.h, at its end).
#include "kernel_operator.h"
#include "harness_shared.h"
#include "harness_checks.h"
#include "sandbox.h"
#include <fcntl.h>
#include <malloc.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <thread>

namespace asc_sim {



inline int g_report_fd = 2;
// 1 while kernel code runs: an exit()/quick_exit() then is the kernel's, not the harness's
inline volatile sig_atomic_t g_kernel_active = 0;
// 1 once main() runs: a violation before it is the kernel's start-up code (static initializers)
inline volatile sig_atomic_t g_main_started = 0;

// Writes "<tag>\t<what>\t<block>\t<api>\t<file>\t<line>" to the report (the crash-line layout); block -1:
// before the kernel ran (the kernel's static initializers and constructors, which run inside the sandbox).
inline void report_where(const char* tag, const char* what, bool in_kernel = true) {
    char buf[1024];
    const State& s = S();
    std::string f = loc_file(s.cur_loc);
    int n = std::snprintf(buf, sizeof buf, "%s\t%s\t%lld\t%s\t%s\t%d\n", tag, what,
                          in_kernel ? static_cast<long long>(s.block_idx) : -1LL,
                          s.cur_api ? s.cur_api : "", f.c_str(), s.cur_loc.line);
    if (n > 0) {
        ssize_t w = write(g_report_fd, buf, static_cast<size_t>(std::min<int>(n, sizeof buf - 1)));
        (void)w;
    }
}

// atexit / at_quick_exit hook: an exit while the kernel runs is reported, never taken for success.
inline void exit_hook() {
    if (!g_kernel_active) return;
    g_kernel_active = 0;
    report_where("Q", "exit");
    _exit(160);
}

inline void crash_handler(int sig) {
    if (g_in_handler) _exit(128 + sig);
    g_in_handler = 1;
    const char* what = sig == SIGSEGV ? "SIGSEGV (segmentation fault)" : sig == SIGBUS ? "SIGBUS" : sig == SIGFPE ? "SIGFPE"
                     : sig == SIGABRT ? "SIGABRT (abort)" : sig == SIGXCPU ? "SIGXCPU (CPU time limit)"
                     : sig == SIGALRM ? "SIGALRM (alarm clock)"
                     : sig == SIGTERM ? "SIGTERM (terminated)" : sig == SIGILL ? "SIGILL (illegal instruction)" : "signal";
    report_where("C", what);
    _exit(128 + sig);
}

// ---------------------------------------------------------------- sandbox (sandbox.h)
// A forbidden call while the kernel runs: reported with where the kernel was (its block, API, line).
inline void kernel_violation(const char* name) {
    const bool in_kernel = g_kernel_active;
    g_kernel_active = 0;
    report_where("V", name, in_kernel || g_main_started);
}

// A buffer of `bytes` at the start of its device allocation (gm_alloc_size: the size rounded up to
// 32 bytes plus 32, as aclrtMalloc allocates), the allocation right-aligned against a PROT_NONE
// guard page: a raw access past the allocation faults. The padding holds garbage (0xFF bytes: NaN
// for float/half), as the NPU's uninitialised memory would.
inline uint8_t* gm_alloc_guarded(uint64_t bytes) {
    const uint64_t page = 4096, alloc = asc_sim::gm_alloc_size(bytes);
    uint64_t data = (alloc + page - 1) / page * page;
    void* p = mmap(nullptr, data + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return nullptr;
    uint8_t* base = static_cast<uint8_t*>(p);
    mprotect(base + data, page, PROT_NONE);
    uint8_t* start = base + data - alloc;
    std::memset(start + bytes, 0xff, alloc - bytes);
    return start;
}

struct GmArg {
    int index;
    std::string name, in, out;
    uint64_t bytes;
    uint8_t* ptr = nullptr;
    FILE* out_file = nullptr;  // opened before the sandbox is installed
    int list = -1;             // an element of the tensor list passed as parameter `list` (index -1)
    std::vector<uint64_t> dims;
};

// A tensor list (a CANN op's DYNAMIC input or output) as the kernel receives it: one GM block that
// ListTensorDesc parses (asc-devkit impl/basic_api/dav_c220/kernel_operator_list_tensor_impl.h,
// ListTensorDecode): word 0 the byte offset of the data pointers, then per tensor (1 + rank) words,
// (index << 32 | rank) and the dims (a rank-0 tensor: (index << 32), 0xffffffff), then one pointer
// per tensor.
inline std::vector<uint64_t> tensor_list_words(const std::vector<const GmArg*>& elems) {
    const size_t rank = elems.empty() ? 0 : elems[0]->dims.size();
    const size_t per = rank == 0 ? 2 : 1 + rank;
    std::vector<uint64_t> w{static_cast<uint64_t>((1 + per * elems.size()) * sizeof(uint64_t))};
    for (size_t j = 0; j < elems.size(); ++j) {
        w.push_back((static_cast<uint64_t>(j) << 32) | rank);
        if (rank == 0) w.push_back(0xffffffffull);
        for (uint64_t d : elems[j]->dims) w.push_back(d);
    }
    for (const GmArg* e : elems) w.push_back(reinterpret_cast<uint64_t>(e->ptr));
    return w;
}

inline bool read_file(const std::string& path, uint8_t* dst, uint64_t bytes) {
    FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) return false;
    uint64_t got = std::fread(dst, 1, bytes, f);
    std::fclose(f);
    return got == bytes;
}
inline bool write_file(FILE* f, const uint8_t* src, uint64_t bytes) {
    if (!f) return false;
    uint64_t put = std::fwrite(src, 1, bytes, f);
    return std::fclose(f) == 0 && put == bytes;
}

inline void set_cfg(Config& c, const std::string& k, const std::string& v) {
    double d = std::strtod(v.c_str(), nullptr);
    if (k == "chip") c.chip = v;
    else if (k == "ub_bytes") c.ub_bytes = static_cast<uint32_t>(d);
    else if (k == "l1_bytes") c.l1_bytes = static_cast<uint32_t>(d);
    else if (k == "l0a_bytes") c.l0a_bytes = static_cast<uint32_t>(d);
    else if (k == "l0b_bytes") c.l0b_bytes = static_cast<uint32_t>(d);
    else if (k == "l0c_bytes") c.l0c_bytes = static_cast<uint32_t>(d);
    else if (k == "freq_mhz") c.freq_mhz = d;
    else if (k == "hbm_gbps") c.hbm_gbps = d;
    else if (k == "mte2_bpc") c.mte2_bpc = d;
    else if (k == "mte3_bpc") c.mte3_bpc = d;
    else if (k == "l1_l0a_bpc") c.l1_l0a_bpc = d;
    else if (k == "l1_l0b_bpc") c.l1_l0b_bpc = d;
    else if (k == "l0c_out_bpc") c.l0c_out_bpc = d;
    else if (k == "vec_bpc") c.vec_bpc = d;
    else if (k == "cube_macs") c.cube_macs = d;
    else if (k == "cores") c.cores = static_cast<int>(d);
    else if (k == "aic_cores") c.aic_cores = static_cast<int>(d);
    else if (k == "max_buf_per_pos") c.max_buf_per_pos = static_cast<int>(d);
    else if (k == "max_buffers") c.max_buffers = static_cast<int>(d);
    else if (k == "data_copy_pad") c.data_copy_pad = d != 0;
    else if (k == "bf16") c.bf16 = d != 0;
    else if (k == "issue_cycles") c.issue_cycles = d;
    else if (k == "mte_overhead") c.mte_overhead = d;
    else if (k == "vec_overhead") c.vec_overhead = d;
    else if (k == "scalar_ub_cycles") c.scalar_ub_cycles = d;
    else if (k == "scalar_gm_cycles") c.scalar_gm_cycles = d;
    else if (k == "transcendental_cpr") c.transcendental_cpr = d;
    else if (k == "cube_overhead") c.cube_overhead = d;
    else if (k == "gm_latency") c.gm_latency = d;
    else if (k == "l2_bpc") c.l2_bpc = d;
    else if (k == "hbm_achievable_gbps") c.hbm_achievable_gbps = d;
    else if (k == "l2_bytes") c.l2_bytes = d;
    else if (k == "cost_only") c.cost_only = d != 0;
    else if (k == "lenient") c.lenient = d != 0;
    else if (k == "auto_sync") c.auto_sync = d != 0;
    else if (k == "trace_limit") c.trace_limit = static_cast<int64_t>(d);
    else if (k == "block_dim") c.block_dim = static_cast<int64_t>(d);
    else if (k == "tiling_key") c.tiling_key = static_cast<uint64_t>(d);
}

// ---------------------------------------------------------------- timeline export
// With `cfg trace_limit N` (N > 0) each block's timeline records (core.h, trace_record) are
// written at block end next to the report: trace.bin holds 32-byte records (TraceOutRec, read
// by ascendcraft/sim/timeline.py), trace.txt the strings they refer to ("N\t<id>\t<text>": API
// names and kernel file basenames) and one line per block ("B\t<block>\t<records>\t<dropped>")
// in the order of the blocks' records in trace.bin. Both files are opened before the sandbox.
struct TraceOutRec {
    double start, end;          // cycles from the block's start
    int32_t api, file, line;    // string ids (trace.txt), -1 for none
    uint8_t pipe, kind, pad[2];
};
static_assert(sizeof(TraceOutRec) == 32, "trace.bin records are 32 bytes");
struct TraceSink {
    FILE* bin = nullptr;
    FILE* txt = nullptr;
    std::mutex mu;
    std::map<const char*, int32_t> api_ids, file_ids;  // API names and __builtin_FILE() are literals
    int32_t next_id = 0;
    std::vector<TraceOutRec> buf;
};
// on the heap, from its first use (the set-up opens its files): no dynamic initializer runs after the set-up
inline TraceSink& trace_sink() {
    static TraceSink* sink = new TraceSink();
    return *sink;
}

inline void trace_open(const std::string& report_path, const Config& c) {
    if (c.trace_limit <= 0 || report_path.empty()) return;
    size_t slash = report_path.find_last_of('/');
    std::string dir = slash == std::string::npos ? std::string(".") : report_path.substr(0, slash);
    trace_sink().bin = std::fopen((dir + "/trace.bin").c_str(), "wb");
    trace_sink().txt = std::fopen((dir + "/trace.txt").c_str(), "w");
}

// Called by run_block around each block: a block's records start empty and are written at its end.
inline void trace_block_begin(State& st) {
    st.trace.clear();
    st.trace_dropped = 0;
}
inline void trace_block_end(State& st, int64_t block) {
    if (st.cfg.trace_limit <= 0) return;
    TraceSink& t = trace_sink();
    if (t.bin && t.txt) {
        std::lock_guard<std::mutex> lock(t.mu);
        auto id = [&](std::map<const char*, int32_t>& ids, const char* p, bool file) -> int32_t {
            if (p == nullptr) return -1;
            auto it = ids.find(p);
            if (it != ids.end()) return it->second;
            std::string text = file ? loc_file(Loc{p, 0}) : std::string(p);
            for (char& ch : text)
                if (ch == '\t' || ch == '\n') ch = ' ';
            int32_t i = t.next_id++;
            std::fprintf(t.txt, "N\t%d\t%s\n", i, text.c_str());
            ids.emplace(p, i);
            return i;
        };
        const size_t n = st.trace.size();
        t.buf.resize(n);
        for (size_t i = 0; i < n; ++i) {
            const TraceRec& r = st.trace[i];
            TraceOutRec& o = t.buf[i];
            o.start = r.start;
            o.end = r.end;
            o.api = id(t.api_ids, r.api, false);
            o.file = id(t.file_ids, r.file, true);
            o.line = r.line;
            o.pipe = r.pipe;
            o.kind = r.kind;
            o.pad[0] = o.pad[1] = 0;
        }
        size_t put = n ? std::fwrite(t.buf.data(), sizeof(TraceOutRec), n, t.bin) : 0;
        std::fprintf(t.txt, "B\t%lld\t%zu\t%llu\n", static_cast<long long>(block), put,
                     static_cast<unsigned long long>(st.trace_dropped + (n - put)));
        std::fflush(t.bin);
        std::fflush(t.txt);
    }
    st.trace.clear();
    st.trace_dropped = 0;
}

// ---------------------------------------------------------------- the job
// What the set-up (asc_sim_setup_before_kernel_code) read and placed, for main().
struct Job {
    std::string report_path, token;
    std::vector<GmArg> gms;
    std::vector<ScalarArg> scalars;
    std::map<std::string, std::string> tvals;
    std::map<int, uint32_t> out_elem;  // GM parameter index -> element size, for outputs to check
    std::vector<ScratchName> scratch_names;
    int tiling_index = -1, ws_index = -1;
    uint64_t ws_bytes = 0;
    std::vector<uint8_t> tiling_raw;
    bool has_tiling_raw = false;
    std::vector<uint8_t*> ptrs;
    uintptr_t fake = 0x100000000000ull;

    // A GM buffer of parameter `index` (-1: none): guarded memory, or in a cost-only run an address nothing is at.
    uint8_t* place(int index, const std::string& name, uint64_t bytes, bool real) {
        State& s = S();
        uint8_t* p;
        if (real) {
            p = gm_alloc_guarded(bytes);
            if (!p) {
                std::fprintf(s.report, "X\tcannot allocate %llu bytes of GM for '%s'\n",
                             static_cast<unsigned long long>(bytes), name.c_str());
                std::fflush(s.report);
                _exit(3);
            }
        } else {
            p = reinterpret_cast<uint8_t*>(fake);
            fake += ((asc_sim::gm_alloc_size(bytes) + 4095) / 4096 + 16) * 4096;
        }
        if (index >= 0 && index < static_cast<int>(ptrs.size())) ptrs[index] = p;
        s.gm.push_back(GmRegion{reinterpret_cast<uintptr_t>(p), bytes, name, asc_sim::gm_alloc_size(bytes)});
        return p;
    }
};
inline Job* g_job = nullptr;   // constant-initialized: set by the set-up before any dynamic initializer

// A set-up that cannot go on (an input file it cannot read): said in the report, and the process ends.
[[noreturn]] inline void setup_failed(State& s) {
    std::fflush(s.report);
    _exit(3);
}

}  // namespace asc_sim


// Reads the job and the GM inputs, opens every file the run writes, clears the environment and installs the
// sandbox: a constructor of priority 101 in the first object linked, so it runs before any code of the kernel's
// translation unit (its static initializers run inside the sandbox). build.py checks the linked executable:
// no start-up function precedes this one (build.check_startup). Only function-local and constant-initialized
// state is used here, and the job is kept on the heap (g_job), so no later dynamic initializer overwrites it.
extern "C" __attribute__((constructor(101))) void asc_sim_setup_before_kernel_code(int argc, char** argv, char**) {
    using namespace asc_sim;
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s job.txt\n", argc > 0 ? argv[0] : "kernel.bin");
        _exit(2);
    }
    g_job = new Job();
    Job& jb = *g_job;
    State& s = S();
    std::ifstream job(argv[1]);
    std::string line, tiling_raw;  // tiling_raw: a file of tiling bytes (a host TilingFunc's), used instead of tfields
    std::string& report_path = jb.report_path;
    std::string& token = jb.token;
    std::vector<GmArg>& gms = jb.gms;
    jb.scalars.resize(hook_num_args() + 1);
    std::vector<ScalarArg>& scalars = jb.scalars;
    std::map<std::string, std::string>& tvals = jb.tvals;
    std::map<int, uint32_t>& out_elem = jb.out_elem;
    std::vector<ScratchName>& scratch_names = jb.scratch_names;
    int& tiling_index = jb.tiling_index;
    int& ws_index = jb.ws_index;
    uint64_t& ws_bytes = jb.ws_bytes;
    unsigned timeout = 0;
    while (std::getline(job, line)) {
        std::istringstream ls(line);
        std::string kind;
        ls >> kind;
        if (kind == "cfg") {
            std::string k, v;
            ls >> k >> v;
            set_cfg(s.cfg, k, v);
        } else if (kind == "report") {
            ls >> report_path;
        } else if (kind == "timeout") {
            ls >> timeout;
        } else if (kind == "token") {   // ends the lines only the harness writes (K, E): see collect.py
            ls >> token;
        } else if (kind == "kernel_file") {
            ls >> s.kernel_file;
        } else if (kind == "gm") {
            GmArg g;
            ls >> g.index >> g.name >> g.bytes >> g.in >> g.out;
            gms.push_back(g);
        } else if (kind == "elem") {   // elem <list parameter> <name> <bytes> <in> <out> <rank> <dims...>
            GmArg g;
            size_t rank = 0;
            g.index = -1;
            ls >> g.list >> g.name >> g.bytes >> g.in >> g.out >> rank;
            g.dims.resize(rank);
            for (uint64_t& d : g.dims) ls >> d;
            gms.push_back(g);
        } else if (kind == "scalar") {
            int idx;
            std::string t, v;
            ls >> idx >> t >> v;
            if (idx >= 0 && idx < static_cast<int>(scalars.size())) {
                scalars[idx].f = std::strtod(v.c_str(), nullptr);
                scalars[idx].i = t == "f" ? static_cast<int64_t>(scalars[idx].f) : std::strtoll(v.c_str(), nullptr, 0);
            }
        } else if (kind == "output") {
            int idx;
            uint32_t elem = 1;
            ls >> idx >> elem;
            out_elem[idx] = elem;
        } else if (kind == "workspace") {
            ls >> ws_index >> ws_bytes;
        } else if (kind == "scratch") {   // a scratch tensor in the user workspace: checked (harness_checks.h)
            ScratchName n;
            ls >> n.offset >> n.bytes >> n.elem >> n.name;
            scratch_names.push_back(n);
        } else if (kind == "tiling") {
            ls >> tiling_index;
        } else if (kind == "tiling_raw") {
            ls >> tiling_raw;
        } else if (kind == "tfield") {
            std::string k, v;
            ls >> k >> v;
            tvals[k] = v;
        }
    }
    job.close();  // the job names the token: the kernel must not read it back
    s.report = report_path.empty() ? stderr : std::fopen(report_path.c_str(), "a");
    if (!s.report) s.report = stderr;
    g_report_fd = fileno(s.report);
    for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGABRT, SIGALRM, SIGXCPU, SIGTERM, SIGILL}) std::signal(sig, crash_handler);
    // The time limit counts CPU time (every block thread's), not wall time: a run's verdict must not
    // depend on how many others share the machine. The sandbox forbids raising it (setrlimit); the
    // hard limit (SIGKILL) catches a kernel that ignores SIGXCPU; a run that waits without using the
    // CPU is killed by the caller (runner.WALL_FACTOR).
    if (timeout) {
        struct rlimit cpu;
        cpu.rlim_cur = timeout;
        cpu.rlim_max = timeout + 5;
        setrlimit(RLIMIT_CPU, &cpu);
    }

    jb.ptrs.assign(hook_num_args() + 1, nullptr);
    auto place = [&](int index, const std::string& name, uint64_t bytes, bool real) { return jb.place(index, name, bytes, real); };
    const bool real = !s.cfg.cost_only;
    for (GmArg& g : gms) {
        g.ptr = place(g.index, g.name, g.bytes, real);
        auto oe = out_elem.find(g.list >= 0 ? g.list : g.index);
        if (oe != out_elem.end()) {
            s.gm.back().output = true;
            s.gm.back().elem = oe->second;
        }
        if (real && g.in != "-" && !read_file(g.in, g.ptr, g.bytes)) {
            std::fprintf(s.report, "X\tcannot read input file for '%s'\n", g.name.c_str());
            setup_failed(s);
        }
    }
    // each tensor list's descriptor: real memory in cost-only runs too (the kernel reads the pointers)
    std::map<int, std::vector<const GmArg*>> lists;
    for (const GmArg& g : gms)
        if (g.list >= 0) lists[g.list].push_back(&g);
    for (const auto& [index, elems] : lists) {
        const std::string list = elems[0]->name.substr(0, elems[0]->name.find('['));
        for (const GmArg* e : elems)
            if (e->dims.size() != elems[0]->dims.size()) {
                std::fprintf(s.report, "X\tthe tensors of the list '%s' have different ranks, which the simulator's "
                                       "tensor-list block does not lay out\n", list.c_str());
                setup_failed(s);
            }
        const std::vector<uint64_t> words = tensor_list_words(elems);
        const std::string name = list + " (tensor list)";
        std::memcpy(place(index, name, words.size() * sizeof(uint64_t), true), words.data(),
                    words.size() * sizeof(uint64_t));
    }
    if (ws_index >= 0) {
        uint8_t* w = place(ws_index, "workspace", ws_bytes + AscendC::ASC_SIM_SYS_WORKSPACE, real);
        s.sys_workspace = w;
        s.gm.back().scratch = !scratch_names.empty();
        s.gm.back().track_from = AscendC::ASC_SIM_SYS_WORKSPACE;
    }
    if (!tiling_raw.empty()) {  // read now; the sandbox opens no file
        std::ifstream raw(tiling_raw, std::ios::binary);
        jb.tiling_raw.assign(std::istreambuf_iterator<char>(raw), std::istreambuf_iterator<char>());
        jb.has_tiling_raw = true;
    }
    if (real)
        for (GmArg& g : gms)
            if (g.out != "-" && !(g.out_file = std::fopen(g.out.c_str(), "wb"))) {
                std::fprintf(s.report, "X\tcannot create the output file for '%s'\n", g.name.c_str());
                setup_failed(s);
            }
    trace_open(report_path, s.cfg);
    // From here on the kernel's code may run: every file the harness needs is open. The kernel sees no
    // environment, and output past the file-size limit (the runner's RLIMIT_FSIZE) is dropped, not fatal.
    {
        const char* ns = std::getenv("ASC_SIM_NAMESPACES");  // set by the launcher (sim/launch.py)
        std::fprintf(s.report, "N\t%s\n", ns ? ns : "none (the kernel was started without the launcher)");
    }
    clearenv();
    std::signal(SIGXFSZ, SIG_IGN);
    // One malloc arena for every thread: glibc opens files (/sys for the CPU count,
    // /proc/sys/vm/overcommit_memory on a trim) for the arenas of other threads
    mallopt(M_ARENA_MAX, 1);
    std::atexit(exit_hook);
    std::at_quick_exit(exit_hook);
    {
        std::string why = install_sandbox(kernel_violation);
        for (char& c : why)
            if (c == '\t' || c == '\n') c = ' ';
        if (why.empty()) std::fprintf(s.report, "S\t1\n");
        else std::fprintf(s.report, "S\t0\t%s\n", why.c_str());
    }
    std::fflush(s.report);
    std::fflush(stdout);
}

int main() {
    using namespace asc_sim;
    g_main_started = 1;
    Job& jb = *g_job;
    State& s = S();
    const std::string& token = jb.token;
    std::vector<GmArg>& gms = jb.gms;
    std::vector<ScalarArg>& scalars = jb.scalars;
    std::vector<uint8_t*>& ptrs = jb.ptrs;
    const std::map<int, uint32_t>& out_elem = jb.out_elem;
    const std::vector<ScratchName>& scratch_names = jb.scratch_names;
    const bool real = !s.cfg.cost_only;
    // the tiling struct is the kernel's code (a direct-call kernel defines its own): filled in the sandbox
    std::vector<uint8_t> tiling_bytes;
    {
        TilingFiller filler;
        filler.vals = &jb.tvals;
        filler.layout = s.report;
        std::string type_name;
        if (hook_default_tiling(filler, tiling_bytes, type_name))
            for (auto& kv : jb.tvals)
                if (!filler.used.count(kv.first))
                    std::fprintf(s.report, "D\terror\ttiling-field\tGET_TILING_DATA\t\t0\t-1\tthe tiling dict has '%s' but the "
                                 "tiling struct %s has no such field\n", kv.first.c_str(), type_name.c_str());
    }
    if (jb.has_tiling_raw) {  // zero-padded to the kernel's struct: GET_TILING_DATA reads all of it
        std::vector<uint8_t> bytes(jb.tiling_raw.begin(), jb.tiling_raw.end());
        if (bytes.size() < tiling_bytes.size()) bytes.resize(tiling_bytes.size(), 0);
        tiling_bytes.swap(bytes);
    }
    if (jb.tiling_index >= 0) {
        uint64_t tb = std::max<uint64_t>(tiling_bytes.size(), 8);
        uint8_t* t = jb.place(jb.tiling_index, "tiling", tb, true);
        std::memset(t, 0, tb);
        if (!tiling_bytes.empty()) std::memcpy(t, tiling_bytes.data(), tiling_bytes.size());
    }
    std::fflush(s.report);

    const int64_t groups = std::max<int64_t>(s.cfg.block_dim, 1);
    const bool threaded = hook_thread_per_block();
    // a Matmul-API kernel that splits vector work over both AIVs of a block runs its AIVs only, the
    // cube inside the AIV that drives it (one kind of core for the memory rules: cfg.mix_ratio 0)
    const int matmul_aivs = threaded ? hook_matmul_aivs() : 0;
    if (threaded) {
        if (groups * (std::max(hook_mix_ratio(), matmul_aivs) + 1) > 1024) {
            std::fprintf(s.report, "X\tkernels that call SyncAll or use cross-core flags are limited to 1024 cores "
                                   "in the simulator\n");
            return 3;
        }
        cross_setup(groups, matmul_aivs ? matmul_aivs : hook_mix_ratio(), hook_cross_clocks(), matmul_aivs == 0);
        s.cfg.mix_ratio = matmul_aivs ? 0 : hook_mix_ratio();
        s.cross_clocks = hook_cross_clocks();
    }
    // the simulated cores: the blocks, or in a mixed launch each block's AIC and AIVs (cross.h)
    int64_t nblocks = threaded ? cross_threads() : groups;
    std::vector<CoreStats> block_stats(static_cast<size_t>(nblocks));
    std::vector<char> block_failed(static_cast<size_t>(nblocks), 0);
    std::vector<std::pair<double, double>> last_phase(static_cast<size_t>(nblocks));   // (start, HBM bytes)
    RunAccesses accesses(static_cast<size_t>(nblocks));
    State* main_state = &s;
    // Runs core b on the calling thread's simulator state.
    auto run_block = [&](int64_t b) {
        State& st = S();
        if (&st != main_state) {
            st.cfg = main_state->cfg;
            st.gm = main_state->gm;
            st.report = main_state->report;
            st.sys_workspace = main_state->sys_workspace;
            st.kernel_file = main_state->kernel_file;
            st.cross_clocks = main_state->cross_clocks;
        }
        reset_core(b);
        if (threaded) cross_enter_core(st, static_cast<int>(b));
        trace_block_begin(st);
        st.gm_writes.clear();
        st.scratch_reads.clear();
        st.scratch_unowned.clear();
        st.scratch_own.clear();
        st.phase = 0;
        try {
            hook_launch(ptrs.data(), scalars.data());
            for (int e = 0; e < 64; ++e)
                for (int id = 0; id < 8; ++id)
                    if (st.flag_pending[e][id] > 0)
                        warn("sync-unpaired", "SetFlag", Loc{"", 0},
                             fmt("a SetFlag (event %d, id %d) was never matched by a WaitFlag before kernel end", e, id));
            check_gm_garbage();
        } catch (const Abort&) {
            block_failed[static_cast<size_t>(b)] = 1;
        } catch (const std::exception& ex) {
            emit_diag("error", "exception", st.cur_api, st.cur_loc, std::string("C++ exception: ") + ex.what());
            block_failed[static_cast<size_t>(b)] = 1;
        }
        if (threaded) cross_finish(static_cast<int>(b), block_failed[static_cast<size_t>(b)] != 0);
        st.stats.end = std::max(st.stats.end, st.stats.busy[static_cast<int>(Pipe::HBM)]);
        last_phase[static_cast<size_t>(b)] = {st.phase_start, st.phase_hbm};
        block_stats[static_cast<size_t>(b)] = st.stats;
        trace_block_end(st, b);
        const size_t bi = static_cast<size_t>(b);
        for (auto [log, into] : {std::pair{&st.gm_writes, &accesses.writes[bi]}, std::pair{&st.scratch_reads, &accesses.reads[bi]},
                                 std::pair{&st.scratch_unowned, &accesses.unowned[bi]}}) {
            compact_writes(log->recs);
            into->swap(log->recs);
        }
        st.scratch_own.clear();
    };
    bool failed = false;
    if (threaded) {
        // SyncAll and cross-core flags: every core runs on its own thread so they can wait for each other
        g_kernel_active = 1;
        {
            std::vector<std::thread> threads;
            for (int64_t b = 0; b < nblocks; ++b) threads.emplace_back(run_block, b);
            for (std::thread& t : threads) t.join();
        }
        for (char f : block_failed) failed = failed || f;
        if (!failed) cross_unconsumed(s.report);
        // the phase after the last SyncAll: its HBM bandwidth shared by the cores that moved data in
        // it, in a mixed launch by those of each kind (as each transfer's share: hbm_sharers)
        const bool mixed = s.cfg.mix_ratio > 0 && g_cross.aic_threads;
        auto kind_of = [&](int64_t b) { return mixed ? g_cross.cores[static_cast<size_t>(b)].kind : 0; };
        int64_t sharers[2] = {0, 0};
        for (int64_t b = 0; b < nblocks; ++b) sharers[kind_of(b)] += last_phase[static_cast<size_t>(b)].second > 0;
        for (int64_t b = 0; b < nblocks; ++b) {
            const auto& [start, bytes] = last_phase[static_cast<size_t>(b)];
            CoreStats& cs = block_stats[static_cast<size_t>(b)];
            if (bytes > 0) cs.end = std::max(cs.end, start + bytes / hbm_share_per_cycle(sharers[kind_of(b)]));
        }
    } else {
        g_kernel_active = 1;
        for (int64_t b = 0; b < nblocks && !failed; ++b) {
            run_block(b);
            failed = block_failed[static_cast<size_t>(b)] != 0;
            if (failed) nblocks = b + 1;
        }
    }
    g_kernel_active = 0;
    for (int64_t b = 0; b < nblocks; ++b) {
        const CoreStats& cs = block_stats[static_cast<size_t>(b)];
        // the core's block index and kind (b: a block of a one-kind launch, c: an AIC, v: an AIV of a
        // mixed launch), where the cost model places it (cost.py)
        const bool mixed = threaded && g_cross.ratio > 0;
        const CoreSlot* core = threaded ? &g_cross.cores[static_cast<size_t>(b)] : nullptr;
        std::fprintf(s.report, "K\t%lld\t%.1f", static_cast<long long>(core ? core->block : b), cs.end);
        for (int p = 0; p < static_cast<int>(Pipe::COUNT); ++p) std::fprintf(s.report, "\t%.1f", cs.busy[p]);
        std::fprintf(s.report, "\t%llu\t%llu\t%llu\t%llu\t%llu\t%s\t%s\n", static_cast<unsigned long long>(cs.gm_read),
                     static_cast<unsigned long long>(cs.gm_write), static_cast<unsigned long long>(cs.n_instr),
                     static_cast<unsigned long long>(cs.vec_elems), static_cast<unsigned long long>(cs.cube_macs),
                     !mixed ? "b" : core->kind == 1 ? "c" : "v", token.c_str());
    }
    // A run that completed: every byte of every output must be written, once per phase.
    // and scratch is written before it is read, by another core only in an earlier phase.
    if (!failed && !out_elem.empty() && check_outputs(s.report, s.gm, accesses) > 0) failed = true;
    if (!failed && !scratch_names.empty() && check_scratch(s.report, s.gm, scratch_names, accesses) > 0) failed = true;
    if (real)
        for (GmArg& g : gms)
            if (g.out_file && !write_file(g.out_file, g.ptr, g.bytes))
                std::fprintf(s.report, "X\tcannot write the output file for '%s'\n", g.name.c_str());
    std::fprintf(s.report, "E\t%s\t%s\n", failed ? "fail" : "ok", token.c_str());
    std::fflush(s.report);
    return failed ? 1 : 0;
}
