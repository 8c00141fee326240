"""An op file's forward arguments and attributes as a CANN operator's inputs and attributes.

The rule (docs/simulator.md, "CANN projects"): the forward's tensor arguments, in order, are the
OpDef's inputs in its declaration order (``None``, an optional tensor left out, is an absent
optional input); an OpDef attribute takes the value of the forward's scalar argument or the
op's attribute (a ``Model.__init__`` argument or module constant) of the same name, compared
without case and underscores (``negative_slope`` binds ``negativeSlope``); an attribute with no
such value keeps the OpDef's default, and a required one without a value is an error naming it.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import UserError


@dataclass(frozen=True)
class BoundCase:
    inputs: tuple              # per OpDef input: a NumPy array, or None (absent)
    attrs: dict                # OpDef attribute name -> value
    dtypes: dict               # input/output name -> "bfloat16" where the op's tensor is bf16


def _key(name: str) -> str:
    return name.replace("_", "").lower()


def bind_case(sig, shapes, inputs: list) -> BoundCase:
    """Bind one draw's ``inputs`` (forward order, NumPy in the GM convention, scalars as they are) of
    the op at ``shapes`` to the operator ``sig`` (``ascendcraft.sim.host.OpSignature``)."""
    names, specs = list(shapes.input_names), list(shapes.input_specs)
    tensors, scalars, bf16 = [], {}, {}
    for name, spec, value in zip(names, specs, inputs):
        if value is None or isinstance(value, np.ndarray) or hasattr(value, "shape"):   # an array or a gm() spec
            if len(tensors) < len(sig.inputs) and getattr(spec, "dtype", None) == "bf16":
                bf16[sig.inputs[len(tensors)].name] = "bfloat16"
            tensors.append(value)
        elif isinstance(value, (bool, int, float, np.generic)):
            scalars[_key(name)] = value
        else:
            raise UserError(f"forward argument {name} is {type(value).__name__}: a CANN operator takes tensors "
                            f"and scalar attributes")
    if len(tensors) > len(sig.inputs):
        raise UserError(f"the op's forward passes {len(tensors)} tensors, operator {sig.name} declares "
                        f"{len(sig.inputs)} inputs ({', '.join(p.name for p in sig.inputs)})",
                        hint="the forward's tensors bind to the OpDef's inputs in order")
    for p in sig.inputs[len(tensors):]:
        if p.param_type == "REQUIRED":
            raise UserError(f"operator {sig.name}'s required input {p.name} gets no tensor: the op's forward "
                            f"passes {len(tensors)} tensor(s)", hint="the forward's tensors bind to the OpDef's inputs in order")
    known = {**{_key(k): v for k, v in shapes.attributes.items() if isinstance(v, (bool, int, float, list, tuple))},
             **scalars}
    attrs = {}
    for a in sig.attrs:
        if _key(a.name) in known:
            attrs[a.name] = known[_key(a.name)]
        elif a.required:
            have = ", ".join(sorted(shapes.attributes)) or "none"
            raise UserError(f"operator {sig.name}'s required attribute {a.name} has no value in the op",
                            hint=f"name a Model.__init__ argument or a forward scalar like it (the op's "
                                 f"attributes: {have})")
    for p, spec in zip(sig.outputs, shapes.output_specs):
        if getattr(spec, "dtype", None) == "bf16":
            bf16[p.name] = "bfloat16"
    return BoundCase(tuple(tensors) + (None,) * (len(sig.inputs) - len(tensors)), attrs, bf16)
