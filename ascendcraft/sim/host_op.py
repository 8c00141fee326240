"""``run_op``: a CANN project's op run end to end on the simulator. The project's own host code decides the
tiling (``sim/host.py``), then ``op_kernel/<op>.cpp`` is built with ``op_host``'s tiling header and the
DTYPE_/ORIG_DTYPE_/FORMAT_ macros a CANN build passes, and run with that tiling, tiling key, block dim and
workspace. See docs/simulator.md, "CANN projects (op_host on the simulator)"."""
from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..chips import DEFAULT_CHIP
from ..errors import UserError
from .build import build_kernel
from .host import HostTiling, OpSignature, _describe, _signature, tiling_for
from .host_build import build_host
from .host_project import DTYPES, FORMATS, Project, dtype, dtype_of_ge_name, read_project
from .host_run import HOST_TIMEOUT_S
from .result import SimResult
from .runner import GmSpec, gm, run_kernel


@dataclass(frozen=True)
class OpRun:
    """One run of an op: its outputs in OpDef order (NumPy arrays; empty in cost-only runs), the simulator's
    result (diagnostics, modeled time, log), the tiling the host code chose and its fields as the kernel's
    tiling struct reads them."""

    outputs: tuple
    result: SimResult
    tiling: HostTiling
    signature: OpSignature
    tiling_fields: dict
    inputs: tuple = ()      # the inputs as the run left them (an in-place operator's results), OpDef order

    @property
    def ok(self) -> bool:
        return self.result.ok


def run_op(project_dir, inputs: list, attrs: dict | None = None, outputs=None, chip: str = DEFAULT_CHIP,
           cost_only: bool = False, *, op: str | None = None, dtypes: dict | None = None, lenient: bool = False,
           timeout_s: float = 60, host_timeout_s: float = HOST_TIMEOUT_S, memory_limit_mb: int = 4096) -> OpRun:
    """Run the project's op on ``inputs`` (OpDef order; ``None`` for an absent optional input; :func:`gm` specs
    allowed with ``cost_only``) with ``attrs``. ``outputs``: ``None`` to infer them (InferShape, then
    InferDataType or the OpDef's dtype table), or a list of arrays / ``(shape, dtype)`` pairs. ``dtypes``
    names inputs/outputs that hold bf16 (``{"x": "bfloat16"}``: float32 arrays of bf16-exact values)."""
    project = read_project(project_dir)
    host = build_host(project)
    sig = _signature(project, host, _describe(project, host), op)
    overrides = {k: dtype(v) for k, v in (dtypes or {}).items()}
    unknown = set(overrides) - {p.name for p in sig.inputs + sig.outputs}
    if unknown:
        raise UserError(f"dtypes: {sig.name} has no input or output {sorted(unknown)}")
    if len(inputs) > len(sig.inputs):
        raise UserError(f"{sig.name} takes {len(sig.inputs)} inputs ({', '.join(p.name for p in sig.inputs)}); "
                        f"got {len(inputs)}")
    ins = list(inputs) + [None] * (len(sig.inputs) - len(inputs))
    case_inputs = []
    for p, v in zip(sig.inputs, ins):
        if v is None:
            case_inputs.append(None)
            continue
        # a DYNAMIC input is a list of tensors (its kernel parameter a ListTensorDesc block)
        tensors = _tensors(p, v)
        specs = []
        for k, t in enumerate(tensors):
            where = p.name if p.param_type != "DYNAMIC" else f"{p.name}[{k}]"
            if not isinstance(t, (np.ndarray, GmSpec)):
                raise UserError(f"input {where}: pass a NumPy array" + (" or a gm() spec" if cost_only else ""))
            if isinstance(t, GmSpec) and not cost_only:
                raise UserError(f"input {where}: a gm() spec needs cost_only=True; pass an array")
            spec = {"shape": list(t.shape), "dtype": overrides.get(p.name, dtype(t.dtype)).name}
            if isinstance(t, np.ndarray):
                spec["value"] = t
            specs.append(spec)
        case_inputs.append(specs if p.param_type == "DYNAMIC" else specs[0])
    given = [None if c is None else dtype((c[0] if isinstance(c, list) else c)["dtype"]) for c in case_inputs]
    why = unregistered(sig, given)
    if why:         # CANN selects a kernel by the OpDef's dtype combinations: no match, no launch
        raise UserError(why, hint="pass inputs of a registered combination, or add this one to the OpDef's "
                                  "DataType lists")
    longest = max((len(c) for c in case_inputs if isinstance(c, list)), default=1)
    if longest > 1 and any(p.param_type == "DYNAMIC" for p in sig.outputs):
        raise UserError(f"{sig.name}: a DYNAMIC output of several tensors is not emulated (its input lists hold "
                        f"{longest}): the host code infers one shape per output", hint="pass lists of one tensor")
    case = {"inputs": case_inputs, "attrs": dict(attrs or {}), "outputs": _output_specs(sig, outputs, overrides)}
    ht = tiling_for(host, sig, case, chip, timeout_s=host_timeout_s)
    if ht.block_dim < 1:
        raise UserError(f"the TilingFunc of {sig.name} set block dim {ht.block_dim}: call "
                        f"context->SetBlockDim(n) with n >= 1")
    art = _build(project, sig, ht, ins, overrides, chip, lenient)
    args, bf16 = [], {}
    out_positions = []
    for i, (p, v) in enumerate(zip(sig.inputs, ins)):
        tensors = _tensors(p, v)
        first = tensors[0] if tensors else None
        args.append(tensors if p.param_type == "DYNAMIC" else v)
        if (overrides.get(p.name) or (dtype(first.dtype) if first is not None else None)) is DTYPES["bfloat16"]:
            bf16[i] = "bfloat16"
    for k, (p, shape, dt_name) in enumerate(zip(sig.outputs, ht.output_shapes, ht.output_dtypes)):
        dt = dtype(dt_name)
        if dt.numpy is None:
            raise UserError(f"output {p.name} has type {dt_name}, which the simulator does not pass to kernels")
        given = outputs[k] if isinstance(outputs, (list, tuple)) and isinstance(outputs[k], np.ndarray) else None
        i = len(sig.inputs) + k
        out_positions.append(i)
        if dt.name == "bfloat16":
            bf16[i] = "bfloat16"
        if cost_only:
            buf = gm(shape, dt.numpy)
        else:
            buf = np.array(given, dtype=dt.numpy, copy=True) if given is not None else np.zeros(shape, dt.numpy)
        # a DYNAMIC output: one tensor (the host code infers one shape per output), passed as a list
        args.append([buf] if p.param_type == "DYNAMIC" else buf)
    has_tiling = any(p.kind == "tiling" for p in art.params)
    res = run_kernel(art, args, tiling=ht.tiling if has_tiling else None, block_dim=ht.block_dim,
                     tiling_key=ht.tiling_key, workspace_bytes=ht.user_workspace, outputs=out_positions,
                     dtypes=bf16, chip=chip, cost_only=cost_only, lenient=lenient, timeout_s=timeout_s,
                     memory_limit_mb=memory_limit_mb)
    gm_index = [i for i, p in enumerate(art.params) if p.kind not in ("workspace", "tiling")]
    outs = () if cost_only or not res.outputs else tuple(
        _single(res.outputs[gm_index[i]]) for i in out_positions)
    after = () if cost_only or not res.outputs else tuple(
        None if v is None else _single(res.outputs[gm_index[i]]) for i, v in enumerate(ins))
    return OpRun(outs, res, ht, sig, decode_tiling(res.tiling_layout, ht.tiling), after)


def unregistered(sig: OpSignature, given: list) -> str | None:
    """Why no dtype combination of the OpDef (column i of every input's DataType list) takes inputs of
    the dtypes ``given`` (a DType, or None for an absent input), or None when one does (or the OpDef
    lists none)."""
    columns = max((len(p.dtypes) for p in sig.inputs), default=0)
    if not columns:
        return None

    def takes(i: int) -> bool:
        return all(d is None or not p.dtypes or dtype_of_ge_name(p.dtypes[i % len(p.dtypes)]) is d
                   for p, d in zip(sig.inputs, given))
    if any(takes(i) for i in range(columns)):
        return None
    have = ", ".join(f"{p.name} {d.name}" for p, d in zip(sig.inputs, given) if d is not None)
    combos = "; ".join(", ".join(f"{p.name} {_ge_label(p.dtypes[i % len(p.dtypes)])}" for p in sig.inputs if p.dtypes)
                       for i in range(columns))
    return f"{sig.name} registers no dtype combination for its inputs ({have}); its OpDef takes: {combos}"


def _ge_label(ge_name: str) -> str:
    d = dtype_of_ge_name(ge_name)
    return d.name if d is not None else ge_name


def _tensors(p, v) -> list | None:
    """An input's tensors: None when it is absent, a DYNAMIC one's non-empty list of arrays (or gm()
    specs), else the one."""
    if v is None:
        return None
    if p.param_type != "DYNAMIC":
        return [v]
    if not isinstance(v, (list, tuple)) or not v:
        raise UserError(f"input {p.name} is DYNAMIC (a tensor list): pass a non-empty list of arrays")
    return list(v)


def _single(out):
    """An output as run_op returns it: a DYNAMIC output's one tensor."""
    return out[0] if isinstance(out, list) else out


def _output_specs(sig: OpSignature, outputs, overrides: dict) -> Any:
    if outputs is None:
        return "infer"
    if len(outputs) != len(sig.outputs):
        raise UserError(f"{sig.name} has {len(sig.outputs)} outputs ({', '.join(p.name for p in sig.outputs)}); "
                        f"got {len(outputs)}")
    specs = []
    for p, o in zip(sig.outputs, outputs):
        if isinstance(o, (np.ndarray, GmSpec)):
            shape, dt = list(o.shape), o.dtype
        elif isinstance(o, (tuple, list)) and len(o) == 2:
            shape, dt = o
        else:
            raise UserError(f"output {p.name}: give an array or a (shape, dtype) pair")
        specs.append({"shape": None if shape is None else list(shape),
                      "dtype": overrides[p.name].name if p.name in overrides else (None if dt is None else dtype(dt).name)})
    return specs


def _build(project: Project, sig: OpSignature, ht: HostTiling, ins: list, overrides: dict, chip: str, lenient: bool):
    """op_kernel/<op>.cpp built with the op_host tiling header and a CANN build's per-parameter macros
    (asc-devkit cmake/asc/fwk_modules/util/ascendc_impl_build.py: -DDTYPE_<NAME>=<C type>,
    -DORIG_DTYPE_<NAME>=DT_..., -DFORMAT_<NAME>=FORMAT_...; absent optional inputs get none)."""
    name, source = project.kernel_source(sig.name)
    defines = {}
    for p, v in zip(sig.inputs, ins):
        if v is not None:
            _param_macros(defines, p.name, overrides.get(p.name) or dtype(_tensors(p, v)[0].dtype))
    for p, dt_name in zip(sig.outputs, ht.output_dtypes):
        _param_macros(defines, p.name, dtype(dt_name))
    kernel_text = "\n".join(project.kernel_files.values())
    if re.search(r"\bORIG_DTYPE_\w+|\bFORMAT_[A-Z0-9_]+\b", kernel_text.replace("FORMAT_ND", "")):
        # kernels compare ORIG_DTYPE_X with DT_FLOAT16 in #if: CANN's kernel_type.h defines those numbers
        # (asc-devkit include/basic_api/kernel_type.h); here only for such kernels, after the tiling header
        prelude = ['#include "tiling/tiling_api.h"']
        prelude += [f"#define {d.ge_name} {d.ge}" for d in DTYPES.values()]
        prelude += [f"#define FORMAT_{f} {v}" for f, v in FORMATS.items()]
        source = "\n".join(prelude) + f'\n#line 1 "{name}"\n' + source
    extra = {k: v for k, v in project.host_files.items() if not k.endswith((".cpp", ".cc", ".cxx"))}
    extra.update({k: v for k, v in project.kernel_files.items() if k != name})
    tiling = project.tiling_header(sig.name)
    art = build_kernel(source, sig.kernel_name, tiling_header=tiling[1] if tiling else None,
                       tiling_struct=tiling[2] if tiling else None, chip=chip, lenient=lenient, extra_sources=extra,
                       defines=defines)
    return _positional_params(art, sig)


def _param_macros(defines: dict, name: str, dt) -> None:
    key = re.sub(r"\W", "_", name).upper()
    defines[f"DTYPE_{key}"] = dt.ctype
    defines[f"ORIG_DTYPE_{key}"] = dt.ge_name
    defines[f"FORMAT_{key}"] = "FORMAT_ND"


def _positional_params(art, sig: OpSignature):
    """A CANN kernel's parameters are the OpDef's inputs, its outputs, then workspace and tiling, whatever
    their names: the last two are marked so when the names do not say it."""
    n = len(sig.inputs) + len(sig.outputs)
    pointers = [p for p in art.params if p.kind != "scalar"]
    if len(pointers) != n + 2 or len(art.params) != n + 2:
        raise UserError(f"the kernel {sig.kernel_name} takes {len(art.params)} parameters "
                        f"({', '.join(p.name for p in art.params)}); the OpDef of {sig.name} needs {n} GM tensors "
                        f"({', '.join(p.name for p in sig.inputs + sig.outputs)}), then workspace and tiling")
    params = list(art.params)
    params[:n] = [dataclasses.replace(p, kind="gm") for p in params[:n]]
    params[n] = dataclasses.replace(params[n], kind="workspace")
    params[n + 1] = dataclasses.replace(params[n + 1], kind="tiling")
    art.params = params
    return art


def decode_tiling(layout: list, raw: bytes) -> dict:
    """The tiling struct's fields (the kernel harness's layout: name, int/float[n], offset, element size) read
    from the bytes the TilingFunc saved (zero past their end, as the kernel reads them)."""
    fields: dict[str, Any] = {}
    for f in layout:
        m = re.fullmatch(r"(int|float)(?:\[(\d+)\])?", f["type"])
        if not m:
            continue
        size, count = int(f["size"]), int(m.group(2) or 1)
        kind = ("f" if m.group(1) == "float" else "i") + str(size)
        try:
            np_type = np.dtype("<" + kind)
        except TypeError:
            continue
        end = f["offset"] + size * count
        chunk = raw[f["offset"]:end].ljust(size * count, b"\0")
        values = np.frombuffer(chunk, dtype=np_type).tolist()
        fields[f["name"]] = values if m.group(2) else values[0]
    return fields
