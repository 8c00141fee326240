"""The sandbox around simulated kernels (docs/simulator.md, "Sandbox"): a kernel written by an
LLM may try to write, delete or read files, start processes, use the network, end the process
before it returns, signal its process group, act on other processes, make shared memory,
print without end, read the environment or forge its own result. Each attempt is stopped and
reported with the reason; a normal kernel still runs; a killed caller leaves no job folder
behind."""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from ascendcraft.sim import build_kernel, run_kernel
from ascendcraft.sim.runner import gm
from ascendcraft.sim.build import SimBuildError, sandbox_support
from ascendcraft.sim.job import JOB_PREFIX, run_root

from sim_helpers import kernel_source, poisoned

N = 64
(NORMAL, WRITE_FILE, UNLINK, SYSTEM, FORK, CONNECT, EXIT, UNDERSCORE_EXIT, QUICK_EXIT, KILL_GROUP, RAISE, EXEC,
 FCNTL_KILL, RENICE, AFFINITY, PROC_MEM, SHM, MSG_QUEUE, MEMFD, PRINT_FOREVER, READ_FILE, ENVIRONMENT,
 REPORT_APPEND_OFF, FORGE_END, FORGE_COST, MAP_REPORT, TRUNCATE_REPORT) = range(27)


@pytest.fixture(scope="module")
def target(tmp_path_factory) -> Path:
    """The file the escape kernel writes, deletes or reads (its path is compiled in: a kernel has
    no environment)."""
    return tmp_path_factory.mktemp("sandbox") / "target.txt"


@pytest.fixture(scope="module")
def art(target):
    a = build_kernel(f'#define SANDBOX_FILE "{target}"\n' + kernel_source("sandbox_escape.cpp"), "escape")
    assert a.warnings == [], a.warnings
    return a


@pytest.fixture
def victim():
    """Another process of the same user, the target of the kernels that act on other processes."""
    proc = subprocess.Popen(["sleep", "60"])
    yield proc
    proc.kill()
    proc.wait()


@pytest.fixture
def sandboxed(art):
    ok, why = sandbox_support()
    assert ok and art.sandboxed, f"libseccomp is not available, kernels run without a sandbox: {why}"


def _run(art, mode, arg=0, **kw):
    x = np.arange(N, dtype=np.float32)
    return x, run_kernel(art, [x, poisoned(N, np.float32), N, mode, arg], block_dim=1, timeout_s=10, **kw)


def test_normal_kernel_runs_sandboxed_and_matches_numpy(art, sandboxed):
    x, res = _run(art, NORMAL)
    assert res.ok, res.report()
    assert res.sandboxed and res.violation is None and res.crash is None
    np.testing.assert_array_equal(res.outputs[1], 2 * x)
    assert "not sandboxed" not in res.report()


def test_threaded_kernel_still_runs_sandboxed(rng, sandboxed):
    """SyncAll kernels run one thread per block: threads are allowed, processes are not."""
    art = build_kernel(kernel_source("sum_all_sync.cpp"), "sum_all")
    x = rng.standard_normal(8 * 256).astype(np.float32)
    res = run_kernel(art, [x, poisoned(8, np.float32), 256, -1], block_dim=8, workspace_bytes=8 * 32)
    assert res.ok and res.sandboxed, res.report()
    np.testing.assert_allclose(res.outputs[1][0], x.astype(np.float64).sum(), rtol=1e-5, atol=1e-4)


def _violation(res, calls, words):
    assert not res.ok and res.outputs[1] is None
    assert res.crash.startswith("sandbox violation: the kernel made a forbidden system call"), res.crash
    assert words in res.crash, res.crash
    assert res.violation in calls and f"({res.violation})" in res.crash, res.crash
    assert "GlobalTensor::SetValue at kernel.cpp:" in res.crash
    assert "time limit" not in res.crash


@pytest.mark.parametrize("mode,calls,words", [
    (WRITE_FILE, {"openat", "open"}, "may not open or look up files"),
    (SYSTEM, None, "start processes"),
    (FORK, {"clone", "fork"}, "start processes"),
    (EXEC, {"execve"}, "start processes"),
])
def test_file_and_process_escapes_are_stopped(art, sandboxed, target, mode, calls, words):
    target.unlink(missing_ok=True)
    _, res = _run(art, mode)
    assert not target.exists(), "the kernel wrote a file outside its job folder"
    assert not res.ok and res.outputs[1] is None
    assert res.crash.startswith("sandbox violation: the kernel made a forbidden system call"), res.crash
    assert words in res.crash, res.crash
    if calls is not None:  # system() blocks every signal first: the call cannot be named then
        assert res.violation in calls and f"({res.violation})" in res.crash, res.crash
        assert "GlobalTensor::SetValue at kernel.cpp:" in res.crash
    assert "time limit" not in res.crash


def test_deleting_a_file_is_stopped(art, sandboxed, target):
    target.write_text("mine")
    _, res = _run(art, UNLINK)
    assert target.read_text() == "mine"
    assert res.violation == "unlink" and "change files" in res.crash, res.crash


def test_network_is_stopped(art, sandboxed):
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as srv:
        srv.bind(("127.0.0.1", 0))
        srv.listen(1)
        srv.settimeout(0.2)
        _, res = _run(art, CONNECT, arg=srv.getsockname()[1])
        try:
            conn, _ = srv.accept()
            conn.close()
            connected = True
        except (socket.timeout, BlockingIOError):
            connected = False
    assert not connected, "the kernel connected to a local port"
    assert res.violation == "socket" and "use the network" in res.crash, res.crash


@pytest.mark.parametrize("mode", [EXIT, UNDERSCORE_EXIT, QUICK_EXIT])
def test_exit_in_a_kernel_is_an_error(art, mode):
    _, res = _run(art, mode)
    assert not res.ok
    assert res.outputs[1] is None
    assert res.crash is not None and "the kernel called exit()" in res.crash, res.crash
    if mode != UNDERSCORE_EXIT:  # the atexit/at_quick_exit hook knows where the kernel was
        assert "GlobalTensor::SetValue at kernel.cpp:" in res.crash


def test_signalling_the_process_group_is_not_a_time_limit(art):
    _, res = _run(art, KILL_GROUP)
    assert not res.ok and res.crash is not None
    assert "time limit" not in res.crash, res.crash
    if res.sandboxed:
        assert res.violation == "kill" and "signal only their own process" in res.crash, res.crash
    else:
        assert "SIGTERM" in res.crash


def test_a_kernel_that_signals_itself_is_reported_as_the_signal(art):
    _, res = _run(art, RAISE)
    assert not res.ok and res.violation is None
    assert "SIGTERM" in res.crash and "time limit" not in res.crash, res.crash


@pytest.mark.parametrize("mode,calls", [(FCNTL_KILL, {"fcntl"}), (RENICE, {"setpriority"}),
                                        (AFFINITY, {"sched_setaffinity"}), (PROC_MEM, {"openat", "open"})])
def test_other_processes_are_out_of_reach(art, sandboxed, victim, mode, calls):
    """fcntl(F_SETOWN) + F_SETSIG(SIGKILL) + O_ASYNC used to kill any process of the user (the
    caller too) on the next write; renice, CPU affinity and /proc/<pid>/mem reached them as well."""
    nice, cpus = os.getpriority(os.PRIO_PROCESS, victim.pid), os.sched_getaffinity(victim.pid)
    _, res = _run(art, mode, arg=victim.pid)
    _violation(res, calls, "")
    time.sleep(0.05)
    assert victim.poll() is None, "the kernel killed another process"
    assert os.getpriority(os.PRIO_PROCESS, victim.pid) == nice
    assert os.sched_getaffinity(victim.pid) == cpus


def _ipc_objects() -> int:
    return sum(len(Path(f"/proc/sysvipc/{kind}").read_text().splitlines()) for kind in ("shm", "msg"))


@pytest.mark.parametrize("mode,calls", [(SHM, {"shmget"}), (MSG_QUEUE, {"msgget"}), (MEMFD, {"memfd_create"})])
def test_no_shared_memory_queues_or_memfd(art, sandboxed, mode, calls):
    """Segments and queues outlived the run; a memfd held memory past the run's limit."""
    before = _ipc_objects()
    _, res = _run(art, mode)
    _violation(res, calls, "may not make shared memory")
    assert _ipc_objects() == before


def test_reading_a_file_is_stopped(art, sandboxed, target):
    target.write_text("secret")
    _, res = _run(art, READ_FILE)
    _violation(res, {"openat", "open"}, "may not open or look up files, for reading either")


def test_the_kernel_sees_no_environment(art, sandboxed, monkeypatch):
    monkeypatch.setenv("ASC_SANDBOX_SECRET", "token")
    x, res = _run(art, ENVIRONMENT)
    assert res.ok, res.report()
    assert res.outputs[1][0] == 0, "the kernel read the caller's environment"
    np.testing.assert_array_equal(res.outputs[1][1:], 2 * x[1:])


def test_the_kernel_runs_in_namespaces_of_its_own_or_says_why_not(art, sandboxed):
    _, res = _run(art, NORMAL)
    assert res.namespaces in ("user ipc", "user ipc (without an id map)") or \
        res.namespaces.startswith(("ipc (no user namespace: ", "none (no user namespace: ")), res.namespaces


def test_printing_without_end_is_cut(art, sandboxed):
    """256 MiB of printing used to reach the caller whole (res.log held it all)."""
    from ascendcraft.sim.runner import LOG_LIMIT
    x, res = _run(art, PRINT_FOREVER)
    assert res.ok, res.crash
    np.testing.assert_array_equal(res.outputs[1], 2 * x)
    assert len(res.log) < LOG_LIMIT + 1000
    assert "more bytes of the kernel's output are not shown" in res.log
    assert "the rest was dropped" in res.log.splitlines()[-1]


@pytest.mark.parametrize("mode,calls,words", [
    (REPORT_APPEND_OFF, {"fcntl"}, "may not change, duplicate, seek, map or lock the descriptors"),
    (MAP_REPORT, {"mmap"}, "may not change, duplicate, seek, map or lock the descriptors"),
    (TRUNCATE_REPORT, {"ftruncate"}, "may not change files"),
])
def test_the_report_cannot_be_rewritten(art, sandboxed, mode, calls, words):
    """Clearing append mode on the report let a kernel overwrite its error lines: ok=True."""
    _, res = _run(art, mode)
    _violation(res, calls, words)


@pytest.mark.parametrize("mode,cost_only", [(FORGE_END, False), (FORGE_COST, False), (FORGE_COST, True)])
def test_lines_written_into_the_report_are_not_believed(art, sandboxed, mode, cost_only):
    """A kernel that writes an end line and leaves, or a cost line of its own, fails."""
    args = ([gm((N,), np.float32), gm((N,), np.float32)] if cost_only
            else [np.arange(N, dtype=np.float32), poisoned(N, np.float32)])
    res = run_kernel(art, args + [N, mode, 0], block_dim=1, timeout_s=10, cost_only=cost_only)
    assert not res.ok
    assert "the kernel wrote into the simulator's report" in res.crash, res.crash


CALLER = """
import sys, time
import numpy as np
sys.path.insert(0, {helpers!r})
from sim_helpers import kernel_source
from ascendcraft.sim import build_kernel, run_kernel
art = build_kernel(kernel_source("crash_hang.cpp"), "hang_kernel")
run_kernel(art, [np.zeros(64, np.float32), 64], block_dim=1, timeout_s=60)
"""


def _sim_children(job_dirs):
    """Pids of processes whose command line names one of the job folders."""
    pids = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                cmd = (proc / "cmdline").read_bytes().decode(errors="replace")
            except OSError:
                continue
            if any(str(d) in cmd for d in job_dirs):
                pids.append(int(proc.name))
    return pids


def test_killed_caller_leaves_no_job_folder_and_no_process(art):
    build_kernel(kernel_source("crash_hang.cpp"), "hang_kernel")  # built here: the caller finds it cached
    root = Path(run_root())
    caller = subprocess.Popen([sys.executable, "-c", CALLER.format(helpers=str(Path(__file__).parent))],
                              env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    try:
        pattern = f"{JOB_PREFIX}{caller.pid}.*"
        deadline = time.monotonic() + 20
        jobs: list[Path] = []
        while time.monotonic() < deadline and not (jobs and _sim_children(jobs)):
            time.sleep(0.05)
            jobs = list(root.glob(pattern))
        assert jobs and _sim_children(jobs), "the caller never started the kernel (job folders are named by pid)"
    finally:
        caller.send_signal(signal.SIGKILL)
        caller.wait()
    deadline = time.monotonic() + 5
    while _sim_children(jobs) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _sim_children(jobs), "the simulated kernel outlived its caller"
    assert all(j.exists() for j in jobs)  # SIGKILL: the caller could not clean up
    _run(art, NORMAL)  # the next run removes the folders of dead callers
    assert not any(j.exists() for j in jobs), "a killed caller's job folder outlived the next run"


# ------------------------------------------------------------------------- code that runs before the kernel
_STARTUP_KERNEL = r'''
#include "kernel_operator.h"
#include <cstdio>
#include <cstdlib>
%s
extern "C" __global__ __aicore__ void startup(GM_ADDR y) {
    AscendC::GlobalTensor<int32_t> g;
    g.SetGlobalBuffer((__gm__ int32_t*)y);
    g.SetValue(0, leaked);
}
'''
_READ = '{ std::FILE* f = std::fopen("%s", "r"); int c = f ? std::fgetc(f) : -7; if (f) std::fclose(f); return c; }'


@pytest.mark.parametrize("code", [
    "static int leaked = [] %s();",                                                 # a static initializer
    "static int leaked = -1;\n__attribute__((constructor(101))) static void early() { leaked = [] %s(); }",
], ids=["static initializer", "constructor of the harness's priority"])
def test_a_kernel_reading_a_file_at_start_up_is_stopped(sandboxed, target, code):
    target.write_text("secret")
    art = build_kernel(_STARTUP_KERNEL % (code % (_READ % target)), "startup")
    res = run_kernel(art, [np.zeros(8, np.int32)], block_dim=1)
    assert not res.ok and res.violation == "openat", res.crash
    assert "at start-up, before the kernel was called" in res.crash


def test_a_kernel_sees_no_environment_at_start_up(sandboxed, monkeypatch):
    monkeypatch.setenv("ASC_SANDBOX_SECRET", "token")
    art = build_kernel(_STARTUP_KERNEL % 'static int leaked = std::getenv("ASC_SANDBOX_SECRET") != nullptr ? 7 : 3;',
                       "startup")
    res = run_kernel(art, [np.zeros(8, np.int32)], block_dim=1)
    assert res.ok, res.report()
    assert res.outputs[0][0] == 3, "a static initializer read the caller's environment"


@pytest.mark.parametrize("code", [
    "static int leaked = 0;\n__attribute__((constructor(100))) static void early() { leaked = 1; }",
    "static int leaked = 0;\nstatic void early() { leaked = 1; }\n"
    "__attribute__((section(\".init_array.00050\"), used)) static void (*early_ptr)() = early;",
    "static int leaked = 0;\nstatic void early() { leaked = 1; }\n"
    "__attribute__((section(\".preinit_array\"), used)) static void (*early_ptr)() = early;",
], ids=["priority below the harness's", "placed in .init_array", "placed in .preinit_array"])
def test_a_kernel_whose_code_would_run_before_the_sandbox_does_not_build(code):
    with pytest.raises(SimBuildError, match=r"runs code before the simulator's sandbox is installed: early\(\)"):
        build_kernel(_STARTUP_KERNEL % code, "startup")


@pytest.mark.parametrize("code", [
    'asm(".section .rodata\\n" XSTR(CAT(.inc, bin)) " \\"/etc/hostname\\"\\n.text\\n");\nstatic int leaked = 0;',
    "static int leaked = [] { asm volatile(\"nop\"); return 0; }();",
], ids=[".incbin spelled by macros", "any asm statement"])
def test_a_kernel_with_inline_assembly_does_not_build(code):
    macros = "#define CAT(a, b) a##b\n#define STR(x) #x\n#define XSTR(x) STR(x)\n"
    with pytest.raises(SimBuildError, match=r"kernel startup contains inline assembly \(kernel.cpp:\d+\)"):
        build_kernel(_STARTUP_KERNEL % (macros + code), "startup")


def test_the_start_up_check_reads_a_built_kernel_and_refuses_what_it_cannot_read(tmp_path):
    from ascendcraft.sim.startup import startup_functions, startup_problem
    art = build_kernel(_STARTUP_KERNEL % "static int leaked = 0;", "startup")
    preinit, init = startup_functions(art.exe)
    assert preinit == [] and [f for f in init if f != "frame_dummy"][0] == "asc_sim_setup_before_kernel_code"
    script = tmp_path / "not_elf"
    script.write_text("#!/bin/sh\n")
    assert "cannot be read" in startup_problem(script, "asc_sim_setup_before_kernel_code", "kernel k")
