"""Process facts shared by the command's worker, the simulator's runner and the output folders."""
from __future__ import annotations

import functools
import os
import signal

_PR_SET_PDEATHSIG = 1            # prctl(2)
_PR_SET_CHILD_SUBREAPER = 36
#: The command worker's pipe to the command (``fd``), usable only in that worker (``pid``): a
#: forked grandchild inherits the descriptor but must not write to it.
_CHANNEL = {"fd": None, "pid": None}


def pid_alive(pid: int) -> bool:
    """Whether process ``pid`` exists (a folder named after a dead one is a leftover)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@functools.lru_cache(maxsize=1)
def libc():
    """The C library, for prctl (load it before a fork: a child of a process with threads must not
    look it up, which imports and runs ldconfig, and can wait forever on a lock held at the fork)."""
    import ctypes
    import ctypes.util
    return ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)


def die_with_parent(parent: int, c_library=None, signum: int = signal.SIGKILL) -> None:
    """Ask Linux to send ``signum`` (SIGKILL) to this process when its parent dies
    (PR_SET_PDEATHSIG); exit at once if the parent is already gone. Without prctl (not Linux)
    nothing happens."""
    try:
        (c_library or libc()).prctl(_PR_SET_PDEATHSIG, int(signum), 0, 0, 0)
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:
        os._exit(1)


def adopt_orphans(c_library=None) -> None:
    """Become the reaper of this process's orphaned descendants (PR_SET_CHILD_SUBREAPER): a
    compiler's own children, left when the compiler is killed, become this process's children,
    so :func:`end_descendants` can find them. Nothing happens where prctl cannot."""
    try:
        (c_library or libc()).prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def _children(pid: int) -> list[int]:
    found = []
    try:
        entries = os.listdir("/proc")
    except OSError:
        return found
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                fields = f.read().rpartition(b")")[2].split()      # after "pid (comm)": state, ppid, ...
        except OSError:
            continue
        if len(fields) > 1 and int(fields[1]) == pid:
            found.append(int(entry))
    return found


def end_descendants() -> None:
    """SIGKILL and reap every process still descending from this one (a compiler, a simulator
    run, a worker's orphan), so nothing outlives the process that started it. Linux only (/proc)."""
    me = os.getpid()
    for _ in range(100):                   # orphans of each killed round reparent here (adopt_orphans)
        children = _children(me)
        if not children:
            return
        for child in children:
            try:
                os.kill(child, signal.SIGKILL)
            except ProcessLookupError:
                pass
        for child in children:
            try:
                os.waitpid(child, 0)
            except ChildProcessError:
                pass


def tell_parent(kind: str, value) -> None:
    """One line (``kind`` and ``value`` as JSON) to the command from its worker; nothing elsewhere
    (a library call, a test calling ``main``, a bench task's own worker)."""
    if _CHANNEL["pid"] != os.getpid():
        return
    import json
    try:
        os.write(_CHANNEL["fd"], f"{kind} {json.dumps(value)}\n".encode())
    except OSError:                        # the command is gone: its worker is about to be stopped
        pass


def fork_worker(body, *, parent_death: int = signal.SIGKILL, channel: bool = False) -> tuple[int, int]:
    """Fork a worker that runs ``body(write_fd)`` and exits with the code it returns (1 if it
    raises); returns ``(pid, read_fd)``, the worker's end of the pipe being ``write_fd`` (with
    ``channel``, also :func:`tell_parent`'s).

    The worker leads its own process group, so killing the group ends everything it started
    (compilers, simulator runs) and a kernel's ``kill(0, ...)`` stays inside it. It gets
    ``parent_death`` when this process dies (SIGKILL; the command's worker gets SIGINT, so it
    cleans up as after Ctrl-C), and ends its own descendants before it exits, so no process
    outlives it.
    """
    import sys
    sys.stdout.flush()
    sys.stderr.flush()
    read_end, write_end = os.pipe()
    parent, c_library = os.getpid(), libc()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.close(read_end)
            die_with_parent(parent, c_library, signum=parent_death)
            os.setpgid(0, 0)
            adopt_orphans(c_library)
            if "torch" in sys.modules:     # OpenMP's pool does not survive a fork: a parallel op would wait forever
                sys.modules["torch"].set_num_threads(1)
            if channel:
                _CHANNEL.update(fd=write_end, pid=os.getpid())
            code = body(write_end)
        finally:
            try:     # the work is over: a late Ctrl-C must not stop the ending of what it started
                signal.signal(signal.SIGINT, signal.SIG_IGN)
                end_descendants()
            finally:
                os._exit(code)
    os.close(write_end)
    return pid, read_end


def kill_worker(pid: int) -> None:
    """SIGKILL a worker of :func:`fork_worker` and its whole process group (compilers, simulator
    runs), then reap it; a worker already gone is no error."""
    for target in (lambda: os.killpg(pid, signal.SIGKILL), lambda: os.kill(pid, signal.SIGKILL)):
        try:
            target()
        except (ProcessLookupError, PermissionError):
            pass
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass
