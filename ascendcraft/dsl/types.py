"""Static types the checker gives to DSL values."""
from __future__ import annotations

from dataclasses import dataclass

from .. import dtypes as D


@dataclass(frozen=True)
class TScalar:
    """A scalar: a loop variable, dim, constant, attribute or literal.

    ``dtype`` is a DSL dtype, or a *weak* literal kind "int" / "float" / "bool" that
    takes the dtype of the tile it meets. ``value`` is known when the scalar is constant.
    """

    dtype: str
    value: object = None

    @property
    def is_int(self) -> bool:
        return self.dtype == "int" or self.dtype in D.INTS

    @property
    def is_float(self) -> bool:
        return self.dtype == "float" or self.dtype in D.FLOATS

    def describe(self) -> str:
        kind = {"int": "integer", "float": "float", "bool": "bool"}.get(self.dtype, self.dtype)
        return f"{kind} scalar" + (f" {self.value!r}" if self.value is not None else "")


@dataclass(frozen=True)
class TTile:
    """An on-chip tile; ``shape`` holds upper bounds of each axis (tails may be shorter)."""

    dtype: str
    shape: tuple[int, ...]
    space: str = "ub"

    @property
    def nbytes(self) -> int:
        n = D.ITEMSIZE[self.dtype]
        for d in self.shape:
            n *= d
        return n

    def describe(self) -> str:
        return f"{self.space} tile {self.dtype}[{', '.join(map(str, self.shape))}]"


#: The spaces a vector op reads: UB, and L0C for the cube's finished product (a fused epilogue:
#: the lowering hands the tile to UB, docs/dsl.md "Cube (matmul)").
VECTOR_READS = frozenset({"ub", "l0c"})


def on_vector(space: str) -> str:
    """Where a vector op's operand (and result) lives: UB, also for the cube's product (l0c, which
    the lowering hands to UB for a fused epilogue). The checker's and the interpreter's rule."""
    return "ub" if space == "l0c" else space


def vector_operand(t: TTile) -> TTile:
    """The tile a vector op reads: a product tile (l0c) as the UB copy the lowering makes of it."""
    return TTile(t.dtype, t.shape, on_vector(t.space))


@dataclass(frozen=True)
class TGM:
    """A GM tensor: a kernel input, output or scratch buffer."""

    name: str
    dtype: str
    shape: tuple[int, ...]
    role: str  # "input" | "output" | "scratch"

    @property
    def nbytes(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n * D.ITEMSIZE[self.dtype]

    def describe(self) -> str:
        return f"GM {self.role} {self.name}: {self.dtype}[{', '.join(map(str, self.shape))}]"


@dataclass(frozen=True)
class TRegion:
    """A region of a GM tensor, ``x[i, j:j+T]``: only a load source or a store destination."""

    gm: TGM
    shape: tuple[int, ...]

    def describe(self) -> str:
        return f"GM region of {self.gm.name} {self.gm.dtype}[{', '.join(map(str, self.shape))}]"


@dataclass(frozen=True)
class TDType:
    name: str

    def describe(self) -> str:
        return f"dtype {self.name}"


@dataclass(frozen=True)
class TTuple:
    items: tuple

    def describe(self) -> str:
        return "tuple"


@dataclass(frozen=True)
class TStr:
    value: str

    def describe(self) -> str:
        return f"string {self.value!r}"
