// ascendcraft AscendC CPU simulator: the seccomp sandbox, shared by the kernel harness (harness_main.cpp)
// and the host harness (host/host_main.cpp), which both run untrusted code.
//
// After the harness has opened every file it needs, a seccomp filter is installed before the
// kernel runs. It is an allow list: only the calls a kernel needs once the harness has set up
// (memory, threads, time, writing to the descriptors already open, exit) pass; every other call
// traps (SIGSYS, the call is not executed) and the handler reports its name and ends the
// process. See docs/simulator.md, "Sandbox", for the list and why each call is there.
#pragma once
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>
#ifdef ASC_SIM_SECCOMP
#include <seccomp.h>
#endif
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace asc_sim {

// 1 while a signal handler (crash, violation) runs: a second signal then ends the process at once
inline volatile sig_atomic_t g_in_handler = 0;
// Reports a forbidden call (its name) from the SIGSYS handler, which then ends the process (exit status 159).
// It runs in a signal handler: it may only write to descriptors already open.
using SandboxViolation = void (*)(const char* syscall);
inline SandboxViolation g_sandbox_violation = nullptr;

#ifdef ASC_SIM_SECCOMP
// Allowed whatever their arguments.
inline const char* const kAllowed[] = {
    // memory (mmap: anonymous only, below)
    "brk", "munmap", "mprotect", "mremap", "madvise",
    // threads: one per block for SyncAll kernels (clone: threads only, below)
    "futex", "set_robust_list", "rseq", "set_tid_address", "gettid", "getpid", "sched_yield", "sched_getaffinity",
    // signals (rt_sigaction: not SIGSYS, kill/tgkill: this process only, below)
    "rt_sigprocmask", "rt_sigreturn", "sigaltstack", "restart_syscall",
    // time
    "clock_gettime", "clock_getres", "gettimeofday", "time", "nanosleep", "clock_nanosleep",
    // the descriptors the harness opened: the report (append-only), outputs, the log
    "read", "write", "writev", "close", "fstat",
    // randomness (std::random_device) and the end
    "getrandom", "exit", "exit_group",
};
constexpr int kMaxSyscall = 1024;
inline char g_syscall_names[kMaxSyscall][32];  // filled before the filter: the handler may not allocate

inline void sigsys_handler(int, siginfo_t* si, void*) {
    if (g_in_handler) _exit(159);
    g_in_handler = 1;
    char num[32];
    const char* name = num;
    int nr = si->si_syscall;
    if (nr >= 0 && nr < kMaxSyscall && g_syscall_names[nr][0]) name = g_syscall_names[nr];
    else std::snprintf(num, sizeof num, "syscall %d", nr);
    if (g_sandbox_violation) g_sandbox_violation(name);
    _exit(159);
}

inline void name_syscalls() {
    for (int nr = 0; nr < kMaxSyscall; ++nr) {
        char* n = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, nr);
        if (!n) continue;
        std::snprintf(g_syscall_names[nr], sizeof g_syscall_names[nr], "%s", n);
        std::free(n);
    }
}

// Installs the filter; returns "" or why the sandbox could not be installed.
inline std::string install_sandbox(SandboxViolation on_violation) {
    g_sandbox_violation = on_violation;
    name_syscalls();
    struct sigaction sa {};
    sa.sa_sigaction = sigsys_handler;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGSYS, &sa, nullptr) != 0) return "sigaction(SIGSYS) failed";
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_TRAP);  // other architectures' calls: killed (the default)
    if (!ctx) return "seccomp_init failed";
    std::string err;
    auto rule = [&](uint32_t action, const char* n, unsigned cnt, const scmp_arg_cmp* cmp) {
        int nr = seccomp_syscall_resolve_name(n);
        if (nr == __NR_SCMP_ERROR) return;  // a call this architecture does not have
        int rc = seccomp_rule_add_array(ctx, action, nr, cnt, cmp);
        if (rc != 0 && err.empty()) err = std::string("seccomp_rule_add(") + n + ") failed: " + std::strerror(-rc);
    };
    for (const char* n : kAllowed) rule(SCMP_ACT_ALLOW, n, 0, nullptr);
    const scmp_datum_t self = static_cast<scmp_datum_t>(getpid());
    // mmap of memory, never of a file: a shared mapping of the report could rewrite it
    scmp_arg_cmp anon = SCMP_A3(SCMP_CMP_MASKED_EQ, MAP_ANONYMOUS, MAP_ANONYMOUS);
    rule(SCMP_ACT_ALLOW, "mmap", 1, &anon);
    // clone: threads only (CLONE_THREAD implies CLONE_VM | CLONE_SIGHAND: no new process)
    scmp_arg_cmp thread = SCMP_A0(SCMP_CMP_MASKED_EQ, static_cast<scmp_datum_t>(CLONE_THREAD),
                                  static_cast<scmp_datum_t>(CLONE_THREAD));
    rule(SCMP_ACT_ALLOW, "clone", 1, &thread);
    // clone3 passes its flags in memory, which seccomp cannot read: ENOSYS makes glibc's
    // pthread_create fall back to clone, where the rule above applies
    rule(SCMP_ACT_ERRNO(ENOSYS), "clone3", 0, nullptr);
    // signals to this process only: raise() and abort() use tgkill(getpid(), ...)
    scmp_arg_cmp to_self = SCMP_A0(SCMP_CMP_EQ, self);
    for (const char* n : {"kill", "tgkill"}) rule(SCMP_ACT_ALLOW, n, 1, &to_self);
    // any signal handler but one for SIGSYS (31), which would hide violations: signals 0-30 and
    // 32-63, compared on all 64 bits (the kernel reads only the low 32 of this int argument)
    static_assert(SIGSYS == 31, "the rt_sigaction ranges below assume SIGSYS is 31");
    scmp_arg_cmp below = SCMP_A0(SCMP_CMP_LT, SIGSYS);
    scmp_arg_cmp above = SCMP_A0(SCMP_CMP_MASKED_EQ, ~static_cast<scmp_datum_t>(31), 32);
    rule(SCMP_ACT_ALLOW, "rt_sigaction", 1, &below);
    rule(SCMP_ACT_ALLOW, "rt_sigaction", 1, &above);
    // reading this process's own limits (pthread reads RLIMIT_STACK); setting one traps
    scmp_arg_cmp own[] = {SCMP_A0(SCMP_CMP_EQ, 0), SCMP_A2(SCMP_CMP_EQ, 0)};
    rule(SCMP_ACT_ALLOW, "prlimit64", 2, own);
    // fstat of an open descriptor (glibc's fstat is newfstatat(fd, "", st, AT_EMPTY_PATH))
    scmp_arg_cmp empty_path = SCMP_A3(SCMP_CMP_MASKED_EQ, AT_EMPTY_PATH, AT_EMPTY_PATH);
    rule(SCMP_ACT_ALLOW, "newfstatat", 1, &empty_path);
    if (err.empty()) {
        int rc = seccomp_load(ctx);  // also sets no_new_privs
        if (rc != 0) err = std::string("seccomp_load failed: ") + std::strerror(-rc);
    }
    seccomp_release(ctx);
    return err;
}
#else
inline std::string install_sandbox(SandboxViolation) { return "the simulator was built without libseccomp"; }
#endif

}  // namespace asc_sim
