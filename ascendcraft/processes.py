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
