"""``ascendcraft bench``: the MultiKernelBench-style table over many tasks.

Python API (the CLI is a thin layer over it)::

    from ascendcraft.bench import run_bench
    b = run_bench(["examples"], kernels="examples", out="kernels_out/bench")   # options=BenchOptions(...)
    b.summary["overall"]["fast_1"], b.files["md"]

The output folder holds ``results.jsonl`` (one record per finished task, appended as each
finishes, which ``resume`` reads back: a task's last record counts, and a task whose record is
an outside fault, bench/faults.py, runs again), ``bench.json``/``bench.md``/``bench.csv``/
``bench.png`` (rewritten whole at the end) and ``tasks/<category>/<op>/`` (each task's own report).
"""
from __future__ import annotations

import json
import os
import shutil
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable

from ..errors import UserError
from .faults import DISK_FULL, disk_full, is_outside
from .job import BenchOptions, run_task
from .metrics import summarise
from .tasks import BenchTask, find_tasks, with_kernels

RESULTS = "results.jsonl"
SETTINGS = "settings.json"
DEFAULT_TIMEOUT_S = 900.0
#: settings that may change between a run and its resume without changing what a record means
# options a resumed run may change: how it runs, not what a task's record means ("handwritten" adds
# a comparison to a record and changes none of it)
_RESUMABLE = ("jobs", "timeout", "resume", "sandbox", "handwritten")


@dataclass
class BenchResult:
    out: Path
    records: list[dict]
    summary: dict
    files: dict
    settings: dict
    ran: int                     # tasks run now (the others came from results.jsonl)
    wall_s: float

    def table(self) -> str:
        from .report import summary_table
        return summary_table(self.summary)


def run_bench(tasks: list[str], *, kernels: str | Path | None = None, out: str | Path = "kernels_out/bench",
              options: BenchOptions = BenchOptions(), jobs: int | None = None,
              timeout: float = DEFAULT_TIMEOUT_S, resume: bool = False, force: bool = False,
              progress=None) -> BenchResult:
    """Run every task (op files, or folders of them) and write the table under ``out``.

    ``kernels``: a folder of DSL kernels to check, lower and run; without it ``options.model``
    writes them. ``progress``: an :class:`ascendcraft.progress.Progress` (a bar on a terminal).
    """
    started = time.perf_counter()
    if kernels is None and not options.model:
        raise UserError("bench needs kernels to run: --kernels DIR (DSL kernels by op name) or --model M "
                        "(a model writes them)", hint="e.g. ascendcraft bench examples --kernels examples")
    if kernels is not None and options.model:
        raise UserError("--kernels and --model are exclusive: bench either given kernels or a model's")
    if kernels is not None and options.optimize:
        raise UserError("--optimize asks a model for faster kernels, and --kernels gives no model",
                        hint="use --model M with --optimize N, or drop --optimize")
    if jobs is not None and jobs < 1:
        raise UserError("--jobs must be at least 1")
    if not timeout > 0:
        raise UserError("--timeout must be a positive number of seconds")
    found = find_tasks(tasks)
    if kernels is not None:
        found = with_kernels(found, kernels)
    settings = {**{k: v for k, v in asdict(options).items() if k not in ("cache", "llm_timeout")},
                "kernels": str(kernels) if kernels is not None else None, "jobs": jobs or os.cpu_count() or 1,
                "timeout": timeout, "tasks": [t.id for t in found], "sandbox": _sandbox_state(options.backend)}
    out = Path(out)
    done = _prepare(out, settings, resume=resume, force=force)
    todo = [t for t in found if t.id not in done]
    (out / "tasks").mkdir(exist_ok=True)
    for t in todo:
        (out / "tasks" / t.category).mkdir(exist_ok=True)
    _warm_imports()

    passing = sum(1 for t in found if done.get(t.id, {}).get("correct"))
    counter = progress.counter(len(todo)) if progress is not None else None

    def finished(record: dict) -> None:
        nonlocal passing
        _append(out / RESULTS, record)
        done[record["task"]] = record
        passing += bool(record.get("correct")) and not is_outside(record)
        if counter is not None:
            counter.advance(_line(record), passing=passing)

    def work(task: BenchTask, send: Callable[[dict], None]) -> dict:
        return run_task(task, options, out / "tasks" / task.category / task.name, send)

    from .pool import run_pool
    try:
        run_pool(todo, work, jobs=settings["jobs"], timeout=timeout, on_done=finished, samples=options.samples)
    finally:
        if counter is not None:
            counter.close()
    records = [done[t.id] for t in found if t.id in done]
    summary = summarise(records, k=options.samples)
    files = _write_reports(out, records, summary, settings)
    return BenchResult(out, records, summary, files, settings, ran=len(todo), wall_s=time.perf_counter() - started)


def _append(results: Path, record: dict) -> None:
    """Add ``record`` to results.jsonl (what resume reads), on disk before the next task's. On a
    full disk the file is cut back to its last whole line and the record becomes an outside fault
    (its task runs again on resume)."""
    line = memoryview((json.dumps(record, default=str) + "\n").encode())
    fd = os.open(results, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
    try:
        end = os.fstat(fd).st_size
        try:
            while line:
                line = line[os.write(fd, line):]
            os.fsync(fd)
        except OSError as err:
            if disk_full(err) is None:
                raise
            os.ftruncate(fd, end)
            reason = f"{DISK_FULL}: cannot add the task's record to {results}: {err.strerror}"
            record["outside"] = record.get("outside") or reason
    finally:
        os.close(fd)


def _write_reports(out: Path, records: list[dict], summary: dict, settings: dict) -> dict:
    from .report import write_reports
    try:
        return write_reports(out, records, summary, settings)
    except OSError as err:
        raise UserError(f"cannot write the bench table in {out}: {err.strerror or err}",
                        hint="free some space (or fix the folder), then rerun with --resume: results.jsonl "
                             "holds every task that finished") from None


def _line(record: dict) -> str:
    if record.get("outside"):
        return f"{record['task']}: not run: {record['outside']} (--resume runs it again)"
    if record.get("correct"):
        s = record.get("speedup")
        what = "correct" + (f", {s:.2f}× eager (modeled)" if s else "")
    elif record["status"] != "done":
        what = f"{record['status']} at {record['samples'][0]['ended_at'] if record.get('samples') else 'load'}"
    else:
        what = f"failed at {record['samples'][-1]['ended_at']}" if record.get("samples") else "failed"
    return f"{record['task']}: {what} ({record.get('wall_s', 0):.1f} s)"


def _sandbox_state(backend: str) -> str | None:
    """How the simulator runs the kernels: "seccomp", or "none (why)"; None on the NPU."""
    if backend != "sim":
        return None
    from ..sim.build import sandbox_support
    ok, why = sandbox_support()
    return "seccomp" if ok else f"none ({why})"


def _prepare(out: Path, settings: dict, *, resume: bool, force: bool) -> dict[str, dict]:
    """Make ``out`` ready and return the records already in it (with ``resume``)."""
    from ..outdir import MARKER, ours
    results = out / RESULTS
    if out.exists() and not ours(out):
        raise UserError(f"{out} exists and was not made by ascendcraft",
                        hint="choose another --out; bench never writes into a folder of your own files")
    if results.exists() and not resume:
        if not force:
            raise UserError(f"{out} holds a bench run already",
                            hint="--resume to continue it, --force to start it again, or another --out")
        for name in (RESULTS, SETTINGS, "bench.json", "bench.md", "bench.csv", "bench.png"):
            (out / name).unlink(missing_ok=True)
        shutil.rmtree(out / "tasks", ignore_errors=True)
    try:
        out.mkdir(parents=True, exist_ok=True)
        (out / MARKER).write_text(json.dumps({"made_by": "ascendcraft", "kind": "bench"}) + "\n")
    except OSError as err:
        raise UserError(f"cannot write the bench folder {out}: {err.strerror}") from None
    done: dict[str, dict] = {}
    if resume and results.exists():
        before = {"precision": "ours", **_read_json(out / SETTINGS)}   # a run from before --precision: ours
        changed = sorted(k for k in set(before) | set(settings)
                         if k not in _RESUMABLE + ("tasks",) and before.get(k) != settings.get(k))
        if changed:
            raise UserError(f"cannot resume {out}: " + ", ".join(f"{k} was {before.get(k)!r}, now {settings.get(k)!r}"
                                                                for k in changed),
                            hint="resume with the first run's options, or --force to start again")
        for line in results.read_text().splitlines():
            try:
                record = json.loads(line)
            except ValueError:        # a line cut short when a run was killed: that task runs again
                continue
            done[record["task"]] = record      # a task's last record counts
        done = {task: r for task, r in done.items() if not is_outside(r)}   # those run again
    (out / SETTINGS).write_text(json.dumps(settings, indent=2) + "\n")
    return done


def _read_json(path: Path) -> dict:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return {}


def _warm_imports() -> None:
    """Import what every task needs once, before the workers fork, so none pays for it."""
    from .. import checking, eager, lower  # noqa: F401
    from ..llm import stages  # noqa: F401
    # torch imports its compiler (about 2 s) the first time a function runs under a torch mode, as
    # the real-size draws of checking do (opfile.SomeReal): once here, not once per task
    try:
        import torch._dynamo  # noqa: F401
    except ImportError:   # a torch without it has nothing to pay for
        pass
