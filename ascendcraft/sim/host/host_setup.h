// ascendcraft AscendC CPU simulator, host harness: the case it reads, its report, and the set-up that runs
// before any op code (host_main.cpp includes it once). The case is read, the report opened, the CPU-time
// limit set and the seccomp sandbox (../sandbox.h, the kernel harness's) installed in a constructor of
// priority 101, which runs before every static initializer of the op_host sources: op code runs sandboxed
// from its first instruction. Only C stdio and heap objects are used there (this file's globals are
// constant-initialized, so no later dynamic initializer overwrites them).
#pragma once
#include <cxxabi.h>
#include <fcntl.h>
#include <malloc.h>
#include <sys/resource.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <map>
#include <sstream>
#include <string>
#include <typeinfo>
#include <vector>

#include "asc_sim/host/platform.h"
#include "sandbox.h"

namespace asc_sim_host {
namespace {

struct CaseInput {
    int ir;
    int dtype, format;
    std::vector<int64_t> dims;
};
struct CaseOutput {
    int ir;
    int dtype, format;  // dtype -1: inferred
    bool infer_shape;
    std::vector<int64_t> dims;
};
struct Case {
    std::string mode, token, op;
    unsigned timeout = 0;
    std::vector<CaseInput> inputs;
    std::vector<int> absent;
    std::map<int, std::vector<uint8_t>> values;  // instance -> bytes
    std::vector<CaseOutput> outputs;
    std::map<std::string, std::string> attrs;
    fe::PlatFormInfos::Resources platform;
    int deterministic = 0;
    std::string call;                 // a direct-launch operator: its binding function (direct_main.cpp)
    std::vector<std::string> args;    // and each argument's line: `tensor <dtype> <ndim> <dims...>`, `int <v>`, ...
};

// Set up before op code runs (constant-initialized: the constructor below runs before dynamic initializers).
Case* g_case = nullptr;
int g_report_fd = -1;
const char* volatile g_phase = "static initialization of the op_host sources";
volatile sig_atomic_t g_op_code = 1;  // op code may run (static initializers, then each call)
std::vector<std::string>* g_errors = nullptr;

std::string demangled(const std::type_info& t) {
    int status = 0;
    char* d = abi::__cxa_demangle(t.name(), nullptr, nullptr, &status);
    std::string name = status == 0 && d ? d : t.name();
    std::free(d);
    return name;
}

// Runs op code `f` as phase `phase` (kept, for the crash handler to name): an exception it throws becomes
// `error`, naming the phase. Shared by the host harnesses (host_main.cpp, ../direct/direct_main.cpp).
template <class F> bool call(const std::string& phase, F f, std::string& error) {
    static std::string current;
    current = phase;
    g_phase = current.c_str();
    g_op_code = 1;
    try {
        f();
    } catch (const std::exception& e) {
        error = phase + " threw " + demangled(typeid(e)) + ": " + e.what();
    } catch (...) {
        error = phase + " threw an exception that is not a std::exception";
    }
    g_op_code = 0;
    return error.empty();
}

void write_line(const char* tag, const char* what) {
    char buf[512];
    int n = std::snprintf(buf, sizeof buf, "%s\t%s\t%s\n", tag, what, g_phase);
    if (n > 0 && g_report_fd >= 0) {
        ssize_t w = write(g_report_fd, buf, static_cast<size_t>(n < static_cast<int>(sizeof buf) ? n : sizeof buf - 1));
        (void)w;
    }
}

void crash_handler(int sig) {
    if (asc_sim::g_in_handler) _exit(128 + sig);
    asc_sim::g_in_handler = 1;
    const char* what = sig == SIGSEGV ? "SIGSEGV (segmentation fault)" : sig == SIGBUS ? "SIGBUS"
                     : sig == SIGFPE ? "SIGFPE (arithmetic error, such as an integer division by zero)"
                     : sig == SIGABRT ? "SIGABRT (abort)" : sig == SIGXCPU ? "SIGXCPU (CPU time limit)"
                     : sig == SIGALRM ? "SIGALRM (alarm clock)" : sig == SIGTERM ? "SIGTERM (terminated)"
                     : sig == SIGILL ? "SIGILL (illegal instruction)" : "a signal";
    write_line("C", what);
    _exit(128 + sig);
}

void violation(const char* syscall) { write_line("V", syscall); }

void exit_hook() {
    if (!g_op_code) return;
    write_line("Q", "exit");
    _exit(160);
}

void terminate_hook() {
    std::string what = "an exception nothing caught";
    if (auto e = std::current_exception()) {
        try {
            std::rethrow_exception(e);
        } catch (const std::exception& x) {
            what = "an uncaught " + demangled(typeid(x)) + ": " + x.what();
        } catch (...) {
        }
    }
    for (char& c : what)
        if (c == '\t' || c == '\n') c = ' ';
    write_line("C", what.c_str());
    _exit(134);
}

std::vector<uint8_t> unhex(const std::string& h) {
    std::vector<uint8_t> out;
    for (size_t i = 0; i + 1 < h.size(); i += 2) out.push_back(static_cast<uint8_t>(std::strtoul(h.substr(i, 2).c_str(), nullptr, 16)));
    return out;
}

// Reads the case, opens the report, sets the limits and installs the sandbox (see the file's comment).
extern "C" __attribute__((constructor(101))) void asc_sim_host_setup_before_op_code(int argc, char** argv, char**) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s case.txt\n", argc > 0 ? argv[0] : "host.bin");
        _exit(2);
    }
    g_case = new Case();
    g_errors = new std::vector<std::string>();
    std::string report;
    FILE* f = std::fopen(argv[1], "r");
    if (!f) _exit(3);
    char* line = nullptr;
    size_t cap = 0;
    while (getline(&line, &cap, f) > 0) {
        std::istringstream ls(line);
        std::string kind;
        ls >> kind;
        Case& c = *g_case;
        if (kind == "mode") ls >> c.mode;
        else if (kind == "token") ls >> c.token;
        else if (kind == "report") ls >> report;
        else if (kind == "timeout") ls >> c.timeout;
        else if (kind == "op") ls >> c.op;
        else if (kind == "deterministic") ls >> c.deterministic;
        else if (kind == "platform") {
            std::string label, key, value;
            ls >> label >> key >> value;
            c.platform[label][key] = value;
        } else if (kind == "input") {
            CaseInput in;
            size_t n = 0;
            ls >> in.ir >> in.dtype >> in.format >> n;
            in.dims.resize(n);
            for (auto& d : in.dims) ls >> d;
            c.inputs.push_back(in);
        } else if (kind == "absent") {
            int ir;
            ls >> ir;
            c.absent.push_back(ir);
        } else if (kind == "value") {
            int inst;
            std::string hex;
            ls >> inst >> hex;
            c.values[inst] = unhex(hex);
        } else if (kind == "output") {
            CaseOutput out;
            long n = 0;
            ls >> out.ir >> out.dtype >> out.format >> n;
            out.infer_shape = n < 0;
            if (n > 0) out.dims.resize(static_cast<size_t>(n));
            for (auto& d : out.dims) ls >> d;
            c.outputs.push_back(out);
        } else if (kind == "call") {
            ls >> c.call;
        } else if (kind == "arg") {
            std::string rest;
            std::getline(ls, rest);
            c.args.push_back(rest);
        } else if (kind == "attr") {
            std::string name, rest;
            ls >> name;
            std::getline(ls, rest);
            c.attrs[name] = rest;
        }
    }
    std::free(line);
    std::fclose(f);  // it names the token: op code must not read it back
    g_report_fd = report.empty() ? 2 : open(report.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    if (g_report_fd < 0) _exit(3);
    for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGABRT, SIGALRM, SIGXCPU, SIGTERM, SIGILL}) std::signal(sig, crash_handler);
    std::set_terminate(terminate_hook);
    if (g_case->timeout) {  // CPU time, so a verdict does not depend on the machine's load (as for kernels)
        struct rlimit cpu;
        cpu.rlim_cur = g_case->timeout;
        cpu.rlim_max = g_case->timeout + 5;
        setrlimit(RLIMIT_CPU, &cpu);
    }
    if (!g_case->platform.empty()) platform() = fe::PlatFormInfos(g_case->platform);
    const char* ns = std::getenv("ASC_SIM_NAMESPACES");  // set by the launcher (sim/launch.py)
    std::string nsline = std::string("N\t") + (ns ? ns : "none (started without the launcher)") + "\n";
    ssize_t w = write(g_report_fd, nsline.data(), nsline.size());
    clearenv();
    std::signal(SIGXFSZ, SIG_IGN);
    mallopt(M_ARENA_MAX, 1);
    std::atexit(exit_hook);
    std::at_quick_exit(exit_hook);
    std::string why = asc_sim::install_sandbox(violation);
    for (char& ch : why)
        if (ch == '\t' || ch == '\n') ch = ' ';
    std::string sline = why.empty() ? std::string("S\t1\n") : "S\t0\t" + why + "\n";
    w = write(g_report_fd, sline.data(), sline.size());
    (void)w;
}

void answer(const std::string& json) {
    std::string line = "R\t" + g_case->token + "\t" + json + "\n";
    size_t off = 0;
    while (off < line.size()) {
        ssize_t w = write(g_report_fd, line.data() + off, line.size() - off);
        if (w <= 0) break;
        off += static_cast<size_t>(w);
    }
}

}  // namespace
}  // namespace asc_sim_host
