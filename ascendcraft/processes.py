"""Process facts shared by the command's worker, the simulator's runner and the output folders."""
from __future__ import annotations

import os
import signal

_PR_SET_PDEATHSIG = 1     # prctl(2)


def pid_alive(pid: int) -> bool:
    """Whether process ``pid`` exists (a folder named after a dead one is a leftover)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def libc():
    """The C library, for prctl (load it before a fork: a child between fork and exec imports nothing)."""
    import ctypes
    import ctypes.util
    return ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)


def die_with_parent(parent: int, c_library=None) -> None:
    """Ask Linux to SIGKILL this process when its parent dies (PR_SET_PDEATHSIG); exit at once if
    the parent is already gone. Without prctl (not Linux) nothing happens."""
    try:
        (c_library or libc()).prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:
        os._exit(1)


def fork_worker(body) -> tuple[int, int]:
    """Fork a worker that runs ``body(write_fd)`` and exits with the code it returns (1 if it
    raises); returns ``(pid, read_fd)``, the worker's end of the pipe being ``write_fd``.

    The worker leads its own process group, so killing the group ends everything it started
    (compilers, simulator runs) and a kernel's ``kill(0, ...)`` stays inside it; it is killed
    when this process dies, so no worker outlives the command.
    """
    import sys
    sys.stdout.flush()
    sys.stderr.flush()
    read_end, write_end = os.pipe()
    parent = os.getpid()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.close(read_end)
            die_with_parent(parent)
            os.setpgid(0, 0)
            code = body(write_end)
        finally:
            os._exit(code)
    os.close(write_end)
    return pid, read_end
