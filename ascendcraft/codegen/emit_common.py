"""What the emitter's parts share: the tile record, C++ spellings of dtypes and rounding
modes, and small helpers over the lowered AST."""
from __future__ import annotations

from dataclasses import dataclass

from ascendcraft.lowering_passes.base import is_phase_loop

from .. import dtypes as D
from ..dsl import ast as A
from ..errors import DSLError
from .spec import CTYPES

# "mix": the Matmul API driven by the vector cores; "mixtaps": vector phases on the AIVs and tap products
# on the AICs, each kind its own branch (ASCEND_IS_AIV / ASCEND_IS_AIC), joined by cross-core flags
KERNEL_TYPES = {"aiv": "KERNEL_TYPE_AIV_ONLY", "aic": "KERNEL_TYPE_AIC_ONLY", "mix": "KERNEL_TYPE_MIX_AIC_1_2",
                "mixtaps": "KERNEL_TYPE_MIX_AIC_1_2"}
UB_CTYPES = dict(CTYPES, bool="uint8_t")     # bool tensors are bytes in GM and UB (Compare masks are bits)
ROUND_MODES = {"rint": "CAST_RINT", "floor": "CAST_FLOOR", "ceil": "CAST_CEIL", "round": "CAST_ROUND",
          "trunc": "CAST_TRUNC"}
SCALAR_UNARY = {"exp": "Exp", "log": "Ln", "sqrt": "Sqrt", "rsqrt": "Rsqrt", "tanh": "Tanh",
                 "sigmoid": "Sigmoid", "erf": "Erf"}


def camel(name: str) -> str:
    return "".join(p[:1].upper() + p[1:] for p in name.split("_") if p)


@dataclass
class Tile:
    ctype: str
    dtype: str
    rows: str     # C++ expression: number of rows (1 for rank <= 1)
    cols: str     # C++ expression: extent of the last axis (1 for rank 0)
    pitch: str    # C++ expression: padded row length in elements
    home: str     # buffer or queue name

    @property
    def count(self) -> str:
        return f"(({self.rows}) - 1) * ({self.pitch}) + ({self.cols})"


def cast_pitch(src: "Tile", pitch: str, dst_dtype: str) -> str | None:
    """The row pitch of a cast of 2-D tile ``src`` (row pitch expression ``pitch``) to ``dst_dtype``
    when the two dtypes' 32-byte row alignments differ (``AcAlignUp(cols, 16)`` for 2-byte types, 8
    for 4-byte ones), else None."""
    import re
    m = re.fullmatch(r"AcAlignUp\((.*), (\d+)\)", pitch)
    per_block = 32 // D.ITEMSIZE[dst_dtype]
    if src.rows == "1" or 32 // D.ITEMSIZE[src.dtype] == per_block:
        return None
    if m is None:
        # a pitch known only at run time (a window's output): narrowing, the source's pitch rounded up
        # to whole 32-byte rows of the result is the one a tile of the result's dtype has; widening
        # keeps the source's pitch (a multiple of the result's alignment already)
        return f"AcAlignUp({src.pitch}, {per_block})" if D.ITEMSIZE[dst_dtype] < D.ITEMSIZE[src.dtype] else None
    return None if int(m.group(2)) == per_block else f"AcAlignUp({m.group(1)}, {per_block})"


def host_int(e, consts: dict) -> str:
    """An integer scalar expression of dims, attributes, constants and CORES as host C++ (operators
    and ?: only), with constants expanded."""
    if isinstance(e, A.Int):
        return str(e.value)
    if isinstance(e, A.Name):
        if e.id in consts:
            return f"({host_int(consts[e.id], consts)})"
        return "AscendC::GetBlockNum()" if e.id == "CORES" else e.id
    if isinstance(e, A.Unary) and e.op == "-":
        return f"(-({host_int(e.operand, consts)}))"
    if isinstance(e, A.Binary) and e.op in ("+", "-", "*"):
        return f"({host_int(e.lhs, consts)} {e.op} {host_int(e.rhs, consts)})"
    if isinstance(e, A.Binary) and e.op in ("//", "%"):
        return (host_floordiv if e.op == "//" else host_mod)(host_int(e.lhs, consts), host_int(e.rhs, consts))
    if isinstance(e, A.Call) and e.func == "cdiv":   # cdiv(a, b) = -((-a) // b)
        a, b = (host_int(x, consts) for x in e.args)
        return f"(-{host_floordiv(f'(-{a})', b)})"
    if isinstance(e, A.Call) and e.func in ("minimum", "maximum"):
        a, b = (host_int(x, consts) for x in e.args)
        return f"(({a}) {'<' if e.func == 'minimum' else '>'} ({b}) ? ({a}) : ({b}))"
    raise unsupported("this constant in a scratch tensor's shape (the host computes the workspace size)", e)


def host_mod(a: str, b: str) -> str:
    """Python's a % b (the sign of b) from C++'s truncating %."""
    return f"(((({a}) % ({b})) + ({b})) % ({b}))"


def host_floordiv(a: str, b: str) -> str:
    return f"((({a}) - {host_mod(a, b)}) / ({b}))"


SCALAR_ROUND = {"rint": "AcRint", "floor": "AcFloor", "ceil": "AcCeil", "round": "AcRound", "trunc": "AcTrunc"}


def float_literal(v: float, ct: str) -> str:
    if v != v:
        return "AC_NAN"
    if v in (float("inf"), float("-inf")):
        return "AC_INF" if v > 0 else "(-AC_INF)"
    text = repr(float(v))
    return f"static_cast<{ct}>({text}f)" if ct != "float" else f"{text}f"


# where Process() starts its statements in the kernel source (removed once the line is known)
PROCESS_BODY = "\x00process-body\x00"


def mentions(node) -> set[str]:
    """The names a statement uses: its Name nodes and what it frees."""
    return {n.id if isinstance(n, A.Name) else n.name for n in A.walk(node) if isinstance(n, (A.Name, A.Free))}


def loop_carries(loop: A.For, name: str) -> bool:
    """Whether ``loop`` takes over the pending tile ``name`` as a prefetch does: the first
    top-level statement of its body that mentions ``name`` is ``t = name``, and a later one loads
    ``name`` again (pending at the body's end, as on entry)."""
    first = next((i for i, s in enumerate(loop.body) if name in mentions(s)), None)
    if first is None:
        return False
    alias = loop.body[first]
    if not (isinstance(alias, A.Assign) and isinstance(alias.value, A.Name) and alias.value.id == name):
        return False
    return any(isinstance(s, A.Assign) and s.target == name and isinstance(s.value, A.Load)
               for s in loop.body[first + 1:])


def on_all_cores(s) -> bool:
    return isinstance(s, A.ParallelFor) or is_phase_loop(s)


def literal_value(e):
    if e is None:
        return None
    if isinstance(e, (A.Int, A.Float)):
        return e.value
    if isinstance(e, A.Unary) and isinstance(e.operand, (A.Int, A.Float)):
        return -e.operand.value
    return None


def unsupported(what: str, node) -> DSLError:
    return DSLError(f"emitter: {what} cannot be emitted as AscendC yet", getattr(node, "span", None),
                    kind="lowering error",
                    hint="rewrite this statement with the forms the language reference (docs/dsl.md) lists under "
                         "\"Writing kernels that lower to AscendC\"; if it is one of them, this is a lowering bug "
                         "(ours): please report it")

