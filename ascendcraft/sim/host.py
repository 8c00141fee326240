"""A CANN custom-operator project's host side on the simulator: its OpDef described, its TilingFunc run on a
case (``run_tiling``), and the whole op run (``run_op`` in ``sim/host_op.py``: tiling, then the kernel with the
tiling the project's own host code chose). See docs/simulator.md, "CANN projects (op_host on the simulator)".

    sig = describe_project("MyOp/")                      # OpSignature: inputs, outputs, attrs, what is registered
    t = run_tiling("MyOp/", {"inputs": [{"shape": [8, 1024], "dtype": "float16"}], "attrs": {"alpha": 0.5}})
    t.block_dim, t.tiling_key, t.tiling, t.workspace_sizes, t.output_shapes
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..chips import DEFAULT_CHIP, load_chip
from ..errors import UserError
from .host_build import HostArtifact, build_host
from ..cann_names import snake_case
from .host_project import Project, dtype, dtype_of_ge_name, format_value, read_project
from .host_run import HOST_TIMEOUT_S, HostRunError, platform_lines, run_host
from .job import to_bf16_bits
from .runner import GmSpec


@dataclass(frozen=True)
class ParamSig:
    """An input or output of the OpDef: ``param_type`` REQUIRED, OPTIONAL or DYNAMIC; ``dtypes`` and
    ``formats`` the OpDef's lists (ge names, column i of every parameter together is one combination)."""

    name: str
    param_type: str
    dtypes: tuple[str, ...]
    formats: tuple[str, ...]
    value_depend: bool
    scalar: bool


@dataclass(frozen=True)
class AttrSig:
    """An attribute: ``type`` int, float, bool, str, list_int, list_float, list_bool or list_list_int."""

    name: str
    type: str
    required: bool
    default: Any


@dataclass(frozen=True)
class OpSignature:
    name: str
    kernel_name: str                 # the kernel entry: the op type in snake case
    inputs: tuple[ParamSig, ...]
    outputs: tuple[ParamSig, ...]
    attrs: tuple[AttrSig, ...]
    infer_shape: bool
    infer_dtype: str | None          # "InferDataType", "first_input" (InferOutDataTypeSameWithFirstInput), None
    tiling: bool
    tiling_parse: bool
    max_tiling_data_size: int
    data_dependency: tuple[int, ...]  # IR input indices IMPL_OP registered as data-dependent
    configs: tuple[str, ...]          # AICore().AddConfig SoCs
    sources: tuple[str, ...]          # the op_host files compiled
    skipped_sources: tuple[str, ...]  # op_host files of the aclnn op-API layer, not compiled
    other_ops: tuple[str, ...]        # further OP_ADDs in the project


@dataclass(frozen=True)
class HostTiling:
    """What the project's TilingFunc decided for one case on one chip."""

    op: str
    chip: str
    block_dim: int
    tiling_key: int
    tiling: bytes                     # the first data_size bytes of the tiling buffer
    data_size: int
    capacity: int
    workspace_sizes: tuple[int, ...]  # GetWorkspaceSizes(n) as the TilingFunc set them (system + user)
    system_workspace: int             # PlatformAscendC::GetLibApiWorkSpaceSize() on the chip
    output_shapes: tuple[tuple[int, ...], ...]
    output_dtypes: tuple[str, ...]    # NumPy-style names ("float16", "bool", "bfloat16"), ge names otherwise
    need_atomic: bool
    schedule_mode: int
    log: str                          # what the host code printed
    sandboxed: bool

    @property
    def user_workspace(self) -> int:
        """The workspace after the system part (CANN allows one workspace; GetLibApiWorkSpaceSize.md: the
        TilingFunc sets user + system). 0 when the TilingFunc asked for less than the system part."""
        return max(0, self.workspace_sizes[0] - self.system_workspace) if self.workspace_sizes else 0


def describe_project(project_dir, *, op: str | None = None) -> OpSignature:
    """The project's OpDef (built and run in the host harness; cached by content hash)."""
    project = read_project(project_dir)
    art = build_host(project)
    return _signature(project, art, _describe(project, art), op)


def run_tiling(project_dir, case: dict, chip: str = DEFAULT_CHIP, *, op: str | None = None,
               timeout_s: float = HOST_TIMEOUT_S) -> HostTiling:
    """The project's InferShape/InferDataType (when ``case["outputs"]`` is ``"infer"``, the default) and
    TilingFunc run on ``case`` with the platform of ``chip``.

    ``case``: ``inputs`` in OpDef order, each a NumPy array, :func:`~ascendcraft.sim.gm` spec or
    ``{"shape", "dtype", "format"="ND", "value"}`` (``value``: data for a data-dependent input), ``None`` for an
    absent optional input, a list of those for a DYNAMIC one; ``outputs``: ``"infer"`` or specs (a spec's
    ``shape``/``dtype`` may be None: inferred); ``attrs``: ``{name: value}`` (others take their default)."""
    project = read_project(project_dir)
    art = build_host(project)
    sig = _signature(project, art, _describe(project, art), op)
    return tiling_for(art, sig, case, chip, timeout_s=timeout_s)


def tiling_for(art: HostArtifact, sig: OpSignature, case: dict, chip: str, *,
               timeout_s: float = HOST_TIMEOUT_S) -> HostTiling:
    chip_obj = load_chip(chip)
    lines = ["mode tiling", f"op {sig.name}", *platform_lines(chip_obj), *case_lines(sig, case)]
    what = f"{sig.name} ({', '.join(sig.sources)})"
    ans, log, sandboxed = run_host(art, lines, what=what, timeout_s=timeout_s)
    if "error" in ans:
        raise HostRunError(f"{sig.name}: {ans['error']}", phase=ans.get("phase", ""), log=log, status=ans.get("status"),
                           hint=("what it printed last:\n" + "\n".join(log.splitlines()[-15:])) if log.strip() else None)
    if ans.get("errors"):
        raise HostRunError(f"TilingFunc of {sig.name}: " + "; ".join(ans["errors"]), phase="TilingFunc", log=log)
    unknown = [p.name for p, t in zip(sig.outputs, ans["output_dtypes"]) if t == "DT_UNDEFINED"]
    if unknown:
        given = ", ".join(f"{p.name} {_dtype_name(t)}" for p, t in zip(sig.inputs, ans.get("input_dtypes", [])))
        raise UserError(f"{sig.name}: the data type of output {', '.join(unknown)} is not known: "
                        + ("InferDataType left it unset" if sig.infer_dtype else
                           f"the op has no InferDataType and no column of its OpDef's DataType lists matches the "
                           f"inputs ({given})"), hint="give the outputs' dtypes in the case (outputs=...)")
    return HostTiling(
        op=sig.name, chip=chip, block_dim=int(ans["block_dim"]), tiling_key=int(ans["tiling_key"]),
        tiling=bytes.fromhex(ans["tiling"]), data_size=int(ans["data_size"]), capacity=int(ans["capacity"]),
        workspace_sizes=tuple(int(x) for x in ans["workspaces"]), system_workspace=int(ans["lib_api_workspace"]),
        output_shapes=tuple(tuple(int(d) for d in s) for s in ans["outputs"]),
        output_dtypes=tuple(_dtype_name(t) for t in ans["output_dtypes"]),
        need_atomic=bool(ans["need_atomic"]), schedule_mode=int(ans["schedule_mode"]), log=log, sandboxed=sandboxed)


# ----------------------------------------------------------------------------- describe
def _describe(project: Project, art: HostArtifact) -> dict:
    """The harness's describe answer, kept beside the executable (the OpDef does not change with the case)."""
    cached = art.exe.parent / "describe.json"
    try:
        return json.loads(cached.read_text())
    except (OSError, ValueError):
        pass
    ans, log, _ = run_host(art, ["mode describe"], what=f"{project.root.name} ({', '.join(art.sources)})")
    if "error" in ans:
        raise HostRunError(f"{ans.get('phase', 'OpDef')} of {project.root.name}: {ans['error']}", log=log)
    tmp = cached.with_name(f"describe.json.{id(ans)}.tmp")
    try:
        tmp.write_text(json.dumps(ans))
        tmp.replace(cached)
    except OSError:
        pass
    return ans


def _signature(project: Project, art: HostArtifact, desc: dict, op: str | None) -> OpSignature:
    ops = desc.get("ops", [])
    names = [o["name"] for o in ops]
    if not ops:
        only = desc.get("impl_only") or []
        raise UserError(f"{project.root}: the op_host sources register no OpDef (OP_ADD)"
                        + (f"; IMPL_OP registers {', '.join(only)} without one" if only else ""),
                        hint="an msopgen project defines `class Op : public OpDef {...}; OP_ADD(Op);` in op_host")
    if op is not None:
        chosen = [o for o in ops if o["name"] == op]
        if not chosen:
            raise UserError(f"{project.root}: no OpDef named {op}", hint="registered: " + ", ".join(names))
    else:
        kernels = {k for k in project.kernel_files if k.endswith(".cpp")}
        chosen = [o for o in ops if snake_case(o["name"]) + ".cpp" in kernels] or ops
        if len(chosen) > 1:
            raise UserError(f"{project.root}: several OpDefs ({', '.join(names)}); name one with op=")
    o = chosen[0]

    def param(p):
        return ParamSig(p["name"], p["param_type"], tuple(p["dtypes"]), tuple(p["formats"]), bool(p["value_depend"]),
                        bool(p["scalar"]))

    rule = o["infer_dtype"]
    return OpSignature(
        name=o["name"], kernel_name=snake_case(o["name"]), inputs=tuple(map(param, o["inputs"])),
        outputs=tuple(map(param, o["outputs"])),
        attrs=tuple(AttrSig(a["name"], a["type"], bool(a["required"]), _default(a)) for a in o["attrs"]),
        infer_shape=bool(o["infer_shape"]),
        infer_dtype="InferDataType" if rule is True else "first_input" if rule == "first_input" else None,
        tiling=bool(o["tiling"]), tiling_parse=bool(o["tiling_parse"]),
        max_tiling_data_size=int(o["max_tiling_data_size"]), data_dependency=tuple(o["data_dependency"]),
        configs=tuple(o["configs"]), sources=project.host_sources, skipped_sources=project.skipped_sources,
        other_ops=tuple(n for n in names if n != o["name"]))


def _default(a: dict):
    """An attribute's default in Python form (JSON writes 1.0 as 1; infinities and NaN as strings)."""
    d = a["default"]
    if d is not None and a["type"] == "float":
        return float(d)
    if d is not None and a["type"] == "list_float":
        return [float(x) for x in d]
    return d


def _dtype_name(ge_name: str) -> str:
    d = dtype_of_ge_name(ge_name)
    return d.name if d else ge_name


# ----------------------------------------------------------------------------- the case
def _spec(value, where: str) -> tuple[list[int] | None, Any, str, np.ndarray | None]:
    """(shape, dtype, format, data) of an input/output given as an array, a gm() spec or a dict."""
    if isinstance(value, np.ndarray):
        return list(value.shape), value.dtype, "ND", value
    if isinstance(value, GmSpec):
        return list(value.shape), value.dtype, "ND", None
    if isinstance(value, dict):
        unknown = set(value) - {"shape", "dtype", "format", "value"}
        if unknown:
            raise UserError(f"{where}: unknown keys {sorted(unknown)}; a spec has shape, dtype, format, value")
        data = value.get("value")
        shape = value.get("shape")
        if shape is None and data is not None:
            shape = list(np.shape(data))
        return (None if shape is None else [int(d) for d in shape]), value.get("dtype"), value.get("format", "ND"), \
            (None if data is None else np.asarray(data))
    raise UserError(f"{where}: give an array, a gm() spec or {{'shape': ..., 'dtype': ...}}, not {type(value).__name__}")


def _data_hex(data: np.ndarray, dt) -> str:
    if dt.name == "bfloat16":
        return to_bf16_bits(data).tobytes().hex()
    return np.ascontiguousarray(data, dtype=dt.numpy).tobytes().hex() if dt.numpy is not None else ""


def case_lines(sig: OpSignature, case: dict) -> list[str]:
    """The case in the harness's line form (sim/host/host_main.cpp): inputs by IR index, outputs, attributes."""
    unknown = set(case) - {"inputs", "outputs", "attrs"}
    if unknown:
        raise UserError(f"case: unknown keys {sorted(unknown)}; a case has inputs, outputs, attrs")
    inputs = list(case.get("inputs") or [])
    if len(inputs) > len(sig.inputs):
        raise UserError(f"{sig.name} has {len(sig.inputs)} inputs ({', '.join(p.name for p in sig.inputs)}); the case "
                        f"gives {len(inputs)}")
    lines, instance = [], 0
    for ir, p in enumerate(sig.inputs):
        value = inputs[ir] if ir < len(inputs) else None
        if value is None:
            if p.param_type != "OPTIONAL":
                raise UserError(f"input {p.name} of {sig.name} is {p.param_type}: give it")
            lines.append(f"absent {ir}")
            continue
        tensors = list(value) if p.param_type == "DYNAMIC" and isinstance(value, (list, tuple)) else [value]
        for k, t in enumerate(tensors):
            where = f"input {p.name}" + (f"[{k}]" if len(tensors) > 1 else "")
            shape, dt_name, fmt, data = _spec(t, where)
            if shape is None or dt_name is None:
                raise UserError(f"{where}: give its shape and dtype")
            dt = dtype(dt_name)
            lines.append(f"input {ir} {dt.ge} {format_value(fmt)} {len(shape)} " + " ".join(map(str, shape)))
            if data is not None and (p.value_depend or ir in sig.data_dependency):
                lines.append(f"value {instance} {_data_hex(data, dt) or '-'}")
            instance += 1
    outputs = case.get("outputs", "infer")
    if outputs is None or outputs == "infer":
        outputs = [None] * len(sig.outputs)
    if len(outputs) != len(sig.outputs):
        raise UserError(f"{sig.name} has {len(sig.outputs)} outputs; the case gives {len(outputs)}")
    for ir, (p, value) in enumerate(zip(sig.outputs, outputs)):
        shape, dt_name, fmt = (None, None, "ND") if value is None else _spec(value, f"output {p.name}")[:3]
        ge = -1 if dt_name is None else dtype(dt_name).ge
        dims = "-1" if shape is None else f"{len(shape)} " + " ".join(map(str, shape))
        lines.append(f"output {ir} {ge} {format_value(fmt)} {dims}")
    attrs = dict(case.get("attrs") or {})
    known = {a.name: a for a in sig.attrs}
    for name, value in attrs.items():
        if name not in known:
            raise UserError(f"{sig.name} has no attribute {name!r}",
                            hint="attributes: " + (", ".join(known) or "none"))
        lines.append(f"attr {name} {_attr_text(known[name], value)}")
    return lines


def _attr_text(a: AttrSig, value) -> str:
    """An attribute value in the harness's canonical text (host_main.cpp attr_value)."""
    try:
        if a.type == "int":
            return str(int(value))
        if a.type == "float":
            return repr(float(value))
        if a.type == "bool":
            return "1" if bool(value) else "0"
        if a.type == "str":
            return str(value).encode().hex() or "-"
        if a.type in ("list_int", "list_float", "list_bool"):
            conv = {"list_int": lambda v: str(int(v)), "list_float": lambda v: repr(float(v)),
                    "list_bool": lambda v: "1" if bool(v) else "0"}[a.type]
            items = list(value)
            return " ".join([str(len(items)), *map(conv, items)])
    except (TypeError, ValueError) as err:
        raise UserError(f"attribute {a.name} is {a.type}; {value!r} is not: {err}") from None
    raise UserError(f"attribute {a.name} has type {a.type}, which the simulator does not pass to host code")
