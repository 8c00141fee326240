"""Bench tasks in worker processes: at most ``jobs`` at once, each with a wall-clock limit.

Each task runs in a process forked from this one, so it starts with everything already imported
(the warm start the toolchain's speed targets assume) and its op file's code, its kernel's
simulator run or a hang cannot touch the others. A worker streams JSON lines through a pipe:
``{"stage": ...}`` while it works, ``{"record": {...}}`` at the end. A worker that ends without a
record (it crashed, or its op file ended the process) or outlives the limit (its whole process
group is killed: compilers and simulator runs included) is recorded as such, at the stage it
had reached, and the others go on.
"""
from __future__ import annotations

import json
import os
import selectors
import signal
import time
from dataclasses import dataclass, field
from typing import Callable

from .tasks import BenchTask


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
                    ended = ("timeout", f"cut off after {timeout:g} s at stage {w.stage}")
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
    def worker(write_end: int) -> int:
        signal.signal(signal.SIGINT, signal.SIG_DFL)

        def send(message: dict) -> None:
            os.write(write_end, (json.dumps(message, default=str) + "\n").encode())
        try:
            send({"record": work(task, send)})
            return 0
        except BaseException as err:   # noqa: BLE001 - reported as the task's crash, never raised here
            try:
                send({"crash": f"{type(err).__name__}: {err}"})
            except OSError:
                pass
            return 1
    from ..processes import fork_worker
    pid, read_end = fork_worker(worker)
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


def _reaped(w: _Worker, on_stage=None) -> tuple[str, str] | None:
    """None while the worker runs; else how it ended (after reading what it wrote before)."""
    try:
        pid, status = os.waitpid(w.pid, os.WNOHANG)
    except ChildProcessError:
        return ("crashed", "the worker vanished")
    if pid == 0:
        return None
    _read(w, on_stage)
    if w.record is not None:
        return ("done", "")
    if os.WIFSIGNALED(status):
        how = f"killed by signal {signal.Signals(os.WTERMSIG(status)).name}"
    else:
        how = f"ended with exit status {os.WEXITSTATUS(status)}"
    detail = f": {w.messages[-1]}" if w.messages else ""
    return ("crashed", f"the worker {how} at stage {w.stage}{detail}")


def _kill(w: _Worker) -> None:
    for target in (lambda: os.killpg(w.pid, signal.SIGKILL), lambda: os.kill(w.pid, signal.SIGKILL)):
        try:
            target()
        except (ProcessLookupError, PermissionError):
            pass
    try:
        os.waitpid(w.pid, 0)
    except ChildProcessError:
        pass


def _lost(w: _Worker, status: str, message: str, *, samples: int, elapsed: float) -> dict:
    """The record of a task whose worker gave none: each planned sample ends where the worker was."""
    stage = w.at
    t = w.task
    return {"task": t.id, "category": t.category, "name": t.name, "op": str(t.op),
            "kernel": str(t.kernel) if t.kernel else None, "status": status, "correct": False,
            "samples": [{"ended_at": stage, "error": message} for _ in range(samples)],
            "error": {"stage": w.stage, "kind": status, "message": message}, "wall_s": round(elapsed, 3)}
