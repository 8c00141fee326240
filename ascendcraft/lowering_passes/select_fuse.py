"""Select's fusions of consecutive API ops into one: a tile times a scalar added to another tile,
``_t = Muls(x, s)`` then ``y = Add(acc, _t)`` (either order) with ``_t`` read nowhere else, is
``y = Axpy(acc, x, s)`` — one vector op instead of two, and no temporary (a convolution's taps, an
optimizer's moments). Float tiles only: the 910B's Axpy takes float."""
from __future__ import annotations

from dataclasses import replace

from ascendcraft.dsl import ast as A
from ascendcraft.dsl.types import TTile


def fuse_axpy(body: tuple, type_of) -> tuple:
    """``body`` (a selected kernel's) with every such pair fused; ``type_of`` gives the types of the
    nodes the pass kept from its input."""
    uses: dict[str, int] = {}
    for s in body:
        for name, k in A.name_counts(s).items():
            uses[name] = uses.get(name, 0) + k
    return _block(body, type_of, uses)


def _block(stmts, type_of, uses) -> tuple:
    out: list = []
    for s in stmts:
        if isinstance(s, (A.For, A.ParallelFor)):
            out.append(replace(s, body=_block(s.body, type_of, uses)))
            continue
        fused = _fused(out[-1], s, type_of, uses) if out else None
        if fused is not None:
            out[-1] = fused
        else:
            out.append(s)
    return tuple(out)


def _fused(first, second, type_of, uses):
    """``second`` with ``first``'s product folded in, or None."""
    if not (_is_call(first, "Muls") and _is_call(second, "Add")):
        return None
    x, scale = first.value.args
    product = first.target
    add = second.value.args
    acc = next((a for a, b in (add, add[::-1]) if isinstance(b, A.Name) and b.id == product
                and not (isinstance(a, A.Name) and a.id == product)), None)
    if acc is None or uses.get(product) != 1:
        return None
    t = type_of(x)
    if not (isinstance(t, TTile) and t.dtype == "f32" and isinstance(acc, A.Name)):
        return None
    return replace(second, value=A.Call("Axpy", (acc, x, scale), (), second.value.span))


def _is_call(s, func: str) -> bool:
    return isinstance(s, A.Assign) and isinstance(s.value, A.Call) and s.value.func == func \
        and not s.value.kwargs and isinstance(s.value.args[0], A.Name)
