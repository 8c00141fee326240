"""Replies scored in long-lived worker processes, each reply within a time limit.

A worker is forked from this process (everything already imported) and scores one reply at a
time, so the tasks it has loaded, their references and their eager estimates stay warm for the
next reply of the same task; a reply goes to an idle worker that has seen its task when there is
one. A worker leads its own process group: a reply past its limit, or a worker that dies (an op
file that ends its process), costs that worker only. Its group is killed (compilers and
simulator runs included), the reply is scored at the stage it had reached, and a fresh worker
takes its place. Messages are JSON lines: jobs down one pipe, ``{"stage": ..., "at": ...}`` and
``{"result": {...}}`` up another.
"""
from __future__ import annotations

import json
import os
import selectors
import time
from dataclasses import dataclass, field
from typing import Callable

from ..processes import fork_worker, kill_worker
from .score import RewardResult, RewardSettings, score_reply, scored

DEFAULT_TIME_LIMIT = 300.0


@dataclass
class _Worker:
    pid: int
    messages: int              # the worker's pipe up (read end)
    jobs: int                  # its pipe down (write end)
    seen: set = field(default_factory=set)
    job: int | None = None     # index of the reply it is scoring
    started: float = 0.0
    at: str = "extract"        # the stage the reply has reached
    buffer: bytes = b""


class RewardPool:
    """``workers`` processes scoring replies under ``settings``; ``time_limit`` seconds per reply.
    Use as a context manager, or call :meth:`close`."""

    def __init__(self, settings: RewardSettings | None = None, *, workers: int | None = None,
                 time_limit: float = DEFAULT_TIME_LIMIT):
        self.settings = settings or RewardSettings()
        self.size = max(1, workers if workers is not None else (os.cpu_count() or 1))
        if not time_limit > 0:
            raise ValueError("time_limit must be a positive number of seconds")
        self.time_limit = float(time_limit)
        self._workers: list[_Worker] = []
        _warm_imports()

    def __enter__(self) -> "RewardPool":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        for w in self._workers:
            _end(w)
        self._workers = []

    def score(self, items: list[tuple[str, str]], *, labels: list[str] | None = None,
              on_result: Callable[[int, RewardResult], None] | None = None) -> list[RewardResult]:
        """The results of ``(task path, completion)`` pairs, in their order; ``on_result(i, r)`` as
        each one ends."""
        labels = labels or [str(t) for t, _ in items]
        results: list[RewardResult | None] = [None] * len(items)
        pending = list(range(len(items)))
        while len(self._workers) < min(self.size, max(1, len(items))):
            self._workers.append(_start(self.settings))
        sel = selectors.DefaultSelector()
        for w in self._workers:
            sel.register(w.messages, selectors.EVENT_READ, w)
        try:
            while pending or any(w.job is not None for w in self._workers):
                for w in self._workers:
                    if w.job is None and pending:
                        self._assign(w, pending, items, labels)
                for key, _ in sel.select(timeout=0.2):
                    w = key.data
                    for message in _read(w):
                        if "at" in message:
                            w.at = message["at"]
                        elif "result" in message and w.job is not None:
                            self._finish(w, RewardResult(**message["result"]), results, on_result)
                now = time.monotonic()
                for i, w in enumerate(self._workers):
                    if w.job is None:
                        continue
                    ended = _exited(w)
                    late = now - w.started > self.time_limit
                    if not (ended or late):
                        continue
                    if ended:        # read what it said before it went
                        for message in _read(w):
                            if "result" in message and w.job is not None:
                                self._finish(w, RewardResult(**message["result"]), results, on_result)
                    if w.job is not None:
                        why = (f"cut off at the time limit ({self.time_limit:g} s) while at stage {w.at}" if late
                               else f"the worker ended while at stage {w.at} (the op file or a bug of ours)")
                        status = "timeout" if late else "internal_error"
                        self._finish(w, scored(labels[w.job], w.at, self.settings, error=why, status=status,
                                               wall_s=round(now - w.started, 3)), results, on_result)
                    sel.unregister(w.messages)
                    _end(w)
                    self._workers[i] = _start(self.settings)
                    sel.register(self._workers[i].messages, selectors.EVENT_READ, self._workers[i])
        finally:
            sel.close()
        return results

    def _assign(self, w: _Worker, pending: list[int], items, labels) -> None:
        # a reply of a task this worker has loaded, when there is one: its task stays warm
        pick = next((i for i in pending if str(items[i][0]) in w.seen), pending[0])
        pending.remove(pick)
        task, completion = items[pick]
        w.job, w.started, w.at = pick, time.monotonic(), "extract"
        w.seen.add(str(task))
        os.write(w.jobs, (json.dumps({"task": str(task), "completion": completion, "label": labels[pick]})
                          + "\n").encode())

    @staticmethod
    def _finish(w: _Worker, result: RewardResult, results: list, on_result) -> None:
        index, w.job = w.job, None
        results[index] = result
        if on_result is not None:
            on_result(index, result)


def _warm_imports() -> None:
    """Import what scoring needs before the fork, so no worker pays for it."""
    import importlib
    for module in ("checking", "lower", "task", "eager", "llm.stages", "sim.runner"):
        importlib.import_module(f"ascendcraft.{module}")
    from ..dsl.parser import parse
    parse("kernel warm(x: gm f32[N]) -> (y: gm f32[N]):\n    store(y[0:N], load(x[0:N]))\n")   # builds the grammar


def _start(settings: RewardSettings) -> _Worker:
    down_read, down_write = os.pipe()
    os.set_inheritable(down_write, False)
    pid, up_read = fork_worker(lambda up_write: _serve(down_read, down_write, up_write, settings))
    os.close(down_read)
    os.set_blocking(up_read, False)
    return _Worker(pid, up_read, down_write)


def _serve(down_read: int, down_write: int, up_write: int, settings: RewardSettings) -> int:
    """The worker's body: score each job line until the pool closes its pipe."""
    os.close(down_write)

    def send(message: dict) -> None:
        os.write(up_write, (json.dumps(message, default=str) + "\n").encode())

    with os.fdopen(down_read, "r", encoding="utf-8") as jobs:
        for line in jobs:
            job = json.loads(line)
            r = score_reply(job["task"], job["completion"], settings, send, label=job["label"])
            send({"result": r.to_json()})
    return 0


def _read(w: _Worker) -> list[dict]:
    out = []
    while True:
        try:
            chunk = os.read(w.messages, 1 << 16)
        except BlockingIOError:
            break
        if not chunk:
            break
        w.buffer += chunk
    *lines, w.buffer = w.buffer.split(b"\n")
    for line in lines:
        try:
            out.append(json.loads(line))
        except ValueError:        # a line the op file printed into the pipe: not ours
            continue
    return out


def _exited(w: _Worker) -> bool:
    try:
        pid, _ = os.waitpid(w.pid, os.WNOHANG)
    except ChildProcessError:
        return True
    return pid != 0


def _end(w: _Worker) -> None:
    for fd in (w.jobs, w.messages):
        try:
            os.close(fd)
        except OSError:
            pass
    kill_worker(w.pid)
