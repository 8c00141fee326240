"""An op file's forward arguments, parameters and attributes as a CANN operator's inputs and
attributes (docs/simulator.md, "Checked against an op").

Names are compared without case and underscores (``negative_slope`` is ``negativeSlope``). The
OpDef's inputs take the forward's tensor arguments by name when every one of them names an
input, else in order; an input no forward tensor takes is the model parameter of its name (a
``state_dict`` name, ``.`` read as ``_``: an ``nn.Parameter`` gamma) or the tensor ``Model.__init__`` took under its name,
else absent when it is
optional (an optional forward argument passed as ``None`` is absent too), else an error naming
it. An OpDef attribute takes the forward's non-tensor argument of its name (a number, bool,
string or list), else the op's attribute of its name (a ``Model.__init__`` argument or module
constant), else keeps the OpDef's default; a required one without a value is an error. An input
no tensor takes may take a number or list the op passes where the operator wants a tensor
(``_value_input``).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import UserError

_ATTR_TYPES = (bool, int, float, str, list, tuple, np.generic)


@dataclass(frozen=True)
class BoundCase:
    inputs: tuple              # per OpDef input: a NumPy array (or gm() spec), a list of them (DYNAMIC), or None
    attrs: dict                # OpDef attribute name -> value
    dtypes: dict               # input/output name -> "bfloat16" where the op's tensor is bf16


def _key(name: str) -> str:
    return name.replace("_", "").replace(".", "").lower()


def _is_tensor(value) -> bool:
    return isinstance(value, np.ndarray) or hasattr(value, "shape")     # an array or a gm() spec


def bind_case(sig, shapes, inputs: list) -> BoundCase:
    """Bind one draw's ``inputs`` (forward order, NumPy in the GM convention, scalars as they are)
    of the op at ``shapes`` to the operator ``sig`` (``ascendcraft.sim.host.OpSignature``)."""
    names, specs = list(shapes.input_names), list(shapes.input_specs)
    tensors, others = [], {}                 # (forward name, value, spec); attribute values by key
    for name, spec, value in zip(names, specs, inputs):
        if value is None or _is_tensor(value):
            tensors.append((name, value, spec))
        elif isinstance(value, _ATTR_TYPES):
            others[_key(name)] = value
        else:
            raise UserError(f"forward argument {name} is {type(value).__name__}: a CANN operator takes tensors "
                            f"and attributes (numbers, bools, strings, lists)")
    slots = _input_slots(sig, tensors)
    bound, bf16 = [], {}
    params = None
    for p, slot in zip(sig.inputs, slots):
        if slot is not None:
            _, value, spec = slot
            if value is not None and getattr(spec, "dtype", None) == "bf16":
                bf16[p.name] = "bfloat16"
            bound.append(value)
            continue
        if params is None:
            params = _parameters(shapes)
        value = _value_input(sig, p, others, shapes, bound, bf16) if _key(p.name) not in params else None
        if _key(p.name) in params:
            value, dtype = params[_key(p.name)]
            if dtype == "bf16":
                bf16[p.name] = "bfloat16"
            bound.append(value)
        elif value is not None:
            bound.append(value)
        elif p.param_type == "REQUIRED":
            forward = ", ".join(n for n, _, _ in tensors) or "none"
            raise UserError(f"operator {sig.name}'s required input {p.name} gets no tensor (the op's forward "
                            f"passes {forward}; model parameters: {', '.join(sorted(shapes.parameters)) or 'none'})",
                            hint="the forward's tensors bind to the OpDef's inputs by name, else in order; "
                                 "the rest to model parameters of the same name")
        else:
            bound.append(None)
    # a host scalar input (.Scalar() / .ScalarList()) travels in its declared dtype: the framework
    # converts the value (ForeachMulScalarList's scalars are int64 for int32 tensors)
    for k, p in enumerate(sig.inputs):
        if p.scalar and isinstance(bound[k], np.ndarray):
            bound[k] = _as_declared(p, bound[k], _column(sig, bound, bf16, len(p.dtypes)), bf16)
        elif _bool_as_uint8(p, bound[k]):   # a bool mask where the OpDef declares its bytes as uint8
            bound[k] = bound[k].view(np.uint8)
    # a DYNAMIC input (a tensor list) takes the forward's tensor as a list of one: an op whose forward
    # takes a list is split into one group per element (ascendcraft/foreach.py)
    bound = [[v] if p.param_type == "DYNAMIC" and _is_tensor(v) else v for p, v in zip(sig.inputs, bound)]
    attrs = _attributes(sig, shapes, others)
    for p, spec in zip(sig.outputs, shapes.output_specs):
        if getattr(spec, "dtype", None) == "bf16":
            bf16[p.name] = "bfloat16"
    return BoundCase(tuple(bound), attrs, bf16)


def _input_slots(sig, tensors: list) -> list:
    """Per OpDef input, the forward tensor it takes (None: none)."""
    by_key = {_key(p.name): i for i, p in enumerate(sig.inputs)}
    slots: list = [None] * len(sig.inputs)
    if tensors and all(_key(n) in by_key for n, _, _ in tensors):
        for t in tensors:
            slots[by_key[_key(t[0])]] = t
        return slots
    if len(tensors) > len(sig.inputs):
        raise UserError(f"the op's forward passes {len(tensors)} tensors, operator {sig.name} declares "
                        f"{len(sig.inputs)} inputs ({', '.join(p.name for p in sig.inputs)})",
                        hint="the forward's tensors bind to the OpDef's inputs by name, else in order")
    slots[:len(tensors)] = tensors
    return slots


def _value_input(sig, p, forward: dict, shapes, bound: list, bf16: dict):
    """An OpDef input the op passes as a number or a list (TopKV3's ``k``, Fill's ``dims``, a Foreach
    op's scalar weight): the forward's or ``Model.__init__``'s value of its name, else the forward's
    only value no OpDef attribute takes when this is the only input left without one; as a tensor
    (0-d for a number) of the input's dtype in the OpDef column the inputs bound so far match.
    None when there is no such value."""
    attr_keys = {_key(a.name) for a in sig.attrs}
    known = {_key(k): v for k, v in shapes.attributes.items() if isinstance(v, _ATTR_TYPES) and not isinstance(v, str)}
    value = forward.get(_key(p.name), known.get(_key(p.name)))
    if value is None:
        spare = [v for k, v in forward.items() if k not in attr_keys and not isinstance(v, str)]
        unbound = [q for q in sig.inputs[len(bound):] if q.param_type == "REQUIRED"]
        if len(spare) != 1 or len(unbound) != 1:
            return None
        value = spare[0]
    if isinstance(value, str):
        return None
    return _as_declared(p, np.asarray(value), _column(sig, bound, bf16, len(p.dtypes)), bf16)


def _column(sig, bound: list, bf16: dict, columns: int) -> int:
    """The OpDef DataType column the tensors bound so far match (host scalars excepted, which take
    their column's dtype), else 0."""
    from ..sim.host_project import dtype_of_ge_name
    for c in range(columns):
        if all(not isinstance(v, np.ndarray) or q.scalar or c >= len(q.dtypes)
               or _dtype_matches(dtype_of_ge_name(q.dtypes[c]), v, q.name in bf16)
               for q, v in zip(sig.inputs, bound)):
            return c
    return 0


def _as_declared(p, value: np.ndarray, column: int, bf16: dict):
    """``value`` in input ``p``'s dtype of OpDef column ``column`` (None when it has none)."""
    from ..sim.host_project import dtype_of_ge_name
    dt = dtype_of_ge_name(p.dtypes[column]) if column < len(p.dtypes) else None
    if dt is None or dt.numpy is None:
        return None
    if dt.name == "bfloat16":
        bf16[p.name] = "bfloat16"
    else:
        bf16.pop(p.name, None)
    return value.astype(dt.numpy, copy=False)


def _bool_as_uint8(p, value) -> bool:
    return (isinstance(value, np.ndarray) and value.dtype == np.bool_ and "DT_BOOL" not in p.dtypes
            and "DT_UINT8" in p.dtypes)


def _dtype_matches(dt, array: np.ndarray, is_bf16: bool) -> bool:
    return dt is not None and (dt.name == "bfloat16") == is_bf16 and dt.numpy == array.dtype


def _parameters(shapes) -> dict:
    """The model's tensors by key: its parameters and the tensors among its ``__init__`` arguments
    (NPUKernelBench passes a norm's gamma that way), each as (GM-convention NumPy array, DSL dtype)."""
    import torch
    from ..compare import to_numpy
    found = {}
    for name, value in shapes.attributes.items():
        if isinstance(value, torch.Tensor):
            array, dtype = to_numpy(value)
            found[_key(name)] = (array, dtype)
    if shapes.parameters:
        values = shapes.parameter_values()
        for name, spec in shapes.parameters.items():
            if name in values:
                found[_key(name)] = (to_numpy(values[name])[0], spec.dtype)
    return found


def _attributes(sig, shapes, forward: dict) -> dict:
    known = {**{_key(k): v for k, v in shapes.attributes.items() if isinstance(v, _ATTR_TYPES)}, **forward}
    attrs = {}
    for a in sig.attrs:
        if _key(a.name) in known:
            value = known[_key(a.name)]
            attrs[a.name] = value.item() if isinstance(value, np.generic) else \
                list(value) if isinstance(value, tuple) else value
        elif a.required:
            have = ", ".join(sorted(shapes.attributes)) or "none"
            raise UserError(f"operator {sig.name}'s required attribute {a.name} has no value in the op",
                            hint=f"name a Model.__init__ argument or a forward argument like it (the op's "
                                 f"attributes: {have})")
    return attrs
