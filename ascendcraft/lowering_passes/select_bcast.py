"""Select's broadcasting rules beyond a row or column vector against its [R, C] tile (select's own
``_broadcast``): a one-element tile ([1], [1, 1]) against any tile is its value on the scalar unit
and a tile-scalar op; a column [R, 1] against a row [C] / [1, C] (either order) is an outer
broadcast into [R, C] (the Outer* ops, codegen/outer.py)."""
from __future__ import annotations

from ascendcraft.dsl import ast as A
from ascendcraft.dsl.broadcast import outer_operands

from .base import call, lit
from .select_steps import P, _step

_OUTER = {"add": "Add", "sub": "Sub", "mul": "Mul", "div": "Div", "maximum": "Max", "minimum": "Min"}
_SCALAR = {"add": "Adds", "mul": "Muls", "maximum": "Maxs", "minimum": "Mins"}


def broadcast_rule(sel, op: str, a, b, sa: tuple, sb: tuple):
    """API calls for ``a <op> b`` of two tiles of different shapes, or None when no rule here applies."""
    if op not in _OUTER:
        return None
    one_a, one_b = _one(sa), _one(sb)
    if one_b and not one_a and _same_or_wider(sa, sb):          # tile op one-value tile
        steps = [call("GetValue", b)]
        if op in _SCALAR:
            return steps + [call(_SCALAR[op], a, P)]
        if op == "sub":
            return steps + [call("Adds", a, A.Unary("-", P))]
        return steps + [call("Muls", a, A.Binary("/", lit(1.0), P))]
    if one_a and not one_b and _same_or_wider(sb, sa):          # one-value tile op tile
        steps = [call("GetValue", a)]
        v = _step(0)
        if op in _SCALAR:
            return steps + [call(_SCALAR[op], b, v)]
        if op == "sub":
            return steps + [call("Muls", b, sel._minus_one(b)), call("Adds", P, v)]
        return steps + [call("Reciprocal", b), call("Muls", P, v)]
    if outer_operands(tuple(sa), tuple(sb)) is not None and not (one_a or one_b):
        return [call(f"Outer{_OUTER[op]}", a, b)]
    return None


def _one(shape) -> bool:
    return len(shape) >= 1 and all(d == 1 for d in shape)


def _same_or_wider(big, one) -> bool:
    """The result of ``big`` broadcast with the one-element ``one`` has ``big``'s shape."""
    return len(big) >= len(one)
