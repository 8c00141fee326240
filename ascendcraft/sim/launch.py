"""Start a kernel's process in its own session, with a memory limit, no core dumps and death with
its caller: through a small C launcher (built once, cached) or, where it cannot stand in, a
``preexec_fn``. The seccomp sandbox itself is installed by the harness (``harness_main.cpp``)."""
from __future__ import annotations

import hashlib
import os
import resource
import shutil
import subprocess
import tempfile
import threading
from pathlib import Path

from .. import processes
from ..processes import die_with_parent
from .build import cache_dir


def _preexec(memory_limit_mb: int):
    """Runs in the child between fork and exec: its own session and process group (a kernel's
    kill(0, ...) reaches only itself), death with the calling thread (PR_SET_PDEATHSIG), limits."""
    libc = processes.libc()  # loaded before the fork (and cached): nothing is imported in the child
    parent = os.getpid()

    def fn():
        os.setsid()
        die_with_parent(parent, libc)
        limit = int(memory_limit_mb) * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    return fn


# What _preexec does, as a program that then executes the kernel: a child that runs no Python code
# between fork and exec lets subprocess use vfork, which does not copy this (large) process's page
# tables: a start costs a few ms instead of some 20 to 50 (a lowering starts ten runs).
_LAUNCHER_SOURCE = r"""#include <stdlib.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>
/* asc-sim-launch <parent pid> <RLIMIT_AS bytes> <program> [args...] */
int main(int argc, char** argv) {
    if (argc < 4) return 127;
    prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    if (getppid() != (pid_t)strtol(argv[1], 0, 10)) _exit(1);
    struct rlimit as, core = {0, 0};
    as.rlim_cur = as.rlim_max = (rlim_t)strtoull(argv[2], 0, 10);
    if (setrlimit(RLIMIT_AS, &as) != 0 || setrlimit(RLIMIT_CORE, &core) != 0) return 126;
    execv(argv[3], argv + 3);
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


def popen_kernel(exe: Path, job: Path, run_dir: Path, log, memory_limit_mb: int) -> subprocess.Popen:
    """Start the kernel process as _preexec describes, through the launcher when it can stand in
    for it exactly (the limit is within the hard limit, the kernel can be executed: otherwise
    _preexec raises what it would)."""
    limit = int(memory_limit_mb) * 1024 * 1024
    hard = resource.getrlimit(resource.RLIMIT_AS)[1]
    launcher = _launcher_program() if (hard == resource.RLIM_INFINITY or limit <= hard) and \
        os.path.isfile(exe) and os.access(exe, os.X_OK) else None
    if launcher is not None:
        try:
            return subprocess.Popen([str(launcher), str(os.getpid()), str(limit), str(exe), str(job)],
                                    stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                    start_new_session=True, cwd=run_dir)
        except OSError:
            pass            # the launcher cannot run here: the kernel's own start says why if it cannot either
    return subprocess.Popen([str(exe), str(job)], stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                            preexec_fn=_preexec(memory_limit_mb), cwd=run_dir)
