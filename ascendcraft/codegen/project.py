"""The projects around a lowered kernel: everything needed to build and run it with CANN.

``write_project(spec, out_dir)`` writes, next to the kernel the lowering passes produced:

* an msopgen custom-operator project (``<op>.json``, ``op_host/``, ``op_kernel/``), the form
  MultiKernelBench's ``ascendc`` backend builds (ascendc_api.md 5.3);
* a kernel direct-call project (``CMakeLists.txt`` over CANN's ``ascendc.cmake``, ``kernel/``,
  ``host/main.cpp``, ``run.sh``) following the CANN 8.x kernel-launch samples (5.4);
* a torch_npu binding (``binding/``) that launches the direct-call build on torch tensors;
* MultiKernelBench exports (``mkb/``): the direct-launch JSON and the six-string file.

None of it has run on an Ascend NPU here (docs/backends.md). Python prints the code that
depends on the kernel (argument lists, shape reads, checks) as short lists of lines; the
jinja2 templates in ``templates/`` hold the fixed skeletons and receive only those lines.
"""
from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from jinja2 import Environment, PackageLoader, StrictUndefined

from ..errors import UserError
from ..dtypes import FLOATS, ITEMSIZE
from .host_shapes import Layout, ShapeAccess, helpers_called, torch_check, torch_label
from .names import cpp_name, op_arg_name, py_name
from .spec import GE_DTYPES, TORCH_DTYPES, KernelSpec, TensorArg
from .tiling import FIELD_SIZES, host_workspace_expr, ordered_fields, render_tiling_header

SOC_VERSION = "Ascend910B2"          # the default chip of the project (DESIGN.md 1)
OPDEF_CONFIG = "ascend910b"          # OpDef AICore().AddConfig value for Atlas A2 (MKB prompts)
MSOPGEN_DEVICE = "ai_core-Ascend910B2"

# DSL dtype -> msopgen JSON "type" (MKB prompts/ascendc_new_model_*.py use "float").
MSOPGEN_TYPES = {"f16": "float16", "bf16": "bfloat16", "f32": "float", "i8": "int8", "i16": "int16",
                 "i32": "int32", "i64": "int64", "u8": "uint8", "bool": "bool"}
# DSL dtype -> ATen scalar type constant used in the binding's dtype checks.
ATEN_DTYPES = {"f16": "at::kHalf", "bf16": "at::kBFloat16", "f32": "at::kFloat", "i8": "at::kChar",
               "i16": "at::kShort", "i32": "at::kInt", "i64": "at::kLong", "u8": "at::kByte", "bool": "at::kBool"}
# What the .bin files hold (bf16: the raw 16-bit patterns, e.g. float32 bits >> 16 as uint16).
_NUMPY_NAMES = {"f16": "float16", "bf16": "uint16 (bf16 bits)", "f32": "float32", "i8": "int8", "i16": "int16",
                "i32": "int32", "i64": "int64", "u8": "uint8", "bool": "bool"}

# Names of tensors, attributes and dims in the generated code (codegen/names.py): every C++ identifier
# the host code derives from a DSL name is cpp_name(name) (``x_u``: a binding parameter) or that and
# a suffix of its own (``x_uContiguous``, ``x_uShape``, ``B_uDim``, ``alpha_uAttr``), and the host
# code's own names (tiling, stream, blockDim, ...) never end in ``_u``, so no DSL name (``class``,
# ``stream``, ``tiling``) can collide with C++ or with the host code. The op's description uses
# op_arg_name, Python uses py_name: the DSL name wherever that language can declare it.
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


# ----------------------------------------------------------------------------- templates

@lru_cache(maxsize=1)
def _environment() -> Environment:
    env = Environment(loader=PackageLoader("ascendcraft", "codegen/templates"), undefined=StrictUndefined,
                      trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True, autoescape=False)
    env.filters["pystr"] = python_string_literal
    return env


def render_template(name: str, **context) -> str:
    return _environment().get_template(name).render(**context)


def python_string_literal(text: str) -> str:
    """``text`` as a readable triple-quoted Python literal (backslashes and quotes escaped)."""
    body = text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    if body.endswith('"'):
        body = body[:-1] + '\\"'
    return '"""' + body + '"""'


# ----------------------------------------------------------------------------- names

@dataclass(frozen=True)
class ProjectNames:
    """File and symbol names derived from the spec, in one place."""

    op: str          # kernel entry, snake_case: leaky_relu_custom
    op_type: str     # LeakyReluCustom
    struct: str      # tiling struct name
    kernels_lib: str  # ascendc_library target
    module: str      # Python extension module of the binding
    launcher: str    # host executable

    @classmethod
    def of(cls, spec: KernelSpec) -> "ProjectNames":
        op = spec.op_name
        return cls(op, spec.op_type, spec.tiling_struct, f"{op}_kernels", f"{op}_ext", f"{op}_launcher")

    @property
    def mkb_task(self) -> str:
        """The MultiKernelBench task name: the pipeline appends ``_custom`` itself."""
        return self.op[: -len("_custom")] if self.op.endswith("_custom") else self.op


# ----------------------------------------------------------------------------- shape bookkeeping

@dataclass(frozen=True)
class _DimOrigin:
    tensor: TensorArg
    index: int       # position among the inputs
    axis: int

    @property
    def star(self) -> bool:
        """Whether the dim is read as the product of a run of the tensor's axes (a star dim there)."""
        return self.tensor.shape[self.axis] in self.tensor.stars


def _check_names(spec: KernelSpec):
    """The spec's names can be spelled in the project: identifiers (any of them, C++ and Python
    keywords included: the project mangles what a language cannot declare), each used once."""
    names = [t.name for t in spec.inputs + spec.outputs] + [a.name for a in spec.attrs]
    for n in names + [spec.op_name, spec.op_type, spec.tiling_struct]:
        if not _IDENT.match(n):
            raise UserError(f"{n!r} is not an identifier; the generated project cannot use it")
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise UserError(f"name(s) {', '.join(dup)} are used twice among the kernel's tensors and attributes")
    for f in spec.tiling_fields:
        if f.source[0] == "dim" and f.source[1] not in names:
            raise UserError(f"tiling field {f.name} reads the shape of {f.source[1]}, which is not a kernel tensor")
        if f.source[0] == "attr" and f.source[1] not in [a.name for a in spec.attrs]:
            raise UserError(f"tiling field {f.name} reads attribute {f.source[1]}, which the kernel does not declare")


def _dim_origins(spec: KernelSpec) -> dict[str, _DimOrigin]:
    """Each symbolic dim's first occurrence among the inputs: where the host reads it. A star dim
    is read where it is a star if it is anywhere: star outputs take their leading axes from there."""
    origins: dict[str, _DimOrigin] = {}
    for i, t in enumerate(spec.inputs):
        for axis, d in enumerate(t.shape):
            if isinstance(d, str) and (d not in origins or d in t.stars and not origins[d].star):
                origins[d] = _DimOrigin(t, i, axis)
    for t in spec.outputs:
        for d in t.shape:
            if isinstance(d, str) and d not in origins:
                raise UserError(f"output {t.name} has extent {d}, which no input has: the host cannot know the "
                                f"output's shape before the kernel runs",
                                hint="give the kernel an input (or a fixed extent) that carries it")
    return origins


def _tensor(spec: KernelSpec, name: str) -> TensorArg:
    return next(t for t in spec.inputs + spec.outputs if t.name == name)


def _tensor_index(spec: KernelSpec, name: str) -> tuple[str, int]:
    for i, t in enumerate(spec.inputs):
        if t.name == name:
            return "input", i
    for i, t in enumerate(spec.outputs):
        if t.name == name:
            return "output", i
    raise UserError(f"{name} is not a tensor of kernel {spec.op_name}")


def _attr_index(spec: KernelSpec, name: str) -> int:
    return [a.name for a in spec.attrs].index(name)


def _dim_symbols(spec: KernelSpec) -> list[str]:
    seen: list[str] = []
    for t in spec.inputs + spec.outputs:
        for d in t.shape:
            if isinstance(d, str) and d not in seen:
                seen.append(d)
    return seen


# ----------------------------------------------------------------------------- scalar printing

def _attr_kind(dtype: str) -> str:
    return "float" if dtype in FLOATS else "bool" if dtype == "bool" else "int"


_ATTR_CPP = {"float": "float", "int": "int64_t", "bool": "bool"}      # GetAttrPointer<T> / tiling value
_ATTR_BINDING = {"float": "double", "int": "int64_t", "bool": "bool"}  # pybind / aclnn argument types


def _cpp_number(value, kind: str) -> str:
    if kind == "bool":
        return "true" if value else "false"
    if kind == "int":
        return str(int(value))
    v = float(value)
    if math.isinf(v):
        return ("-" if v < 0 else "") + "std::numeric_limits<double>::infinity()"
    if math.isnan(v):
        return "std::numeric_limits<double>::quiet_NaN()"
    return repr(v)


def _py_number(value, kind: str) -> str:
    if kind == "bool":
        return "True" if value else "False"
    if kind == "int":
        return str(int(value))
    v = float(value)
    return f"float({str(v)!r})" if not math.isfinite(v) else repr(v)


def _json_default(value, kind: str) -> str:
    """msopgen's ``default_value`` is a string (MKB prompts/ascendc_new_model_leaky_relu.py: "0.1")."""
    if kind == "bool":
        return "true" if value else "false"
    return str(int(value)) if kind == "int" else repr(float(value))


def _dim_literal(d) -> str:
    """A dim in host C++: a number, or the local holding the dim's value (``B_uDim``)."""
    return str(d) if isinstance(d, int) else f"{cpp_name(d)}Dim"


def _attr_variable(name: str) -> str:
    """The launcher's local holding attribute ``name`` (``alpha_uAttr``)."""
    return f"{cpp_name(name)}Attr"


# ----------------------------------------------------------------------------- msopgen project

def msopgen_json(spec: KernelSpec) -> list[dict]:
    """The msopgen operator description (``msopgen gen -i <op>.json``; MKB project_json_src)."""
    def tensor(t: TensorArg) -> dict:
        return {"name": op_arg_name(t.name), "param_type": "required", "format": ["ND"],
                "type": [MSOPGEN_TYPES[t.dtype]]}

    attrs = []
    for a in spec.attrs:
        entry = {"name": op_arg_name(a.name), "param_type": "required" if a.default is None else "optional",
                 "type": _attr_kind(a.dtype)}
        if a.default is not None:
            entry["default_value"] = _json_default(a.default, _attr_kind(a.dtype))
        attrs.append(entry)
    op = {"op": spec.op_type, "language": "cpp", "input_desc": [tensor(t) for t in spec.inputs],
          "output_desc": [tensor(t) for t in spec.outputs]}
    if attrs:
        op["attr"] = attrs
    return [op]


def _gert_attr(spec: KernelSpec, name: str) -> str:
    """An attribute's value in TilingFunc and InferShape."""
    kind = _attr_kind(spec.attrs[_attr_index(spec, name)].dtype)
    return f"*context->GetAttrs()->GetAttrPointer<{_ATTR_CPP[kind]}>({_attr_index(spec, name)})"


def _with_holders(layout: Layout, tensors: list[TensorArg]) -> list[TensorArg]:
    """``tensors`` and the inputs their counted star dims take their counts against, in input order."""
    need = {t.name for t in tensors} | {layout.holder(d).name for d in layout.counted(tensors)}
    return [t for t in layout.spec.inputs + layout.spec.outputs if t.name in need]


def _tiling_func_lines(spec: KernelSpec) -> list[str]:
    """TilingFunc: one ``tiling.set_<field>(...)`` per field, read from the tiling context, after
    the locals holding the star tensors' shapes and the counted star dims' runs."""
    def storage(t: TensorArg) -> str:
        role, i = _tensor_index(spec, t.name)
        return f"context->{'GetInputShape' if role == 'input' else 'GetOutputShape'}({i})->GetStorageShape()"

    layout = Layout(spec, ShapeAccess("gert", lambda t: f"{cpp_name(t.name)}Shape" if t.star else storage(t),
                                      lambda name: _gert_attr(spec, name)))
    lines, read = [], []
    for f in ordered_fields(spec):
        if f.source[0] == "dim":
            t = _tensor(spec, f.source[1])
            read.append(t)
            value = layout.extent(t, f.source[2])
        else:
            value = _gert_attr(spec, f.source[1])
        lines.append(f"tiling.set_{f.name}(static_cast<{f.ctype}>({value}));")
    stars = [t for t in _with_holders(layout, read) if t.star]
    prelude = [f"const gert::Shape& {cpp_name(t.name)}Shape = {storage(t)};" for t in stars]
    prelude += layout.run_lines(stars, "ge::GRAPH_FAILED")
    for t in stars:
        prelude += layout.rank_check(t, "ge::GRAPH_FAILED")
    return prelude + lines


def _infer_shape_lines(spec: KernelSpec) -> list[str]:
    """Each output's shape from the inputs' shapes; a star dim's axes are the input's it is read from."""
    origins = _dim_origins(spec)
    layout = Layout(spec, ShapeAccess("gert*", lambda t: f"{cpp_name(t.name)}Shape", lambda name: _gert_attr(spec, name)))
    used = _with_holders(layout, [origins[d].tensor for t in spec.outputs for d in t.shape if isinstance(d, str)])
    lines = [f"const gert::Shape* {cpp_name(t.name)}Shape = context->GetInputShape({spec.inputs.index(t)});"
             for t in used]
    lines += layout.run_lines(used, "GRAPH_FAILED")
    for t in used:
        lines += layout.rank_check(t, "GRAPH_FAILED")
    for j, t in enumerate(spec.outputs):
        out = f"{cpp_name(t.name)}Shape"
        lines.append(f"gert::Shape* {out} = context->GetOutputShape({j});")
        values = [str(d) if isinstance(d, int) else layout.extent(origins[d].tensor, origins[d].axis)
                  for d in t.shape]
        lines += layout.infer_output(out, t, origins, values)
    return lines


def _opdef_attr_lines(spec: KernelSpec) -> list[str]:
    lines = []
    for a in spec.attrs:
        kind = _attr_kind(a.dtype)
        method = {"float": "Float", "int": "Int", "bool": "Bool"}[kind]
        if a.default is None:
            # [UNCONFIRMED] a REQUIRED attribute without a default value; MKB shows only OPTIONAL ones.
            lines.append(f'this->Attr("{op_arg_name(a.name)}").AttrType(REQUIRED).{method}();')
        else:
            lines.append(f'this->Attr("{op_arg_name(a.name)}").AttrType(OPTIONAL).{method}('
                         f'{_cpp_number(a.default, kind)});')
    return lines


def _workspace_cpp(spec: KernelSpec, accessor: str) -> str:
    """The user-workspace expression with every tiling field read through ``accessor``."""
    expr = host_workspace_expr(spec)
    for f in spec.tiling_fields:
        expr = re.sub(rf"\b{re.escape(f.name)}\b", accessor.format(f.name), expr)
    return expr


def render_op_host(spec: KernelSpec) -> str:
    names = ProjectNames.of(spec)
    tiling_lines, infer_shape_lines = _tiling_func_lines(spec), _infer_shape_lines(spec)
    return render_template(
        "op_host.cpp.j2", spec=spec, names=names, tiling_lines=tiling_lines, infer_shape_lines=infer_shape_lines,
        helpers=helpers_called(tiling_lines + infer_shape_lines),
        dtype_lines=[f"context->SetOutputDataType({j}, {GE_DTYPES[t.dtype]});" for j, t in enumerate(spec.outputs)],
        inputs=[(op_arg_name(t.name), GE_DTYPES[t.dtype]) for t in spec.inputs],
        outputs=[(op_arg_name(t.name), GE_DTYPES[t.dtype]) for t in spec.outputs],
        attr_lines=_opdef_attr_lines(spec), core_num=_core_num(spec),
        workspace=_workspace_cpp(spec, "tiling.get_{}()"), opdef_config=OPDEF_CONFIG)


# ----------------------------------------------------------------------------- direct-call pieces

def render_tiling_struct(spec: KernelSpec) -> str:
    """``kernel/<op>_tiling_data.h``: the same layout as a plain struct, for the kernel and the host."""
    names = ProjectNames.of(spec)
    return render_template("tiling_data.h.j2", names=names, fields=ordered_fields(spec),
                           size=sum(FIELD_SIZES[f.ctype] for f in spec.tiling_fields))


def render_direct_kernel(spec: KernelSpec, *, inline_body: bool, launch_wrapper: bool) -> str:
    """The kernel translation unit of a direct-call build.

    ``inline_body`` pastes the kernel source (a self-contained file for MultiKernelBench);
    otherwise it includes ``op_kernel/<op>.cpp``. ``launch_wrapper`` adds an ``extern "C"``
    host function with the ``<<<>>>`` launch, for builds that compile the file with bisheng
    directly instead of through ``ascendc_library`` (MKB direct launch).
    """
    names = ProjectNames.of(spec)
    gm = [cpp_name(t.name) for t in spec.inputs + spec.outputs] + ["workspace", "tiling"]
    body = spec.kernel_source if inline_body else f'#include "../op_kernel/{names.op}.cpp"\n'
    return render_template("kernel_direct.cpp.j2", names=names, body=body, launch_wrapper=launch_wrapper,
                           wrapper_params=", ".join(f"GM_ADDR {n}" for n in gm), wrapper_args=", ".join(gm))


def render_launch_header(spec: KernelSpec) -> str:
    names = ProjectNames.of(spec)
    gm = [cpp_name(t.name) for t in spec.inputs + spec.outputs] + ["workspace", "tiling"]
    return render_template("launch.h.j2", names=names, params=", ".join(f"void* {n}" for n in gm))


def _launch_call(spec: KernelSpec, mode: str, args: list[str]) -> tuple[str, str]:
    """(include line, launch statement) for ``mode`` "aclrtlaunch" (ascendc_library) or "wrapper"."""
    names = ProjectNames.of(spec)
    joined = ", ".join(args)
    if mode == "aclrtlaunch":
        # aclrtlaunch_<kernel>.h is generated by ascendc_library (extract_host_stub.py); it returns 0 on success.
        return (f'#include "aclrtlaunch_{names.op}.h"',
                f"ACLRT_LAUNCH_KERNEL({names.op})(blockDim, stream, {joined})")
    return f'#include "{names.op}_launch.h"', f"launch_{names.op}(blockDim, stream, {joined})"


def _core_num(spec: KernelSpec) -> str:
    """The PlatformAscendC query for the block dim: one block per AIV, or per AIC for cube kernels."""
    return "GetCoreNumAic" if spec.core_type in ("aic", "mix", "mixtaps") else "GetCoreNumAiv"


def _host_field_lines(spec: KernelSpec, attr_variable) -> list[str]:
    """``tiling.<field> = ...;`` for the plain struct, from the host's dim locals (``B_uDim``) and its
    attribute variables (``attr_variable(name)``)."""
    lines = []
    for f in ordered_fields(spec):
        if f.source[0] == "dim":
            value = _dim_literal(_tensor(spec, f.source[1]).shape[f.source[2]])
        else:
            value = attr_variable(f.source[1])
        lines.append(f"tiling.{f.name} = static_cast<{f.ctype}>({value});")
    return lines


def render_launcher(spec: KernelSpec) -> str:
    """``host/main.cpp``: ACL init, buffers from .bin files, tiling on the host, launch, results to .bin."""
    names = ProjectNames.of(spec)
    dims = [{"name": d, "var": _dim_literal(d)} for d in _dim_symbols(spec)]
    tensors = []
    for role, group in (("input", spec.inputs), ("output", spec.outputs)):
        for t in group:
            numel = " * ".join(f"static_cast<size_t>({_dim_literal(d)})" for d in t.shape) or "1"
            tensors.append({"name": t.name, "is_output": role == "output",
                            "bytes": f"{numel} * {ITEMSIZE[t.dtype]}"})
    attrs = []
    for a in spec.attrs:
        kind = _attr_kind(a.dtype)
        default = None if a.default is None else _cpp_number(a.default, kind)
        attrs.append({"name": a.name, "var": _attr_variable(a.name), "ctype": _ATTR_BINDING[kind], "default": default,
                      "parse": "ParseInt" if kind != "float" else "ParseFloat"})
    args = [f"buffers[{i}].device" for i in range(len(tensors))] + ["workspaceDevice", "tilingDevice"]
    include, launch = _launch_call(spec, "aclrtlaunch", args)
    return render_template("launcher.cpp.j2", names=names, dims=dims, attrs=attrs, tensors=tensors,
                           field_lines=_host_field_lines(spec, _attr_variable), launch_include=include, launch=launch,
                           core_num=_core_num(spec), workspace=_workspace_cpp(spec, "tiling.{}"))


# ----------------------------------------------------------------------------- bindings

def _binding_parts(spec: KernelSpec, reads: list[str]) -> dict:
    """Argument list, checks, dims and output allocation shared by both torch bindings; ``reads``
    are the binding's other lines that read the dims (the direct launch's tiling fields)."""
    if not spec.inputs:
        raise UserError(f"kernel {spec.op_name} has no input tensor; the binding needs one to find the device")
    origins = _dim_origins(spec)
    c = cpp_name      # the binding's parameters and the outputs it allocates: x_u, class_u, stream_u
    params = [f"const at::Tensor& {c(t.name)}" for t in spec.inputs]
    pyargs = [f'py::arg("{py_name(t.name)}")' for t in spec.inputs]
    for a in spec.attrs:
        kind = _attr_kind(a.dtype)
        params.append(f"{_ATTR_BINDING[kind]} {c(a.name)}")
        default = "" if a.default is None else f" = {_cpp_number(a.default, kind)}"
        pyargs.append(f'py::arg("{py_name(a.name)}"){default}')
    checks = [torch_check(t, ATEN_DTYPES[t.dtype]) for t in spec.inputs]
    layout = Layout(spec, ShapeAccess("torch", lambda t: c(t.name), c))
    runs = layout.run_lines(spec.inputs, "") + [line for t in spec.inputs for line in layout.torch_rank_check(t)]
    compared = []
    for t in spec.inputs:
        for axis, d in enumerate(t.shape):
            expected = _dim_literal(d)
            if isinstance(d, int) or origins[d].tensor.name != t.name or origins[d].axis != axis:
                value, label = layout.extent(t, axis), torch_label(t, axis)
                compared.append(f'TORCH_CHECK({value} == {expected}, "{label} must be ", {expected}, '
                                f'", got ", {value});')
    first = c(spec.inputs[0].name)
    outputs = []
    for t in spec.outputs:
        sizes, shape = layout.torch_output_sizes(t, origins, [_dim_literal(d) for d in t.shape])
        options = f"{first}.options().dtype({ATEN_DTYPES[t.dtype]})"
        outputs += sizes + [f"at::Tensor {c(t.name)} = at::empty({shape}, {options});"]
    # a star dim only where a line reads it: star outputs are allocated without it
    used = " ".join(compared + outputs + reads)
    dims = runs + [f"const int64_t {_dim_literal(d)} = {layout.extent(o.tensor, o.axis)};" for d, o in origins.items()
                   if not o.star or re.search(rf"\b{_dim_literal(d)}\b", used)] + compared
    if len(spec.outputs) == 1:
        ret_type, ret = "at::Tensor", c(spec.outputs[0].name)
    else:
        ret_type, ret = "std::vector<at::Tensor>", "{" + ", ".join(c(t.name) for t in spec.outputs) + "}"
    contiguous = [f"const at::Tensor {c(t.name)}Contiguous = {c(t.name)}.contiguous();" for t in spec.inputs]
    return {"params": ", ".join(params), "pyargs": ", ".join(pyargs), "checks": checks, "dims": dims,
            "contiguous": contiguous, "outputs": outputs, "ret_type": ret_type, "ret": ret, "device_tensor": first,
            "helpers": helpers_called(checks + dims + outputs)}


def render_binding(spec: KernelSpec, *, mode: str = "aclrtlaunch") -> str:
    """The torch_npu binding: checks inputs, allocates outputs, fills tiling, launches on the current stream."""
    names = ProjectNames.of(spec)
    field_lines = _host_field_lines(spec, cpp_name)
    parts = _binding_parts(spec, field_lines)
    gm = [f"{cpp_name(t.name)}Contiguous.data_ptr()" for t in spec.inputs] + \
        [f"{cpp_name(t.name)}.data_ptr()" for t in spec.outputs]
    include, launch = _launch_call(spec, mode, gm + ["workspaceDevice.data_ptr()", "tilingDevice.data_ptr()"])
    return render_template("binding.cpp.j2", names=names, spec=spec, launch_include=include, launch=launch,
                           field_lines=field_lines, workspace=_workspace_cpp(spec, "tiling.{}"),
                           core_num=_core_num(spec), **parts)


def render_aclnn_binding(spec: KernelSpec) -> str:
    """MultiKernelBench ``python_bind_src``: the msopgen-built operator through its aclnn API."""
    names = ProjectNames.of(spec)
    parts = _binding_parts(spec, [])
    # aclnn argument order: inputs, attributes, outputs (MKB prompts/ascendc_new_model_layer_norm.py).
    args = [f"{cpp_name(t.name)}Contiguous" for t in spec.inputs] + [cpp_name(a.name) for a in spec.attrs] + \
        [cpp_name(t.name) for t in spec.outputs]
    return render_template("aclnn_binding.cpp.j2", names=names, spec=spec, aclnn_args=", ".join(args), **parts)


def _optional_fill(spec: KernelSpec, t: TensorArg, py, attr) -> str:
    """The Python expression ModelNew fills optional input ``t`` with when the caller passes None
    (as the binding does on the simulator: ``torch.full`` of its default at the extents the other
    inputs give its dims; ``attr(name)``: an attribute's value there). The kernel always receives a
    tensor, so the operator keeps it REQUIRED."""
    sources = [s for s in spec.inputs if s is not t and s.default is None and not s.is_parameter]
    layout = Layout(spec, ShapeAccess("python", lambda s: py(s.name), attr))

    def find(d, star: bool):
        return next(((s, axis) for s in sources for axis, e in enumerate(s.shape)
                     if e == d and (e in s.stars) == star), None)

    def extent(d) -> str:
        if isinstance(d, int):
            return str(d)
        found = find(d, False) or find(d, True)
        if found is None:
            raise UserError(f"optional input {t.name} has extent {d}, which no other forward input has: the exported "
                            f"model cannot size it when the caller leaves it out",
                            hint="declare it with dims that a required input carries")
        return layout.extent(*found)

    def star_source(d):
        found = find(d, True)
        if found is None:
            raise UserError(f"optional input {t.name} has star dim *{d}, which no required input has",
                            hint="declare it with the star dims of a required input")
        return found
    shape = layout.python_output_shape(t, star_source, extent)
    device = py(sources[0].name) + ".device" if sources else "None"
    return f"torch.full({shape}, {t.default!r}, dtype=torch.{TORCH_DTYPES[t.dtype]}, device={device})"


def render_model(spec: KernelSpec, *, module_import: list[str], module: str) -> str:
    """``ModelNew`` for MultiKernelBench: the reference's parameters and attributes, then one kernel call."""
    names = ProjectNames.of(spec)
    # the reference's names (state_dict keys, attribute names) stay DSL names in strings; Python
    # identifiers are py_name (the DSL name unless Python cannot declare it: class -> class_u)
    reserved = {module.split(".")[0], "args", "kwargs"}

    def py(n):
        return py_name(n, reserved)
    forward = [py(t.name) for t in spec.inputs if not t.is_parameter]
    parameters = [{"name": t.name, "var": py(t.name)} for t in spec.inputs if t.is_parameter]
    attrs = [{"name": a.name, "var": py(a.name),
              "default": "None" if a.default is None else _py_number(a.default, _attr_kind(a.dtype)),
              "cast": {"float": "float", "int": "int", "bool": "bool"}[_attr_kind(a.dtype)]} for a in spec.attrs]
    # With the reference's forward arguments known, forward takes them all, as the harness passes
    # them (by position or by the reference's keyword), and picks the kernel's: an argument the
    # kernel leaves out (a list such as normalized_shape) is skipped, one the caller leaves off is
    # None, a scalar one is an attribute.
    attr_names = {a.name for a in spec.attrs}
    keywords = spec.forward_keywords if len(spec.forward_keywords) == len(spec.forward) else ()
    picks = [{"var": py(n), "index": i, "absent": f"self.{py(n)}" if n in attr_names else "None",
              "keyword": keywords[i] if keywords else None}
             for i, n in enumerate(spec.forward) if n is not None]
    from_forward = {n for n in spec.forward if n in attr_names}
    call_args = [py(t.name) if not t.is_parameter else f"self.{py(t.name)}" for t in spec.inputs]
    call_args += [py(a.name) if a.name in from_forward else f"self.{py(a.name)}" for a in spec.attrs]
    def attr_value(name):
        return py(name) if name in from_forward else f"self.{py(name)}"
    fills = [{"var": py(t.name), "value": _optional_fill(spec, t, py, attr_value)}
             for t in spec.inputs if t.default is not None and not t.is_parameter]
    return render_template("model_new.py.j2", names=names, module_import=module_import, forward=forward, fills=fills,
                           picks=picks, by_position=bool(spec.forward), keywords=repr(set(keywords)) if keywords else None,
                           parameters=parameters, parameter_names=repr(tuple(p["name"] for p in parameters)),
                           attrs=attrs,
                           call=f"{module}.{names.op}({', '.join(call_args)})")


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
    _check_names(spec)
    _dim_origins(spec)   # fails early if an output shape cannot be inferred
    names = ProjectNames.of(spec)
    op = names.op
    usage = " ".join([f"{d}=<int>" for d in _dim_symbols(spec)] + [f"[{a.name}=<value>]" for a in spec.attrs])
    context = {"names": names, "spec": spec, "soc_version": SOC_VERSION, "msopgen_device": MSOPGEN_DEVICE,
               "usage": usage,
               "dims": _dim_symbols(spec), "attrs": [a.name for a in spec.attrs],
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
