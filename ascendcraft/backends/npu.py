"""The ``npu`` backend: build a generated project with the CANN toolkit and run it on an Ascend NPU.

Detection is cheap and import-free until a toolkit is found: the toolkit directory
(``ASCEND_HOME_PATH``, then ``ASCEND_TOOLKIT_HOME``, both set by CANN's ``set_env.sh``, then
the default install path), its bisheng compiler, ``cmake``, the ``torch_npu`` module and a
device (``torch_npu.npu.is_available()``). :func:`require_npu` turns what is missing into
one :class:`~ascendcraft.errors.UserError`.

**Nothing below has run on Ascend hardware.** The build follows the documented kernel
direct-call flow (``cmake`` over the generated ``CMakeLists.txt``, which uses CANN's
``ascendc.cmake``), and running means the generated ACL launcher reading and writing raw
``.bin`` files, so this module needs no torch_npu itself.
"""
from __future__ import annotations

import importlib.util
import os
import platform
import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np

from ..codegen.project import SOC_VERSION, write_project
from ..codegen.project_common import ProjectNames
from ..codegen.spec import KernelSpec
from ..errors import UserError

DEFAULT_CANN = Path("/usr/local/Ascend/ascend-toolkit/latest")
CANN_ENV_VARS = ("ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME")
BUILD_TIMEOUT_S = 1800
RUN_TIMEOUT_S = 600

_FIX = ("install a CANN 8.x toolkit and `source <toolkit>/set_env.sh` (it sets ASCEND_HOME_PATH), "
        "`pip install torch_npu` matching your torch, and run where an Ascend NPU is visible; "
        "or use --backend sim (the AscendC simulator)")


def cann_home() -> Path | None:
    """The CANN toolkit directory, or None when there is none."""
    for var in CANN_ENV_VARS:
        value = os.environ.get(var)
        if value and Path(value).expanduser().is_dir():
            return Path(value).expanduser()
    return DEFAULT_CANN if DEFAULT_CANN.is_dir() else None


def bisheng_path(home: Path) -> Path | None:
    """The AscendC compiler in ``home``; its place differs between packages (CANN's host_config.cmake)."""
    arch = f"{platform.machine()}-linux"
    for rel in ("bin/bisheng", "compiler/ccec_compiler/bin/bisheng", "tools/ccec_compiler/bin/bisheng",
                f"{arch}/ccec_compiler/bin/bisheng", "ascendc_devkit/ccec_compiler/bin/bisheng"):
        if (home / rel).is_file():
            return home / rel
    return None


def _device_available() -> tuple[bool, str]:
    try:
        import torch_npu  # noqa: F401  (heavy; imported only once a toolkit exists)
        return bool(torch_npu.npu.is_available()), ""
    except Exception as e:  # noqa: BLE001  (a broken install is "no device" with the reason)
        return False, f" (import torch_npu failed: {type(e).__name__}: {e})"


def _toolkit_search() -> str:
    """Where cann_home() looked, for the error message."""
    looked = [f"{v}={os.environ[v]!r} is not a directory" if os.environ.get(v) else f"{v} is not set"
              for v in CANN_ENV_VARS]
    return "; ".join(looked + [f"{DEFAULT_CANN} does not exist"])


def npu_status() -> tuple[bool, list[str]]:
    """(available, what is missing), each missing item a short phrase."""
    missing = []
    home = cann_home()
    if home is None:
        missing.append(f"the CANN toolkit ({_toolkit_search()})")
    elif bisheng_path(home) is None:
        missing.append(f"the bisheng compiler in the CANN toolkit at {home}")
    if shutil.which("cmake") is None:
        missing.append("cmake on PATH")
    has_module = importlib.util.find_spec("torch_npu") is not None
    if not has_module:
        missing.append("the Python module torch_npu")
    if not missing:
        ok, why = _device_available()
        if not ok:
            missing.append("an Ascend NPU device (torch_npu.npu.is_available() is False)" + why)
    return not missing, missing


def require_npu() -> Path:
    """The toolkit directory, or a UserError naming everything the npu backend lacks."""
    ok, missing = npu_status()
    if not ok:
        raise UserError("the npu backend is not available here: missing " + "; ".join(missing), hint=_FIX)
    return cann_home()


def default_backend() -> str:
    return "npu" if npu_status()[0] else "sim"


# ----------------------------------------------------------------------------- build and run

def _require_toolkit() -> Path:
    """Building and launching need the toolkit, its compiler and cmake (not torch_npu)."""
    home = cann_home()
    problems = [m for m in npu_status()[1] if "torch_npu" not in m and "device" not in m]
    if home is None or problems:
        raise UserError("cannot build for the NPU: missing " + "; ".join(problems), hint=_FIX)
    return home


def _run(cmd: list[str], cwd: Path, what: str, timeout: int, env: dict | None = None,
         hint: str | None = None) -> None:
    try:
        proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        raise UserError(f"{what} did not finish within {timeout} s: {' '.join(cmd)}") from None
    if proc.returncode != 0:
        tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-40:])
        raise UserError(f"{what} failed (exit code {proc.returncode}): {' '.join(cmd)}\n{tail}", hint=hint)


def build_project(spec: KernelSpec, project_dir: Path, *, soc_version: str = SOC_VERSION) -> Path:
    """CMake configure and build of the direct-call project (written first if absent); the launcher path."""
    home = _require_toolkit()
    project_dir = Path(project_dir)
    if not (project_dir / "CMakeLists.txt").is_file():
        write_project(spec, project_dir)
    build = project_dir / "build"
    _run(["cmake", "-S", str(project_dir), "-B", str(build), f"-DSOC_VERSION={soc_version}",
          f"-DASCEND_CANN_PACKAGE_PATH={home}", "-DRUN_MODE=npu", "-DCMAKE_BUILD_TYPE=Release"],
         project_dir, "CMake configure", BUILD_TIMEOUT_S, hint=f"the project is {project_dir}; see its README.md")
    _run(["cmake", "--build", str(build), "-j"], project_dir, "the CANN build", BUILD_TIMEOUT_S,
         hint=f"the project is {project_dir}; see its README.md")
    launcher = build / ProjectNames.of(spec).launcher
    if not launcher.is_file():
        raise UserError(f"the CANN build finished but {launcher} is missing")
    return launcher


def _dims_of(spec: KernelSpec, inputs: list[np.ndarray]) -> dict[str, int]:
    if len(inputs) != len(spec.inputs):
        raise UserError(f"kernel {spec.op_name} takes {len(spec.inputs)} input tensor(s), got {len(inputs)}")
    dims: dict[str, int] = {}
    for t, arr in zip(spec.inputs, inputs):
        if arr.ndim != len(t.shape):
            raise UserError(f"input {t.name} has shape {arr.shape}, but the kernel declares rank {len(t.shape)}")
        for d, n in zip(t.shape, arr.shape):
            expected = d if isinstance(d, int) else dims.setdefault(d, int(n))
            if expected != n:
                raise UserError(f"input {t.name} has shape {arr.shape}; extent {d} is {expected} elsewhere")
    return dims


_RAW_DTYPES = {"f16": np.float16, "f32": np.float32, "i8": np.int8, "i16": np.int16, "i32": np.int32,
               "i64": np.int64, "u8": np.uint8, "bool": np.bool_}


def _to_raw(arr: np.ndarray, dtype: str) -> bytes:
    if dtype == "bf16":   # bf16 travels as float32 holding bf16 values (simulator convention): keep the top half
        from ..dtypes import round_bf16
        return (round_bf16(arr).view(np.uint32) >> 16).astype("<u2").tobytes()
    return np.ascontiguousarray(arr, dtype=_RAW_DTYPES[dtype]).tobytes()


def _from_raw(data: bytes, dtype: str, shape: tuple[int, ...]) -> np.ndarray:
    if dtype == "bf16":
        bits = np.frombuffer(data, dtype="<u2").astype(np.uint32) << 16
        return bits.view(np.float32).reshape(shape)
    return np.frombuffer(data, dtype=_RAW_DTYPES[dtype]).reshape(shape).copy()


def run_launcher(spec: KernelSpec, launcher: Path, inputs: list[np.ndarray], output_shapes: list[tuple[int, ...]],
                 attrs: dict | None = None, *, device: int = 0) -> list[np.ndarray]:
    """Run the built launcher once: inputs to ``input/*.bin``, outputs back from ``output/*.bin``."""
    dims = _dims_of(spec, [np.asarray(a) for a in inputs])
    for t, shape in zip(spec.outputs, output_shapes):
        want = tuple(d if isinstance(d, int) else dims[d] for d in t.shape)
        if tuple(shape) != want:
            raise UserError(f"output {t.name} should have shape {want} for these inputs, not {tuple(shape)}")
    work = Path(tempfile.mkdtemp(prefix=f"{spec.op_name}-run-"))
    try:
        (work / "input").mkdir()
        (work / "output").mkdir()
        for t, arr in zip(spec.inputs, inputs):
            (work / "input" / f"{t.name}.bin").write_bytes(_to_raw(np.asarray(arr), t.dtype))
        args = [f"{d}={n}" for d, n in dims.items()]
        args += [f"{name}={int(v) if isinstance(v, bool) else v}" for name, v in (attrs or {}).items()]
        env = dict(os.environ)
        # ascendc.cmake links without RPATH: the kernel library is found through LD_LIBRARY_PATH.
        env["LD_LIBRARY_PATH"] = os.pathsep.join(filter(None, [str(launcher.parent / "lib"),
                                                                env.get("LD_LIBRARY_PATH")]))
        _run([str(launcher), *args, f"device={device}"], work, f"the {spec.op_name} launcher", RUN_TIMEOUT_S, env)
        return [_from_raw((work / "output" / f"{t.name}.bin").read_bytes(), t.dtype, tuple(shape))
                for t, shape in zip(spec.outputs, output_shapes)]
    finally:
        shutil.rmtree(work, ignore_errors=True)


def build_and_run(spec: KernelSpec, project_dir: Path, inputs: list[np.ndarray],
                  output_shapes: list[tuple[int, ...]], attrs: dict | None = None, *,
                  soc_version: str = SOC_VERSION, device: int = 0) -> list[np.ndarray]:
    """Build ``spec``'s direct-call project with CANN and run the kernel once on the NPU.

    ``inputs`` are NumPy arrays in the kernel's input order; ``attrs`` override the kernel's
    attribute defaults. Follows the documented CANN 8.x kernel-launch flow; it cannot be
    exercised without an NPU and has not been (docs/backends.md).
    """
    launcher = build_project(spec, project_dir, soc_version=soc_version)
    return run_launcher(spec, launcher, inputs, output_shapes, attrs, device=device)


def verify_on_npu(lowered, *, draws=None, shapes=None, trials: int | None = None, seed: int = 0):
    """Verify a lowered kernel on the NPU against torch, as ``lower`` does on the simulator.

    ``lowered`` is an ``ascendcraft.lower.Lowered``. The project is built once in a temporary
    directory and the launcher runs once per trial, on ``draws`` (the check's, by default new
    ones under the verification policy). Untested on hardware.
    """
    from ..binding import bind, gm_arrays, parameter_arrays
    from ..verify import verify

    spec = lowered.spec
    project = Path(tempfile.mkdtemp(prefix=f"ascendcraft-{spec.op_name}-"))
    launcher = build_project(spec, project)
    shapes = shapes or lowered.check.shapes
    binding, plan = bind(lowered.run.final.kernel, shapes)
    params = parameter_arrays(plan, shapes)

    def run(inputs, outputs):
        arrays = gm_arrays(plan, inputs, outputs, params)
        results = run_launcher(spec, launcher, [arrays[t.name] for t in spec.inputs], [o.shape for o in outputs],
                               binding.attrs)
        for out, result in zip(outputs, results):
            out[...] = result
    if draws is None:
        from ..verify import DEFAULT_TRIALS, make_draws
        draws = make_draws(shapes, trials=trials or DEFAULT_TRIALS, seed=seed)
    return verify(run, shapes, draws=draws, precision=lowered.check.report.precision)
