"""A bench worker: the process the pool forks for one task. It runs the task in a child of its own,
the task process, and watches it.

An op file is untrusted code, and the ready way for it to end a run is to signal its parent
(``os.kill(os.getppid(), ...)``). Its parent is this worker, never bench. The worker blocks every
signal it can and reads them with ``sigtimedwait``, which names the sender: a signal from the
task's own processes is the op file's doing, one from elsewhere an outside fault; either way the
task is stopped and the pool told. SIGKILL cannot be blocked: it ends the worker (and, through
PR_SET_PDEATHSIG, the task process), and nothing names its sender. So the task process tells the
pool, just before the call, of a SIGKILL the op file sends through ``os.kill``/``os.killpg``/
``signal.pthread_kill`` to its parent, its group or itself (an audit hook); a SIGKILL without
such a word is taken as from outside (the OOM killer, a user's ``kill -9``).

Messages to the pool, one JSON line each on the task's pipe, besides the task's own ``stage``,
``record`` and ``crash``: ``{"kill": {...}}`` (the op file is signalling its parent, its group
or, with SIGKILL, itself), then from the worker ``{"signalled": {...}}`` (a signal reached it)
or ``{"ended": {"exit": n} | {"signal": name}}`` (how the task process ended).
"""
from __future__ import annotations

import json
import os
import signal
import sys
from typing import Callable

from .faults import disk_full

#: signals whose default action does not end a process: the worker lets them pass
_HARMLESS = {signal.SIGCHLD, signal.SIGCONT, signal.SIGURG, signal.SIGWINCH}
#: every signal the worker takes itself rather than die of
_TAKEN = set(signal.valid_signals()) - {signal.SIGKILL, signal.SIGSTOP}
_POLL_S = 0.5          # the task process is also polled, should its SIGCHLD be lost


def run_worker(write_end: int, task, work: Callable) -> int:
    """The worker's body (``processes.fork_worker``): run ``work(task, send)`` in a task process,
    then report how that ended."""
    sys.stdout.flush()
    sys.stderr.flush()
    before = signal.pthread_sigmask(signal.SIG_BLOCK, _TAKEN)   # before the fork: no signal is missed
    worker = os.getpid()
    child = os.fork()
    if child == 0:
        _task_process(write_end, task, work, worker, before)
    # after a newline: a line the task process was writing when it was stopped is ended first
    _sender(write_end, fresh_line=True)(_watch(child))
    return 0


def _sender(write_end: int, *, fresh_line: bool = False) -> Callable[[dict], None]:
    start = "\n" if fresh_line else ""

    def send(message: dict) -> None:
        os.write(write_end, (start + json.dumps(message, default=str) + "\n").encode())
    return send


def _task_process(write_end: int, task, work, worker: int, mask) -> None:
    """Run the task and leave (never returns): its record, or what stopped it, goes to the pipe."""
    code = 1
    try:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        from ..processes import die_with_parent
        die_with_parent(worker)
        send = _sender(write_end)
        _announce_kills(send)
        try:
            send({"record": work(task, send)})
            code = 0
        except BaseException as err:   # noqa: BLE001 - reported as the task's crash, never raised here
            try:
                send({"crash": f"{type(err).__name__}: {err}", "outside": disk_full(err)})
            except OSError:
                pass
    finally:
        os._exit(code)


def _announce_kills(send) -> None:
    """Tell the pool, before it happens, of a signal the op file sends its parent or its own
    group, and of a SIGKILL it sends itself: the worker cannot learn who sent a SIGKILL."""
    me, parent, group = os.getpid(), os.getppid(), os.getpgrp()

    def whom(event: str, target: int) -> str | None:
        if event == "signal.pthread_kill":
            return "itself"
        if event == "os.killpg" or target <= 0:
            return "its process group (bench's worker and the task)" if abs(target) in (0, group) else None
        return {parent: "its parent process", me: "itself"}.get(target)

    def hook(event: str, args) -> None:
        if event not in ("os.kill", "os.killpg", "signal.pthread_kill"):
            return
        try:
            target, signum = int(args[0]), int(args[1])
            aimed = whom(event, target)
            if aimed is None or (aimed == "itself" and signum != signal.SIGKILL):
                return
            send({"kill": {"signal": signal_name(signum), "whom": aimed}})
        except (OSError, ValueError, TypeError):     # a hook that raises would stop the call
            pass
    sys.addaudithook(hook)


def _watch(child: int) -> dict:
    """Wait for the task process to end, or for a signal that would have ended this worker."""
    while True:
        info = signal.sigtimedwait(_TAKEN, _POLL_S)
        if info is not None and info.si_signo not in _HARMLESS:
            return _signalled(info, child)
        pid, status = os.waitpid(child, os.WNOHANG)
        if pid:
            if os.WIFSIGNALED(status):
                return {"ended": {"signal": signal_name(os.WTERMSIG(status))}}
            return {"ended": {"exit": os.WEXITSTATUS(status)}}


def _signalled(info, child: int) -> dict:
    """The signal and who sent it (the task's own processes, or which other); the task is stopped."""
    sender = info.si_pid
    ours = sender == child or _in_group(sender)
    name = _process_name(sender)
    _stop(child)
    return {"signalled": {"signal": signal_name(info.si_signo), "by_task": ours, "pid": sender, "name": name}}


def _in_group(pid: int) -> bool:
    """Whether ``pid`` is one of the task's processes (they share this worker's process group)."""
    try:
        return pid > 0 and os.getpgid(pid) == os.getpgrp()
    except OSError:                 # gone already: bench cannot tell whose it was
        return False


def _stop(child: int) -> None:
    try:
        os.kill(child, signal.SIGKILL)
        os.waitpid(child, 0)
    except (ProcessLookupError, ChildProcessError):
        pass


def _process_name(pid: int) -> str | None:
    try:
        with open(f"/proc/{pid}/comm") as f:
            return f.read().strip() or None
    except OSError:
        return None


def signal_name(signum: int) -> str:
    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"
