"""Bind a kernel's parameters to an op: symbolic dims, scalar attributes and GM arrays.

Forward inputs map to the kernel's first inputs in order; further kernel inputs are
model parameters (state_dict names with '.' replaced by '_', e.g. ``ln_weight``) or
scalar attributes (named like ``Model.__init__`` arguments or module constants, else
the default written in the kernel). Outputs map to the forward's results in order.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .dsl import ast as A
from .dsl.checker import Binding
from .errors import DSLError


@dataclass(frozen=True)
class Plan:
    """Where each GM parameter's array comes from when the kernel runs."""

    forward_inputs: tuple[str, ...]     # kernel input names fed by forward args, in order (tensors only)
    parameters: tuple[str, ...]         # kernel input names fed by model parameters
    outputs: tuple[str, ...]


def _is_tensor_spec(spec) -> bool:
    return hasattr(spec, "shape") and hasattr(spec, "dtype")


def _fmt(spec) -> str:
    return f"{spec.dtype}[{', '.join(map(str, spec.shape))}]"


def _bind_dims(param: A.Param, spec, dims: dict, origin: str):
    t = param.type
    if spec.dtype != t.dtype:
        raise DSLError(f"{param.name} is declared {t.dtype} but the op's {origin} is {_fmt(spec)}", param.span,
                       kind="binding error", hint=f"declare {param.name}: gm {spec.dtype}[...]")
    if len(t.shape) != len(spec.shape):
        raise DSLError(f"{param.name} is declared with rank {len(t.shape)} but the op's {origin} is {_fmt(spec)}",
                       param.span, kind="binding error")
    for d, n in zip(t.shape, spec.shape):
        if isinstance(d, int):
            if d != n:
                raise DSLError(f"{param.name} fixes an extent of {d} but the op's {origin} is {_fmt(spec)}",
                               param.span, kind="binding error", hint="use a symbolic dim name instead")
        elif d in dims and dims[d] != n:
            raise DSLError(f"dim {d} is {dims[d]} elsewhere but {n} in {param.name} ({origin} {_fmt(spec)})",
                           param.span, kind="binding error", hint="use different dim names for different extents")
        else:
            dims[d] = int(n)


def _literal(e: A.Expr):
    if isinstance(e, (A.Int, A.Float)):
        return e.value
    if isinstance(e, A.Name) and e.id in ("True", "False"):
        return e.id == "True"
    if isinstance(e, A.Name) and e.id == "inf":
        return float("inf")
    raise DSLError("a default value must be a number or True/False", e.span, kind="binding error")


def bind(kernel: A.Kernel, shapes) -> tuple[Binding, Plan]:
    """Bind ``kernel`` to one concrete shape set of an op (an ``ascendcraft.task.TaskShapes``)."""
    try:
        return _bind(kernel, shapes)
    except DSLError as err:
        raise err.located(kernel.source) from None


def _bind(kernel: A.Kernel, shapes) -> tuple[Binding, Plan]:
    dims: dict[str, int] = {}
    attrs: dict[str, object] = {}
    specs = list(shapes.input_specs)
    if len(kernel.inputs) < len(specs):
        raise DSLError(f"the op's forward takes {len(specs)} input(s) but kernel {kernel.name} declares "
                       f"{len(kernel.inputs)}", kernel.span, kind="binding error",
                       hint="declare one kernel input per forward argument, in the same order")
    forward, params = [], []
    for i, p in enumerate(kernel.inputs):
        if i < len(specs):
            spec = specs[i]
            if _is_tensor_spec(spec):
                if not isinstance(p.type, A.TensorType):
                    raise DSLError(f"forward argument {i} is a tensor {_fmt(spec)} but {p.name} is a scalar",
                                   p.span, kind="binding error")
                _bind_dims(p, spec, dims, f"input {i}")
                forward.append(p.name)
            else:
                if not isinstance(p.type, A.ScalarType):
                    raise DSLError(f"forward argument {i} is the scalar {spec!r} but {p.name} is a tensor",
                                   p.span, kind="binding error")
                attrs[p.name] = spec
            continue
        if isinstance(p.type, A.TensorType):
            spec = shapes.parameters.get(p.name)
            if spec is None:
                known = ", ".join(sorted(shapes.parameters)) or "none"
                raise DSLError(f"kernel input {p.name} is not a forward argument nor a model parameter",
                               p.span, kind="binding error", hint=f"model parameters: {known}")
            _bind_dims(p, spec, dims, f"parameter {p.name}")
            params.append(p.name)
        elif p.name in shapes.attributes:
            attrs[p.name] = shapes.attributes[p.name]
        elif p.default is not None:
            attrs[p.name] = _literal(p.default)
        else:
            known = ", ".join(sorted(shapes.attributes)) or "none"
            raise DSLError(f"scalar attribute {p.name} has no value", p.span, kind="binding error",
                           hint=f"name it like an op attribute ({known}) or give it a default: {p.name}: "
                                f"{p.type.dtype} = ...")
    outs = list(shapes.output_specs)
    if len(outs) != len(kernel.outputs):
        raise DSLError(f"the op returns {len(outs)} output(s) but kernel {kernel.name} declares "
                       f"{len(kernel.outputs)}", kernel.span, kind="binding error")
    for i, (p, spec) in enumerate(zip(kernel.outputs, outs)):
        if not isinstance(p.type, A.TensorType):
            raise DSLError("outputs are GM tensors", p.span, kind="binding error")
        _bind_dims(p, spec, dims, f"output {i}")
    for name, value in attrs.items():
        p = kernel.param(name)
        if isinstance(value, (bool, np.bool_)) and p.type.dtype != "bool":
            attrs[name] = value = int(value)
        if p.type.dtype in ("f16", "bf16", "f32"):
            attrs[name] = float(value)
        elif p.type.dtype == "bool":
            attrs[name] = bool(value)
        else:
            if float(value) != int(value):
                raise DSLError(f"attribute {name} is {value!r}, not an integer", p.span, kind="binding error",
                               hint=f"declare it as {name}: f32")
            attrs[name] = int(value)
    return Binding(dims, attrs), Plan(tuple(forward), tuple(params), tuple(p.name for p in kernel.outputs))


def parameter_arrays(plan: Plan, shapes) -> dict[str, np.ndarray]:
    """The model parameters the kernel binds, as GM-convention NumPy arrays (seeded like the op)."""
    if not plan.parameters:
        return {}
    from .compare import to_numpy
    values = shapes.parameter_values()
    return {name: to_numpy(values[name])[0] for name in plan.parameters}


def gm_arrays(plan: Plan, inputs: list, outputs: list, parameters: dict) -> dict[str, np.ndarray]:
    """The GM arrays of one run, by kernel parameter name."""
    gm: dict[str, np.ndarray] = {}
    tensors = [x for x in inputs if isinstance(x, np.ndarray)]
    for name, arr in zip(plan.forward_inputs, tensors):
        gm[name] = arr
    for name in plan.parameters:
        gm[name] = parameters[name]
    for name, arr in zip(plan.outputs, outputs):
        gm[name] = arr
    return gm
