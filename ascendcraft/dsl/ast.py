"""IR of the tile DSL: frozen dataclasses whose source span is excluded from equality.

One tree serves every level: the program an LLM or a person writes, and the
lower-level programs the lowering passes produce.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, field, replace
from typing import Union

from ..errors import SourceFile, Span


def _span():
    return field(default=None, compare=False, repr=False)


# ---------------------------------------------------------------- types
Dim = Union[str, int]


@dataclass(frozen=True)
class TensorType:
    """A tensor: ``gm f32[B, N]``. ``space`` is the memory space (gm for kernel parameters)."""

    dtype: str
    shape: tuple[Dim, ...]
    space: str = "gm"
    span: Span | None = _span()


@dataclass(frozen=True)
class ScalarType:
    """A scalar attribute: ``eps: f32``."""

    dtype: str
    span: Span | None = _span()


Type = Union[TensorType, ScalarType]


# ---------------------------------------------------------------- expressions
@dataclass(frozen=True)
class Name:
    id: str
    span: Span | None = _span()


@dataclass(frozen=True)
class Int:
    value: int
    span: Span | None = _span()


@dataclass(frozen=True)
class Float:
    value: float
    span: Span | None = _span()


@dataclass(frozen=True)
class Str:
    value: str
    span: Span | None = _span()


@dataclass(frozen=True)
class Tuple:
    items: tuple["Expr", ...]
    span: Span | None = _span()


@dataclass(frozen=True)
class Unary:
    """``-x`` (op "-") or ``~x`` (op "~")."""

    op: str
    operand: "Expr"
    span: Span | None = _span()


@dataclass(frozen=True)
class Binary:
    """Arithmetic, bitwise and comparison operators: + - * / // % ** & | < <= > >= == !=."""

    op: str
    lhs: "Expr"
    rhs: "Expr"
    span: Span | None = _span()


@dataclass(frozen=True)
class Keyword:
    name: str
    value: "Expr"
    span: Span | None = _span()


@dataclass(frozen=True)
class Call:
    """A builtin call ``func(args..., name=value...)``; ops are resolved through the op table."""

    func: str
    args: tuple["Expr", ...]
    kwargs: tuple[Keyword, ...] = ()
    span: Span | None = _span()

    def kwarg(self, name: str) -> "Expr | None":
        for k in self.kwargs:
            if k.name == name:
                return k.value
        return None


@dataclass(frozen=True)
class Slice:
    """``start:stop`` or ``start:stop:step`` inside a subscript; either bound may be omitted. Bounds
    clamp to [0, dim]; ``step`` (None: 1) is a positive integer known before the kernel runs."""

    start: "Expr | None"
    stop: "Expr | None"
    span: Span | None = _span()
    step: "Expr | None" = None

    def parts(self) -> tuple:
        """The expressions the slice holds (start, stop, step that are given)."""
        return tuple(x for x in (self.start, self.stop, self.step) if x is not None)

    def stepped(self) -> bool:
        """Whether the slice takes every step-th element (a step other than the literal 1)."""
        return self.step is not None and not (isinstance(self.step, Int) and self.step.value == 1)


@dataclass(frozen=True)
class Index:
    """``base[s0, s1, ...]`` where each subscript is an expression (drops the axis) or a Slice."""

    base: "Expr"
    subscripts: tuple["Expr | Slice", ...]
    span: Span | None = _span()


@dataclass(frozen=True)
class Load:
    """``load(x[...], pad=v, space=l1)``: copy a GM region into a new on-chip tile.

    Without ``pad`` the region is clamped to the tensor; with ``pad`` it keeps its
    full extent and positions outside the tensor read ``pad``.
    """

    src: "Expr"
    pad: "Expr | None" = None
    space: str = "ub"
    out: str | None = None          # lowered forms: the queue or buffer the tile is copied into
    span: Span | None = _span()


Expr = Union[Name, Int, Float, Str, Tuple, Unary, Binary, Call, Index, Load]


# ---------------------------------------------------------------- statements
@dataclass(frozen=True)
class Assign:
    target: str
    value: Expr
    span: Span | None = _span()


@dataclass(frozen=True)
class Const:
    """``const T = 4096``: a compile-time integer or float."""

    name: str
    value: Expr
    span: Span | None = _span()


@dataclass(frozen=True)
class Scratch:
    """``scratch part: f32[CORES]``: a GM workspace tensor private to the kernel."""

    name: str
    type: TensorType
    span: Span | None = _span()


@dataclass(frozen=True)
class View:
    """``xv = view(x, (N, C, HW))``: GM tensor ``x``'s elements, in the same order, with another shape
    (a reshape: an address computation, no copy). Top level only; extents are dims, consts or ints.
    ``xt = permute(x, (0, 2, 1, 3))`` (``perm`` set, ``shape`` empty) is ``x`` with its axes in that
    order, as ``torch.permute``: the same elements at other strides."""

    name: str
    base: str
    shape: tuple[Dim, ...]
    span: Span | None = _span()
    perm: tuple[int, ...] | None = None


@dataclass(frozen=True)
class Store:
    """``store(y[...], v)`` writes a tile to GM; ``atomic_add(y[...], v)`` accumulates (accumulate=True)."""

    dst: Expr
    value: Expr
    accumulate: bool = False
    span: Span | None = _span()


@dataclass(frozen=True)
class For:
    """``for j in range(start, stop, step):``, a sequential loop on one core."""

    var: str
    start: Expr
    stop: Expr
    step: Expr
    body: tuple["Stmt", ...]
    span: Span | None = _span()


@dataclass(frozen=True)
class ParallelFor:
    """``for i, j in parallel(M, N):``, iterations spread over the AI cores (a phase of the kernel)."""

    vars: tuple[str, ...]
    extents: tuple[Expr, ...]
    body: tuple["Stmt", ...]
    span: Span | None = _span()


@dataclass(frozen=True)
class Pass:
    span: Span | None = _span()


@dataclass(frozen=True)
class Buffer:
    """Lowered forms: ``buffer qx: vecin f32[8192] * 2``, an on-chip buffer of the AscendC pipe.

    ``type.space`` is the queue position (vecin, vecout: a TQue with ``depth`` slots) or
    veccalc (a TBuf). Tiles are placed in it with ``out=qx`` on a load or an op.
    """

    name: str
    type: TensorType
    depth: int = 1
    span: Span | None = _span()


@dataclass(frozen=True)
class Free:
    """Lowered forms: ``free(t)`` releases the queue slot holding tile ``t`` (FreeTensor)."""

    name: str
    span: Span | None = _span()


Stmt = Union[Assign, Const, Scratch, View, Store, For, ParallelFor, Pass, Buffer, Free]


# ---------------------------------------------------------------- kernel
@dataclass(frozen=True)
class Param:
    name: str
    type: Type
    default: Expr | None = None
    span: Span | None = _span()


@dataclass(frozen=True)
class TypeParam:
    """A type variable of a generic kernel, ``T: (f16, bf16, f32)``: the dtypes it may stand for. A
    kernel is instantiated once per dtype the op uses (``ascendcraft.dsl.generics``)."""

    name: str
    choices: tuple[str, ...]
    span: Span | None = _span()


@dataclass(frozen=True)
class Kernel:
    name: str
    inputs: tuple[Param, ...]
    outputs: tuple[Param, ...]
    body: tuple[Stmt, ...]
    span: Span | None = _span()
    source: SourceFile | None = field(default=None, compare=False, repr=False)
    #: ``kernel k[T: (f16, f32)](...)``: empty once instantiated
    type_params: tuple[TypeParam, ...] = ()
    #: dims written ``*B`` in a parameter's shape: B binds the product of a run of the op tensor's
    #: axes (1 for none), so one kernel serves every rank (ascendcraft.dsl.star_groups)
    star_dims: tuple[str, ...] = ()
    #: ``*A(dim)``: how many axes star dim A covers, an integer attribute's name or a number (a
    #: negative one counts from the rank); a star dim without a count covers the axes the others leave
    star_counts: tuple[tuple[str, Dim], ...] = ()

    def param(self, name: str) -> Param | None:
        for p in self.inputs + self.outputs:
            if p.name == name:
                return p
        return None


def whole_subscripts(region, rank: int) -> list:
    """The subscripts of GM region or tile index ``region`` over all ``rank`` axes: the omitted trailing
    axes are whole slices (``x[i]`` of a rank-3 tensor is ``x[i, :, :]``; a bare name is all whole)."""
    subs = list(region.subscripts) if isinstance(region, Index) else []
    return subs + [Slice(None, None)] * (rank - len(subs))


DTYPES = ("f16", "bf16", "f32", "i8", "i16", "i32", "i64", "u8", "bool")
MEMORY_SPACES = ("gm", "ub", "l1", "l0c")
BUFFER_POSITIONS = ("vecin", "vecout", "veccalc")   # AscendC TPosition of a UB buffer


class ByNode:
    """Values computed from IR nodes, keyed by the node's identity (nodes are immutable, and the
    lowering passes keep the nodes they do not change, so each level finds most of its own here).
    An entry holds its node, so that the node's id cannot be reused while it is a key; past
    ``limit`` entries the oldest goes."""

    def __init__(self, limit: int):
        self.limit, self._found = limit, {}

    def get(self, node, compute):
        """``compute(node)``, computed once while the entry lasts."""
        found = self._found.get(id(node))
        if found is None or found[0] is not node:
            found = self._put(node, compute(node))
        return found[1]

    def __contains__(self, node) -> bool:
        found = self._found.get(id(node))
        return found is not None and found[0] is node

    def add(self, node) -> None:
        self._put(node, None)

    def _put(self, node, value) -> tuple:
        if len(self._found) >= self.limit:
            self._found.pop(next(iter(self._found)), None)
        found = self._found[id(node)] = (node, value)
        return found


_KERNEL_NODES = ByNode(4)   # a kernel's nodes: the last few kernels walked


def is_product(node) -> bool:
    """A cube product: the DSL's ``matmul``, or the ``Matmul`` call the cube pass lowers it to."""
    return isinstance(node, Call) and node.func in ("matmul", "Matmul")


def is_tap_product(node) -> bool:
    """A ``Matmul(..., taps=...)``: the cube pass's tap products (lowering_passes/cube_taps.py)."""
    return isinstance(node, Call) and node.func == "Matmul" and node.kwarg("taps") is not None


def is_tap_phase(node) -> bool:
    """A phase (or any statement) that stores tap products."""
    return any(isinstance(n, Store) and is_tap_product(n.value) for n in walk(node))


def walk(node):
    """``node`` and every IR node below it, depth first, in source order.

    A whole kernel's nodes are listed once and kept for the last few kernels: the checker, the
    footprint, the symbol table and the passes each walk the same (immutable) kernel, which
    dominated checking a long one."""
    if not isinstance(node, Kernel):
        return iter(_walk(node))
    return iter(_KERNEL_NODES.get(node, lambda k: tuple(_walk(k))))


@functools.cache
def child_fields(cls) -> tuple[str, ...]:
    """The fields of IR class ``cls`` that may hold nodes or names: all but ``span`` and ``source``."""
    return tuple(n for n in getattr(cls, "__dataclass_fields__", {}) if n not in ("span", "source"))


def _walk(node) -> list:
    # a list built with a stack, not nested generators: a generator's items pass up through
    # every level of nesting, and walks are most of checking a long kernel
    found, stack = [], [node]
    while stack:
        n = stack.pop()
        found.append(n)
        below = []
        for name in child_fields(type(n)):
            value = getattr(n, name)
            if isinstance(value, tuple):
                below += [v for v in value if hasattr(v, "__dataclass_fields__")]
            elif hasattr(value, "__dataclass_fields__"):
                below.append(value)
        stack += reversed(below)
    return found


def statements(body):
    """Every statement of ``body`` and of the loops in it, in source order (expressions not entered)."""
    for s in body:
        yield s
        if isinstance(s, (For, ParallelFor)):
            yield from statements(s.body)


_NAME_COUNTS = ByNode(200_000)


def name_counts(node) -> dict[str, int]:
    """How many times each name is read in ``node`` (a statement: the whole loop for a loop). Do not
    change the dict: it is kept for the node."""
    return _NAME_COUNTS.get(node, _count_names)


def _count_names(node) -> dict[str, int]:
    counts: dict[str, int] = {}
    if isinstance(node, (For, ParallelFor)):   # from its statements' counts, which the level before had
        heads = (node.start, node.stop, node.step) if isinstance(node, For) else node.extents
        for part in [_count_names(h) for h in heads] + [name_counts(s) for s in node.body]:
            for name, k in part.items():
                counts[name] = counts.get(name, 0) + k
        return counts
    for n in _walk(node):
        if type(n) is Name:
            counts[n.id] = counts.get(n.id, 0) + 1
    return counts


def names_in(node) -> set[str]:
    """The ids of every ``Name`` in ``node`` (None: none)."""
    found: set[str] = set()
    if node is not None:
        _collect_names(node, found)
    return found


def _collect_names(node, found: set) -> None:
    # a recursive function, not walk(): names are sought once per statement per check
    if type(node) is Name:
        found.add(node.id)
        return
    for name in child_fields(type(node)):
        value = getattr(node, name)
        if isinstance(value, tuple):
            for item in value:
                if hasattr(item, "__dataclass_fields__"):
                    _collect_names(item, found)
        elif hasattr(value, "__dataclass_fields__"):
            _collect_names(value, found)


def map_names(e, fn):
    """``e`` with every name ``n`` replaced by ``fn(n)`` (an expression), through every kind of node."""
    if isinstance(e, Name):
        return fn(e)
    if isinstance(e, Binary):
        return replace(e, lhs=map_names(e.lhs, fn), rhs=map_names(e.rhs, fn))
    if isinstance(e, Unary):
        return replace(e, operand=map_names(e.operand, fn))
    if isinstance(e, Call):
        return replace(e, args=tuple(map_names(a, fn) for a in e.args),
                       kwargs=tuple(replace(k, value=map_names(k.value, fn)) for k in e.kwargs))
    if isinstance(e, Index):
        return replace(e, base=map_names(e.base, fn), subscripts=tuple(map_names(x, fn) for x in e.subscripts))
    if isinstance(e, Slice):
        return replace(e, start=map_names(e.start, fn) if e.start is not None else None,
                       stop=map_names(e.stop, fn) if e.stop is not None else None,
                       step=map_names(e.step, fn) if e.step is not None else None)
    if isinstance(e, Tuple):
        return replace(e, items=tuple(map_names(i, fn) for i in e.items))
    return e
