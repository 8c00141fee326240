"""Run AscendC kernels built against the simulator headers (``sim/build.py``) in a child process.

``run_kernel`` writes the GM arrays, scalars and
tiling values to a job directory, runs the executable with a time and memory limit, and
reads back the outputs, the diagnostics and the per-core cost timeline.
"""
from __future__ import annotations

import hashlib
import os
import re
import resource
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..chips import load_chip
from .. import processes
from ..errors import UserError
from ..processes import die_with_parent, pid_alive
from .cost import CoreCost, CostReport, PIPES, aggregate, chip_config

from .build import KernelArtifact, cache_dir, sandbox_support


@dataclass(frozen=True)
class Diagnostic:
    severity: str  # "error" | "warning"
    rule: str
    api: str
    message: str
    line: int | None
    file: str | None = None
    block: int | None = None

    def __str__(self) -> str:
        where = f"{self.file or 'kernel'}:{self.line}: " if self.line else ""
        core = f" [block {self.block}]" if self.block is not None and self.block >= 0 else ""
        api = "" if self.message.startswith(self.api) else f"{self.api}: "
        return f"{where}{self.severity}: [{self.rule}] {api}{self.message}{core}"


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


@dataclass
class SimResult:
    ok: bool
    outputs: list[Any]
    diagnostics: list[Diagnostic]
    cost: CostReport | None
    crash: str | None
    returncode: int
    log: str = ""
    tiling_layout: list[dict] = field(default_factory=list)
    #: whether the kernel ran inside the seccomp sandbox; when False, ``sandbox_note`` says why
    sandboxed: bool = False
    sandbox_note: str = ""
    #: the forbidden system call the kernel made (``"execve"``, ...), or None
    violation: str | None = None
    #: with ``run_kernel(trace=...)``: the per-block pipe timeline (:class:`ascendcraft.sim.timeline.Timeline`)
    timeline: Any = None

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "error"]

    @property
    def warnings(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "warning"]

    def report(self) -> str:
        lines = [str(d) for d in self.diagnostics]
        if self.crash:
            lines.append(f"crash: {self.crash}")
        if self.cost:
            lines.append(self.cost.summary())
        if not self.sandboxed:
            lines.append(f"not sandboxed: {self.sandbox_note or 'the kernel ran without the seccomp sandbox'}")
        return "\n".join(lines) if lines else "ok"



# ----------------------------------------------------------------------------- run
_BF16_NAMES = ("bfloat16", "bf16", "bfloat16_t")


def _to_bf16_bits(a: np.ndarray) -> np.ndarray:
    x = np.ascontiguousarray(a, dtype=np.float32).view(np.uint32)
    rounded = ((x + 0x7FFF + ((x >> 16) & 1)) >> 16).astype(np.uint16)
    nan = np.isnan(a.astype(np.float32))
    rounded[nan] = 0x7FC0
    return rounded


def _from_bf16_bits(b: np.ndarray) -> np.ndarray:
    return (b.astype(np.uint32) << 16).view(np.float32)


_LIBC = None


def _libc():
    global _LIBC
    if _LIBC is None:
        _LIBC = processes.libc()
    return _LIBC


def _preexec(memory_limit_mb: int):
    """Runs in the child between fork and exec: its own session and process group (a kernel's
    kill(0, ...) reaches only itself), death with the calling thread (PR_SET_PDEATHSIG), limits."""
    libc = _libc()  # loaded before the fork: nothing is imported in the child
    parent = os.getpid()

    def fn():
        os.setsid()
        die_with_parent(parent, libc)
        limit = int(memory_limit_mb) * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    return fn


# What _preexec does, as a program that then executes the kernel: a child that runs no Python code
# between fork and exec lets subprocess use vfork, which does not copy this (large) process's page
# tables: a start costs a few ms instead of some 20 to 50 (a lowering starts ten runs).
_LAUNCHER_SOURCE = r"""#include <stdlib.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>
/* asc-sim-launch <parent pid> <RLIMIT_AS bytes> <program> [args...] */
int main(int argc, char** argv) {
    if (argc < 4) return 127;
    prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    if (getppid() != (pid_t)strtol(argv[1], 0, 10)) _exit(1);
    struct rlimit as, core = {0, 0};
    as.rlim_cur = as.rlim_max = (rlim_t)strtoull(argv[2], 0, 10);
    if (setrlimit(RLIMIT_AS, &as) != 0 || setrlimit(RLIMIT_CORE, &core) != 0) return 126;
    execv(argv[3], argv + 3);
    return 127;
}
"""
_LAUNCHER: Path | None | bool = False       # False: not looked for yet; None: not available
_LAUNCHER_LOCK = threading.Lock()


def _launcher_program() -> Path | None:
    """The launcher, built once per compiler (cached beside the kernels), or None."""
    global _LAUNCHER
    with _LAUNCHER_LOCK:
        if _LAUNCHER is None or (_LAUNCHER is not False and _LAUNCHER.exists()):
            return _LAUNCHER
        _LAUNCHER = None        # not looked for yet, or removed since (another cache folder)
        h = hashlib.sha256(_LAUNCHER_SOURCE.encode())
        h.update((shutil.which("gcc") or shutil.which("g++") or "").encode())
        exe = cache_dir() / f"asc-sim-launch-{h.hexdigest()[:16]}"
        if not exe.exists():
            try:
                with tempfile.TemporaryDirectory(prefix="launch.", dir=cache_dir()) as d:
                    (Path(d) / "launch.c").write_text(_LAUNCHER_SOURCE)
                    proc = subprocess.run(["g++", "-x", "c", "-O1", "launch.c", "-o", "launch"], cwd=d,
                                          capture_output=True, timeout=120)
                    if proc.returncode != 0:
                        return None
                    os.replace(Path(d) / "launch", exe)
            except (OSError, subprocess.TimeoutExpired):
                return None
        _LAUNCHER = exe
        return exe


def _popen_kernel(exe: Path, job: Path, run_dir: Path, log, memory_limit_mb: int) -> subprocess.Popen:
    """Start the kernel process as _preexec describes, through the launcher when it can stand in
    for it exactly (the limit is within the hard limit, the kernel can be executed: otherwise
    _preexec raises what it would)."""
    limit = int(memory_limit_mb) * 1024 * 1024
    hard = resource.getrlimit(resource.RLIMIT_AS)[1]
    launcher = _launcher_program() if (hard == resource.RLIM_INFINITY or limit <= hard) and \
        os.path.isfile(exe) and os.access(exe, os.X_OK) else None
    if launcher is not None:
        try:
            return subprocess.Popen([str(launcher), str(os.getpid()), str(limit), str(exe), str(job)],
                                    stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                    start_new_session=True, cwd=run_dir)
        except OSError:
            pass            # the launcher cannot run here: the kernel's own start says why if it cannot either
    return subprocess.Popen([str(exe), str(job)], stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                            preexec_fn=_preexec(memory_limit_mb), cwd=run_dir)


def run_kernel(art: KernelArtifact, args: list, *, tiling: dict | None = None, block_dim: int,
               cost_only: bool = False, timeout_s: float = 60, memory_limit_mb: int = 4096,
               chip: str | None = None, lenient: bool | None = None, workspace_bytes: int = 0,
               tiling_key: int = 0, dtypes: dict | None = None, outputs=None,
               auto_sync: bool = True, trace: int | bool = False) -> SimResult:
    """Run a built kernel on ``block_dim`` blocks.

    ``args`` follow the kernel's parameter order: NumPy arrays (or :func:`gm` specs in
    cost-only mode) for GM pointers, Python numbers for scalars.  ``workspace``/``tiling``
    parameters of custom-operator kernels are filled by the runner; pass ``None`` for them
    or leave them out.  ``dtypes`` maps a parameter name or index to ``"bfloat16"`` for
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

    ``trace`` records the timeline: ``True`` keeps up to
    :data:`~ascendcraft.sim.timeline.DEFAULT_TRACE_LIMIT` records per block, an int that many;
    ``res.timeline`` then holds every block's instructions per pipe (docs/simulator.md, "Timeline").
    """
    return start_kernel(art, args, tiling=tiling, block_dim=block_dim, cost_only=cost_only, timeout_s=timeout_s,
                        memory_limit_mb=memory_limit_mb, chip=chip, lenient=lenient, workspace_bytes=workspace_bytes,
                        tiling_key=tiling_key, dtypes=dtypes, outputs=outputs, auto_sync=auto_sync,
                        trace=trace).wait()


def start_kernel(art: KernelArtifact, args: list, *, tiling: dict | None = None, block_dim: int,
                 cost_only: bool = False, timeout_s: float = 60, memory_limit_mb: int = 4096,
                 chip: str | None = None, lenient: bool | None = None, workspace_bytes: int = 0,
                 tiling_key: int = 0, dtypes: dict | None = None, outputs=None,
                 auto_sync: bool = True, trace: int | bool = False) -> "KernelRun":
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
    if tiling is not None and art.tiling_struct is None:
        raise UserError("tiling values given but the kernel was built without a tiling header")
    bf16_params = set()
    for k, v in (dtypes or {}).items():
        if str(v) in _BF16_NAMES:
            bf16_params.add(k)
    for i, p in enumerate(params):
        et = p.elem_type
        if et and any(n == et for n in _BF16_NAMES):
            bf16_params.add(i)

    out_params = _output_params(art, args, values, outputs)

    root = _run_root()
    _reap_dead_jobs(root)
    run_dir = Path(tempfile.mkdtemp(prefix=f"{_JOB_PREFIX}{os.getpid()}.", dir=root))
    try:
        job = []
        cfg = chip_config(chip_obj)
        cfg.update(cost_only=int(cost_only), lenient=int(art.lenient if lenient is None else lenient),
                   block_dim=block_dim, tiling_key=tiling_key, auto_sync=int(auto_sync))
        job += [f"cfg {k} {v}" for k, v in cfg.items()]
        trace_limit = _trace_limit(trace)
        if trace_limit:
            job.append(f"cfg trace_limit {trace_limit}")
        report = run_dir / "report.tsv"
        job.append(f"report {report}")
        job.append(f"timeout {max(1, int(timeout_s + 0.999))}")
        out_specs: list[tuple[int, Path, np.dtype, tuple, bool] | None] = []
        for i, (p, v) in enumerate(zip(params, values)):
            if p.kind == "workspace":
                job.append(f"workspace {i} {int(workspace_bytes)}")
                out_specs.append(None)
            elif p.kind == "tiling":
                job.append(f"tiling {i}")
                out_specs.append(None)
            elif p.kind == "scalar":
                if not isinstance(v, (int, float, np.integer, np.floating, bool)):
                    raise UserError(f"parameter {p.name} ({p.ctype}) is a scalar; got {type(v).__name__}")
                job.append(f"scalar {i} {'f' if p.is_float else 'i'} {repr(float(v)) if p.is_float else int(v)}")
                out_specs.append(None)
            else:
                is_bf16 = i in bf16_params or p.name in bf16_params
                if i in out_params:
                    itemsize = 2 if is_bf16 else (v.dtype.itemsize if isinstance(v, (GmSpec, np.ndarray)) else 1)
                    job.append(f"output {i} {itemsize}")
                if isinstance(v, GmSpec):
                    if not cost_only:
                        raise UserError(f"parameter {p.name}: a gm() shape spec needs cost_only=True; pass an array")
                    nbytes = v.nbytes // 2 if (is_bf16 and v.dtype == np.float32) else v.nbytes
                    job.append(f"gm {i} {p.name} {nbytes} - -")
                    out_specs.append(None)
                    continue
                if not isinstance(v, np.ndarray):
                    raise UserError(f"parameter {p.name} ({p.ctype}) is a GM pointer; pass a NumPy array")
                if cost_only:
                    nbytes = v.size * 2 if is_bf16 else v.nbytes
                    job.append(f"gm {i} {p.name} {nbytes} - -")
                    out_specs.append(None)
                    continue
                if is_bf16:
                    raw = _to_bf16_bits(v)
                elif v.dtype == np.bool_:
                    raw = np.ascontiguousarray(v).view(np.uint8)
                else:
                    raw = np.ascontiguousarray(v)
                fin, fout = run_dir / f"in{i}.bin", run_dir / f"out{i}.bin"
                raw.tofile(fin)
                job.append(f"gm {i} {p.name} {raw.nbytes} {fin} {fout}")
                out_specs.append((i, fout, raw.dtype, v.shape, is_bf16))
        for k, val in (tiling or {}).items():
            job += _tiling_lines(k, val)
        (run_dir / "job.txt").write_text("\n".join(job) + "\n")
        try:
            # the log goes to a file, not a pipe: a run may go on while the caller does other work
            with open(run_dir / "log.txt", "wb") as log:
                proc = _popen_kernel(art.exe, run_dir / "job.txt", run_dir, log, memory_limit_mb)
        except OSError as e:
            raise UserError(f"cannot run the simulator executable: {e}") from e
        return KernelRun(proc, time.monotonic() + timeout_s + 5, run_dir,
                         (art, report, out_specs, values, chip_obj, block_dim, cost_only), trace_limit)
    except BaseException:
        shutil.rmtree(run_dir, ignore_errors=True)
        raise


class KernelRun:
    """A kernel process :func:`start_kernel` started: ``wait()`` for its result, or ``kill()`` it."""

    def __init__(self, proc, deadline: float, run_dir: Path, collect_args: tuple, trace_limit: int):
        self.proc, self.deadline, self.run_dir = proc, deadline, run_dir
        self._collect_args, self._trace_limit = collect_args, trace_limit
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
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
            try:
                out = (self.run_dir / "log.txt").read_bytes()
            except OSError:
                out = b""
            art, report, out_specs, values, chip_obj, block_dim, cost_only = self._collect_args
            log = out.decode(errors="replace") if out else ""
            res = _collect(art, report, self.proc.returncode, log, timed_out, out_specs, values, chip_obj, block_dim,
                           cost_only)
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
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)   # its own session (see _preexec)
            except (ProcessLookupError, PermissionError):
                pass
            self.proc.wait()
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


def _trace_limit(trace) -> int:
    """Records kept per block for ``run_kernel(trace=...)``: 0 (off), the default cap, or the given one."""
    if trace is True:
        from .timeline import DEFAULT_TRACE_LIMIT
        return DEFAULT_TRACE_LIMIT
    if trace is False or trace is None:
        return 0
    if not isinstance(trace, (int, np.integer)) or int(trace) < 0:
        raise UserError(f"trace={trace!r}: pass True, False or a number of records per block (>= 0)")
    return int(trace)


def _output_params(art: KernelArtifact, args: list, values: list, outputs) -> set[int]:
    """Kernel parameter indices of the GM outputs named by ``outputs`` (names or ``args`` positions)."""
    if outputs is None:
        return set()
    if isinstance(outputs, (str, int)):
        outputs = [outputs]
    params = art.params
    # args position -> parameter index (workspace/tiling may have been left out of args)
    if len(args) == len(params):
        pos = list(range(len(params)))
    else:
        pos = [i for i, p in enumerate(params) if p.kind not in ("workspace", "tiling")]
    chosen = set()
    for o in outputs:
        if isinstance(o, (int, np.integer)) and not isinstance(o, bool):
            if not 0 <= int(o) < len(pos):
                raise UserError(f"outputs: index {o} is out of range for {len(args)} arguments")
            i = pos[int(o)]
        else:
            names = [p.name for p in params]
            if o not in names:
                raise UserError(f"outputs: {art.kernel_name} has no parameter named {o!r}",
                                hint="parameters: " + ", ".join(names))
            i = names.index(o)
        if params[i].kind in ("workspace", "tiling", "scalar"):
            raise UserError(f"outputs: parameter {params[i].name} is a {params[i].kind} argument, not a GM tensor")
        chosen.add(i)
    return chosen


_JOB_PREFIX = "ascendcraft-sim-run."
_JOB_RE = re.compile(re.escape(_JOB_PREFIX) + r"(\d+)\.")


def _reap_dead_jobs(root: str) -> None:
    """Remove job directories (``ascendcraft-sim-run.<pid>.*``) whose calling process is gone:
    a caller killed with SIGKILL cannot clean up, and its GM arrays would stay in RAM."""
    try:
        entries = list(os.scandir(root))
    except OSError:
        return
    me = os.getpid()
    for e in entries:
        m = _JOB_RE.match(e.name)
        if not m or int(m.group(1)) == me or pid_alive(int(m.group(1))):
            continue
        try:
            if e.is_dir(follow_symlinks=False):
                shutil.rmtree(e.path, ignore_errors=True)
        except OSError:
            pass


def _run_root() -> str:
    """Job directories live in RAM (/dev/shm) when possible: GM arrays pass through files."""
    shm = "/dev/shm"
    if os.path.isdir(shm) and os.access(shm, os.W_OK):
        return shm
    return str(cache_dir())


def _tiling_lines(key: str, val) -> list[str]:
    if isinstance(val, dict):
        out = []
        for k2, v2 in val.items():
            out += _tiling_lines(f"{key}.{k2}", v2)
        return out
    if isinstance(val, (list, tuple, np.ndarray)):
        return [f"tfield {key} " + ",".join(repr(float(x)) if isinstance(x, float) else str(int(x)) for x in val)]
    if isinstance(val, (float, np.floating)):
        return [f"tfield {key} {float(val)!r}"]
    return [f"tfield {key} {int(val)}"]


def _collect(art, report: Path, rc: int, log: str, timed_out: bool, out_specs, values, chip_obj, block_dim,
             cost_only) -> SimResult:
    diags: list[Diagnostic] = []
    crash = None
    cores: list[CoreCost] = []
    layout = []
    harness_error = None
    violation = exit_call = None
    finished = False
    sandboxed, sandbox_note = False, ""
    text = report.read_text(errors="replace") if report.exists() else ""
    for line in text.splitlines():
        f = line.split("\t")
        if f[0] == "S" and len(f) >= 2:
            sandboxed = f[1] == "1"
            sandbox_note = "" if sandboxed else "\t".join(f[2:])
        elif f[0] == "V" and len(f) >= 6:
            violation = f[1]
            where = f"; the last API call was {f[3]} at {f[4] or 'kernel'}:{f[5]}" if f[3] else ""
            crash = (f"sandbox violation: the kernel made a forbidden system call ({f[1]}) in block {f[2]}{where}: "
                     f"{_violation_reason(f[1])}")
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
        elif f[0] == "K" and len(f) >= 16:
            busy = {p: float(x) for p, x in zip(PIPES, f[3:11])}
            cores.append(CoreCost(int(f[1]), float(f[2]), busy, int(f[11]), int(f[12]), int(f[13]), int(f[14]),
                                  int(f[15])))
        elif f[0] == "T" and len(f) >= 5:
            layout.append({"name": f[1], "type": f[2], "offset": int(f[3]), "size": int(f[4])})
        elif f[0] == "X":
            harness_error = "\t".join(f[1:])
    if crash is None and exit_call:
        crash = exit_call
    if timed_out and crash is None:
        crash = "time limit exceeded (the kernel hangs or is too slow); killed"
    elif crash is None and rc not in (0, 1):
        if rc == -signal.SIGSYS:
            violation = violation or "unknown"
            crash = ("sandbox violation: the kernel made a forbidden system call while it blocked all signals, so the "
                     "call is not named (glibc's system(), popen() and posix_spawn() block them before they start a "
                     "process); it was killed by SIGSYS: kernels may not start processes, open files for writing, "
                     "change files, signal other processes or use the network")
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
    if crash and crash.startswith("SIGALRM"):
        crash = "time limit exceeded (the kernel hangs or is too slow): " + crash
    elif crash and crash.startswith("SIGTERM"):
        crash = ("the kernel received " + crash + "; the simulator never sends SIGTERM, so the kernel sent it to "
                 "itself (raise, kill) or another process did")
    outputs: list[Any] = []
    if not cost_only:
        for spec, v in zip(out_specs, values):
            if spec is None:
                outputs.append(v)
                continue
            _, path, dtype, shape, is_bf16 = spec
            nbytes = int(np.prod(shape, dtype=np.int64)) * np.dtype(dtype).itemsize
            if finished and path.exists() and path.stat().st_size == nbytes:
                arr = np.fromfile(path, dtype=dtype).reshape(shape)
                outputs.append(_from_bf16_bits(arr) if is_bf16 else (arr.view(np.bool_) if v.dtype == np.bool_ else arr))
            else:
                outputs.append(None)
    cost = aggregate(sorted(cores, key=lambda c: c.block), chip_obj, block_dim) if cores else None
    ok = rc == 0 and finished and crash is None and not any(d.severity == "error" for d in diags)
    if not sandboxed:
        if not art.sandboxed:
            sandbox_note = "the simulator was built without libseccomp: " + (sandbox_support()[1] or "not available")
        elif not sandbox_note:
            sandbox_note = "the run ended before the harness installed the sandbox (the kernel did not run)"
    return SimResult(ok=ok, outputs=outputs, diagnostics=diags, cost=cost, crash=crash, returncode=rc, log=log,
                     tiling_layout=layout, sandboxed=sandboxed, sandbox_note=sandbox_note, violation=violation)


_VIOLATION_KINDS = (
    (("execve", "execveat", "fork", "vfork", "clone", "clone3"),
     "kernels may not start processes (system(), popen(), fork(), exec*())"),
    (("socket", "socketpair", "connect", "bind", "listen", "accept", "accept4", "sendto", "sendmsg", "sendmmsg",
      "recvfrom", "recvmsg", "recvmmsg", "setsockopt", "getsockopt", "shutdown", "getsockname", "getpeername"),
     "kernels may not use the network"),
    (("open", "openat", "openat2", "creat", "open_by_handle_at", "name_to_handle_at"),
     "kernels may not open files for writing or create files (reading is allowed)"),
    (("unlink", "unlinkat", "rename", "renameat", "renameat2", "mkdir", "mkdirat", "rmdir", "link", "linkat",
      "symlink", "symlinkat", "chmod", "fchmod", "fchmodat", "fchmodat2", "chown", "fchown", "lchown", "fchownat",
      "truncate", "ftruncate", "fallocate", "utime", "utimes", "utimensat", "futimesat", "mknod", "mknodat",
      "setxattr", "lsetxattr", "fsetxattr", "removexattr", "lremovexattr", "fremovexattr"),
     "kernels may not change files or directories (delete, rename, create, chmod, chown, truncate; reading is "
     "allowed)"),
    (("kill", "tgkill", "tkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo", "pidfd_open", "pidfd_send_signal",
      "pidfd_getfd", "ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "setpgid", "setsid"),
     "kernels may signal only their own process (raise(), kill(getpid(), ...)), not other processes or "
     "process groups, and may not trace them"),
)


def _violation_reason(name: str) -> str:
    for names, why in _VIOLATION_KINDS:
        if name in names:
            return why
    return ("kernels may not start processes, open files for writing, change files or the system, signal other "
            "processes or use the network")
