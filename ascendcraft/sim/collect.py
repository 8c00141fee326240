"""Read back an ended run: its report (diagnostics, crash, sandbox, per-core cost), its output
files, and the reason for a sandbox violation, as a :class:`~ascendcraft.sim.result.SimResult`."""
from __future__ import annotations

import signal
from pathlib import Path
from typing import Any

import numpy as np

from .build import sandbox_support
from .cost import CoreCost, PIPES, aggregate
from .job import from_bf16_bits
from .result import Diagnostic, SimResult


_CORE_KINDS = {"b": "block", "c": "aic", "v": "aiv"}   # the K line's core kind (harness_main.cpp)


def collect(art, report: Path, rc: int, log: str, timed_out: bool, out_specs, values, chip_obj, block_dim,
            cost_only, token: str) -> SimResult:
    """The result of a run that ended (``rc``: its exit status; ``timed_out``: killed past its limit).

    The verdict is derived here, not taken from the kernel's process: the lines that make a run
    good (a block's cost ``K``, the end ``E``) count only with the run's ``token``, which the kernel
    cannot read (the job file is closed and opening files is forbidden before the kernel runs); a
    line of those kinds without it means the kernel wrote into its report, and the run fails. Only
    the first ``S`` (sandbox) line counts: the harness writes it before the kernel runs. A run is
    ok only with every output file whole."""
    diags: list[Diagnostic] = []
    crash = None
    cores: list[CoreCost] = []
    layout = []
    harness_error = None
    violation = exit_call = None
    finished = False
    sandboxed, sandbox_note = False, ""
    forged = None
    seen_sandbox = False
    namespaces = ""
    text = report.read_text(errors="replace") if report.exists() else ""
    for line in text.splitlines():
        f = line.split("\t")
        if f[0] in ("K", "E") and (f[-1] != token or (f[0] == "K" and len(f) != 10 + len(PIPES)) or (f[0] == "E" and len(f) != 3)):
            forged = forged or line
            continue
        if f[0] == "N" and len(f) >= 2 and not seen_sandbox:
            namespaces = "\t".join(f[1:])
        elif f[0] == "S" and len(f) >= 2 and not seen_sandbox:
            seen_sandbox = True
            sandboxed = f[1] == "1"
            sandbox_note = "" if sandboxed else "\t".join(f[2:])
        elif f[0] == "V" and len(f) >= 6:
            violation = f[1]
            where = f"; the last API call was {f[3]} at {f[4] or 'kernel'}:{f[5]}" if f[3] else ""
            at = (f"in block {f[2]}{where}" if f[2] != "-1" else
                  "at start-up, before the kernel was called (a static initializer or constructor of its code)")
            crash = f"sandbox violation: the kernel made a forbidden system call ({f[1]}) {at}: {_violation_reason(f[1])}"
        elif f[0] == "Q" and len(f) >= 6:
            where = f"; the last API call was {f[3]} at {f[4] or 'kernel'}:{f[5]}" if f[3] else ""
            exit_call = (f"the kernel called exit() in block {f[2]}{where}: a kernel must return from its entry "
                         f"point; exit()/quick_exit() end the simulation, so its outputs are not trusted")
        elif f[0] == "E":
            finished = True
        elif f[0] == "D" and len(f) >= 8:
            diags.append(Diagnostic(f[1], f[2], f[3], "\t".join(f[7:]), int(f[5]) or None, f[4] or None,
                                    int(f[6])))
        elif f[0] == "C" and len(f) >= 6 and violation is None:
            where = f"; the last API call was {f[3]} at {f[4] or 'kernel'}:{f[5]}" if f[3] else ""
            crash = f"{f[1]} in block {f[2]}{where}"
        elif f[0] == "K":
            n = 3 + len(PIPES)
            busy = {p: float(x) for p, x in zip(PIPES, f[3:n])}
            cores.append(CoreCost(int(f[1]), float(f[2]), busy, int(f[n]), int(f[n + 1]), int(f[n + 2]), int(f[n + 3]),
                                  int(f[n + 4]), _CORE_KINDS.get(f[n + 5], "block")))
        elif f[0] == "T" and len(f) >= 5:
            layout.append({"name": f[1], "type": f[2], "offset": int(f[3]), "size": int(f[4])})
        elif f[0] == "X":
            harness_error = "\t".join(f[1:])
    if forged is not None:
        crash = (f"the kernel wrote into the simulator's report (a line the harness did not write: {forged[:80]!r}); "
                 f"a kernel must compute its outputs, not write its own result, so this run is not trusted")
        finished = False
    if crash is None and exit_call:
        crash = exit_call
    if timed_out and crash is None:
        crash = ("time limit exceeded (the kernel hangs or is too slow: still running after several times its "
                 "CPU-time limit in wall time, waiting or starved of CPU); killed")
    elif crash is None and rc not in (0, 1):
        if rc == -signal.SIGSYS:
            violation = violation or "unknown"
            crash = ("sandbox violation: the kernel made a forbidden system call while it blocked all signals, so the "
                     "call is not named (glibc's system(), popen() and posix_spawn() block them before they start a "
                     f"process); it was killed by SIGSYS: kernels may not start processes ({_ALLOWED})")
        elif rc < 0:
            crash = f"killed by signal {-rc} ({signal.Signals(-rc).name})"
        elif harness_error:
            crash = harness_error
        else:
            crash = f"exit status {rc}" + (" (out of memory?)" if "bad_alloc" in log else "")
    if crash is None and not finished and not harness_error:
        # no crash line, no end line: the process ended inside the kernel (_exit, exit_group)
        crash = (f"the kernel called exit() (_exit or exit_group, exit status {rc}) before it returned: a kernel "
                 f"must return from its entry point, so its outputs are not trusted")
    if crash and crash.startswith("SIGXCPU"):
        crash = "time limit exceeded (the kernel hangs or is too slow): " + crash
    elif crash and crash.startswith("SIGTERM"):
        crash = ("the kernel received " + crash + "; the simulator never sends SIGTERM, so the kernel sent it to "
                 "itself (raise, kill) or another process did")
    outputs: list[Any] = []
    missing = []
    if not cost_only:
        def read(spec, v):
            _, path, dtype, shape, is_bf16 = spec
            nbytes = int(np.prod(shape, dtype=np.int64)) * np.dtype(dtype).itemsize
            if finished and path.exists() and path.stat().st_size == nbytes:
                arr = np.fromfile(path, dtype=dtype).reshape(shape)
                return from_bf16_bits(arr) if is_bf16 else (arr.view(np.bool_) if v.dtype == np.bool_ else arr)
            missing.append(art.params[spec[0]].name)
            return None
        for spec, v in zip(out_specs, values):
            if spec is None:
                outputs.append(v)
            elif isinstance(spec, list):      # a tensor list: its tensors, each read back
                outputs.append([read(sp, t) for sp, t in zip(spec, v)])
            else:
                outputs.append(read(spec, v))
    if finished and crash is None and missing:
        crash = (f"the output file of {', '.join(missing)} is not what the harness writes (the kernel wrote into "
                 f"it, or it could not be written whole); its outputs are not trusted")
    cost = aggregate(sorted(cores, key=lambda c: c.block), chip_obj, block_dim) if cores else None
    ok = rc == 0 and finished and crash is None and not any(d.severity == "error" for d in diags)
    if not sandboxed:
        if not art.sandboxed:
            sandbox_note = "the simulator was built without libseccomp: " + (sandbox_support()[1] or "not available")
        elif not sandbox_note:
            sandbox_note = "the run ended before the harness installed the sandbox (the kernel did not run)"
    return SimResult(ok=ok, outputs=outputs, diagnostics=diags, cost=cost, crash=crash, returncode=rc, log=log,
                     tiling_layout=layout, sandboxed=sandboxed, sandbox_note=sandbox_note, violation=violation,
                     namespaces=namespaces)


_VIOLATION_KINDS = (
    (("execve", "execveat", "fork", "vfork", "clone", "clone3"),
     "kernels may not start processes (system(), popen(), fork(), exec*())"),
    (("socket", "socketpair", "connect", "bind", "listen", "accept", "accept4", "sendto", "sendmsg", "sendmmsg",
      "recvfrom", "recvmsg", "recvmmsg", "setsockopt", "getsockopt", "shutdown", "getsockname", "getpeername"),
     "kernels may not use the network"),
    (("open", "openat", "openat2", "creat", "open_by_handle_at", "name_to_handle_at", "stat", "lstat", "newfstatat",
      "statx", "access", "faccessat", "faccessat2", "readlink", "readlinkat", "getdents64", "chdir", "fchdir"),
     "kernels may not open or look up files, for reading either: a kernel reads its GM arguments and writes its GM "
     "outputs, and the harness has opened everything else it needs"),
    (("unlink", "unlinkat", "rename", "renameat", "renameat2", "mkdir", "mkdirat", "rmdir", "link", "linkat",
      "symlink", "symlinkat", "chmod", "fchmod", "fchmodat", "fchmodat2", "chown", "fchown", "lchown", "fchownat",
      "truncate", "ftruncate", "fallocate", "utime", "utimes", "utimensat", "futimesat", "mknod", "mknodat",
      "setxattr", "lsetxattr", "fsetxattr", "removexattr", "lremovexattr", "fremovexattr"),
     "kernels may not change files or directories (delete, rename, create, chmod, chown, truncate)"),
    (("fcntl", "dup", "dup2", "dup3", "lseek", "pread64", "pwrite64", "preadv", "pwritev", "preadv2", "pwritev2",
      "ioctl", "mmap", "sendfile", "splice", "tee", "copy_file_range", "flock", "fsync", "fdatasync"),
     "kernels may not change, duplicate, seek, map or lock the descriptors the harness holds (its report and "
     "output files): printing with printf/std::cout is allowed, nothing else on them"),
    (("kill", "tgkill", "tkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo", "pidfd_open", "pidfd_send_signal",
      "pidfd_getfd", "ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "setpgid", "setsid", "setpriority",
      "getpriority", "sched_setaffinity", "sched_setscheduler", "sched_setparam", "sched_setattr", "ioprio_set",
      "ioprio_get", "prlimit64", "setrlimit", "prctl", "rt_sigaction"),
     "kernels may signal only their own process (raise(), abort()) and may not act on other processes, change "
     "priorities, CPU affinity or limits, or catch SIGSYS"),
    (("shmget", "shmat", "shmdt", "shmctl", "msgget", "msgsnd", "msgrcv", "msgctl", "semget", "semop", "semctl",
      "semtimedop", "mq_open", "mq_unlink", "mq_timedsend", "mq_timedreceive", "mq_notify", "mq_getsetattr",
      "memfd_create", "memfd_secret", "pipe", "pipe2", "eventfd", "eventfd2", "signalfd", "signalfd4",
      "timerfd_create", "inotify_init", "inotify_init1", "epoll_create", "epoll_create1", "userfaultfd"),
     "kernels may not make shared memory, message queues, pipes or other descriptors: GM arguments and "
     "new/malloc are the memory a kernel has"),
)

#: what every violation message ends with: what a kernel may do, so the fix needs no documentation
_ALLOWED = ("kernel code may compute, allocate memory, start threads, read the clock, print and return; every "
            "other system call is refused")


def _violation_reason(name: str) -> str:
    for names, why in _VIOLATION_KINDS:
        if name in names:
            return f"{why} ({_ALLOWED})"
    return _ALLOWED
