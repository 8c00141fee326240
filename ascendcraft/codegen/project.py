"""The projects around a lowered kernel: everything needed to build and run it with CANN.

``write_project(spec, out_dir)`` writes, next to the kernel the lowering passes produced:

* an msopgen custom-operator project (``<op>.json``, ``op_host/``, ``op_kernel/``), the form
  MultiKernelBench's ``ascendc`` backend builds (ascendc_api.md 5.3);
* a kernel direct-call project (``CMakeLists.txt`` over CANN's ``ascendc.cmake``, ``kernel/``,
  ``host/main.cpp``, ``run.sh``) following the CANN 8.x kernel-launch samples (5.4);
* a torch_npu binding (``binding/``) that launches the direct-call build on torch tensors
  (codegen/bindings.py, with ModelNew);
* MultiKernelBench exports (``mkb/``): the direct-launch JSON and the six-string file.

None of it has run on an Ascend NPU here (docs/backends.md). Python prints the code that
depends on the kernel (argument lists, shape reads, checks) as short lists of lines; the
jinja2 templates in ``templates/`` hold the fixed skeletons and receive only those lines.
"""
from __future__ import annotations

import json
from pathlib import Path

from ..dtypes import ITEMSIZE
from .bindings import render_aclnn_binding, render_binding, render_model
from .host_shapes import Layout, ShapeAccess, helpers_called
from .names import cpp_name, op_arg_name
from .project_common import (ATTR_BINDING, ATTR_CPP, ProjectNames, attr_index, attr_kind, attr_variable,
                             check_names, computed_extent, core_num_call, cpp_number, dim_literal, dim_origins,
                             dim_symbols, host_field_lines, json_default, launch_call, local_field_value, render_template,
                             tensor_index, tensor_named, workspace_cpp)
from .spec import GE_DTYPES, KernelSpec, TensorArg
from .tiling import FIELD_SIZES, ordered_fields, render_tiling_header

SOC_VERSION = "Ascend910B2"          # the default chip of the project (DESIGN.md 1)
OPDEF_CONFIG = "ascend910b"          # OpDef AICore().AddConfig value for Atlas A2 (MKB prompts)
MSOPGEN_DEVICE = "ai_core-Ascend910B2"

# DSL dtype -> msopgen JSON "type" (MKB prompts/ascendc_new_model_*.py use "float").
MSOPGEN_TYPES = {"f16": "float16", "bf16": "bfloat16", "f32": "float", "i8": "int8", "i16": "int16",
                 "i32": "int32", "i64": "int64", "u8": "uint8", "bool": "bool"}
# What the .bin files hold (bf16: the raw 16-bit patterns, e.g. float32 bits >> 16 as uint16).
_NUMPY_NAMES = {"f16": "float16", "bf16": "uint16 (bf16 bits)", "f32": "float32", "i8": "int8", "i16": "int16",
                "i32": "int32", "i64": "int64", "u8": "uint8", "bool": "bool"}


# ----------------------------------------------------------------------------- msopgen project

def msopgen_json(spec: KernelSpec) -> list[dict]:
    """The msopgen operator description (``msopgen gen -i <op>.json``; MKB project_json_src)."""
    def tensor(t: TensorArg) -> dict:
        return {"name": op_arg_name(t.name), "param_type": "required", "format": ["ND"] * len(t.columns),
                "type": [MSOPGEN_TYPES[d] for d in t.columns]}

    attrs = []
    for a in spec.attrs:
        entry = {"name": op_arg_name(a.name), "param_type": "required" if a.default is None else "optional",
                 "type": attr_kind(a.dtype)}
        if a.default is not None:
            entry["default_value"] = json_default(a.default, attr_kind(a.dtype))
        attrs.append(entry)
    op = {"op": spec.op_type, "language": "cpp", "input_desc": [tensor(t) for t in spec.inputs],
          "output_desc": [tensor(t) for t in spec.outputs]}
    if attrs:
        op["attr"] = attrs
    return [op]


def _gert_attr(spec: KernelSpec, name: str) -> str:
    """An attribute's value in TilingFunc and InferShape."""
    kind = attr_kind(spec.attrs[attr_index(spec, name)].dtype)
    return f"*context->GetAttrs()->GetAttrPointer<{ATTR_CPP[kind]}>({attr_index(spec, name)})"


def _with_holders(layout: Layout, tensors: list[TensorArg]) -> list[TensorArg]:
    """``tensors`` and the inputs their counted star dims take their counts against, in input order."""
    need = {t.name for t in tensors} | {layout.holder(d).name for d in layout.counted(tensors)}
    return [t for t in layout.spec.inputs + layout.spec.outputs if t.name in need]


def _tiling_func_lines(spec: KernelSpec) -> list[str]:
    """TilingFunc: one ``tiling.set_<field>(...)`` per field, read from the tiling context, after
    the locals holding the star tensors' shapes and the counted star dims' runs."""
    def storage(t: TensorArg) -> str:
        role, i = tensor_index(spec, t.name)
        return f"context->{'GetInputShape' if role == 'input' else 'GetOutputShape'}({i})->GetStorageShape()"

    layout = Layout(spec, ShapeAccess("gert", lambda t: f"{cpp_name(t.name)}Shape" if t.star else storage(t),
                                      lambda name: _gert_attr(spec, name)))
    lines, read = [], []
    for f in ordered_fields(spec):
        if f.source[0] == "dim":
            t = tensor_named(spec, f.source[1])
            read.append(t)
            value = layout.extent(t, f.source[2])
        else:
            value = _gert_attr(spec, f.source[1])
        lines.append(f"tiling.set_{f.name}(static_cast<{f.ctype}>({value}));")
    stars = [t for t in _with_holders(layout, read) if t.star]
    prelude = _tiling_key_lines(spec)
    prelude += [f"const gert::Shape& {cpp_name(t.name)}Shape = {storage(t)};" for t in stars]
    prelude += layout.run_lines(stars, "ge::GRAPH_FAILED")
    for t in stars:
        prelude += layout.rank_check(t, "ge::GRAPH_FAILED")
    return prelude + lines


def _infer_shape_lines(spec: KernelSpec) -> list[str]:
    """Each output's shape from the inputs' shapes; a star dim's axes are the input's it is read from,
    an axis a const sizes is the const's definition over the inputs' dims and the attributes."""
    origins = dim_origins(spec)
    layout = Layout(spec, ShapeAccess("gert*", lambda t: f"{cpp_name(t.name)}Shape", lambda name: _gert_attr(spec, name)))
    computed = dict(spec.extents)

    read: list[TensorArg] = []        # the inputs the outputs' extents read, in order of first use

    def extent(o) -> str:
        read.append(o.tensor)
        return layout.extent(o.tensor, o.axis)

    def field_value(f) -> str:
        if f.source[0] == "attr":
            return _gert_attr(spec, f.source[1])
        return extent(origins[tensor_named(spec, f.source[1]).shape[f.source[2]]])

    def value(d) -> str:
        if isinstance(d, int):
            return str(d)
        return computed_extent(spec, d, field_value) if d in computed else extent(origins[d])
    values = [[value(d) for d in t.shape] for t in spec.outputs]
    used = _with_holders(layout, read)
    lines = [f"const gert::Shape* {cpp_name(t.name)}Shape = context->GetInputShape({spec.inputs.index(t)});"
             for t in used]
    lines += layout.run_lines(used, "GRAPH_FAILED")
    for t in used:
        lines += layout.rank_check(t, "GRAPH_FAILED")
    for j, (t, vs) in enumerate(zip(spec.outputs, values)):
        out = f"{cpp_name(t.name)}Shape"
        lines.append(f"gert::Shape* {out} = context->GetOutputShape({j});")
        lines += layout.infer_output(out, t, origins, vs)
    return lines


def _opdef_columns(t: TensorArg) -> tuple[str, str]:
    """(DataType list, Format list) of a tensor in the OpDef: one column per dtype the operator serves."""
    return ", ".join(GE_DTYPES[d] for d in t.columns), ", ".join("ge::FORMAT_ND" for _ in t.columns)


def _column_test(spec: KernelSpec, k: int, dtype_of) -> str:
    """A C++ condition: the inputs' dtypes (``dtype_of(i)``) are those of OpDef column ``k``."""
    return " && ".join(f"{dtype_of(i)} == {GE_DTYPES[t.columns[k]]}" for i, t in enumerate(spec.inputs)) or "true"


def _columns(spec: KernelSpec) -> int:
    return max((len(t.columns) for t in spec.inputs + spec.outputs), default=1)


def _by_column(spec: KernelSpec, dtype_of, then, failed: str) -> list[str]:
    """An if-chain over the OpDef's columns: ``then(k)``'s lines where the inputs' dtypes
    (``dtype_of(i)``) are column k's, ``return failed`` where they are none."""
    lines = []
    for k in range(_columns(spec)):
        lines += [f"{'if' if k == 0 else '} else if'} ({_column_test(spec, k, dtype_of)}) {{"]
        lines += [f"    {line}" for line in then(k)]
    return lines + ["} else {", f"    return {failed};", "}"]


def _infer_dtype_lines(spec: KernelSpec) -> list[str]:
    """InferDataType: the outputs' dtypes of the column the inputs' dtypes pick (one column: fixed)."""
    def sets(k: int) -> list[str]:
        return [f"context->SetOutputDataType({j}, {GE_DTYPES[t.columns[k]]});" for j, t in enumerate(spec.outputs)]
    if _columns(spec) == 1:
        return sets(0)
    return _by_column(spec, lambda i: f"context->GetInputDataType({i})", sets, "GRAPH_FAILED")


def _tiling_key_lines(spec: KernelSpec) -> list[str]:
    """TilingFunc: the tiling key of the column the inputs' dtypes pick (the combined kernel runs that
    instance: codegen/variants.py); nothing for an operator of one column."""
    if _columns(spec) == 1:
        return []
    return _by_column(spec, lambda i: f"context->GetInputDesc({i})->GetDataType()",
                      lambda k: [f"context->SetTilingKey({k});"], "ge::GRAPH_FAILED")


def _opdef_attr_lines(spec: KernelSpec) -> list[str]:
    lines = []
    for a in spec.attrs:
        kind = attr_kind(a.dtype)
        method = {"float": "Float", "int": "Int", "bool": "Bool"}[kind]
        if a.default is None:
            # [UNCONFIRMED] a REQUIRED attribute without a default value; MKB shows only OPTIONAL ones.
            lines.append(f'this->Attr("{op_arg_name(a.name)}").AttrType(REQUIRED).{method}();')
        else:
            lines.append(f'this->Attr("{op_arg_name(a.name)}").AttrType(OPTIONAL).{method}('
                         f'{cpp_number(a.default, kind)});')
    return lines


def render_op_host(spec: KernelSpec) -> str:
    names = ProjectNames.of(spec)
    tiling_lines, infer_shape_lines = _tiling_func_lines(spec), _infer_shape_lines(spec)
    return render_template(
        "op_host.cpp.j2", spec=spec, names=names, tiling_lines=tiling_lines, infer_shape_lines=infer_shape_lines,
        helpers=helpers_called(tiling_lines + infer_shape_lines),
        dtype_lines=_infer_dtype_lines(spec),
        inputs=[(op_arg_name(t.name), *_opdef_columns(t)) for t in spec.inputs],
        outputs=[(op_arg_name(t.name), *_opdef_columns(t)) for t in spec.outputs],
        attr_lines=_opdef_attr_lines(spec), core_num=core_num_call(spec),
        workspace=workspace_cpp(spec, "tiling.get_{}()"), opdef_config=OPDEF_CONFIG)


# ----------------------------------------------------------------------------- direct-call pieces

def render_tiling_struct(spec: KernelSpec) -> str:
    """``kernel/<op>_tiling_data.h``: the same layout as a plain struct, for the kernel and the host."""
    names = ProjectNames.of(spec)
    return render_template("tiling_data.h.j2", names=names, fields=ordered_fields(spec),
                           size=sum(FIELD_SIZES[f.ctype] for f in spec.tiling_fields))


def render_direct_kernel(spec: KernelSpec, *, inline_body: bool, launch_wrapper: bool) -> str:
    """The kernel translation unit of a direct-call build.

    ``inline_body`` pastes the kernel source (a self-contained file for MultiKernelBench);
    otherwise it includes ``op_kernel/<op>.cpp`` (an operator of several dtype instances pastes its
    first instance's: codegen/variants.py). ``launch_wrapper`` adds an ``extern "C"``
    host function with the ``<<<>>>`` launch, for builds that compile the file with bisheng
    directly instead of through ``ascendc_library`` (MKB direct launch).
    """
    names = ProjectNames.of(spec)
    gm = [cpp_name(t.name) for t in spec.inputs + spec.outputs] + ["workspace", "tiling"]
    # an operator of several instances launches its first one here: no tiling key picks in a direct call
    body = spec.instance_source or (spec.kernel_source if inline_body else f'#include "../op_kernel/{names.op}.cpp"\n')
    return render_template("kernel_direct.cpp.j2", names=names, body=body, launch_wrapper=launch_wrapper,
                           wrapper_params=", ".join(f"GM_ADDR {n}" for n in gm), wrapper_args=", ".join(gm))


def render_launch_header(spec: KernelSpec) -> str:
    names = ProjectNames.of(spec)
    gm = [cpp_name(t.name) for t in spec.inputs + spec.outputs] + ["workspace", "tiling"]
    return render_template("launch.h.j2", names=names, params=", ".join(f"void* {n}" for n in gm))


def render_launcher(spec: KernelSpec) -> str:
    """``host/main.cpp``: ACL init, buffers from .bin files, tiling on the host, launch, results to .bin."""
    names = ProjectNames.of(spec)
    dims = [{"name": d, "var": dim_literal(d)} for d in dim_symbols(spec)]
    tensors = []
    for role, group in (("input", spec.inputs), ("output", spec.outputs)):
        for t in group:
            numel = " * ".join(f"static_cast<size_t>({dim_literal(d)})" for d in t.shape) or "1"
            tensors.append({"name": t.name, "is_output": role == "output",
                            "bytes": f"{numel} * {ITEMSIZE[t.dtype]}"})
    attrs = []
    for a in spec.attrs:
        kind = attr_kind(a.dtype)
        default = None if a.default is None else cpp_number(a.default, kind)
        attrs.append({"name": a.name, "var": attr_variable(a.name), "ctype": ATTR_BINDING[kind], "default": default,
                      "parse": "ParseInt" if kind != "float" else "ParseFloat"})
    args = [f"buffers[{i}].device" for i in range(len(tensors))] + ["workspaceDevice", "tilingDevice"]
    include, launch = launch_call(spec, "aclrtlaunch", args)
    computed = [f"const int64_t {dim_literal(d)} = {computed_extent(spec, d, local_field_value(spec, attr_variable))};"
                for d, _ in spec.extents]
    return render_template("launcher.cpp.j2", names=names, dims=dims, attrs=attrs, tensors=tensors, computed=computed,
                           field_lines=host_field_lines(spec, attr_variable), launch_include=include, launch=launch,
                           core_num=core_num_call(spec), workspace=workspace_cpp(spec, "tiling.{}"))


# ----------------------------------------------------------------------------- MultiKernelBench exports

def render_mkb_custom_op(spec: KernelSpec) -> str:
    """MKB's six-string custom-operator file (``prompts/ascendc_new_model_*.py`` format)."""
    names = ProjectNames.of(spec)
    strings = {
        "project_json_src": json.dumps(msopgen_json(spec), indent=4) + "\n",
        "host_tiling_src": render_tiling_header(spec),
        "host_operator_src": render_op_host(spec),
        "kernel_src": spec.kernel_source,
        "python_bind_src": render_aclnn_binding(spec),
        "model_src": render_model(spec, module_import=["import custom_ops_lib"], module="custom_ops_lib"),
    }
    return render_template("mkb_custom_op.py.j2", names=names, strings=strings)


def mkb_direct_launch(spec: KernelSpec) -> dict:
    """MKB's direct-launch submission (``backends/ascendc_direct_launch_backend.py`` format)."""
    names = ProjectNames.of(spec)
    kernel_file = f"kernel/{names.op}_kernel.cpp"
    binding_file = f"kernel/{names.op}_binding.cpp"
    model = render_model(spec, module_import=[
        "import sys",
        "from pathlib import Path",
        "",
        "# The backend builds the extension into build/ next to this file (build.build_dir).",
        '_BUILD = str(Path(__file__).resolve().parent / "build")',
        "if _BUILD not in sys.path:",
        "    sys.path.insert(0, _BUILD)",
        f"import {names.module} as _ops  # noqa: E402",
    ], module="_ops")
    sources = [
        ("ModelNew.py", model),
        (f"kernel/{names.op}_tiling_data.h", render_tiling_struct(spec)),
        (f"kernel/{names.op}_launch.h", render_launch_header(spec)),
        (kernel_file, render_direct_kernel(spec, inline_body=True, launch_wrapper=True)),
        (binding_file, render_binding(spec, mode="wrapper")),
    ]
    return {
        "name": f"ascendcraft_{names.op}",
        "author": "ascendcraft",
        "problem": names.mkb_task,
        "format_version": "0.1",
        "description": f"{names.op_type} lowered by ascendcraft from its tile DSL kernel; untested on hardware.",
        "entry": {"model": "ModelNew.py::ModelNew"},
        "build": {"type": "ascendc_direct_launch", "module_name": names.module, "kernel_sources": [kernel_file],
                  "binding_sources": [binding_file], "include_dirs": ["kernel"], "build_dir": "build"},
        "sources": [{"path": p, "content": c} for p, c in sources],
    }


# ----------------------------------------------------------------------------- the project

def project_files(spec: KernelSpec) -> dict[str, str]:
    """Every file of the project, by path relative to the project directory."""
    check_names(spec)
    dim_origins(spec)   # fails early if an output shape cannot be inferred
    names = ProjectNames.of(spec)
    op = names.op
    usage = " ".join([f"{d}=<int>" for d in dim_symbols(spec)] + [f"[{a.name}=<value>]" for a in spec.attrs])
    context = {"names": names, "spec": spec, "soc_version": SOC_VERSION, "msopgen_device": MSOPGEN_DEVICE,
               "usage": usage,
               "dims": dim_symbols(spec), "attrs": [a.name for a in spec.attrs],
               "inputs": [t.name for t in spec.inputs], "outputs": [t.name for t in spec.outputs],
               "tensors": [{"name": t.name, "role": role, "dtype": t.dtype, "numpy": _NUMPY_NAMES[t.dtype],
                            "shape": "[" + ", ".join(f"*{d}" if d in t.stars else str(d) for d in t.shape) + "]"}
                           for role, group in (("input", spec.inputs), ("output", spec.outputs)) for t in group]}
    return {
        f"{op}.json": json.dumps(msopgen_json(spec), indent=4) + "\n",
        f"op_host/{op}_tiling.h": render_tiling_header(spec),
        f"op_host/{op}.cpp": render_op_host(spec),
        f"op_kernel/{op}.cpp": spec.kernel_source,
        "msopgen_build.sh": render_template("msopgen_build.sh.j2", **context),
        f"kernel/{op}_tiling_data.h": render_tiling_struct(spec),
        f"kernel/{op}_direct.cpp": render_direct_kernel(spec, inline_body=False, launch_wrapper=False),
        "CMakeLists.txt": render_template("CMakeLists.txt.j2", **context),
        "host/main.cpp": render_launcher(spec),
        "run.sh": render_template("run.sh.j2", **context),
        f"binding/{op}_binding.cpp": render_binding(spec, mode="aclrtlaunch"),
        "binding/setup.py": render_template("setup.py.j2", **context),
        "mkb/direct_launch.json": json.dumps(mkb_direct_launch(spec), indent=2) + "\n",
        f"mkb/{op}.py": render_mkb_custom_op(spec),
        "README.md": render_template("README.md.j2", **context),
    }


def write_project(spec: KernelSpec, out_dir: Path) -> list[Path]:
    """Write the project for ``spec`` under ``out_dir``; returns the files written."""
    out_dir = Path(out_dir)
    files = project_files(spec)      # render everything before writing anything
    written = []
    for rel, text in files.items():
        path = out_dir / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        if rel.endswith(".sh"):
            path.chmod(0o755)
        written.append(path)
    return written
