"""Start a kernel's process in its own session, with a memory limit, a file-size limit, no core dumps
and death with its caller: through a small C launcher (built once, cached) or, where it cannot stand in, a
``preexec_fn``. The seccomp sandbox itself is installed by the harness (``harness_main.cpp``)."""
from __future__ import annotations

import hashlib
import os
import resource
import shutil
import signal
import subprocess
import tempfile
import threading
from pathlib import Path

from .. import processes
from ..processes import die_with_parent
from .cache import cache_dir


def _preexec(memory_bytes: int, file_bytes: int):
    """Runs in the child between fork and exec: its own session and process group (a kernel's
    kill(0, ...) reaches only itself), death with the calling thread (PR_SET_PDEATHSIG), limits."""
    libc = processes.libc()  # loaded before the fork (and cached): nothing is imported in the child
    parent = os.getpid()

    def fn():
        os.setsid()
        die_with_parent(parent, libc)
        resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        resource.setrlimit(resource.RLIMIT_FSIZE, (file_bytes, file_bytes))
    return fn


# What _preexec does, as a program that then executes the kernel: a child that runs no Python code
# between fork and exec lets subprocess use vfork, which does not copy this (large) process's page
# tables: a start costs a few ms instead of some 20 to 50 (a lowering starts ten runs).
_LAUNCHER_SOURCE = r"""#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>
/* Writes `text` to /proc/self/<name> (the maps of a new user namespace). */
static int put(const char* name, const char* text) {
    char path[64];
    snprintf(path, sizeof path, "/proc/self/%s", name);
    int fd = open(path, O_WRONLY);
    if (fd < 0) return -1;
    ssize_t n = write(fd, text, strlen(text));
    close(fd);
    return n == (ssize_t)strlen(text) ? 0 : -1;
}
/* An own IPC namespace, in an own user namespace where this user may make one (the same user
   inside, so the job folder stays readable); says which in ASC_SIM_NAMESPACES. No network
   namespace: making one costs some 6 ms a run, and the sandbox refuses every socket call. */
static void isolate(void) {
    char why[160], map[64];
    uid_t uid = geteuid();
    gid_t gid = getegid();
    if (unshare(CLONE_NEWUSER | CLONE_NEWIPC) == 0) {
        snprintf(map, sizeof map, "%u %u 1\n", (unsigned)uid, (unsigned)uid);
        int ok = put("uid_map", map) == 0;
        snprintf(map, sizeof map, "%u %u 1\n", (unsigned)gid, (unsigned)gid);
        ok = ok && put("setgroups", "deny") == 0 && put("gid_map", map) == 0;
        setenv("ASC_SIM_NAMESPACES", ok ? "user ipc" : "user ipc (without an id map)", 1);
        return;
    }
    snprintf(why, sizeof why, "no user namespace: %s", strerror(errno));
    if (unshare(CLONE_NEWIPC) == 0) {
        char ipc[200];
        snprintf(ipc, sizeof ipc, "ipc (%s)", why);
        setenv("ASC_SIM_NAMESPACES", ipc, 1);
        return;
    }
    char none[240];
    snprintf(none, sizeof none, "none (%s; no IPC namespace: %s)", why, strerror(errno));
    setenv("ASC_SIM_NAMESPACES", none, 1);
}
/* asc-sim-launch <parent pid> <RLIMIT_AS bytes> <RLIMIT_FSIZE bytes> <isolate 0|1> <program> [args...] */
int main(int argc, char** argv) {
    if (argc < 6) return 127;
    prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    if (getppid() != (pid_t)strtol(argv[1], 0, 10)) _exit(1);
    if (argv[4][0] == '1') isolate();
    struct rlimit as, fsize, core = {0, 0};
    as.rlim_cur = as.rlim_max = (rlim_t)strtoull(argv[2], 0, 10);
    fsize.rlim_cur = fsize.rlim_max = (rlim_t)strtoull(argv[3], 0, 10);
    if (setrlimit(RLIMIT_AS, &as) != 0 || setrlimit(RLIMIT_CORE, &core) != 0 || setrlimit(RLIMIT_FSIZE, &fsize) != 0)
        return 126;
    execv(argv[5], argv + 5);
    return 127;
}
"""
_LAUNCHER: Path | None | bool = False       # False: not looked for yet; None: not available
_LAUNCHER_LOCK = threading.Lock()


def _launcher_program() -> Path | None:
    """The launcher, built once per compiler (cached beside the kernels), or None."""
    global _LAUNCHER
    with _LAUNCHER_LOCK:
        if _LAUNCHER is None or (_LAUNCHER is not False and _LAUNCHER.exists()):
            return _LAUNCHER
        _LAUNCHER = None        # not looked for yet, or removed since (another cache folder)
        h = hashlib.sha256(_LAUNCHER_SOURCE.encode())
        h.update((shutil.which("gcc") or shutil.which("g++") or "").encode())
        exe = cache_dir() / f"asc-sim-launch-{h.hexdigest()[:16]}"
        if not exe.exists():
            try:
                with tempfile.TemporaryDirectory(prefix="launch.", dir=cache_dir()) as d:
                    (Path(d) / "launch.c").write_text(_LAUNCHER_SOURCE)
                    proc = subprocess.run(["g++", "-x", "c", "-O1", "launch.c", "-o", "launch"], cwd=d,
                                          capture_output=True, timeout=120)
                    if proc.returncode != 0:
                        return None
                    os.replace(Path(d) / "launch", exe)
            except (OSError, subprocess.TimeoutExpired):
                return None
        _LAUNCHER = exe
        return exe


def popen_limited(cmd: list[str], *, cwd, memory_bytes: int, file_bytes: int, isolate: bool = False,
                  **popen_kw) -> subprocess.Popen:
    """Start ``cmd`` (its program by path) as _preexec describes: its own session, death with this
    process, at most ``memory_bytes`` of address space and ``file_bytes`` per file written, no core
    dumps; through the launcher when it can stand in (the program can be executed). ``isolate``
    (kernels): the launcher also gives it its own user and IPC namespaces where the system lets it,
    and says which in ``ASC_SIM_NAMESPACES`` (without the launcher: none)."""
    memory_bytes, file_bytes = (min(int(want), _hard(which)) for want, which in
                                ((memory_bytes, resource.RLIMIT_AS), (file_bytes, resource.RLIMIT_FSIZE)))
    exe = cmd[0]
    launcher = _launcher_program() if os.path.isfile(exe) and os.access(exe, os.X_OK) else None
    if launcher is not None:
        try:
            return subprocess.Popen([str(launcher), str(os.getpid()), str(memory_bytes), str(file_bytes),
                                     "1" if isolate else "0", *map(str, cmd)],
                                    start_new_session=True, cwd=cwd, **popen_kw)
        except OSError:
            pass            # the launcher cannot run here: the program's own start says why if it cannot either
    return subprocess.Popen([str(c) for c in cmd], preexec_fn=_preexec(memory_bytes, file_bytes), cwd=cwd,
                            **popen_kw)


def popen_kernel(exe: Path, job: Path, run_dir: Path, log, memory_limit_mb: int, file_limit: int) -> subprocess.Popen:
    """Start the kernel process with its limits; what it prints goes to ``log``."""
    return popen_limited([exe, job], cwd=run_dir, memory_bytes=int(memory_limit_mb) << 20, file_bytes=file_limit,
                         isolate=True, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)


def kill_session(proc: subprocess.Popen) -> None:
    """Kill a process :func:`popen_limited` started and everything in its session (g++ with cc1plus,
    as and ld; a kernel with its block threads), then reap it."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    proc.wait()


def _hard(which: int) -> int:
    """The hard limit ``which`` (a large number for none): a limit asked for is at most that."""
    hard = resource.getrlimit(which)[1]
    return hard if hard != resource.RLIM_INFINITY else 1 << 62
