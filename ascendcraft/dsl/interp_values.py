"""The interpreter's run-time values (tiles, buffer slots, GM tensors), its located run-time
errors, and the arithmetic it shares between statements and calls: scalar operators with the
scalar unit's meaning, casts, the cube product."""
from __future__ import annotations

import operator

import numpy as np

from .. import dtypes as D
from ..errors import InterpreterError
from . import ast as A
from .ops import apply_round

ATOMIC_WRITER = 127  # writer mark for atomic_add (cores are marked core + 1; 0 = unwritten this phase)
SPACES = ("ub", "l1", "l0c")
#: Loop iterations one run may take (a kernel over tiles takes thousands at verification shapes;
#: a Python loop body takes microseconds, so this is minutes of work, not hours).
STEP_BUDGET = 20_000_000
SPACE_INDEX = {s: i for i, s in enumerate(SPACES)}
SCALAR_OPS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "//": operator.floordiv,
              "%": operator.mod, "**": operator.pow, "&": operator.and_, "|": operator.or_, "<": operator.lt,
              "<=": operator.le, ">": operator.gt, ">=": operator.ge, "==": operator.eq, "!=": operator.ne}


def runtime_error(msg, node=None, hint=None, kind="runtime error"):
    return InterpreterError(msg, getattr(node, "span", None), kind=kind, hint=hint)


class Tile:
    """An on-chip value: a NumPy array (bf16 held as float32), its DSL dtype and memory space."""

    __slots__ = ("data", "dtype", "space", "home")

    def __init__(self, data: np.ndarray, dtype: str, space: str = "ub"):
        self.data, self.dtype, self.space = data, dtype, space
        self.home = None   # lowered forms: (buffer state, slot, stamp) of the buffer slot holding it

    @property
    def nbytes(self) -> int:
        n = self.data.nbytes
        return n >> 1 if self.dtype == "bf16" else n  # bf16 is held in float32

    def __repr__(self):
        return f"Tile({self.dtype}{list(self.data.shape)}, {self.space})"


class BufferState:
    """Run-time state of a declared buffer: which value each slot holds and which slots are allocated."""

    __slots__ = ("decl", "queue", "stamps", "in_use", "next")

    def __init__(self, decl: A.Buffer):
        self.decl = decl
        self.queue = decl.type.space in ("vecin", "vecout")
        self.stamps = [0] * decl.depth
        self.in_use = [False] * decl.depth
        self.next = 0

    def place(self, tile: "Tile", node) -> "Tile":
        """Put a new value in the next free slot (AllocTensor); older values there become invalid."""
        slot = 0
        if self.queue:
            for k in range(len(self.stamps)):
                cand = (self.next + k) % len(self.stamps)
                if not self.in_use[cand]:
                    slot = cand
                    break
            else:
                raise runtime_error(f"queue {self.decl.name}: all {len(self.stamps)} slots are allocated; a value must be "
                            "freed (free(t)) before the next one is placed", node, kind="lowering error")
            self.in_use[slot] = True
            self.next = (slot + 1) % len(self.stamps)
        self.stamps[slot] += 1
        tile.home = (self, slot, self.stamps[slot])
        return tile


class GMTensor:
    """A GM tensor while a kernel runs: ``writers`` who wrote each element in this phase (race
    checks), ``written`` for scratch whether any store wrote it yet (a read before is garbage)."""
    __slots__ = ("name", "data", "dtype", "role", "writers", "written")

    def __init__(self, name, data, dtype, role):
        self.name, self.data, self.dtype, self.role, self.writers = name, data, dtype, role, None
        self.written = np.zeros(data.shape, np.bool_) if role == "scratch" else None


def matmul_tiles(a: Tile, b: Tile, ta: bool, tb: bool, node) -> Tile:
    x, y = (a.data.T if ta else a.data), (b.data.T if tb else b.data)
    if x.shape[1] != y.shape[0]:
        raise runtime_error(f"matmul: inner extents differ at run time: {list(x.shape)} x {list(y.shape)}", node,
                    kind="shape error", hint="tail tiles of the two operands have different lengths; "
                    "load cube operands with pad=0.0 so they keep their full size")
    if a.dtype == "i8":
        return Tile(x.astype(np.int32) @ y.astype(np.int32), "i32", "l0c")
    return Tile((x.astype(np.float32) @ y.astype(np.float32)).astype(np.float32), "f32", "l0c")


def scalar_binary(op, a, b, node):
    """Scalar arithmetic on the scalar unit: exact integers, double-precision floats."""
    if op == "/":
        if b == 0:
            return float("inf") if a > 0 else float("-inf") if a < 0 else float("nan")
        return a / b
    if op in ("//", "%") and b == 0:
        if isinstance(a, int) and isinstance(b, int):
            raise runtime_error("integer division by zero", node)
        return float("nan")
    if op == "**" and not (isinstance(a, int) and isinstance(b, int)):
        # NumPy's (and the DSL's) float power: 0.0 ** -2 is inf, (-2.0) ** 0.5 is NaN; Python's float
        # ** raises ZeroDivisionError or gives a complex number there
        with np.errstate(all="ignore"):
            return float(np.power(np.float64(a), np.float64(b)))
    try:
        return SCALAR_OPS[op](a, b)
    except OverflowError:
        return float("inf")


def cast_array(a: np.ndarray, src: str, dst: str, mode):
    if dst == "bool":
        return a != 0
    if dst in D.FLOATS:
        if mode is not None and src in D.FLOATS:
            a = apply_round(a, mode)
        return D.quantize(a.astype(np.float32) if dst == "bf16" else a, dst)
    # to an integer type
    if src in D.FLOATS:
        a = apply_round(a.astype(np.float64), mode or "trunc")  # float64: int32 limits are exact there
        info = np.iinfo(D.NUMPY[dst])
        a = np.clip(np.nan_to_num(a, nan=0.0, posinf=info.max, neginf=info.min), info.min, info.max)
    return a.astype(D.NUMPY[dst])


def cast_scalar(x, target, mode):
    return cast_array(np.asarray(x), "f32" if isinstance(x, float) else "i64", target, mode).item()

