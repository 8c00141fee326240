"""A run's job folder: where it lives (and the folders of dead callers, removed), and what the
runner writes into it for the harness besides the arguments: bf16 data as raw bits, tiling values,
the outputs to check, the trace limit."""
from __future__ import annotations

import os
import re
import shutil

import numpy as np

from ..errors import UserError
from ..processes import pid_alive
from .build import KernelArtifact
from .cache import cache_dir

#: ``dtypes`` values (and parameter element types) that mark a GM argument as bf16
BF16_NAMES = ("bfloat16", "bf16", "bfloat16_t")


def to_bf16_bits(a: np.ndarray) -> np.ndarray:
    """float32 values as the bf16 bit patterns the kernel reads (round to nearest even; a NaN as 0x7FC0)."""
    x = np.ascontiguousarray(a, dtype=np.float32).view(np.uint32)
    rounded = ((x + 0x7FFF + ((x >> 16) & 1)) >> 16).astype(np.uint16)
    nan = np.isnan(a.astype(np.float32))
    rounded[nan] = 0x7FC0
    return rounded


def from_bf16_bits(b: np.ndarray) -> np.ndarray:
    """bf16 bit patterns as float32 values (exact)."""
    return (b.astype(np.uint32) << 16).view(np.float32)


JOB_PREFIX = "ascendcraft-sim-run."
_JOB_RE = re.compile(re.escape(JOB_PREFIX) + r"(\d+)\.")


def read_head(path, limit: int) -> tuple[str, int, int]:
    """The first ``limit`` bytes of a file a run wrote (what it printed), decoded; how many bytes past
    them were not read; the file's size. ``("", 0, 0)`` when there is no file."""
    try:
        with open(path, "rb") as f:
            head = f.read(limit)
            size = os.fstat(f.fileno()).st_size
    except OSError:
        return "", 0, 0
    return head.decode(errors="replace"), max(0, size - len(head)), size


def reap_dead_jobs(root: str) -> None:
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


def run_root() -> str:
    """Job directories live in RAM (/dev/shm) when possible: GM arrays pass through files."""
    shm = "/dev/shm"
    if os.path.isdir(shm) and os.access(shm, os.W_OK):
        return shm
    return str(cache_dir())


def tiling_lines(key: str, val) -> list[str]:
    """The job's ``tfield`` lines for one tiling value (nested structs as ``a.b``, arrays comma-separated)."""
    if isinstance(val, dict):
        out = []
        for k2, v2 in val.items():
            out += tiling_lines(f"{key}.{k2}", v2)
        return out
    if isinstance(val, (list, tuple, np.ndarray)):
        return [f"tfield {key} " + ",".join(repr(float(x)) if isinstance(x, float) else str(int(x)) for x in val)]
    if isinstance(val, (float, np.floating)):
        return [f"tfield {key} {float(val)!r}"]
    return [f"tfield {key} {int(val)}"]


def trace_limit_for(trace) -> int:
    """Records kept per block for ``run_kernel(trace=...)``: 0 (off), the default cap, or the given one."""
    if trace is True:
        from .timeline import DEFAULT_TRACE_LIMIT
        return DEFAULT_TRACE_LIMIT
    if trace is False or trace is None:
        return 0
    if not isinstance(trace, (int, np.integer)) or int(trace) < 0:
        raise UserError(f"trace={trace!r}: pass True, False or a number of records per block (>= 0)")
    return int(trace)


def output_params(art: KernelArtifact, args: list, values: list, outputs) -> set[int]:
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
