"""A direct-launch operator on the simulator: MultiKernelBench's ``ascendc_direct_launch`` form, kernel sources
with ``<<<>>>`` launch wrappers and a pybind11 binding that allocates the outputs, computes the tiling and
launches the kernels.

The binding's host code runs as it would on the host, in the simulator's sandbox, against a stand-in for
PyTorch's C++ API (``sim/direct/include/asc_sim/torch.h``) whose tensors have shapes, dtypes and device
addresses but no data: what it asks of the device (allocations, fills, launches with their block counts and
arguments) is recorded (``sim/direct/direct_main.cpp``). The simulator then runs the recorded launches in order,
each kernel built from the source that defines it, over the tensors' values. See docs/simulator.md,
"Direct-launch operators".
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..chips import DEFAULT_CHIP, load_chip
from ..errors import UserError
from . import build
from .build import (DEFAULT_CXXFLAGS, INCLUDE_DIR, PKG_DIR, SECCOMP_FLAGS, SECCOMP_LIBS, SimBuildError,
                    rewrite_host_launches, sandbox_support)
from .cache import cache_dir
from . import host_build
from .host_build import HOST_DIR, HostArtifact, compile_and_link
from .host_project import DTYPES, dtype
from .host_run import HostRunError, platform_lines, run_host
from .includes import first_escape
from .result import SimResult
from .runner import GmSpec, gm, run_kernel
from .signature import strip_comments

DIRECT_DIR = PKG_DIR / "direct"
DIRECT_INCLUDE = DIRECT_DIR / "include"
DIRECT_FORMAT = "1"
#: launches one call may make before the rest is refused (a binding that launches in a loop over rows)
MAX_LAUNCHES = 64


class DirectRunError(UserError):
    """The operator built but its host code or one of its launches failed (stage ``correct``)."""


@dataclass(frozen=True)
class DirectOperator:
    """The sources of a direct-launch operator: ``files`` (relative path -> text), which ``.cpp`` files hold
    the binding (``PYBIND11_MODULE``) and which the kernels, and the module's name."""

    files: dict
    binding_sources: tuple
    kernel_sources: tuple
    module: str = "benchmark_ops"


@dataclass
class DirectRun:
    """One call: the returned tensors (NumPy; empty in cost-only runs), each launch's simulator result with
    its kernel's name and block count, and the summed modeled time."""

    outputs: list
    output_dtypes: list = field(default_factory=list)  # each returned tensor's dtype ("float16", ...)
    launches: list = field(default_factory=list)       # (kernel, block_dim, SimResult)
    sandboxed: bool = False

    @property
    def time_us(self) -> float | None:
        costs = [r.cost.time_us for _, _, r in self.launches if r.cost is not None]
        return sum(costs) if costs and len(costs) == len(self.launches) else None

    @property
    def bound(self) -> str | None:
        timed = [r.cost for _, _, r in self.launches if r.cost is not None]
        return max(timed, key=lambda c: c.time_us).bound if timed else None

    @property
    def block_dim(self) -> int | None:
        return max((b for _, b, _ in self.launches), default=None)


# ----------------------------------------------------------------------------------------------- build
def _harness_sources() -> dict[str, str]:
    """The host harness's sources (host_setup.h and the JSON helpers are shared) and the direct harness's."""
    files = host_build._harness_sources()
    files.update({str(p.relative_to(DIRECT_DIR)): p.read_text() for p in sorted(DIRECT_DIR.rglob("*")) if p.is_file()})
    return files


def _cxxflags() -> tuple[tuple[str, ...], tuple[str, ...]]:
    sandboxed, _ = sandbox_support()
    flags = DEFAULT_CXXFLAGS + (SECCOMP_FLAGS if sandboxed else ()) + (
        "-DASC_SIM_DIRECT_HOST=1", "-DASC_SIM_DEFAULT_TILING=asc_sim::NoDefaultTiling", "-Wno-unused-variable",
        "-Wno-unused-but-set-variable")
    return flags, (SECCOMP_LIBS if sandboxed else ())


def _harness_object(cxxflags: tuple[str, ...]) -> Path:
    command = ["g++", *cxxflags, f"-I{DIRECT_INCLUDE}", f"-I{INCLUDE_DIR}", f"-I{PKG_DIR}", f"-I{HOST_DIR}", "-c",
               str(DIRECT_DIR / "direct_main.cpp"), "-o", "direct_main.o"]
    # the sources (written flat into the build folder) make the key; the command reads them where they are
    key_files = {name.replace("/", "__"): text for name, text in _harness_sources().items()}
    return build._compiled_once("the direct-launch host harness", "directrt", command, key_files) / "direct_main.o"


def build_direct_host(op: DirectOperator) -> HostArtifact:
    """The operator's sources (binding and kernel files, launches rewritten to be recorded) compiled and linked
    with the direct-launch host harness and the simulator's runtime; cached by content."""
    cxxflags, libs = _cxxflags()
    escape = first_escape(op.files)
    if escape:
        raise SimBuildError(escape, hint="a source may include the operator's own files and the headers the "
                                         "simulator provides")
    defines = (f"-DTORCH_EXTENSION_NAME={op.module}",)
    key = build.content_key(DIRECT_FORMAT, json.dumps(_harness_sources()), " ".join(cxxflags + libs + defines),
                            json.dumps(sorted(op.files.items())), json.dumps([op.binding_sources, op.kernel_sources]))
    out_dir = cache_dir() / f"direct-{key}"
    exe = out_dir / "host.bin"
    sources = tuple(op.binding_sources) + tuple(s for s in op.kernel_sources if s not in op.binding_sources)
    if exe.exists():
        return HostArtifact(exe, key, sources, bool(libs), True, 0.0)
    harness = _harness_object(cxxflags)
    runtime = build._runtime_object(DEFAULT_CXXFLAGS + (SECCOMP_FLAGS if libs else ()), harness=False)
    # the launches rewritten to be recorded; the harness linked first (its set-up runs before any code of the operator)
    files = {name: rewrite_host_launches(text, recorded=True) for name, text in op.files.items()}
    files.update(build.generated_launch_headers(op.files))
    dirs = sorted({str(Path(name).parent) for name in op.files} | {"."})
    elapsed = compile_and_link(
        out_dir, files, list(sources),
        compile_args=lambda tmp: [*cxxflags, *defines, f"-I{DIRECT_INCLUDE}", f"-I{INCLUDE_DIR}",
                                  *(f"-I{tmp / d}" for d in dirs)],
        link_args=(*cxxflags, str(harness)), link_tail=(str(runtime), *libs),
        label="the operator's sources", folder="the operator")
    return HostArtifact(exe, key, sources, bool(libs), False, elapsed)


# ----------------------------------------------------------------------------------------------- host call
def _arg_line(value, dtype_name: str | None) -> str:
    if value is None:
        return "arg none"
    if isinstance(value, (np.ndarray, GmSpec)):
        name = dtype_name or dtype(np.dtype(value.dtype)).name
        return f"arg tensor {name} {len(value.shape)} " + " ".join(str(int(d)) for d in value.shape)
    if isinstance(value, (bool, np.bool_)):
        return f"arg bool {int(value)}"
    if isinstance(value, (int, np.integer)):
        return f"arg int {int(value)}"
    if isinstance(value, (float, np.floating)):
        return f"arg float {float(value)!r}"
    if isinstance(value, str):
        return "arg str " + value.replace("\n", " ")
    if isinstance(value, (list, tuple)) and all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in value):
        return f"arg ints {len(value)} " + " ".join(str(int(v)) for v in value)
    if isinstance(value, (list, tuple)) and all(isinstance(v, (int, float, np.number)) for v in value):
        return f"arg floats {len(value)} " + " ".join(repr(float(v)) for v in value)
    raise UserError(f"a {type(value).__name__} cannot be passed to a direct-launch operator's binding function",
                    hint="its arguments are tensors, numbers, bools, strings, lists of numbers and None")


def host_call(op: DirectOperator, function: str, args: list, *, dtypes: dict | None = None,
              chip: str = DEFAULT_CHIP) -> tuple[dict, bool]:
    """What the binding ``function`` asked of the device for ``args``: the harness's JSON (tensors, events,
    returns) and whether it ran sandboxed. Host code that fails raises :class:`HostRunError`."""
    art = build_direct_host(op)
    lines = platform_lines(load_chip(chip)) + [f"call {function}"]
    lines += [_arg_line(v, (dtypes or {}).get(k)) for k, v in enumerate(args)]
    answer, log, sandboxed = run_host(art, lines, what=f"the binding function {function}")
    if answer.get("error"):
        raise HostRunError(answer["error"], phase=function, log=log)
    return answer, sandboxed


# ----------------------------------------------------------------------------------------------- run
_KERNEL_DEF = r"__global__[^;{{}}]*?\b{name}\s*\("


def _kernel_file(op: DirectOperator, kernel: str) -> str:
    """The source that defines ``kernel`` (its name without template arguments or namespaces)."""
    base = re.sub(r"<.*", "", kernel).split("::")[-1].strip()
    pattern = re.compile(_KERNEL_DEF.format(name=re.escape(base)), re.S)
    for name in sorted(op.files, key=lambda n: (n not in op.kernel_sources, n)):
        text = strip_comments(op.files[name])
        for m in pattern.finditer(text):
            close = text.find(")", m.end())
            if close > 0 and text[close + 1:close + 200].lstrip().startswith("{"):
                return name
    raise DirectRunError(f"the binding launches {kernel}, and no source defines a __global__ kernel {base}",
                         hint="define the kernel (__global__ __aicore__ void name(...) {...}) in a kernel source")


def _extra_sources(op: DirectOperator, kernel_file: str) -> dict[str, str]:
    """The operator's other files, by their path and by the path relative to the kernel file's folder (a
    kernel includes its headers as the CANN build finds them)."""
    here = Path(kernel_file).parent
    extra: dict[str, str] = {}
    for name, text in op.files.items():
        if name == kernel_file:
            continue
        extra[name] = text
        try:
            extra.setdefault(str(Path(name).relative_to(here)), text)
        except ValueError:
            pass
    return extra


def _garbage(shape, dt) -> np.ndarray:
    """A new allocation's contents: all bytes 0xFF (NaN for floats), as uninitialised device memory may hold."""
    np_dt = DTYPES[dt].numpy
    if dt == "bfloat16":
        return np.full(shape, np.nan, np.float32)
    if np_dt == np.bool_:
        return np.ones(shape, np.bool_)
    return np.full(int(np.prod(shape, dtype=np.int64)) * np_dt.itemsize, 0xFF, np.uint8).view(np_dt).reshape(shape)


def _device_itemsize(dt: str) -> int:
    return 2 if dt == "bfloat16" else DTYPES[dt].numpy.itemsize


def _from(value, start: int):
    """What a pointer ``start`` elements into a tensor gives the kernel: the tensor from there on (a kernel may
    read and write up to the tensor's end, as on the NPU)."""
    if not start:
        return value
    if isinstance(value, GmSpec):
        return gm((int(np.prod(value.shape, dtype=np.int64)) - start,), value.dtype)
    return np.ascontiguousarray(value).reshape(-1)[start:].copy()


def _written(value: np.ndarray, start: int, out: np.ndarray) -> np.ndarray:
    """The tensor after a launch that took it from element ``start`` on and left ``out`` there."""
    if not start:
        return out
    flat = np.ascontiguousarray(value).reshape(-1).copy()
    flat[start:] = out.reshape(-1)
    return flat.reshape(value.shape)


def run_direct(op: DirectOperator, function: str, args: list, *, dtypes: dict | None = None,
               chip: str = DEFAULT_CHIP, cost_only: bool = False, timeout_s: float = 60) -> DirectRun:
    """Call the binding ``function`` with ``args`` (NumPy arrays, or :func:`gm` specs with ``cost_only``;
    numbers, bools, lists, None; ``dtypes`` names the argument indices holding bf16 as ``"bfloat16"``) and run
    the launches it made, in order, on the simulator. A failed launch raises :class:`DirectRunError`."""
    answer, sandboxed = host_call(op, function, args, dtypes=dtypes, chip=chip)
    tensors = {t["id"]: t for t in answer["tensors"]}
    values: dict[int, object] = {}
    for t in answer["tensors"]:
        shape = tuple(t["shape"])
        if t["origin"].startswith("input "):
            given = args[int(t["origin"].split()[1])]
            values[t["id"]] = given if cost_only else np.array(given, copy=True)
        else:
            values[t["id"]] = gm(shape, DTYPES[t["dtype"]].numpy) if cost_only else _garbage(shape, t["dtype"])
    launches = [e for e in answer["events"] if "launch" in e]
    if not launches:
        raise DirectRunError(f"the binding function {function} launched no kernel",
                             hint="launch the kernel with kernel<<<blockDim, nullptr, stream>>>(...) in host code "
                                  "that is compiled for the host (not inside #ifndef __CCE_KT_TEST__)")
    if len(launches) > MAX_LAUNCHES:
        raise DirectRunError(f"the binding function {function} launched {len(launches)} kernels; at most "
                             f"{MAX_LAUNCHES} are run", hint="launch once and loop inside the kernel")
    run = DirectRun(outputs=[], sandboxed=sandboxed)
    built: dict[str, object] = {}
    for event in answer["events"]:
        if "fill" in event:
            if not cost_only:
                values[event["fill"]][...] = float(event["value"])
            continue
        kernel, block_dim = event["launch"], int(event["block_dim"])
        where = f"launch {len(run.launches) + 1} ({kernel}<<<{block_dim}>>>)"
        if kernel not in built:
            source = _kernel_file(op, kernel)
            built[kernel] = build.build_kernel(op.files[source], kernel, chip=chip,
                                               extra_sources=_extra_sources(op, source))
        art = built[kernel]
        kargs, bf16, tensor_at = [], {}, {}
        for k, a in enumerate(event["args"]):
            if "tensor" in a:
                tid, dt = a["tensor"], tensors[a["tensor"]]["dtype"]
                size = _device_itemsize(dt)
                if a["offset"] % size:
                    raise DirectRunError(f"{where}: argument {k + 1} points {a['offset']} bytes into a tensor of {dt}, "
                                         f"not at an element", hint="offset a pointer by whole elements")
                start = a["offset"] // size
                tensor_at[k] = (tid, start)
                kargs.append(_from(values[tid], start))
                if dt == "bfloat16":
                    bf16[k] = "bfloat16"
            elif "null" in a:
                kargs.append(None)
            elif "int" in a:
                kargs.append(int(a["int"]))
            elif "float" in a:
                kargs.append(float(a["float"]))
            else:
                raise DirectRunError(f"{where}: argument {k + 1} is {a.get('pointer') or a.get('unsupported')}",
                                     hint="a kernel takes the data_ptr() of tensors the binding holds (inputs, "
                                          "at::empty...) and numbers")
        if len({tid for tid, _ in tensor_at.values()}) < len(tensor_at):
            raise DirectRunError(f"{where}: one tensor is passed as two arguments",
                                 hint="pass each tensor once (an in-place kernel reads and writes one pointer)")
        res: SimResult = run_kernel(art, kargs, block_dim=block_dim, cost_only=cost_only, chip=chip,
                                    dtypes=bf16, timeout_s=timeout_s)
        if not res.ok:
            raise DirectRunError(f"{where} failed on the simulator:\n" + res.failure())
        if not cost_only:
            for k, (tid, start) in tensor_at.items():
                if res.outputs[k] is not None:
                    values[tid] = _written(values[tid], start, np.asarray(res.outputs[k]))
        run.launches.append((kernel, block_dim, res))
        run.sandboxed = run.sandboxed and res.sandboxed
    for r in answer["returns"]:
        if r is None:
            raise DirectRunError(f"the binding function {function} returned an undefined tensor")
        if r["offset"]:
            raise DirectRunError(f"the binding function {function} returned a tensor that starts inside another")
        run.output_dtypes.append(tensors[r["tensor"]]["dtype"])
        if not cost_only:
            run.outputs.append(np.asarray(values[r["tensor"]]).reshape(r["shape"]))
    return run
