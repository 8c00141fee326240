"""Bind a kernel's parameters to an op: symbolic dims, scalar attributes and GM arrays.

Forward inputs map to the kernel's first inputs in order; further kernel inputs are
model parameters (state_dict names with '.' replaced by '_', e.g. ``ln_weight``) or
scalar attributes (named like ``Model.__init__`` arguments or module constants, else
the default written in the kernel). Outputs map to the forward's results in order.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .dsl import ast as A
from .dsl import star_groups
from .dsl.checker import Binding
from .dsl.generics import instantiate
from .dtypes import NUMPY
from .errors import DSLError
from .tensorspec import TensorSpec


@dataclass(frozen=True)
class Plan:
    """Where each GM parameter's array comes from when the kernel runs."""

    forward_inputs: tuple[str, ...]     # kernel input names fed by forward args, in order (tensors only)
    parameters: tuple[str, ...]         # kernel input names fed by model parameters
    outputs: tuple[str, ...]
    #: GM parameters whose shape in the kernel differs from the op's (a ``*B`` dim flattens leading
    #: axes; an absent optional input takes its declared shape): name -> the kernel's shape
    shapes: dict = field(default_factory=dict)
    #: optional inputs the op left out (None): (name, the value that fills them, DSL dtype)
    fills: tuple[tuple[str, float, str], ...] = ()


def _is_tensor_spec(spec) -> bool:
    return hasattr(spec, "shape") and hasattr(spec, "dtype")


def _fmt(spec) -> str:
    return f"{spec.dtype}[{', '.join(map(str, spec.shape))}]"


def _bind_dims(param: A.Param, spec, dims: dict, origin: str, stars: tuple[str, ...],
               counts: dict[str, int], extents: dict) -> tuple[int, ...]:
    """Bind ``param``'s dims to the op's ``spec``; returns the shape the kernel sees (each star dim's
    run of axes flattened: ascendcraft.dsl.star_groups). ``counts``: the star dims' runs so far.
    An axis named by a top-level const (a key of ``extents``) is not bound: the op's extent there is
    recorded for the checker, which holds the const to it."""
    t = param.type
    if spec.dtype != t.dtype:
        raise DSLError(f"{param.name} is declared {t.dtype} but the op's {origin} is {_fmt(spec)}", param.span,
                       kind="binding error", hint=f"declare {param.name}: gm {spec.dtype}[...]")
    shape = tuple(int(n) for n in spec.shape)
    if any(d in stars for d in t.shape):
        runs = star_groups.covers(t.shape, stars, counts, len(shape))
        if runs is None:
            fixed = [f"*{d}" if d in stars else str(d) for d in t.shape]
            raise DSLError(f"{param.name} is declared [{', '.join(fixed)}] but the op's {origin} is {_fmt(spec)}: "
                           f"its axes cannot be split so", param.span, kind="binding error",
                           hint="a star dim without a count takes the axes the others leave; one with a count "
                                "(*A(dim)) takes that many")
        for d, n in zip(t.shape, runs):
            if d in stars:
                counts.setdefault(d, n)
        shape = star_groups.grouped(shape, runs)
    if len(t.shape) != len(shape):
        raise DSLError(f"{param.name} is declared with rank {len(t.shape)} but the op's {origin} is {_fmt(spec)}",
                       param.span, kind="binding error",
                       hint=f"a star dim takes any number of axes: {param.name}: gm {t.dtype}[*B, ...] (the leading "
                            f"ones), [*A(dim), D, *B] (around axis dim)")
    for d, n in zip(t.shape, shape):
        if isinstance(d, int):
            if d != n:
                raise DSLError(f"{param.name} fixes an extent of {d} but the op's {origin} is {_fmt(spec)}",
                               param.span, kind="binding error", hint="use a symbolic dim name instead")
        elif d in extents:
            if extents[d] is not None and extents[d][0] != n:
                raise DSLError(f"const {d} sizes an axis of {extents[d][1]} ({extents[d][0]}) and of {param.name} "
                               f"({n}, {origin} {_fmt(spec)}), which differ", param.span, kind="binding error",
                               hint="use different names for different extents")
            extents[d] = (n, param.name)
        elif d in dims and dims[d] != n:
            what = "the product of its axes of " if d in stars else ""
            raise DSLError(f"dim {d} is {dims[d]} elsewhere but {what}{n} in {param.name} ({origin} {_fmt(spec)})",
                           param.span, kind="binding error", hint="use different dim names for different extents")
        else:
            dims[d] = n
    return shape


def _star_counts(kernel: A.Kernel, specs: dict, attrs: dict) -> dict[str, int]:
    """Each counted star dim's run, ``*A(dim)`` with the attribute's value, against the rank of the
    first kernel input that holds it (``specs``: kernel tensor name -> the op's spec)."""
    counts = {}
    for name, count in kernel.star_counts:
        holder = star_groups.first_input(kernel, name)
        spec = specs.get(holder.name)
        if spec is None:            # an optional input left out: the other tensors decide
            continue
        value = attrs.get(count) if isinstance(count, str) else count
        if value is None or isinstance(value, bool) or float(value) != int(value):
            raise DSLError(f"*{name}({count}) needs an integer, and {count} is {value!r}", holder.span,
                           kind="binding error", hint=f"bind {count} to the op's integer dim argument")
        counts[name] = star_groups.normalized_count(int(value), len(spec.shape), name, holder.name, holder.span)
    return counts


def _literal(e: A.Expr):
    if isinstance(e, (A.Int, A.Float)):
        return e.value
    if isinstance(e, A.Unary) and e.op == "-" and isinstance(e.operand, (A.Int, A.Float)):
        return -e.operand.value
    if isinstance(e, A.Name) and e.id in ("True", "False"):
        return e.id == "True"
    if isinstance(e, A.Name) and e.id == "inf":
        return float("inf")
    raise DSLError("a default value must be a number or True/False", e.span, kind="binding error")


def _kind(value) -> str:
    if value is None:
        return "None (an optional tensor left out)"
    if isinstance(value, str):
        return f"the string {value!r}"
    return f"the list {list(value)!r}"


def _forward_params(kernel: A.Kernel, shapes) -> list[A.Param | None]:
    """The kernel input each forward argument binds to (None: to none).

    In order, unless the kernel names an input like each tensor argument of ``Model.forward``:
    then by name, and forward arguments no input is named like are left out."""
    specs, names = list(shapes.input_specs), list(shapes.input_names)
    declared = {p.name: p for p in kernel.inputs}
    tensors = {n for n, s in zip(names, specs) if _is_tensor_spec(s)}
    if tensors and tensors <= declared.keys():
        return [declared.get(n) for n in names]
    for i, spec in enumerate(specs):
        if spec is None or isinstance(spec, (str, tuple)):
            raise DSLError(f"forward argument {i} ({names[i]}) is {_kind(spec)}, which binds only by name",
                           kernel.span, kind="binding error",
                           hint=f"name the kernel's tensor inputs like Model.forward's parameters "
                                f"({', '.join(names)}): they then bind by name and {names[i]} may be left out")
    if len(kernel.inputs) < len(specs):
        raise DSLError(f"the op's forward takes {len(specs)} input(s) but kernel {kernel.name} declares "
                       f"{len(kernel.inputs)}", kernel.span, kind="binding error",
                       hint="declare one kernel input per forward argument, in the same order")
    return list(kernel.inputs[:len(specs)])


def forward_names(kernel: A.Kernel, shapes) -> tuple[str | None, ...]:
    """Per argument of ``Model.forward`` at ``shapes``, the kernel input it binds to (None: none)."""
    return tuple(None if p is None else p.name for p in _forward_params(kernel, shapes))


def instance(kernel: A.Kernel, shapes) -> A.Kernel:
    """``kernel`` instantiated for the dtypes of the op's tensors at ``shapes`` (a generic kernel's
    type variables take the dtypes of the tensors declared with them); ``kernel`` itself when it
    has no type variables."""
    if not kernel.type_params:
        return kernel
    try:
        return instantiate(kernel, _type_arguments(kernel, shapes))
    except DSLError as err:
        raise err.located(kernel.source) from None


def _type_arguments(kernel: A.Kernel, shapes) -> dict[str, str]:
    tvars = {t.name: t for t in kernel.type_params}
    pairs = [(p, spec, f"input {i}") for i, (p, spec) in enumerate(zip(_forward_params(kernel, shapes),
                                                                        shapes.input_specs))
             if p is not None and _is_tensor_spec(spec)]
    pairs += [(p, shapes.parameters[p.name], f"parameter {p.name}") for p in kernel.inputs
              if isinstance(p.type, A.TensorType) and p.name in shapes.parameters]
    pairs += [(p, spec, f"output {i}") for i, (p, spec) in enumerate(zip(kernel.outputs, shapes.output_specs))]
    found: dict[str, tuple[str, A.Param]] = {}
    for p, spec, origin in pairs:
        t = tvars.get(p.type.dtype)
        if t is None:
            continue
        if spec.dtype not in t.choices:
            raise DSLError(f"{p.name} is declared {t.name}, one of {', '.join(t.choices)}, but the op's {origin} is "
                           f"{_fmt(spec)}", p.span, kind="binding error",
                           hint=f"add {spec.dtype} to {t.name}'s dtypes: [{t.name}: ({', '.join(t.choices + (spec.dtype,))})]")
        if t.name in found and found[t.name][0] != spec.dtype:
            raise DSLError(f"{t.name} is {found[t.name][0]} for {found[t.name][1].name} but {spec.dtype} for {p.name} "
                           f"(the op's {origin} is {_fmt(spec)})", p.span, kind="binding error",
                           hint="declare a second type variable for tensors of another dtype")
        found.setdefault(t.name, (spec.dtype, p))
    for name, t in tvars.items():
        if name not in found:
            raise DSLError(f"type variable {name} types none of the op's tensors, so nothing decides its dtype",
                           t.span, kind="binding error", hint=f"declare a tensor parameter as {name}[...]")
    return {name: dtype for name, (dtype, _) in found.items()}


def bind(kernel: A.Kernel, shapes) -> tuple[Binding, Plan]:
    """Bind ``kernel`` (an instance: see :func:`instance`) to one concrete shape set of an op
    (an ``ascendcraft.task.TaskShapes``)."""
    try:
        if kernel.type_params:
            raise DSLError(f"kernel {kernel.name} is generic: bind one of its instances", kernel.span,
                           kind="internal error")
        return _bind(kernel, shapes)
    except DSLError as err:
        raise err.located(kernel.source) from None


def _bind(kernel: A.Kernel, shapes) -> tuple[Binding, Plan]:
    dims: dict[str, int] = {}
    attrs: dict[str, object] = {}
    kernel_shapes: dict[str, tuple[int, ...]] = {}
    stars = kernel.star_dims

    pending: list[tuple[A.Param, object, str]] = []     # bound once the attributes are known (star counts)

    def tensor(p: A.Param, spec, origin: str) -> None:
        pending.append((p, spec, origin))

    forward, params, absent = [], [], []
    taken = set()
    for i, (p, spec) in enumerate(zip(_forward_params(kernel, shapes), shapes.input_specs)):
        if p is None:
            continue
        taken.add(p.name)
        if spec is None:
            if not isinstance(p.type, A.TensorType) or p.default is None:
                raise DSLError(f"forward argument {i} ({p.name}) is left out (None) at these shapes, and {p.name} has "
                               f"no default", p.span, kind="binding error",
                               hint=f"give it the value an absent {p.name} stands for: {p.name}: gm "
                                    f"{getattr(p.type, 'dtype', 'f32')}[...] = 0.0 (or 1.0 for a scale)")
            absent.append(p)
        elif isinstance(spec, (str, tuple)):
            raise DSLError(f"{p.name} takes forward argument {i}, {_kind(spec)}: the DSL has no string or list "
                           f"attributes", p.span, kind="binding error",
                           hint=f"leave {p.name} out of the kernel's inputs: extents come from the tensors' shapes")
        elif _is_tensor_spec(spec):
            if not isinstance(p.type, A.TensorType):
                raise DSLError(f"forward argument {i} is a tensor {_fmt(spec)} but {p.name} is a scalar",
                               p.span, kind="binding error")
            tensor(p, spec, f"input {i}")
            forward.append(p.name)
        else:
            if not isinstance(p.type, A.ScalarType):
                raise DSLError(f"forward argument {i} is the scalar {spec!r} but {p.name} is a tensor",
                               p.span, kind="binding error")
            attrs[p.name] = spec
    for p in kernel.inputs:
        if p.name in taken:
            continue
        if isinstance(p.type, A.TensorType):
            spec = shapes.parameters.get(p.name)
            if spec is None:
                known = ", ".join(sorted(shapes.parameters)) or "none"
                raise DSLError(f"kernel input {p.name} is not a forward argument nor a model parameter",
                               p.span, kind="binding error", hint=f"model parameters: {known}")
            tensor(p, spec, f"parameter {p.name}")
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
        tensor(p, spec, f"output {i}")
    counts = _star_counts(kernel, {p.name: spec for p, spec, _ in pending}, attrs)
    extents = {s.name: None for s in kernel.body if isinstance(s, A.Const) and s.name not in stars}
    for p, spec, origin in pending:
        shape = _bind_dims(p, spec, dims, origin, stars, counts, extents)
        if shape != tuple(spec.shape):
            kernel_shapes[p.name] = shape
    fills = []
    for p in absent:
        shape = []
        for d in p.type.shape:
            if not isinstance(d, int) and d not in dims:
                raise DSLError(f"{p.name} is left out at these shapes and its dim {d} is bound by no other tensor",
                               p.span, kind="binding error", hint="declare it with dims other tensors bind")
            shape.append(d if isinstance(d, int) else dims[d])
        kernel_shapes[p.name] = tuple(shape)
        fills.append((p.name, float(_literal(p.default)), p.type.dtype))
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
    binding = Binding(dims, attrs, {d: e for d, e in extents.items() if e is not None})
    return binding, Plan(tuple(forward), tuple(params), tuple(p.name for p in kernel.outputs), kernel_shapes,
                         tuple(fills))


def parameter_arrays(plan: Plan, shapes) -> dict[str, np.ndarray]:
    """The model parameters the kernel binds, as GM-convention NumPy arrays (seeded like the op)."""
    if not plan.parameters:
        return {}
    from .compare import to_numpy
    values = shapes.parameter_values()
    return {name: to_numpy(values[name])[0] for name in plan.parameters}


def gm_arrays(plan: Plan, inputs: list, outputs: list, parameters: dict) -> dict[str, np.ndarray]:
    """The GM arrays of one run, by kernel parameter name, in the kernel's shapes (views of the
    op's arrays: what the kernel writes lands in ``outputs``)."""
    gm: dict[str, np.ndarray] = {}
    tensors = [x for x in inputs if isinstance(x, np.ndarray)]
    for name, arr in zip(plan.forward_inputs, tensors):
        gm[name] = arr
    for name in plan.parameters:
        gm[name] = parameters[name]
    for name, arr in zip(plan.outputs, outputs):
        gm[name] = arr
    for name, shape in plan.shapes.items():
        if name in gm:
            gm[name] = gm[name].reshape(shape)    # contiguous: a view
    for name, value, dtype in plan.fills:
        gm[name] = np.full(plan.shapes[name], value, dtype=NUMPY[dtype] if dtype != "bf16" else np.float32)
    return gm


def _op_specs(plan: Plan, shapes) -> dict[str, TensorSpec]:
    """The GM parameters' specs at ``shapes`` as the op gives them (an absent optional input in its
    declared shape)."""
    specs = dict(zip(plan.forward_inputs, [s for s in shapes.input_specs if _is_tensor_spec(s)]))
    specs.update({name: shapes.parameters[name] for name in plan.parameters})
    specs.update(zip(plan.outputs, shapes.output_specs or ()))
    for name, value, dtype in plan.fills:
        specs[name] = TensorSpec(plan.shapes[name], dtype)
    return specs


def gm_op_shapes(plan: Plan, shapes) -> dict[str, tuple[int, ...]]:
    """The GM parameters' shapes at ``shapes`` before star dims flatten them: what TilingFunc reads."""
    return {name: tuple(s.shape) for name, s in _op_specs(plan, shapes).items()}


def gm_specs(plan: Plan, shapes) -> dict[str, TensorSpec]:
    """The GM parameters' specs at ``shapes``, by kernel parameter name, in the kernel's shapes."""
    specs = _op_specs(plan, shapes)
    return {name: TensorSpec(plan.shapes.get(name, tuple(s.shape)), s.dtype) for name, s in specs.items()}
