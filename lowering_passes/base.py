"""What every lowering pass shares: the pass interface, its context, and IR-building helpers."""
from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from ascendcraft.dsl import ast as A


@dataclass
class PassContext:
    """What a pass may read: the checked input program at the op's real shapes, and the chip.

    ``checked.expr_types`` maps ``id(expr)`` of the *input* program's nodes to their static types.
    """

    checked: object          # ascendcraft.dsl.checker.CheckedKernel
    chip: object             # ascendcraft.chips.Chip
    assist: object = None    # optional LLM assist: Callable[[str], str] (prompt -> answer)
    notes: list = field(default_factory=list)   # what the pass decided, for the report

    def type_of(self, e):
        return self.checked.expr_types.get(id(e))


@dataclass(frozen=True)
class LoweringPass:
    """A named program-to-program rewrite. Subclasses set ``name`` and implement ``run``."""

    name: str = "pass"
    establishes: tuple[str, ...] = ()

    def run(self, kernel: A.Kernel, ctx: PassContext) -> A.Kernel:
        raise NotImplementedError


def rewrite_block(stmts, rewrite) -> tuple:
    """Apply ``rewrite(stmt) -> list of stmts`` to every statement outside loops, recursing into loops."""
    out = []
    for s in stmts:
        if isinstance(s, (A.For, A.ParallelFor)):
            out.append(replace(s, body=rewrite_block(s.body, rewrite)))
        else:
            out += rewrite(s)
    return tuple(out)


def is_phase_loop(s) -> bool:
    """A top-level ``for`` whose body is parallel loops: its phases run once per iteration."""
    return isinstance(s, A.For) and bool(s.body) and all(isinstance(b, A.ParallelFor) for b in s.body)


class Names:
    """The one source of fresh names for the passes: a name no identifier of the kernel uses.

    Seeded with every identifier the kernel mentions, wherever it appears (parameters, dims in
    types, constants, scratch tensors, buffers, variables, loop variables, ``out=`` buffers,
    ``free`` operands), so a name a pass invents can never be one the writer chose (a variable
    ``_t0``, ``core0``, ``_pf0`` or ``rwork`` only pushes the pass to the next free name)."""

    def __init__(self, kernel: A.Kernel):
        self.taken: set[str] = identifiers(kernel)
        self.counts: dict[str, int] = {}

    def fresh(self, stem: str, *, bare: bool = False) -> str:
        """``<stem><k>`` for the first k that is free; with ``bare``, ``stem`` itself when it is free."""
        if bare and stem not in self.taken:
            self.taken.add(stem)
            return stem
        while True:
            k = self.counts.get(stem, 0)
            self.counts[stem] = k + 1
            name = f"{stem}{k}"
            if name not in self.taken:
                self.taken.add(name)
                return name


_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def identifiers(kernel: A.Kernel) -> set[str]:
    """Every identifier-shaped string in the kernel's IR: each string field of each node, and each
    string in a tuple field (a ParallelFor's variables, a type's dims). Generic on purpose: a name
    in a field added later is still seen (more taken names only make fresh names longer)."""
    found: set[str] = set()
    for n in A.walk(kernel):
        for f in getattr(n, "__dataclass_fields__", {}):
            if f in ("span", "source"):
                continue
            v = getattr(n, f)
            for item in (v if isinstance(v, tuple) else (v,)):
                if isinstance(item, str) and _IDENT.fullmatch(item):
                    found.add(item)
    return found


def name(n: str) -> A.Name:
    return A.Name(n)


def binary(op: str, a, b) -> A.Binary:
    return A.Binary(op, a, b)


def call(func: str, *args, **kwargs) -> A.Call:
    return A.Call(func, tuple(args), tuple(A.Keyword(k, v) for k, v in kwargs.items()))


def lit(v):
    if isinstance(v, bool):
        return A.Name("True" if v else "False")
    return A.Int(v) if isinstance(v, int) else A.Float(v)


def map_names(e, fn):
    """``e`` with every name ``n`` replaced by ``fn(n)`` (an expression), through every kind of node."""
    if isinstance(e, A.Name):
        return fn(e)
    if isinstance(e, A.Binary):
        return replace(e, lhs=map_names(e.lhs, fn), rhs=map_names(e.rhs, fn))
    if isinstance(e, A.Unary):
        return replace(e, operand=map_names(e.operand, fn))
    if isinstance(e, A.Call):
        return replace(e, args=tuple(map_names(a, fn) for a in e.args),
                       kwargs=tuple(replace(k, value=map_names(k.value, fn)) for k in e.kwargs))
    if isinstance(e, A.Index):
        return replace(e, base=map_names(e.base, fn), subscripts=tuple(map_names(x, fn) for x in e.subscripts))
    if isinstance(e, A.Slice):
        return replace(e, start=map_names(e.start, fn) if e.start is not None else None,
                       stop=map_names(e.stop, fn) if e.stop is not None else None)
    if isinstance(e, A.Tuple):
        return replace(e, items=tuple(map_names(i, fn) for i in e.items))
    return e
