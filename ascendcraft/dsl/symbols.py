"""The table of a kernel's names at one shape set: every GM tensor (inputs, outputs, scratch) and
every scalar name (dims, attributes, consts, ``CORES``) with its type and its value there.

The checker builds it (``CheckedKernel.symbols``); passes, the emitter and the cost model look
names up here, so a scratch tensor or a const is found wherever a parameter or a dim would be.
Extents are compared through :meth:`Symbols.canonical`, which spells a const by its definition:
``scratch qh: f32[B, NH, S, D]`` with ``const NH = H`` has the batch extent ``H``.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Mapping

from . import ast as A
from .types import TGM, TScalar


@dataclass(frozen=True)
class TensorSymbol:
    """A GM tensor: ``gm`` is its type at these shapes, ``decl`` its declared type (dims as written);
    a view (``xv = view(x, ...)``) names the parameter or scratch tensor whose elements it holds in
    ``base`` (its role is that tensor's)."""

    gm: TGM
    decl: A.TensorType
    base: str | None = None
    perm: tuple[int, ...] | None = None     # a permuted view: its axis i is axis perm[i] of ``over``
    over: str | None = None                 # the tensor a permuted view permutes (itself in memory order)

    @property
    def name(self) -> str:
        return self.gm.name

    @property
    def dtype(self) -> str:
        return self.gm.dtype

    @property
    def role(self) -> str:
        return self.gm.role

    @property
    def shape(self) -> tuple[int, ...]:
        return self.gm.shape

    @property
    def dims(self) -> tuple:
        return self.decl.shape

    def dim_expr(self, axis: int) -> A.Expr:
        """The declared extent of ``axis`` (negative counts from the end) as an expression."""
        d = self.decl.shape[axis]
        return A.Name(d) if isinstance(d, str) else A.Int(d)


@dataclass(frozen=True)
class ScalarSymbol:
    """A scalar name: ``kind`` is dim, attr, const or cores; ``definition`` is a const's expression."""

    name: str
    kind: str
    type: TScalar
    definition: A.Expr | None = None

    @property
    def value(self):
        return self.type.value


@dataclass(frozen=True)
class Symbols:
    tensors: Mapping[str, TensorSymbol]
    scalars: Mapping[str, ScalarSymbol]

    def __post_init__(self):
        object.__setattr__(self, "tensors", MappingProxyType(dict(self.tensors)))
        object.__setattr__(self, "scalars", MappingProxyType(dict(self.scalars)))

    # ------------------------------------------------------------ tensors
    def tensor(self, name: str) -> TensorSymbol:
        try:
            return self.tensors[name]
        except KeyError:
            raise KeyError(f"{name!r} is not a GM tensor of the kernel (parameters: "
                           f"{', '.join(self.tensors) or 'none'})") from None

    def is_tensor(self, name: str) -> bool:
        return name in self.tensors

    def parameters(self) -> list[TensorSymbol]:
        """The kernel's GM parameters, inputs then outputs, in declaration order."""
        return [t for t in self.tensors.values() if t.role != "scratch" and t.base is None]

    def scratch(self) -> list[TensorSymbol]:
        """The scratch tensors (their own memory; views of them are :meth:`views`)."""
        return [t for t in self.tensors.values() if t.role == "scratch" and t.base is None]

    def views(self) -> list[TensorSymbol]:
        return [t for t in self.tensors.values() if t.base is not None]

    def strides(self, name: str) -> list[tuple]:
        """Per axis of GM tensor ``name``, the declared extents whose product is its stride in elements
        (``()`` for 1): the extents after the axis, or for a permuted view those of the axis it is."""
        t = self.tensor(name)
        if t.perm is None:
            return [tuple(t.dims[i + 1:]) for i in range(len(t.dims))]
        over = self.strides(t.over)
        return [over[p] for p in t.perm]

    def strides_at(self, name: str, env: dict) -> list[int]:
        """:meth:`strides` of ``name`` in elements, its dims taken from ``env``."""
        out = []
        for ext in self.strides(name):
            s = 1
            for d in ext:
                s *= env[d] if isinstance(d, str) else d
            out.append(s)
        return out

    def dims_at(self, name: str, env: dict) -> list[int]:
        """The extents of GM tensor ``name``, its dims taken from ``env``."""
        return [env[d] if isinstance(d, str) else d for d in self.tensor(name).dims]

    def root(self, name: str) -> str:
        """The parameter or scratch tensor whose memory GM tensor ``name`` is (itself, or a view's base)."""
        return self.tensor(name).base or name

    # ------------------------------------------------------------ scalars
    def value(self, name: str):
        return self.scalars[name].value

    def values(self) -> dict:
        """Every scalar name with a known value: the environment of a constant expression."""
        return {n: s.value for n, s in self.scalars.items() if s.value is not None}

    def extent(self, d) -> int:
        """The value of an extent: an int, a dim or const name, or an integer expression of them."""
        if isinstance(d, int):
            return d
        if isinstance(d, str):
            return self.value(d)
        return evaluate(d, self.values())

    def canonical(self, e):
        """``e`` with every const spelled by its definition, recursively (``NH`` for ``const NH = H``
        is ``H``): two extents are the same when their canonical forms are equal."""
        def subst(n: A.Name):
            s = self.scalars.get(n.id)
            if s is not None and s.kind == "const" and s.definition is not None:
                return self.canonical(s.definition)
            return A.Name(n.id)
        return A.map_names(e, subst)

    def same(self, a, b) -> bool:
        """Whether two extent expressions (or dims) name the same value at every shape."""
        return self.canonical(_expr(a)) == self.canonical(_expr(b))

    def renamed(self, fn) -> "Symbols":
        """The table with every name ``n`` spelled ``fn(n)`` (the emitter's C++ spellings)."""
        def expr(e):
            return None if e is None else A.map_names(e, lambda n: A.Name(fn(n.id)))

        def dims(shape):
            return tuple(d if isinstance(d, int) else fn(d) for d in shape)
        tensors = {fn(n): TensorSymbol(replace(t.gm, name=fn(n)), replace(t.decl, shape=dims(t.decl.shape)),
                                       None if t.base is None else fn(t.base), t.perm,
                                       None if t.over is None else fn(t.over))
                   for n, t in self.tensors.items()}
        scalars = {fn(n): replace(s, name=fn(n), definition=expr(s.definition)) for n, s in self.scalars.items()}
        return Symbols(tensors, scalars)


def _expr(d):
    if isinstance(d, str):
        return A.Name(d)
    if isinstance(d, int):
        return A.Int(d)
    return d


def evaluate(e, env: dict) -> int:
    """An integer expression of names in ``env``: + - * // %, cdiv, minimum, maximum."""
    if isinstance(e, A.Int):
        return e.value
    if isinstance(e, A.Name):
        return env[e.id]
    if isinstance(e, A.Binary):
        a, b = evaluate(e.lhs, env), evaluate(e.rhs, env)
        return {"+": a + b, "-": a - b, "*": a * b, "//": a // b if b else 0, "%": a % b if b else 0}[e.op]
    if isinstance(e, A.Call) and e.func in ("cdiv", "minimum", "maximum"):
        a, b = evaluate(e.args[0], env), evaluate(e.args[1], env)
        return {"cdiv": -(-a // b) if b else 0, "minimum": min(a, b), "maximum": max(a, b)}[e.func]
    if isinstance(e, A.Unary) and e.op == "-":
        return -evaluate(e.operand, env)
    raise KeyError(type(e).__name__)


def build(kernel: A.Kernel, dims: dict, params: dict, scratch: dict, consts: dict, cores: int,
          views: dict | None = None) -> Symbols:
    """The table of ``kernel`` from what the checker found: ``params`` (name -> TGM or TScalar),
    ``scratch`` (name -> TGM), ``consts`` (name -> (TScalar, definition)), ``views`` (name -> (base, TGM))."""
    decls = {p.name: p.type for p in kernel.inputs + kernel.outputs}
    decls.update({s.name: s.type for s in A.walk(kernel) if isinstance(s, A.Scratch)})
    tensors = {n: TensorSymbol(t, decls[n]) for n, t in {**params, **scratch}.items() if isinstance(t, TGM)}
    stmts = {s.name: s for s in kernel.body if isinstance(s, A.View)}
    for n, (base, t) in (views or {}).items():     # in declaration order: a view's base is declared first
        v = stmts[n]
        if v.perm is None:
            tensors[n] = TensorSymbol(t, A.TensorType(t.dtype, v.shape), base)
        else:
            over = tensors[v.base].dims
            tensors[n] = TensorSymbol(t, A.TensorType(t.dtype, tuple(over[p] for p in v.perm)), base, v.perm, v.base)
    scalars = {d: ScalarSymbol(d, "dim", TScalar("int", int(v))) for d, v in dims.items()}
    scalars.update({n: ScalarSymbol(n, "attr", t) for n, t in params.items() if isinstance(t, TScalar)})
    scalars.update({n: ScalarSymbol(n, "const", t, e) for n, (t, e) in consts.items()})
    scalars["CORES"] = ScalarSymbol("CORES", "cores", TScalar("int", cores))
    return Symbols(tensors, scalars)
