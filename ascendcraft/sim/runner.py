"""Run AscendC kernels built against the simulator headers (``sim/build.py``) in a child process.

``run_kernel`` writes the GM arrays, scalars and
tiling values to a job directory, runs the executable with a time and memory limit, and
reads back the outputs, the diagnostics and the per-core cost timeline. ``start_kernel`` starts
a run and returns at once; a :class:`RunQueue` keeps several going. The parts: the job folder and
what goes into it (``sim/job.py``), the kernel's process (``sim/launch.py``), reading the report
back (``sim/collect.py``) into a :class:`~ascendcraft.sim.result.SimResult` (``sim/result.py``).
"""
from __future__ import annotations

import os
import secrets
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..chips import load_chip
from ..errors import UserError
from .build import KernelArtifact
from .collect import collect
from .cost import chip_config
from .job import (BF16_NAMES, JOB_PREFIX, output_params, read_head, reap_dead_jobs, run_root, tiling_lines, to_bf16_bits,
                  trace_limit_for)
from .launch import kill_session, popen_kernel
from .result import SimResult


@dataclass(frozen=True)
class GmSpec:
    """A GM argument given by shape and dtype only (for cost-only runs: nothing is allocated)."""

    shape: tuple[int, ...]
    dtype: Any

    @property
    def nbytes(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64)) * np.dtype(self.dtype).itemsize


def gm(shape, dtype) -> GmSpec:
    return GmSpec(tuple(int(s) for s in (shape if isinstance(shape, (tuple, list)) else (shape,))), np.dtype(dtype))


def run_kernel(art: KernelArtifact, args: list, *, tiling: dict | bytes | None = None, block_dim: int,
               cost_only: bool = False, timeout_s: float = 60, memory_limit_mb: int = 4096,
               chip: str | None = None, lenient: bool | None = None, workspace_bytes: int = 0,
               tiling_key: int = 0, dtypes: dict | None = None, outputs=None,
               auto_sync: bool = True, trace: int | bool = False, scratch=()) -> SimResult:
    """Run a built kernel on ``block_dim`` blocks.

    ``args`` follow the kernel's parameter order: NumPy arrays (or :func:`gm` specs in
    cost-only mode) for GM pointers, ``None`` for a null GM pointer (an absent optional input
    of a CANN op), Python numbers for scalars.  ``workspace``/``tiling``
    parameters of custom-operator kernels are filled by the runner; pass ``None`` for them
    or leave them out.

    ``tiling`` is a dict of the tiling struct's fields (nested dicts for structs, lists for
    arrays), or the raw bytes a host TilingFunc saved (``bytes``, zero-padded to the struct;
    ``sim/host_op.py``).  ``dtypes`` maps a parameter name or index to ``"bfloat16"`` for
    GM_ADDR parameters that hold bf16 data (given as float32 arrays of bf16-exact values).

    ``outputs`` names the GM arguments that are the kernel's outputs: kernel parameter names,
    or ints indexing ``args`` as passed. For each of them the run records which bytes every
    block writes in every parallel phase (phases are separated by ``SyncAll``), in cost-only
    runs too, and reports as errors an output range no block writes (rule
    ``output-unwritten``) and bytes two blocks write in one phase outside ``SetAtomicAdd``
    mode (rule ``output-race``). ``None`` (the default) checks nothing.

    ``auto_sync`` says how the kernel would be compiled: with ``--cce-auto-sync=on`` (the
    toolchain's default, True) the compiler orders scalar-unit accesses (``GetValue``,
    ``SetValue``) against the other pipes; with False the kernel must do it with flags, and a
    missing one is a ``missing-sync`` error like any other cross-pipe race.

    ``scratch`` names the scratch tensors in the user workspace: ``(name, byte offset, bytes, element
    bytes)`` each (``codegen.tiling.scratch_layout``). With it, every access to the user workspace is
    recorded, in cost-only runs too, and reported as errors: bytes two blocks write in one phase
    outside atomic-add mode and bytes a block reads while another writes them in the same phase
    (rule ``scratch-race``), and bytes a block reads before any block wrote them, itself earlier or
    another in an earlier phase (rule ``scratch-unwritten``). Empty (the default) checks nothing.

    ``trace`` records the timeline: ``True`` keeps up to
    :data:`~ascendcraft.sim.timeline.DEFAULT_TRACE_LIMIT` records per block, an int that many;
    ``res.timeline`` then holds every block's instructions per pipe (docs/simulator.md, "Timeline").
    """
    return start_kernel(art, args, tiling=tiling, block_dim=block_dim, cost_only=cost_only, timeout_s=timeout_s,
                        memory_limit_mb=memory_limit_mb, chip=chip, lenient=lenient, workspace_bytes=workspace_bytes,
                        tiling_key=tiling_key, dtypes=dtypes, outputs=outputs, auto_sync=auto_sync,
                        trace=trace, scratch=scratch).wait()


def start_kernel(art: KernelArtifact, args: list, *, tiling: dict | bytes | None = None, block_dim: int,
                 cost_only: bool = False, timeout_s: float = 60, memory_limit_mb: int = 4096,
                 chip: str | None = None, lenient: bool | None = None, workspace_bytes: int = 0,
                 tiling_key: int = 0, dtypes: dict | None = None, outputs=None,
                 auto_sync: bool = True, trace: int | bool = False, scratch=()) -> "KernelRun":
    """The first half of :func:`run_kernel` (same arguments): checks them, writes the job and starts
    the kernel's process, and returns at once; ``.wait()`` gives the :class:`SimResult`. Several
    runs can go at once (:class:`RunQueue`); the time limit counts from the start."""
    chip_obj = load_chip(chip or art.chip)
    if block_dim < 1 or block_dim > 65535:
        raise UserError(f"block_dim={block_dim} must be in [1, 65535]")
    params = art.params
    filled = [p for p in params if p.kind in ("workspace", "tiling")]
    if len(args) == len(params):
        values = list(args)
    elif len(args) == len(params) - len(filled):
        it = iter(args)
        values = [None if p.kind in ("workspace", "tiling") else next(it) for p in params]
    else:
        names = ", ".join(f"{p.name}:{p.kind}" for p in params)
        raise UserError(f"{art.kernel_name} takes {len(params)} parameters ({names}); got {len(args)} arguments")
    raw_tiling = bytes(tiling) if isinstance(tiling, (bytes, bytearray, memoryview)) else None
    if raw_tiling is not None and not any(p.kind == "tiling" for p in params):
        raise UserError(f"tiling bytes given but {art.kernel_name} has no tiling parameter")
    if tiling is not None and raw_tiling is None and art.tiling_struct is None:
        raise UserError("tiling values given but the kernel was built without a tiling header")
    bf16_params = set()
    for k, v in (dtypes or {}).items():
        if str(v) in BF16_NAMES:
            bf16_params.add(k)
    for i, p in enumerate(params):
        et = p.elem_type
        if et and any(n == et for n in BF16_NAMES):
            bf16_params.add(i)

    out_params = output_params(art, args, values, outputs)

    root = run_root()
    reap_dead_jobs(root)
    run_dir = Path(tempfile.mkdtemp(prefix=f"{JOB_PREFIX}{os.getpid()}.", dir=root))
    try:
        job = []
        cfg = chip_config(chip_obj)
        cfg.update(cost_only=int(cost_only), lenient=int(art.lenient if lenient is None else lenient),
                   block_dim=block_dim, tiling_key=tiling_key, auto_sync=int(auto_sync))
        job += [f"cfg {k} {v}" for k, v in cfg.items()]
        trace_limit = trace_limit_for(trace)
        if trace_limit:
            job.append(f"cfg trace_limit {trace_limit}")
        report = run_dir / "report.tsv"
        job.append(f"report {report}")
        token = secrets.token_hex(16)
        job.append(f"token {token}")
        job.append(f"timeout {max(1, int(timeout_s + 0.999))}")
        out_specs: list[tuple[int, Path, np.dtype, tuple, bool] | None] = []
        for i, (p, v) in enumerate(zip(params, values)):
            if p.kind == "workspace":
                job.append(f"workspace {i} {int(workspace_bytes)}")
                job += [f"scratch {int(off)} {int(n)} {int(elem)} {name}" for name, off, n, elem in scratch]
                out_specs.append(None)
            elif p.kind == "tiling":
                job.append(f"tiling {i}")
                out_specs.append(None)
            elif p.kind == "scalar":
                if not isinstance(v, (int, float, np.integer, np.floating, bool)):
                    raise UserError(f"parameter {p.name} ({p.ctype}) is a scalar; got {type(v).__name__}")
                job.append(f"scalar {i} {'f' if p.is_float else 'i'} {repr(float(v)) if p.is_float else int(v)}")
                out_specs.append(None)
            elif v is None:        # an absent optional input of a CANN op: the kernel gets nullptr
                out_specs.append(None)
            else:      # a tensor, or a tensor list (a CANN op's DYNAMIC parameter: a ListTensorDesc block)
                is_bf16 = i in bf16_params or p.name in bf16_params
                tensors = list(v) if isinstance(v, (list, tuple)) else None
                if tensors == []:
                    raise UserError(f"parameter {p.name}: a tensor list needs at least one tensor")
                if i in out_params:
                    job.append(f"output {i} {2 if is_bf16 else _itemsize(tensors[0] if tensors else v)}")
                if tensors is None:
                    line, spec = _gm_line(v, p, i, None, is_bf16, cost_only, run_dir)
                    job.append(f"gm {i} {line}")
                    out_specs.append(spec)
                    continue
                specs = []
                for j, t in enumerate(tensors):
                    line, spec = _gm_line(t, p, i, j, is_bf16, cost_only, run_dir)
                    job.append(f"elem {i} {line} {len(t.shape)} " + " ".join(str(int(d)) for d in t.shape))
                    specs.append(spec)
                out_specs.append(None if cost_only else specs)
        if raw_tiling is not None:
            (run_dir / "tiling.bin").write_bytes(raw_tiling)
            job.append(f"tiling_raw {run_dir / 'tiling.bin'}")
        else:
            for k, val in (tiling or {}).items():
                job += tiling_lines(k, val)
        file_limit = _file_limit(values, block_dim, trace_limit)
        (run_dir / "job.txt").write_text("\n".join(job) + "\n")
        try:
            # the log goes to a file, not a pipe: a run may go on while the caller does other work
            with open(run_dir / "log.txt", "wb") as log:
                proc = popen_kernel(art.exe, run_dir / "job.txt", run_dir, log, memory_limit_mb, file_limit)
        except OSError as e:
            raise UserError(f"cannot run the simulator executable: {e}") from e
        return KernelRun(proc, time.monotonic() + WALL_FACTOR * timeout_s + 5, run_dir,
                         (art, report, out_specs, values, chip_obj, block_dim, cost_only, token), trace_limit,
                         file_limit)
    except BaseException:
        shutil.rmtree(run_dir, ignore_errors=True)
        raise


#: what a run may write into any one file (RLIMIT_FSIZE) beyond its largest GM argument and its
#: trace: the log of what the kernel prints, and the report
FILE_SLACK = 64 << 20
#: how much of the kernel's printed output a result keeps (``res.log``)
LOG_LIMIT = 1 << 20


def _itemsize(v) -> int:
    return v.dtype.itemsize if isinstance(v, (GmSpec, np.ndarray)) else 1


def _gm_line(v, p, i: int, j: int | None, is_bf16: bool, cost_only: bool, run_dir: Path):
    """``<name> <bytes> <in> <out>`` of parameter ``p``'s tensor (``i``: its index; element ``j`` of its
    tensor list), and its output spec (None when nothing is read back)."""
    name = p.name if j is None else f"{p.name}[{j}]"
    if isinstance(v, GmSpec):
        if not cost_only:
            raise UserError(f"parameter {name}: a gm() shape spec needs cost_only=True; pass an array")
        return f"{name} {v.nbytes // 2 if (is_bf16 and v.dtype == np.float32) else v.nbytes} - -", None
    if not isinstance(v, np.ndarray):
        raise UserError(f"parameter {name} ({p.ctype}) is a GM pointer; pass a NumPy array (or a list of them "
                        f"for a tensor list)")
    if cost_only:
        return f"{name} {v.size * 2 if is_bf16 else v.nbytes} - -", None
    raw = to_bf16_bits(v) if is_bf16 else np.ascontiguousarray(v).view(np.uint8) if v.dtype == np.bool_ \
        else np.ascontiguousarray(v)
    suffix = "" if j is None else f"_{j}"
    fin, fout = run_dir / f"in{i}{suffix}.bin", run_dir / f"out{i}{suffix}.bin"
    raw.tofile(fin)
    return f"{name} {raw.nbytes} {fin} {fout}", (i, fout, raw.dtype, v.shape, is_bf16)


def _file_limit(values: list, block_dim: int, trace_limit: int) -> int:
    """The largest file a run may write: an output file holds one GM argument, the trace 32 bytes
    per record and block; beyond that a kernel's printing is cut (the harness ignores SIGXFSZ)."""
    tensors = [t for v in values for t in (v if isinstance(v, (list, tuple)) else [v])]
    largest = max((v.nbytes for v in tensors if isinstance(v, (np.ndarray, GmSpec))), default=0)
    return FILE_SLACK + max(largest, 32 * trace_limit * block_dim)


def _read_log(path: Path, file_limit: int) -> str:
    """The first :data:`LOG_LIMIT` bytes of what the kernel printed, saying what was cut."""
    text, cut, size = read_head(path, LOG_LIMIT)
    if cut:
        text += (f"\n[{cut:,} more bytes of the kernel's output are not shown: a result keeps the first "
                 f"{LOG_LIMIT >> 20} MiB]")
    if size >= file_limit:
        text += f"\n[the kernel printed more than {file_limit:,} bytes: the rest was dropped]"
    return text


#: ``timeout_s`` limits a run's CPU time (the harness's RLIMIT_CPU, so a verdict does not depend on
#: the machine's load); a run still going after this many times it in wall time (blocked, or
#: starved past any likely load) is killed from here.
WALL_FACTOR = 4


class KernelRun:
    """A kernel process :func:`start_kernel` started: ``wait()`` for its result, or ``kill()`` it."""

    def __init__(self, proc, deadline: float, run_dir: Path, collect_args: tuple, trace_limit: int, file_limit: int):
        self.proc, self.deadline, self.run_dir = proc, deadline, run_dir
        self._collect_args, self._trace_limit, self._file_limit = collect_args, trace_limit, file_limit
        self._result: SimResult | None = None

    def wait(self) -> SimResult:
        """The result: waits for the process (killed past its time limit), reads its report and
        outputs, and removes its job directory."""
        if self._result is not None:
            return self._result
        try:
            timed_out = False
            try:
                self.proc.wait(timeout=max(0.0, self.deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                timed_out = True
                kill_session(self.proc)
            log = _read_log(self.run_dir / "log.txt", self._file_limit)
            art, report, out_specs, values, chip_obj, block_dim, cost_only, token = self._collect_args
            res = collect(art, report, self.proc.returncode, log, timed_out, out_specs, values, chip_obj, block_dim,
                          cost_only, token)
            if self._trace_limit:
                from .timeline import read_trace
                res.timeline = read_trace(self.run_dir, res.cost, chip_obj, self._trace_limit)
            self._result = res
            return res
        finally:
            shutil.rmtree(self.run_dir, ignore_errors=True)

    def kill(self) -> None:
        """Stop the run if it is still going (its result is not wanted) and remove its job directory."""
        if self._result is None and self.proc.returncode is None:
            kill_session(self.proc)
        shutil.rmtree(self.run_dir, ignore_errors=True)


def parallel_runs() -> int:
    """Kernel processes a :class:`RunQueue` keeps going at once: one per CPU this process may use
    (a run is one busy thread), at most 4."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    return max(1, min(4, cpus))


class RunQueue:
    """Independent simulator runs, started in the order they are added with at most ``parallel``
    going at once, and each result taken when the caller asks for it (in the order added): the
    caller judges one result while the next runs go on. Everything happens in the caller's
    thread (the processes are started from it, so no fork races a thread of this process).

    ``add(start)`` takes a function returning :func:`start_kernel`'s run; an exception it raises is
    raised by ``result()`` of that run, where one run after the other would have raised it. Leaving
    the ``with`` block kills the runs whose result was not taken."""

    def __init__(self, parallel: int | None = None):
        self.parallel = parallel or parallel_runs()
        self._starts: list = []
        self._runs: dict[int, object] = {}      # started, result not taken: KernelRun, or the exception
        self._next = 0

    def add(self, start) -> int:
        self._starts.append(start)
        self._fill()
        return len(self._starts) - 1

    def result(self, i: int) -> SimResult:
        while self._next <= i:
            self._start_next()
        run = self._runs.pop(i)
        if isinstance(run, BaseException):
            self._fill()
            raise run
        res = run.wait()
        self._fill()        # the next runs start before the caller judges this one
        return res

    def poll(self) -> None:
        """Start queued runs in the slots of runs that have ended (call it now and then while the
        results are not needed yet: nothing starts a run but the caller's thread)."""
        self._fill()

    def _start_next(self) -> None:
        i = self._next
        self._next += 1
        try:
            self._runs[i] = self._starts[i]()
        except Exception as err:   # noqa: BLE001 - raised by result(i)
            self._runs[i] = err

    def _fill(self) -> None:
        while self._next < len(self._starts) and \
                sum(isinstance(r, KernelRun) and r.proc.poll() is None for r in self._runs.values()) < self.parallel:
            self._start_next()

    def __enter__(self) -> "RunQueue":
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        runs, self._runs = self._runs, {}
        for run in runs.values():
            if isinstance(run, KernelRun):
                run.kill()
