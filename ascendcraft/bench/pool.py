"""Bench tasks in worker processes: at most ``jobs`` at once, each with a wall-clock limit.

Each task runs in a process forked from this one, so it starts with everything already imported
(the warm start the toolchain's speed targets assume) and its op file's code, its kernel's
simulator run or a hang cannot touch the others. The worker runs the task one process further
down (bench/worker.py), so the op file's parent is the worker, not bench: an op file that signals
its parent ends only its own task. The task streams JSON lines through a pipe: ``{"stage": ...}``
while it works, ``{"record": {...}}`` at the end. A worker that ends without a record (it
crashed, its op file ended the process or signalled its parent, a process from outside killed
it) or outlives the limit (its whole process group is killed: compilers and simulator runs
included) is recorded as such, at the stage it had reached, and the others go on. A worker
killed from outside is an outside fault (bench/faults.py): its record says so, and ``--resume``
runs the task again.
"""
from __future__ import annotations

import json
import os
import selectors
import time
from dataclasses import dataclass, field
from typing import Callable

from . import faults
from .tasks import BenchTask
from .worker import run_worker, signal_name


@dataclass
class _Worker:
    task: BenchTask
    pid: int
    fd: int
    started: float
    buffer: bytes = b""
    stage: str = "start"
    at: str = "parse"              # the table's stage the worker has reached (metrics.STAGES)
    record: dict | None = None
    messages: list = field(default_factory=list)
    outside: str | None = None      # the task's crash was an outside fault (a full disk)
    signalled: dict | None = None   # a signal the worker took (bench/worker.py)
    ended: dict | None = None       # how the task process ended, as the worker saw it
    kills: list = field(default_factory=list)    # signals the op file said it was sending


def run_pool(tasks: list[BenchTask], work: Callable[[BenchTask, Callable[[dict], None]], dict], *, jobs: int,
             timeout: float, on_done: Callable[[dict], None], on_stage: Callable[[BenchTask, str], None] | None = None,
             samples: int = 1) -> None:
    """Run ``work(task, send)`` for every task in a worker; ``on_done(record)`` as each finishes."""
    pending = list(tasks)
    running: dict[int, _Worker] = {}
    sel = selectors.DefaultSelector()
    try:
        while pending or running:
            while pending and len(running) < max(1, jobs):
                w = _start(pending.pop(0), work)
                running[w.fd] = w
                sel.register(w.fd, selectors.EVENT_READ)
            for key, _ in sel.select(timeout=0.2):
                w = running[key.fd]
                _read(w, on_stage)
            now = time.monotonic()
            for fd, w in list(running.items()):
                ended = _reaped(w, on_stage)
                if ended is None and now - w.started > timeout:
                    _kill(w)
                    ended = ("timeout", f"cut off after {timeout:g} s at stage {w.stage}", None)
                if ended is None:
                    continue
                sel.unregister(fd)
                os.close(fd)
                del running[fd]
                on_done(w.record if w.record is not None and ended[0] == "done"
                        else _lost(w, *ended, samples=samples, elapsed=now - w.started))
    finally:
        for w in running.values():    # interrupted: no worker outlives the command
            _kill(w)
            os.close(w.fd)
        sel.close()


def _start(task: BenchTask, work) -> _Worker:
    from ..processes import fork_worker
    pid, read_end = fork_worker(lambda write_end: run_worker(write_end, task, work))
    os.set_blocking(read_end, False)
    return _Worker(task, pid, read_end, time.monotonic())


def _read(w: _Worker, on_stage) -> None:
    while True:
        try:
            chunk = os.read(w.fd, 65536)
        except BlockingIOError:
            return
        if not chunk:
            return
        w.buffer += chunk
        *lines, w.buffer = w.buffer.split(b"\n")
        for line in lines:
            try:
                msg = json.loads(line)
            except ValueError:
                continue
            if "stage" in msg:
                w.stage = str(msg["stage"])
                w.at = msg.get("at") or w.at
                if on_stage is not None:
                    on_stage(w.task, w.stage)
            elif "record" in msg:
                w.record = msg["record"]
            elif "crash" in msg:
                w.messages.append(msg["crash"])
                w.outside = msg.get("outside") or w.outside
            elif "signalled" in msg:
                w.signalled = msg["signalled"]
            elif "ended" in msg:
                w.ended = msg["ended"]
            elif "kill" in msg:
                w.kills.append(msg["kill"])


def _reaped(w: _Worker, on_stage=None) -> tuple[str, str, str | None] | None:
    """None while the worker runs; else how it ended (after reading what it wrote before):
    ``(status, message, outside)``, ``outside`` the reason when it was an outside fault."""
    try:
        pid, status = os.waitpid(w.pid, os.WNOHANG)
    except ChildProcessError:
        return ("crashed", "the worker vanished", None)
    if pid == 0:
        return None
    _read(w, on_stage)
    if w.signalled is not None:     # the task was stopped for it, even if its record came first
        return _took_signal(w, w.signalled)
    if w.record is not None:
        return ("done", "", None)
    if os.WIFSIGNALED(status):      # the worker itself: it takes every signal but SIGKILL
        return _killed(w, signal_name(os.WTERMSIG(status)))
    ended = w.ended or {"exit": os.WEXITSTATUS(status)}
    if "signal" in ended:
        return _killed(w, ended["signal"])
    return ("crashed", f"the worker ended with exit status {ended['exit']} at stage {w.stage}{_detail(w)}",
            w.outside)


def _took_signal(w: _Worker, got: dict) -> tuple[str, str, str | None]:
    """The verdict on a signal the worker took instead of dying: the op file's, or from outside."""
    name = got["signal"]
    if got.get("by_task"):
        whom = next((k["whom"] for k in reversed(w.kills) if k["signal"] == name), "its parent process")
        return ("crashed", _sent(name, whom, w.stage), None)
    sender = f"process {got['pid']}" + (f" ({got['name']})" if got.get("name") else "")
    return _outside(w, faults.killed(name, f"from {sender}" if got.get("pid") else "from the system"))


def _killed(w: _Worker, name: str) -> tuple[str, str, str | None]:
    """A worker or task process ended by a signal bench did not send (its own limit is handled
    apart). SIGKILL is an outside fault (the OOM killer, or a user's kill -9) unless the op file
    said it sent it; any other signal that could end it is the task's own doing (a crash)."""
    if name != "SIGKILL":
        return ("crashed", f"the worker killed by signal {name} at stage {w.stage}{_detail(w)}", None)
    own = next((k for k in reversed(w.kills) if k["signal"] == name), None)
    if own is not None:
        return ("crashed", _sent(name, own["whom"], w.stage), None)
    return _outside(w, faults.killed(name, "that bench did not send (the OOM killer, or another process)"))


def _outside(w: _Worker, reason: str) -> tuple[str, str, str]:
    """The verdict on a worker killed from outside: not the task's failure, run again by --resume."""
    return ("crashed", f"the worker was {reason} at stage {w.stage}; --resume runs the task again", reason)


def _sent(name: str, whom: str, stage: str) -> str:
    why = "" if whom == "itself" else " (bench runs op files one process below itself, so only this task stopped)"
    return f"the op file sent signal {name} to {whom} at stage {stage}{why}"


def _detail(w: _Worker) -> str:
    return f": {w.messages[-1]}" if w.messages else ""


def _kill(w: _Worker) -> None:
    from ..processes import kill_worker
    kill_worker(w.pid)


def _lost(w: _Worker, status: str, message: str, outside: str | None = None, *, samples: int,
          elapsed: float) -> dict:
    """The record of a task whose worker gave none: each planned sample ends where the worker was."""
    stage = w.at
    t = w.task
    record = {"task": t.id, "category": t.category, "name": t.name, "op": str(t.op),
              "kernel": str(t.kernel) if t.kernel else None, "status": status, "correct": False,
              "samples": [{"ended_at": stage, "error": message} for _ in range(samples)],
              "error": {"stage": w.stage, "kind": status, "message": message}, "wall_s": round(elapsed, 3)}
    if outside:
        record["outside"] = outside
    return record
