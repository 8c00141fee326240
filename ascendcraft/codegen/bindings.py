"""The torch bindings of a lowered kernel and the ModelNew around them: the direct-launch binding
(``binding/``, MultiKernelBench's direct launch), the aclnn binding (MultiKernelBench's six strings)
and ModelNew, which calls either. Each checks its inputs, sizes its outputs from them (star dims
through codegen/host_shapes.py) and fills the tiling struct as TilingFunc does."""
from __future__ import annotations

import re

from ..errors import UserError
from .host_shapes import Layout, ShapeAccess, helpers_called, torch_check, torch_label
from .names import cpp_name, py_name
from .project_common import (ATEN_DTYPES, ATTR_BINDING, ProjectNames, attr_kind, computed_extent, core_num_call,
                             cpp_number, dim_literal, dim_origins, host_field_lines, launch_call, local_field_value,
                             py_number, render_template, workspace_cpp)
from .spec import TORCH_DTYPES, KernelSpec, TensorArg

# ----------------------------------------------------------------------------- bindings

def _binding_parts(spec: KernelSpec, reads: list[str]) -> dict:
    """Argument list, checks, dims and output allocation shared by both torch bindings; ``reads``
    are the binding's other lines that read the dims (the direct launch's tiling fields)."""
    if not spec.inputs:
        raise UserError(f"kernel {spec.op_name} has no input tensor; the binding needs one to find the device")
    origins = dim_origins(spec)
    c = cpp_name      # the binding's parameters and the outputs it allocates: x_u, class_u, stream_u
    params = [f"const at::Tensor& {c(t.name)}" for t in spec.inputs]
    pyargs = [f'py::arg("{py_name(t.name)}")' for t in spec.inputs]
    for a in spec.attrs:
        kind = attr_kind(a.dtype)
        params.append(f"{ATTR_BINDING[kind]} {c(a.name)}")
        default = "" if a.default is None else f" = {cpp_number(a.default, kind)}"
        pyargs.append(f'py::arg("{py_name(a.name)}"){default}')
    checks = [torch_check(t, ATEN_DTYPES[t.dtype]) for t in spec.inputs]
    layout = Layout(spec, ShapeAccess("torch", lambda t: c(t.name), c))
    runs = layout.run_lines(spec.inputs, "") + [line for t in spec.inputs for line in layout.torch_rank_check(t)]
    # an axis a const sizes: computed from the dims and attributes it reads (and checked where an input has it)
    field_value = local_field_value(spec, c)
    computed = [f"const int64_t {dim_literal(d)} = {computed_extent(spec, d, field_value)};" for d, _ in spec.extents]
    compared = []
    for t in spec.inputs:
        for axis, d in enumerate(t.shape):
            expected = dim_literal(d)
            if isinstance(d, int) or d not in origins or origins[d].tensor.name != t.name or origins[d].axis != axis:
                value, label = layout.extent(t, axis), torch_label(t, axis)
                compared.append(f'TORCH_CHECK({value} == {expected}, "{label} must be ", {expected}, '
                                f'", got ", {value});')
    first = c(spec.inputs[0].name)
    outputs = []
    for t in spec.outputs:
        sizes, shape = layout.torch_output_sizes(t, origins, [dim_literal(d) for d in t.shape])
        options = f"{first}.options().dtype({ATEN_DTYPES[t.dtype]})"
        outputs += sizes + [f"at::Tensor {c(t.name)} = at::empty({shape}, {options});"]
    # a star dim only where a line reads it: star outputs are allocated without it
    used = " ".join(computed + compared + outputs + reads)
    dims = runs + [f"const int64_t {dim_literal(d)} = {layout.extent(o.tensor, o.axis)};" for d, o in origins.items()
                   if not o.star or re.search(rf"\b{dim_literal(d)}\b", used)] + computed + compared
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
    field_lines = host_field_lines(spec, cpp_name)
    parts = _binding_parts(spec, field_lines)
    gm = [f"{cpp_name(t.name)}Contiguous.data_ptr()" for t in spec.inputs] + \
        [f"{cpp_name(t.name)}.data_ptr()" for t in spec.outputs]
    include, launch = launch_call(spec, mode, gm + ["workspaceDevice.data_ptr()", "tilingDevice.data_ptr()"])
    return render_template("binding.cpp.j2", names=names, spec=spec, launch_include=include, launch=launch,
                           field_lines=field_lines, workspace=workspace_cpp(spec, "tiling.{}"),
                           core_num=core_num_call(spec), **parts)


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
              "default": "None" if a.default is None else py_number(a.default, attr_kind(a.dtype)),
              "cast": {"float": "float", "int": "int", "bool": "bool"}[attr_kind(a.dtype)]} for a in spec.attrs]
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
