"""Generic kernels: type variables and their instances.

``kernel mish[T: (f16, bf16, f32)](x: gm T[*S]) -> (y: gm T[*S]):`` serves every dtype in ``T``'s
list. The checker, the interpreter and the lowering see one *instance* at a time: the kernel with
``T`` replaced by the dtype the op's tensors have (``cast(t, T)``, ``zeros((N,), T)`` and every
type written ``T`` become that dtype), as a C++ template is instantiated once per type. Star dims
(``*S``) stay in the instance: they are bound at each shape set (``ascendcraft.binding``).
"""
from __future__ import annotations

from dataclasses import fields, is_dataclass, replace

from ..errors import DSLError
from ..memo import Memo
from . import ast as A


def validate(kernel: A.Kernel) -> None:
    """The rules of the signature's type variables and star dims, checked once at parse time."""
    seen: set[str] = set()
    for t in kernel.type_params:
        if t.name in seen:
            raise DSLError(f"type variable {t.name} is declared twice", t.span, kind="syntax error")
        seen.add(t.name)
        bad = [c for c in t.choices if c not in A.DTYPES]
        if bad:
            raise DSLError(f"{bad[0]!r} is not a dtype ({t.name} ranges over dtypes)", t.span, kind="syntax error",
                           hint=f"dtypes: {', '.join(A.DTYPES)}")
        if len(set(t.choices)) != len(t.choices):
            raise DSLError(f"{t.name} lists a dtype twice", t.span, kind="syntax error")
    if not seen:
        return
    for node in A.walk(kernel):
        taken = next((n for n in _defined_names(node) if n in seen), None)
        if taken is not None:
            raise DSLError(f"{taken} is the kernel's type variable; it cannot also name a value", node.span,
                           kind="syntax error", hint=f"rename the {type(node).__name__.lower()} (e.g. {taken.lower()}_)")
        if isinstance(node, A.TensorType):
            dim = next((d for d in node.shape if d in seen), None)
            if dim is not None:
                raise DSLError(f"{dim} is the kernel's type variable, not a dim", node.span, kind="syntax error",
                               hint=f"use another dim name; write the dtype as {dim}[...]")


def _defined_names(node) -> tuple[str, ...]:
    if isinstance(node, (A.Param, A.Const, A.Scratch, A.View, A.Buffer)):
        return (node.name,)
    if isinstance(node, A.Assign):
        return (node.target,)
    if isinstance(node, A.For):
        return (node.var,)
    if isinstance(node, A.ParallelFor):
        return node.vars
    return ()


def instantiate(kernel: A.Kernel, dtypes: dict[str, str]) -> A.Kernel:
    """``kernel`` with each type variable replaced by ``dtypes[name]`` (one object per kernel and
    dtypes: checks and lowerings keyed by the kernel find each other)."""
    if not kernel.type_params:
        return kernel
    key = (id(kernel), tuple(sorted(dtypes.items())))
    hit = _INSTANCES.get(key)
    if hit is not None:
        return hit[1]
    body = tuple(_substitute(s, dtypes) for s in kernel.body)
    inst = replace(kernel, inputs=tuple(_substitute(p, dtypes) for p in kernel.inputs),
                   outputs=tuple(_substitute(p, dtypes) for p in kernel.outputs), body=body, type_params=())
    _INSTANCES.put(key, (kernel, inst))       # the entry holds the kernel, so its id is not reused
    return inst


_INSTANCES = Memo(entries=64)


def _substitute(node, dtypes: dict[str, str]):
    if isinstance(node, (A.TensorType, A.ScalarType)):
        return replace(node, dtype=dtypes.get(node.dtype, node.dtype))
    if isinstance(node, A.Name):
        return replace(node, id=dtypes[node.id]) if node.id in dtypes else node
    if isinstance(node, tuple):
        return tuple(_substitute(x, dtypes) for x in node)
    if not is_dataclass(node):
        return node
    changes = {}
    for f in fields(node):
        if f.name in ("span", "source"):
            continue
        value = getattr(node, f.name)
        new = _substitute(value, dtypes)
        if new is not value:
            changes[f.name] = new
    return replace(node, **changes) if changes else node
