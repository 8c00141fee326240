"""What the checker's parts share: located type errors, name suggestions, broadcasting of
shapes and the linear forms that bound slice extents."""
from __future__ import annotations

import difflib
from dataclasses import dataclass

from ..errors import DSLError
from . import ast as A
from .types import TScalar


def check_error(msg, node, hint=None, kind="type error"):
    return DSLError(msg, getattr(node, "span", None), kind=kind, hint=hint)


def suggest(name, candidates):
    close = difflib.get_close_matches(name, sorted(candidates), n=1)
    return f"did you mean {close[0]!r}?" if close else None


def broadcast_shapes(shapes, node):
    rank = max(len(s) for s in shapes)
    out = []
    for axis in range(rank):
        dims = {s[axis - rank + len(s)] for s in shapes if axis - rank + len(s) >= 0}
        dims.discard(1)
        if len(dims) > 1:
            text = " and ".join("[" + ", ".join(map(str, s)) + "]" for s in shapes)
            raise check_error(f"shapes {text} do not broadcast (axis {axis - rank}: {sorted(dims)})", node,
                       hint="operands need equal extents, or extent 1 on the axis to broadcast",
                       kind="shape error")
        out.append(dims.pop() if dims else 1)
    return tuple(out)


@dataclass(frozen=True)
class _Atom:
    """A term of index arithmetic that is not linear, as an unknown of a :class:`Linear` form."""
    expr: object


class Linear:
    """Index arithmetic as ``const + sum(coef * var)``, to bound slice extents like j:j+T."""

    @staticmethod
    def of(e, env) -> dict | None:
        if isinstance(e, A.Int):
            return {"": e.value}
        if isinstance(e, A.Name):
            t = env.get(e.id)
            if isinstance(t, TScalar) and t.is_int and isinstance(t.value, int):
                return {"": t.value}
            return {e.id: 1, "": 0}
        if isinstance(e, A.Binary) and e.op in "+-":
            a, b = Linear.of(e.lhs, env), Linear.of(e.rhs, env)
            if a is None or b is None:
                return None
            sign = 1 if e.op == "+" else -1
            out = dict(a)
            for k, v in b.items():
                out[k] = out.get(k, 0) + sign * v
            return out
        if isinstance(e, A.Binary) and e.op == "*":
            a, b = Linear.of(e.lhs, env), Linear.of(e.rhs, env)
            if a is None or b is None:
                return None
            if set(a) == {""}:
                a, b = b, a
            if set(b) == {""}:
                return {k: v * b[""] for k, v in a.items()}
        # Any other term (t % KW, t // KW, i * j, a call) is an unknown of its own: the same
        # expression twice is the same value (index expressions have no side effects), so
        # s - t % KW : s - t % KW + T has the constant length T.
        return {_Atom(e): 1, "": 0}

    @staticmethod
    def difference(stop, start, env) -> int | None:
        a, b = Linear.of(stop, env), Linear.of(start, env)
        if a is None or b is None:
            return None
        diff = dict(a)
        for k, v in b.items():
            diff[k] = diff.get(k, 0) - v
        if all(v == 0 for k, v in diff.items() if k):
            return diff.get("", 0)
        return None

