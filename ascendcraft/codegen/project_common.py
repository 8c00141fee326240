"""What the generated projects' files share (codegen/project.py writes them, codegen/bindings.py
the torch bindings and ModelNew): the templates, the names of files and symbols, where the host reads
each dim, how numbers and attributes are spelled, and the launch pieces of the direct-call builds."""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import lru_cache

from jinja2 import Environment, PackageLoader, StrictUndefined

from ..dtypes import FLOATS
from ..errors import UserError
from .names import cpp_name
from .spec import KernelSpec, TensorArg
from .tiling import host_workspace_expr, ordered_fields

# DSL dtype -> ATen scalar type constant used in the binding's dtype checks.
ATEN_DTYPES = {"f16": "at::kHalf", "bf16": "at::kBFloat16", "f32": "at::kFloat", "i8": "at::kChar",
               "i16": "at::kShort", "i32": "at::kInt", "i64": "at::kLong", "u8": "at::kByte", "bool": "at::kBool"}

# Names of tensors, attributes and dims in the generated code (codegen/names.py): every C++ identifier
# the host code derives from a DSL name is cpp_name(name) (``x_u``: a binding parameter) or that and
# a suffix of its own (``x_uContiguous``, ``x_uShape``, ``B_uDim``, ``alpha_uAttr``), and the host
# code's own names (tiling, stream, blockDim, ...) never end in ``_u``, so no DSL name (``class``,
# ``stream``, ``tiling``) can collide with C++ or with the host code. The op's description uses
# op_arg_name, Python uses py_name: the DSL name wherever that language can declare it.
IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


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
class DimOrigin:
    tensor: TensorArg
    index: int       # position among the inputs
    axis: int

    @property
    def star(self) -> bool:
        """Whether the dim is read as the product of a run of the tensor's axes (a star dim there)."""
        return self.tensor.shape[self.axis] in self.tensor.stars


def check_names(spec: KernelSpec):
    """The spec's names can be spelled in the project: identifiers (any of them, C++ and Python
    keywords included: the project mangles what a language cannot declare), each used once."""
    names = [t.name for t in spec.inputs + spec.outputs] + [a.name for a in spec.attrs]
    for n in names + [spec.op_name, spec.op_type, spec.tiling_struct]:
        if not IDENT.match(n):
            raise UserError(f"{n!r} is not an identifier; the generated project cannot use it")
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise UserError(f"name(s) {', '.join(dup)} are used twice among the kernel's tensors and attributes")
    for f in spec.tiling_fields:
        if f.source[0] == "dim" and f.source[1] not in names:
            raise UserError(f"tiling field {f.name} reads the shape of {f.source[1]}, which is not a kernel tensor")
        if f.source[0] == "attr" and f.source[1] not in [a.name for a in spec.attrs]:
            raise UserError(f"tiling field {f.name} reads attribute {f.source[1]}, which the kernel does not declare")


def dim_origins(spec: KernelSpec) -> dict[str, DimOrigin]:
    """Each symbolic dim's first occurrence among the inputs: where the host reads it. A star dim
    is read where it is a star if it is anywhere: star outputs take their leading axes from there."""
    origins: dict[str, DimOrigin] = {}
    computed = dict(spec.extents)
    for i, t in enumerate(spec.inputs):
        for axis, d in enumerate(t.shape):
            if isinstance(d, str) and d not in computed and (d not in origins or d in t.stars and not origins[d].star):
                origins[d] = DimOrigin(t, i, axis)
    for t in spec.outputs:
        for d in t.shape:
            if isinstance(d, str) and d not in origins and d not in computed:
                raise UserError(f"output {t.name} has extent {d}, which no input has: the host cannot know the "
                                f"output's shape before the kernel runs",
                                hint="give the kernel an input (or a fixed extent) that carries it")
    return origins


def computed_extent(spec: KernelSpec, name: str, field_value) -> str:
    """An axis a const sizes (``spec.extents``) as host C++: the const's definition with each tiling
    field it reads replaced by ``field_value(field)``, that field's value where the line stands."""
    fields = {f.name: f for f in spec.tiling_fields}
    return re.sub(r"\b[A-Za-z_]\w*\b", lambda m: f"({field_value(fields[m.group(0)])})" if m.group(0) in fields
                  else m.group(0), dict(spec.extents)[name])


def tensor_named(spec: KernelSpec, name: str) -> TensorArg:
    return next(t for t in spec.inputs + spec.outputs if t.name == name)


def tensor_index(spec: KernelSpec, name: str) -> tuple[str, int]:
    for i, t in enumerate(spec.inputs):
        if t.name == name:
            return "input", i
    for i, t in enumerate(spec.outputs):
        if t.name == name:
            return "output", i
    raise UserError(f"{name} is not a tensor of kernel {spec.op_name}")


def attr_index(spec: KernelSpec, name: str) -> int:
    return [a.name for a in spec.attrs].index(name)


def dim_symbols(spec: KernelSpec) -> list[str]:
    """The dims a launch is given, in order of appearance (an axis a const sizes is computed)."""
    computed = dict(spec.extents)
    seen: list[str] = []
    for t in spec.inputs + spec.outputs:
        for d in t.shape:
            if isinstance(d, str) and d not in seen and d not in computed:
                seen.append(d)
    return seen


# ----------------------------------------------------------------------------- scalar printing

def attr_kind(dtype: str) -> str:
    return "float" if dtype in FLOATS else "bool" if dtype == "bool" else "int"


ATTR_CPP = {"float": "float", "int": "int64_t", "bool": "bool"}      # GetAttrPointer<T> / tiling value
ATTR_BINDING = {"float": "double", "int": "int64_t", "bool": "bool"}  # pybind / aclnn argument types


def cpp_number(value, kind: str) -> str:
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


def py_number(value, kind: str) -> str:
    if kind == "bool":
        return "True" if value else "False"
    if kind == "int":
        return str(int(value))
    v = float(value)
    return f"float({str(v)!r})" if not math.isfinite(v) else repr(v)


def json_default(value, kind: str) -> str:
    """msopgen's ``default_value`` is a string (MKB prompts/ascendc_new_model_leaky_relu.py: "0.1")."""
    if kind == "bool":
        return "true" if value else "false"
    return str(int(value)) if kind == "int" else repr(float(value))


def dim_literal(d) -> str:
    """A dim in host C++: a number, or the local holding the dim's value (``B_uDim``)."""
    return str(d) if isinstance(d, int) else f"{cpp_name(d)}Dim"


def attr_variable(name: str) -> str:
    """The launcher's local holding attribute ``name`` (``alpha_uAttr``)."""
    return f"{cpp_name(name)}Attr"


# ----------------------------------------------------------------------------- launch pieces

def launch_call(spec: KernelSpec, mode: str, args: list[str]) -> tuple[str, str]:
    """(include line, launch statement) for ``mode`` "aclrtlaunch" (ascendc_library) or "wrapper"."""
    names = ProjectNames.of(spec)
    joined = ", ".join(args)
    if mode == "aclrtlaunch":
        # aclrtlaunch_<kernel>.h is generated by ascendc_library (extract_host_stub.py); it returns 0 on success.
        return (f'#include "aclrtlaunch_{names.op}.h"',
                f"ACLRT_LAUNCH_KERNEL({names.op})(blockDim, stream, {joined})")
    return f'#include "{names.op}_launch.h"', f"launch_{names.op}(blockDim, stream, {joined})"


def core_num_call(spec: KernelSpec) -> str:
    """The PlatformAscendC query for the block dim: one block per AIV, or per AIC for cube kernels."""
    return "GetCoreNumAic" if spec.core_type in ("aic", "mix", "mixtaps") else "GetCoreNumAiv"


def local_field_value(spec: KernelSpec, attr_variable):
    """A tiling field's value in host code that holds each dim in a local (``B_uDim``) and each
    attribute in ``attr_variable(name)``."""
    def value(f) -> str:
        if f.source[0] == "attr":
            return attr_variable(f.source[1])
        return dim_literal(tensor_named(spec, f.source[1]).shape[f.source[2]])
    return value


def host_field_lines(spec: KernelSpec, attr_variable) -> list[str]:
    """``tiling.<field> = ...;`` for the plain struct, from the host's dim locals (``B_uDim``) and its
    attribute variables (``attr_variable(name)``)."""
    value = local_field_value(spec, attr_variable)
    return [f"tiling.{f.name} = static_cast<{f.ctype}>({value(f)});" for f in ordered_fields(spec)]


def workspace_cpp(spec: KernelSpec, accessor: str) -> str:
    """The user-workspace expression with every tiling field read through ``accessor``."""
    expr = host_workspace_expr(spec)
    for f in spec.tiling_fields:
        expr = re.sub(rf"\b{re.escape(f.name)}\b", accessor.format(f.name), expr)
    return expr
